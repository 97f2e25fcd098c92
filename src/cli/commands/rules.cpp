// ptune rules list | explain ID: the catalogue, with thresholds, as the engine sees it. The
// lookups and tables are rules/lookup.hpp and render/catalogue_report.hpp; this file holds options
// and errors.

#include <fmt/format.h>

#include "cli/commands/commands.hpp"
#include "ptune/core/text_match.hpp"
#include "ptune/render/catalogue_report.hpp"
#include "ptune/rules/lookup.hpp"

namespace ptune::cli {

namespace {

class RulesCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        // Checked in run(), which names the nearest action (`expalin` -> explain).
        app.add_option("action", action_, "list or explain")->required();
        app.add_option("id", id_,
                       "explain: a rule id (mem.over-limit), catalogue number (P2, X1) or "
                       "perf-hint code (PH001)");
        app.add_option("--area", area_,
                       "Only rules whose id starts with AREA (bench, L2, mem, hints, pmu, cross)");
    }

    int run(Context& context) override {
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        if (action_ != "list" && action_ != "explain") {
            std::string hint =
                text::closest_match(action_, {"list", "explain"}, {.prefix_is_close = true});
            return context.fail(
                Error{fmt::format("unknown rules action '{}'{}; the actions are list and explain",
                                  action_,
                                  hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)),
                      "", 0, ExitCode::InputError});
        }
        if (action_ == "explain") {
            if (id_.empty())
                return context.fail(Error{"explain needs a rule id, catalogue number or hint code",
                                          "", 0, ExitCode::InputError});
            auto found = rules::resolve_id(**catalogue, id_);
            if (found.empty()) {
                if (auto note = render::catalogue_note_report(id_)) return context.emit(*note);
                std::string hint = rules::closest_id(**catalogue, id_);
                return context.fail(Error{
                    fmt::format("no rule '{}' (not a rule id, catalogue number or hint code){}; "
                                "'ptune rules list' shows them all",
                                id_,
                                hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)),
                    "", 0, ExitCode::InputError});
            }
            return context.emit(render::catalogue_explain_report(found));
        }
        if (!id_.empty()) {
            return context.fail(Error{
                fmt::format("'rules list' takes no id (got '{}'); use 'ptune rules explain {}', "
                            "or --area AREA to filter the list",
                            id_, id_),
                "", 0, ExitCode::InputError});
        }
        return context.emit(render::catalogue_list_report(**catalogue, area_));
    }

  private:
    std::string action_;
    std::string id_;
    std::string area_;
};

}  // namespace

std::unique_ptr<Command> make_rules() {
    return std::make_unique<RulesCommand>();
}

}  // namespace ptune::cli
