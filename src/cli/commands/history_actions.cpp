// ptune history add and confirm: options, report and exit code (history_actions.hpp); the work is
// in ptune/history/pipeline.hpp and confirm.hpp.

#include "cli/commands/history_actions.hpp"

#include "ptune/history/report.hpp"

namespace ptune::cli {

CLI::App* HistoryAdd::add_to(CLI::App& history) {
    auto* add = history.add_subcommand(
        "add", "Record a run: INPUT... (anything bench-summary reads, or its JSON)");
    add->add_option("inputs", inputs_, "Logs, directories, results.tsv, bench-summary JSON")
        ->required();
    add->add_option("--commit", meta_.commit, "Commit the run measured")->required();
    add->add_option("--branch", meta_.branch, "Branch");
    add->add_option("--toolchain", meta_.toolchain,
                    "Toolchain epoch (default: toolchain.epoch of a lane suite-result.json)");
    add->add_option("--device", meta_.device,
                    "Device epoch or platform (default: device.epoch of a lane suite, else "
                    "the platform the input paths name)");
    add->add_option("--source-digest", meta_.source_digest,
                    "The source tree (digest or git tree hash; default: source.tree)");
    add->add_option("--lane", meta_.lane, "Lane (default: lane_id of a lane suite)");
    add->add_option("--contract", meta_.contract,
                    "Case contract of every case (default: each case's contract_id)");
    add->add_option("--lineage", meta_.lineage, "Lineage generation of the source history");
    add->add_option("--meta", labels_, "Free label KEY=VALUE (repeatable)");
    add->add_option("--time", meta_.time,
                    "When the run happened, UTC (2026-09-01T12:00:00Z or @SECONDS; "
                    "default now)");
    add->add_option("--run-id", meta_.run_id,
                    "The run's identity (e.g. CI run id and attempt); default: a digest "
                    "of its content");
    loop_.add_to(*add);

    return add;
}

int HistoryAdd::run(Context& context, const std::string& db, const history::OpenOptions& open) {
    auto labelled = history::add_labels(labels_, meta_);
    if (!labelled) return context.fail(labelled.error());
    context.add_labelled_inputs(inputs_);
    loop_.apply(meta_.loop);
    auto report = history::add_run(db, open, inputs_, meta_, context.diagnostics);
    return report ? context.emit(*report) : context.fail(report.error());
}

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
