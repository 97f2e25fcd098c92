// Runs of one records file (runs.hpp): by run_epoch when the rows carry it, else detected.

#include "runs.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "../radix_order.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/swimlane/id_index.hpp"

namespace ptune::swimlane::detail {

namespace {

/// An idle gap this many times the longest row, and at least kRunGapMinNs, cannot lie inside one
/// run whose task appears on both sides: a task whose rows last microseconds does not wait
/// seconds between its blocks (real-2026-09 rank0_d63: seven 1–1.5 µs rows over 42.86 s).
constexpr std::int64_t kRunGapFactor = 1000;
constexpr std::int64_t kRunGapMinNs = 1'000'000;

/// Why epoch-less rows were split (for the warning).
struct RunSplit {
    std::size_t count = 1;
    std::size_t by_restart = 0;  ///< cuts where task ids and a core's reg_task_id start over
    std::size_t by_gap = 0;      ///< cuts where a task repeats after an impossible idle gap
    std::int64_t longest_row_ns = 0, widest_gap_ns = 0;
};

/// `to − from`, saturated: damaged stamps (a fuzzer's ±2^63) must not overflow.
std::int64_t span_ns(std::int64_t from, std::int64_t to) {
    std::int64_t out = 0;
    if (!__builtin_sub_overflow(to, from, &out)) return out;
    return to > from ? std::numeric_limits<std::int64_t>::max()
                     : std::numeric_limits<std::int64_t>::min();
}

/// Epoch-less rows: cut at every moment no core runs anything, and start a new run at a cut
/// when what follows repeats a task id of the current run and either some core's reg_task_id
/// starts over (both restart per run, §1.10; within one run a core's dispatch token only grows)
/// or the idle gap before it is orders of magnitude above every row's duration (what one run
/// cannot be). Linear after one sort.
std::vector<std::uint32_t> detect_runs(const std::vector<TaskRow>& rows, RunSplit& split) {
    std::vector<std::uint32_t> order = identity(rows.size());
    stable_order(order, [&](std::uint32_t i) { return time_key(rows[i].receive_ns); });
    std::vector<std::uint32_t> run_of(rows.size(), 0);
    // Task id → the last run it was seen in (an id is in the current run when that is `run`):
    // no clearing between runs, and dense arrays instead of a hash set (which missed the cache
    // on every row of a 200K-task capture: 19× the 20K time).
    IdIndex seen;
    std::unordered_map<std::uint32_t, std::uint32_t> last_reg;  // core → last token this run
    std::uint32_t run = 0;
    std::size_t begin = 0;
    for (const TaskRow& row : rows)
        split.longest_row_ns = std::max(split.longest_row_ns, span_ns(row.receive_ns, row.end_ns));
    std::int64_t scaled = 0;
    if (__builtin_mul_overflow(kRunGapFactor, std::max<std::int64_t>(split.longest_row_ns, 1),
                               &scaled))
        scaled = std::numeric_limits<std::int64_t>::max();
    const std::int64_t far_gap = std::max(kRunGapMinNs, scaled);
    std::int64_t idle_since = rows[order.front()].receive_ns;  // end of the previous segment
    while (begin < order.size()) {
        // One segment: rows overlapping (transitively) the first one.
        std::int64_t busy_until = rows[order[begin]].end_ns;
        std::size_t end = begin + 1;
        while (end < order.size() && rows[order[end]].receive_ns <= busy_until)
            busy_until = std::max(busy_until, rows[order[end]].end_ns), ++end;
        auto segment = [&](auto test) {
            return std::any_of(order.begin() + static_cast<std::ptrdiff_t>(begin),
                               order.begin() + static_cast<std::ptrdiff_t>(end), test);
        };
        bool repeats = segment([&](std::uint32_t r) {
            const std::uint32_t* last = seen.find(rows[r].task_id);
            return last != nullptr && *last == run;
        });
        bool restarts = segment([&](std::uint32_t r) {
            auto it = last_reg.find(rows[r].core_id);
            return it != last_reg.end() && rows[r].reg_task_id <= it->second;
        });
        const std::int64_t gap = span_ns(idle_since, rows[order[begin]].receive_ns);
        const bool far = begin > 0 && gap >= far_gap;
        if (repeats && (restarts || far)) {
            ++run, last_reg.clear();
            ++(restarts ? split.by_restart : split.by_gap);
            if (!restarts) split.widest_gap_ns = std::max(split.widest_gap_ns, gap);
        }
        idle_since = busy_until;
        for (std::size_t k = begin; k < end; ++k) {
            const TaskRow& row = rows[order[k]];
            if (auto [last, fresh] = seen.try_emplace(row.task_id, run); !fresh) *last = run;
            auto [it, fresh] = last_reg.try_emplace(row.core_id, row.reg_task_id);
            if (!fresh) it->second = std::max(it->second, row.reg_task_id);
            run_of[order[k]] = run;
        }
        begin = end;
    }
    split.count = run + 1;
    return run_of;
}

std::string split_reason(const RunSplit& split) {
    std::vector<std::string> reasons;
    if (split.by_restart)
        reasons.push_back("task ids and reg_task_id start over after every core fell idle");
    if (split.by_gap)
        reasons.push_back(fmt::format(
            "the same task ids again after idle gaps of up to {} s, orders of magnitude above "
            "the longest row ({} µs): one run cannot hold them",
            stats::format_fixed(static_cast<double>(split.widest_gap_ns) / 1e9, 2),
            stats::format_fixed(static_cast<double>(split.longest_row_ns) / 1e3, 2)));
    return fmt::format("{}", fmt::join(reasons, "; "));
}

}  // namespace

void find_runs(Capture& capture, Diagnostics& diagnostics) {
    auto& rows = capture.tasks;
    capture.runs.clear();
    capture.row_run.assign(rows.size(), 0);
    if (rows.empty()) return;
    const bool epochs = std::any_of(rows.begin(), rows.end(),
                                    [](const TaskRow& r) { return r.run_epoch != kNoEpoch; });
    std::vector<std::uint32_t> run_of;
    std::size_t count = 1;
    RunSplit split;
    std::vector<std::int32_t> values;
    if (epochs) {
        // Sorted by (epoch present, epoch): epoch-less rows first (§1.10).
        for (const TaskRow& r : rows) values.push_back(r.run_epoch);
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        count = values.size();
        run_of.resize(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i)
            run_of[i] = static_cast<std::uint32_t>(
                std::lower_bound(values.begin(), values.end(), rows[i].run_epoch) - values.begin());
    } else {
        run_of = detect_runs(rows, split);
        count = split.count;
    }
    if (count > 1) {
        // Rows by (run, task id): stable, so within a run the task-id order is kept.
        std::vector<std::uint32_t> order = identity(rows.size());
        stable_order(order, [&](std::uint32_t i) { return std::uint64_t{run_of[i]}; });
        for (std::size_t i = 0; i < order.size(); ++i) capture.row_run[i] = run_of[order[i]];
        apply_order(rows, order);
    } else {
        std::fill(capture.row_run.begin(), capture.row_run.end(), 0u);
    }
    capture.runs.resize(count);
    for (std::size_t k = 0; k < count; ++k) {
        capture.runs[k].epoch = epochs ? values[k] : kNoEpoch;
        capture.runs[k].start_ns = std::numeric_limits<std::int64_t>::max();
        capture.runs[k].end_ns = std::numeric_limits<std::int64_t>::min();
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        RunInfo& run = capture.runs[capture.row_run[i]];
        ++run.rows;
        if (i == 0 || capture.row_run[i - 1] != capture.row_run[i] ||
            rows[i - 1].task_id != rows[i].task_id)
            ++run.tasks;
        run.start_ns = std::min(run.start_ns, rows[i].receive_ns);
        run.end_ns = std::max(run.end_ns, rows[i].end_ns);
    }
    if (!epochs && count > 1)
        diagnostics.warn(
            capture.source, 0,
            fmt::format("{} runs in one records file without run_epoch: {}; each run is analysed "
                        "on its own, never joined",
                        count, split_reason(split)));
}

}  // namespace ptune::swimlane::detail

