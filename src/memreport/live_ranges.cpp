#include "ptune/memreport/live_ranges.hpp"

#include <algorithm>

namespace ptune::memreport {

std::optional<SpacePeak> find_peak(const SpaceUsage& usage) {
    // (point, delta): a buffer adds its size at its first use and drops it after its last.
    std::vector<std::pair<std::uint64_t, std::int64_t>> events;
    for (const auto& buffer : usage.buffers) {
        if (!buffer.allocated) continue;
        auto size = static_cast<std::int64_t>(buffer.size_bytes);
        events.emplace_back(buffer.live_begin, size);
        events.emplace_back(buffer.live_end + 1, -size);
    }
    if (events.empty()) return std::nullopt;
    std::sort(events.begin(), events.end());
    SpacePeak peak;
    peak.at = events.front().first;
    std::int64_t current = 0;
    std::int64_t best = -1;
    for (std::size_t i = 0; i < events.size();) {
        std::uint64_t point = events[i].first;
        for (; i < events.size() && events[i].first == point; ++i) current += events[i].second;
        if (current > best) {
            best = current;
            peak.at = point;
        }
    }
    peak.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(best, 0));
    for (std::size_t i = 0; i < usage.buffers.size(); ++i) {
        const Buffer& buffer = usage.buffers[i];
        if (buffer.allocated && buffer.live_begin <= peak.at && peak.at <= buffer.live_end) {
            peak.live.push_back(i);
            peak.top = std::max(peak.top, buffer.addr_end);
        }
    }
    std::stable_sort(peak.live.begin(), peak.live.end(), [&](std::size_t a, std::size_t b) {
        return usage.buffers[a].addr_begin < usage.buffers[b].addr_begin;
    });
    return peak;
}

std::vector<Overlap> find_overlaps(const SpaceUsage& usage, std::size_t limit) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < usage.buffers.size(); ++i) {
        const Buffer& buffer = usage.buffers[i];
        if (buffer.allocated && buffer.addr_end > buffer.addr_begin) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return usage.buffers[a].addr_begin < usage.buffers[b].addr_begin;
    });
    std::vector<Overlap> found;
    for (std::size_t i = 0; i < order.size() && found.size() < limit; ++i) {
        const Buffer& a = usage.buffers[order[i]];
        for (std::size_t j = i + 1; j < order.size() && found.size() < limit; ++j) {
            const Buffer& b = usage.buffers[order[j]];
            if (b.addr_begin >= a.addr_end) break;  // sorted: nothing further overlaps a
            if (a.live_end < b.live_begin || b.live_end < a.live_begin) continue;
            found.push_back({order[i], order[j], std::max(a.live_begin, b.live_begin)});
        }
    }
    return found;
}

}  // namespace ptune::memreport
