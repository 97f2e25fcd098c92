#pragma once
// Orders shared by the swimlane reader and the trace writer: sort_distinct (distinct 64-bit
// values in place) and stable_order (indices by an unsigned key, stably), radix sorts which never
// look keys up at random once read, so a 200K-task capture (millions of items, far beyond the
// cache) costs as much per item as a small one (docs/PERFORMANCE.md, "swimlane-merge"); beside
// them an insertion sort for ranges nearly in order and an in-place permutation.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace ptune::swimlane::detail {

/// Sorts `n` distinct values below 2^bits, ascending, with `spare` room for min(n, 4096) of
/// them. Large arrays: a most-significant-digit pass that permutes the digit's buckets in place
/// (American flag sort; up to 12 bits, for buckets of ~2048 values), so no second buffer of the
/// array's size is needed;
/// buckets of at most 4096 values (in the cache by then): least-significant-digit passes
/// through `spare`, skipping the digits they all share; a few values: insertion.
/// `tie_bits` low bits of each value rarely decide its place (stable_order's positions, which
/// only break ties of the key above them): the passes of a bucket skip them, and each run of
/// values equal above them is put in order by insertion afterwards, where the key width left
/// allows it (a flow's stream: 3 passes a bucket instead of 6).
inline void sort_distinct(std::uint64_t* a, std::size_t n, unsigned bits, std::uint64_t* spare,
                          unsigned tie_bits = 0) {
    if (n <= 48) {
        for (std::size_t k = 1; k < n; ++k) {
            std::uint64_t item = a[k];
            std::size_t j = k;
            for (; j > 0 && item < a[j - 1]; --j) a[j] = a[j - 1];
            a[j] = item;
        }
        return;
    }
    if (n <= 4096) {
        // Only when the bits above the ties tell most values apart: else the runs to put in
        // order by insertion would be long.
        const unsigned low = bits >= tie_bits + 16 ? tie_bits : 0;
        const unsigned passes = (bits - low + 7) / 8;
        std::size_t counts[8][257];  // (only the passes made are cleared: called per bucket)
        for (unsigned p = 0; p < passes; ++p) std::fill(counts[p], counts[p] + 257, 0);
        for (std::size_t k = 0; k < n; ++k)
            for (unsigned p = 0; p < passes; ++p) ++counts[p][((a[k] >> (low + 8 * p)) & 0xFF) + 1];
        std::uint64_t *from = a, *to = spare;
        for (unsigned p = 0; p < passes; ++p) {
            std::size_t* offsets = counts[p];
            if (std::find(offsets, offsets + 257, n) != offsets + 257) continue;
            for (std::size_t d = 1; d < 257; ++d) offsets[d] += offsets[d - 1];
            const unsigned shift = low + 8 * p;
            for (std::size_t k = 0; k < n; ++k) to[offsets[(from[k] >> shift) & 0xFF]++] = from[k];
            std::swap(from, to);
        }
        if (from != a) std::copy(from, from + n, a);
        if (low == 0) return;
        // The passes kept the order the values came in among equal bits above `low`, which the
        // in-place pass before did not keep: each such run sorted by insertion, or the bucket
        // by std::sort once the runs prove long (one key shared by most of a bucket).
        std::size_t moves = 0;
        for (std::size_t k = 1; k < n; ++k) {
            if (a[k] > a[k - 1]) continue;
            std::uint64_t item = a[k];
            std::size_t j = k;
            for (; j > 0 && item < a[j - 1]; --j) a[j] = a[j - 1];
            a[j] = item;
            moves += k - j;
            if (moves > 8 * n) {
                std::sort(a, a + n);
                return;
            }
        }
        return;
    }
    // A digit wide enough for buckets of about 2048 values (up to 12 bits; fewer for fewer
    // values: each bucket's passes cost a fixed 257 counts, too many for buckets of a few
    // hundred).
    unsigned width = 1;
    while (width < 12 && width < bits && (n >> (width + 11)) != 0) ++width;
    const unsigned shift = bits > width ? bits - width : 0;
    const std::size_t digits = std::size_t{1} << width, last = digits - 1;
    std::vector<std::size_t> next(digits), end(digits);
    for (std::size_t k = 0; k < n; ++k) ++next[(a[k] >> shift) & last];
    std::size_t at = 0;
    for (std::size_t d = 0; d < digits; ++d) {
        std::size_t count = next[d];
        next[d] = at;
        at += count;
        end[d] = at;
    }
    for (std::size_t d = 0; d < digits; ++d) {
        while (next[d] < end[d]) {
            std::uint64_t item = a[next[d]];
            for (std::size_t digit = (item >> shift) & last; digit != d;
                 digit = (item >> shift) & last)
                std::swap(item, a[next[digit]++]);
            a[next[d]++] = item;
        }
    }
    // The buckets: the bits below (values of one bucket agree on every bit from `shift` up).
    std::size_t begin = 0;
    for (std::size_t d = 0; d < digits; ++d) {
        if (end[d] - begin > 1)
            sort_distinct(a + begin, end[d] - begin, shift, spare, std::min(tie_bits, shift));
        begin = end[d];
    }
}

