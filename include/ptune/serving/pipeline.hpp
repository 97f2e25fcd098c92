#pragma once
/// @file pipeline.hpp
/// The serving trace pipeline `ptune serving-trace` and `advise` share (upstream-2026-12.md §5):
/// `serving-strace-swimlane.json` → spans per serving process and per host STRACE device lane,
/// streamed (parse_serving_trace) → per WorkerProcess task statistics, the straggler, and the
/// device lanes set against the serving window on the shared host clock (analyze) →
/// `serving.*` metrics (publish) → the report.

#include <cstddef>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/render/report.hpp"
#include "ptune/rules/metrics.hpp"

namespace ptune::serving {

/// The rule area of the serving findings.
inline constexpr std::string_view kRuleArea = "serving.";

/// The spans of one lane: a serving process (pid) or one device of the host process (tid).
struct Lane {
    std::string key;   ///< the pid (serving) or tid (device) as written
    std::string name;  ///< process_name / thread_name, else `pid <p>` / `device <t>`
    std::vector<std::pair<double, double>> spans;  ///< (ts, dur) of its `X` events
};

/// What the reader kept.
struct ServingTrace {
    std::string source;
    std::vector<Lane> workers;  ///< serving processes, in the order they appear
    std::vector<Lane> devices;  ///< host STRACE lanes, one per device
    std::string host_pid;       ///< the host STRACE process, "" when the file has none
    std::string host_name;
    std::size_t events = 0;
    std::size_t skipped = 0;
    std::optional<std::size_t> syntax_error_line;
    std::string syntax_error;
};

/// Count, mean, min and max of a lane's span durations (µs).
struct LaneStats {
    std::string key;
    std::string name;
    std::size_t count = 0;
    double total = 0, mean = 0, min = 0, max = 0;
    double begin = 0, end = 0;  ///< first start, last end
    double busy = 0;            ///< |∪ spans|
    double in_window = 0;       ///< busy time inside the serving window (devices)
};

/// The analysis (§5.3 proposal: a WorkerProcess is a serving pid; the host process is split by
/// device tid).
struct Analysis {
    std::vector<LaneStats> workers;
    std::vector<LaneStats> devices;
    double window_begin = 0, window_end = 0;  ///< [min ts, max ts+dur] of the serving spans
    std::optional<std::size_t> straggler;     ///< index into workers: the largest total time
    double straggler_share = 0;               ///< its share of all workers' task time
    double straggler_excess = 0;              ///< its total over the mean worker total
};

/// Reads the file with a SAX parser (no DOM). A top-level array is the event list; an event
/// list without the host process is still a serving trace. Bad events are warnings with their
/// line; JSON that breaks off keeps what came before (ServingTrace::syntax_error_line).
Result<ServingTrace> parse_serving_trace(std::istream& in, const std::string& source,
                                         Diagnostics& diagnostics);

/// Statistics per lane, the straggler, and the device lanes against the serving window.
Analysis analyze(const ServingTrace& trace);

/// What the pipeline read and found.
struct Loaded {
    std::string path;
    ServingTrace trace;
    Analysis analysis;
};

/// The file name the profiling skill writes.
inline constexpr std::string_view kFileName = "serving-strace-swimlane.json";

/// Reads and analyses one file, or the one `serving-strace-swimlane.json` under a directory.
/// Unreadable, not a trace, no such file (or several), or no `X` span at all: an error.
Result<Loaded> load(const std::string& input, Diagnostics& diagnostics);

/// Publishes `serving.*` metrics on the `run` subject (docs/serving-trace.md lists them).
void publish(const Loaded& loaded, rules::MetricStore& store);

/// The report: workers, devices against the serving window, the JSON view.
render::Report build_report(const Loaded& loaded, std::vector<rules::Finding> findings);

/// The error to exit 2 with when the file broke off (nullopt when it did not).
std::optional<Error> syntax_error(const Loaded& loaded);

}  // namespace ptune::serving
