// The swimlane pipeline (see pipeline.hpp): discovery, one loading policy for records, deps.json
// and kernel names, the catalogue's analysis thresholds, analysis and metrics.

#include "ptune/swimlane/pipeline.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <memory>
#include <system_error>

#include <fmt/format.h>

#include "ptune/core/found_files.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/threads.hpp"
#include "ptune/swimlane/reader.hpp"

namespace ptune::swimlane {

namespace {

// What a capture without a task graph loses, in every consumer.
constexpr std::string_view kNoGraph =
    "no task graph: no dependency arrows, critical path or cube/vector hand-offs";

Error input_error(std::string message, std::string file = "") {
    return Error{std::move(message), std::move(file), 0, ExitCode::InputError};
}

/// Reads deps.json streamed. nullopt with a warning when it cannot be used, unless it was named
/// and must be usable: then the error.
Result<std::optional<Deps>> load_deps(const std::filesystem::path& path, bool required,
                                      Diagnostics& diagnostics) {
    auto input = io::open_input(path.string());
    Result<Deps> deps = input ? read_deps(input->stream(), path.string(), diagnostics)
                              : Result<Deps>(input.error());
    if (deps) return std::optional<Deps>(std::move(*deps));
    if (required) return deps.error();
    diagnostics.warn(deps.error().file.empty() ? path.string() : deps.error().file,
                     deps.error().line,
                     fmt::format("no usable deps.json ({}); {}", deps.error().message, kNoGraph));
    return std::optional<Deps>();
}

/// The host logs of a capture (§1.12.1 step 2): the named ones, else the sorted sibling
/// `host_clock_alignment.*.log`, else the sorted sibling `host.*.log`. A sibling that is a
/// FIFO or device is named in a warning, never opened.
std::vector<std::filesystem::path> host_logs_for(const std::filesystem::path& records,
                                                 const LoadRequest& request,
                                                 Diagnostics& diagnostics) {
    if (!request.host_logs.empty()) return request.host_logs;
    std::vector<std::filesystem::path> alignment, host;
    std::error_code ec;
    std::filesystem::path dir = records.parent_path().empty() ? "." : records.parent_path();
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (!name.ends_with(".log") ||
            !(name.starts_with("host_clock_alignment.") || name.starts_with("host.")) ||
            !io::usable_side_file(it->path(), diagnostics,
                                  "host log not read (no host clock alignment from it)"))
            continue;
        if (name.starts_with("host_clock_alignment.")) alignment.push_back(it->path());
        if (name.starts_with("host.")) host.push_back(it->path());
    }
    std::sort(alignment.begin(), alignment.end());
    std::sort(host.begin(), host.end());
    return alignment.empty() ? host : alignment;
}

/// The host windows and sidecar clock alignment needs; a named log that cannot be read is an
/// error, a sibling one a warning.
Result<HostAlignmentInput> load_host_alignment(const std::filesystem::path& records,
                                               const LoadRequest& request, std::size_t& torn,
                                               Diagnostics& diagnostics) {
    HostAlignmentInput input;
    if (request.paired_window) {
        // Multi-rank: the pairing chose the invocation (l3/host_pairing.hpp).
        input.paired = *request.paired_window;
        input.logs = request.paired_logs;
        input.forced = true;
        return input;
    }
    input.forced = !request.host_logs.empty();
    HostSpanLog spans;
    for (const auto& path : host_logs_for(records, request, diagnostics)) {
        auto log = io::open_input(path.string());
        if (!log) {
            if (input.forced) return log.error();
            diagnostics.warn(path.string(), 0, "host log not readable: " + log.error().message);
            continue;
        }
        read_host_spans(log->stream(), spans);
        input.logs.push_back(path.string());
    }
    torn = spans.torn;
    if (spans.torn)
        diagnostics.warn(fmt::format("{}", fmt::join(input.logs, ", ")), 0,
                         fmt::format("{} [STRACE] record(s) are incomplete and are excluded from "
                                     "clock alignment",
                                     spans.torn));
    input.windows = host_windows(spans.spans);
    std::filesystem::path sidecar = records.parent_path() / "dispatch_identity.json";
    if (io::usable_side_file(sidecar, diagnostics, "dispatch identity not used")) {
        auto text = io::read_file(sidecar.string(), 1u << 20);
        auto identity = text ? read_dispatch_identity(*text, sidecar.string())
                             : Result<DispatchIdentity>(text.error());
        if (identity)
            input.sidecar = *identity;
        else
            diagnostics.warn(sidecar.string(), identity.error().line,
                             "dispatch identity not usable: " + identity.error().message);
    }
    return input;
}

/// Records files from this size on have their phase objects read ahead (RecordsReadAhead): a
/// smaller one is read before a second thread would help.
constexpr std::uintmax_t kReadAheadFrom = 1u << 20;

/// The read-ahead of a records file that is a regular file large enough, reading it through a
/// stream of its own; else null.
std::unique_ptr<RecordsReadAhead> make_read_ahead(const std::string& path) {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec || size < kReadAheadFrom) return nullptr;
    auto file = std::make_shared<std::ifstream>(path, std::ios::binary);
    if (!*file) return nullptr;
    return std::make_unique<RecordsReadAhead>(
        [file](std::uint64_t offset, char* into, std::size_t n) -> std::size_t {
            file->clear();
            if (!file->seekg(static_cast<std::streamoff>(offset))) return 0;
            file->read(into, static_cast<std::streamsize>(n));
            return static_cast<std::size_t>(file->gcount());
        },
        size);
}