/// No tie-break: equal keys keep their order.
struct KeepTies {};

/// Reorders `order` (indices) stably by an unsigned key. Ties keep their order; keys are
/// computed once per index. Keys of a narrow range (at most 2^16 values, and no more than
/// items) without a tie-break are counted and placed. When the key range and the position fit in 64
/// bits together (always, for the times of one capture), each item carries its key above its
/// position and the distinct items are radix-sorted in place (sort_distinct), never looking keys up
/// at random, which is what keeps a 200K-task trace (several million items, far beyond the cache)
/// as fast per item as a small one. Otherwise a least-significant-digit radix sort of the
/// indices, 8 bits per pass, skipping the digits no key differs in.
/// `tie_less` (a strict weak order of indices) orders each run of equal keys, stably: a second
/// key read only where the first one ties, not a second sort of everything.
/// `scratch`, when given, holds the items (8 bytes an index) and keeps its memory for the next
/// sort: one buffer for several sorts instead of one each (a new one rarely fits the holes the
/// last one left, so each grew the heap).
template <class KeyOf, class TieLess = KeepTies>
void stable_order(std::vector<std::uint32_t>& order, KeyOf key_of, TieLess tie_less = {},
                  std::vector<std::uint64_t>* scratch = nullptr) {
    std::size_t n = order.size();
    if (n < 2) return;
    // Runs [begin, end) of equal keys, once `order` holds the sorted indices.
    auto break_ties = [&](auto same_key) {
        if constexpr (!std::is_same_v<TieLess, KeepTies>) {
            for (std::size_t begin = 0, end; begin < n; begin = end) {
                end = begin + 1;
                while (end < n && same_key(begin, end)) ++end;
                if (end - begin > 16) {
                    std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(begin),
                                     order.begin() + static_cast<std::ptrdiff_t>(end), tie_less);
                    continue;
                }
                // Insertion sort: stable, and no buffer to allocate for the usual pair.
                for (std::size_t k = begin + 1; k < end; ++k) {
                    std::uint32_t item = order[k];
                    std::size_t j = k;
                    for (; j > begin && tie_less(item, order[j - 1]); --j) order[j] = order[j - 1];
                    order[j] = item;
                }
            }
        }
    };
    // The keys, by position: read once from the records (a 200K-task trace's are far beyond
    // the cache), then only from this array.
    std::vector<std::uint64_t> own;
    std::vector<std::uint64_t>& items = scratch ? *scratch : own;
    items.resize(n);
    std::uint64_t low = ~std::uint64_t{0}, high = 0;
    std::uint32_t largest = static_cast<std::uint32_t>(n - 1);  // position or index
    for (std::size_t j = 0; j < n; ++j) {
        std::uint64_t key = items[j] = key_of(order[j]);
        low = std::min(low, key);
        high = std::max(high, key);
        largest = std::max(largest, order[j]);
    }
    auto width = [](std::uint64_t v) {
        unsigned bits = 0;
        for (; v; v >>= 1) ++bits;
        return bits;
    };
    unsigned index_bits = width(largest);
    unsigned key_bits = width(high - low);
    if (key_bits == 0) {
        break_ties([](std::size_t, std::size_t) { return true; });
        return;
    }
    if constexpr (std::is_same_v<TieLess, KeepTies>) {
        // Few distinct keys (a thread, a run): counted, then placed; one pass each, where the
        // radix passes below would go over the positions' bits as well.
        if (key_bits <= 16 && (std::size_t{1} << key_bits) <= n) {
            std::vector<std::uint32_t> starts((std::size_t{1} << key_bits) + 1);
            for (std::size_t j = 0; j < n; ++j) ++starts[items[j] - low + 1];
            for (std::size_t d = 1; d < starts.size(); ++d) starts[d] += starts[d - 1];
            std::vector<std::uint32_t> placed(n);
            for (std::size_t j = 0; j < n; ++j) placed[starts[items[j] - low]++] = order[j];
            order.swap(placed);
            return;
        }
    }
    if (key_bits + index_bits <= 64) {
        // Each item carries its key above its position, so the items are distinct and their
        // plain order is the stable one: sorted in place (no second buffer: 8 bytes an item
        // at the writers' peak instead of 16), then each position is replaced by its index.
        for (std::size_t j = 0; j < n; ++j) items[j] = ((items[j] - low) << index_bits) | j;
        std::vector<std::uint64_t> spare(std::min<std::size_t>(n, 4096));
        sort_distinct(items.data(), n, key_bits + index_bits, spare.data(), index_bits);
        std::uint64_t mask = (std::uint64_t{1} << index_bits) - 1;
        bool identity = true;  // (the writers' case: then positions are the indices)
        for (std::size_t j = 0; j < n && identity; ++j) identity = order[j] == j;
        if (!identity)
            for (std::uint64_t& item : items) item = (item & ~mask) | order[item & mask];
        for (std::size_t j = 0; j < n; ++j) order[j] = static_cast<std::uint32_t>(items[j] & mask);
        break_ties([&](std::size_t a, std::size_t b) {
            return items[a] >> index_bits == items[b] >> index_bits;
        });
        return;
    }
    std::vector<std::uint64_t>().swap(own);
    std::vector<std::uint64_t> keys(n);
    std::uint64_t varying = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        keys[i] = key_of(i);
        varying |= keys[i] ^ keys[0];
    }
    std::vector<std::uint32_t> spare(n);
    for (unsigned shift = 0; shift < 64; shift += 8) {
        if (((varying >> shift) & 0xFF) == 0) continue;
        std::size_t counts[257] = {};
        for (std::uint32_t i : order) ++counts[((keys[i] >> shift) & 0xFF) + 1];
        for (std::size_t d = 1; d < 257; ++d) counts[d] += counts[d - 1];
        for (std::uint32_t i : order) spare[counts[(keys[i] >> shift) & 0xFF]++] = i;
        order.swap(spare);
    }
    break_ties([&](std::size_t a, std::size_t b) { return keys[order[a]] == keys[order[b]]; });
}

