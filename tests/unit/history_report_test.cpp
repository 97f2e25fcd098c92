// What `ptune history` prints (history/report.hpp): units in the table headers, changes as
// `+7.2%`, machine keys in CSV and JSON, and each run measured against its own segment.

#include <unistd.h>

#include <filesystem>
#include <sstream>

#include <catch2/catch.hpp>

#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"
#include "ptune/history/export.hpp"
#include "ptune/history/report.hpp"

namespace history_report_test {

using namespace ptune;
using namespace ptune::history;

namespace {

// Six runs at 100 µs, then six at 110 µs: one change point at index 6.
Analysis stepped() {
    Analysis analysis;
    analysis.series.name = "prefill";
    analysis.series.epoch = {"cann-8.1", "a2a3"};
    for (int i = 0; i < 12; ++i) {
        const double value = i < 6 ? (i == 2 ? 99.99 : 100.0) : 110.0;
        analysis.series.points.push_back(
            {i + 1, "t", "c" + std::to_string(i + 1), value, 0, {}, {}, {}});
    }
    Point& measured = analysis.series.points[6];  // one run with its rounds' summary
    measured.rounds = 10;
    measured.min_us = 105.0;
    measured.max_us = 115.0;
    analysis.change_points = {{6, 0.005, 1.0}};
    return analysis;
}

std::string render_as(const render::Report& report, const std::string& format) {
    std::ostringstream out;
    render::make_standard_renderer(format)->render(report, out, {});
    return out.str();
}

}  // namespace

TEST_CASE("a signed change prints one way, never -0.0%", "[history][report]") {
    CHECK(stats::format_signed_percent(7.25) == "+7.2%");  // 7.25 is exact: ties to even
    CHECK(stats::format_signed_percent(-1.06) == "-1.1%");
    CHECK(stats::format_signed_percent(-0.01) == "+0.0%");
    CHECK(stats::format_signed_percent(0.0) == "+0.0%");
    CHECK(stats::format_signed_percent(-0.004, 2) == "+0.00%");
}

TEST_CASE("every run is measured against its own segment's median", "[history][report]") {
    const auto medians = segment_medians(stepped());
    REQUIRE(medians.size() == 12);
    CHECK(medians[0] == 100.0);
    CHECK(medians[5] == 100.0);
    CHECK(medians[6] == 110.0);
    CHECK(medians[11] == 110.0);
}

TEST_CASE("history show: µs in the header, changes as +N.N%", "[history][report]") {
    const auto report = show_report("prefill", {stepped()});
    REQUIRE(report.tables.size() == 1);
    const auto& table = report.tables.front();
    REQUIRE(table.rows.size() == 12);
    CHECK(table.rows[2][4] == "100.0");  // 99.99 rounds; no unit in the cell
    CHECK(table.rows[2][5] == "-");      // n and range: the synthetic points have none
    CHECK(table.rows[2][6] == "-");
    CHECK(table.rows[2][7] == "+0.0%");  // -0.01 % from the median: no direction
    CHECK(table.rows[5][8].empty());
    CHECK(table.rows[6][5] == "10");  // the spread next to the centre, with n
    CHECK(table.rows[6][6] == "105.0–115.0");
    CHECK(table.rows[6][7] == "+0.0%");
    CHECK(table.rows[6][8] == "<- +10.0%");  // the first run of the new segment
    const auto text = render_as(report, "text");
    CHECK(text.find("effective (µs)") != std::string::npos);
    CHECK(text.find(" %") == std::string::npos);
    CHECK(text.find("effective_us") == std::string::npos);
    // CSV keeps the bare column name; JSON keeps `_us` keys.
    const auto csv = render_as(report, "csv");
    CHECK(csv.find("run,time,commit,epoch,effective,n,range,vs segment,change\n") !=
          std::string::npos);
    const auto& point = report.data["series"][0]["points"][6];
    CHECK(point["value_us"] == 110.0);
    CHECK(point["change_point"] == true);
    CHECK(report.data["series"][0]["changes"][0]["before_us"] == 100.0);
    // The HTML page's table reads like the text one.
    const auto renderers = show_renderers("prefill", {stepped()}, report);
    std::ostringstream page;
    renderers.at("html")->render(report, page, {});
    CHECK(page.str().find("<th>effective (µs)</th>") != std::string::npos);
    CHECK(page.str().find("<td>&lt;- +10.0%</td>") != std::string::npos);
}

TEST_CASE("history changes: medians in µs, change and confidence", "[history][report]") {
    const auto changes = describe(stepped());
    REQUIRE(changes.size() == 1);
    DetectOptions detect;
    const auto report = changes_report(changes, 3, detect);
    const auto& table = report.tables.front();
    REQUIRE(table.rows.size() == 1);
    CHECK(table.rows[0] == std::vector<std::string>{"prefill", "cann-8.1/a2a3", "7", "c6..c7",
                                                    "100.0", "110.0", "+10.0%", "0.995"});
    const auto text = render_as(report, "text");
    CHECK(text.find("before (µs)") != std::string::npos);
    CHECK(text.find("after (µs)") != std::string::npos);
    CHECK(render_as(report, "csv")
              .rfind("case,epoch,run,commits,before,after,change,confidence\n", 0) == 0);
    CHECK(report.data["series"] == 3);
    CHECK(report.data["method"] == detect.key());
    const auto& json = report.data["changes"][0];
    CHECK(json["after_us"] == 110.0);
    CHECK(json["change_pct"] == Approx(10.0));
    CHECK(json["confidence"] == Approx(0.995));
}

TEST_CASE("history show '' is refused; csv export writes valid UTF-8 only (issue 36)",
          "[history][report]") {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("ptune-history-utf8-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string db = (dir / "h.db").string();
    NewRun run;
    run.info.commit = "bad\xff\xfe";
    run.info.time = "2026-09-01T00:00:00Z";
    run.info.run_key = "k";
    run.info.content_digest = "d";
    CaseValue value;
    value.name = "case\xc3";
    value.value_us = 10.0;
    run.cases.push_back(value);
    OpenOptions options;
    options.create = true;
    auto store = Store::open(db, options);
    REQUIRE(store);
    REQUIRE((*store)->add(run));
    Diagnostics diagnostics;
    auto shown = show(**store, "", AnalyseOptions{}, diagnostics);
    REQUIRE_FALSE(shown);
    CHECK(shown.error().code == ExitCode::InputError);
    std::ostringstream csv;
    REQUIRE(export_csv(**store, csv));
    CHECK(text::is_valid_utf8(csv.str()));
    CHECK(csv.str().find("bad\xef\xbf\xbd") != std::string::npos);  // U+FFFD
    store->reset();
    std::filesystem::remove_all(dir);
}

}  // namespace history_report_test
