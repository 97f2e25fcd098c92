#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include <catch2/catch.hpp>

#include "ptune/advise/advisor.hpp"
#include "ptune/advise/inventory.hpp"
#include "ptune/pmu/analyzer.hpp"
#include "ptune/pmu/pipeline.hpp"
#include "ptune/rules/engine.hpp"
#include "ptune/swimlane/pipeline.hpp"
#include "ptune/swimlane/report.hpp"

namespace swimlane_pipeline_test {

using namespace ptune;
using namespace ptune::swimlane;
namespace fs = std::filesystem;

namespace {

fs::path data(const std::string& name) {
    return fs::path(PTUNE_TEST_DATA) / name;
}

fs::path examples_run() {
    return fs::path(PTUNE_TEST_DATA) / ".." / ".." / "examples" / "build_output";
}

fs::path scratch_dir(const std::string& name) {
    fs::path dir = fs::temp_directory_path() /
                   ("ptune-swimlane-pipeline-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

rules::Catalogue catalogue_with(const std::string& override_json = "") {
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    if (!override_json.empty()) REQUIRE(catalogue->merge_json(override_json, "override.json").ok());
    return std::move(*catalogue);
}

/// Loads, analyses and judges the only capture under `input` as swimlane-analyze does.
struct Judged {
    CaptureAnalysis result;
    rules::MetricStore store;
    std::vector<rules::Finding> findings;
};

Judged judge(const fs::path& input, const rules::Catalogue& catalogue) {
    Diagnostics diagnostics;
    LoadRequest request;
    request.input = input;
    auto found = find_captures(request);
    REQUIRE(found.ok());
    auto files = only_capture(*found, input.string());
    REQUIRE(files.ok());
    auto loaded = load_capture(*files, request, diagnostics);
    REQUIRE(loaded.ok());
    Judged judged;
    judged.result = analyze_capture(*loaded, analyze_options(catalogue));
    publish(judged.result, judged.store);
    judged.findings = rules::evaluate(catalogue, judged.store, {"L2."});
    return judged;
}

using FindingKey = std::tuple<std::string, std::string, std::string, int>;

std::set<FindingKey> keys(const std::vector<rules::Finding>& findings, const std::string& prefix) {
    std::set<FindingKey> out;
    for (const auto& f : findings)
        if (f.rule.rfind(prefix, 0) == 0)
            out.emplace(f.rule, f.subject.kind, f.subject.name, static_cast<int>(f.severity));
    return out;
}

std::set<FindingKey> advise_keys(const fs::path& run, const rules::Catalogue& catalogue,
                                 const std::string& prefix) {
    Diagnostics diagnostics;
    auto inventory = advise::take_inventory(run, "", 1, {});
    REQUIRE(inventory.ok());
    auto advice = advise::advise(std::move(*inventory), {}, catalogue, diagnostics);
    std::vector<rules::Finding> findings = advise::all_findings(advice);
    return keys(findings, prefix);
}

}  // namespace

TEST_CASE("the catalogue's L2 thresholds set the analysis options", "[swimlane][pipeline]") {
    AnalyzeOptions defaults = analyze_options(catalogue_with());
    CHECK(defaults.target_kernel_us == 50.0);
    CHECK(defaults.trail_min_tasks == 8);
    AnalyzeOptions changed = analyze_options(catalogue_with(
        R"({"rules": [{"id": "L2.kernels-too-small", "params": {"target_us": 3}},
                      {"id": "L2.dispatch-trail", "params": {"min_tasks": 4}}]})"));
    CHECK(changed.target_kernel_us == 3.0);
    CHECK(changed.trail_min_tasks == 4);
    AnalyzeOptions hostile = analyze_options(
        catalogue_with(R"({"rules": [{"id": "L2.dispatch-trail", "params": {"min_tasks": -5}}]})"));
    CHECK(hostile.trail_min_tasks == 0);
}

TEST_CASE("a changed kernels-too-small target changes the metric, not only the message",
          "[swimlane][pipeline]") {
    fs::path composed = data("swimlane-analyze/composed");
    Judged at_default = judge(composed, catalogue_with());
    Judged at_one_us = judge(composed, catalogue_with(R"({"rules": [
        {"id": "L2.kernels-too-small", "params": {"target_us": 1}}]})"));
    CHECK(at_default.result.analysis.target_kernel_us == 50.0);
    CHECK(at_one_us.result.analysis.target_kernel_us == 1.0);
    // Every composed kernel runs for a few µs: all are below 50 µs, none below 1 µs.
    CHECK(at_default.result.analysis.kernel_below_target_share == 1.0);
    CHECK(at_one_us.result.analysis.kernel_below_target_share == 0.0);
    auto fired = [](const Judged& j, const std::string& rule) {
        return std::any_of(j.findings.begin(), j.findings.end(),
                           [&](const rules::Finding& f) { return f.rule == rule; });
    };
    CHECK_FALSE(fired(at_one_us, "L2.kernels-too-small"));
}

TEST_CASE("swimlane-analyze's pipeline and advise reach the same L2 findings",
          "[swimlane][pipeline][advise]") {
    // A 1 ms target makes every kernel "too small": the rule fires in both paths.
    const std::string higher_target = R"({"rules": [
        {"id": "L2.kernels-too-small", "params": {"target_us": 1000, "min_idle_while_busy_pct": 0}},
        {"id": "L2.dispatch-trail", "params": {"min_tasks": 2}}]})";
    for (const std::string& override_json : {std::string(), higher_target}) {
        INFO(override_json);
        rules::Catalogue catalogue = catalogue_with(override_json);
        Judged analyzed = judge(examples_run(), catalogue);
        auto analyzed_keys = keys(analyzed.findings, "L2.");
        CHECK(analyzed_keys == advise_keys(examples_run(), catalogue, "L2."));
        bool too_small = std::any_of(analyzed_keys.begin(), analyzed_keys.end(), [](const auto& k) {
            return std::get<0>(k) == "L2.kernels-too-small";
        });
        CHECK(too_small == !override_json.empty());
    }
}

