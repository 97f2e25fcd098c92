#pragma once
// What every bench fuzz target does with the cases it loaded: the outputs bench-summary
// produces (JSON view, upstream `[RUN]` lines, rule metrics) and the JSON read back, so a
// parser result that only breaks a later stage is found too.

#include <vector>

#include "ptune/bench/model.hpp"

namespace ptune::fuzz {

void exercise_bench_outputs(const std::vector<bench::BenchCase>& cases);

}  // namespace ptune::fuzz
