// Fuzz target: the lib-main-attention lane's readers (upstream-2026-12.md §3.5, §3.7). The first
// byte picks the input: the append-only journal (parse_journal, then finalize and the bench
// cases) or the lane's suite-result.json (parse_lane_suite, suite_shape, finalize, bench cases).

#include <cstdint>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "ptune/ciresult/lane.hpp"

namespace ciresult_lane_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    using namespace ptune::ciresult;
    ptune::fuzz::FuzzInput input(data, size, 1);
    ptune::Diagnostics diagnostics;
    const std::string_view text = input.text();
    if (input.option(0) % 2 == 0) {
        const Journal journal = parse_journal(text, "journal.jsonl", diagnostics);
        std::map<std::string, std::size_t> attempts;
        const auto final = finalize(journal.attempts, &attempts);
        for (const auto& result : final) (void)result.failure_reason();
        (void)to_bench_cases(final);
    } else {
        auto document = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
        if (!document.is_discarded()) (void)suite_shape(document);
        auto suite = parse_lane_suite(text, "suite-result.json", diagnostics);
        if (suite) (void)to_bench_cases(finalize(suite->cases));
    }
    return 0;
}

}  // namespace ciresult_lane_fuzz
