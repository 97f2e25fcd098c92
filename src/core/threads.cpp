// Helper threads that start at once (threads.hpp).

#include "ptune/core/threads.hpp"

#include <cstdio>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace ptune::threads::detail {

#if defined(__linux__)

struct Placement::Sets {
    cpu_set_t whole;   ///< the caller's CPU set
    cpu_set_t others;  ///< it without the CPU the caller runs on
};

Placement::Placement() : sets_(std::make_unique<Sets>()) {
    CPU_ZERO(&sets_->whole);
    if (sched_getaffinity(0, sizeof sets_->whole, &sets_->whole) != 0) return;
    const int cpu = sched_getcpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE) return;
    sets_->others = sets_->whole;
    CPU_CLR(cpu, &sets_->others);
    narrowed_ = CPU_COUNT(&sets_->others) > 0;
}

Placement::~Placement() = default;

void Placement::place(std::thread& thread) {
    if (narrowed_)
        narrowed_ = pthread_setaffinity_np(thread.native_handle(), sizeof sets_->others,
                                           &sets_->others) == 0;
    placing_.unlock();
}

void Placement::settle() {
    // The caller places it right after the thread exists: rarely a wait, and a short one.
    std::lock_guard placed(mutex_);
    if (narrowed_) pthread_setaffinity_np(pthread_self(), sizeof sets_->whole, &sets_->whole);
}

#else

struct Placement::Sets {};
Placement::Placement() = default;
Placement::~Placement() = default;
void Placement::place(std::thread&) {
    placing_.unlock();
}
void Placement::settle() {
    std::lock_guard placed(mutex_);
}

#endif

}  // namespace ptune::threads::detail

namespace ptune::threads {

namespace {

/// Threads ready to run on the machine, the caller included (/proc/loadavg's fourth field,
/// "runnable/total"); 1 when unknown.
std::size_t runnable_threads() {
    std::FILE* file = std::fopen("/proc/loadavg", "r");
    if (!file) return 1;
    unsigned long runnable = 1;
    const int read = std::fscanf(file, "%*s %*s %*s %lu/", &runnable);
    std::fclose(file);
    return read == 1 && runnable > 0 ? runnable : 1;
}

}  // namespace

Spinner::Spinner() {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    const std::size_t cpus =
        sched_getaffinity(0, sizeof set, &set) == 0 ? static_cast<std::size_t>(CPU_COUNT(&set)) : 1;
#else
    const std::size_t cpus = std::thread::hardware_concurrency();
#endif
    spins_ = spins_for(cpus, runnable_threads());
}

void lock_spinning(std::mutex& mutex, const Spinner& spinner) {
    if (!spinner.until([&] { return mutex.try_lock(); })) mutex.lock();
}

}  // namespace ptune::threads
