// ptune swimlane-merge RECORDS|DIR -o OUT: swimlane records + deps.json + kernel names → one
// Perfetto trace (JSON, gzip JSON or protobuf), plus the upstream converter's console summary.
// Loading and the summaries are the swimlane domain's (swimlane/pipeline.hpp, report.hpp).

#include <unistd.h>

#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.hpp"
#include "cli/commands/l3_tree.hpp"
#include "cli/safety.hpp"
#include "ptune/core/terminal.hpp"
#include "ptune/l3/pipeline.hpp"
#include "ptune/swimlane/console.hpp"
#include "ptune/swimlane/host_phase_lanes.hpp"
#include "ptune/swimlane/pipeline.hpp"
#include "ptune/swimlane/report.hpp"
#include "ptune/swimlane/summary.hpp"
#include "ptune/swimlane/trace.hpp"

namespace ptune::cli {

namespace {

using namespace ptune::swimlane;

class SwimlaneMergeCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app_ = &app;
        app.add_option("input", input_,
                       "Records file ('-' is stdin) (chip_/l2_swimlane_records.json, "
                       "l2_perf_records*.json) or a "
                       "directory: dfx_outputs/, build_output/<Program>_<ts>/, build_output/ "
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
        bool explicit_stdout = output == "-" && app_->count("--output") > 0;
        bool wants_trace = output != "-" || (explicit_stdout && trace_format);
        if (!wants_trace && trace_format)
            return context.fail(
                Error{"swimlane-merge writes the trace to a file: pass -o OUT (.json, .json.gz, or "
                      ".pftrace with --format proto), or -o - for stdout",
                      "", 0, ExitCode::InputError});

        LoadRequest request;
        request.input = input_;
        request.deps = deps_path_;
        // -k is the explicit names file when --names is not given (swimlane.md §4.3).
        request.names = !names_path_.empty() ? names_path_ : kernel_config_path_;
        if (freq_hz_ > 0) request.fallback_freq_hz = freq_hz_;
        request.named_files_required = false;  // as the converter: they only decorate the trace
        request.host_logs.assign(host_logs_.begin(), host_logs_.end());
        request.host_phases = true;  // host phase lanes in the trace
        auto found = find_captures(request);
        if (!found) return context.fail(found.error());
        for (const auto& note : found->notes) context.diagnostics.note(input_, 0, note);
        if (!rank_pids_.empty() && !l3_.selected())
            return context.fail(
                Error{"--rank-pid applies to an L3 tree with --dispatch or "
                      "--dispatch-id (upstream-2026-09.md §1.14)",
                      input_, 0, ExitCode::InputError});
        l3::Tree tree;
        if (l3_.selected()) {  // one dispatch of an L3 tree (upstream-2026-09.md §1.14)
            if (!deps_path_.empty() || !request.names.empty())
                return context.fail(
                    Error{"--deps, --names and -k are refused with --dispatch / "
                          "--dispatch-id (per-rank files are used)",
                          input_, 0, ExitCode::InputError});
            auto selected = l3_merge_captures(context, input_, l3_, &tree);
            if (!selected) return context.fail(selected.error());
            found->captures = std::move(*selected);
        }

        std::vector<LoadedCapture> loaded;
        if (l3_.selected()) {
            if (int status = merge_dispatch(context, request, tree, found->captures, loaded);
                status >= 0)
                return status;
        }
        if (!merged_) {
            loaded.reserve(found->captures.size());
            for (const CaptureFiles& files : found->captures) {
                auto one = load_capture(files, request, context.diagnostics);
                if (one)
                    loaded.push_back(std::move(*one));
                else
                    context.diagnostics.error(one.error().file, one.error().line,
                                              one.error().message);
            }
        }
        if (loaded.empty()) return context.fail(Error{"nothing usable to convert", input_, 0});
        std::vector<std::string> all_inputs;
        for (const auto& l : loaded)
            all_inputs.insert(all_inputs.end(), l.inputs.begin(), l.inputs.end());
        context.add_inputs(all_inputs);
        // Upstream's converter warns while drawing the Worker View (§1.13).
        for (const LoadedCapture& l : loaded)
            for (std::uint64_t id : dummies_without_marker(l.capture, l.deps_or_null()))
                context.diagnostics.warn(l.files.records.string(), 0,
                                         dummy_without_marker_message(l.capture, id));

        if (wants_trace) {
            if (int status = write(loaded, context); status != 0) return status;
        }
        context.flush_diagnostics();
        if (wants_trace && output == "-") {
            if (context.options.verbose > 0)
                std::cerr << fold_summary(reading_line(), term::output_width(STDERR_FILENO));
            if (merged_)
                write_multi_rank_summary(std::cerr, "<stdout>", term::output_width(STDERR_FILENO));
            else
                write_merge_summary(std::cerr, loaded, input_, "<stdout>",
                                    term::output_width(STDERR_FILENO));
            return 0;
        }
        return print_summary(loaded, context, wants_trace ? output : std::string());
    }

