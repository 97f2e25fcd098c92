#include "ptune/render/svg.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ptune::render::svg {

namespace {

constexpr int kLabelWidth = 180;
constexpr int kBarArea = 460;
constexpr int kRowHeight = 22;
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                    "#76b7b2", "#edc948", "#b07aa1", "#9c755f"};

std::string number(double value) {
    if (std::fabs(value) >= 100 || value == std::floor(value)) return fmt::format("{:.0f}", value);
    return fmt::format("{:.3g}", value);
}

// Width in px of a label at the charts' 11 px label font: 7 px per character covers digits and
// most letters of a proportional sans-serif font (wide capitals are rare in kernel names).
std::size_t label_width(std::string_view label) {
    std::size_t characters = 0;
    for (unsigned char c : label)
        if ((c & 0xC0) != 0x80) ++characters;  // UTF-8: count code points, not bytes
    return characters * 7;
}

std::string open_svg(const std::string& id, const std::string& title, int width, int height) {
    return fmt::format(
        "<svg class=\"chart\" data-chart=\"{}\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\" "
        "width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\"><title>{}</title>"
        "<text x=\"0\" y=\"14\" class=\"chart-title\">{}</text>",
        escape(id), width, height, width, height, escape(title), escape(title));
}

}  // namespace

std::string escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string html_table(const Table& table) {
    std::string out = "<table><thead><tr>";
    for (const auto& column : table.columns) out += "<th>" + escape(column) + "</th>";
    out += "</tr></thead><tbody>";
    for (const auto& row : table.rows) {
        out += "<tr>";
        for (std::size_t c = 0; c < row.size(); ++c) {
            bool right = c < table.align.size() && table.align[c] == Align::Right;
            out += right ? "<td class=\"num\">" : "<td>";
            out += escape(row[c]) + "</td>";
        }
        out += "</tr>";
    }
    return out + "</tbody></table>";
}

std::string horizontal_bars(const std::string& id, const std::string& title,
                            const std::vector<Bar>& bars, double scale_max,
                            std::optional<double> reference, const std::string& reference_label) {
    double top = scale_max;
    for (const auto& bar : bars) top = std::max(top, bar.value);
    if (reference) top = std::max(top, *reference);
    if (!(top > 0)) top = 1;
    int height = 28 + kRowHeight * static_cast<int>(bars.size()) + 16;
    // The label column grows with the longest label so none is cut at the left edge.
    std::size_t longest = 0;
    for (const auto& bar : bars) longest = std::max(longest, label_width(bar.label));
    const int label_column = std::max(kLabelWidth, static_cast<int>(longest) + 12);
    int width = label_column + kBarArea + 120;
    std::string out = open_svg(id, title, width, height);
    int y = 26;
    for (const auto& bar : bars) {
        double length = std::max(0.0, bar.value) / top * kBarArea;
        out += fmt::format(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"label\">{}</text>"
            "<rect class=\"bar{}\" x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\"><title>{}: "
            "{}</title></rect>"
            "<text x=\"{:.1f}\" y=\"{}\" class=\"value\">{}</text>",
            label_column - 6, y + 14, escape(bar.label), bar.highlight ? " warn" : "", label_column,
            y + 3, length, kRowHeight - 6, escape(bar.label),
            escape(bar.annotation.empty() ? number(bar.value) : bar.annotation),
            label_column + length + 4, y + 14,
            escape(bar.annotation.empty() ? number(bar.value) : bar.annotation));
        y += kRowHeight;
    }
    if (reference) {
        double x = label_column + *reference / top * kBarArea;
        out += fmt::format(
            "<line class=\"reference\" x1=\"{:.1f}\" y1=\"22\" x2=\"{:.1f}\" y2=\"{}\"/>"
            "<text x=\"{:.1f}\" y=\"{}\" class=\"value\">{}</text>",
            x, x, y, x + 2, y + 12, escape(reference_label));
    }
    out += "</svg>";
    return out;
}

