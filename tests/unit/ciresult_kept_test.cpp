// ciresult: bench-summary's CI-result tables come from the load the bench reader made for the
// cases (KeptResults), not from a second read of the files (issue #32 leftover, #35).

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ptune/bench/model.hpp"
#include "ptune/ciresult/inputs.hpp"
#include "ptune/core/handoff.hpp"

using namespace ptune;
using namespace ptune::ciresult;

namespace {

std::string ci_data(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/ciresult/" + name;
}

// Titles and cells of tables, to compare two sets of tables.
std::vector<std::vector<std::string>> flat(const std::vector<render::Table>& tables) {
    std::vector<std::vector<std::string>> out;
    for (const render::Table& table : tables) {
        out.push_back({table.title});
        for (const auto& row : table.rows) out.push_back(row);
    }
    return out;
}

}  // namespace

TEST_CASE("ciresult: the tables come from the reader's load, one load per input", "[ciresult]") {
    install_bench_reader();
    const std::vector<std::string> inputs = {ci_data("daily/published"), ci_data("suite-b"),
                                             ci_data("daily-fail/published/report.md")};
    // A fresh load of each input gives the tables the kept results must give.
    const auto expected = flat(tables_for_inputs(inputs));
    KeptResults kept;
    const std::size_t before = load_count();
    Diagnostics diagnostics;
    std::size_t cases = 0;
    // As bench-summary reads: the reader on a second thread (core/handoff.hpp).
    Status status = produce_alongside<bench::BenchCase>(
        [&](const bench::CaseSink& sink) {
            return bench::for_each_bench_case(inputs, {}, diagnostics, sink);
        },
        [&](bench::BenchCase&&) { ++cases; });
    REQUIRE(status);
    CHECK(cases > 0);
    CHECK(load_count() - before == inputs.size());
    const auto tables = tables_for_inputs(inputs, &kept);
    CHECK(load_count() - before == inputs.size());  // no second read
    CHECK(flat(tables) == expected);
}

TEST_CASE("ciresult: an input the reader did not keep is loaded for its tables", "[ciresult]") {
    install_bench_reader();
    KeptResults kept;
    const std::size_t before = load_count();
    const auto tables = tables_for_inputs({ci_data("suite-a")}, &kept);
    CHECK(load_count() - before == 1);
    REQUIRE_FALSE(tables.empty());
    CHECK(tables.front().title.find("operator suite") == 0);
}

TEST_CASE("ciresult: without a KeptResults the reader keeps nothing", "[ciresult]") {
    install_bench_reader();
    Diagnostics diagnostics;
    REQUIRE(bench::for_each_bench_case({ci_data("suite-a")}, {}, diagnostics,
                                       [](bench::BenchCase&&) {}));
    KeptResults later;  // made after the read: it holds nothing
    const std::size_t before = load_count();
    CHECK_FALSE(tables_for_inputs({ci_data("suite-a")}, &later).empty());
    CHECK(load_count() - before == 1);
}
