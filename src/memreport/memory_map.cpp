// Memory map pictures (inline SVG) and the self-contained `mem-report --format html` page.

#include "ptune/memreport/memory_map.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "ptune/core/text.hpp"
#include "ptune/core/version.hpp"
#include "ptune/memreport/findings.hpp"
#include "ptune/memreport/report.hpp"
#include "ptune/render/svg.hpp"

namespace ptune::memreport {

namespace {

using render::svg::escape;
using render::svg::html_table;

constexpr double kWidth = 760, kHeight = 300;
constexpr double kLeft = 78, kRight = 24, kTop = 30, kBottom = 34;

std::string safe(std::string_view name) {
    return text::is_valid_utf8(name) ? std::string(name) : text::sanitize_utf8(name);
}

std::string num(double value) {
    return fmt::format("{:.1f}", value);
}

}  // namespace

namespace {

// The plot's scales: program points across (first..last), addresses up (0..y_max).
struct MapFrame {
    std::uint64_t first = 0, last = 0;
    double y_max = 1, x_span = 1;
    double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
    const char* unit = "statement";

    double x_of(std::uint64_t point) const {
        return kLeft + plot_w * static_cast<double>(point - first) / x_span;
    }
    double y_of(double address) const { return kTop + plot_h * (1.0 - address / y_max); }
};

// The frame of the allocated buffers; nullopt when there is none.
std::optional<MapFrame> memory_map_frame(const Report& report, const SpaceUsage& usage) {
    std::uint64_t first = 0, last = 0, top = 0;
    bool any = false;
    for (const auto& buffer : usage.buffers) {
        if (!buffer.allocated) continue;
        first = any ? std::min(first, buffer.live_begin) : buffer.live_begin;
        last = any ? std::max(last, buffer.live_end) : buffer.live_end;
        top = std::max(top, buffer.addr_end);
        any = true;
    }
    if (!any) return std::nullopt;
    MapFrame frame;
    frame.first = first;
    frame.last = last;
    frame.unit = report.origin == Origin::PassDump ? "line" : "statement";
    // The address axis reaches the limit (or the highest buffer past it).
    frame.y_max = static_cast<double>(
        std::max<std::uint64_t>({top, usage.limit_bytes.value_or(0), std::uint64_t{1}}));
    frame.x_span = static_cast<double>(last + 1 - first);
    return frame;
}

// Axes: address up (0, half, top), program order across (first and last point).
std::string map_axes_svg(const MapFrame& frame) {
    std::string out = fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" stroke=\"#bbb\"/>",
        kLeft, kTop, num(frame.plot_w), num(frame.plot_h));
    for (double share : {0.0, 0.5, 1.0}) {
        double address = frame.y_max * share;
        out += fmt::format(
            "<text class=\"label\" x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\">{}"
            "</text>",
            kLeft - 4, num(frame.y_of(address) + 3),
            escape(format_size(static_cast<std::uint64_t>(address))));
    }
    out += fmt::format(
        "<text class=\"label\" x=\"{}\" y=\"{}\" font-size=\"10\">{} {}</text>"
        "<text class=\"label\" x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\">{} {}"
        "</text>",
        kLeft, kHeight - 18, frame.unit, frame.first, kLeft + frame.plot_w, kHeight - 18,
        frame.unit, frame.last);
    out += fmt::format(
        "<text class=\"label\" x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">program "
        "order ({}) →</text>",
        num(kLeft + frame.plot_w / 2), kHeight - 4, frame.unit);
    return out;
}

// One rectangle per allocated buffer: live range across, address range up; live at the peak
// in orange, overlapping in red.
std::string map_buffers_svg(const MapFrame& frame, const SpaceUsage& usage) {
    std::set<std::size_t> at_peak, overlapping;
    if (usage.peak) at_peak.insert(usage.peak->live.begin(), usage.peak->live.end());
    for (const auto& overlap : usage.overlaps) {
        overlapping.insert(overlap.first);
        overlapping.insert(overlap.second);
    }
    std::string out;
    for (std::size_t i = 0; i < usage.buffers.size(); ++i) {
        const Buffer& buffer = usage.buffers[i];
        if (!buffer.allocated) continue;
        double x = frame.x_of(buffer.live_begin);
        double w = std::max(1.0, frame.x_of(buffer.live_end + 1) - x);
        double y = frame.y_of(static_cast<double>(buffer.addr_end));
        double h = std::max(1.5, frame.y_of(static_cast<double>(buffer.addr_begin)) - y);
        bool peak = at_peak.count(i) > 0;
        bool clash = overlapping.count(i) > 0;
        const char* fill = clash ? "#e15759" : peak ? "#f28e2b" : "#4e79a7";
        out += fmt::format(
            "<rect class=\"buffer{}{}\" data-buffer=\"{}\"{}{} x=\"{}\" y=\"{}\" width=\"{}\" "
            "height=\"{}\" fill=\"{}\" fill-opacity=\"{}\" stroke=\"#333\" stroke-width=\"0.5\">"
            "<title>{}</title></rect>",
            peak ? " live-at-peak" : "", clash ? " overlap" : "", escape(safe(buffer.name)),
            peak ? " data-live-at-peak=\"1\"" : "", clash ? " data-overlap=\"1\"" : "", num(x),
            num(y), num(w), num(h), fill, clash ? "0.6" : "0.85",
            escape(fmt::format("{}: {} at [{}, {}), live {} {}..{}", safe(buffer.name),
                               format_size(buffer.size_bytes), buffer.addr_begin, buffer.addr_end,
                               frame.unit, buffer.live_begin, buffer.live_end)));
        if (w > 40 && h > 12) {
            out += fmt::format(
                "<text class=\"small\" x=\"{}\" y=\"{}\" font-size=\"9\" fill=\"#fff\">{}</text>",
                num(x + 3), num(y + 11), escape(safe(buffer.name)));
        }
    }
    return out;
}

// The limit (dashed) and the peak's program point (a vertical line).
std::string map_markers_svg(const MapFrame& frame, const SpaceUsage& usage) {
    std::string out;
    if (usage.limit_bytes) {
        double y = frame.y_of(static_cast<double>(*usage.limit_bytes));
        out += fmt::format(
            "<line class=\"limit reference\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" "
            "stroke=\"#d62728\" stroke-dasharray=\"4 3\"/><text class=\"label\" x=\"{}\" "
            "y=\"{}\" font-size=\"10\" fill=\"#d62728\" text-anchor=\"end\">limit {}</text>",
            kLeft, num(kLeft + frame.plot_w), num(y), num(y), num(kLeft + frame.plot_w - 2),
            num(y - 3), escape(format_size(*usage.limit_bytes)));
    }
    if (usage.peak) {
        std::uint64_t at = usage.peak->at;
        double x = frame.x_of(at) + 0.5 * (frame.x_of(at + 1) - frame.x_of(at));
        out += fmt::format(
            "<line class=\"peak\" data-peak-at=\"{}\" data-peak-bytes=\"{}\" x1=\"{}\" x2=\"{}\" "
            "y1=\"{}\" y2=\"{}\" stroke=\"#222\" stroke-width=\"1.5\"/><text class=\"label\" "
            "x=\"{}\" y=\"{}\" font-size=\"10\">peak {} at {} {}</text>",
            at, usage.peak->bytes, num(x), num(x), kTop, num(kTop + frame.plot_h),
            num(std::min(x + 3, kLeft + frame.plot_w - 150)), kTop + 10,
            escape(format_size(usage.peak->bytes)), frame.unit, at);
    }
    return out;
}

}  // namespace