std::string grouped_bars(const std::string& id, const std::string& title,
                         const std::vector<StackedBar>& bars, double scale_max) {
    std::vector<std::string> series;
    for (const auto& bar : bars) {
        for (const auto& [name, value] : bar.parts) {
            if (std::find(series.begin(), series.end(), name) == series.end())
                series.push_back(name);
        }
    }
    double top = scale_max > 0 ? scale_max : 1;
    int sub_height = 9;
    int group_height = static_cast<int>(series.size()) * sub_height + 8;
    int height = 44 + group_height * static_cast<int>(bars.size());
    int width = kLabelWidth + kBarArea + 80;
    std::string out = open_svg(id, title, width, height);
    // Legend.
    int legend_x = kLabelWidth;
    for (std::size_t s = 0; s < series.size(); ++s) {
        out += fmt::format(
            "<rect x=\"{}\" y=\"20\" width=\"10\" height=\"10\" fill=\"{}\"/>"
            "<text x=\"{}\" y=\"29\" class=\"value\">{}</text>",
            legend_x, kPalette[s % 8], legend_x + 13, escape(series[s]));
        legend_x += 14 + 8 * static_cast<int>(series[s].size()) + 12;
    }
    int y = 38;
    for (const auto& bar : bars) {
        out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"label\">{}</text>",
                           kLabelWidth - 6, y + group_height / 2 + 2, escape(bar.label));
        for (std::size_t s = 0; s < series.size(); ++s) {
            auto it = std::find_if(bar.parts.begin(), bar.parts.end(),
                                   [&](const auto& part) { return part.first == series[s]; });
            if (it == bar.parts.end()) continue;
            double length = std::clamp(it->second / top, 0.0, 1.0) * kBarArea;
            out += fmt::format(
                "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{} {}: "
                "{}</title></rect>",
                kLabelWidth, y + static_cast<int>(s) * sub_height, length, sub_height - 2,
                kPalette[s % 8], escape(bar.label), escape(series[s]), number(it->second));
        }
        y += group_height;
    }
    out += "</svg>";
    return out;
}

std::string utilisation_heatmap(const std::string& id, const std::string& title,
                                const std::vector<Lane>& lanes, double t_begin, double t_end,
                                const std::string& time_unit, int buckets) {
    buckets = std::max(1, buckets);
    double span = t_end > t_begin ? t_end - t_begin : 1;
    double cell = static_cast<double>(kBarArea) / buckets;
    int row = 14;
    int height = 30 + row * static_cast<int>(lanes.size()) + 22;
    int width = kLabelWidth + kBarArea + 20;
    std::string out = open_svg(id, title, width, height);
    int y = 24;
    std::vector<double> busy(static_cast<std::size_t>(buckets));
    for (const auto& lane : lanes) {
        std::fill(busy.begin(), busy.end(), 0.0);
        // Spread each interval over the buckets it covers: linear in intervals + buckets touched.
        for (auto [start, end] : lane.busy) {
            start = std::clamp(start, t_begin, t_end);
            end = std::clamp(end, t_begin, t_end);
            if (!(end > start)) continue;
            double a = (start - t_begin) / span * buckets, b = (end - t_begin) / span * buckets;
            auto first = static_cast<int>(std::floor(a));
            auto last = std::min(buckets - 1, static_cast<int>(std::floor(b)));
            for (int k = first; k <= last; ++k) {
                double overlap = std::min<double>(b, k + 1) - std::max<double>(a, k);
                if (overlap > 0) busy[static_cast<std::size_t>(k)] += overlap;
            }
        }
        out += fmt::format(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"label small\">{}</text>",
            kLabelWidth - 6, y + row - 3, escape(lane.name));
        for (int k = 0; k < buckets; ++k) {
            double fraction = std::clamp(busy[static_cast<std::size_t>(k)], 0.0, 1.0);
            if (fraction <= 0) continue;
            out += fmt::format(
                "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" "
                "fill=\"#4e79a7\" fill-opacity=\"{:.2f}\"/>",
                kLabelWidth + k * cell, y, cell + 0.05, row - 2, 0.15 + 0.85 * fraction);
        }
        y += row;
    }
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" class=\"value\">{} {}</text>"
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"value\">{} {}</text>",
        kLabelWidth, y + 14, number(t_begin), escape(time_unit), kLabelWidth + kBarArea, y + 14,
        number(t_end), escape(time_unit));
    out += "</svg>";
    return out;
}

}  // namespace ptune::render::svg
