#pragma once
/// @file run_log.hpp
/// The lines of a daily-CI `run.log` that bench-log.md does not cover (upstream-2026-12.md
/// §1.7): per-rank task-timing slot windows (`[RUN]   task slots: ranks=R`, `[RUN]     rank
/// <pid> task_slot <k>: n=.. fin_us=.. dur_us=..[ dfin_us=..]`, `[RUN]       raw fin_us=[..]`)
/// and the seed / validation sentinels, which are context, not data.

#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "ptune/bench/task_slots.hpp"
#include "ptune/core/diagnostics.hpp"

namespace ptune::ciresult {

/// What run.log holds beyond the bench report.
struct RunLogFacts {
    bench::TaskSlots task_slots;
    /// The `[PERF] deterministic_seed ..`, `[RUN] fixture seed=..` and `[VALIDATION] mode=..`
    /// lines, as printed (trimmed).
    std::vector<std::string> sentinels;
};

/// Reads the §1.7 lines of a run.log (other lines are skipped). A `task_slot` or `raw fin_us`
/// line that does not parse, a raw list without its slot line or a raw list whose length is
/// not `n` is a warning with file:line; the rest is kept.
RunLogFacts parse_run_log(std::istream& in, const std::string& source, Diagnostics& diagnostics);

}  // namespace ptune::ciresult