std::string memory_map_svg(const Report& report, const Function& function, const SpaceUsage& usage,
                           int index) {
    auto frame = memory_map_frame(report, usage);
    if (!frame) return "";
    std::string title = fmt::format("Memory map of {} {}: {} of {}", safe(function.name),
                                    usage.space, format_size(usage.used_bytes),
                                    usage.limit_bytes ? format_size(*usage.limit_bytes) : "N/A");
    std::string out = fmt::format(
        "<svg class=\"chart memory-map\" data-chart=\"memory-map-{}\" data-function=\"{}\" "
        "data-space=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" "
        "width=\"{}\" height=\"{}\" role=\"img\"><title>{}</title>",
        index, escape(safe(function.name)), escape(usage.space), kWidth, kHeight, kWidth, kHeight,
        escape(title));
    out += fmt::format(
        "<text class=\"chart-title\" x=\"{}\" y=\"18\" font-size=\"12\" "
        "font-weight=\"600\">{}</text>",
        kLeft, escape(title));
    out += map_axes_svg(*frame);
    out += map_buffers_svg(*frame, usage);
    out += map_markers_svg(*frame, usage);
    return out + "</svg>";
}

std::vector<std::string> memory_maps(const Report& report, std::size_t limit) {
    std::vector<std::string> maps;
    int index = 0;
    for (const auto& function : report.functions) {
        for (const auto& usage : function.spaces) {
            if (maps.size() >= limit) return maps;
            std::string svg = memory_map_svg(report, function, usage, index);
            if (svg.empty()) continue;
            ++index;
            maps.push_back(std::move(svg));
        }
    }
    return maps;
}