/// Stops a read-ahead when it goes out of scope (before the futures that run it are waited for).
struct ReadAheadStop {
    RecordsReadAhead* read_ahead;
    ~ReadAheadStop() {
        if (read_ahead) read_ahead->finish();
    }
};

double rule_param(const rules::Catalogue& catalogue, std::string_view rule,
                  const std::string& param, double fallback) {
    const rules::Rule* found = catalogue.find(rule);
    if (!found) return fallback;
    auto it = found->params.find(param);
    return it == found->params.end() ? fallback : it->second;
}

}  // namespace

Result<Discovery> find_captures(const LoadRequest& request) {
    auto found = discover_captures(request.input);
    if (!found) return found.error();
    if (found->captures.size() > 1 && (!request.deps.empty() || !request.names.empty()))
        return input_error(
            "--deps and --names apply to a single capture; an L3 tree uses the files next to "
            "each rank*/d*/ records");
    return found;
}

Result<CaptureFiles> only_capture(const Discovery& found, const std::string& input) {
    if (found.captures.size() == 1) return found.captures.front();
    std::vector<std::string> labels;
    for (const auto& capture : found.captures)
        labels.push_back(capture.records.parent_path().string());
    return input_error(fmt::format("{} holds {} captures ({}); name the directory of one of them",
                                   input, labels.size(), fmt::join(labels, ", ")));
}

Result<LoadedCapture> load_capture(const CaptureFiles& files, const LoadRequest& request,
                                   Diagnostics& diagnostics) {
    LoadedCapture loaded;
    loaded.files = files;
    const std::string records_path = files.records.string();
    auto records = io::open_input(records_path);
    if (!records) return records.error();
    auto alignment =
        load_host_alignment(files.records, request, loaded.host_spans_torn, diagnostics);
    if (!alignment) return alignment.error();
    ReadOptions read_options;
    read_options.source_name = records_path;
    read_options.fallback_freq_hz = request.fallback_freq_hz;
    read_options.host_alignment = &*alignment;
    // deps.json does not depend on the records: it is read on a second thread while the records
    // are (a tenth of the records' time, off the critical path), into its own diagnostics that
    // follow the records' ones, in the order a sequential read gives.
    bool deps_named = !request.deps.empty();
    loaded.files.deps = deps_named ? request.deps : files.deps;
    Diagnostics deps_diagnostics;
    // (Both on stdin cannot be read at once: then one after the other, as before.)
    const bool stdin_involved = records_path == "-" || loaded.files.deps == "-";
    // The second thread, once deps.json is read, reads the records' phase objects ahead.
    std::unique_ptr<RecordsReadAhead> read_ahead =
        stdin_involved ? nullptr : make_read_ahead(records_path);
    read_options.read_ahead = read_ahead.get();
    threads::Beside<Result<std::optional<Deps>>> deps_read;
    threads::Beside<void> reading_ahead;
    if (!loaded.files.deps.empty())
        deps_read = threads::Beside<Result<std::optional<Deps>>>(
            [&] {
                auto deps = load_deps(loaded.files.deps,
                                      deps_named && (request.named_files_required ||
                                                     io::is_special(loaded.files.deps)),
                                      deps_diagnostics);
                if (read_ahead) read_ahead->run();
                return deps;
            },
            stdin_involved);
    else if (read_ahead)
        try {
            reading_ahead = threads::Beside<void>([&] { read_ahead->run(); }, false);
        } catch (const std::system_error&) {
            read_options.read_ahead = nullptr;
        }
    // Whatever ends this function stops the read-ahead first, so that the futures' waits end.
    const ReadAheadStop stop_reading_ahead{read_ahead.get()};
    auto capture = read_capture(records->stream(), read_options, diagnostics);
    if (!capture) return capture.error();  // (the future's destructor waits for deps.json)
    loaded.capture = std::move(*capture);
    loaded.inputs.push_back(records_path);
    // The logs count as inputs only when a placement came from them.
    if (loaded.capture.clock_alignment.source == "host logs")
        for (const auto& log : alignment->logs) loaded.inputs.push_back(log);

    if (deps_read.valid()) {
        auto deps = deps_read.get();
        diagnostics.append(deps_diagnostics);
        if (!deps) return deps.error();
        loaded.deps = std::move(*deps);
    } else if (loaded.capture.embedded_edges.empty()) {
        diagnostics.warn(records_path, 0,
                         fmt::format("no deps.json next to the records; {} (capture one with "
                                     "--enable-dep-gen and pass --deps FILE)",
                                     kNoGraph));
    }
    if (loaded.deps) {
        loaded.inputs.push_back(loaded.files.deps.string());
        if (std::size_t missing = apply_deps(loaded.capture, *loaded.deps))
            diagnostics.warn(loaded.files.deps.string(), 0,
                             fmt::format("{} task id(s) with rows are missing from deps.json; "
                                         "they keep func_id -1 (label task(...))",
                                         missing));
    } else {
        loaded.files.deps.clear();
    }

    const std::filesystem::path& found_names =
        files.name_map.empty() ? files.kernel_config : files.name_map;
    auto names =
        load_artifact_names(request.names, found_names, request.named_files_required, diagnostics);
    if (!names) return names.error();
    loaded.names = std::move(*names);
    loaded.files.name_map.clear();
    if (loaded.names) {
        loaded.files.name_map = loaded.names->source;
        loaded.inputs.push_back(loaded.names->source);
    }
    if (request.host_phases) {
        loaded.host_phases = load_host_phase_lanes(files.records, loaded.capture, diagnostics);
        if (loaded.host_phases) loaded.inputs.push_back(loaded.host_phases->source);
    }
    return loaded;
}

