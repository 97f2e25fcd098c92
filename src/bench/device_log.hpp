#pragma once
// Legacy CANN device-log timing lines (before [STRACE], bench-log.md §1.14): per round one
// `Thread N: orch_start=.. orch_end=.. orch_cost=..us` line and the scheduler threads'
// `Thread N: sched_start=.. sched_end=.. sched_cost=..us` lines.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/bench/model.hpp"
#include "ptune/core/diagnostics.hpp"

namespace ptune::bench {

/// True if the line may hold a legacy timing line (cheap test before DeviceLogCollector::feed).
bool mentions_device_timing(std::string_view line);

/// Collects the rounds of one case and computes its Effective ("Total") per round.
class DeviceLogCollector {
  public:
    DeviceLogCollector(std::string source, Diagnostics& diagnostics)
        : source_(std::move(source)), diagnostics_(diagnostics) {}
    /// Lines fed from now on come from `source` (a case read from several files).
    void set_source(std::string source) { source_ = std::move(source); }

    /// Feeds one normalised line; lines that are not orch/sched timing lines are ignored.
    void feed(std::string_view line, std::size_t line_number);
    /// True once an orch or sched timing line was read.
    bool saw_lines() const { return lines_ > 0; }
    /// The block for the rounds after `options.warmup`: Total = (max end - min start) over the
    /// round's orch and sched lines, in µs with the cycle rate calibrated by the orch line.
    /// nullopt when no line was read.
    std::optional<BenchBlock> compute(const StraceOptions& options) const;

  private:
    struct Round {
        std::size_t line = 0;  ///< the orch line (0 for sched lines before any orch line)
        bool has_orch = false;
        std::uint64_t orch_start = 0, orch_end = 0;
        double orch_cost_us = 0.0;
        std::vector<std::pair<std::uint64_t, std::uint64_t>> sched;  ///< (start, end) cycles
    };

    std::string source_;
    Diagnostics& diagnostics_;
    std::vector<Round> rounds_;
    std::size_t lines_ = 0;
};

}  // namespace ptune::bench
