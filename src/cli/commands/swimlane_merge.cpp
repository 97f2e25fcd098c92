// ptune swimlane-merge RECORDS|DIR -o OUT: swimlane records + deps.json + kernel names → one
// Perfetto trace (JSON, gzip JSON or protobuf), plus the upstream converter's console summary.

#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "cli/commands/commands.hpp"
#include "ptune/swimlane/discover.hpp"
#include "ptune/swimlane/reader.hpp"
#include "ptune/swimlane/summary.hpp"
#include "ptune/swimlane/trace.hpp"

namespace ptune::cli {

namespace {

namespace fs = std::filesystem;
using namespace ptune::swimlane;

/// Everything read for one capture; kept alive while the trace is written.
struct Loaded {
    CaptureFiles files;
    Capture capture;
    std::optional<Deps> deps;
    std::optional<NameMap> names;
    std::vector<std::string> inputs;
};

class SwimlaneMergeCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.add_option("input", input_,
                       "Records file (chip_/l2_swimlane_records.json, l2_perf_records*.json) or a "
                       "directory: "
                       "dfx_outputs/, build_output/<Program>_<ts>/, build_output/ (newest run), or "
                       "an L3 tree "
                       "with rank*/d*/")
            ->required();
        app.add_option("--deps", deps_path_, "deps.json (default: the one next to the records)");
        app.add_option("--names", names_path_, "name_map_*.json with func_id → kernel name");
        app.add_option(
            "-k,--kernel-config", kernel_config_path_,
            "kernel_config.py whose KERNELS lines give the names (read as text, never executed)");
        app.add_option("--freq", freq_hz_,
                       "Clock frequency in Hz for captures that lack metadata.clock_freq_hz (a2a3 "
                       "50000000, a5 "
                       "1000000000); never overrides the file")
            ->check(CLI::PositiveNumber);
        app.add_option("--align", align_,
                       "Time axis of several captures (L3 tree): start = each capture starts at 0 "
                       "(default); absolute = one origin, the earliest raw timestamp (only for "
                       "captures sharing one counter; host-orchestration captures align on the "
                       "host clock)")
            ->check(CLI::IsMember({"start", "absolute"}));
        app.add_flag("--overhead", overhead_,
                     "Add the upstream overhead counters on pid 2 (oh_aic_idle … oh_has_overhead: "
                     "idle cores, ready but undispatched tasks); needs deps.json");
    }

    int run(Context& context) override {
        const std::string& format = context.options.format;
        const std::string& output = context.options.output;
        bool wants_trace = output != "-";
        if (!wants_trace && (format == "perfetto" || format == "proto"))
            return context.fail(
                Error{"swimlane-merge writes the trace to a file: pass -o OUT (.json, .json.gz, or "
                      ".pftrace with --format proto)",
                      "", 0, ExitCode::InputError});

        auto found = discover_captures(input_);
        if (!found) return context.fail(found.error());
        for (const auto& note : found->notes) context.diagnostics.note(input_, 0, note);
        if (found->captures.size() > 1 && (!deps_path_.empty() || !names_path_.empty()))
            return context.fail(
                Error{"--deps and --names apply to a single capture; an L3 tree uses the files "
                      "next to each rank*/d*/ records",
                      "", 0, ExitCode::InputError});

        std::vector<Loaded> loaded;
        loaded.reserve(found->captures.size());
        for (const CaptureFiles& files : found->captures) {
            auto one = load(files, context);
            if (one) loaded.push_back(std::move(*one));
        }
        if (loaded.empty()) return context.fail(Error{"nothing usable to convert", input_, 0});
        std::vector<std::string> all_inputs;
        for (const auto& l : loaded)
            all_inputs.insert(all_inputs.end(), l.inputs.begin(), l.inputs.end());
        context.add_inputs(all_inputs);

        if (wants_trace) {
            if (int status = write(loaded, context); status != 0) return status;
        }
        context.flush_diagnostics();
        return print_summary(loaded, context, wants_trace ? output : std::string());
    }

