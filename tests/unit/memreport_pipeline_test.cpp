// The memory-report pipeline mem-report and advise share: discovery, M10 without a report, and
// the catalogue's thresholds reaching the findings and the colours.

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <catch2/catch.hpp>

#include "ptune/advise/advisor.hpp"
#include "ptune/memreport/pipeline.hpp"
#include "ptune/memreport/report.hpp"
#include "ptune/rules/engine.hpp"

namespace memreport_pipeline_test {

using namespace ptune;
using namespace ptune::memreport;
namespace fs = std::filesystem;

namespace {

std::string data_path(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/memreport/" + name;
}

const std::string kSeed = "composed__a2a3_v3__seed_completion.memory_after_AllocateMemoryAddr.txt";

rules::Catalogue catalogue_with(const std::string& rules_json = "") {
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    if (!rules_json.empty()) REQUIRE(catalogue->merge_json(rules_json, "test.json").ok());
    return *catalogue;
}

using Fired = std::set<std::tuple<std::string, std::string, std::string>>;

// (rule, subject, severity) of the mem.* findings the pipeline gives for `input`.
Fired pipeline_findings(const std::string& input, const rules::Catalogue& catalogue) {
    Diagnostics diagnostics;
    auto source = locate_report(input, diagnostics);
    REQUIRE(source.ok());
    auto analysis = load_and_analyze(*source, {}, diagnostics);
    REQUIRE(analysis.ok());
    rules::MetricStore store;
    publish(*analysis, store);
    Fired fired;
    for (const auto& f : rules::evaluate(catalogue, store, {"mem."}))
        fired.emplace(f.rule, f.subject.name, std::string(rules::to_string(f.severity)));
    return fired;
}

// The same for advise over the build directory `dir`.
Fired advise_findings(const std::string& dir, const rules::Catalogue& catalogue) {
    auto inventory = advise::take_inventory(dir, "", 1, {});
    REQUIRE(inventory.ok());
    Diagnostics diagnostics;
    auto advice = advise::advise(std::move(*inventory), {}, catalogue, diagnostics);
    Fired fired;
    for (const rules::Finding& f : advise::all_findings(advice)) {
        if (f.rule.rfind("mem.", 0) == 0)
            fired.emplace(f.rule, f.subject.name, std::string(rules::to_string(f.severity)));
    }
    return fired;
}

bool fires(const Fired& fired, const std::string& rule, const std::string& subject) {
    return std::any_of(fired.begin(), fired.end(), [&](const auto& finding) {
        return std::get<0>(finding) == rule && std::get<1>(finding) == subject;
    });
}

}  // namespace

TEST_CASE("a build directory resolves to the newest run's report", "[memreport]") {
    Diagnostics diagnostics;
    auto source = locate_report(data_path("tree_old"), diagnostics);
    REQUIRE(source.ok());
    CHECK(source->file.find("Demo_20260701_120000") != std::string::npos);
    CHECK(fs::path(source->file).filename() == kReportName);
    CHECK(source->searched.find("Demo_20260701_120000") != std::string::npos);

    auto file = locate_report(data_path(kSeed), diagnostics);
    REQUIRE(file.ok());
    CHECK(file->file == data_path(kSeed));

    Diagnostics mixed_notes;
    auto mixed = locate_report(data_path("tree_mixed"), mixed_notes);
    REQUIRE(mixed.ok());
    CHECK_FALSE(mixed->found());
    bool older_noted = std::any_of(
        mixed_notes.items().begin(), mixed_notes.items().end(), [](const Diagnostic& d) {
            return d.message.find("an older run has a memory report") != std::string::npos;
        });
    CHECK(older_noted);
}

TEST_CASE("without a report the run publishes mem.report_found = 0 and M10 fires", "[memreport]") {
    Diagnostics diagnostics;
    auto source = locate_report(data_path("tree_new"), diagnostics);
    REQUIRE(source.ok());
    REQUIRE_FALSE(source->found());
    auto analysis = load_and_analyze(*source, {}, diagnostics);
    REQUIRE(analysis.ok());
    rules::MetricStore store;
    publish(*analysis, store);
    CHECK(store.run().metric("mem.report_found") == 0);
    CHECK(store.run().labels.at("mem.searched") == source->searched);
    auto findings = rules::evaluate(catalogue_with(), store, {"mem."});
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].rule == "mem.no-report");
    CHECK(findings[0].message.find(source->searched) != std::string::npos);

    // advise on the same trees reaches the same verdict: in tree_mixed only an older run has a
    // report, and both read the newest run.
    for (const char* tree : {"tree_new", "tree_mixed"}) {
        auto command = pipeline_findings(data_path(tree), catalogue_with());
        CHECK(command.size() == 1);
        CHECK(advise_findings(data_path(tree), catalogue_with()) == command);
    }

    auto report = build_report(*analysis, std::move(findings), true);
    CHECK(report.tables.empty());
    CHECK(report.data["functions"].empty());
    CHECK(report.data["source"].is_null());
}