TEST_CASE("load policy: a named file must be usable, a discovered sibling only warns",
          "[swimlane][pipeline]") {
    fs::path dir = scratch_dir("policy");
    fs::copy_file(data("swimlane/chip_swimlane_records.json"), dir / "chip_swimlane_records.json");
    write(dir / "deps.json", "not json");
    write(dir / "name_map_broken.json", "{\"level\": 2}");  // no callable_id_to_name
    LoadRequest request;
    request.input = dir;
    auto found = find_captures(request);
    REQUIRE(found.ok());
    const CaptureFiles& files = found->captures.front();

    Diagnostics siblings;
    auto loaded = load_capture(files, request, siblings);
    REQUIRE(loaded.ok());
    CHECK_FALSE(loaded->deps);
    CHECK_FALSE(loaded->names);
    CHECK(loaded->files.deps.empty());
    CHECK(siblings.count(Severity::Warning) >= 2);
    CHECK(loaded->inputs ==
          std::vector<std::string>{(dir / "chip_swimlane_records.json").string()});

    SECTION("named deps.json") {
        request.deps = dir / "deps.json";
        Diagnostics diagnostics;
        CHECK_FALSE(load_capture(files, request, diagnostics).ok());
        request.named_files_required = false;  // swimlane-merge: warn and go on
        auto relaxed = load_capture(files, request, diagnostics);
        REQUIRE(relaxed.ok());
        CHECK_FALSE(relaxed->deps);
    }
    SECTION("named names file, read by content whatever its name") {
        request.names = dir / "name_map_broken.json";
        Diagnostics diagnostics;
        CHECK_FALSE(load_capture(files, request, diagnostics).ok());
        write(dir / "names.json", "KERNELS = [\n\t{\"func_id\": 0, \"name\": \"qk\"},\n]\n");
        request.names = dir / "names.json";
        auto named = load_capture(files, request, diagnostics);
        REQUIRE(named.ok());
        REQUIRE(named->names);
        CHECK(named->names->display_name(0) == "qk");
        CHECK(named->files.name_map == dir / "names.json");
    }
    SECTION("a named file for a tree of several captures is refused") {
        request.input = data("swimlane/l3");
        request.deps = data("swimlane/deps.json");
        CHECK_FALSE(find_captures(request).ok());
        request.deps.clear();
        auto l3 = find_captures(request);
        REQUIRE(l3.ok());
        CHECK(l3->captures.size() == 2);
        CHECK_FALSE(only_capture(*l3, "l3").ok());
    }
    fs::remove_all(dir);
}

