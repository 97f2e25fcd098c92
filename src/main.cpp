// ptune: a thin main over ptune::core. Everything else lives in the library and src/cli/.

#include <exception>
#include <iostream>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cli/command.hpp"

int main(int argc, char** argv) {
#if defined(__GLIBC__)
    // ptune reads one large input, builds its model and exits. glibc would map every block over
    // 128 KiB separately and unmap it on free, so each vector that grows or is replaced costs
    // fresh page faults; kept on the heap, freed memory is reused (a 200K-task swimlane-merge:
    // a third fewer page faults, ~8% less time). Memory is returned at exit anyway.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    // One heap for every thread: a second thread's allocations then reuse the holes the first
    // left (with a heap of its own, work moved to a second core raised the peak by what it
    // allocated).
    mallopt(M_ARENA_MAX, 1);
#endif
    try {
        return ptune::cli::run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "ptune: internal error: " << e.what() << '\n';
    } catch (...) {
        std::cerr << "ptune: internal error\n";
    }
    return static_cast<int>(ptune::ExitCode::InternalError);
}
