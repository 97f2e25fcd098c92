// perf_hints.log in real run folders (issue 31 items 10 and 11): the column base a June run's
// folder dates, and a folder of several runs linted as its newest run only.

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "ptune/hints/lint.hpp"
#include "ptune/hints/pipeline.hpp"

namespace hints_runs_test {

using namespace ptune;
namespace fs = std::filesystem;

namespace {

fs::path hint_runs() {
    return fs::path(PTUNE_TEST_DATA) / "discover" / "Data";
}

}  // namespace

TEST_CASE("hints-lint on a folder lints the newest run only, found at any depth", "[hints]") {
    Diagnostics diagnostics;
    auto found = hints::find_logs({hint_runs().string()}, diagnostics);
    REQUIRE(found.logs.size() == 1);
    CHECK(found.logs[0].find("Dispatch_20260915_101500") != std::string::npos);
    bool listed = false;
    for (const auto& item : diagnostics.items())
        listed = listed || item.message.find("Qwen_20260625_184941") != std::string::npos;
    CHECK(listed);
}

TEST_CASE("a June run folder without other markers dates its log to 0-based columns", "[hints]") {
    fs::path june = hint_runs() / "Qwen_20260625_184941" / "report" / "perf_hints.log";
    auto base = hints::column_base_from_build(june);
    REQUIRE(base);
    CHECK(base->base == 0);
    CHECK(base->reason.find("2026-06-25") != std::string::npos);
    // A later run proves nothing by its date: the entries decide (here a v3 'moves' clause).
    fs::path september = hint_runs() / "sept" / "build_output" / "Dispatch_20260915_101500" /
                         "report" / "perf_hints.log";
    CHECK_FALSE(hints::column_base_from_build(september));
    // The pipeline reads the June log with that base.
    Diagnostics diagnostics;
    auto logs = hints::read_logs({june.string()}, {}, diagnostics);
    REQUIRE(logs.size() == 1);
    CHECK(logs[0].column_base.base == 0);
}

}  // namespace hints_runs_test
