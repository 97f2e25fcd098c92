// The HTML report reads as prose: a finding's evidence in words (evidence_text.cpp), not metric
// keys, and chart labels that are not cut at the left edge.

#include <regex>
#include <sstream>

#include <catch2/catch.hpp>

#include "../../src/advise/evidence_text.hpp"
#include "ptune/advise/advisor.hpp"
#include "ptune/render/svg.hpp"

namespace advise_html_evidence_test {

using namespace ptune;

TEST_CASE("evidence metrics read as phrases", "[advise][html]") {
    CHECK(advise::describe_metric("pmu.bottleneck_is_mte2", 1) == "the bottleneck pipe is MTE2");
    CHECK(advise::describe_metric("pmu.bottleneck_is_cube", 0) ==
          "the bottleneck pipe is not CUBE");
    CHECK(advise::describe_metric("pmu.ratio.mte2", 0.777) == "MTE2 busy 77.7 % of total cycles");
    CHECK(advise::describe_metric("pmu.is_aic", 1) == "it runs on AIC (cube) cores");
    CHECK(advise::describe_metric("pmu.bound_ratio", 0.64).starts_with("bound ratio 0.64"));
    CHECK(advise::describe_metric("mem.Mat.usage_pct", 37.5) ==
          "Mat filled to 37.5 % of its limit");
    CHECK(advise::describe_metric("mem.Acc.usage_pct", 112.5) ==
          "Acc filled to 112.5 % of its limit");
    CHECK(advise::describe_metric("hints.PH001.count", 3) == "3 PH001 hint site(s) in its source");
    CHECK(advise::describe_metric("hints.PH-MR-001.count", 1) ==
          "1 PH-MR-001 hint site(s) in its source");
    CHECK(advise::describe_metric("hints.PH001.mat_max_rows", 128) ==
          "its largest PH001 Mat load has 128 rows");
    // A metric without a phrase keeps its name, so nothing is lost.
    CHECK(advise::describe_metric("L2.tail.pct", 12.5) == "L2.tail.pct = 12.5");
}

TEST_CASE("the HTML evidence line has no metric keys outside tooltips", "[advise][html]") {
    advise::Advice advice;
    rules::Finding finding;
    finding.rule = "cross.mte2-bound-with-ph001";
    finding.catalogue = "X1";
    finding.severity = rules::RuleSeverity::Warning;
    finding.message = "QK is MTE2-bound";
    finding.subject = {"kernel", "QK"};
    finding.evidence = {
        {"pmu.bottleneck_is_mte2", 1}, {"pmu.ratio.mte2", 0.78}, {"hints.PH001.count", 1}};
    advice.findings.push_back({finding, 2, 0.5, "kernel's share of kernel time"});
    std::ostringstream html;
    advise::make_html_renderer(advice)->render({}, html, {});
    std::string text = html.str();
    std::smatch line;
    REQUIRE(std::regex_search(text, line, std::regex("Evidence: (.*?)</div>")));
    // Strip the tooltips (title="...") and the tags: what is left is what a reader sees.
    std::string visible = std::regex_replace(line[1].str(), std::regex("<[^>]*>"), "");
    CHECK(visible ==
          "1 PH001 hint site(s) in its source; the bottleneck pipe is MTE2; MTE2 busy 78.0 % of "
          "total cycles.");
    CHECK(visible.find("pmu.") == std::string::npos);
    CHECK(text.find("title=\"pmu.bottleneck_is_mte2 = 1\"") != std::string::npos);
}

TEST_CASE("bar chart labels get the room they need", "[advise][html][svg]") {
    std::string label = "l3_two_card_report rank 3229451";
    std::string svg = render::svg::horizontal_bars(
        "effective-us", "effective_us", {{label, 103897.6, "", false}, {"short", 50, "", false}});
    // The label is right-aligned at x: it needs at least ~7 px per character to its left.
    std::smatch match;
    REQUIRE(std::regex_search(svg, match,
                              std::regex("<text x=\"(\\d+)\"[^>]*class=\"label\">" + label)));
    CHECK(std::stoi(match[1].str()) >= static_cast<int>(label.size()) * 7);
    // Short labels keep the usual column.
    std::string small = render::svg::horizontal_bars("x", "x", {{"QK", 1, "", false}});
    REQUIRE(std::regex_search(small, match, std::regex("<text x=\"(\\d+)\"[^>]*class=\"label\">")));
    CHECK(std::stoi(match[1].str()) == 174);
}

}  // namespace advise_html_evidence_test
