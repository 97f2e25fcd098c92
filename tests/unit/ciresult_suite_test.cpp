// ciresult: the operator suite's suite-result.json and comparison rule (upstream-2026-12.md §2.11).

#include <string>

#include <catch2/catch.hpp>

#include "ptune/ciresult/inputs.hpp"
#include "ptune/ciresult/suite.hpp"
#include "ptune/core/io.hpp"

using namespace ptune;
using namespace ptune::ciresult;

namespace {

std::string suite_data(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/ciresult/" + name;
}

const SuiteCase& find_case(const SuiteResult& suite, const std::string& id) {
    for (const auto& c : suite.cases) {
        if (c.case_id == id) return c;
    }
    FAIL("no case " << id);
    return suite.cases.front();
}

}  // namespace

TEST_CASE("ciresult: §2.11 delta_pct and the golden refusal", "[ciresult]") {
    Diagnostics d;
    auto a = load_suite(suite_data("suite-a"), d);
    auto b = load_suite(suite_data("suite-b"), d);
    auto g = load_suite(suite_data("suite-b-golden/suite-result.json"), d);
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(g);
    CHECK(b->v2);
    const SuiteCase& base = find_case(*a, "demo-attention-8k");
    const SuiteCase& cur = find_case(*b, "demo-attention-8k");
    Comparison c = compare_cases(cur, &base, true);
    REQUIRE(c.delta_pct);
    CHECK(*c.delta_pct == Approx(2.380952));
    CHECK(format_change(c) == "+2.38%");
    CHECK(c.changed_components.empty());
    Comparison refused = compare_cases(find_case(*g, "demo-attention-8k"), &base, true);
    CHECK_FALSE(refused.delta_pct);
    CHECK(refused.reason == "incomparable golden_sha256");
    CHECK(format_change(refused) == "N/A");
    Comparison timeout =
        compare_cases(find_case(*b, "demo-moe-8k"), &find_case(*a, "demo-moe-8k"), true);
    CHECK(timeout.reason == "no passing baseline/current result");
}

TEST_CASE("ciresult: system components and changed components", "[ciresult]") {
    Diagnostics d;
    auto a = load_suite(suite_data("suite-a"), d);
    REQUIRE(a);
    SuiteCase base = find_case(*a, "demo-attention-8k");
    SuiteCase cur = base;
    cur.record["toolchain"]["torch"] = "2.5.0";
    CHECK(compare_cases(cur, &base, true).reason == "incomparable system component: torch");
    cur = base;
    cur.record["toolchain"]["pypto"] = "p2";
    cur.record["source_sha"] = std::string(40, 'b');
    Comparison c = compare_cases(cur, &base, true);
    REQUIRE(c.delta_pct);
    CHECK(*c.delta_pct == 0.0);
    CHECK(c.changed_components == std::vector<std::string>{"pypto-lib", "pypto"});
    // v1-bot: the toolchain itself is an identity key
    CHECK(compare_cases(cur, &base, false).reason == "incomparable toolchain");
}

TEST_CASE("ciresult: suite bench cases use the fastest rank's samples", "[ciresult]") {
    Diagnostics d;
    auto b = load_suite(suite_data("suite-b"), d);
    REQUIRE(b);
    auto cases = to_bench_cases(*b);
    REQUIRE(cases.size() == 2);  // the shared row is not an independent sample
    const auto* block = cases[0].ci_block();
    REQUIRE(block);
    CHECK(block->effective_us->median == Approx(107.5));
    CHECK(block->effective_us->rounds == 100);
    CHECK(block->ranks.size() == 2);
    CHECK(*cases[1].ci_block()->unavailable == "status timeout: case wall limit 1800 s exceeded");
}

TEST_CASE("ciresult: bad suite input", "[ciresult]") {
    Diagnostics d;
    auto not_list = parse_suite_result(R"({"cases": {}})", "s.json", d);
    REQUIRE_FALSE(not_list);
    CHECK(not_list.error().message == "suite-result.json: cases is not a list");
    auto ok = parse_suite_result(
        "{\"status\": \"running\", \"cases\": [\n {\"case_id\": \"x\", \"status\": \"pass\"},\n"
        " {\"case_id\": \"y\", \"status\": \"weird\"}]}",
        "s.json", d);
    REQUIRE(ok);
    CHECK(ok->status == "interrupted");
    REQUIRE(ok->cases.size() == 2);
    CHECK_FALSE(ok->cases[0].valid);
    CHECK(ok->cases[0].line == 2);
    CHECK(ok->cases[1].status == "weird");
    auto syntax = parse_suite_result("{\n\n  \"cases\": [,]}", "s.json", d);
    REQUIRE_FALSE(syntax);
    CHECK(syntax.error().line == 3);
}

TEST_CASE("ciresult: execution.json", "[ciresult]") {
    auto e = parse_execution(
        R"({"phase": "publish", "errors": [{"phase": "suite", "error": "exit 3"}], "suite_exit_code": 3, "step_outcome": "failure"})",
        "execution.json");
    REQUIRE(e);
    CHECK(e->phase == "publish");
    CHECK(*e->suite_exit_code == 3);
    REQUIRE(e->errors.size() == 1);
    CHECK(e->errors[0].second == "exit 3");
    CHECK_FALSE(parse_execution("[]", "execution.json"));
}

TEST_CASE("ciresult: §2.11 operator raw-result.json validated as upstream", "[ciresult]") {
    auto text = io::read_file(suite_data("suite-raw/demo-attention-8k/raw-result.json"));
    REQUIRE(text);
    auto c = validate_suite_raw(*text, "raw-result.json");
    REQUIRE(c);
    REQUIRE(c->status == "pass");
    CHECK(*c->metric_us == 107.5);
    CHECK(*c->max_rank_median_us == 117.0);
    CHECK(*c->rank_spread_us == 9.5);
    REQUIRE(c->ranks.size() == 2);
    CHECK(c->ranks[0].trace_pid == "10");
    CHECK(c->ranks[0].slots[0] == std::pair<std::string, double>{"compute", 110.0});
    CHECK(c->ranks[1].slots[0].second == 100.5);
    CHECK(c->ranks[1].slots[1].second == 7.0);
    auto extra =
        io::read_file(suite_data("suite-raw-extra-dispatch/demo-attention-8k/raw-result.json"));
    REQUIRE(extra);
    auto bad = validate_suite_raw(*extra, "raw-result.json");
    REQUIRE(bad);
    CHECK(bad->status == "fail");
    CHECK(bad->error == "dispatch count changed between rounds");
    auto zero = validate_suite_raw(std::string(*text).replace(text->find("110.0"), 5, "0.0"),
                                   "raw-result.json");
    REQUIRE(zero);
    CHECK(zero->error == "effective_us is not a finite number > 0");
    CHECK_FALSE(validate_suite_raw("[1]", "raw-result.json"));
}
