// ptune history confirm: options, report and exit code (history_confirm.hpp); the work is in
// ptune/history/confirm.hpp.

#include "cli/commands/history_confirm.hpp"

namespace ptune::cli {

CLI::App* HistoryConfirm::add_to(CLI::App& history) {
    auto* confirm = history.add_subcommand(
        "confirm",
        "Confirm a flagged regression: four runs PARENT CANDIDATE CANDIDATE PARENT (inputs or "
        "run:N)");
    confirm
        ->add_option("runs", request_.runs,
                     "The four runs in ABBA order: inputs as history add reads them (a lane "
                     "suite-result.json, a journal...) or run:N of the history")
        ->required();
    confirm->add_option("--case", request_.only, "Only this case (default: every shared case)");
    confirm->add_option("--min-delta-us", request_.min_delta_us,
                        "Absolute threshold: both candidates slower than both parents by more "
                        "than this (µs, default 0.5)");
    confirm->add_option("--lineage", request_.meta.lineage,
                        "Lineage generation of file runs (run:N keep their own)");
    confirm->add_option("--toolchain", request_.meta.toolchain,
                        "Toolchain epoch of file runs that carry none");
    confirm->add_option("--device", request_.meta.device,
                        "Device epoch of file runs that carry none");
    return confirm;
}

int HistoryConfirm::run(Context& context, const std::string& db, const history::OpenOptions& open) {
    request_.location = db;
    request_.open = open;
    context.add_labelled_inputs(request_.runs);
    auto result = history::confirm(request_, context.diagnostics);
    if (!result) return context.fail(result.error());
    if (int code = context.emit(history::confirm_report(*result)); code != 0) return code;
    return result->confirmed() ? static_cast<int>(ExitCode::Findings) : 0;
}

}  // namespace ptune::cli
