// The device rows of a records file (stages.hpp): AICore rows joined to their AICPU partners,
// device phases, and the summary of what was dropped.

#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ptune/swimlane/id_index.hpp"
#include "stages.hpp"

namespace ptune::swimlane::records {

/// The row of AICore record `r` (core, token, reg, start, end, r2s, epoch) with its AICore times;
/// nothing (and the drop counted) when it never ran or runs backwards.
std::optional<TaskRow> aicore_row(const std::int64_t* r, Capture& capture,
                                  const DeviceTimeMap& to_ns) {
    if (r[3] <= 0) {
        ++capture.dropped.zero_start;
        return std::nullopt;
    }
    if (r[4] < r[3] || r[0] < 0) {
        ++capture.dropped.reversed;
        return std::nullopt;
    }
    TaskRow row;
    row.task_id = static_cast<std::uint64_t>(r[1]);
    row.core_id = static_cast<std::uint32_t>(r[0]);
    row.core_type = capture.core_type_of(row.core_id);
    row.reg_task_id = static_cast<std::uint32_t>(r[2]);
    row.run_epoch = epoch_of(r[6]);
    row.start_ns = to_ns(r[3]);
    row.end_ns = to_ns(r[4]);
    row.receive_ns = r[5] > 0 && r[5] < r[3] ? to_ns(r[3] - r[5]) : row.start_ns;
    return row;
}

/// Level 1 (no AICPU stamps), or a capture cut before its AICPU section: AICore timing only.
/// Upstream yields zero tasks at level ≥ 2; showing the AICore rows is more useful.
void take_aicore_rows_alone(const RecordsWalker& w, Capture& capture, const DeviceTimeMap& to_ns,
                            Diagnostics& diagnostics) {
    const std::size_t aicore_rows = w.aicore.size() / 7;
    if (capture.level >= 2 && aicore_rows > 0)
        diagnostics.warn(
            capture.source, 0,
            fmt::format("no AICPU rows at level {}; showing AICore timing only", capture.level));
    capture.tasks.reserve(aicore_rows);
    for (std::size_t i = 0; i < aicore_rows; ++i)
        if (auto row = aicore_row(&w.aicore[i * 7], capture, to_ns)) capture.tasks.push_back(*row);
}

/// The row join (§6.2 step 6): each AICPU row (core, reg, dispatch, finish, epoch) with the
/// AICore row of the same (epoch, core, reg). A key that repeats (a file holding several runs
/// without run_epoch: reg_task_id restarts per run) pairs its rows in file order, the k-th AICPU
/// row with the k-th AICore row, never one AICore row twice; surplus AICPU rows fall back to the
/// last AICore row, as upstream's later-wins lookup. AICPU rows without a partner are counted
/// per core in `unmatched_cores`; AICore rows without one are left out.
void join_aicpu_to_aicore(const RecordsWalker& w, Capture& capture, const DeviceTimeMap& to_ns,
                          std::vector<std::int64_t>& unmatched_cores, Diagnostics& diagnostics) {
    const std::size_t aicore_rows = w.aicore.size() / 7;
    const std::size_t aicpu_rows = w.aicpu.size() / 5;
    // key → (next AICore row of that key to hand out, last row of the key); rows of one key are
    // chained in file order through next_same.
    struct Cursor {
        std::uint32_t next, last;
    };
    IdIndex cursor_of;  // key → index into cursors
    std::vector<Cursor> cursors;
    cursors.reserve(aicore_rows);
    constexpr std::uint32_t kEnd = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> next_same(aicore_rows, kEnd);
    std::size_t repeated = 0;
    for (std::size_t i = 0; i < aicore_rows; ++i) {
        const std::int64_t* r = &w.aicore[i * 7];
        auto index = static_cast<std::uint32_t>(i);
        auto [k, fresh] = cursor_of.try_emplace(join_key(r[6], r[0], r[2]),
                                                static_cast<std::uint32_t>(cursors.size()));
        if (fresh) {
            cursors.push_back({index, index});
            continue;
        }
        Cursor& cursor = cursors[*k];
        next_same[cursor.last] = index;
        cursor.last = index;
        ++repeated;
    }
    if (repeated)
        diagnostics.warn(capture.source, 0,
                         fmt::format("{} AICore row(s) repeat a (run_epoch, core_id, reg_task_id) "
                                     "join key (several runs in one file without run_epoch?); "
                                     "rows of one key are joined in file order",
                                     repeated));
    capture.tasks.reserve(aicpu_rows);
    std::vector<bool> joined(aicore_rows, false);
    for (std::size_t i = 0; i < aicpu_rows; ++i) {
        const std::int64_t* a = &w.aicpu[i * 5];
        const std::uint32_t* k = cursor_of.find(join_key(a[4], a[0], a[1]));
        if (!k) {
            ++capture.dropped.aicpu_without_aicore;
            unmatched_cores.push_back(a[0]);
            continue;
        }
        Cursor& cursor = cursors[*k];
        std::uint32_t partner = cursor.next;
        if (next_same[partner] != kEnd) cursor.next = next_same[partner];
        joined[partner] = true;
        auto row = aicore_row(&w.aicore[std::size_t{partner} * 7], capture, to_ns);
        if (!row) continue;
        if (a[2] > 0 && a[3] > 0 && a[3] < a[2]) {
            ++capture.dropped.reversed;
            continue;
        }
        row->dispatch_ns = to_ns(a[2]);
        row->finish_ns = to_ns(a[3]);
        capture.tasks.push_back(*row);
    }
    for (std::size_t i = 0; i < aicore_rows; ++i)
        if (!joined[i] && w.aicore[i * 7 + 3] != 0) ++capture.dropped.aicore_without_aicpu;
}

namespace {
constexpr std::uint32_t kNoName = 0xFFFFFFFFu;
}  // namespace

/// The AICPU scheduler and orchestrator records with usable times, on the device axis.
void take_device_phases(RecordsWalker& w, Capture& capture, const DeviceTimeMap& to_ns) {
    auto phase_ns = [&](const RawPhase& r, bool start) { return to_ns(start ? r.start : r.end); };
    capture.scheduler_phases.reserve(w.scheduler.size());
    PhaseKinds kinds(w, capture);
    for (const auto& p : w.scheduler) {
        if (!p.has_start || !p.has_end || p.start <= 0 || p.end < p.start) {
            ++capture.dropped.malformed_phases;
            continue;
        }
        capture.scheduler_phases.push_back(make_scheduler_phase(p, kinds, phase_ns));
    }
    w.scheduler.release();
    capture.scheduler_arrays = w.scheduler_arrays;
    capture.orchestrator_phases.reserve(w.orchestrator.size());  // (one per task: no doubling)
    // Phase names: each kind the walker interned, once.
    std::vector<std::uint32_t> name_of_kind(w.kinds.size(), kNoName);
    auto name_of = [&](std::uint16_t kind) {
        std::uint32_t& name = name_of_kind[kind];
        if (name == kNoName) {
            auto& names = capture.orchestrator_phase_names;
            auto known = std::find(names.begin(), names.end(), w.kinds[kind]);
            name = static_cast<std::uint32_t>(known - names.begin());
            if (known == names.end()) names.push_back(w.kinds[kind]);
        }
        return name;
    };
    for (const auto& p : w.orchestrator) {
        if (!p.has_start || !p.has_end || p.start <= 0 || p.end < p.start) {
            ++capture.dropped.malformed_phases;
            continue;
        }
        OrchestratorPhase phase;
        phase.thread = p.thread;
        if (p.kind != 0) phase.name = name_of(p.kind);
        phase.submit_idx = p.submit_idx;
        phase.task_id = p.task_id;
        phase.start_ns = to_ns(p.start);
        phase.end_ns = to_ns(p.end);
        phase.run_epoch = epoch_of(p.run_epoch);
        capture.orchestrator_phases.push_back(std::move(phase));
    }
    w.orchestrator.release();
    if (!capture.host_orchestration) capture.orchestrator_arrays = w.orchestrator_arrays;
}

void summarise_drops(const Capture& capture, const std::vector<std::int64_t>& unmatched_cores,
                     Diagnostics& diagnostics) {
    const DropCounts& d = capture.dropped;
    if (d.aicpu_without_aicore) {
        // Top-3 cores by count, as the upstream warning does ("dropped on rotation").
        std::map<std::int64_t, std::size_t> per_core;
        for (auto core : unmatched_cores) ++per_core[core];
        std::vector<std::pair<std::int64_t, std::size_t>> ranked(per_core.begin(), per_core.end());
        std::stable_sort(ranked.begin(), ranked.end(),
                         [](auto& a, auto& b) { return a.second > b.second; });
        std::vector<std::string> top;
        for (std::size_t i = 0; i < ranked.size() && i < 3; ++i)
            top.push_back(fmt::format("core {}: {}", ranked[i].first, ranked[i].second));
        diagnostics.warn(capture.source, 0,
                         fmt::format("{} AICPU row(s) without an AICore partner dropped ({})",
                                     d.aicpu_without_aicore, fmt::join(top, ", ")));
    }
    if (d.aicore_without_aicpu)
        diagnostics.note(
            capture.source, 0,
            fmt::format("{} AICore row(s) without an AICPU partner left out (as upstream)",
                        d.aicore_without_aicpu));
    if (d.zero_start)
        diagnostics.warn(capture.source, 0,
                         fmt::format("{} row(s) with a zero timestamp dropped", d.zero_start));
    if (d.reversed)
        diagnostics.warn(
            capture.source, 0,
            fmt::format("{} row(s) with end before start (or finish before dispatch) dropped",
                        d.reversed));
    if (d.malformed_rows)
        diagnostics.warn(capture.source, 0,
                         fmt::format("{} malformed task row(s) dropped", d.malformed_rows));
    if (d.malformed_phases)
        diagnostics.warn(
            capture.source, 0,
            fmt::format("{} phase record(s) without usable times dropped", d.malformed_phases));
}

}  // namespace ptune::swimlane::records
