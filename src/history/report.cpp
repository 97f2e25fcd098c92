// What `ptune history` prints (report.hpp): the tables, notes and JSON of add, list, show and
// changes, in the shared table conventions (units in headers, one way to print a change).

#include "ptune/history/report.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ptune/core/stats.hpp"
#include "ptune/history/chart.hpp"
#include "ptune/history/export.hpp"

namespace ptune::history {

namespace {

// A format whose bytes are made before emit() (svg, html).
class FixedRenderer : public render::Renderer {
  public:
    explicit FixedRenderer(std::string text) : text_(std::move(text)) {}
    void render(const render::Report&, std::ostream& out,
                const render::RenderOptions&) const override {
        out << text_;
    }

  private:
    std::string text_;
};

std::string us(double value) {
    return stats::format_fixed(value, 1);
}

// A report with no findings: history prints data, its rules are bench-gate's.
render::Report data_report(std::string command) {
    render::Report report;
    report.command = std::move(command);
    report.include_findings_in_json = false;
    return report;
}

std::string chart_title(const std::string& name) {
    return fmt::format("{}: effective_us per run", name);
}

}  // namespace

render::Report add_report(const NewRun& run, const AddOutcome& outcome) {
    const auto& info = run.info;
    const Epoch epoch = epoch_of(info);
    render::Report report = data_report("history add");
    report.data = {{"run", outcome.run},        {"added", outcome.added}, {"run_key", info.run_key},
                   {"cases", run.cases.size()}, {"commit", info.commit},  {"time", info.time},
                   {"epoch", epoch.label()}};
    // The identity parts as recorded (docs/HISTORY.md "Identity").
    report.data["identity"] = {{"lane", info.lane},           {"source_tree", info.source_digest},
                               {"contract", info.contract},   {"toolchain_epoch", info.toolchain},
                               {"device_epoch", info.device}, {"lineage", info.lineage}};
    report.notes.push_back(
        outcome.added ? fmt::format("recorded run {}: {} case(s), commit {}, epoch {}", outcome.run,
                                    run.cases.size(), info.commit, epoch.label())
                      : fmt::format("already recorded as run {} (same run key and results); "
                                    "nothing added",
                                    outcome.run));
    return report;
}

render::Report list_report(const std::vector<RunInfo>& runs, const std::string& location) {
    render::Report report = data_report("history list");
    render::Table table;
    table.columns = {"run", "time", "commit", "branch", "epoch", "cases", "labels"};
    table.align = {render::Align::Right, render::Align::Left, render::Align::Left,
                   render::Align::Left,  render::Align::Left, render::Align::Right};
    auto& list = report.data["runs"] = nlohmann::json::array();
    for (const auto& run : runs) {
        std::vector<std::string> labels;
        for (const auto& [key, value] : run.labels) labels.push_back(key + "=" + value);
        const Epoch epoch = epoch_of(run);
        table.rows.push_back({std::to_string(run.id), run.time, run.commit, run.branch,
                              epoch.label(), std::to_string(run.cases),
                              fmt::format("{}", fmt::join(labels, " "))});
        auto json = run_to_json(run);
        json["cases"] = run.cases;
        list.push_back(std::move(json));
    }
    report.tables.push_back(std::move(table));
    report.notes.push_back(fmt::format("{} run(s) in {}", runs.size(), location));
    return report;
}

render::Report show_report(const std::string& name, const std::vector<Analysis>& analyses) {
    render::Report report = data_report("history show");
    render::Table table;
    table.title = name;
    // The centre with its spread and n (issue #34: as hyperfine and benchstat print them): the
    // run's round range, which every input kind records (σ needs raw samples few logs carry).
    table.columns = {"run", "time",  "commit",     "epoch", "effective",
                     "n",   "range", "vs segment", "change"};
    table.units = {"", "", "", "", "µs", "", "µs"};
    table.align = {render::Align::Right, render::Align::Left,  render::Align::Left,
                   render::Align::Left,  render::Align::Right, render::Align::Right,
                   render::Align::Right, render::Align::Right};
    report.data["case"] = name;
    auto& series_json = report.data["series"] = nlohmann::json::array();
    for (const auto& analysis : analyses) {
        const auto changes = describe(analysis);
        const auto& points = analysis.series.points;
        const auto medians = segment_medians(analysis);  // one per point
        std::vector<double> values;
        nlohmann::json point_json = nlohmann::json::array();
        std::size_t c = 0;  // change points passed so far
        for (std::size_t i = 0; i < points.size(); ++i) {
            const auto& p = points[i];
            const bool at_change =
                c < analysis.change_points.size() && analysis.change_points[c].index == i && i > 0;
            if (at_change) ++c;
            table.rows.push_back(
                {std::to_string(p.run), p.time, p.commit, analysis.series.epoch.label(),
                 us(p.value_us), p.rounds > 0 ? std::to_string(p.rounds) : "-",
                 p.min_us && p.max_us ? fmt::format("{}–{}", us(*p.min_us), us(*p.max_us)) : "-",
                 stats::format_signed_percent((p.value_us - medians[i]) / medians[i] * 100.0),
                 at_change
                     ? fmt::format("<- {}", stats::format_signed_percent(changes[c - 1].change_pct))
                     : ""});
            values.push_back(p.value_us);
            point_json.push_back(
                {{"run", p.run},
                 {"time", p.time},
                 {"commit", p.commit},
                 {"value_us", p.value_us},
                 {"rounds", p.rounds},
                 {"min_us", p.min_us ? nlohmann::json(*p.min_us) : nlohmann::json()},
                 {"max_us", p.max_us ? nlohmann::json(*p.max_us) : nlohmann::json()},
                 {"change_point", at_change}});
        }
        report.notes.push_back(fmt::format("{} {} ({} runs, {} change point(s))",
                                           analysis.series.epoch.label(), sparkline(values),
                                           points.size(), changes.size()));
        series_json.push_back({{"toolchain", analysis.series.epoch.toolchain},
                               {"device", analysis.series.epoch.device},
                               {"lane", analysis.series.epoch.lane},
                               {"contract", analysis.series.epoch.contract},
                               {"lineage", analysis.series.epoch.lineage},
                               {"points", point_json},
                               {"changes", changes_json(changes)}});
    }
    report.tables.push_back(std::move(table));
    BridgeFinder bridges;
    for (const auto& analysis : analyses) bridges.add(analysis.series);
    add_bridges(report, bridges.finish());
    return report;
}

std::map<std::string, std::shared_ptr<render::Renderer>> show_renderers(
    const std::string& name, const std::vector<Analysis>& analyses, const render::Report& report) {
    const std::string title = chart_title(name);
    const auto svg = svg_chart(title, analyses);
    const auto& table = report.tables.front();
    // The page's table reads like the text one: units in the headers.
    std::vector<std::string> headers = table.columns;
    for (std::size_t i = 0; i < headers.size() && i < table.units.size(); ++i)
        if (!table.units[i].empty()) headers[i] += fmt::format(" ({})", table.units[i]);
    return {{"svg", std::make_shared<FixedRenderer>(svg + "\n")},
            {"html", std::make_shared<FixedRenderer>(html_page(title, svg, headers, table.rows))}};
}

nlohmann::json changes_json(const std::vector<Change>& changes) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& change : changes) {
        list.push_back({{"case", change.name},
                        {"toolchain", change.epoch.toolchain},
                        {"device", change.epoch.device},
                        {"lane", change.epoch.lane},
                        {"contract", change.epoch.contract},
                        {"lineage", change.epoch.lineage},
                        {"run", change.run},
                        {"commit_before", change.commit_before},
                        {"commit", change.commit},
                        {"before_us", change.before_us},
                        {"after_us", change.after_us},
                        {"change_pct", change.change_pct},
                        {"p_value", change.p_value},
                        {"confidence", change.confidence()}});
    }
    return list;
}

