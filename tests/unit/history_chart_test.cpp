// history show's pictures: the sparkline's levels and the SVG chart's change-point marks.

#include <catch2/catch.hpp>

#include "ptune/history/chart.hpp"

namespace history_chart_test {

using namespace ptune::history;

TEST_CASE("the sparkline spans the blocks from lowest to highest", "[history][chart]") {
    CHECK(sparkline(std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}) == "▁▂▃▄▅▆▇█");
    CHECK(sparkline(std::vector<double>{5, 5, 5}) == "▄▄▄");
    CHECK(sparkline(std::vector<double>{}).empty());
    CHECK(sparkline(std::vector<double>{10, 20}) == "▁█");
}

TEST_CASE("the SVG chart marks each change point and escapes names", "[history][chart]") {
    Analysis analysis;
    analysis.series.name = "a<b>";
    analysis.series.epoch = {"cann", "a2a3"};
    for (int i = 0; i < 12; ++i)
        analysis.series.points.push_back(
            {i + 1, "t", "c" + std::to_string(i + 1), i < 6 ? 100.0 : 110.0, 0, {}, {}, {}});
    analysis.change_points = {{6, 0.005, 1.0}};
    const auto svg = svg_chart("a<b> history", {analysis});
    CHECK(svg.rfind("<svg class=\"chart\" data-chart=\"history\"", 0) == 0);
    CHECK(svg.find("a&lt;b&gt; history") != std::string::npos);
    CHECK(svg.find("a<b>") == std::string::npos);
    CHECK(svg.find("data-run=\"7\"") != std::string::npos);  // the first run after the step
    CHECK(svg.find("+10.0% (run 7)") != std::string::npos);
    CHECK(svg.find("c6..c7") != std::string::npos);
    CHECK(svg.find("data-epoch=\"cann/a2a3\"") != std::string::npos);
    const auto page = html_page("t", svg, {"run"}, {{"1"}});
    CHECK(page.find("<!DOCTYPE html>") == 0);
    CHECK(page.find(svg) != std::string::npos);
    CHECK(page.find("<td>1</td>") != std::string::npos);
}

}  // namespace history_chart_test
