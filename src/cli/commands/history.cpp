// ptune history add|list|show|changes|export: a performance history per case with change-point
// detection (docs/HISTORY.md). The work is in the history pipeline (ptune/history/); this file
// holds options, renderer choice and exit codes; what each action prints is history/report.hpp.

#include <fmt/format.h>

#include "cli/commands/commands.hpp"
#include "cli/safety.hpp"
#include "ptune/history/pipeline.hpp"
#include "ptune/history/report.hpp"

namespace ptune::cli {

namespace {

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
        if (auto status = history::add_labels(labels_, meta_); !status)
            return context.fail(status.error());
        context.add_labelled_inputs(inputs_);
        auto report = history::add_run(db_, open_, inputs_, meta_, context.diagnostics);
        if (!report) return context.fail(report.error());
        return context.emit(*report);
    }

    int list(Context& context, history::Store& store) {
        auto runs = store.runs();
        if (!runs) return context.fail(runs.error());
        return context.emit(history::list_report(*runs, store.location()));
    }

    int show(Context& context, history::Store& store) {
        analyse_.use_cache = !recompute_;
        auto found = history::collect_analyses(store, case_, analyse_, context.diagnostics);
        if (!found) return context.fail(found.error());
        if (found->empty()) {
            return context.fail(Error{fmt::format("no case '{}' in the history (see ptune history "
                                                  "changes or export for the case names)",
                                                  case_),
                                      store.location(), 0, ExitCode::InputError});
        }
        const auto report = history::show_report(case_, *found);
        return context.emit(report, history::show_renderers(case_, *found, report));
    }

    int changes(Context& context, history::Store& store) {
        analyse_.use_cache = !recompute_;
        auto found = history::collect_changes(store, case_, analyse_, context.diagnostics);
        if (!found) return context.fail(found.error());
        if (!case_.empty() && found->series == 0) {
            return context.fail(Error{fmt::format("no case '{}' in the history", case_),
                                      store.location(), 0, ExitCode::InputError});
        }
        return context.emit(
            history::changes_report(found->changes, found->series, analyse_.detect));
    }

    int export_history(Context& context, history::Store& store) {
        analyse_.use_cache = !recompute_;
        // Streamed into an atomic output: a failure halfway leaves no partial file.
        auto output = context.open_output(context.options.output);
        if (!output) return context.fail(output.error());
        auto status = history::export_history(store, context.options.format, analyse_,
                                              (*output)->stream(), context.diagnostics);
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