namespace {

constexpr const char* kStyle = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;color:#222;padding:0 16px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd;padding-bottom:4px}
.meta{color:#666}table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left}th{background:#f4f4f4}td.num{text-align:right}
.finding{border-left:4px solid #999;padding:6px 12px;margin:10px 0;background:#fafafa}
.finding.error{border-color:#d62728}.finding.warning{border-color:#f28e2b}.finding.info{border-color:#4e79a7}
.chart{display:block;margin:8px 0;max-width:100%;height:auto}.legend span{margin-right:14px}
)css";

// Counts what the browser laid out, for headless tests: charts with a non-empty box, and the
// buffer rectangles live at a peak.
constexpr const char* kScript = R"js(
window.addEventListener('load',function(){var n=0,p=0;document.querySelectorAll('svg.chart').forEach(function(s){var b=s.getBBox();if(b.width>0&&b.height>0)n++;});document.querySelectorAll('svg.chart rect.live-at-peak').forEach(function(r){var b=r.getBBox();if(b.width>0&&b.height>0)p++;});document.body.setAttribute('data-charts-rendered',String(n));document.body.setAttribute('data-peak-rects-rendered',String(p));});
)js";

class HtmlRenderer : public render::Renderer {
  public:
    HtmlRenderer(const Analysis& analysis, const Findings* findings)
        : analysis_(analysis), findings_(findings) {}

    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions&) const override {
        const Report& model = analysis_.report;
        out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            << "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            << "<title>ptune mem-report: " << escape(safe(model.source)) << "</title><style>"
            << kStyle << "</style></head><body>\n<h1>On-chip memory</h1>";
        out << "<p class=\"meta\">ptune " << escape(std::string(version())) << "</p>";
        for (const auto& note : report.notes) out << "<p>" << escape(safe(note)) << "</p>";
        std::size_t count = findings_ ? findings_->size() : report.findings.size();
        if (count > 0) out << "<h2>Findings</h2>";
        for (std::size_t i = 0; i < count; ++i) {
            const rules::Finding finding = findings_ ? (*findings_)[i] : report.findings[i];
            std::string severity(rules::to_string(finding.severity));
            out << "<div class=\"finding " << severity << "\"><b>" << escape(severity) << "</b> "
                << escape(finding.rule) << " · " << escape(safe(finding.subject.name)) << ": "
                << escape(safe(finding.message)) << "<div>" << escape(finding.advice)
                << "</div></div>\n";
        }
        out << "<p class=\"legend\"><span style=\"color:#4e79a7\">■ buffer</span><span "
               "style=\"color:#f28e2b\">■ live at the peak</span><span style=\"color:#e15759\">"
               "■ overlapping while live (allocator bug)</span><span>- - limit</span><span>| "
               "peak</span></p>";
        int index = 0;
        for (const auto& function : model.functions) {
            out << "<h2>" << escape(safe(function.name)) << "</h2>";
            // Made here one function at a time, not taken from report.tables: a report of
            // 200,000 functions never holds all its tables.
            for (const auto& t : function_tables(model, function)) {
                if (t.title != safe(function.name)) out << "<h3>" << escape(t.title) << "</h3>";
                out << html_table(t) << '\n';
            }
            for (const auto& usage : function.spaces) {
                std::string svg = memory_map_svg(model, function, usage, index);
                if (svg.empty()) continue;
                ++index;
                out << svg << '\n';
            }
        }
        out << "<script>" << kScript << "</script>\n</body></html>\n";
    }

  private:
    const Analysis& analysis_;
    const Findings* findings_;
};

}  // namespace

std::shared_ptr<render::Renderer> make_html_renderer(const Analysis& analysis,
                                                     const Findings* findings) {
    return std::make_shared<HtmlRenderer>(analysis, findings);
}

}  // namespace ptune::memreport
