// Fuzz target: multi-rank host placement (upstream-2026-09.md §1.14): every span of a host log
// (read_host_spans with all_spans), its placeable windows, `--rank-pid` values taken from the
// text's `pin ` lines, pairing of one to three ranks whose capture extents the option bytes
// shape (sidecar host_pid and dispatch key, join windows, host records), each pair placed by
// containment, and the host lanes of the trace (dispatchers, rank host blocks) built from the
// placed ranks. Everything works on text in memory, so a run stays fast.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "ptune/l3/host_lanes.hpp"
#include "ptune/l3/host_pairing.hpp"
#include "ptune/swimlane/containment.hpp"

namespace l3_host_placement_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    using namespace ptune;
    fuzz::FuzzInput input(data, size, 2);
    const std::uint8_t shape = input.option(0), ranks_byte = input.option(1);
    swimlane::HostSpanLog log;
    log.all_spans = true;
    swimlane::read_host_spans(input.text(), log);
    std::vector<swimlane::HostWindow> windows =
        l3::placeable_windows(swimlane::host_windows(log.spans));

    // `pin <value>` lines become --rank-pid values (bad ones are refused, never a crash).
    std::vector<l3::RankPin> pins;
    std::string_view text = input.text();
    for (std::size_t begin = 0; begin < text.size() && pins.size() < 4;) {
        std::size_t end = std::min(text.find('\n', begin), text.size());
        std::string_view line = text.substr(begin, end - begin);
        if (line.starts_with("pin "))
            if (auto pin = l3::parse_rank_pid(line.substr(4))) pins.push_back(*pin);
        begin = end + 1;
    }

    // One to three captures, each shaped after a window when there is one.
    const int rank_count = 1 + ranks_byte % 3;
    std::vector<l3::PairingCapture> captures;
    for (int r = 0; r < rank_count; ++r) {
        l3::PairingCapture c;
        c.rank = (ranks_byte & 0x80) ? 27 + r : r;  // near the host block limit of 28
        swimlane::CaptureExtent& e = c.extent;
        e.freq_hz = shape % 2 ? 50'000'000 : 1'000'000'000;
        e.has_extent = shape % 3 != 0;
        e.first = 1'000'000 + 97 * r + shape;
        e.last = e.first + 400 * (1 + (shape >> 3) % 7);
        if (shape & 0x04) e.sched = std::pair(e.first + 10, e.last - 10);
        if (shape & 0x20) e.orch = std::pair(e.first, e.first + 5);
        if (!windows.empty()) {
            const swimlane::HostWindow& w = windows[static_cast<std::size_t>(r) % windows.size()];
            if (shape & 0x40) c.host_pid = static_cast<std::int64_t>(w.pid);
            if (w.identity && (shape & 0x10)) c.identity = w.identity;
            if ((shape & 0x08) && w.root_start < (std::int64_t{1} << 62)) {
                c.host_build_graph_host = true;
                e.host_records = std::pair(w.root_start, w.root_start + 1);
            }
        }
        captures.push_back(c);
    }
    auto pairs = l3::pair_ranks(windows, captures, pins);
    if (!pairs) return 0;

    std::vector<l3::RankHostInput> placed;
    std::vector<std::int64_t> slacks;
    for (std::size_t k = 0; k < pairs->size(); ++k) {
        const l3::HostPairing& p = (*pairs)[k];
        (void)p.to_json();
        if (p.window >= windows.size()) continue;
        const swimlane::HostWindow& w = windows[p.window];
        auto a = swimlane::place_in_window(w, captures[k].extent);
        if (!a) continue;
        l3::RankHostInput in;
        in.rank = captures[k].rank;
        in.pid = p.pid, in.inv = p.inv;
        in.place_lo_ns = w.runner_start;
        // Both anchors are host times near the window's; a window near the int64 limits is
        // left out rather than overflowing the harness's own sums.
        if (w.runner_start > (std::int64_t{1} << 62) || a->host_anchor_min_ns < 0 ||
            a->host_anchor_max_ns > (std::int64_t{1} << 62))
            continue;
        in.slack_ns = std::max<std::int64_t>(0, a->host_anchor_max_ns - a->host_anchor_min_ns);
        in.place_hi_ns = in.place_lo_ns + in.slack_ns;
        in.outer_start_ns = w.runner_start, in.outer_duration_ns = w.runner_dur;
        in.device_phase_zero = a->device_phase_zero;
        in.device_phase_zero_host_ns = a->device_phase_zero_host_ns;
        in.placement_json = a->placement_json;
        placed.push_back(in);
        slacks.push_back(in.slack_ns);
    }
    (void)l3::bound_line(slacks);
    (void)l3::cross_rank_uncertainty(slacks);
    (void)l3::build_host_layout(log.spans, placed);
    return 0;
}

}  // namespace l3_host_placement_fuzz
