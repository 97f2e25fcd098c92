// The lib-main-attention lane's files (upstream-2026-12.md §3.5, §3.7): the append-only journal
// (skipped and counted lines, a truncated tail, metric_us null, invalid_metric as a failure with
// its reason), finalization preferring a contract-valid success, the third suite-result.json
// shape and the identity parts history records.

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "ptune/bench/model.hpp"
#include "ptune/ciresult/inputs.hpp"
#include "ptune/ciresult/lane.hpp"
#include "ptune/ciresult/suite.hpp"
#include "ptune/core/io.hpp"

namespace ciresult_lane_test {

using namespace ptune;
using namespace ptune::ciresult;

namespace {

std::string lane(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/ciresult/lane/" + name;
}

std::string read(const std::string& path) {
    auto text = io::read_file(path);
    REQUIRE(text);
    return *text;
}

// The composed journal line of §3.7, exact bytes.
constexpr const char* kComposed =
    R"({"case_id":"attention-csa","contract_id":"dsv4-main-attention-v1:attention-csa","entrypoint":"models/deepseek_v4_flash_mtp/decode_csa.py","metric":null,"metric_us":null,"process_rc":0,"rank_diagnostics":[],"status":"invalid_metric","validation":{"error":"expected exactly one effective_us headline, found 0","outputs":[],"status":"fail"}})";

}  // namespace

TEST_CASE("lane: the composed §3.7 journal line is a test failure with no number", "[ciresult]") {
    Diagnostics diagnostics;
    const auto journal = parse_journal(std::string(kComposed) + "\n", "j.jsonl", diagnostics);
    REQUIRE(journal.attempts.size() == 1);
    CHECK(journal.skipped == 0);
    CHECK_FALSE(journal.truncated_tail);
    const auto& r = journal.attempts[0];
    CHECK(r.case_id == "attention-csa");
    CHECK(r.contract_id == "dsv4-main-attention-v1:attention-csa");
    CHECK_FALSE(r.metric_us);  // null = no value
    CHECK_FALSE(r.valid_success());
    CHECK(r.failure_reason() ==
          "status invalid_metric: expected exactly one effective_us headline, found 0");
    const auto cases = to_bench_cases(finalize(journal.attempts));
    REQUIRE(cases.size() == 1);
    CHECK(cases[0].status == "fail");
    CHECK_FALSE(cases[0].ci_mean());
    REQUIRE(cases[0].blocks.size() == 1);
    CHECK(*cases[0].blocks[0].unavailable ==
          "status invalid_metric: expected exactly one effective_us headline, found 0");
}

TEST_CASE("lane: journal lines that are no case result are skipped and counted", "[ciresult]") {
    Diagnostics diagnostics;
    const auto journal = parse_journal(read(lane("journal-bad.jsonl")), "bad.jsonl", diagnostics);
    CHECK(journal.attempts.size() == 2);
    CHECK(journal.skipped == 3);                       // not JSON, an array, no case_id
    CHECK(journal.truncated_tail);                     // still being appended: noted, not counted
    CHECK(diagnostics.count(Severity::Warning) == 4);  // three lines + the count
    bool line2 = false, line4 = false;
    for (const auto& d : diagnostics.items()) {
        if (d.line == 2) line2 = true;
        if (d.line == 4) line4 = true;
    }
    CHECK(line2);
    CHECK(line4);
}

TEST_CASE("lane: an unterminated last line that parses is kept", "[ciresult]") {
    Diagnostics diagnostics;
    const auto journal = parse_journal(kComposed, "j.jsonl", diagnostics);
    CHECK(journal.attempts.size() == 1);
    CHECK_FALSE(journal.truncated_tail);
}

TEST_CASE("lane: finalization folds retries, preferring a contract-valid success", "[ciresult]") {
    Diagnostics diagnostics;
    const auto journal = parse_journal(read(lane("journal.jsonl")), "journal.jsonl", diagnostics);
    REQUIRE(journal.attempts.size() == 4);
    std::map<std::string, std::size_t> attempts;
    const auto final = finalize(journal.attempts, &attempts);
    REQUIRE(final.size() == 2);
    CHECK(attempts["attention-csa"] == 3);
    // fail, then 546.0, then a retry at 551.0: the first valid success is never replaced.
    CHECK(final[0].case_id == "attention-csa");
    REQUIRE(final[0].metric_us);
    CHECK(*final[0].metric_us == 546.0);
    CHECK(final[0].line == 2);
    CHECK(final[1].case_id == "attention-hca");
    CHECK_FALSE(final[1].valid_success());
    // Pure: the same attempts give the same result.
    CHECK(finalize(journal.attempts).size() == 2);
    // A success after failures replaces the failure.
    auto only_fail_then_pass = journal.attempts;
    only_fail_then_pass.resize(2);
    CHECK(*finalize(only_fail_then_pass)[0].metric_us == 546.0);
}

TEST_CASE("lane: the three suite-result.json shapes", "[ciresult]") {
    using nlohmann::json;
    CHECK(suite_shape(json{{"lane_id", "lib-main-attention"}, {"variant", "ci"}}) ==
          SuiteShape::Lane);
    CHECK(suite_shape(json{{"variant", "ci"}}) == SuiteShape::OperatorV2);
    CHECK(suite_shape(json{{"variant", "candidate"}}) == SuiteShape::OperatorV1);
    // The operator suite's parser refuses the lane's shape rather than misreading it.
    Diagnostics diagnostics;
    auto operator_suite = parse_suite_result(read(lane("candidate/suite-result.json")),
                                             "suite-result.json", diagnostics);
    REQUIRE_FALSE(operator_suite);
    CHECK_THAT(operator_suite.error().message, Catch::Contains("lane result"));
}

TEST_CASE("lane: suite-result.json identity parts and cases", "[ciresult]") {
    Diagnostics diagnostics;
    auto suite = parse_lane_suite(read(lane("candidate/suite-result.json")), "s.json", diagnostics);
    REQUIRE(suite);
    CHECK(suite->identity.lane == "lib-main-attention");
    CHECK(suite->identity.toolchain_epoch == "cann-8.1");
    CHECK(suite->identity.device_epoch == "dev-e1");
    CHECK(suite->identity.source_tree == "4b825dc6");
    CHECK(suite->identity.contract.size() == 64);  // contract.spec_hash
    REQUIRE(suite->cases.size() == 1);
    CHECK(*suite->cases[0].metric_us == 560.0);
    const auto cases = to_bench_cases(suite->cases);
    REQUIRE(cases.size() == 1);
    const auto& summary = *cases[0].blocks[0].effective_us;
    CHECK(summary.median == 560.0);  // metric_us, the official value
    CHECK(summary.rounds == 100);
    auto bad = parse_lane_suite(R"({"lane_id": "x", "cases": 3})", "s.json", diagnostics);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code == ExitCode::InputError);
}

