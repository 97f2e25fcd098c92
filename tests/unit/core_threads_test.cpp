// Helper threads placed beside their caller (core/threads.hpp): they run what they are given on
// the caller's CPUs, and Beside behaves as std::async's future does.

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include <catch2/catch.hpp>

#include "ptune/core/threads.hpp"

namespace core_threads_test {

using ptune::threads::Beside;
using ptune::threads::Spinner;
using ptune::threads::thread_beside;

#if defined(__linux__)
namespace {

cpu_set_t own_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
    return set;
}

/// Runs `f` with this thread on one CPU of its set, its set restored after.
template <class F>
void on_one_cpu(F&& f) {
    const cpu_set_t whole = own_cpus();
    int first = 0;
    while (!CPU_ISSET(first, &whole)) ++first;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
    f();
    REQUIRE(sched_setaffinity(0, sizeof whole, &whole) == 0);
}

}  // namespace

TEST_CASE("a thread started beside its caller ends up on the caller's CPUs", "[core]") {
    const cpu_set_t caller = own_cpus();
    cpu_set_t seen;
    CPU_ZERO(&seen);
    std::thread thread = thread_beside([&] { seen = own_cpus(); });
    thread.join();
    CHECK(CPU_EQUAL(&seen, &caller));
}

TEST_CASE("a caller on one CPU still starts a thread beside it, on that CPU", "[core]") {
    on_one_cpu([] {
        const cpu_set_t caller = own_cpus();
        cpu_set_t seen;
        CPU_ZERO(&seen);
        int ran_on = -1;
        std::thread thread = thread_beside([&] {
            seen = own_cpus();
            ran_on = sched_getcpu();
        });
        thread.join();
        CHECK(CPU_EQUAL(&seen, &caller));
        CHECK(CPU_ISSET(ran_on, &caller));
    });
}

TEST_CASE("a waiter that may use one CPU only never spins", "[core]") {
    on_one_cpu([] { CHECK_FALSE(Spinner().spins()); });
}
#endif

TEST_CASE("Beside returns what its function returns, or rethrows what it throws", "[core]") {
    Beside<std::string> made([] { return std::string("made"); }, false);
    REQUIRE(made.valid());
    CHECK(made.get() == "made");
    CHECK_FALSE(made.valid());

    Beside<int> failed([]() -> int { throw std::runtime_error("failed"); }, false);
    CHECK_THROWS_WITH(failed.get(), "failed");

    Beside<void> none;
    CHECK_FALSE(none.valid());
}

TEST_CASE("Beside made deferred runs its function at get(), on the caller's thread", "[core]") {
    std::thread::id ran_on;
    bool ran = false;
    Beside<int> later(
        [&] {
            ran = true;
            ran_on = std::this_thread::get_id();
            return 7;
        },
        true);
    CHECK_FALSE(ran);
    REQUIRE(later.valid());
    CHECK(later.get() == 7);
    CHECK(ran);
    CHECK(ran_on == std::this_thread::get_id());
}

TEST_CASE("beside_if runs its function on another thread when asked, else at get() here",
          "[core]") {
    for (bool beside : {true, false}) {
        INFO(beside);
        std::atomic<bool> ran = false;
        std::thread::id ran_on;
        Beside<int> work = ptune::threads::beside_if<int>(beside, [&] {
            ran_on = std::this_thread::get_id();
            ran = true;
            return 7;
        });
        if (!beside) CHECK_FALSE(ran);
        CHECK(work.get() == 7);
        CHECK(ran);
        CHECK((ran_on != std::this_thread::get_id()) == beside);
    }
}

TEST_CASE("Beside waits for its thread when it goes, and when it is assigned over", "[core]") {
    std::atomic<int> finished = 0;
    std::atomic<bool> release = false;
    auto slow = [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        ++finished;
    };
    auto held = [&] {
        while (!release) std::this_thread::yield();
        ++finished;
    };
    { Beside<void> task(slow, false); }
    CHECK(finished == 1);
    Beside<void> task(slow, false);
    task = Beside<void>(held, false);
    CHECK(finished == 2);  // the slow one, waited for by the assignment; the held one waits
    release = true;
    task.wait();
    CHECK(finished == 3);
}

TEST_CASE("waiters spin only where the threads ready to run have a CPU each", "[core]") {
    CHECK(Spinner::spins_for(2, 1));
    CHECK(Spinner::spins_for(2, 2));        // the waiter and the thread it waits for
    CHECK_FALSE(Spinner::spins_for(2, 3));  // another process's thread wants a CPU too
    CHECK_FALSE(Spinner::spins_for(1, 1));
    CHECK(Spinner::spins_for(8, 8));
    CHECK_FALSE(Spinner::spins_for(8, 9));
}

TEST_CASE("lock_spinning locks a free mutex, and one another thread holds once it is let go",
          "[core]") {
    const Spinner spinner;
    std::mutex mutex;
    ptune::threads::lock_spinning(mutex, spinner);
    std::atomic<bool> locked = false;
    std::thread other([&] {
        ptune::threads::lock_spinning(mutex, spinner);
        locked = true;
        mutex.unlock();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the spin: it sleeps
    CHECK_FALSE(locked);
    mutex.unlock();
    other.join();
    CHECK(locked);
}

TEST_CASE(
    "a SpinningCondition's waiter returns once the condition holds, sooner or later than "
    "its spin",
    "[core]") {
    for (const auto delay : {std::chrono::microseconds(0), std::chrono::microseconds(30000)}) {
        std::mutex mutex;
        ptune::threads::SpinningCondition changed;
        bool ready = false;
        std::thread setter([&] {
            std::this_thread::sleep_for(delay);
            {
                std::lock_guard lock(mutex);
                ready = true;
            }
            changed.notify_all();
        });
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return ready; });
        CHECK(ready);
        CHECK(lock.owns_lock());
        lock.unlock();
        setter.join();
    }
}

}  // namespace core_threads_test
