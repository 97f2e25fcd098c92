// The L3 tree (ptune/l3/tree.hpp): dispatch_identity.json rules, pairing across ranks, and every
// kind of damage said exactly once.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <catch2/catch.hpp>

#include "ptune/core/io.hpp"
#include "ptune/l3/tree.hpp"

namespace l3_tree_test {

using namespace ptune;
using namespace ptune::l3;
namespace fs = std::filesystem;

namespace {

fs::path fixture() {
    return fs::path(PTUNE_TEST_DATA) / "l3" / "l3_two_rank" / "dfx_outputs";
}

fs::path scratch(const std::string& name) {
    fs::path dir =
        fs::temp_directory_path() / ("ptune-l3-tree-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

std::string sidecar() {
    return *io::read_file((fixture() / "rank0/d0/dispatch_identity.json").string());
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

/// How many gaps contain `needle`.
std::size_t gaps_with(const Tree& tree, const std::string& needle) {
    std::size_t n = 0;
    for (const auto& gap : tree.gaps) n += gap.find(needle) != std::string::npos;
    return n;
}

}  // namespace

TEST_CASE("dispatch_identity.json: the fixture's sidecar and every rule", "[l3][tree]") {
    auto ok = parse_dispatch_identity(sidecar(), "s.json", 0, 0);
    REQUIRE(ok.ok());
    CHECK(ok->run_id == 1);
    CHECK(ok->task_slot == 0);
    CHECK(ok->group_size == 2);
    CHECK(ok->host_pid == 2091377);

    auto error_of = [](const std::string& text, int rank = 0, int dispatch = 0) {
        auto parsed = parse_dispatch_identity(text, "s.json", rank, dispatch);
        REQUIRE_FALSE(parsed.ok());
        CHECK(parsed.error().file == "s.json");
        return parsed.error().message;
    };
    CHECK_THAT(error_of(replaced(sidecar(), "\"schema_version\": 1", "\"schema_version\": true")),
               Catch::Contains("unsupported dispatch identity schema"));
    CHECK_THAT(error_of(replaced(sidecar(), "\"run_id\": 1", "\"run_id\": 0")),
               Catch::Contains("invalid parent key"));
    CHECK_THAT(error_of(replaced(sidecar(), "\"task_slot\": 0", "\"task_slot\": 0.5")),
               Catch::Contains("task_slot must be an integer"));
    CHECK_THAT(error_of(replaced(sidecar(), "\"group_index\": 0", "\"group_index\": 2")),
               Catch::Contains("invalid group membership"));
    CHECK_THAT(
        error_of(replaced(sidecar(), "\"endpoint_dispatch_id\": 1", "\"endpoint_dispatch_id\": 0")),
        Catch::Contains("invalid endpoint diagnostics"));
    CHECK_THAT(error_of(replaced(sidecar(), "c2d41f7a", "C2D41F7A")),
               Catch::Contains("invalid callable digest"));
    CHECK_THAT(error_of(replaced(sidecar(), "\"host_pid\": 2091377", "\"host_pid\": -3")),
               Catch::Contains("host_pid must be a positive integer"));
    CHECK_THAT(error_of(sidecar(), 1, 0), Catch::Contains("disagrees with its rank1/d0 path"));
    CHECK_THAT(error_of(sidecar(), -1, -1), Catch::Contains("is not below rankN/dN"));
}

TEST_CASE("the two-rank fixture pairs by its parent dispatch identity", "[l3][tree]") {
    auto tree = read_tree(fixture());
    REQUIRE(tree.ok());
    CHECK(tree->gaps.empty());
    CHECK(tree->pairing == Pairing::ParentDispatchIdentity);
    REQUIRE(tree->captures.size() == 2);
    CHECK(tree->dispatches == std::vector<std::string>{"d0 (run1:0)"});
    CHECK(tree->captures[0].label == "rank0/d0");
    CHECK(tree->captures[1].label == "rank1/d0");
    CHECK(tree->ranks == std::vector<int>{0, 1});
    // The parent directory of dfx_outputs/ finds the same root.
    auto from_parent = read_tree(fixture().parent_path());
    REQUIRE(from_parent.ok());
    CHECK(from_parent->root == fixture());

    Selection by_id;
    by_id.parent = {1, 0};
    auto selected = read_tree(fixture(), by_id);
    REQUIRE(selected.ok());
    CHECK(selected->captures.size() == 2);
    by_id.parent = {1, 7};
    auto none = read_tree(fixture(), by_id);
    REQUIRE_FALSE(none.ok());
    CHECK_THAT(none.error().message, Catch::Contains("run_id 1, task_slot 7"));
    Selection by_d;
    by_d.dispatch = 0;
    auto d0 = read_tree(fixture(), by_d);
    REQUIRE(d0.ok());
    // d0 holds the two members of one group: paired (and checked) as that group.
    CHECK(d0->pairing == Pairing::ParentDispatchIdentity);
    CHECK(d0->dispatches == std::vector<std::string>{"d0 (run1:0)"});
    CHECK(d0->gaps.empty());
}

TEST_CASE("a damaged tree: each gap said once, the rest kept", "[l3][tree]") {
    fs::path root = scratch("damaged");
    const std::string records = "{\"chip_swimlane_level\": 3}";
    write(root / "rank0/d0/chip_swimlane_records.json", records);
    write(root / "rank0/d1/chip_swimlane_records.json", records);
    write(root / "rank1/d0/deps.json", "{}");                       // no records
    write(root / "rank01/d0/chip_swimlane_records.json", records);  // rank 1 again
    write(root / "rankX/d0/chip_swimlane_records.json", records);   // odd name
    write(root / "rank2/d0/chip_swimlane_records.json", records);
    write(root / "rank2/dzero/chip_swimlane_records.json", records);  // odd name
    fs::create_directories(root / "rank3");                           // no d<K>
    write(root / "notes/readme.txt", "not a rank");                   // ignored

    auto tree = read_tree(root);
    REQUIRE(tree.ok());
    CHECK(tree->ranks == std::vector<int>{0, 1, 2, 3});
    REQUIRE(tree->captures.size() == 3);
    CHECK(tree->dispatches == std::vector<std::string>{"d0", "d1"});
    CHECK(tree->of("d0").size() == 2);
    CHECK(gaps_with(*tree, "rankX: odd directory name") == 1);
    CHECK(gaps_with(*tree, "dzero: odd directory name") == 1);
    CHECK(gaps_with(*tree, "names rank 1 again") == 1);
    CHECK(gaps_with(*tree, "rank1/d0: no chip_swimlane_records.json or pmu.csv") == 1);
    CHECK(gaps_with(*tree, "rank3: no d<K> capture directory") == 1);
    // rank1's d0 and rank3 were said above: not said again as missing.
    CHECK(gaps_with(*tree, "d1 is on 1 of 3 ranks only (missing on rank1, rank2)") == 1);
    CHECK(gaps_with(*tree, "d0 is on") == 0);
    std::set<std::string> unique(tree->gaps.begin(), tree->gaps.end());
    CHECK(unique.size() == tree->gaps.size());

    Selection by_d;
    by_d.dispatch = 1;
    auto d1 = read_tree(root, by_d);
    REQUIRE(d1.ok());
    CHECK(d1->captures.size() == 1);
    CHECK(gaps_with(*d1, "rank2 is missing d1/chip_swimlane_records.json") == 1);
    by_d.dispatch = 9;
    CHECK_FALSE(read_tree(root, by_d).ok());
    CHECK_FALSE(read_tree(root / "notes").ok());
    fs::remove_all(root);
}

TEST_CASE("sidecars on some ranks only, or a broken one: paired by dN, said once", "[l3][tree]") {
    fs::path root = scratch("sidecars");
    fs::copy(fixture(), root, fs::copy_options::recursive);
    fs::remove(root / "rank1/d0/dispatch_identity.json");
    auto some = read_tree(root);
    REQUIRE(some.ok());
    CHECK(some->pairing == Pairing::LocalCaptureIndex);
    CHECK(gaps_with(*some, "dispatch_identity.json on 1 of 2 captures only") == 1);

    write(root / "rank1/d0/dispatch_identity.json",
          replaced(sidecar(), "\"chip_rank\": 0", "\"chip_rank\": 5"));
    auto broken = read_tree(root);
    REQUIRE(broken.ok());
    CHECK(gaps_with(*broken, "disagrees with its rank1/d0 path; paired by d0 instead") == 1);
    CHECK(broken->captures.size() == 2);
    fs::remove_all(root);
}

TEST_CASE("dispatch selection values: dN and RUN_ID:TASK_SLOT", "[l3][tree]") {
    CHECK(*parse_dispatch("d3") == 3);
    CHECK(*parse_dispatch("3") == 3);
    CHECK_FALSE(parse_dispatch("dx").ok());
    CHECK_FALSE(parse_dispatch("d-1").ok());
    CHECK(*parse_dispatch_id("2:5") == std::pair<std::int64_t, std::int64_t>(2, 5));
    CHECK_FALSE(parse_dispatch_id("0:5").ok());
    CHECK_FALSE(parse_dispatch_id("2").ok());
}

TEST_CASE("distributed_meta.json and dispatch_program.json (upstream-2026-12.md §7.2, §7.3)",
          "[l3][tree]") {
    // The real run's shape: schema 2, two ranks on devices 1 and 3.
    const char* real = R"({
  "schema": 2,
  "params": [{"name": "x__ssa_v0", "direction": "In", "shape": [2, 7168], "dtype": "bfloat16"},
             {"name": "out__ssa_v3", "direction": "Out", "shape": null, "dtype": "int32"}],
  "num_return_types": 1,
  "platform": "a2a3",
  "backend_type": "Ascend910B",
  "distributed_config": {"device_ids": [1, 3], "num_sub_workers": 2,
                         "runtime": "tensormap_and_ringbuffer", "aicpu_thread_num": 4}
})";
    auto meta = parse_distributed_meta(real, "distributed_meta.json");
    REQUIRE(meta.ok());
    CHECK(meta->device_ids == std::vector<std::int64_t>{1, 3});
    CHECK(meta->params == 2);
    CHECK(describe(*meta) ==
          "L3 build: 2 device(s) [1, 3], a2a3 (Ascend910B), runtime tensormap_and_ringbuffer, 2 "
          "sub-worker(s), 4 AICPU thread(s), 2 orchestrator parameter(s)");
    // compiled_meta.json's schema 1, a newer one, and device ids that break the loader's rules.
    for (const char* bad : {R"({"schema": 1, "platform": "a2a3"})", R"({"schema": 3})", "[1, 2]",
                            "{", R"({"schema": 2, "distributed_config": {"device_ids": []}})",
                            R"({"schema": 2, "distributed_config": {"device_ids": [1, 1]}})",
                            R"({"schema": 2, "distributed_config": {"device_ids": [-1]}})"}) {
        INFO(bad);
        auto refused = parse_distributed_meta(bad, "distributed_meta.json");
        REQUIRE_FALSE(refused.ok());
        CHECK(refused.error().file == "distributed_meta.json");
    }
    CHECK(parse_distributed_meta(R"({"schema": 3})", "m").error().message.find("unknown schema") !=
          std::string::npos);

    auto program = parse_dispatch_program(R"({"program": "decode_csa_test"})", "p.json");
    REQUIRE(program.ok());
    CHECK(*program == "decode_csa_test");
    for (const char* bad : {R"({"program": ""})", R"({"program": 3})", "{}", "not json"})
        CHECK_FALSE(parse_dispatch_program(bad, "p.json").ok());
}

}  // namespace l3_tree_test