void add_bridges(render::Report& report, const std::vector<Bridge>& bridges) {
    if (bridges.empty()) return;
    auto& list = report.data["bridges"] = nlohmann::json::array();
    for (const auto& bridge : bridges) {
        report.notes.push_back(fmt::format("{}: run {} ({}): {}; no delta across it", bridge.name,
                                           bridge.run, bridge.commit, bridge.text()));
        list.push_back({{"case", bridge.name},
                        {"run", bridge.run},
                        {"commit", bridge.commit},
                        {"from", bridge.from.label()},
                        {"to", bridge.to.label()},
                        {"differences", bridge.differences}});
    }
}

render::Report changes_report(const std::vector<Change>& changes, std::size_t series,
                              const DetectOptions& detect, const std::vector<Bridge>& bridges) {
    render::Report report = data_report("history changes");
    render::Table table;
    table.columns = {"case", "epoch", "run", "commits", "before", "after", "change", "confidence"};
    table.units = {"", "", "", "", "µs", "µs"};
    table.align = {render::Align::Left,  render::Align::Left,  render::Align::Right,
                   render::Align::Left,  render::Align::Right, render::Align::Right,
                   render::Align::Right, render::Align::Right};
    for (const auto& change : changes) {
        table.rows.push_back({change.name, change.epoch.label(), std::to_string(change.run),
                              fmt::format("{}..{}", change.commit_before, change.commit),
                              us(change.before_us), us(change.after_us),
                              stats::format_signed_percent(change.change_pct),
                              stats::format_fixed(change.confidence(), 3)});
    }
    report.data["changes"] = changes_json(changes);
    report.data["series"] = series;
    report.data["method"] = detect.key();
    report.tables.push_back(std::move(table));
    report.notes.push_back(
        fmt::format("{} change point(s) in {} series (E-Divisive means, permutation alpha {}, {} "
                    "permutations, segments of {}+ runs)",
                    changes.size(), series, detect.alpha, detect.permutations, detect.min_segment));
    add_bridges(report, bridges);
    return report;
}

