// Generator of a large operator-suite `suite-result.json` (ci-results.md §2) for the CI-result
// benchmark (tools/ci_suite_bench.sh, docs/PERFORMANCE.md "bench-gate"):
//
//   ci_suite_gen TEMPLATE OUT_DIR CASES RANKS ROUNDS [SCALE]
//
// TEMPLATE is a suite-result.json (tests/data/ciresult/suite-a/suite-result.json): its envelope
// and first case are kept, the case repeated CASES times (`op-00000`, ...) with RANKS ranks of
// ROUNDS samples each, two dispatches a rank (compute and clear), every sample of compute times
// SCALE (default 1; a current run at 1.02 is 2 % slower), into OUT_DIR/suite-result.json.
// Deterministic (fixed seed), so figures are comparable between runs.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/stats.hpp"
#include "random.hpp"

namespace {

using nlohmann::json;

/// Rounded to 3 decimals, as the harness writes microseconds.
double micro(double value) {
    return std::round(value * 1000.0) / 1000.0;
}

double median(const std::vector<double>& values) {
    return ptune::stats::median(values).value_or(0.0);
}

int usage() {
    std::fputs("usage: ci_suite_gen TEMPLATE OUT_DIR CASES RANKS ROUNDS [SCALE]\n", stderr);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 6 || argc > 7) return usage();
    const long cases = std::strtol(argv[3], nullptr, 10);
    const long ranks = std::strtol(argv[4], nullptr, 10);
    const long rounds = std::strtol(argv[5], nullptr, 10);
    const double scale = argc == 7 ? std::strtod(argv[6], nullptr) : 1.0;
    if (cases <= 0 || ranks <= 0 || rounds <= 0 || !(scale > 0)) return usage();
    std::ifstream in(argv[1], std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    json document = json::parse(text.str(), nullptr, false);
    if (!in || document.is_discarded() || !document.contains("cases") ||
        !document["cases"].is_array() || document["cases"].empty()) {
        std::fprintf(stderr, "ci_suite_gen: %s is no suite-result.json with cases\n", argv[1]);
        return 2;
    }
    const json model = document["cases"][0];
    document["sampling"]["rounds"] = rounds;
    ptune::synth::Xorshift64Star random(7);
    json generated = json::array();
    for (long c = 0; c < cases; ++c) {
        json one = model;
        const std::string id = fmt::format("op-{:05}", c);
        one["case_id"] = id;
        one["measurement_case"] = id;
        one["measurement_id"] = fmt::format("{}/{}", one.value("run_id", ""), id);
        json rank_list = json::array();
        double lowest = 0, highest = 0;
        for (long r = 0; r < ranks; ++r) {
            std::vector<double> compute, clear, total;
            for (long i = 0; i < rounds; ++i) {
                compute.push_back(
                    micro((90.0 + static_cast<double>(r) + random.uniform(0, 1)) * scale));
                clear.push_back(micro(7.0 + random.uniform(0, 1) * 0.5));
                total.push_back(micro(compute.back() + clear.back()));
            }
            const double rank_median = median(total);
            lowest = r == 0 ? rank_median : std::min(lowest, rank_median);
            highest = r == 0 ? rank_median : std::max(highest, rank_median);
            rank_list.push_back({{"trace_pid", std::to_string(10 + r)},
                                 {"median_us", rank_median},
                                 {"samples_us", total},
                                 {"dispatches",
                                  {{{"slot", 0},
                                    {"task", "compute"},
                                    {"samples_us", compute},
                                    {"median_us", median(compute)}},
                                   {{"slot", 1},
                                    {"task", "clear"},
                                    {"samples_us", clear},
                                    {"median_us", median(clear)}}}}});
        }
        one["ranks"] = std::move(rank_list);
        one["metric_us"] = lowest;
        one["max_rank_median_us"] = highest;
        one["rank_spread_us"] = highest - lowest;
        generated.push_back(std::move(one));
    }
    document["cases"] = std::move(generated);
    std::filesystem::create_directories(argv[2]);
    const std::string path = (std::filesystem::path(argv[2]) / "suite-result.json").string();
    std::ofstream out(path, std::ios::binary);
    out << document.dump(2) << '\n';
    if (!out) {
        std::fprintf(stderr, "ci_suite_gen: cannot write %s\n", path.c_str());
        return 2;
    }
    return 0;
}
