// Fuzz target: benchmark logs read by load_bench_inputs as a `.log` file, i.e. `[RUN]` report
// lines, `[STRACE]` markers, two-pass sentinels and CI group framing, under every combination
// of the `[STRACE]` recomputation options, given or left to be read off the log (the first
// three bytes choose them).

#include <algorithm>
#include <cstdint>
#include <limits>

#include "bench_cases.hpp"
#include "fuzz_support.hpp"
#include "ptune/bench/model.hpp"

namespace bench_log_fuzz {

namespace {

std::size_t pick_count(std::uint8_t selector) {
    // Small values reach every code path; the extremes are what a user may type.
    constexpr std::size_t kExtremes[] = {std::numeric_limits<std::size_t>::max(),
                                         std::size_t{1} << 32, 1000000};
    if (selector >= 253) return kExtremes[selector - 253];
    return selector % 16;
}

}  // namespace

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 3);
    ptune::bench::LoadOptions options;
    std::uint8_t flags = input.option(0);
    options.strace.distributed = (flags & 1) != 0;
    options.strace.resident = (flags & 2) != 0;
    options.strace.raw = (flags & 4) != 0;
    options.recompute_from_strace = (flags & 8) == 0;
    options.strace.warmup = pick_count(input.option(1));
    options.strace.rounds = std::max<std::size_t>(1, pick_count(input.option(2)));  // CLI: > 0
    // Facts left unset are read off the log or inferred (bits 4-6 unset warmup, rounds, mode).
    if ((flags & 16) != 0) options.strace.warmup.reset();
    if ((flags & 32) != 0) options.strace.rounds.reset();
    if ((flags & 64) != 0) {
        options.strace.distributed.reset();
        options.strace.resident.reset();
    }
    const std::string& path = ptune::fuzz::write_scratch_file("run.log", input.text());
    ptune::Diagnostics diagnostics;
    auto cases = ptune::bench::load_bench_inputs({path}, options, diagnostics);
    if (cases) ptune::fuzz::exercise_bench_outputs(*cases);
    return 0;
}

}  // namespace bench_log_fuzz
