// ptune history add|list|show|changes|export|confirm (docs/HISTORY.md): options, renderer choice
// and exit codes (add and confirm in history_actions.cpp); the work is in the history pipeline,
// what each action prints in history/report.hpp.

#include "cli/commands/commands.hpp"
#include "cli/commands/history_actions.hpp"
#include "cli/safety.hpp"
#include "ptune/history/pipeline.hpp"
#include "ptune/history/report.hpp"

namespace ptune::cli {

namespace {

class HistoryCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.require_subcommand(1, 1);
        app.add_option("--db", db_,
                       "History database: an SQLite file (default .ptune/history.db) or a "
                       "postgresql:// URI");
        app.add_option("--lock-timeout", open_.lock_timeout_s,
                       "Seconds to wait for another writer's lock (default 30)")
            ->check(non_negative_number());

        auto* add = add_.add_to(app);

        app.add_subcommand("list", "List the recorded runs");

        auto* show = app.add_subcommand(
            "show", "One case's history: table and sparkline (--format html|svg: a chart)");
        show->add_option("case", case_, "Case name")->required();
        detection_options(show);

        auto* changes = app.add_subcommand(
            "changes", "Change points: run, commit range, size in %, confidence");
        changes->add_option("case", case_, "Only this case");
        detection_options(changes);

        auto* exports = app.add_subcommand(
            "export", "The whole history: --format csv (default), json or gab-json");
        detection_options(exports);
        subcommands_ = {add,     app.get_subcommand("list"), show, changes,
                        exports, confirm_.add_to(app)};
        for (auto* sub : subcommands_) {
            sub->fallthrough();       // --db, --format, -o may follow the action
            add_number_checks(*sub);  // --alpha nan|inf: as for every command's own options
        }
    }

    int run(Context& context) override {
        for (auto* sub : subcommands_) {
            if (!sub->parsed()) continue;
            const std::string action = sub->get_name();
            if (auto status = history::check_format(action, context.options.format); !status)
                return context.fail(status.error());
            if (action == "add") return add_.run(context, db_, open_);
            if (action == "confirm") return confirm_.run(context, db_, open_);
            auto store = history::Store::open(db_, open_);
            if (!store) return context.fail(store.error());
            analyse_.use_cache = !recompute_;
            if (action == "list") return emit(context, history::list(**store));
            if (action == "show") return show(context, **store);
            if (action == "changes")
                return emit(context,
                            history::changes(**store, case_, analyse_, context.diagnostics));
            return export_history(context, **store);
        }
        return context.fail(
            Error{"history needs an action: add, list, show, changes, export, confirm", "", 0,
                  ExitCode::InputError});
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

    static int emit(Context& context, const Result<render::Report>& report) {
        return report ? context.emit(*report) : context.fail(report.error());
    }

    int show(Context& context, history::Store& store) {
        auto shown = history::show(store, case_, analyse_, context.diagnostics);
        if (!shown) return context.fail(shown.error());
        return context.emit(shown->report,
                            history::show_renderers(case_, shown->analyses, shown->report));
    }

    int export_history(Context& context, history::Store& store) {
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
    std::string case_;
    history::AnalyseOptions analyse_;
    bool recompute_ = false;
    std::vector<CLI::App*> subcommands_;
    HistoryAdd add_;
    HistoryConfirm confirm_;
};

}  // namespace

std::unique_ptr<Command> make_history() {
    return std::make_unique<HistoryCommand>();
}

}  // namespace ptune::cli
