// The core swimlane trace pipeline (pipeline.hpp): which file a folder means (§4.1), the label
// and its kernel name, load, and the `pipe.*` metrics.

#include "ptune/pipetrace/pipeline.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "ptune/core/io.hpp"

namespace ptune::pipetrace {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kFolderPrefix = "core_swimlane_";
constexpr std::string_view kPerfettoSuffix = "_trace_perfetto.json";
constexpr std::string_view kTraceSuffix = "_trace.json";

bool name_ends_with(std::string_view text, std::string_view tail) {
    return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

bool all_ascii_digits(std::string_view text) {
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// `<label>` of `core_swimlane_<label>_<YYYYMMDD>_<HHMMSS>`; empty for other names.
std::string label_of_folder(std::string_view name) {
    if (name.rfind(kFolderPrefix, 0) != 0) return "";
    name.remove_prefix(kFolderPrefix.size());
    if (name.size() > 16 && name[name.size() - 16] == '_' && name[name.size() - 7] == '_' &&
        all_ascii_digits(name.substr(name.size() - 15, 8)) &&
        all_ascii_digits(name.substr(name.size() - 6)))
        name.remove_suffix(16);
    return std::string(name);
}

bool is_core_swimlane_folder(const fs::path& path) {
    std::error_code ec;
    return fs::is_directory(path, ec) && label_of_folder(path.filename().string()) != "";
}

}  // namespace

std::string label_of(const fs::path& path) {
    std::string name = path.filename().string();
    if (name_ends_with(name, kPerfettoSuffix))
        return name.substr(0, name.size() - kPerfettoSuffix.size());
    if (name_ends_with(name, kTraceSuffix))
        return name.substr(0, name.size() - kTraceSuffix.size());
    for (fs::path folder = path; !folder.empty() && folder != folder.parent_path();
         folder = folder.parent_path()) {
        if (std::string label = label_of_folder(folder.filename().string()); !label.empty())
            return label;
    }
    return "";
}

std::string kernel_of_label(const std::string& label) {
    std::size_t after = std::string::npos, at = std::string::npos;
    for (std::string_view platform : {"a2a3sim", "a5sim", "a2a3", "a5"}) {
        std::size_t found = label.find(fmt::format("_{}_", platform));
        if (found != std::string::npos && (at == std::string::npos || found < at)) {
            at = found;
            after = found + platform.size() + 2;
        }
    }
    if (after == std::string::npos) return "";
    std::size_t mix = label.rfind("_mix");
    if (mix == std::string::npos || mix <= after) return "";
    std::string_view ids = std::string_view(label).substr(mix + 4);
    if (ids.empty() || !std::all_of(ids.begin(), ids.end(),
                                    [](unsigned char c) { return std::isdigit(c) || c == '_'; }))
        return "";
    return label.substr(after, mix - after);
}

std::optional<fs::path> trace_in_folder(const fs::path& folder) {
    std::error_code ec;
    std::optional<fs::path> perfetto, plain;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (it->is_directory(ec)) continue;
        if (name_ends_with(name, kPerfettoSuffix)) {
            if (!perfetto || it->path() < *perfetto) perfetto = it->path();
        } else if (name_ends_with(name, kTraceSuffix)) {
            if (!plain || it->path() < *plain) plain = it->path();
        }
    }
    if (perfetto) return perfetto;
    if (plain) return plain;
    // The raw export: the newest OPPROF_* by its name (a timestamp), never by mtime.
    std::optional<fs::path> newest;
    for (fs::directory_iterator it(folder / "insight_export", ec), end; !ec && it != end;
         it.increment(ec)) {
        if (it->path().filename().string().rfind("OPPROF_", 0) != 0) continue;
        fs::path raw = it->path() / "simulator" / "trace.json";
        std::error_code exists;
        if (fs::exists(raw, exists) && (!newest || raw > *newest)) newest = raw;
    }
    return newest;
}

namespace {

/// The `core_swimlane_*` folders under `root` (or `root` itself when it is one), to
/// `max_depth` levels.
std::vector<fs::path> core_swimlane_folders(const fs::path& root, int max_depth) {
    if (is_core_swimlane_folder(root)) return {root};
    std::vector<fs::path> out;
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
    for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
        if (it.depth() >= max_depth) it.disable_recursion_pending();
        std::error_code type;
        if (!it->is_directory(type) || !is_core_swimlane_folder(it->path())) continue;
        it.disable_recursion_pending();
        out.push_back(it->path());
    }
    return out;
}

}  // namespace

