// The self-contained HTML advise report: inline CSS and SVG, no external resources, so it can be
// attached to a CI run or mailed and still opens offline.

#include <fmt/format.h>

#include "evidence_text.hpp"
#include "ptune/advise/advisor.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/version.hpp"

namespace ptune::advise {

namespace {

using render::svg::escape;
using render::svg::html_table;

constexpr const char* kStyle = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;color:#222;padding:0 16px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}.meta{color:#666}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
.finding{border-left:4px solid #999;padding:6px 12px;margin:10px 0;background:#fafafa}
.finding.error{border-color:#d62728}.finding.warning{border-color:#f28e2b}.finding.info{border-color:#4e79a7}
.finding .rule{font-family:ui-monospace,monospace;font-size:12px;color:#555}.finding .evidence{font-size:13px;color:#444}.finding .advice{margin-top:4px}
.missing{color:#777}.refused,.unreadable{color:#d62728}.chart{display:block;margin:8px 0;max-width:100%;height:auto}
.chart .label{font-size:11px;fill:#333}.chart .small{font-size:9px}.chart .value{font-size:10px;fill:#555}
.chart .chart-title{font-size:12px;font-weight:600;fill:#222}.chart .bar{fill:#4e79a7}.chart .bar.warn{fill:#e15759}
.chart .reference{stroke:#d62728;stroke-dasharray:4 3}
)css";

// Counts the charts the browser actually laid out (non-empty boxes), so a headless-browser test
// can tell rendered pictures from markup that failed to draw, and the chart labels whose text
// starts left of the picture (cut off).
constexpr const char* kScript = R"js(
window.addEventListener('load',function(){var n=0;document.querySelectorAll('svg.chart').forEach(function(s){var b=s.getBBox();if(b.width>0&&b.height>0)n++;});document.body.setAttribute('data-charts-rendered',String(n));
var c=0;document.querySelectorAll('svg.chart text.label').forEach(function(t){if(t.getBBox().x<0)c++;});document.body.setAttribute('data-labels-clipped',String(c));});
)js";

std::string finding_html(const RankedFinding& ranked, int rank) {
    const rules::Finding& f = ranked.finding;
    std::string severity(rules::to_string(f.severity));
    std::string lead = rank > 0 ? fmt::format("<b>{}.</b> ", rank)
                       : !ranked.not_now.empty()
                           ? "<b>not now</b>, because " + escape(ranked.not_now) + ": "
                       : !ranked.sites_of.empty() ? std::string()
                                                  : "<b>also</b> (the same order as above): ";
    if (!ranked.sites_of.empty()) lead += "the sites of " + escape(ranked.sites_of) + ": ";
    std::string out =
        fmt::format("<div class=\"finding {}\"><div>{}{}</div>", severity, lead, escape(f.message));
    out += fmt::format(
        "<div class=\"rule\">{} · {}{}{}{}</div>", escape(severity), escape(f.rule),
        f.catalogue.empty() ? "" : " (" + escape(f.catalogue) + ")",
        f.subject.kind == "run" ? "" : " · " + escape(f.subject.kind + " " + f.subject.name),
        ranked.impact_basis.empty() ? ""
                                    : " · impact " + stats::format_fixed(ranked.impact * 100, 1) +
                                          " % (" + escape(ranked.impact_basis) + ")");
    if (!f.advice.empty()) out += "<div class=\"advice\">" + escape(f.advice) + "</div>";
    if (!f.guide.empty()) out += "<div class=\"rule\">Guide: " + escape(f.guide) + "</div>";
    if (!f.evidence.empty() || !f.locations.empty()) {
        // In words (evidence_text.cpp); the metric itself stays in the tooltip for rule authors.
        std::string evidence;
        for (const auto& [name, value] : f.evidence) {
            evidence += fmt::format("{}<span title=\"{}\">{}</span>", evidence.empty() ? "" : "; ",
                                    escape(fmt::format("{} = {:.6g}", name, value)),
                                    escape(describe_metric(name, value)));
        }
        std::string places;
        for (const auto& location : f.locations) {
            places += fmt::format("{}{}:{}", places.empty() ? "" : ", ", escape(location.file),
                                  location.line);
        }
        if (!places.empty()) evidence += (evidence.empty() ? "at " : "; at ") + places;
        out += "<div class=\"evidence\">Evidence: " + evidence + ".</div>";
    }
    return out + "</div>";
}

class HtmlRenderer : public render::Renderer {
  public:
    explicit HtmlRenderer(const Advice& advice) : advice_(advice) {}

    void render(const render::Report&, std::ostream& out,
                const render::RenderOptions&) const override {
        const Inventory& inventory = advice_.inventory;
        out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            << "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            << "<title>ptune advise: "
            << escape(inventory.program.empty() ? inventory.run_dir.string() : inventory.program)
            << "</title><style>" << kStyle << "</style></head><body>\n";
        out << "<h1>Tuning report"
            << (inventory.program.empty() ? "" : ": " + escape(inventory.program)) << "</h1>";
        out << "<p class=\"meta\">" << escape(inventory.run_dir.string())
            << (inventory.timestamp.empty() ? "" : " · " + escape(inventory.timestamp))
            << " · ptune " << escape(std::string(version())) << "</p>\n";

        out << "<h2>What to fix first</h2>";
        if (advice_.findings.empty()) out << "<p>No rule fired on this run.</p>";
        // One plan per kernel (docs/advise.md); findings folded into an order follow it.
        std::string group = "\x01";
        for (const auto& ranked : advice_.findings) {
            std::string title = ranked.plan.empty()         ? tier_title(ranked.tier)
                                : ranked.kernels.size() > 1 ? "Kernels " + ranked.plan
                                                            : "Kernel " + ranked.plan;
            if (title != group) {
                group = title;
                out << "<h3>" << escape(title) << "</h3>";
            }
            out << finding_html(ranked, ranked.rank) << '\n';
            for (const auto& folded : ranked.merged) {
                RankedFinding also{folded, ranked.tier, ranked.impact, ranked.impact_basis};
                out << finding_html(also, 0) << '\n';
            }
        }

        out << "<h2>Pictures</h2>";
        const ChartData& charts = advice_.charts;
        using namespace render::svg;
        if (!charts.lanes.empty()) {
            out << utilisation_heatmap("lane-utilisation", "Per-lane utilisation over time",
                                       charts.lanes, charts.window_begin_us, charts.window_end_us,
                                       "µs")
                << '\n';
        }
        if (!charts.top_kernels.empty()) {
            out << horizontal_bars("top-kernels", "Kernel time by function (Σ exec µs)",
                                   charts.top_kernels)
                << '\n';
        }
        if (!charts.memory_fill.empty()) {
            out << horizontal_bars("memory-fill",
                                   "On-chip memory fill per kernel and space (% of limit)",
                                   charts.memory_fill, 100.0, 100.0, "limit")
                << '\n';
        }
        if (!charts.pipes.empty()) {
            out << grouped_bars("pipe-utilisation",
                                "Pipe busy ratio per kernel (busy / total cycles)", charts.pipes,
                                1.0)
                << '\n';
        }
        if (!charts.rank_effective_us.empty()) {
            out << horizontal_bars("effective-us", "effective_us (mean) per rank / case",
                                   charts.rank_effective_us)
                << '\n';
        }
        if (charts.lanes.empty() && charts.top_kernels.empty() && charts.memory_fill.empty() &&
            charts.pipes.empty() && charts.rank_effective_us.empty()) {
            out << "<p>No artifact with chartable data.</p>";
        }

        out << memory_map_section(charts);

        for (const auto& section : advice_.sections) {
            out << "<h2>" << escape(section.title) << "</h2>" << html_table(section.table) << '\n';
        }

        out << "<h2>Artifacts</h2><table><thead><tr><th>kind</th><th>status</th><th>path or "
               "reason</th></tr></thead><tbody>";
        for (const auto& row : inventory.rows()) {
            out << (row.status == "found" ? "<tr>" : "<tr class=\"" + row.status + "\">") << "<td>"
                << escape(row.kind) << "</td><td>" << row.status << "</td><td>" << escape(row.text)
                << "</td></tr>";
        }
        out << "</tbody></table>\n<script>" << kScript << "</script>\n</body></html>\n";
    }

  private:
    const Advice& advice_;
};

}  // namespace

std::shared_ptr<render::Renderer> make_html_renderer(const Advice& advice) {
    return std::make_shared<HtmlRenderer>(advice);
}

}  // namespace ptune::advise
