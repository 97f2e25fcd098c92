#include "ptune/memreport/live_ranges.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

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
    // A sweep in program order keeps the live buffers ordered by address. In a correct layout
    // they are disjoint, so a newly live buffer can only overlap its address predecessor and
    // the successors that start below its end: O(n log n) plus the pairs reported.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < usage.buffers.size(); ++i) {
        const Buffer& buffer = usage.buffers[i];
        if (buffer.allocated && buffer.addr_end > buffer.addr_begin) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return usage.buffers[a].live_begin < usage.buffers[b].live_begin;
    });
    std::set<std::pair<std::uint64_t, std::size_t>> live;  // (addr_begin, index)
    std::multimap<std::uint64_t, std::size_t> ends;        // live_end -> index
    std::vector<Overlap> found;
    auto record = [&](std::size_t a, std::size_t b, std::uint64_t at) {
        if (usage.buffers[a].addr_begin > usage.buffers[b].addr_begin ||
            (usage.buffers[a].addr_begin == usage.buffers[b].addr_begin && a > b))
            std::swap(a, b);
        found.push_back({a, b, at});
    };
    for (std::size_t index : order) {
        const Buffer& buffer = usage.buffers[index];
        while (!ends.empty() && ends.begin()->first < buffer.live_begin) {
            std::size_t gone = ends.begin()->second;
            live.erase({usage.buffers[gone].addr_begin, gone});
            ends.erase(ends.begin());
        }
        auto next = live.lower_bound({buffer.addr_begin, 0});
        if (next != live.begin()) {
            std::size_t before = std::prev(next)->second;
            if (usage.buffers[before].addr_end > buffer.addr_begin && found.size() < limit)
                record(before, index, buffer.live_begin);
        }
        for (; next != live.end() && next->first < buffer.addr_end && found.size() < limit; ++next)
            record(next->second, index, buffer.live_begin);
        if (found.size() >= limit) break;
        live.emplace(buffer.addr_begin, index);
        ends.emplace(buffer.live_end, index);
    }
    return found;
}

}  // namespace ptune::memreport
