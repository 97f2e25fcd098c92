// Sparkline and SVG chart of a case's history (chart.hpp).

#include "ptune/history/chart.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/render/svg.hpp"

namespace ptune::history {

namespace {

constexpr int kWidth = 760, kHeight = 300, kLeft = 70, kRight = 20, kTop = 30, kBottom = 40;
constexpr const char* kColours[] = {"#4e79a7", "#59a14f", "#b07aa1", "#9c755f", "#76b7b2"};

}  // namespace

std::string sparkline(std::span<const double> values) {
    static const char* const kBlocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    if (values.empty()) return {};
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    std::string out;
    for (double value : values) {
        int level = 3;
        if (*high > *low)
            level = static_cast<int>(std::lround((value - *low) / (*high - *low) * 7.0));
        out += kBlocks[std::clamp(level, 0, 7)];
    }
    return out;
}

std::string svg_chart(const std::string& title, const std::vector<Analysis>& analyses) {
    std::size_t count = 0;
    double low = INFINITY, high = -INFINITY;
    for (const auto& analysis : analyses) {
        count = std::max(count, analysis.series.points.size());
        for (const auto& point : analysis.series.points) {
            low = std::min(low, point.value_us);
            high = std::max(high, point.value_us);
        }
    }
    if (count == 0) low = 0, high = 1;
    if (!(high > low)) low -= 1, high += 1;
    const double pad = (high - low) * 0.08;
    low -= pad, high += pad;
    const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
    const auto x_of = [&](std::size_t i) {
        return kLeft + (count > 1 ? plot_w * static_cast<double>(i) / (count - 1) : plot_w / 2);
    };
    const auto y_of = [&](double v) { return kTop + plot_h * (high - v) / (high - low); };
    std::string out = fmt::format(
        "<svg class=\"chart\" data-chart=\"history\" role=\"img\" "
        "xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
        "{1}\" font-family=\"sans-serif\" font-size=\"11\"><title>{2}</title>"
        "<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>"
        "<text x=\"{3}\" y=\"18\" font-size=\"13\" font-weight=\"bold\">{2}</text>",
        kWidth, kHeight, render::svg::escape(title), kLeft);
    // Axes with min / max labels (µs) and the first / last point index.
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#888\"/>"
        "<line x1=\"{0}\" y1=\"{2}\" x2=\"{3}\" y2=\"{2}\" stroke=\"#888\"/>"
        "<text x=\"{4}\" y=\"{5:.1f}\" text-anchor=\"end\">{6:.1f}</text>"
        "<text x=\"{4}\" y=\"{7:.1f}\" text-anchor=\"end\">{8:.1f}</text>"
        "<text x=\"{4}\" y=\"{9}\" text-anchor=\"end\">µs</text>"
        "<text x=\"{0}\" y=\"{10}\">1</text><text x=\"{3}\" y=\"{10}\" "
        "text-anchor=\"end\">{11}</text><text x=\"{12:.0f}\" y=\"{13}\" "
        "text-anchor=\"middle\">run (oldest to newest)</text>",
        kLeft, kTop, kTop + plot_h, kLeft + plot_w, kLeft - 6, y_of(high - pad) + 4, high - pad,
        y_of(low + pad) + 4, low + pad, kTop - 4, kTop + plot_h + 14, count, kLeft + plot_w / 2,
        kTop + plot_h + 30);
    for (std::size_t e = 0; e < analyses.size(); ++e) {
        const auto& analysis = analyses[e];
        const char* colour = kColours[e % std::size(kColours)];
        std::string path;
        for (std::size_t i = 0; i < analysis.series.points.size(); ++i) {
            const auto& point = analysis.series.points[i];
            path +=
                fmt::format("{}{:.1f},{:.1f}", i == 0 ? "M" : " L", x_of(i), y_of(point.value_us));
        }
        out += fmt::format(
            "<path class=\"series\" data-epoch=\"{}\" d=\"{}\" fill=\"none\" stroke=\"{}\" "
            "stroke-width=\"1.5\"/>",
            render::svg::escape(analysis.series.epoch.label()), path, colour);
        for (std::size_t i = 0; i < analysis.series.points.size(); ++i) {
            const auto& point = analysis.series.points[i];
            out += fmt::format(
                "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2\" fill=\"{}\"><title>run {} ({}): "
                "{:.1f} µs</title></circle>",
                x_of(i), y_of(point.value_us), colour, point.run, render::svg::escape(point.commit),
                point.value_us);
        }
        for (const auto& change : describe(analysis)) {
            std::size_t index = 0;
            while (analysis.series.points[index].run != change.run) ++index;
            const double x = x_of(index);
            out += fmt::format(
                "<g class=\"change-point\" data-run=\"{}\"><line x1=\"{:.1f}\" y1=\"{}\" "
                "x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e15759\" stroke-dasharray=\"4 3\"/>"
                "<text x=\"{:.1f}\" y=\"{}\" fill=\"#e15759\">{} (run {})</text>"
                "<title>change point at run {} ({}..{}): {:.1f} -&gt; {:.1f} µs, {}, "
                "confidence {:.3f}</title></g>",
                change.run, x, kTop, x, kTop + plot_h, x + 3, kTop + 10,
                stats::format_signed_percent(change.change_pct), change.run, change.run,
                render::svg::escape(change.commit_before), render::svg::escape(change.commit),
                change.before_us, change.after_us, stats::format_signed_percent(change.change_pct),
                change.confidence());
        }
    }
    out += "</svg>";
    return out;
}

std::string html_page(const std::string& title, const std::string& svg,
                      const std::vector<std::string>& columns,
                      const std::vector<std::vector<std::string>>& rows) {
    std::string out = fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}</title>"
        "<style>body{{font-family:sans-serif;margin:1.5em}}table{{border-collapse:collapse}}"
        "td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}</style></head><body>"
        "<h1>{0}</h1>\n{1}\n<table><thead><tr>",
        render::svg::escape(title), svg);
    for (const auto& column : columns) out += "<th>" + render::svg::escape(column) + "</th>";
    out += "</tr></thead><tbody>\n";
    for (const auto& row : rows) {
        out += "<tr>";
        for (const auto& cell : row) out += "<td>" + render::svg::escape(cell) + "</td>";
        out += "</tr>\n";
    }
    out += "</tbody></table></body></html>\n";
    return out;
}

}  // namespace ptune::history
