// ciresult: bench-summary's CI-result tables and bench-gate's notes and upstream comparison come
// from the load the bench reader made for the cases (KeptResults), not from a second read of the
// files (issue #32 leftover, #35).

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ptune/bench/model.hpp"
#include "ptune/ciresult/inputs.hpp"
#include "ptune/core/handoff.hpp"
#include "ptune/gate/pipeline.hpp"

namespace ciresult_kept_test {

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

namespace {

// gate::run_gate() of `baseline` (one run per input) against `current`: the loads it made (its
// reading and its CI notes and comparison together), and what it appended against a fresh
// annotate_gate() of the same inputs.
void check_gate_reads_once(const std::vector<std::string>& baseline,
                           const std::vector<std::string>& current) {
    install_bench_reader();
    render::Report expected;
    const std::size_t expected_refused = annotate_gate(baseline, current, expected);
    const std::size_t before = load_count();
    Diagnostics diagnostics;
    gate::Options options;
    auto outcome =
        gate::run_gate({baseline, "", current, false}, options,
                       gate::ReportSettings{options, false, false}, nullptr, diagnostics);
    REQUIRE(outcome);
    CHECK(load_count() - before == baseline.size() + current.size());  // no second read
    CHECK(outcome->ci_refused == expected_refused);
    const render::Report& report = outcome->report;
    // The annotation comes last: the gate's own notes and table before it.
    REQUIRE(report.notes.size() >= expected.notes.size());
    CHECK(std::vector<std::string>(
              report.notes.end() - static_cast<std::ptrdiff_t>(expected.notes.size()),
              report.notes.end()) == expected.notes);
    REQUIRE(report.tables.size() >= expected.tables.size());
    CHECK(flat(std::vector<render::Table>(
              report.tables.end() - static_cast<std::ptrdiff_t>(expected.tables.size()),
              report.tables.end())) == flat(expected.tables));
    for (const auto& [key, value] : expected.data.items()) CHECK(report.data[key] == value);
}

}  // namespace

TEST_CASE("ciresult: bench-gate reads each suite result once", "[ciresult][gate]") {
    // Upstream's comparison table and both runs' submission.json / history-selection.json.
    check_gate_reads_once({ci_data("suite-a")}, {ci_data("suite-v2-published")});
    check_gate_reads_once({ci_data("suite-a/suite-result.json")},
                          {ci_data("suite-b-golden/suite-result.json")});
}

TEST_CASE("ciresult: bench-gate reads each daily-CI result once", "[ciresult][gate]") {
    check_gate_reads_once({ci_data("daily/published")}, {ci_data("daily-slow/published")});
    // A history naming one run twice, the current run among them: one load per argument.
    check_gate_reads_once({ci_data("daily/published"), ci_data("daily/published/report.md"),
                           ci_data("daily/published")},
                          {ci_data("daily/published")});
}

}  // namespace ciresult_kept_test
