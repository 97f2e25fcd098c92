#pragma once
// The order of a JSON trace's events (trace_json.cpp): every slice, counter and flow end of the
// model in (ts, kind, longer first, creation order), sorted in streams and merged a batch at a
// time; and the two-thread runner the writer's sorts and rendering share.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <limits>
#include <span>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "ptune/core/threads.hpp"
#include "trace_model.hpp"

namespace ptune::swimlane::detail::json_out {

// (No anonymous namespace: JsonWriter's lambdas capture these types, which GCC flags with
// -Wsubobject-linkage where the unity build includes trace_json.cpp.)

/// Runs `helper` on a second thread while this one runs `main`. When either throws, `stop` tells
/// the other to finish early, and the exception is rethrown here once both are done.
template <class Helper, class Main, class Stop>
void on_two_threads(Helper&& helper, Main&& main, Stop&& stop) {
    std::exception_ptr helper_failed;
    std::thread thread = threads::thread_beside([&] {
        try {
            helper();
        } catch (...) {
            helper_failed = std::current_exception();
            stop();
        }
    });
    try {
        main();
    } catch (...) {
        stop();
        thread.join();
        throw;
    }
    thread.join();
    if (helper_failed) std::rethrow_exception(helper_failed);
}

/// What an event is: EventMerge's groups of streams, in the order events at one instant come.
enum EventKind : std::uint8_t { kSliceEvent, kCounterEvent, kFlowStart, kFlowEnd, kKinds };

/// One event of the output: its kind and its index in the model's slices, counters or flows.
struct EventRef {
    std::uint32_t index;
    EventKind kind;
};

/// Every slice, counter and flow end in (ts, kind, longer first, creation order), a batch at a
/// time. Each kind is cut into streams, consecutive ranges of its indices, sorted on their own
/// (slices by (ts, -dur), the others by ts) and merged: the kinds never interleave at one
/// instant, and within a kind a tie goes to the longer slice, then to the lower stream (the
/// lower index). From `parallel_from` events on, the streams are sorted on two threads. A
/// sort's scratch is 8 bytes an item, and the streams are small (an eighth of one kind of flow
/// ends, a quarter of the slices) so that the two threads' scratches together are what one
/// thread's was with larger streams: the peak of the run is here (all the orders, 4 bytes an
/// item, and the scratches).
class EventMerge {
  public:
    EventMerge(const TraceModel& model, std::size_t parallel_from) : m_(model) {
        // The orders and each thread's scratch are made here, before the sorts, where this
        // thread's holes can take them (before the process kept one heap for every thread,
        // main.cpp, the orders the helper made in its own heap raised the run's peak by 1.1 MB
        // at 20K tasks).
        std::size_t largest = 0;
        for (int stream = 0; stream < kStreams; ++stream) {
            auto [begin, end] = part(stream);
            order_[stream].resize(end - begin);
            largest = std::max<std::size_t>(largest, end - begin);
            size_ += end - begin;
        }
        // Streams go to whichever thread is free.
        std::atomic<int> queued = 0;
        auto sort_queued = [&](std::vector<std::uint64_t>& items) {
            for (int stream; (stream = queued++) < kStreams;) sort_stream(stream, items);
        };
        std::vector<std::uint64_t> items, helper_items;
        items.reserve(largest);
        if (size_ < parallel_from) {
            sort_queued(items);
        } else {
            helper_items.reserve(largest);
            on_two_threads([&] { sort_queued(helper_items); }, [&] { sort_queued(items); },
                           [&] { queued = kStreams; });
        }
        for (int stream = 0; stream < kStreams; ++stream)
            with_kind(kind_of(stream), [&](auto k) { advance<k()>(stream); });
        for (int kind = 0; kind < kKinds; ++kind)
            with_kind(static_cast<EventKind>(kind), [&](auto k) { choose_best<k()>(); });
    }

    /// Events in all.
    std::size_t size() const { return size_; }

    /// The next `limit` events (fewer at the end) into `batch`; false when none are left.
    bool next(std::vector<EventRef>& batch, std::size_t limit) {
        batch.clear();
        while (batch.size() < limit) {
            int kind = kSliceEvent;  // (kinds in order, so a tie goes to the lower one)
            for (int other = kCounterEvent; other < kKinds; ++other)
                if (kind_head_[other] < kind_head_[kind]) kind = other;
            if (kind_head_[kind] == kDone) break;
            const int stream = best_[kind];
            batch.push_back({order_[stream][at_[stream]++], static_cast<EventKind>(kind)});
            with_kind(static_cast<EventKind>(kind), [&](auto k) { pass<k()>(stream); });
        }
        return !batch.empty();
    }

  private:
    static constexpr std::int64_t kDone = std::numeric_limits<std::int64_t>::max();
    /// Streams of each kind, and where each kind's streams begin.
    static constexpr int kParts[kKinds] = {4, 2, 8, 8};
    static constexpr int kFirst[kKinds + 1] = {0, 4, 6, 14, 22};
    static constexpr int kStreams = kFirst[kKinds];

    static constexpr EventKind kind_of(int stream) {
        return stream < kFirst[1]   ? kSliceEvent
               : stream < kFirst[2] ? kCounterEvent
               : stream < kFirst[3] ? kFlowStart
                                    : kFlowEnd;
    }

