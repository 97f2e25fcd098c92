// The dispatchers and rank host blocks of a multi-rank trace (see host_lanes.hpp,
// upstream-2026-09.md §1.14). One pass groups the spans by invocation; everything else is per
// rank or per dispatcher, so the work is linear in the spans (plus the sorts).

#include "ptune/l3/host_lanes.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/json_document.hpp"

namespace ptune::l3 {

namespace {

using swimlane::HostSpan;
using LayoutSlice = swimlane::MultiRankLayout::Slice;

Error layout_error(std::string message) {
    return Error{std::move(message), "", 0, ExitCode::InputError};
}

/// A span's `k=v` attrs as a JSON object (integers as numbers), after `head`.
nlohmann::json span_args(const HostSpan& s, nlohmann::json head) {
    for (const auto& [k, v] : s.attrs) {
        std::int64_t number = 0;
        auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), number);
        if (ec == std::errc() && ptr == v.data() + v.size() && !v.empty())
            head[k] = number;
        else
            head[k] = v;
    }
    return head;
}

/// a + b, held at the int64 limits: a log can hold times near them.
std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
    std::int64_t out = 0;
    if (!__builtin_add_overflow(a, b, &out)) return out;
    return b > 0 ? std::numeric_limits<std::int64_t>::max()
                 : std::numeric_limits<std::int64_t>::min();
}

std::int64_t end_of(const HostSpan& s) {
    return saturating_add(s.ts, std::max<std::int64_t>(s.dur, 0));
}

/// Where a `clk=dev` span at device ts `ts` lands on the host axis (§1.12.3 step 4).
std::int64_t placed_ns(const RankHostInput& r, std::int64_t ts) {
    std::int64_t since_zero = 0;
    if (__builtin_sub_overflow(ts, r.device_phase_zero, &since_zero))
        since_zero = ts > r.device_phase_zero ? std::numeric_limits<std::int64_t>::max()
                                              : std::numeric_limits<std::int64_t>::min();
    return saturating_add(r.device_phase_zero_host_ns, since_zero);
}

/// "node" of "node.dispatch".
std::string family_of(const std::string& name) {
    return name.substr(0, name.find('.'));
}

/// The ranks' window: every paired invocation's host spans and every placement; each paired
/// invocation's host and device spans.
struct RanksWindow {
    std::int64_t lo = std::numeric_limits<std::int64_t>::max();
    std::int64_t hi = std::numeric_limits<std::int64_t>::min();
    std::map<const RankHostInput*, std::vector<const HostSpan*>> host_of, device_of;
};

RanksWindow ranks_window(const std::vector<HostSpan>& spans,
                         const std::vector<RankHostInput>& ranks) {
    RanksWindow w;
    std::map<std::pair<std::uint64_t, std::uint64_t>, const RankHostInput*> paired;
    for (const RankHostInput& r : ranks) {
        paired.emplace(std::pair(r.pid, r.inv), &r);
        w.lo = std::min(w.lo, r.place_lo_ns);
        w.hi = std::max(w.hi, r.place_hi_ns);
    }
    for (const HostSpan& s : spans) {
        auto it = paired.find({s.pid, s.inv});
        if (it == paired.end()) continue;
        (s.device ? w.device_of : w.host_of)[it->second].push_back(&s);
        if (!s.device) w.lo = std::min(w.lo, s.ts), w.hi = std::max(w.hi, end_of(s));
    }
    return w;
}

/// Dispatchers: host-clock spans of other pids overlapping [lo, hi]; an invocation (inv ≠ 0)
/// whole when one of its spans overlaps, an inv=0 span on its own. By OS pid.
std::map<std::uint64_t, std::vector<const HostSpan*>> dispatcher_spans_of(
    const std::vector<HostSpan>& spans, const std::vector<RankHostInput>& ranks,
    const RanksWindow& w) {
    std::set<std::uint64_t> paired_pids;
    for (const RankHostInput& r : ranks) paired_pids.insert(r.pid);
    auto overlaps = [&](const HostSpan& s) {
        return !ranks.empty() && s.ts <= w.hi && end_of(s) >= w.lo;
    };
    std::set<std::pair<std::uint64_t, std::uint64_t>> overlapping_invocations;
    for (const HostSpan& s : spans)
        if (!s.device && !paired_pids.count(s.pid) && s.inv != 0 && overlaps(s))
            overlapping_invocations.insert({s.pid, s.inv});
    std::map<std::uint64_t, std::vector<const HostSpan*>> dispatcher_spans;
    for (const HostSpan& s : spans) {
        if (s.device || paired_pids.count(s.pid)) continue;
        bool kept = s.inv == 0 ? overlaps(s) : overlapping_invocations.count({s.pid, s.inv}) > 0;
        if (kept) dispatcher_spans[s.pid].push_back(&s);
    }
    return dispatcher_spans;
}