TEST_CASE("advise's overview row is the capture's analysis", "[swimlane][pipeline]") {
    Judged judged = judge(data("swimlane-analyze/composed"), catalogue_with());
    Diagnostics diagnostics;
    LoadRequest request;
    request.input = data("swimlane-analyze/composed");
    auto found = find_captures(request);
    REQUIRE(found.ok());
    auto loaded = load_capture(found->captures.front(), request, diagnostics);
    REQUIRE(loaded.ok());
    Overview overview = make_overview();
    add_to_overview(overview, "composed", *loaded, judged.result.analysis);
    REQUIRE(overview.table.rows.size() == 1);
    CHECK(overview.table.rows[0].size() == overview.table.columns.size());
    CHECK(overview.table.rows[0][1] == std::to_string(judged.result.analysis.tasks));
    CHECK(overview.data[0]["tasks"] == judged.result.analysis.tasks);
}

TEST_CASE("pmu: pmu-analyze's pipeline and advise agree, also with a changed threshold",
          "[pmu][pipeline][advise]") {
    fs::path run = examples_run() / "PagedAttn_20260715_103000";
    Diagnostics diagnostics;
    auto csv = pmu::resolve_csv(run.string(), diagnostics);
    REQUIRE(csv.ok());
    auto loaded = pmu::load_pmu(*csv, {}, diagnostics);
    REQUIRE(loaded.ok());
    // The names come from the lookup next to the csv (the sibling name map).
    CHECK_FALSE(loaded->names.empty());
    auto analysis = pmu::analyze(loaded->table, loaded->names, {}, diagnostics);
    rules::MetricStore store;
    pmu::publish_metrics(loaded->table, analysis, store);
    std::vector<std::set<FindingKey>> per_catalogue;
    for (const std::string& override_json :
         {std::string(),
          std::string(R"({"rules": [{"id": "pmu.mte2-bound", "params": {"busy": 0.85}}]})")}) {
        INFO(override_json);
        rules::Catalogue catalogue = catalogue_with(override_json);
        per_catalogue.push_back(keys(rules::evaluate(catalogue, store, {"pmu."}), "pmu."));
        CHECK(per_catalogue.back() == advise_keys(examples_run(), catalogue, "pmu."));
    }
    CHECK(per_catalogue[0] != per_catalogue[1]);  // the changed threshold mattered
}

TEST_CASE("advise computes the kernels-too-small metric against the catalogue's target",
          "[swimlane][pipeline][advise]") {
    // Median kernel ≈ 59 µs: below the 1 ms target every kernel is, below 50 µs only some.
    fs::path trail = data("swimlane-analyze/dispatch-trail");
    rules::Catalogue catalogue = catalogue_with(R"({"rules": [{"id": "L2.kernels-too-small",
        "params": {"target_us": 1000, "min_idle_while_busy_pct": 0}}]})");
    Judged analyzed = judge(trail, catalogue);
    CHECK(analyzed.result.analysis.kernel_below_target_share == 1.0);
    auto message_of = [](const std::vector<rules::Finding>& findings) {
        for (const auto& f : findings)
            if (f.rule == "L2.kernels-too-small") return f.message;
        return std::string();
    };
    std::string from_analyze = message_of(analyzed.findings);
    CHECK(from_analyze.find("(100% of") != std::string::npos);

    Diagnostics diagnostics;
    auto inventory = advise::take_inventory(trail, "", 1, {});
    REQUIRE(inventory.ok());
    auto advice = advise::advise(std::move(*inventory), {}, catalogue, diagnostics);
    std::vector<rules::Finding> findings = advise::all_findings(advice);
    CHECK(message_of(findings) == from_analyze);
}

}  // namespace swimlane_pipeline_test