  private:
    /// §1.14: pairs, places and lays out the selected ranks through the l3 pipeline when the
    /// tree has host logs; returns an exit status to stop with, or −1 to go on (loaded filled,
    /// or the plain merge when there are no host logs).
    int merge_dispatch(Context& context, const LoadRequest& request, const l3::Tree& tree,
                       const std::vector<CaptureFiles>& captures,
                       std::vector<LoadedCapture>& loaded) {
        l3::MultiRankRequest merge;
        merge.tree = &tree;
        merge.captures = captures;
        merge.base = request;
        merge.rank_pids = rank_pids_;
        merge.dispatch = l3_.dispatch;
        merge.dispatch_id = l3_.dispatch_id;
        merge.input = input_;
        auto merged = l3::merge_ranks(merge, context.diagnostics);
        if (!merged) return context.fail(merged.error());
        if (!*merged) return -1;
        merged_ = std::move(**merged);
        loaded = std::move(merged_->loaded);
        return -1;
    }

    void write_multi_rank_summary(std::ostream& os, const std::string& trace_path,
                                  std::size_t width) const {
        os << fold_summary(l3::multi_rank_summary(*merged_, input_, trace_path), width);
    }

    int write(const std::vector<LoadedCapture>& loaded, Context& context) {
        std::vector<TraceSource> sources;
        for (const LoadedCapture& l : loaded) sources.push_back(trace_source(l));
        TraceOptions options;
        const std::string& output = context.options.output;
        if (context.options.format == "proto")
            options.format = TraceFormat::Proto;
        else if (output.ends_with(".gz"))
            options.format = TraceFormat::JsonGzip;
        options.align = align_ == "absolute" ? TimeAlign::Absolute : TimeAlign::Start;
        if (merged_) options.multi_rank = &merged_->layout;
        options.overhead = overhead_;
        options.flows = flows_ == "block"  ? FlowMode::Block
                        : flows_ == "none" ? FlowMode::None
                                           : FlowMode::Instance;
        if (overhead_)
            for (const TraceSource& source : sources)
                if (!has_task_graph(source))
                    context.diagnostics.warn(
                        source.inputs.front(), 0,
                        "--overhead needs the task graph of deps.json (ready times come from the "
                        "predecessors); no overhead counters for this capture");
        bool binary = options.format != TraceFormat::Json;
        auto out = context.open_output(output, binary);
        if (!out) return context.fail(out.error());
        TraceCounts counts;
        if (auto status = write_trace(sources, options, (*out)->stream(), counts); !status) {
            // A failed write (full disk, file-size limit) is reported with the output's path,
            // not as a compression failure.
            if (!(*out)->stream().good()) {
                if (auto committed = (*out)->commit(); !committed)
                    return context.fail(committed.error());
            }
            return context.fail(status.error());
        }
        if (auto status = (*out)->commit(); !status) return context.fail(status.error());
        if (counts.dependency_edges_missing)
            context.diagnostics.note(
                output, 0,
                fmt::format("{} deps edge(s) name tasks without a slice in this capture; no arrow "
                            "drawn for them",
                            counts.dependency_edges_missing));
        if (counts.flows_unbound)
            context.diagnostics.note(
                output, 0,
                fmt::format("{} arrow(s) left out: no slice could hold one of their ends in time "
                            "order",
                            counts.flows_unbound));
        if (context.options.verbose > 0)
            context.diagnostics.note(
                output, 0,
                fmt::format("{} slices, {} counter samples, {} arrows, {} overflow lane(s)",
                            counts.slices, counts.counters, counts.flows, counts.overflow_lanes));
        return 0;
    }

    int print_summary(const std::vector<LoadedCapture>& loaded, Context& context,
                      const std::string& trace_path) {
        auto out = context.open_output("-");
        if (!out) return context.fail(out.error());
        if (context.options.format == "json") {
            render::Report report = build_merge_report(loaded, trace_path);
            if (merged_)
                report.data["multi_rank"] = nlohmann::json::parse(merged_->layout.metadata_json);
            render::write_json(render::to_json(report), (*out)->stream());
            (*out)->stream() << '\n';
        } else if (merged_) {
            write_multi_rank_summary((*out)->stream(), trace_path,
                                     term::output_width(STDOUT_FILENO));
        } else {
            if (context.options.verbose > 0)
                (*out)->stream() << fold_summary(reading_line(), term::output_width(STDOUT_FILENO));
            // Folded to the width like every text output (docs/DEVELOPING.md).
            write_merge_summary((*out)->stream(), loaded, input_, trace_path,
                                term::output_width(STDOUT_FILENO));
        }
        if (auto status = (*out)->commit(); !status) return context.fail(status.error());
        return 0;
    }

    /// The converter's first console line under -v (§1.13).
    std::string reading_line() const { return "Reading performance data from: " + input_ + "\n"; }

    CLI::App* app_ = nullptr;
    std::string input_;
    std::string deps_path_;
    std::string names_path_;
    std::string kernel_config_path_;
    std::uint64_t freq_hz_ = 0;
    std::string align_ = "start";
    bool overhead_ = false;
    std::string flows_ = "instance";
    L3Options l3_;
    std::vector<std::string> host_logs_;
    std::vector<std::string> rank_pids_;
    std::optional<l3::MultiRankMerge> merged_;  ///< the ranks placed and laid out (§1.14)
};

}  // namespace

std::unique_ptr<Command> make_swimlane_merge() {
    return std::make_unique<SwimlaneMergeCommand>();
}

}  // namespace ptune::cli