AnalyzeOptions analyze_options(const rules::Catalogue& catalogue) {
    AnalyzeOptions options;
    options.target_kernel_us =
        rule_param(catalogue, "L2.kernels-too-small", "target_us", options.target_kernel_us);
    double min_tasks = rule_param(catalogue, "L2.dispatch-trail", "min_tasks",
                                  static_cast<double>(options.trail_min_tasks));
    // A --rules file may say anything; a count below 0 or NaN means "every trail".
    options.trail_min_tasks =
        min_tasks >= 1 ? static_cast<std::size_t>(std::min(min_tasks, 1e9)) : 0;
    return options;
}

Capture run_capture(const Capture& capture, std::size_t run) {
    Capture out = capture;
    out.tasks.clear();
    out.row_run.clear();
    for (std::size_t i = 0; i < capture.tasks.size(); ++i)
        if (capture.row_run[i] == run)
            out.tasks.push_back(capture.tasks[i]), out.row_run.push_back(0);
    out.scheduler_phases.clear();
    for (const SchedulerPhase& p : capture.scheduler_phases)
        if (run_of_record(capture, p.run_epoch, p.start_ns) == run)
            out.scheduler_phases.push_back(p);
    // Host records are on the host axis, not the runs' device times: kept only with an epoch.
    out.orchestrator_phases.clear();
    for (const OrchestratorPhase& p : capture.orchestrator_phases)
        if ((capture.runs.size() == 1 || !capture.host_orchestration || p.run_epoch != kNoEpoch) &&
            run_of_submit(capture, p.run_epoch, p.start_ns) == run)
            out.orchestrator_phases.push_back(p);
    out.runs = {capture.runs.at(run)};
    return out;
}

std::vector<CaptureAnalysis> analyze_runs(const LoadedCapture& loaded,
                                          const AnalyzeOptions& options) {
    std::vector<CaptureAnalysis> results;
    const Capture& capture = loaded.capture;
    GraphInput graph = loaded.deps ? make_graph_input(*loaded.deps) : GraphInput{};
    auto analyze = [&](const Capture& one, std::string label) {
        CaptureAnalysis result;
        result.input = make_analyze_input(one, loaded.deps_or_null(), loaded.names_or_null());
        result.analysis = analyze_swimlane(result.input, options);
        result.graph = analyze_schedule_graph(result.input, graph, result.analysis);
        result.run_label = std::move(label);
        results.push_back(std::move(result));
    };
    if (capture.runs.size() <= 1) {
        analyze(capture, "");
        return results;
    }
    for (std::size_t k = 0; k < capture.runs.size(); ++k) {
        const RunInfo& run = capture.runs[k];
        analyze(run_capture(capture, k),
                run.epoch != kNoEpoch ? fmt::format("run_epoch {}", run.epoch)
                                      : fmt::format("run {} of {}", k + 1, capture.runs.size()));
    }
    return results;
}

CaptureAnalysis analyze_capture(const LoadedCapture& loaded, const AnalyzeOptions& options) {
    // Several runs: the last one (analyze_runs analyses each once; a few runs per file at most).
    return std::move(analyze_runs(loaded, options).back());
}

void publish(const CaptureAnalysis& result, rules::MetricStore& store) {
    publish_metrics(result.analysis, result.input, store);
    publish_schedule_graph(result.graph, result.analysis, store);
}

TraceSource trace_source(const LoadedCapture& loaded) {
    TraceSource source;
    source.capture = &loaded.capture;
    source.deps = loaded.deps_or_null();
    source.names = loaded.names_or_null();
    source.label = loaded.files.label;
    source.inputs = loaded.inputs;
    // host_phase_records.jsonl beside the capture (already among the inputs).
    if (loaded.host_phases) source.host_phases = &*loaded.host_phases;
    return source;
}

}  // namespace ptune::swimlane
