// ptune history add|list|show|changes|export: a performance history per case with change-point
// detection (docs/HISTORY.md). The work is in the history pipeline (ptune/history/); this file
// holds options, renderer choice and exit codes.

#include <cmath>

#include <fmt/format.h>

#include "cli/commands/commands.hpp"
#include "cli/safety.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/history/chart.hpp"
#include "ptune/history/export.hpp"
#include "ptune/history/pipeline.hpp"

namespace ptune::cli {

namespace {

using history::Analysis;

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
    return fmt::format("{:.1f}", value);
}
std::string pct(double value) {
    return fmt::format("{:+.1f} %", value);
}

Error usage(std::string message) {
    return Error{std::move(message), "", 0, ExitCode::InputError};
}

class HistoryCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.require_subcommand(1, 1);
        const auto common = [&](CLI::App* sub) {
            sub->fallthrough();  // --db, --format, -o may follow the action
            return sub;
        };
        app.add_option("--db", db_,
                       "History database: an SQLite file (default .ptune/history.db) or a "
                       "postgresql:// URI");
        app.add_option("--lock-timeout", open_.lock_timeout_s,
                       "Seconds to wait for another writer's lock (default 30)")
            ->check(non_negative_number());

        auto* add = common(app.add_subcommand(
            "add", "Record a run: INPUT... (anything bench-summary reads, or its JSON)"));
        add->add_option("inputs", inputs_, "Logs, directories, results.tsv, bench-summary JSON")
            ->required();
        add->add_option("--commit", meta_.commit, "Commit the run measured")->required();
        add->add_option("--branch", meta_.branch, "Branch");
        add->add_option("--toolchain", meta_.toolchain,
                        "Toolchain (CANN, compiler...): with --device, the epoch");
        add->add_option("--device", meta_.device,
                        "Device or platform (default: the platform the input paths name)");
        add->add_option("--source-digest", meta_.source_digest,
                        "Digest of the source tree or case contract");
        add->add_option("--meta", labels_, "Free label KEY=VALUE (repeatable)");
        add->add_option("--time", meta_.time,
                        "When the run happened, UTC (2026-09-01T12:00:00Z or @SECONDS; "
                        "default now)");
        add->add_option("--run-id", meta_.run_id,
                        "The run's identity (e.g. CI run id and attempt); default: a digest "
                        "of its content");

        common(app.add_subcommand("list", "List the recorded runs"));

        auto* show = common(app.add_subcommand(
            "show", "One case's history: table and sparkline (--format html|svg: a chart)"));
        show->add_option("case", case_, "Case name")->required();
        detection_options(show);

        auto* changes = common(app.add_subcommand(
            "changes", "Change points: run, commit range, size in %, confidence"));
        changes->add_option("case", case_, "Only this case");
        detection_options(changes);

