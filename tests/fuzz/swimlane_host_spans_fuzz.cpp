// Fuzz target: host-log `[STRACE]` spans for clock alignment by span containment
// (upstream-2026-09.md §1.12, §2.5): read_host_spans on any text, the invocation windows, the
// containment placement against a fixed capture extent (the option byte scales it, so every
// branch of the placement is reached), and a dispatch_identity.json read of the same text.

#include <cstdint>

#include "fuzz_support.hpp"
#include "ptune/swimlane/containment.hpp"

namespace swimlane_host_spans_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 1);
    ptune::swimlane::HostSpanLog log;
    ptune::swimlane::read_host_spans(input.text(), log);
    ptune::swimlane::HostAlignmentInput alignment;
    alignment.windows = ptune::swimlane::host_windows(log.spans);
    alignment.logs = {"host.log"};
    ptune::swimlane::CaptureExtent extent;
    const std::uint8_t option = input.option(0);
    extent.freq_hz = option % 2 ? 50'000'000 : 1'000'000'000;
    extent.has_extent = option % 3 != 0;
    extent.first = 1'000'000 + option;
    extent.last = extent.first + 400 * (option % 7);
    if (option % 5 == 1) extent.sched = std::pair(extent.first, extent.last);
    if (option % 11 == 2) extent.orch = std::pair(extent.first, extent.first + 5);
    if (option % 4 == 3) extent.host_records = std::pair<std::int64_t, std::int64_t>(1, 2);
    (void)ptune::swimlane::align_by_containment(alignment, extent);
    for (const auto& window : alignment.windows)
        (void)ptune::swimlane::place_in_window(window, extent);
    (void)ptune::swimlane::read_dispatch_identity(input.text(), "dispatch_identity.json");
    bool valid = false;
    (void)ptune::swimlane::validate_saved_alignment(input.text(), extent.freq_hz, valid);
    return 0;
}

}  // namespace swimlane_host_spans_fuzz