  private:
    std::optional<Loaded> load(const CaptureFiles& files, Context& context) {
        Loaded l;
        l.files = files;
        std::string records_path = files.records.string();
        // Records and deps are streamed: a capture's text is never held whole.
        auto records = io::open_input(records_path);
        if (!records) {
            context.diagnostics.error(records_path, 0, records.error().message);
            return std::nullopt;
        }
        ReadOptions options;
        options.source_name = records_path;
        if (freq_hz_ > 0) options.fallback_freq_hz = freq_hz_;
        auto capture = read_capture(records->stream(), options, context.diagnostics);
        if (!capture) {
            context.diagnostics.error(capture.error().file, capture.error().line,
                                      capture.error().message);
            return std::nullopt;
        }
        l.capture = std::move(*capture);
        l.inputs.push_back(records_path);

        std::string deps_path = !deps_path_.empty() ? deps_path_ : files.deps.string();
        if (deps_path.empty()) {
            if (l.capture.embedded_edges.empty())
                context.diagnostics.warn(
                    records_path, 0,
                    "no deps.json next to the records; the trace has no dependency arrows "
                    "(capture one with --enable-dep-gen and pass --deps FILE)");
        } else if (auto deps_input = io::open_input(deps_path); !deps_input) {
            context.diagnostics.warn(
                deps_path, 0,
                fmt::format("no usable deps.json ({}); the trace has no dependency arrows",
                            deps_input.error().message));
        } else if (auto deps = read_deps(deps_input->stream(), deps_path, context.diagnostics);
                   !deps) {
            context.diagnostics.warn(
                deps.error().file, deps.error().line,
                fmt::format("{}; the trace has no dependency arrows", deps.error().message));
        } else {
            l.deps = std::move(*deps);
            l.inputs.push_back(deps_path);
            if (std::size_t missing = apply_deps(l.capture, *l.deps))
                context.diagnostics.warn(
                    deps_path, 0,
                    fmt::format("{} task id(s) with rows are missing from deps.json; they keep "
                                "func_id -1 (label task(...))",
                                missing));
        }

        // Name precedence as upstream: --names, else the sibling name map unless -k is given, else
        // kernel_config.py (-k, or the one found at the run root).
        std::string names_path = names_path_;
        if (names_path.empty() && kernel_config_path_.empty()) names_path = files.name_map.string();
        if (!names_path.empty()) {
            auto names_text = io::read_file(names_path);
            auto names = names_text ? read_name_map(*names_text, names_path, context.diagnostics)
                                    : Result<NameMap>(names_text.error());
            if (names) {
                l.names = std::move(*names);
                l.inputs.push_back(names_path);
            } else {
                context.diagnostics.warn(
                    names.error().file.empty() ? names_path : names.error().file,
                    names.error().line, names.error().message + "; kernel names not used");
            }
        }
        std::string config_path =
            !kernel_config_path_.empty() ? kernel_config_path_ : files.kernel_config.string();
        if (!l.names && !config_path.empty()) {
            if (auto config_text = io::read_file(config_path)) {
                l.names = read_kernel_config(*config_text, config_path, context.diagnostics);
                l.inputs.push_back(config_path);
            } else {
                context.diagnostics.warn(config_path, 0, config_text.error().message);
            }
        }
        return l;
    }

    int write(const std::vector<Loaded>& loaded, Context& context) {
        std::vector<TraceSource> sources;
        for (const Loaded& l : loaded) {
            TraceSource source;
            source.capture = &l.capture;
            source.deps = l.deps ? &*l.deps : nullptr;
            source.names = l.names ? &*l.names : nullptr;
            source.label = l.files.label;
            source.inputs = l.inputs;
            sources.push_back(std::move(source));
        }
        TraceOptions options;
        const std::string& output = context.options.output;
        if (context.options.format == "proto")
            options.format = TraceFormat::Proto;
        else if (output.ends_with(".gz"))
            options.format = TraceFormat::JsonGzip;
        options.align = align_ == "absolute" ? TimeAlign::Absolute : TimeAlign::Start;
        options.overhead = overhead_;
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
        if (auto status = write_trace(sources, options, (*out)->stream(), counts); !status)
            return context.fail(status.error());
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

    int print_summary(const std::vector<Loaded>& loaded, Context& context,
                      const std::string& trace_path) {
        auto out = context.open_output("-");
        if (!out) return context.fail(out.error());
        std::ostream& os = (*out)->stream();
        if (context.options.format == "json") {
            render::Report report;
            report.command = "swimlane-merge";
            report.include_findings_in_json = false;
            nlohmann::json captures = nlohmann::json::array();
            for (const Loaded& l : loaded) {
                nlohmann::json entry =
                    summary_to_json(summarize(l.capture, l.names ? &*l.names : nullptr));
                entry["label"] = l.files.label;
                entry["inputs"] = l.inputs;
                entry["dropped_rows"] = l.capture.dropped.total();
                entry["truncated"] = l.capture.truncated;
                captures.push_back(std::move(entry));
            }
            report.data["trace"] =
                trace_path.empty() ? nlohmann::json() : nlohmann::json(trace_path);
            report.data["captures"] = std::move(captures);
            render::write_json(render::to_json(report), os);
            os << '\n';
        } else {
            if (!trace_path.empty()) {
                os << "\n\u2713 Conversion complete\n  Input:  " << input_
                   << "\n  Output: " << trace_path
                   << "\n\nTo visualize: Open https://ui.perfetto.dev/ and drag in " << trace_path
                   << "\n\n";
            }
            for (const Loaded& l : loaded) {
                if (loaded.size() > 1)
                    os << "Capture " << l.files.label << " (" << l.files.records.string() << ")\n";
                os << format_summary(summarize(l.capture, l.names ? &*l.names : nullptr)) << '\n';
            }
            os << "Scheduler-overhead deep-dive: ptune swimlane-analyze " << input_ << '\n';
        }
        if (auto status = (*out)->commit(); !status) return context.fail(status.error());
        return 0;
    }

    std::string input_;
    std::string deps_path_;
    std::string names_path_;
    std::string kernel_config_path_;
    std::uint64_t freq_hz_ = 0;
    std::string align_ = "start";
    bool overhead_ = false;
};

}  // namespace

std::unique_ptr<Command> make_swimlane_merge() {
    return std::make_unique<SwimlaneMergeCommand>();
}

}  // namespace ptune::cli
