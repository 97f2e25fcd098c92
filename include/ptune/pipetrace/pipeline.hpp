#pragma once
/// @file pipeline.hpp
/// The core swimlane trace pipeline `ptune pipe-trace` and `advise` share (upstream-2026-12.md
/// §4): a file or an `outputs/core_swimlane_<label>_<ts>/` folder → the trace, streamed
/// (parse_trace) → per sub-core and pipe busy time, overlap, exposed load, the self-check and
/// the bottleneck pipe (analyze) → `pipe.*` metrics (publish) → the report.

#include <filesystem>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/pipetrace/model.hpp"
#include "ptune/render/report.hpp"
#include "ptune/rules/metrics.hpp"

namespace ptune::pipetrace {

/// The rule area of the pipe-trace findings.
inline constexpr std::string_view kRuleArea = "pipe.";

/// Reads a trace (the raw Insight export or the Perfetto variant) with a SAX parser: no DOM,
/// memory in proportion to the instructions kept. A top-level array is the event list; any
/// other non-object, or text that is not JSON from its first byte, is an error (file:line). A
/// bad event is a warning with its line and skipped; JSON that breaks off later keeps what came
/// before (Trace::syntax_error_line) and the caller decides.
Result<Trace> parse_trace(std::istream& in, const std::string& source, Diagnostics& diagnostics);

/// Options of the analysis.
struct AnalyzeOptions {
    std::optional<std::size_t> n_blocks;  ///< the loop trip count for the self-check
    std::string label;                    ///< the trace's label (kernel name inside), if known
};

/// §4.4: unions in O(n log n), pairwise overlaps, exposed load, self-check, bottleneck.
Analysis analyze(const Trace& trace, const AnalyzeOptions& options);

/// The label of a trace from its path: the folder `core_swimlane_<label>_<YYYYMMDD_HHMMSS>` or
/// the file `<label>_trace.json` / `<label>_trace_perfetto.json`. Empty when neither names it.
std::string label_of(const std::filesystem::path& path);

/// The kernel name inside a label `<TestClass>_<Case>_<platform>_<kernel>_mix<ids>` (platform
/// a2a3sim, a5sim, a2a3 or a5); empty when the label does not have that shape.
std::string kernel_of_label(const std::string& label);

/// The trace of one core swimlane folder: `<label>_trace_perfetto.json`, else
/// `<label>_trace.json`, else the newest `insight_export/OPPROF_*/simulator/trace.json` by its
/// OPPROF_ name (never by mtime). nullopt when the folder holds none.
std::optional<std::filesystem::path> trace_in_folder(const std::filesystem::path& folder);

/// One trace per `core_swimlane_*` folder under `root` (and `root` itself when it is one), to
/// `max_depth` levels, sorted.
std::vector<std::filesystem::path> find_traces(const std::filesystem::path& root,
                                               int max_depth = 6);

/// Every trace file of the core swimlane folder(s) of `input` (a directory) that load() may
/// take, read this time or not: each `*_trace_perfetto.json`, `*_trace.json` and
/// `insight_export/OPPROF_*/simulator/trace.json`. Empty for a file or stdin. The command adds
/// them to its inputs: an output over one is refused (it would be read next time).
std::vector<std::string> folder_trace_inputs(const std::string& input);

/// What the pipeline read and found.
struct Loaded {
    std::string path;
    Trace trace;
    Analysis analysis;
};

/// Resolves `input` (a trace file or a core swimlane folder), reads and analyses it. A file
/// that cannot be read, that is not a trace, or that holds no pipeline instructions is an
/// error; a trace that breaks off is analysed as far as it goes (Loaded::trace says so).
Result<Loaded> load(const std::string& input, std::optional<std::size_t> n_blocks,
                    Diagnostics& diagnostics);

/// The rules subject of a trace: `kernel` named by the label's kernel name, else the label,
/// else the file name.
std::string subject_name(const Loaded& loaded);

/// Publishes `pipe.*` metrics on the `kernel` subject (docs/pipe-trace.md lists them).
void publish(const Loaded& loaded, rules::MetricStore& store);

/// The report: task summary, pipes per sub-core, overlaps, exposed load, and the JSON view.
render::Report build_report(const Loaded& loaded, std::vector<rules::Finding> findings);

/// The error to exit 2 with when the trace broke off (nullopt when it did not).
std::optional<Error> syntax_error(const Loaded& loaded);

}  // namespace ptune::pipetrace
