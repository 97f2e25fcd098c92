#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "ptune/advise/advisor.hpp"
#include "ptune/advise/inventory.hpp"
#include "ptune/rules/engine.hpp"

namespace advise_test {

using namespace ptune;
namespace fs = std::filesystem;

namespace {

fs::path scratch_dir(const std::string& name) {
    fs::path dir =
        fs::temp_directory_path() / ("ptune-advise-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

void touch(const fs::path& path, const std::string& text = "") {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("inventory picks the newest run by name and explains what is missing", "[advise]") {
    fs::path root = scratch_dir("inventory");
    fs::path older = root / "Prog_20260701_000000";
    fs::path newer = root / "Prog_20260702_000000";
    touch(older / "report" / "memory_after_AllocateMemoryAddr.txt");
    touch(newer / "dfx_outputs" / "pmu.csv");
    touch(newer / "dfx_outputs" / "rank1" / "d0" / "chip_swimlane_records.json");
    // The older run is touched last: modification time must not decide.
    fs::last_write_time(older, fs::file_time_type::clock::now());

    auto inventory = advise::take_inventory(root, "", 1, {});
    REQUIRE(inventory.ok());
    CHECK(inventory->run_dir == newer);
    CHECK(inventory->program == "Prog");
    REQUIRE(inventory->of(advise::ArtifactKind::Pmu).size() == 1);
    auto records = inventory->of(advise::ArtifactKind::SwimlaneRecords);
    REQUIRE(records.size() == 1);
    CHECK(records[0]->scope == "rank1/d0");
    bool memory_missing = false;
    for (const auto& missing : inventory->missing) {
        if (missing.kind == advise::ArtifactKind::MemoryReport) {
            memory_missing = true;
            CHECK(missing.why.find("2026-07-28") != std::string::npos);
        }
    }
    CHECK(memory_missing);

    auto chosen = advise::take_inventory(root, "", 2, {});
    REQUIRE(chosen.ok());
    CHECK(chosen->run_dir == older);
    CHECK_FALSE(advise::take_inventory(root / "nope", "", 1, {}).ok());
    fs::remove_all(root);
}

TEST_CASE("cross-artifact rules join metrics of one kernel from different analyzers", "[advise]") {
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    rules::MetricStore store;
    // X1: MTE2-bound in the PMU, PH001 sites in the source.
    store.set("kernel", "qkv_proj_aic", "pmu.bottleneck_is_mte2", 1);
    store.set("kernel", "qkv_proj_aic", "pmu.ratio.mte2", 0.82);
    store.set("kernel", "qkv_proj_aic", "hints.PH001.count", 3);
    store.set("kernel", "qkv_proj_aic", "advise.kernel_time_share", 0.4);
    // Same PMU picture without hints: X1 must not fire.
    store.set("kernel", "rope_aiv", "pmu.bottleneck_is_mte2", 1);
    store.set("kernel", "rope_aiv", "pmu.ratio.mte2", 0.9);
    // X6: an overflow with PH-MR-001.
    store.set("kernel", "attn_aiv", "mem.Vec.usage_pct", 104);
    store.set("kernel", "attn_aiv", "hints.PH-MR-001.count", 1);

    auto findings = rules::evaluate(*catalogue, store, {"cross."});
    std::vector<std::pair<std::string, std::string>> fired;
    for (const auto& finding : findings) fired.emplace_back(finding.rule, finding.subject.name);
    CHECK(std::count(fired.begin(), fired.end(),
                     std::make_pair(std::string("cross.mte2-bound-with-ph001"),
                                    std::string("qkv_proj_aic"))) == 1);
    CHECK(std::count(fired.begin(), fired.end(),
                     std::make_pair(std::string("cross.mte2-bound-with-ph001"),
                                    std::string("rope_aiv"))) == 0);
    CHECK(std::count(fired.begin(), fired.end(),
                     std::make_pair(std::string("cross.overflow-from-depth"),
                                    std::string("attn_aiv"))) == 1);
    for (const auto& finding : findings) {
        if (finding.rule == "cross.mte2-bound-with-ph001") {
            REQUIRE(finding.impact);
            CHECK(*finding.impact == Approx(0.4));
            CHECK(finding.catalogue == "X1");
        }
    }
}

TEST_CASE("advise ranks schedule findings before pipeline ones, then by impact", "[advise]") {
    fs::path root = scratch_dir("rank");
    fs::path run = root / "Prog_20260702_000000";
    // A memory report with one function over its Mat limit and one comfortably filled.
    touch(run / "report" / "memory_after_AllocateMemoryAddr.txt",
          "=== Memory Usage Report after AllocateMemoryAddr ===\n"
          "Backend: 910B\n"
          "Functions: 1 InCore\n\n"
          "--- big_aic ---\n"
          "  Space  |  Used       |  Limit      |  Usage  |  MemRefs\n"
          "  -------+-------------+-------------+---------+---------\n"
          "  Mat    |    540.0 KB |    512.0 KB |  105.5% |        4\n"
          "  Acc    |     64.0 KB |    128.0 KB |   50.0% |        1\n");
    auto inventory = advise::take_inventory(root, "", 1, {});
    REQUIRE(inventory.ok());
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    Diagnostics diagnostics;
    auto advice = advise::advise(std::move(*inventory), {}, *catalogue, diagnostics);
    REQUIRE_FALSE(advice.findings.empty());
    bool over_limit = false;
    for (std::size_t i = 0; i < advice.findings.size(); ++i) {
        if (i > 0) CHECK(advice.findings[i - 1].tier <= advice.findings[i].tier);
        if (advice.findings[i].finding.rule == "mem.over-limit") over_limit = true;
    }
    CHECK(over_limit);
    auto report = advise::to_report(advice);
    CHECK(report.data["run"]["dir"] == run.string());
    CHECK(report.data["findings"][0]["rank"] == 1);
    CHECK(report.data["artifacts"]["missing"].size() >= 5);
    fs::remove_all(root);
}

}  // namespace advise_test
