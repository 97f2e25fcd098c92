// Helper threads placed beside their caller (core/threads.hpp): they run what they are given on
// the caller's CPUs, and Beside behaves as std::async's future does.

#include <atomic>
#include <chrono>
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

using ptune::threads::Beside;
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