std::vector<fs::path> find_traces(const fs::path& root, int max_depth) {
    std::vector<fs::path> out;
    for (const fs::path& folder : core_swimlane_folders(root, max_depth))
        if (auto trace = trace_in_folder(folder)) out.push_back(*trace);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> folder_trace_inputs(const std::string& input) {
    std::vector<std::string> out;
    if (input == io::kStdinName || !io::is_dir(input)) return out;
    for (const fs::path& folder : core_swimlane_folders(input, 6)) {
        std::error_code ec;
        for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
            std::string name = it->path().filename().string();
            if ((name_ends_with(name, kPerfettoSuffix) || name_ends_with(name, kTraceSuffix)) &&
                !io::is_dir(it->path()))
                out.push_back(it->path().string());
        }
        for (fs::directory_iterator it(folder / "insight_export", ec), end; !ec && it != end;
             it.increment(ec)) {
            if (!it->path().filename().string().starts_with("OPPROF_")) continue;
            fs::path raw = it->path() / "simulator" / "trace.json";
            if (std::error_code exists; fs::exists(raw, exists)) out.push_back(raw.string());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

Result<Loaded> load(const std::string& input, std::optional<std::size_t> n_blocks,
                    Diagnostics& diagnostics) {
    std::string path = input;
    if (input != "-" && io::is_dir(input)) {
        auto traces = find_traces(input);
        if (traces.empty())
            return Error{
                "no core swimlane trace here (<label>_trace_perfetto.json, "
                "<label>_trace.json or insight_export/OPPROF_*/simulator/trace.json "
                "in a core_swimlane_<label>_<ts>/ folder)",
                input, 0};
        if (traces.size() > 1)
            return Error{
                fmt::format("{} core swimlane folders here (first {}, last {}): name one",
                            traces.size(), traces.front().string(), traces.back().string()),
                input, 0};
        path = traces.front().string();
    }
    auto stream = io::open_input(path);
    if (!stream) return stream.error();
    auto trace = parse_trace(stream->stream(), path, diagnostics);
    if (!trace) return trace.error();
    if (trace->instructions == 0) {
        std::string why =
            trace->syntax_error_line
                ? fmt::format(" before the JSON breaks off at line {}", *trace->syntax_error_line)
                : " (the collect may have stopped first)";
        return Error{"no pipeline instructions" + why, path, 0};
    }
    Loaded loaded{path, std::move(*trace), {}};
    loaded.analysis = analyze(loaded.trace, {n_blocks, label_of(path)});
    return loaded;
}

std::string subject_name(const Loaded& loaded) {
    if (!loaded.analysis.kernel.empty()) return loaded.analysis.kernel;
    if (!loaded.analysis.label.empty()) return loaded.analysis.label;
    return fs::path(loaded.path).filename().string();
}

void publish(const Loaded& loaded, rules::MetricStore& store) {
    const Analysis& analysis = loaded.analysis;
    std::string name = subject_name(loaded);
    rules::Subject& subject = store.subject("kernel", name);
    auto set = [&](const std::string& metric, double value) {
        store.set("kernel", name, metric, value);
    };
    set("pipe.span_us", analysis.span);
    set("pipe.instructions", static_cast<double>(loaded.trace.instructions));
    set("pipe.mmad_count", static_cast<double>(analysis.check.mmad));
    set("pipe.fix_count", static_cast<double>(analysis.check.fix_l0c));
    if (analysis.check.n_blocks)
        set("pipe.n_blocks", static_cast<double>(*analysis.check.n_blocks));
    set("pipe.truncated", analysis.check.truncated ? 1 : 0);
    set("pipe.timing_ok", analysis.check.truncated ? 0 : 1);
    subject.labels["pipe.check"] = analysis.check.verdict;
    set("pipe.mte2_exposed_us", analysis.exposed_load);
    set("pipe.mte2_exposed_share", analysis.exposed_share);
    subject.labels["pipe.exposed_subcore"] =
        analysis.exposed_subcore.empty() ? "-" : analysis.exposed_subcore;
    std::array<double, pmu::kPipeCount> util{};
    for (const SubCoreStats& core : analysis.subcores) {
        for (const PipeStats& row : core.pipes) {
            double& best = util[static_cast<std::size_t>(row.pipe)];
            best = std::max(best, row.utilisation);
        }
    }
    for (pmu::Pipe pipe : kPipeOrder)
        set(fmt::format("pipe.util.{}", pmu::to_string(pipe)),
            util[static_cast<std::size_t>(pipe)]);
    if (analysis.bottleneck) {
        for (pmu::Pipe pipe : kPipeOrder)
            set(fmt::format("pipe.bottleneck_is_{}", pmu::to_string(pipe)),
                pipe == *analysis.bottleneck ? 1 : 0);
        set("pipe.bottleneck_util", analysis.bottleneck_utilisation);
        subject.labels["pipe.bottleneck"] = std::string(pmu::to_string(*analysis.bottleneck));
        subject.labels["pipe.bottleneck_subcore"] = analysis.bottleneck_subcore;
    }
    subject.locations.push_back({loaded.path, 0, 0});
}

std::optional<Error> syntax_error(const Loaded& loaded) {
    if (!loaded.trace.syntax_error_line) return std::nullopt;
    return Error{fmt::format("the trace breaks off ({}); the {} event(s) before it were analysed, "
                             "with no timing conclusion",
                             loaded.trace.syntax_error, loaded.trace.events),
                 loaded.path, *loaded.trace.syntax_error_line};
}

}  // namespace ptune::pipetrace