/// One process per dispatcher (trace pids 1..), a thread per tid, its spans.
void add_dispatchers(const std::map<std::uint64_t, std::vector<const HostSpan*>>& dispatcher_spans,
                     HostLayout& out) {
    std::int64_t trace_pid = 0;
    for (const auto& [os_pid, list] : dispatcher_spans) {
        ++trace_pid;
        out.dispatcher_pids.push_back(os_pid);
        std::vector<std::string> families;
        std::set<std::uint64_t> tids;
        for (const HostSpan* s : list) {
            std::string family = family_of(s->name);
            if (std::find(families.begin(), families.end(), family) == families.end())
                families.push_back(std::move(family));
            tids.insert(s->tid);
            out.earliest_ns = std::min(out.earliest_ns, s->ts);
        }
        out.processes.push_back(
            {trace_pid, fmt::format("dispatcher pid {} ({})", os_pid, fmt::join(families, ", "))});
        for (std::uint64_t tid : tids)
            out.threads.push_back(
                {trace_pid, static_cast<std::int64_t>(tid),
                 tid == os_pid ? fmt::format("pid {}", os_pid) : fmt::format("tid {}", tid)});
        for (const HostSpan* s : list)
            out.slices.push_back(LayoutSlice{
                trace_pid, static_cast<std::int64_t>(s->tid), s->name, "dispatcher", s->ts, s->dur,
                json_document::dump(
                    span_args(*s, {{"pid", s->pid}, {"inv", s->inv}, {"depth", s->depth}}))});
    }
}

/// Rank `r`'s three host blocks at pids 11 + 3·rank + lane: its invocation's host spans, its
/// device phases placed on the host axis, and its placement bound.
void add_rank_blocks(const RankHostInput& r, const std::vector<const HostSpan*>& host_spans,
                     const std::vector<const HostSpan*>& device_spans, HostLayout& out) {
    const std::int64_t base = 11 + 3 * static_cast<std::int64_t>(r.rank);
    // Lane 0: the invocation's host spans, one thread.
    out.processes.push_back({base, fmt::format("rank{} / Host", r.rank)});
    const auto host_tid = static_cast<std::int64_t>(r.pid);
    out.threads.push_back({base, host_tid, fmt::format("pid {}", r.pid)});
    for (const HostSpan* s : host_spans)
        out.slices.push_back(
            LayoutSlice{base, host_tid, s->name, "host", s->ts, s->dur,
                        json_document::dump(span_args(
                            *s, {{"rank", r.rank}, {"inv", s->inv}, {"depth", s->depth}}))});
    // Lane 1: the clk=dev spans on the host axis, one thread per name (first seen first), the
    // thread named by the span's last component (`device_wall`, `sched`), as upstream does.
    out.processes.push_back({base + 1, fmt::format("rank{} / Device phases (placed)", r.rank)});
    std::vector<std::string> names;
    for (const HostSpan* s : device_spans) {
        auto it = std::find(names.begin(), names.end(), s->name);
        if (it == names.end()) {
            names.push_back(s->name);
            out.threads.push_back({base + 1, static_cast<std::int64_t>(names.size()),
                                   s->name.substr(s->name.rfind('.') + 1)});
            it = names.end() - 1;
        }
        const auto tid = static_cast<std::int64_t>(it - names.begin()) + 1;
        nlohmann::json args = {{"rank", r.rank}, {"device_ts_ns", s->ts}, {"slack_ns", r.slack_ns}};
        out.slices.push_back(LayoutSlice{base + 1, tid, s->name, "device_phase",
                                         placed_ns(r, s->ts), s->dur, json_document::dump(args)});
    }
    // Lane 2: the window the rank was placed in and the room it had.
    out.processes.push_back({base + 2, fmt::format("rank{} / Placement Bound", r.rank)});
    out.threads.push_back({base + 2, 1, "outer window"});
    out.threads.push_back({base + 2, 2, "placement slack"});
    out.slices.push_back(
        LayoutSlice{base + 2, 1, fmt::format("chip.run.runner_run (rank{})", r.rank), "containment",
                    r.outer_start_ns, r.outer_duration_ns, r.placement_json});
    out.slices.push_back(LayoutSlice{
        base + 2, 2, fmt::format("slack {:.1f} us", static_cast<double>(r.slack_ns) / 1000.0),
        "containment", r.place_lo_ns, r.slack_ns, r.placement_json});
}

}  // namespace

Result<HostLayout> build_host_layout(const std::vector<HostSpan>& spans,
                                     const std::vector<RankHostInput>& ranks) {
    HostLayout out;
    for (const RankHostInput& r : ranks)
        if (r.rank < 0 || r.rank > kMaxHostBlockRank)
            return layout_error(fmt::format(
                "rank{} has no room in the multi-rank trace: rank host blocks sit at pids "
                "11 + 3·rank + lane below the ranks' views at 100, so at most {} ranks "
                "(rank0..rank{})",
                r.rank, kMaxHostBlockRank + 1, kMaxHostBlockRank));
    RanksWindow window = ranks_window(spans, ranks);
    out.earliest_ns = window.lo;
    auto dispatcher_spans = dispatcher_spans_of(spans, ranks, window);
    if (dispatcher_spans.size() > kMaxDispatchers) {
        std::vector<std::uint64_t> pids;
        for (const auto& [pid, list] : dispatcher_spans) pids.push_back(pid);
        return layout_error(
            fmt::format("{} dispatching processes overlap the Ranks' window (pids {}); the "
                        "multi-rank trace has room for {} (pids 1..{})",
                        pids.size(), fmt::join(pids, ", "), kMaxDispatchers, kMaxDispatchers));
    }
    add_dispatchers(dispatcher_spans, out);
    for (const RankHostInput& r : ranks)
        add_rank_blocks(r, window.host_of[&r], window.device_of[&r], out);
    return out;
}

}  // namespace ptune::l3