        auto* exports = common(app.add_subcommand(
            "export", "The whole history: --format csv (default), json or gab-json"));
        detection_options(exports);
        subcommands_ = {add, app.get_subcommand("list"), show, changes, exports};
    }

    int run(Context& context) override {
        for (auto* sub : subcommands_) {
            if (!sub->parsed()) continue;
            const std::string action = sub->get_name();
            if (auto status = check_format(action, context.options.format); !status)
                return context.fail(status.error());
            if (action == "add") return add(context);
            auto store = history::Store::open(db_, open_);
            if (!store) return context.fail(store.error());
            if (action == "list") return list(context, **store);
            if (action == "show") return show(context, **store);
            if (action == "changes") return changes(context, **store);
            return export_history(context, **store);
        }
        return context.fail(usage("history needs an action: add, list, show, changes, export"));
    }

  private:
    void detection_options(CLI::App* sub) {
        sub->add_option("--alpha", analyse_.detect.alpha,
                        "Significance of a change point, permutation p (default 0.01)")
            ->check(CLI::Range(0.0, 1.0));
        sub->add_option("--permutations", analyse_.detect.permutations,
                        "Permutations per test (default 199)")
            ->check(CLI::Range(19, 100000));
        sub->add_option("--min-segment", analyse_.detect.min_segment,
                        "Runs on either side of a change point, at least (default 5)")
            ->check(CLI::Range(2, 100000));
        sub->add_option("--seed", analyse_.detect.seed, "Seed of the permutations (default 1)");
        sub->add_flag("--recompute", recompute_,
                      "Search every series from scratch instead of reusing cached change points");
    }

    static Status check_format(const std::string& action, std::string& format) {
        static const std::map<std::string, std::vector<std::string>> allowed = {
            {"add", {"text", "json"}},
            {"list", {"text", "json", "csv", "markdown"}},
            {"show", {"text", "json", "csv", "markdown", "html", "svg"}},
            {"changes", {"text", "json", "csv", "markdown"}},
            {"export", {"csv", "json", "gab-json"}}};
        if (action == "export" && format == "text") format = "csv";  // the default
        const auto& formats = allowed.at(action);
        if (std::find(formats.begin(), formats.end(), format) != formats.end()) return ok_status();
        return usage(fmt::format("history {} has no --format {} (it has {})", action, format,
                                 fmt::join(formats, ", ")));
    }

    int add(Context& context) {
        for (const auto& label : labels_) {
            const auto eq = label.find('=');
            if (eq == std::string::npos || eq == 0)
                return context.fail(usage(fmt::format("--meta '{}' is not KEY=VALUE", label)));
            meta_.labels[label.substr(0, eq)] = label.substr(eq + 1);
        }
        context.add_labelled_inputs(inputs_);
        auto run = history::build_run(inputs_, meta_, context.diagnostics);
        if (!run) return context.fail(run.error());
        history::OpenOptions open = open_;
        open.create = true;
        auto store = history::Store::open(db_, open);
        if (!store) return context.fail(store.error());
        auto outcome = (*store)->add(*run);
        if (!outcome) return context.fail(outcome.error());
        const auto& info = run->info;
        const history::Epoch epoch{info.toolchain, info.device};
        render::Report report;
        report.command = "history add";
        report.include_findings_in_json = false;
        report.data = {{"run", outcome->run},     {"added", outcome->added},
                       {"run_key", info.run_key}, {"cases", run->cases.size()},
                       {"commit", info.commit},   {"time", info.time},
                       {"epoch", epoch.label()}};
        report.notes.push_back(
            outcome->added
                ? fmt::format("recorded run {}: {} case(s), commit {}, epoch {}", outcome->run,
                              run->cases.size(), info.commit, epoch.label())
                : fmt::format("already recorded as run {} (same run key and results); nothing "
                              "added",
                              outcome->run));
        return context.emit(report);
    }

    int list(Context& context, history::Store& store) {
        auto runs = store.runs();
        if (!runs) return context.fail(runs.error());
        render::Report report;
        report.command = "history list";
        report.include_findings_in_json = false;
        render::Table table;
        table.columns = {"run", "time", "commit", "branch", "epoch", "cases", "labels"};
        table.align = {render::Align::Right, render::Align::Left, render::Align::Left,
                       render::Align::Left,  render::Align::Left, render::Align::Right};
        auto& list = report.data["runs"] = nlohmann::json::array();
        for (const auto& run : *runs) {
            std::vector<std::string> labels;
            for (const auto& [key, value] : run.labels) labels.push_back(key + "=" + value);
            const history::Epoch epoch{run.toolchain, run.device};
            table.rows.push_back({std::to_string(run.id), run.time, run.commit, run.branch,
                                  epoch.label(), std::to_string(run.cases),
                                  fmt::format("{}", fmt::join(labels, " "))});
            auto json = history::run_to_json(run);
            json["cases"] = run.cases;
            list.push_back(std::move(json));
        }
        report.tables.push_back(std::move(table));
        report.notes.push_back(fmt::format("{} run(s) in {}", runs->size(), store.location()));
        return context.emit(report);
    }

    Result<std::vector<Analysis>> analyses(Context& context, history::Store& store,
                                           const std::string& only) {
        analyse_.use_cache = !recompute_;
        std::vector<Analysis> all;
        std::vector<std::string> names;
        if (!only.empty()) names.push_back(only);
        auto status = history::analyse(
            store, names, analyse_,
            [&](Analysis&& analysis) -> Status {
                all.push_back(std::move(analysis));
                return ok_status();
            },
            context.diagnostics);
        if (!status) return status.error();
        return all;
    }

    int show(Context& context, history::Store& store) {
        auto found = analyses(context, store, case_);
        if (!found) return context.fail(found.error());
        if (found->empty()) {
            return context.fail(Error{fmt::format("no case '{}' in the history (see ptune history "
                                                  "changes or export for the case names)",
                                                  case_),
                                      store.location(), 0, ExitCode::InputError});
        }
        render::Report report;
        report.command = "history show";
        report.include_findings_in_json = false;
        render::Table table;
        table.title = case_;
        table.columns = {"run", "time", "commit", "epoch", "effective_us", "vs segment", "change"};
        table.align = {render::Align::Right, render::Align::Left,  render::Align::Left,
                       render::Align::Left,  render::Align::Right, render::Align::Right};
        report.data["case"] = case_;
        auto& series_json = report.data["series"] = nlohmann::json::array();
        for (const auto& analysis : *found) {
            const auto changes = history::describe(analysis);
            const auto& points = analysis.series.points;
            std::vector<double> values;
            nlohmann::json point_json = nlohmann::json::array();
            // The segment's median, what bench-gate --history compares with, once per segment.
            std::size_t c = 0;
            double median = 0;
            for (std::size_t i = 0; i < points.size(); ++i) {
                const bool starts = i == 0 || (c < analysis.change_points.size() &&
                                               analysis.change_points[c].index == i);
                if (i > 0 && starts) ++c;
                if (starts) {
                    const std::size_t end = c < analysis.change_points.size()
                                                ? analysis.change_points[c].index
                                                : points.size();
                    std::vector<double> segment;
                    for (std::size_t j = i; j < end; ++j) segment.push_back(points[j].value_us);
                    median = *stats::median(std::move(segment));
                }
                const auto& p = points[i];
                const bool at_change = c > 0 && starts;
                table.rows.push_back(
                    {std::to_string(p.run), p.time, p.commit, analysis.series.epoch.label(),
                     us(p.value_us), pct((p.value_us - median) / median * 100.0),
                     at_change ? fmt::format("<- {}", pct(changes[c - 1].change_pct)) : ""});
                values.push_back(p.value_us);
                point_json.push_back({{"run", p.run},
                                      {"time", p.time},
                                      {"commit", p.commit},
                                      {"value_us", p.value_us},
                                      {"change_point", at_change}});
            }
            report.notes.push_back(
                fmt::format("{} {} ({} runs, {} change point(s))", analysis.series.epoch.label(),
                            history::sparkline(values), points.size(), changes.size()));
            series_json.push_back({{"toolchain", analysis.series.epoch.toolchain},
                                   {"device", analysis.series.epoch.device},
                                   {"points", point_json},
                                   {"changes", changes_json(changes)}});
        }
        report.tables.push_back(std::move(table));
        const std::string title = fmt::format("{}: effective_us per run", case_);
        const auto svg = history::svg_chart(title, *found);
        const auto& t = report.tables.front();
        return context.emit(report, {{"svg", std::make_shared<FixedRenderer>(svg + "\n")},
                                     {"html", std::make_shared<FixedRenderer>(history::html_page(
                                                  title, svg, t.columns, t.rows))}});
    }

    static nlohmann::json changes_json(const std::vector<history::Change>& changes) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& change : changes) {
            list.push_back({{"case", change.name},
                            {"toolchain", change.epoch.toolchain},
                            {"device", change.epoch.device},
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

    int changes(Context& context, history::Store& store) {
        // Streamed: only the change points are kept, not the series (a large history).
        analyse_.use_cache = !recompute_;
        std::vector<history::Change> all;
        std::size_t series = 0;
        std::vector<std::string> names;
        if (!case_.empty()) names.push_back(case_);
        auto status = history::analyse(
            store, names, analyse_,
            [&](Analysis&& analysis) -> Status {
                ++series;
                for (auto& change : history::describe(analysis)) all.push_back(std::move(change));
                return ok_status();
            },
            context.diagnostics);
        if (!status) return context.fail(status.error());
        if (!case_.empty() && series == 0) {
            return context.fail(Error{fmt::format("no case '{}' in the history", case_),
                                      store.location(), 0, ExitCode::InputError});
        }
        render::Report report;
        report.command = "history changes";
        report.include_findings_in_json = false;
        render::Table table;
        table.columns = {"case",      "epoch",    "run",    "commits",
                         "before_us", "after_us", "change", "confidence"};
        table.align = {render::Align::Left,  render::Align::Left,  render::Align::Right,
                       render::Align::Left,  render::Align::Right, render::Align::Right,
                       render::Align::Right, render::Align::Right};
        for (const auto& change : all) {
            table.rows.push_back({change.name, change.epoch.label(), std::to_string(change.run),
                                  fmt::format("{}..{}", change.commit_before, change.commit),
                                  us(change.before_us), us(change.after_us), pct(change.change_pct),
                                  fmt::format("{:.3f}", change.confidence())});
        }
        report.data["changes"] = changes_json(all);
        report.data["series"] = series;
        report.data["method"] = analyse_.detect.key();
        report.tables.push_back(std::move(table));
        report.notes.push_back(fmt::format(
            "{} change point(s) in {} series (E-Divisive means, permutation alpha {}, {} "
            "permutations, segments of {}+ runs)",
            all.size(), series, analyse_.detect.alpha, analyse_.detect.permutations,
            analyse_.detect.min_segment));
        return context.emit(report);
    }

    int export_history(Context& context, history::Store& store) {
        analyse_.use_cache = !recompute_;
        // Streamed into an atomic output: a failure halfway leaves no partial file.
        auto output = context.open_output(context.options.output);
        if (!output) return context.fail(output.error());
        const auto& format = context.options.format;
        auto status = format == "csv" ? history::export_csv(store, (*output)->stream())
                      : format == "json"
                          ? history::export_json(store, (*output)->stream())
                          : history::export_gab_json(store, analyse_, (*output)->stream(),
                                                     context.diagnostics);
        if (!status) return context.fail(status.error());
        if (auto committed = (*output)->commit(); !committed)
            return context.fail(committed.error());
        return 0;
    }

    std::string db_ = history::kDefaultDatabase;
    history::OpenOptions open_;
    std::vector<std::string> inputs_;
    std::vector<std::string> labels_;
    history::RunMeta meta_;
    std::string case_;
    history::AnalyseOptions analyse_;
    bool recompute_ = false;
    std::vector<CLI::App*> subcommands_;
};

}  // namespace

std::unique_ptr<Command> make_history() {
    return std::make_unique<HistoryCommand>();
}

}  // namespace ptune::cli