Status check_format(const std::string& action, std::string& format) {
    static const std::map<std::string, std::vector<std::string>> allowed = {
        {"add", {"text", "json"}},
        {"list", {"text", "json", "csv", "markdown"}},
        {"show", {"text", "json", "csv", "markdown", "html", "svg"}},
        {"changes", {"text", "json", "csv", "markdown"}},
        {"export", {"csv", "json", "gab-json"}},
        {"confirm", {"text", "json", "markdown"}}};
    if (action == "export" && format == "text") format = "csv";  // the default
    const auto& formats = allowed.at(action);
    if (std::find(formats.begin(), formats.end(), format) != formats.end()) return ok_status();
    return Error{fmt::format("history {} has no --format {} (it has {})", action, format,
                             fmt::join(formats, ", ")),
                 "", 0, ExitCode::InputError};
}

Result<render::Report> list(Store& store) {
    auto runs = store.runs();
    if (!runs) return runs.error();
    return list_report(*runs, store.location());
}

Result<Shown> show(Store& store, const std::string& name, const AnalyseOptions& options,
                   Diagnostics& diagnostics) {
    // collect_analyses reads every case for an empty name: one series of them all.
    if (name.empty())
        return Error{
            "history show needs a case name (see ptune history changes or export for "
            "the names)",
            "", 0, ExitCode::InputError};
    auto found = collect_analyses(store, name, options, diagnostics);
    if (!found) return found.error();
    if (found->empty()) {
        return Error{fmt::format("no case '{}' in the history (see ptune history changes or "
                                 "export for the case names)",
                                 name),
                     store.location(), 0, ExitCode::InputError};
    }
    Shown shown;
    shown.report = show_report(name, *found);
    shown.analyses = std::move(*found);
    return shown;
}

Result<render::Report> changes(Store& store, const std::string& only, const AnalyseOptions& options,
                               Diagnostics& diagnostics) {
    auto found = collect_changes(store, only, options, diagnostics);
    if (!found) return found.error();
    if (!only.empty() && found->series == 0) {
        return Error{fmt::format("no case '{}' in the history", only), store.location(), 0,
                     ExitCode::InputError};
    }
    return changes_report(found->changes, found->series, options.detect, found->bridges);
}

}  // namespace ptune::history
