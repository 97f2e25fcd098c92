// ptune bench-summary LOG|DIR|results.tsv|summary.json ...: effective_us per case, rank and
// slot, from [RUN] report lines or recomputed from [STRACE] markers (spec: bench-log.md).

#include <fmt/format.h>

#include "cli/commands/commands.hpp"
#include "cli/loop_options.hpp"
#include "cli/safety.hpp"
#include "ptune/bench/pipeline.hpp"
#include "ptune/bench/summary.hpp"
#include "ptune/ciresult/inputs.hpp"
#include "ptune/core/handoff.hpp"
#include "ptune/core/terminal.hpp"
#include "ptune/host/facts.hpp"

namespace ptune::cli {

namespace {

class BenchSummaryCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.add_option(
               "inputs", inputs_,
               "Logs, directories, results.tsv or bench-summary JSON; NAME=PATH names the case")
            ->required();
        app.add_option("--case", options_.case_name,
                       "Case name for unlabelled inputs (default: the file name)");
        // Loop facts left unset are read off the log or inferred; stderr says which.
        loop_.add_to(app);
        app.add_flag("--raw", options_.strace.raw,
                     "[STRACE] recomputation: also list raw samples (PYPTO_BENCH_RAW)");
    }

    int run(Context& context) override {
        loop_.apply(options_.strace);
        context.add_labelled_inputs(inputs_);
        // One progress line per large log, on a terminal only (term::Progress decides).
        std::unique_ptr<term::Progress> progress;
        std::string progress_path;
        options_.progress = [&](const std::string& path, std::size_t done, std::size_t total) {
            if (path != progress_path) {
                progress_path = path;
                progress = std::make_unique<term::Progress>(fmt::format("reading {}", path), total,
                                                            context.options.quiet);
            }
            if (done >= total) {
                progress->finish();
            } else {
                progress->update(done);
            }
        };
        const std::string& format = context.options.format;
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        // The formats that print the tables (text, markdown, csv...) need each case's row,
        // notes and rules' inputs, not the case: they are made while the log is read, on this
        // thread, while a second one reads on (core/handoff.hpp).
        const bool tables = format != "json" && format != "run";
        bench::SummaryBuilder& builder = builder_;  // a member: not torn down either
        // The CI results the reader loads for the cases, kept for their tables (read once).
        std::optional<ciresult::KeptResults> kept;
        if (tables) {
            kept.emplace();
            builder.screen_with(**catalogue, bench::kRuleArea);
            auto status = produce_alongside<bench::BenchCase>(
                [&](const bench::CaseSink& sink) {
                    return bench::for_each_bench_case(inputs_, options_, context.diagnostics, sink);
                },
                [&](bench::BenchCase&& bench_case) { builder.add(std::move(bench_case)); },
                // The reader refills one case after another (its blocks' storage kept): it gets
                // back the cases the builder is done with instead of allocating new ones.
                HandoffLimits{.recycle = true});
            progress.reset();
            if (!status) return context.fail(status.error());
        } else {
            // JSON names the suite runs read (their submission.json / history-selection.json).
            if (format == "json") kept.emplace(ciresult::KeptResults::Keep::WithoutSamples);
            auto loaded = bench::load_run(inputs_, options_, context.diagnostics);
            progress.reset();
            if (!loaded) return context.fail(loaded.error());
            cases_ = std::move(*loaded);
        }

        // Host logs among the inputs: losses, bind segments, host-orch shares, phase records.
        host::HostFacts host_facts = host::collect_host_facts(inputs_, context.diagnostics);
        rules::MetricStore store;
        host::publish(host_facts, store);
        // The cases' rules run one case at a time (no metric map per case of a large sweep).
        // A member, like the cases: the process exits without tearing the command down, so a
        // sweep's table is not freed row by row after it was written.
        render::Report& report = report_;
        report = tables ? builder.finish(**catalogue, store, bench::kRuleArea)
                        : bench::build_summary_report(
                              cases_,
                              bench::summary_findings(cases_, **catalogue, store, bench::kRuleArea),
                              false);
        if (tables) {
            for (render::Table& table : host::host_tables(host_facts))
                report.tables.push_back(std::move(table));
            // After produce_alongside() returned: the reading thread is done with `kept`.
            for (render::Table& table : ciresult::tables_for_inputs(inputs_, &*kept))
                report.tables.push_back(std::move(table));  // daily-CI / suite specifics
        } else if (format == "json") {
            if (!host_facts.empty())
                report.data["host"] = host::host_json(host_facts);  // the same tables as data
            // As bench-gate's suite_runs, by input: absent when no suite run was published.
            if (auto runs = ciresult::run_records_for_inputs(inputs_, *kept); !runs.empty())
                report.data["suite_runs"] = std::move(runs);
        }
        int code = context.emit(report, {{"run", bench::make_run_renderer(cases_)},
                                         {"json", bench::make_cases_json_renderer(cases_)}});
        return code != 0 ? code : context.findings_exit(report.findings);
    }

  private:
    std::vector<std::string> inputs_;
    bench::LoadOptions options_;
    LoopOptions loop_;
    std::vector<bench::BenchCase> cases_;
    bench::SummaryBuilder builder_;
    render::Report report_;
};

}  // namespace

std::unique_ptr<Command> make_bench_summary() {
    return std::make_unique<BenchSummaryCommand>();
}

}  // namespace ptune::cli
