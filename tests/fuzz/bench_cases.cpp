#include "bench_cases.hpp"

#include <nlohmann/json.hpp>

#include "ptune/bench/summary.hpp"
#include "ptune/rules/metrics.hpp"

namespace ptune::fuzz {

void exercise_bench_outputs(const std::vector<bench::BenchCase>& cases) {
    rules::MetricStore store;
    bench::publish_metrics(cases, store);
    for (const bench::BenchCase& bench_case : cases) {
        nlohmann::json view = bench::case_to_json(bench_case);
        // The renderers dump with `replace`: invalid UTF-8 from an input must not throw.
        std::string text = view.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        auto reparsed = nlohmann::json::parse(text, nullptr, false);
        if (!reparsed.is_discarded()) {
            auto read_back = bench::case_from_json(reparsed, "fuzz.json");
            (void)read_back;
        }
        for (const bench::BenchBlock& block : bench_case.blocks) {
            auto lines = bench::format_run_lines(block, true);
            (void)lines;
            (void)bench::rank_imbalance(block);
        }
    }
}

}  // namespace ptune::fuzz
