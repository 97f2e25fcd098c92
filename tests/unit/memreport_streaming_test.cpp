// mem-report one function at a time (memreport/findings.hpp): the findings and every output
// format must be exactly what publish() + rules::evaluate() + build_report() and the standard
// renderers give, on every fixture, on duplicate function names and with rules on "kernel"
// subjects (which publish() mirrors).

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ptune/memreport/findings.hpp"
#include "ptune/memreport/memory_map.hpp"
#include "ptune/memreport/parser.hpp"
#include "ptune/memreport/pipeline.hpp"
#include "ptune/memreport/report.hpp"
#include "ptune/render/report.hpp"
#include "ptune/rules/engine.hpp"

namespace memreport_streaming_test {

using namespace ptune;
using namespace ptune::memreport;

namespace {

std::string data_path(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/memreport/" + name;
}

rules::Catalogue catalogue_with(const std::string& rules_json = "") {
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    if (!rules_json.empty()) REQUIRE(catalogue->merge_json(rules_json, "test.json").ok());
    return *catalogue;
}

Analysis load_text(const std::string& text, const std::string& name) {
    Diagnostics diagnostics;
    Analysis analysis;
    analysis.source = {name, "", ""};
    analysis.report = parse_report(std::string_view(text), name, diagnostics);
    analysis.choice = analyze(analysis.report, std::nullopt, diagnostics);
    return analysis;
}

// What `ptune mem-report` printed before: every subject in a MetricStore, every table and the
// JSON view built up front.
std::string old_output(const Analysis& analysis, const rules::Catalogue& catalogue,
                       const std::string& format) {
    rules::MetricStore store;
    publish(analysis, store);
    render::Report report =
        build_report(analysis, rules::evaluate(catalogue, store, {"mem."}), format == "json");
    std::shared_ptr<render::Renderer> renderer;
    if (format == "text") renderer = make_text_renderer(usage_bands(catalogue));
    if (format == "csv") renderer = make_csv_renderer(analysis.report);
    if (format == "html") renderer = make_html_renderer(analysis);
    if (!renderer) renderer = render::make_standard_renderer(format);
    std::ostringstream out;
    renderer->render(report, out, {false, 100});
    return out.str();
}

std::string new_output(const Analysis& analysis, const rules::Catalogue& catalogue,
                       const std::string& format) {
    Findings findings(analysis, catalogue);
    auto renderers = make_streaming_renderers(analysis, findings, usage_bands(catalogue));
    std::ostringstream out;
    renderers.at(format)->render(notes_report(analysis), out, {false, 100});
    return out.str();
}

void check_same(const Analysis& analysis, const rules::Catalogue& catalogue) {
    rules::MetricStore store;
    publish(analysis, store);
    auto expected = rules::evaluate(catalogue, store, {"mem."});
    Findings findings(analysis, catalogue);
    auto got = findings.all();
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        INFO(i << ": " << expected[i].rule << " " << expected[i].subject.name);
        CHECK(got[i].rule == expected[i].rule);
        CHECK(got[i].subject == expected[i].subject);
        CHECK(got[i].message == expected[i].message);
        CHECK(got[i].evidence == expected[i].evidence);
        CHECK(got[i].locations == expected[i].locations);
        CHECK(got[i].impact == expected[i].impact);
    }
    CHECK(findings.worst() == rules::worst_severity(expected));
    for (const char* format : {"text", "markdown", "json", "csv", "html"}) {
        INFO(format);
        CHECK(new_output(analysis, catalogue, format) == old_output(analysis, catalogue, format));
    }
}

}  // namespace

TEST_CASE("streamed mem-report findings and outputs equal the MetricStore ones on every fixture",
          "[memreport][streaming]") {
    auto catalogue = catalogue_with();
    int checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator(data_path(""))) {
        std::string name = entry.path().filename().string();
        if (!name.ends_with(".memory_after_AllocateMemoryAddr.txt")) continue;
        Diagnostics diagnostics;
        auto analysis = load_and_analyze({entry.path().string(), "", ""}, {}, diagnostics);
        if (!analysis) continue;
        INFO(name);
        check_same(*analysis, catalogue);
        ++checked;
    }
    CHECK(checked >= 5);
}

TEST_CASE("streamed findings: duplicate function names, kernel rules, no report",
          "[memreport][streaming]") {
    // Two blocks named alike are one subject (metrics overwritten, locations appended); the
    // kernel mirror appends the function's locations after each block.
    const std::string text =
        "=== Memory Usage Report ===\nPass: AllocateMemoryAddr\nBackend: 910B\n"
        "Functions: 3 compute functions\n\n--- k_aiv ---\n\n"
        "  Space  |  Used       |  Limit      |  Usage   |  MemRefs\n"
        "  -------+-------------+-------------+----------+---------\n"
        "  Vec    |   180.0 KB  |   184.0 KB  |   97.8%  |  5\n\n--- other ---\n\n"
        "  Space  |  Used       |  Limit      |  Usage   |  MemRefs\n"
        "  -------+-------------+-------------+----------+---------\n"
        "  Mat    |    10.0 KB  |   512.0 KB  |    2.0%  |  2\n\n--- k_aiv ---\n\n"
        "  Space  |  Used       |  Limit      |  Usage   |  MemRefs\n"
        "  -------+-------------+-------------+----------+---------\n"
        "  Vec    |   190.0 KB  |   184.0 KB  |  103.3%  |  5\n";
    Analysis analysis = load_text(text, "dup.txt");
    REQUIRE(analysis.report.functions.size() == 3);
    // R"J(...)J": the condition's `)"` would end a plain raw string.
    auto catalogue = catalogue_with(R"J({"rules": [
        {"id": "mem.test-kernel", "subject": "kernel", "severity": "warning",
         "condition": "has(mem.Vec.usage_pct)", "message": "{subject} {mem.Vec.usage_pct}",
         "impact": "mem.Vec.usage_pct / 1000"}]})J");
    check_same(analysis, catalogue);
    Findings findings(analysis, catalogue);
    bool kernel = false;
    for (const auto& finding : findings.all()) {
        if (finding.rule != "mem.test-kernel") continue;
        kernel = true;
        CHECK(finding.locations.size() == 3);  // [first], then [first, second]
        CHECK(finding.impact.has_value());
    }
    CHECK(kernel);

    Analysis none;
    none.source = {"", "/nowhere", ""};
    check_same(none, catalogue_with());
}

}  // namespace memreport_streaming_test
