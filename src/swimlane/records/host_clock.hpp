#pragma once
// Clock alignment of host-orchestration captures (swimlane.md §2.7, §6.2.1): the two anchor
// positions sampled around a run pair host CLOCK_MONOTONIC nanoseconds with device cycles; a
// device timestamp maps onto the host axis by the nominal frequency plus a linear correction for
// the drift the anchors measured. All integer, truncating toward zero, as upstream.

#include <cstdint>
#include <string>
#include <vector>

#include "ptune/swimlane/model.hpp"

namespace ptune::swimlane::detail {

/// One `metadata.clock_anchors.samples[]` entry as read; -1 = absent or not an integer.
struct AnchorSample {
    std::string position;  ///< "pre_host_orchestration" / "post_device_execution"
    std::int64_t sample_idx = -1;
    std::int64_t host_before_ns = -1;
    std::int64_t host_after_ns = -1;
    std::int64_t device_cycles = -1;
    bool failed = false;  ///< `error` neither null, 0 nor ""
};

/// `metadata.clock_anchors` as read.
struct ClockAnchors {
    bool present = false;
    std::string device_timestamp_unit;      ///< "" when absent
    std::string raw_device_timestamp_unit;  ///< "" when absent
    std::vector<AnchorSample> samples;
};

/// The chosen anchor pair and the mapping it defines.
struct AnchorFit {
    std::int64_t start_mid_ns = 0, start_cycles = 0;
    std::int64_t end_mid_ns = 0, end_cycles = 0;
    std::uint64_t freq_hz = 0;

    /// Host CLOCK_MONOTONIC ns of a device cycle count.
    std::int64_t map(std::int64_t cycles) const;
};

/// Decides whether the anchors calibrate the device clock for timestamps in
/// [`first_cycles`, `last_cycles`] (the capture's positive device timestamps; first > last when
/// there are none). On success `fit` holds the mapping.
HostClockAlignment align_clock(const ClockAnchors& anchors, std::uint64_t freq_hz,
                               std::int64_t first_cycles, std::int64_t last_cycles, AnchorFit& fit);

}  // namespace ptune::swimlane::detail