TEST_CASE("a file that is not a memory report fails without line-by-line noise", "[memreport]") {
    Diagnostics diagnostics;
    auto analysis =
        load_and_analyze({data_path("../hints/not_a_log.txt"), "", ""}, {}, diagnostics);
    REQUIRE_FALSE(analysis.ok());
    CHECK(analysis.error().code == ExitCode::InputError);
    CHECK(analysis.error().message.find("no memory-report table") != std::string::npos);
    CHECK(diagnostics.count(Severity::Warning) == 0);
}

TEST_CASE("a changed mem.* threshold changes the findings of mem-report and advise alike",
          "[memreport]") {
    // kv_proj_matmul fills 15.6 % of Mat: under the built-in 50 %, not under 10 %.
    auto builtin = catalogue_with();
    auto lowered = catalogue_with(R"({"rules": [
        {"id": "mem.underfilled-mat", "params": {"max_pct": 10}}]})");
    CHECK(fires(pipeline_findings(data_path(kSeed), builtin), "mem.underfilled-mat",
                "kv_proj_matmul"));
    CHECK_FALSE(fires(pipeline_findings(data_path(kSeed), lowered), "mem.underfilled-mat",
                      "kv_proj_matmul"));

    // A build tree: the command path and advise agree under either catalogue.
    for (const auto* catalogue : {&builtin, &lowered}) {
        auto command = pipeline_findings(data_path("tree_old"), *catalogue);
        CHECK_FALSE(command.empty());
        CHECK(advise_findings(data_path("tree_old"), *catalogue) == command);
    }
    CHECK(pipeline_findings(data_path("tree_old"), builtin) !=
          pipeline_findings(data_path("tree_old"), lowered));
}

TEST_CASE("usage colours follow the catalogue's marginal and over-limit thresholds",
          "[memreport]") {
    auto bands = usage_bands(catalogue_with(R"({"rules": [
        {"id": "mem.marginal-vec", "params": {"min_pct": 60}},
        {"id": "mem.vec-over-limit", "params": {"max_pct": 90}}]})"));
    CHECK(bands.at("Vec").marginal_pct == 60);
    CHECK(bands.at("Vec").over_pct == 90);
    CHECK(bands.at("Mat").marginal_pct == 85);
    CHECK(bands.at("Acc").over_pct == 100);
    CHECK(bands.count("Left") == 0);

    render::Report report;
    report.tables.push_back({"f",
                             {"space", "used", "limit", "usage", "memrefs"},
                             {},
                             {{"Vec", "1", "1", "70.0%", "1"}, {"Mat", "1", "1", "70.0%", "1"}}});
    std::ostringstream out;
    make_text_renderer(bands)->render(report, out, {true});
    std::istringstream lines(out.str());
    std::string line;
    std::map<std::string, std::string> by_space;
    while (std::getline(lines, line)) by_space[line.substr(0, 3)] = line;
    CHECK(by_space["Vec"].find("\x1b[33m70.0%") != std::string::npos);  // marginal above 60 %
    CHECK(by_space["Mat"].find('\x1b') == std::string::npos);           // 70 % is fine under 85 %
}

}  // namespace memreport_pipeline_test
