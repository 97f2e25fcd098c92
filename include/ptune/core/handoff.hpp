#pragma once
/// @file handoff.hpp
/// Reading and digesting at once: a producer (a log's reader) runs on a second thread and hands
/// what it makes, in order and in batches, to a consumer on the calling thread. On two
/// cores the digest of a case overlaps the reading of the next ones; the consumer sees exactly
/// the sequence a plain loop would give it.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "ptune/core/threads.hpp"

namespace ptune {

/// How much a producer may run ahead of its consumer.
struct HandoffLimits {
    /// Items handed over at once (one lock a batch). What the consumer has not taken when the
    /// producer ends is digested alone, the producer's core idle: up to `batches` full batches
    /// once the consumer fell behind, two when it caught up and sleeps. Small, so that this tail
    /// stays short (bench-summary of 22,000 cases: batches of 2048 left 4–10 ms of digesting
    /// after the log was read, 128 under 0.5 ms), yet each wake-up of a sleeping consumer
    /// brings 256 items (the 500 MB log of 100,000 cases: 1,476 futex calls instead of 762, wall
    /// the same).
    std::size_t batch = 128;
    std::size_t batches = 4;  ///< full batches waiting at most: memory stays bounded
    /// Consumed items go back to the producer: emit(item) then leaves in `item` one the
    /// consumer is done with (its storage reused, its contents stale) instead of a moved-from
    /// one. For a producer that resets the item it emits from before filling it again.
    bool recycle = false;
};

/// Runs `produce(emit)` on a second thread while this thread calls `consume(item)` for every item
/// `produce` passes to `emit`, in the order emitted; returns what `produce` returns once both
/// are done. A consumer that has caught up sleeps until half the batches are full: a wake-up is
/// a futex call and a context switch, and one per batch cost a 100 MB log 60 % more system
/// time. An exception of either side is rethrown here after the other side stopped (a
/// producer whose consumer failed runs on, its items dropped). When no thread can be started,
/// both run on this thread, item by item.
template <class Item, class Produce, class Consume>
auto produce_alongside(Produce&& produce, Consume&& consume, HandoffLimits limits = {})
    -> decltype(produce(std::declval<const std::function<void(Item&&)>&>())) {
    using Result = decltype(produce(std::declval<const std::function<void(Item &&)>&>()));
    struct Shared {
        std::mutex mutex;
        std::condition_variable changed;
        std::deque<std::vector<Item>> full;
        std::vector<std::vector<Item>> spent;  ///< consumed batches, with `recycle`
        std::atomic<std::size_t> spent_count = 0;
        bool done = false, abandoned = false;
        std::exception_ptr failure;
    } shared;
    if (limits.batch == 0) limits.batch = 1;
    if (limits.batches == 0) limits.batches = 1;
    const std::size_t wake_at = (limits.batches + 1) / 2;  // full batches that wake the consumer

    std::vector<Item> batch;
    const auto hand_over = [&] {
        std::unique_lock lock(shared.mutex);
        shared.changed.wait(
            lock, [&] { return shared.full.size() < limits.batches || shared.abandoned; });
        if (shared.abandoned) {
            batch.clear();
            return;
        }
        shared.full.push_back(std::move(batch));
        batch = std::vector<Item>();
        const bool wake = shared.full.size() == wake_at;  // the consumer may wait for it
        lock.unlock();
        if (wake) shared.changed.notify_all();
        batch.reserve(limits.batch);
    };
    std::vector<Item> spare;  // consumed items, given back one per emit
    const std::function<void(Item &&)> emit = [&](Item&& item) {
        batch.push_back(std::move(item));
        if (limits.recycle) {
            if (spare.empty() && shared.spent_count.load(std::memory_order_relaxed) > 0) {
                std::lock_guard lock(shared.mutex);
                spare = std::move(shared.spent.back());
                shared.spent.pop_back();
                shared.spent_count.store(shared.spent.size(), std::memory_order_relaxed);
            }
            if (!spare.empty()) {
                item = std::move(spare.back());
                spare.pop_back();
            }
        }
        if (batch.size() >= limits.batch) hand_over();
    };

    std::optional<std::conditional_t<std::is_void_v<Result>, char, Result>> result;
    const auto run_producer = [&] {
        try {
            if constexpr (std::is_void_v<Result>) {
                produce(emit);
            } else {
                result.emplace(produce(emit));
            }
        } catch (...) {
            std::lock_guard lock(shared.mutex);
            shared.failure = std::current_exception();
        }
        // What was emitted before a failure is consumed too, as a plain loop would have.
        try {
            if (!batch.empty()) hand_over();
        } catch (...) {
            std::lock_guard lock(shared.mutex);
            if (!shared.failure) shared.failure = std::current_exception();
        }
        {
            std::lock_guard lock(shared.mutex);
            shared.done = true;
        }
        shared.changed.notify_all();
    };

    std::thread producer;
    try {
        producer = threads::thread_beside(run_producer);
    } catch (const std::system_error&) {
        // No second thread: the plain loop.
        if constexpr (std::is_void_v<Result>) {
            produce([&](Item&& item) { consume(std::move(item)); });
            return;
        } else {
            return produce([&](Item&& item) { consume(std::move(item)); });
        }
    }

    std::exception_ptr consumer_failure;
    for (;;) {
        std::vector<Item> items;
        {
            std::unique_lock lock(shared.mutex);
            if (shared.full.empty())
                shared.changed.wait(lock,
                                    [&] { return shared.full.size() >= wake_at || shared.done; });
            if (shared.full.empty()) break;
            items = std::move(shared.full.front());
            shared.full.pop_front();
            // The producer waits only when the queue was full.
            if (shared.full.size() + 1 == limits.batches) {
                lock.unlock();
                shared.changed.notify_all();
            }
        }
        try {
            for (Item& item : items) consume(std::move(item));
            if (limits.recycle) {
                std::lock_guard lock(shared.mutex);
                if (shared.spent.size() < limits.batches) {
                    shared.spent.push_back(std::move(items));
                    shared.spent_count.store(shared.spent.size(), std::memory_order_relaxed);
                }
            }
        } catch (...) {
            consumer_failure = std::current_exception();
            {
                std::lock_guard lock(shared.mutex);
                shared.abandoned = true;
                shared.full.clear();
            }
            shared.changed.notify_all();
            break;
        }
    }
    producer.join();
    if (consumer_failure) std::rethrow_exception(consumer_failure);
    if (shared.failure) std::rethrow_exception(shared.failure);
    if constexpr (!std::is_void_v<Result>) return std::move(*result);
}

}  // namespace ptune
