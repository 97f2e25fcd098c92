#include "host_clock.hpp"

#include <optional>
#include <string_view>

namespace ptune::swimlane::detail {

namespace {

__extension__ typedef __int128 Int128;  // the anchor mapping overflows 64 bits

/// The best sample of one position: valid, then smallest (round trip, sample_idx).
std::optional<AnchorSample> pick(const ClockAnchors& anchors, std::string_view position) {
    std::optional<AnchorSample> best;
    auto rtt = [](const AnchorSample& s) { return s.host_after_ns - s.host_before_ns; };
    for (const auto& s : anchors.samples) {
        bool valid = s.position == position && !s.failed && s.sample_idx >= 0 &&
                     s.host_before_ns > 0 && s.device_cycles > 0 &&
                     s.host_after_ns >= s.host_before_ns;
        if (!valid) continue;
        if (!best || rtt(s) < rtt(*best) ||
            (rtt(s) == rtt(*best) && s.sample_idx < best->sample_idx))
            best = s;
    }
    return best;
}

}  // namespace

std::int64_t AnchorFit::map(std::int64_t cycles) const {
    Int128 elapsed = static_cast<Int128>(cycles - start_cycles);
    Int128 nominal = elapsed * 1'000'000'000 / static_cast<Int128>(freq_hz);
    Int128 span = static_cast<Int128>(end_cycles - start_cycles);
    Int128 nominal_span = span * 1'000'000'000 / static_cast<Int128>(freq_hz);
    Int128 drift = static_cast<Int128>(end_mid_ns) - (start_mid_ns + nominal_span);
    return static_cast<std::int64_t>(start_mid_ns + nominal + drift * elapsed / span);
}

HostClockAlignment align_clock(const ClockAnchors& anchors, std::uint64_t freq_hz,
                               std::int64_t first_cycles, std::int64_t last_cycles,
                               AnchorFit& fit) {
    HostClockAlignment out;
    auto fail = [&](std::string reason) {
        out.reason = std::move(reason);
        return out;
    };
    if (freq_hz == 0) return fail("invalid_frequency");
    if (!anchors.present) return fail("missing_clock_anchors");
    if (anchors.samples.empty()) return fail("missing_clock_anchor_samples");
    if (!anchors.device_timestamp_unit.empty() && anchors.device_timestamp_unit != "syscnt_cycles")
        return fail("unsupported_device_timestamp_unit");
    const std::string& raw_unit = anchors.raw_device_timestamp_unit;
    if (!raw_unit.empty() && raw_unit != "device_uptime_us" && raw_unit != "syscnt_cycles" &&
        raw_unit != "unknown")
        return fail("unsupported_raw_device_timestamp_unit");
    auto start = pick(anchors, "pre_host_orchestration");
    if (!start) return fail("no_valid_pre_host_orchestration_anchor");
    auto end = pick(anchors, "post_device_execution");
    if (!end) return fail("no_valid_post_device_execution_anchor");

    auto mid = [](const AnchorSample& s) {
        return s.host_before_ns + (s.host_after_ns - s.host_before_ns) / 2;
    };
    // A device timestamp in µs of uptime is only known to 1 µs.
    std::int64_t quantum = raw_unit == "device_uptime_us" ? 1000 : 0;
    auto uncertainty = [&](const AnchorSample& s) {
        return (s.host_after_ns - s.host_before_ns + 1) / 2 + quantum;
    };
    if (mid(*end) <= mid(*start)) return fail("host_anchor_order_invalid");
    if (end->device_cycles <= start->device_cycles) return fail("device_anchor_order_invalid");
    // ptune's own guard: anchors more than 2^62 ns (146 years) apart at the nominal frequency
    // are damaged, and would overflow the 128-bit drift correction.
    Int128 nominal_span = static_cast<Int128>(end->device_cycles - start->device_cycles) *
                          1'000'000'000 / static_cast<Int128>(freq_hz);
    if (nominal_span > (Int128{1} << 62)) return fail("anchor_span_out_of_range");
    if (first_cycles <= last_cycles &&
        (first_cycles < start->device_cycles || last_cycles > end->device_cycles))
        return fail("device_timestamps_outside_anchor_coverage");

    fit = AnchorFit{mid(*start), start->device_cycles, mid(*end), end->device_cycles, freq_hz};
    out.calibrated = true;
    out.anchor_uncertainty_ns = std::max(uncertainty(*start), uncertainty(*end));
    out.pre_sample_idx = start->sample_idx;
    out.post_sample_idx = end->sample_idx;
    return out;
}

}  // namespace ptune::swimlane::detail