    /// The indices [begin, end) of a stream's slices, counters or flows.
    std::pair<std::uint32_t, std::uint32_t> part(int stream) const {
        const EventKind kind = kind_of(stream);
        const std::size_t count = kind == kSliceEvent     ? m_.slices.size()
                                  : kind == kCounterEvent ? m_.counters.size()
                                                          : m_.flows.size();
        const auto p = static_cast<std::size_t>(stream - kFirst[kind]);
        const auto parts = static_cast<std::size_t>(kParts[kind]);
        return {static_cast<std::uint32_t>(count * p / parts),
                static_cast<std::uint32_t>(count * (p + 1) / parts)};
    }

    void sort_stream(int stream, std::vector<std::uint64_t>& items) {
        const std::uint32_t begin = part(stream).first;
        auto& order = order_[stream];  // (sized by the constructor)
        for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = begin + i;
        switch (const EventKind kind = kind_of(stream)) {
            case kSliceEvent:
                stable_order(
                    order, [&](std::uint32_t i) { return time_key(m_.slices[i].ts); },
                    longer_first(m_.slices), &items);
                break;
            case kCounterEvent:
                stable_order(
                    order, [&](std::uint32_t i) { return time_key(m_.counters[i].ts); }, KeepTies{},
                    &items);
                break;
            default: {
                // A flow's time is an offset into its slice, so the key reads the slice too:
                // the keys are read in flow order, and the slice of the flow kAhead on is
                // fetched meanwhile, since slices are not in flow order and a large trace's are
                // far beyond the cache.
                const bool start = kind == kFlowStart;
                auto flow_key = [&](std::uint32_t i) {
                    constexpr std::uint32_t kAhead = 16;
                    if (i + kAhead < m_.flows.size())
                        __builtin_prefetch(&m_.slices[m_.flows[i + kAhead].slice(start)]);
                    return time_key(m_.flow_ts(i, start));
                };
                stable_order(order, flow_key, KeepTies{}, &items);
            }
        }
    }

    std::int64_t ts_of(EventKind kind, std::uint32_t i) const {
        switch (kind) {
            case kSliceEvent:
                return m_.slices[i].ts;
            case kCounterEvent:
                return m_.counters[i].ts;
            default:
                return m_.flow_ts(i, kind == kFlowStart);
        }
    }

    /// Calls `f` with `kind` as a compile-time constant (std::integral_constant): the loop over
    /// events then has a branch less for each choice a kind makes (the merge ~12 % faster).
    template <class F>
    static void with_kind(EventKind kind, F&& f) {
        switch (kind) {
            case kSliceEvent:
                return f(std::integral_constant<EventKind, kSliceEvent>{});
            case kCounterEvent:
                return f(std::integral_constant<EventKind, kCounterEvent>{});
            case kFlowStart:
                return f(std::integral_constant<EventKind, kFlowStart>{});
            default:
                return f(std::integral_constant<EventKind, kFlowEnd>{});
        }
    }

    /// Past the head of `stream`, of kind `Kind`.
    template <EventKind Kind>
    void pass(int stream) {
        advance<Kind>(stream);
        choose_best<Kind>();
    }

    /// Each stream's head time is cached, so merging reads one record per event; the record
    /// kAhead events on is fetched early, and half-way there a flow's slice (time order is not
    /// memory order).
    template <EventKind Kind>
    void advance(int stream) {
        const auto& order = order_[stream];
        const std::size_t at = at_[stream];
        head_[stream] = at < order.size() ? ts_of(Kind, order[at]) : kDone;
        constexpr std::size_t kAhead = 16;
        if (at + kAhead < order.size()) {
            std::uint32_t i = order[at + kAhead];
            __builtin_prefetch(Kind == kSliceEvent     ? static_cast<const void*>(&m_.slices[i])
                               : Kind == kCounterEvent ? static_cast<const void*>(&m_.counters[i])
                                                       : static_cast<const void*>(&m_.flows[i]));
        }
        if (Kind >= kFlowStart && at + kAhead / 2 < order.size())
            __builtin_prefetch(
                &m_.slices[m_.flows[order[at + kAhead / 2]].slice(Kind == kFlowStart)]);
    }

    /// The stream of `Kind` whose head comes first: the earliest, at one time the longer slice,
    /// then the lower stream. Kept between events and found again only for the kind an event
    /// came from.
    template <EventKind Kind>
    void choose_best() {
        int best = kFirst[Kind];
        for (int stream = best + 1; stream < kFirst[Kind + 1]; ++stream) {
            if (head_[stream] > head_[best]) continue;
            if (head_[stream] < head_[best] || (Kind == kSliceEvent && head_[stream] != kDone &&
                                                m_.slices[order_[stream][at_[stream]]].dur >
                                                    m_.slices[order_[best][at_[best]]].dur))
                best = stream;
        }
        best_[Kind] = best;
        kind_head_[Kind] = head_[best];
    }

    const TraceModel& m_;
    std::vector<std::uint32_t> order_[kStreams];
    std::size_t at_[kStreams] = {};
    std::int64_t head_[kStreams] = {};
    int best_[kKinds] = {};
    std::int64_t kind_head_[kKinds] = {};  ///< head_[best_[kind]]
    std::size_t size_ = 0;
};

}  // namespace ptune::swimlane::detail::json_out
