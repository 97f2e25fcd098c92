// ptune swimlane-merge RECORDS|DIR -o OUT: swimlane records + deps.json + kernel names → one
// Perfetto trace (JSON, gzip JSON or protobuf) and the converter's console summary, all made by
// l3/pipeline.hpp (load_merge_inputs, write_merge_trace, merge_summary_alongside).

#include <unistd.h>

#include <iostream>

#include "cli/commands/commands.hpp"
#include "cli/commands/l3_tree.hpp"
#include "cli/safety.hpp"
#include "ptune/core/terminal.hpp"
#include "ptune/l3/pipeline.hpp"
#include "ptune/swimlane/pipeline.hpp"
#include "ptune/swimlane/trace.hpp"

namespace ptune::cli {

namespace {

class SwimlaneMergeCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app_ = &app;
        app.add_option("input", input_,
                       "Records file ('-' is stdin) (chip_/l2_swimlane_records.json, "
                       "l2_perf_records*.json) or a directory: dfx_outputs/, "
                       "build_output/<Program>_<ts>/, build_output/ "
                       "(newest run), or an L3 tree with rank*/d*/")
            ->required();
        app.add_option("--deps", deps_path_, "deps.json (default: the one next to the records)");
        app.add_option("--names", names_path_, "name_map_*.json with func_id → kernel name");
        app.add_option(
            "-k,--kernel-config", kernel_config_path_,
            "kernel_config.py whose KERNELS lines give the names (read as text, never executed)");
        app.add_option("--freq", freq_hz_,
                       "Clock frequency in Hz for captures that lack metadata.clock_freq_hz (a2a3 "
                       "50000000, a5 1000000000); never overrides the file")
            ->check(positive_number());
        app.add_option("--align", align_,
                       "Time axis of several captures (L3 tree): start = each capture starts at 0 "
                       "(default); absolute = one origin, the earliest raw timestamp (only for "
                       "captures sharing one counter; host-orchestration captures align on the "
                       "host clock)")
            ->check(CLI::IsMember({"start", "absolute"}));
        app.add_option("--host-log", host_logs_,
                       "Host log(s) placing a host_build_graph level-3/4 capture on the host clock "
                       "by span containment (default: the sibling host_clock_alignment.*.log, else "
                       "host.*.log); forces a fresh alignment. Upstream writes the result back "
                       "into the records file; ptune reports it and never writes its input");
        app.add_flag("--overhead", overhead_,
                     "Add the upstream overhead counters on pid 2 (oh_aic_idle … oh_has_overhead: "
                     "idle cores, ready but undispatched tasks); needs deps.json");
        app.add_option("--flows", flows_,
                       "Dependency arrows: instance = one per anchor pair, as upstream (default); "
                       "block = one per deps.json edge (SPMD blocks, not their instances); none")
            ->check(CLI::IsMember({"instance", "block", "none"}));
        l3_.add_to(app);
        app.add_option("--rank-pid", rank_pids_,
                       "L3 tree with --dispatch / --dispatch-id: pin rank RANK to the host "
                       "invocation of process PID (RANK=PID when that pid ran one invocation, else "
                       "RANK=PID:INV) instead of pairing by sidecar or device-window fit");
    }

    int run(Context& context) override {
        const std::string& format = context.options.format;
        const std::string& output = context.options.output;
        bool trace_format = format == "perfetto" || format == "proto";
        // `-o -` (given, not the default) puts the trace itself on stdout; the summary then
        // goes to stderr so that the trace stays clean.
        bool wants_trace = output != "-" || (app_->count("--output") > 0 && trace_format);
        if (!wants_trace && trace_format)
            return context.fail(
                Error{"swimlane-merge writes the trace to a file: pass -o OUT (.json, .json.gz, or "
                      ".pftrace with --format proto), or -o - for stdout",
                      "", 0, ExitCode::InputError});
        l3::Tree tree;
        l3::MultiRankRequest request;
        swimlane::LoadRequest& load = request.base;
        load.input = input_;
        load.deps = deps_path_;
        // -k is the explicit names file when --names is not given (swimlane.md §4.3).
        load.names = !names_path_.empty() ? names_path_ : kernel_config_path_;
        if (freq_hz_ > 0) load.fallback_freq_hz = freq_hz_;
        load.host_logs.assign(host_logs_.begin(), host_logs_.end());
        if (Flow flow = l3_merge_request(context, l3_, rank_pids_, tree, request); flow.stopped())
            return flow.exit_code();
        auto inputs = l3::load_merge_inputs(request, context.diagnostics);
        if (!inputs) return context.fail(inputs.error());
        context.add_inputs(inputs->input_files());
        const bool verbose = context.options.verbose > 0;
        const bool trace_on_stdout = wants_trace && output == "-";
        threads::Beside<std::string> summary;
        if (!trace_on_stdout)
            summary = l3::merge_summary_alongside(*inputs, format == "json", input_,
                                                  wants_trace ? output : std::string(),
                                                  verbose && !inputs->merged, STDOUT_FILENO);
        if (Flow flow = wants_trace ? write(*inputs, context) : Flow::next(); flow.stopped())
            return flow.exit_code();
        context.flush_diagnostics();
        if (trace_on_stdout) {
            std::cerr << l3::merge_console(*inputs, input_, "<stdout>", verbose, STDERR_FILENO);
            return 0;
        }
        auto out = context.open_output("-");
        if (!out) return context.fail(out.error());
        (*out)->stream() << summary.get();
        if (auto status = (*out)->commit(); !status) return context.fail(status.error());
        return 0;
    }

  private:
    Flow write(const l3::MergeInputs& inputs, Context& context) {
        const std::string& output = context.options.output;
        swimlane::TraceOptions options =
            swimlane::trace_options(context.options.format, output, align_, flows_, overhead_);
        auto out = context.open_output(output);
        if (!out) return Flow::stop(context.fail(out.error()));
        if (auto status = l3::write_merge_trace(inputs, options, (*out)->stream(), output,
                                                context.options.verbose > 0, context.diagnostics);
            !status) {
            // A failed write (full disk, file-size limit) is reported with the output's path,
            // not as a compression failure.
            if (!(*out)->stream().good()) {
                if (auto committed = (*out)->commit(); !committed)
                    return Flow::stop(context.fail(committed.error()));
            }
            return Flow::stop(context.fail(status.error()));
        }
        if (auto status = (*out)->commit(); !status)
            return Flow::stop(context.fail(status.error()));
        return Flow::next();
    }

    CLI::App* app_ = nullptr;
    std::string input_, deps_path_, names_path_, kernel_config_path_;
    std::uint64_t freq_hz_ = 0;
    std::string align_ = "start", flows_ = "instance";
    bool overhead_ = false;
    L3Options l3_;
    std::vector<std::string> host_logs_, rank_pids_;
};

}  // namespace

std::unique_ptr<Command> make_swimlane_merge() {
    return std::make_unique<SwimlaneMergeCommand>();
}

}  // namespace ptune::cli
