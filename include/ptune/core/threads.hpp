#pragma once
/// @file threads.hpp
/// Helper threads that start at once. A thread started for work beside its caller's is first
/// placed on another of the caller's CPUs, then allowed on all of them again: on the 2-vCPU
/// reference machine a plain new thread waited for the idle core a median 2.9 ms, often for as
/// long as its busy parent ran (docs/PERFORMANCE.md, "Helper threads that start at once"); so
/// placed, 0.08 ms.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

namespace ptune::threads {

namespace detail {

/// The handshake of one thread_beside: the caller places the new thread on its other CPUs, and
/// the thread, once it runs there, widens its own CPU set back to the caller's.
class Placement {
  public:
    /// Reads the caller's CPU set and the CPU it runs on; the thread waits until place().
    Placement();
    ~Placement();
    Placement(const Placement&) = delete;
    Placement& operator=(const Placement&) = delete;

    /// The caller, once `thread` exists: the thread on the caller's other CPUs (when there are
    /// any and the system lets it), then let go.
    void place(std::thread& thread);
    /// The new thread, first thing: waits until it is placed, then takes the caller's CPU set.
    void settle();

  private:
    struct Sets;
    std::unique_ptr<Sets> sets_;
    bool narrowed_ = false;  ///< written before placing_ is unlocked, read after
    std::mutex mutex_;
    std::unique_lock<std::mutex> placing_{mutex_};  ///< held by the caller until place()
};

}  // namespace detail

/// A std::thread running `f`, started on another CPU than the caller's where it may use one.
/// Throws std::system_error as std::thread does when no thread can be started.
template <class F>
std::thread thread_beside(F&& f) {
    auto placement = std::make_shared<detail::Placement>();
    std::thread thread([placement, f = std::forward<F>(f)]() mutable {
        placement->settle();
        f();
    });
    placement->place(thread);
    return thread;
}

/// `f()` computed on a thread_beside, or here and now at get() when made `deferred` (as
/// std::async's launch policies). As std::async's future, the destructor waits for the thread.
template <class R>
class Beside {
  public:
    Beside() = default;
    template <class F>
    Beside(F&& f, bool deferred) {
        if (deferred) {
            deferred_ = std::forward<F>(f);
            return;
        }
        std::packaged_task<R()> task(std::forward<F>(f));
        result_ = task.get_future();
        thread_ = thread_beside(std::move(task));
    }
    Beside(Beside&&) = default;
    Beside& operator=(Beside&& other) {
        wait();
        thread_ = std::move(other.thread_);
        result_ = std::move(other.result_);
        deferred_ = std::move(other.deferred_);
        return *this;
    }
    ~Beside() { wait(); }

    /// Whether there is a result to get (false when default-made or after get()).
    bool valid() const { return result_.valid() || deferred_.has_value(); }
    /// The result, or the exception `f` threw; once.
    R get() {
        if (deferred_) {
            auto f = std::move(*deferred_);
            deferred_.reset();
            return f();
        }
        wait();
        return result_.get();
    }
    /// Waits for the thread.
    void wait() {
        if (thread_.joinable()) thread_.join();
    }

  private:
    std::thread thread_;
    std::future<R> result_;
    std::optional<std::function<R()>> deferred_;
};

/// `f()` on a thread_beside when `beside` and a thread can be started, else deferred to get():
/// for work worth a thread only on large inputs.
template <class R, class F>
Beside<R> beside_if(bool beside, F f) {
    if (beside) {
        try {
            return Beside<R>(f, false);
        } catch (const std::system_error&) {  // (no thread: at get())
        }
    }
    return Beside<R>(std::move(f), true);
}

/// Spinning before sleeping, where it helps. On the 2-vCPU reference machine a sleeping thread
/// took tens of µs to wake, its waker's system call included (docs/PERFORMANCE.md, "Turns
/// without sleeping"): more than the waits between threads working beside each other usually
/// last. A waiter on a single CPU never spins: it would only keep the thread it waits for from
/// running.
class Spinner {
  public:
    /// Spins when the calling thread may run on more than one CPU and the machine is not busy
    /// (spins_for()).
    Spinner();
    /// Whether waiters spin with `cpus` CPUs for the process and `runnable` threads ready to run
    /// on the machine, the caller included: only when there are no more of them than CPUs, so
    /// that the thread waited for has one of its own. On a busy machine a spinning waiter takes
    /// the CPU another thread was ready to use (two 20K swimlane-merges at once on two vCPUs:
    /// 4-13 % slower spinning regardless, within 2 % of never spinning with this check).
    static bool spins_for(std::size_t cpus, std::size_t runnable) {
        return cpus > 1 && runnable <= cpus;
    }
    /// Whether until() spins.
    bool spins() const { return spins_; }
    /// Calls `done()` until it returns true or a short while (kSpin) has passed; its last answer.
    template <class Done>
    bool until(Done&& done) const {
        if (!spins_) return done();
        const auto give_up = std::chrono::steady_clock::now() + kSpin;
        for (;;) {
            for (int i = 0; i < 64; ++i) {
                if (done()) return true;
                relax();
            }
            if (std::chrono::steady_clock::now() >= give_up) return done();
        }
    }

  private:
    /// Longer than a turn between two threads usually lasts (a batch's write, tens of µs), short
    /// against a sleeping thread's whole wait.
    static constexpr std::chrono::microseconds kSpin{200};
    static void relax() {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        asm volatile("yield");
#endif
    }
    bool spins_;
};

/// A condition variable whose waiters spin (Spinner) before they sleep: for a condition another
/// core's thread usually makes true within µs. The spin reads a count of notifications, not the
/// waiters' shared state, so a spinning waiter leaves the mutex to the thread it waits for.
class SpinningCondition {
  public:
    explicit SpinningCondition(const Spinner& spinner = Spinner()) : spinner_(spinner) {}

    /// As std::condition_variable::wait(lock, ready); `ready` is read under the lock.
    template <class Ready>
    void wait(std::unique_lock<std::mutex>& lock, Ready ready) {
        while (!ready()) {
            const std::uint64_t seen = notified_.load();
            lock.unlock();
            const bool notified = spinner_.until([&] { return notified_.load() != seen; });
            lock.lock();
            if (!notified) return condition_.wait(lock, ready);
        }
    }
    /// Wakes every waiter; called after the change it announces was made under the mutex.
    void notify_all() {
        ++notified_;
        condition_.notify_all();
    }

  private:
    const Spinner spinner_;
    std::atomic<std::uint64_t> notified_{0};
    std::condition_variable condition_;
};

/// Locks `mutex`, spinning (`spinner`) first while it is held: for a lock held a few µs at a
/// time by a thread on the other core.
void lock_spinning(std::mutex& mutex, const Spinner& spinner);

}  // namespace ptune::threads
