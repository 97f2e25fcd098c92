// scope_stats.jsonl (upstream-2026-09.md §3): metrics equal scope_stats.expected.json exactly;
// v4/v5 variants, pairing, wedged runs, damaged lines and the ring.* rules.

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/rules/engine.hpp"
#include "ptune/scope/pipeline.hpp"

namespace scope_stats_test {

using namespace ptune;
using namespace ptune::scope;

namespace {

const std::string kData = std::string(PTUNE_TEST_DATA) + "/scope/";

Result<ScopeStats> parse_text(const std::string& text, Diagnostics& diagnostics) {
    std::istringstream in(text);
    return parse_scope_stats(in, "t.jsonl", diagnostics);
}

std::string sample(const std::string& site, const char* phase, int depth, long tw0, long tw1,
                   long h0, long h1, long t = 0) {
    return nlohmann::json{{"site", site},
                          {"phase", phase},
                          {"depth", depth},
                          {"ring", std::min(depth, 3)},
                          {"task_window_start", tw0},
                          {"task_window_end", tw1},
                          {"heap_start", h0},
                          {"heap_end", h1},
                          {"tensormap", t}}
               .dump() +
           "\n";
}

std::vector<rules::Finding> evaluate(const Loaded& loaded) {
    rules::MetricStore store;
    publish(loaded, store);
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue);
    return rules::evaluate(*catalogue, store, {"ring."});
}

bool fired(const std::vector<rules::Finding>& findings, const std::string& id) {
    return std::any_of(findings.begin(), findings.end(),
                       [&](const rules::Finding& f) { return f.rule == id; });
}

}  // namespace

TEST_CASE("scope_stats v6 fixture: metrics equal scope_stats.expected.json", "[scope]") {
    Diagnostics diagnostics;
    auto loaded = load(kData + "scope_stats.jsonl", "", diagnostics);
    REQUIRE(loaded);
    CHECK(diagnostics.empty());
    REQUIRE(loaded->files.size() == 1);
    const ScopeStats& stats = loaded->files[0];
    CHECK(stats.meta.version == 6);
    CHECK(stats.samples == 8);
    CHECK(stats.open_scopes.empty());
    CHECK(stats.tensormap_peak == 1135);

    auto expected_text = io::read_file(kData + "scope_stats.expected.json");
    REQUIRE(expected_text);
    nlohmann::json expected = nlohmann::json::parse(*expected_text);
    render::Report report = build_report(*loaded, {});
    CHECK(report.data["fatal"] == expected["fatal"]);
    CHECK(report.data["dropped"] == expected["dropped"]);
    CHECK(report.data["scopes"] == expected["scopes"]);

    // The first ring-2 scope is at 96.88 % of its heap: near deadlock; ring 1 and 0 stay low.
    auto findings = evaluate(*loaded);
    CHECK(fired(findings, "ring.heap-near-deadlock"));
    CHECK(fired(findings, "ring.pinned-at-exit"));
    CHECK(fired(findings, "ring.one-ring-collapse"));
    CHECK_FALSE(fired(findings, "ring.task-window-near-deadlock"));
    CHECK_FALSE(fired(findings, "ring.wedged-scope"));
    CHECK_FALSE(fired(findings, "ring.orch-error"));
    for (const auto& finding : findings) {
        if (finding.rule == "ring.heap-near-deadlock") {
            CHECK(finding.subject.name == "2");
            CHECK(finding.message.find("prefill_layer.cpp:58 reaches 96.88%") != std::string::npos);
        }
    }
}

TEST_CASE("scope_stats v4 and v5: no dep pool; wrapped heap corrected and flagged", "[scope]") {
    Diagnostics diagnostics;
    std::string v4 =
        R"({"version": 4, "fatal": false, "dropped": 0, "total": 2, "task_window_max": [100], "heap_max": [1000], "tensormap_max": 10})"
        "\n" +
        sample("a.cpp:1", "begin", 0, 0, 0, 0, 0) + sample("a.cpp:1", "end", 0, 0, 95, 0, 10);
    auto four = parse_text(v4, diagnostics);
    REQUIRE(four);
    REQUIRE(four->scopes.size() == 1);
    CHECK_FALSE(four->scopes[0].dep_pool);
    CHECK(four->scopes[0].task_window.high_water_pct() == Approx(95.0));

    std::string v5 =
        R"({"version": 5, "fatal": true, "dropped": 3, "total": 9, "task_window_max": [100], "heap_max": [1000], "dep_pool_max": [50], "tensormap_max": 10})"
        "\n"
        R"({"site": "b.cpp:2", "phase": "begin", "depth": 0, "ring": 0, "task_window_start": 0, "task_window_end": 0, "heap_start": 900, "heap_end": 900, "dep_pool_start": 0, "dep_pool_end": 0, "tensormap": 0})"
        "\n"
        R"({"site": "b.cpp:2", "phase": "end", "depth": 0, "ring": 0, "task_window_start": 0, "task_window_end": 1, "heap_start": 950, "heap_end": 100, "dep_pool_start": 0, "dep_pool_end": 5, "tensormap": 0})"
        "\n";
    auto five = parse_text(v5, diagnostics);
    REQUIRE(five);
    REQUIRE(five->scopes.size() == 1);
    const ResourceUse& heap = five->scopes[0].heap;
    CHECK(heap.approximate);
    CHECK(heap.high_water == 200);      // 100 - 900 + 1000
    CHECK(heap.real_occupancy == 150);  // 100 - 950 + 1000
    CHECK(five->heap_approximate);
    REQUIRE(five->scopes[0].dep_pool);
    CHECK(five->scopes[0].dep_pool->high_water == 5);
    Loaded loaded;
    loaded.files.push_back(std::move(*five));
    auto findings = evaluate(loaded);
    CHECK(fired(findings, "ring.samples-dropped"));
    CHECK(fired(findings, "ring.fatal-latched"));
}

