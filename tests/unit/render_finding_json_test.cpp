// write_finding_json (render/report.hpp) writes the text nlohmann's dump(2) gives for
// finding_to_json(), at any indentation: checked on hand-made findings with every shape the
// DOM has (no catalogue, no impact, empty and full evidence, locations with and without line and
// column, escapes, bad UTF-8, fractions and large numbers) and on mem-report's findings of a
// fixture report.

#include <filesystem>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "json_writer_check.hpp"
#include "ptune/core/io.hpp"
#include "ptune/memreport/analyzer.hpp"
#include "ptune/memreport/findings.hpp"
#include "ptune/memreport/parser.hpp"
#include "ptune/render/json_stream.hpp"
#include "ptune/render/report.hpp"

namespace render_finding_json_test {

using namespace ptune;

namespace {

void check_same(const rules::Finding& finding) {
    json_writer_check::check_writes_dump(render::finding_to_json(finding),
                                         [&](std::size_t indent, std::string& text) {
                                             render::write_finding_json(finding, indent, text);
                                         });
}

}  // namespace

TEST_CASE("write_finding_json equals finding_to_json's dump on every shape", "[render][json]") {
    rules::Finding bare;
    check_same(bare);

    rules::Finding full;
    full.rule = "mem.underfilled-mat";
    full.catalogue = "M6";
    full.severity = rules::RuleSeverity::Error;
    full.title = "Mat \"underfilled\"\tby far";
    full.message = "Mat 16.0 KB of 512.0 KB (3.1%): caf\xc3\xa9 \x01 bad \xff byte";
    full.advice = "Grow K_STEP first\nthen N";
    full.guide = "Part 1 item 4";
    full.tier = "kernel";
    full.subject = {"function", "k\\ernel_0"};
    full.evidence = {{"mem.Mat.usage_pct", 3.125},
                     {"mem.Mat.used_bytes", 16384.0},
                     {"a.tiny", 1e-7},
                     {"z.huge", 1e21},
                     {"m.negative", -0.1}};
    full.locations = {{"report.txt", 20, 0}, {"other.txt", 0, 0}, {"x.py", 3, 7}, {"", 0, 5}};
    full.impact = 0.25;
    check_same(full);

    rules::Finding whole_impact = full;
    whole_impact.impact = 2.0;
    whole_impact.evidence.clear();
    whole_impact.locations.clear();
    whole_impact.severity = rules::RuleSeverity::Info;
    check_same(whole_impact);
}

TEST_CASE("write_finding_json equals finding_to_json on the fixture reports' findings",
          "[render][json]") {
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    std::size_t checked = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(PTUNE_TEST_DATA) + "/memreport")) {
        if (entry.path().extension() != ".txt") continue;
        auto text = io::read_file(entry.path());
        REQUIRE(text.ok());
        Diagnostics diagnostics;
        memreport::Analysis analysis;
        analysis.report =
            memreport::parse_report(std::string_view(*text), entry.path().string(), diagnostics);
        analysis.choice = memreport::analyze(analysis.report, std::nullopt, diagnostics);
        memreport::Findings findings(analysis, *catalogue);
        for (std::size_t i = 0; i < findings.size(); ++i, ++checked) check_same(findings[i]);
    }
    CHECK(checked > 10);
}

TEST_CASE("write_report_json writes what write_json of to_json writes", "[render][json]") {
    render::Report report;
    report.command = "bench-summary";
    report.data = {{"zeta", {1, 2.5, "x"}}, {"alpha", {{"nested", nullptr}}}, {"findings", 7}};
    rules::Finding finding;
    finding.rule = "bench.noisy";
    finding.message = "noisy \xff case";
    finding.evidence = {{"bench.cv_pct", 12.5}};
    finding.locations = {{"run.log", 3, 0}};
    for (std::size_t count : {0, 1, 3}) {
        report.findings.assign(count, finding);
        for (bool included : {true, false}) {
            report.include_findings_in_json = included;
            std::ostringstream expected, written;
            render::write_json(render::to_json(report), expected, true);
            render::write_report_json(report, {}, written);
            INFO(count << " findings, included " << included);
            CHECK(written.str() == expected.str());

            // With an array of its own beside the findings.
            nlohmann::json with_cases = render::to_json(report);
            with_cases["cases"] = {{{"case", "a"}}, {{"case", "b"}}};
            std::ostringstream expected_cases, written_cases;
            render::write_json(with_cases, expected_cases, true);
            render::write_report_json(report,
                                      {{"cases", 2,
                                        [](std::size_t i) {
                                            return nlohmann::json{{"case", i == 0 ? "a" : "b"}};
                                        }}},
                                      written_cases);
            CHECK(written_cases.str() == expected_cases.str());
        }
    }
}

}  // namespace render_finding_json_test
