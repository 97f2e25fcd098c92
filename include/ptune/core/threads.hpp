#pragma once
/// @file threads.hpp
/// Helper threads that start at once. A thread started for work beside its caller's is first
/// placed on another of the caller's CPUs, then allowed on all of them again: on the 2-vCPU
/// reference machine a plain new thread waited for the idle core a median 2.9 ms, often for as
/// long as its busy parent ran (docs/PERFORMANCE.md, "Helper threads that start at once"); so
/// placed, 0.08 ms.

#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
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

}  // namespace ptune::threads
