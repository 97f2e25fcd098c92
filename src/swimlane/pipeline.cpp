// The swimlane pipeline (see pipeline.hpp): discovery, one loading policy for records, deps.json
// and kernel names, the catalogue's analysis thresholds, analysis and metrics.

#include "ptune/swimlane/pipeline.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ptune/core/io.hpp"
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
    ReadOptions read_options;
    read_options.source_name = records_path;
    read_options.fallback_freq_hz = request.fallback_freq_hz;
    auto capture = read_capture(records->stream(), read_options, diagnostics);
    if (!capture) return capture.error();
    loaded.capture = std::move(*capture);
    loaded.inputs.push_back(records_path);

    bool deps_named = !request.deps.empty();
    loaded.files.deps = deps_named ? request.deps : files.deps;
    if (!loaded.files.deps.empty()) {
        auto deps =
            load_deps(loaded.files.deps, deps_named && request.named_files_required, diagnostics);
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

CaptureAnalysis analyze_capture(const LoadedCapture& loaded, const AnalyzeOptions& options) {
    CaptureAnalysis result;
    result.input =
        make_analyze_input(loaded.capture, loaded.deps_or_null(), loaded.names_or_null());
    result.analysis = analyze_swimlane(result.input, options);
    return result;
}

void publish(const CaptureAnalysis& result, rules::MetricStore& store) {
    publish_metrics(result.analysis, result.input, store);
}

}  // namespace ptune::swimlane
