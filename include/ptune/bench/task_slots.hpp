#pragma once
/// @file task_slots.hpp
/// The per-rank task-timing slot windows a newer pypto runner prints after the raw block
/// (upstream-2026-12.md §1.7): `[RUN]   task slots: ranks=R`, `[RUN]     rank <pid> task_slot
/// <k>: n=.. fin_us=.. dur_us=..[ dfin_us=..]` and `[RUN]       raw fin_us=[..]` (with
/// PYPTO_BENCH_RAW). Read in any bench log and in a daily-CI case's run.log.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/render/report.hpp"

namespace ptune::bench {

/// One `rank <pid> task_slot <k>` line with its raw list when printed.
struct TaskSlot {
    std::uint64_t rank = 0;
    std::size_t slot = 0;
    std::size_t n = 0;              ///< measured dispatches carrying the slot
    double fin_us = 0.0;            ///< median finish from the device-clock origin (.1f as printed)
    double dur_us = 0.0;            ///< median window length
    std::optional<double> dfin_us;  ///< median finish minus the previous tagged slot's finish
    std::vector<double> raw_fin_us;  ///< `raw fin_us=[..]` (PYPTO_BENCH_RAW), empty when absent
    std::size_t line = 0;
};

/// The slot lines of one report (one bench block, or one run.log).
struct TaskSlots {
    std::optional<std::size_t> declared_ranks;  ///< `task slots: ranks=R` (the last one)
    std::vector<TaskSlot> slots;
};

/// Reads the three line forms one at a time. A line that does not parse, a raw list without
/// its slot line or whose length is not `n` is a warning through `warn(line, message)`; the
/// rest is kept.
class TaskSlotReader {
  public:
    using Warn = std::function<void(std::size_t line, std::string message)>;
    explicit TaskSlotReader(Warn warn) : warn_(std::move(warn)) {}

    /// True when `body` (a `[RUN]` line's text after the tag, trimmed) is one of the three forms
    /// (then it is taken into `into`, or warned about). Any other line ends a slot's raw list.
    bool feed(std::string_view body, std::size_t line, TaskSlots& into);
    /// Warns (line 0) when `task slots: ranks=R` disagrees with the ranks that printed slot
    /// lines.
    void check(const TaskSlots& slots) const;

  private:
    Warn warn_;
    bool last_was_slot_ = false;
};

/// The table `title`: per rank and slot n, fin, dur, dfin (µs, `.1f` as printed) and the raw
/// list's length; with `case_column`, each row starts with its case's name.
render::Table task_slot_table(std::string title,
                              const std::vector<std::pair<std::string, const TaskSlots*>>& cases,
                              bool case_column);

}  // namespace ptune::bench