TEST_CASE("lane: identity of history inputs", "[ciresult]") {
    Diagnostics diagnostics;
    auto identity = identity_of_inputs({lane("toolchain-8.2")}, diagnostics);
    REQUIRE(identity);
    CHECK(identity->found);
    CHECK(identity->run.toolchain_epoch == "cann-8.2");
    CHECK(identity->case_contracts.at("attention-csa") == "dsv4-main-attention-v1:attention-csa");
    auto journal = identity_of_inputs({lane("journal.jsonl")}, diagnostics);
    REQUIRE(journal);
    CHECK(journal->found);
    CHECK(journal->run.lane.empty());  // a journal carries no run identity
    CHECK(journal->case_contracts.size() == 2);
    CHECK(journal->lane_cases == std::set<std::string>{"attention-csa", "attention-hca"});
    auto mixed = identity_of_inputs({lane("shadow/01"), lane("toolchain-8.2")}, diagnostics);
    REQUIRE_FALSE(mixed);
    CHECK_THAT(mixed.error().message, Catch::Contains("toolchain epoch"));
    auto none = identity_of_inputs({lane("make_lane.py")}, diagnostics);
    REQUIRE(none);
    CHECK_FALSE(none->found);
}

TEST_CASE("lane: the bench loader reads journals and lane suites", "[ciresult]") {
    install_bench_reader();
    Diagnostics diagnostics;
    auto cases = bench::load_bench_inputs({lane("journal.jsonl"), lane("candidate")},
                                          bench::LoadOptions{}, diagnostics);
    REQUIRE(cases);
    REQUIRE(cases->size() == 3);
    CHECK((*cases)[0].name == "attention-csa");
    CHECK((*cases)[2].blocks[0].effective_us->median == 560.0);
}

TEST_CASE("lane: a suite-result.json is the lane's only as a JSON object with lane_id at the top",
          "[ciresult]") {
    // read_lane_input() tells the shapes apart without building the document (one parse of an
    // operator suite, by its own parser): the cases the document-based check decided so.
    const auto dir =
        std::filesystem::temp_directory_path() / ("ptune-lane-shape-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string file = (dir / "suite-result.json").string();
    const auto is_lane = [&](const std::string& text) {
        std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
        Diagnostics diagnostics;
        std::size_t cases = 0;
        auto status = read_lane_input(file, diagnostics, [&](bench::BenchCase&&) { ++cases; });
        return status.has_value() && cases > 0;
    };
    const std::string lane_text = read(lane("candidate/suite-result.json"));
    CHECK(is_lane(lane_text));
    CHECK_FALSE(is_lane(R"({"suite_id": "s", "cases": [{"lane_id": "main"}]})"));  // nested
    CHECK_FALSE(is_lane(R"([{"lane_id": "main"}])"));                              // not an object
    CHECK_FALSE(is_lane(lane_text.substr(0, lane_text.size() / 2)));               // cut short
    CHECK_FALSE(is_lane(lane_text + " }"));                                        // trailing
    std::filesystem::remove_all(dir);
}

}  // namespace ciresult_lane_test
