#pragma once
/// @file cpm.hpp
/// `CPM_static.json` / `CPM_observed.json` (upstream-2026-09.md §4): copies of a merged trace
/// written by simpler's `critical_path` tool, in which every Worker View bar (`ph "X"`, pid 4,
/// `args.taskId`) of a task not on the path is renamed `·(<label>)`. swimlane-analyze reads
/// them beside the records file and compares their paths with its own.

#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/render/report.hpp"
#include "ptune/swimlane/analyze.hpp"

namespace ptune::swimlane {

/// One task on an upstream path.
struct CpmTask {
    std::uint64_t task_id = 0;
    std::string name;  ///< the Worker View bar's name, e.g. `SF(r1t2)`
    double ts_us = 0, dur_us = 0;
};

/// One CPM file.
struct CpmPath {
    std::string kind;               ///< "static" or "observed" (from the file name)
    std::string source;             ///< the file
    std::string runtime;            ///< metadata.runtime, empty when absent
    std::vector<CpmTask> critical;  ///< bars not renamed `·(…)`, by start time; one per task
    std::size_t worker_bars = 0;    ///< Worker View bars with a taskId
};

/// Reads a CPM file (streamed: a merged trace can be large). Fails on invalid JSON or a file
/// with no Worker View bar carrying `args.taskId`.
Result<CpmPath> read_cpm(std::istream& in, const std::string& source);

/// `CPM_static.json` and `CPM_observed.json` in `dir`, read; unusable ones are warnings.
std::vector<CpmPath> find_cpm(const std::filesystem::path& dir, Diagnostics& diagnostics);

/// Adds to swimlane-analyze's report, when CPM files sit beside `records`: a table comparing
/// ptune's critical path with each of theirs (tasks on both, only ours, only theirs) and the
/// JSON view `cpm` (their task ids and the agreement).
void add_cpm_comparison(render::Report& report, const std::filesystem::path& records,
                        const CriticalPath& ours, Diagnostics* diagnostics = nullptr);

}  // namespace ptune::swimlane
