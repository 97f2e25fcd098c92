#pragma once
/// @file live_ranges.hpp
/// What is live together: per space, the peak of the live bytes in program order and the
/// buffers live at it (to plan fusion and re-tiling), and base allocations that share bytes
/// while both are live (an allocator bug). Live ranges are the text report's statement
/// counter or the pass dump's line numbers (mem-report.md §4, §11); both are lexical.

#include <cstddef>
#include <optional>
#include <vector>

#include "ptune/memreport/model.hpp"

namespace ptune::memreport {

/// The peak of Σ size over the buffers live at one program point (a sweep over the live-range
/// ends, O(n log n)); nullopt when the space has no allocated buffer.
std::optional<SpacePeak> find_peak(const SpaceUsage& usage);

/// Pairs of allocated buffers whose address ranges overlap while their live ranges overlap,
/// at most `limit` of them, each found when the later one becomes live (`at`), the lower
/// address first. A sweep in program order over the live set ordered by address: O(n log n).
std::vector<Overlap> find_overlaps(const SpaceUsage& usage, std::size_t limit = 64);

}  // namespace ptune::memreport