namespace ptune::swimlane {

namespace {

/// The run whose epoch is `epoch` (runs are sorted by epoch), if any.
std::optional<std::uint32_t> run_of_epoch(const Capture& capture, std::int32_t epoch) {
    if (epoch == kNoEpoch) return std::nullopt;
    auto it = std::lower_bound(capture.runs.begin(), capture.runs.end(), epoch,
                               [](const RunInfo& run, std::int32_t e) { return run.epoch < e; });
    if (it == capture.runs.end() || it->epoch != epoch) return std::nullopt;
    return static_cast<std::uint32_t>(it - capture.runs.begin());
}

}  // namespace

std::uint32_t run_of_record(const Capture& capture, std::int32_t epoch, std::int64_t start_ns) {
    if (capture.runs.size() <= 1) return 0;
    if (auto run = run_of_epoch(capture, epoch)) return *run;
    // The last run that started by then (run 0 also owns what came before it).
    auto it = std::upper_bound(capture.runs.begin() + 1, capture.runs.end(), start_ns,
                               [](std::int64_t t, const RunInfo& run) { return t < run.start_ns; });
    return static_cast<std::uint32_t>(it - capture.runs.begin() - 1);
}

std::uint32_t run_of_submit(const Capture& capture, std::int32_t epoch, std::int64_t start_ns) {
    if (capture.runs.size() <= 1) return 0;
    if (auto run = run_of_epoch(capture, epoch)) return *run;
    for (std::uint32_t k = 0; k < capture.runs.size(); ++k)
        if (start_ns <= capture.runs[k].end_ns) return k;
    return static_cast<std::uint32_t>(capture.runs.size() - 1);
}

}  // namespace ptune::swimlane