/// 0..n-1.
inline std::vector<std::uint32_t> identity(std::size_t n) {
    std::vector<std::uint32_t> order(n);
    for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
    return order;
}

/// Sorts a range that is nearly in order by insertion: linear when few items are a few places
/// out of it; past as many moves as items it leaves the rest to std::sort (the result is the
/// same: the items are a permutation of the range's either way).
template <class It>
void sort_nearly_sorted(It begin, It end) {
    const auto size = static_cast<std::size_t>(end - begin);
    std::size_t moves = 0;
    for (It k = begin + (size > 0 ? 1 : 0); k < end; ++k) {
        if (!(*k < *(k - 1))) continue;
        auto item = std::move(*k);
        It j = k;
        for (; j > begin && item < *(j - 1); --j, ++moves) *j = std::move(*(j - 1));
        *j = std::move(item);
        if (moves > size) {
            std::sort(begin, end);
            return;
        }
    }
}

/// Puts `items[order[k]]` at position k for every k, in place along the permutation's cycles
/// (each item moved once; no second array of items). `order` is left as 0..n-1.
template <class T>
void apply_order(std::vector<T>& items, std::vector<std::uint32_t>& order) {
    for (std::uint32_t start = 0; start < order.size(); ++start) {
        if (order[start] == start) continue;
        T held = std::move(items[start]);
        std::uint32_t at = start;
        for (std::uint32_t from = order[at]; from != start; from = order[at]) {
            items[at] = std::move(items[from]);
            order[at] = at;
            at = from;
        }
        items[at] = std::move(held);
        order[at] = at;
    }
}

/// A signed time as an unsigned key with the same order.
inline std::uint64_t time_key(std::int64_t ns) {
    return static_cast<std::uint64_t>(ns) ^ (std::uint64_t{1} << 63);
}

}  // namespace ptune::swimlane::detail
