// The metrics a memory report publishes and the built-in mem.* rules they trigger.

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

#include "ptune/memreport/analyzer.hpp"
#include "ptune/memreport/parser.hpp"
#include "ptune/rules/engine.hpp"

namespace memreport_rules_test {

using namespace ptune;
using namespace ptune::memreport;

namespace {

rules::MetricStore metrics_of(const std::string& name) {
    std::ifstream in(std::string(PTUNE_TEST_DATA) + "/memreport/" + name, std::ios::binary);
    REQUIRE(in);
    Diagnostics diagnostics;
    Report report = parse_report(in, name, diagnostics);
    BackendChoice choice = analyze(report, std::nullopt, diagnostics);
    rules::MetricStore store;
    publish_metrics(report, choice, store);
    return store;
}

// "rule@function" for every finding, sorted.
std::vector<std::string> fired(const rules::MetricStore& store) {
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    std::vector<std::string> out;
    for (const auto& finding : rules::evaluate(*catalogue, store, {"mem."})) {
        out.push_back(finding.rule + "@" + finding.subject.name);
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("function metrics are mirrored for the kernel subject", "[memreport]") {
    auto store =
        metrics_of("composed__a2a3_v3__seed_completion.memory_after_AllocateMemoryAddr.txt");
    const auto& function = store.subject("function", "kv_proj_matmul");
    CHECK(function.metric("mem.Mat.used_bytes") == 81920);
    CHECK(function.metric("mem.Mat.limit_bytes") == 524288);
    CHECK(*function.metric("mem.Mat.usage_pct") == Approx(15.625));
    CHECK(function.metric("mem.Mat.memrefs") == 4);
    CHECK(function.metric("mem.Mat.buffers") == 4);
    CHECK(function.metric("mem.Mat.paired_buffers") == 1);
    CHECK(function.metric("mem.left_right.max_usage_pct") == 50);
    CHECK(function.labels.at("mem.Mat.usage") == "15.6%");
    REQUIRE(function.locations.size() == 1);
    CHECK(function.locations[0].line == 18);
    const auto& kernel = store.subject("kernel", "kv_proj_matmul");
    CHECK(kernel.metrics == function.metrics);
    CHECK(store.run().metric("mem.report_found") == 1);
    CHECK(store.run().metric("mem.functions") == 2);
}

TEST_CASE("the guide's example: Mat and Acc under-filled, grow K", "[memreport]") {
    auto store =
        metrics_of("composed__a2a3_v3__seed_completion.memory_after_AllocateMemoryAddr.txt");
    CHECK(fired(store) == std::vector<std::string>{"mem.deeper-stage-mat@kv_proj_matmul",
                                                   "mem.grow-tile@kv_proj_matmul",
                                                   "mem.underfilled-acc@kv_proj_matmul",
                                                   "mem.underfilled-mat@kv_proj_matmul"});
    CHECK(*store.subject("function", "kv_proj_matmul").metric("mem.grow.k.mat_pct") ==
          Approx(31.25));
}

TEST_CASE("Right at 100 % is only a note", "[memreport]") {
    auto store =
        metrics_of("composed__a2a3_v3__views_reserve_longname.memory_after_AllocateMemoryAddr.txt");
    CHECK(fired(store) == std::vector<std::string>{"mem.left-right-full@qkv_proj_aic",
                                                   "mem.underfilled-vec@kv_cache_update_aiv"});
    CHECK(store.subject("function", "qkv_proj_aiv").metric("mem.Vec.reserve_floor_bytes") == 65536);
}

TEST_CASE("over-limit spaces are errors (Mat, Vec) and a warning (Acc)", "[memreport]") {
    auto store =
        metrics_of("composed_over__a5_overlimit_unallocated.memory_after_AllocateMemoryAddr.txt");
    CHECK(fired(store) ==
          std::vector<std::string>{"mem.acc-over-limit@qk_pv_aic", "mem.left-right-full@qk_pv_aic",
                                   "mem.over-limit@qk_pv_aic", "mem.vec-over-limit@qk_pv_aiv"});
}

TEST_CASE("a pre-safe-cap Vec above 184 KB, marginal and legacy", "[memreport]") {
    auto store = metrics_of("composed_legacy__a2a3_v2_crlf.memory_after_AllocateMemoryAddr.txt");
    CHECK(fired(store) ==
          std::vector<std::string>{"mem.grow-tile@proj_aic", "mem.left-right-full@proj_aic",
                                   "mem.legacy-vec-cap@norm_aiv", "mem.legacy-vec-limit@run",
                                   "mem.marginal-vec@norm_aiv", "mem.underfilled-mat@proj_aic"});
}

TEST_CASE("N/A limits give no usage rules", "[memreport]") {
    auto store =
        metrics_of("composed__nobackend_v3__na_limits.memory_after_AllocateMemoryAddr.txt");
    CHECK_FALSE(store.subject("function", "vector_kernel").metric("mem.Vec.usage_pct"));
    CHECK(fired(store).empty());
}

}  // namespace memreport_rules_test
