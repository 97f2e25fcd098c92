// swimlane-merge's pipeline (ptune/l3/pipeline.hpp): the captures loaded (one dispatch of an L3
// tree placed through its host logs, or each capture on its own), the trace written with its
// notes, and the console or JSON summary.

#include <unistd.h>

#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/terminal.hpp"
#include "ptune/l3/pipeline.hpp"
#include "ptune/swimlane/console.hpp"
#include "ptune/swimlane/report.hpp"
#include "ptune/swimlane/summary.hpp"

namespace ptune::l3 {

std::vector<std::string> MergeInputs::input_files() const {
    std::vector<std::string> files;
    for (const swimlane::LoadedCapture& l : loaded)
        files.insert(files.end(), l.inputs.begin(), l.inputs.end());
    return files;
}

Result<MergeInputs> load_merge_inputs(MultiRankRequest request, Diagnostics& diagnostics) {
    // As upstream's converter: a named deps.json or name map only decorates the trace (unusable
    // is a warning), and the host phase lanes are drawn.
    request.base.named_files_required = false;
    request.base.host_phases = true;
    MergeInputs inputs;
    if (request.tree) {
        auto merged = merge_ranks(request, diagnostics);
        if (!merged) return merged.error();
        if (*merged) {
            inputs.merged = std::move(**merged);
            inputs.loaded = std::move(inputs.merged->loaded);
        }
    }
    if (!inputs.merged) {
        inputs.loaded.reserve(request.captures.size());
        for (const swimlane::CaptureFiles& files : request.captures) {
            auto one = swimlane::load_capture(files, request.base, diagnostics);
            if (one)
                inputs.loaded.push_back(std::move(*one));
            else
                diagnostics.error(one.error().file, one.error().line, one.error().message);
        }
    }
    if (inputs.loaded.empty()) return Error{"nothing usable to convert", request.input, 0};
    // Upstream's converter warns while drawing the Worker View (§1.13).
    for (const swimlane::LoadedCapture& l : inputs.loaded)
        for (std::uint64_t id : swimlane::dummies_without_marker(l.capture, l.deps_or_null()))
            diagnostics.warn(l.files.records.string(), 0,
                             swimlane::dummy_without_marker_message(l.capture, id));
    return inputs;
}

Status write_merge_trace(const MergeInputs& inputs, swimlane::TraceOptions options,
                         std::ostream& out, const std::string& output, bool verbose,
                         Diagnostics& diagnostics) {
    std::vector<swimlane::TraceSource> sources;
    for (const swimlane::LoadedCapture& l : inputs.loaded)
        sources.push_back(swimlane::trace_source(l));
    if (inputs.merged) options.multi_rank = &inputs.merged->layout;
    if (options.overhead)
        for (const swimlane::TraceSource& source : sources)
            if (!swimlane::has_task_graph(source))
                diagnostics.warn(
                    source.inputs.front(), 0,
                    "--overhead needs the task graph of deps.json (ready times come from the "
                    "predecessors); no overhead counters for this capture");
    swimlane::TraceCounts counts;
    if (auto status = swimlane::write_trace(sources, options, out, counts); !status) return status;
    if (counts.dependency_edges_missing)
        diagnostics.note(
            output, 0,
            fmt::format("{} deps edge(s) name tasks without a slice in this capture; no arrow "
                        "drawn for them",
                        counts.dependency_edges_missing));
    if (counts.flows_unbound)
        diagnostics.note(
            output, 0,
            fmt::format("{} arrow(s) left out: no slice could hold one of their ends in time order",
                        counts.flows_unbound));
    if (verbose)
        diagnostics.note(
            output, 0,
            fmt::format("{} slices, {} counter samples, {} arrows, {} overflow lane(s)",
                        counts.slices, counts.counters, counts.flows, counts.overflow_lanes));
    return ok_status();
}

std::string merge_console(const MergeInputs& inputs, const std::string& input,
                          const std::string& trace_path, bool verbose, int fd) {
    const std::size_t width = isatty(fd) ? term::output_width(fd) : 0;
    std::ostringstream out;
    // The converter's first console line under -v (§1.13).
    if (verbose)
        out << swimlane::fold_summary("Reading performance data from: " + input + "\n", width);
    if (inputs.merged)
        out << swimlane::fold_summary(multi_rank_summary(*inputs.merged, input, trace_path), width);
    else
        swimlane::write_merge_summary(out, inputs.loaded, input, trace_path, width);
    return out.str();
}

render::Report merge_report(const MergeInputs& inputs, const std::string& trace_path) {
    render::Report report = swimlane::build_merge_report(inputs.loaded, trace_path);
    if (inputs.merged)
        report.data["multi_rank"] = nlohmann::json::parse(inputs.merged->layout.metadata_json);
    return report;
}

threads::Beside<std::string> merge_summary_alongside(const MergeInputs& inputs, bool json,
                                                     std::string input, std::string trace_path,
                                                     bool verbose, int fd) {
    auto make = [&inputs, json, input = std::move(input), trace_path = std::move(trace_path),
                 verbose, fd] {
        if (!json) return merge_console(inputs, input, trace_path, verbose, fd);
        std::ostringstream out;
        render::write_json(render::to_json(merge_report(inputs, trace_path)), out);
        out << '\n';
        return std::move(out).str();
    };
    return threads::beside_if<std::string>(true, std::move(make));
}

}  // namespace ptune::l3