TEST_CASE("scope_stats: wedged run, unmatched end, damaged lines", "[scope]") {
    std::string text =
        R"({"version": 4, "fatal": false, "dropped": 0, "total": 5, "task_window_max": [100, 100], "heap_max": [1000, 1000], "tensormap_max": 10})"
        "\n" +
        sample("root:0", "begin", 0, 0, 0, 0, 0) + sample("x.cpp:9", "end", 1, 0, 1, 0, 1) +
        "not json\n" + R"({"site": "x", "phase": "middle"})" + "\n" +
        sample("loop.cpp:5", "begin", 1, 0, 99, 0, 0) + R"({"site": "loop.cpp:5", "pha)";
    Diagnostics diagnostics;
    auto stats = parse_text(text, diagnostics);
    REQUIRE(stats);
    CHECK(stats->unmatched_ends == 1);
    CHECK(stats->skipped_lines == 3);
    REQUIRE(stats->open_scopes.size() == 2);
    CHECK(stats->open_scopes.back().site == "loop.cpp:5");
    CHECK(stats->open_scopes.back().line == 6);
    CHECK(diagnostics.count(Severity::Warning) == 4);
    Loaded loaded;
    loaded.files.push_back(std::move(*stats));
    loaded.orch_error = OrchError{1, "1", true, "host.1.log", 7};
    auto findings = evaluate(loaded);
    CHECK(fired(findings, "ring.wedged-scope"));
    REQUIRE(fired(findings, "ring.orch-error"));
    for (const auto& finding : findings) {
        if (finding.rule == "ring.wedged-scope")
            CHECK(finding.message.find("loop.cpp:5 (depth 1, ring 1)") != std::string::npos);
        if (finding.rule == "ring.orch-error")
            CHECK(finding.message.find("SCOPE_DEADLOCK") != std::string::npos);
    }
}

TEST_CASE("scope_stats: a bad metadata line is an error naming the line", "[scope]") {
    Diagnostics diagnostics;
    for (
        const char* text :
        {"", "not json\n", "[1, 2]\n",
         R"({"version": 7})"
         "\n",
         R"({"version": 6, "fatal": false, "dropped": 0, "total": 0, "task_window_max": [1], "heap_max": [1], "tensormap_max": 1})"
         "\n"}) {
        auto stats = parse_text(text, diagnostics);
        CHECK_FALSE(stats);
    }
    auto bad = parse_text(R"({"version": 9, "fatal": false})"
                          "\n",
                          diagnostics);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().line == 1);
    CHECK(bad.error().message == "unsupported scope_stats version 9 (ptune reads 4 to 6)");
}

TEST_CASE("orch_error_code in a host log", "[scope]") {
    std::istringstream log(
        "[mono_ns=1][T0x1][INFO] a: ok\n"
        "[mono_ns=2][T0x1][ERROR] run: [x.cpp:1] aclrtSynchronizeStream failed 507018, "
        "orch_error_code=2\n");
    auto error = find_orch_error(log, "host.1.log");
    REQUIRE(error);
    CHECK(error->code == 2);
    CHECK(error->saw_507018);
    CHECK(error->line == 2);
    REQUIRE(orch_error_info(2) != nullptr);
    CHECK(std::string(orch_error_info(2)->name) == "HEAP_RING_DEADLOCK");
    CHECK(orch_error_info(5) == nullptr);
}

TEST_CASE("orch_error_code beyond int is an unknown code with every digit", "[scope]") {
    std::istringstream log("[mono_ns=2][T0x1][ERROR] run: orch_error_code=18446744073709551616\n");
    auto error = find_orch_error(log, "host.1.log");
    REQUIRE(error);
    CHECK(error->code == -1);  // not its first nine digits
    CHECK(error->code_text == "18446744073709551616");
    CHECK(orch_error_info(error->code) == nullptr);
}

}  // namespace scope_stats_test
