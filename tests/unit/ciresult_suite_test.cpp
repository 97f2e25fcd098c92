// ciresult: the operator suite's suite-result.json and comparison rule (upstream-2026-12.md §2.11).

#include <string>

#include <catch2/catch.hpp>

#include "../../src/ciresult/json_util.hpp"
#include "ptune/ciresult/inputs.hpp"
#include "ptune/ciresult/suite.hpp"
#include "ptune/core/io.hpp"

namespace ciresult_suite_test {

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

TEST_CASE("ciresult: a number beyond double is an input error at its line", "[ciresult]") {
    // nlohmann reports it as out_of_range, not parse_error: it once escaped as an internal
    // error (exit 3; found by tools/fuzz-long, tests/fuzz/regressions/ciresult/).
    Diagnostics d;
    const std::string text =
        "{\"note\": \"seed 1e999, \\\" 1e999\",\n \"x\": 1e99,\n \"cases\": [1e999]}";
    auto suite = parse_suite_result(text, "s.json", d);
    REQUIRE_FALSE(suite);
    CHECK(suite.error().code == ExitCode::InputError);
    CHECK(suite.error().file == "s.json");
    CHECK(suite.error().line == 3);  // not the string on line 1
    CHECK(suite.error().message == "not valid JSON: number overflow parsing '1e999'");
    auto execution = parse_execution("{\"suite_exit_code\":\n-1e400}", "execution.json");
    REQUIRE_FALSE(execution);
    CHECK(execution.error().line == 2);
    CHECK(execution.error().code == ExitCode::InputError);
    const std::string digits(5000, '3');
    auto long_number = parse_execution("{\"phase\":\n\n" + digits + "e999}", "execution.json");
    REQUIRE_FALSE(long_number);
    CHECK(long_number.error().line == 3);
    CHECK(long_number.error().message.size() == 16 + 120 + 3);  // "not valid JSON: " … "..."
    CHECK(long_number.error().message.ends_with("333..."));
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

TEST_CASE("ciresult: a published suite's submission.json and history-selection.json (§2.9)",
          "[ciresult]") {
    Diagnostics d;
    auto suite = load_suite(suite_data("suite-v2-published"), d);
    REQUIRE(suite);
    CHECK(d.items().empty());
    REQUIRE(suite->submission);
    const Submission& s = *suite->submission;
    CHECK(s.head_sha == "5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f");
    CHECK(s.head_branch == "main");
    CHECK(s.workflow_run_id == "20261204001");
    CHECK(s.run_attempt == "2");
    CHECK(s.logical_date == "2026-12-04");
    CHECK(s.command.size() == 5);
    REQUIRE(suite->history_selection);
    const auto& entries = suite->history_selection->entries;
    REQUIRE(entries.size() == 2);
    CHECK(entries[0].name == "previous");
    CHECK(entries[0].run_id == "20261203T020000Z-1a2b3c4d");
    CHECK(entries[0].attempt == "1");
    CHECK(entries[0].reason.empty());
    CHECK(entries[1].name == "week");
    CHECK(entries[1].reason == "artifact expired");

    // The suite's tables show them: the run's identity and where each baseline came from.
    const auto tables = suite_tables(*suite);
    const render::Table* identity = nullptr;
    const render::Table* baselines = nullptr;
    for (const auto& t : tables) {
        if (t.title.starts_with("suite run identity")) identity = &t;
        if (t.title.starts_with("baselines of the change columns")) baselines = &t;
    }
    REQUIRE(identity != nullptr);
    CHECK(identity->rows[0] ==
          std::vector<std::string>{"commit", "5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f"});
    CHECK(identity->rows[3] == std::vector<std::string>{"workflow run", "20261204001, attempt 2"});
    REQUIRE(baselines != nullptr);
    CHECK(baselines->rows[0].back() == "artifact loaded");
    CHECK(baselines->rows[1].back() == "artifact expired");
}

TEST_CASE(
    "ciresult: bad submission.json / history-selection.json: file:line warning, the rest kept",
    "[ciresult]") {
    Diagnostics d;
    auto suite = load_suite(suite_data("suite-v2-drift"), d);
    REQUIRE(suite);  // the suite stands
    CHECK(suite->cases.size() == 3);
    CHECK_FALSE(suite->submission);
    bool named = false;
    for (const auto& item : d.items()) {
        if (item.file.ends_with("suite-v2-drift/submission.json") && item.line == 3 &&
            item.message.find("not valid JSON") == 0 &&
            item.message.find("the suite is read without it") != std::string::npos)
            named = true;
    }
    CHECK(named);
    REQUIRE(suite->history_selection);
    REQUIRE(suite->history_selection->entries.size() == 1);
    CHECK(suite->history_selection->entries[0].name == "lookup");
    CHECK(suite->history_selection->entries[0].reason == "no successful run on main");

    Diagnostics types;
    auto odd = parse_history_selection(
        "{\n\"previous\": {\"run_id\": \"r1\"},\n\"week\": {\"run_id\": [1], \"date\": "
        "\"2026-11-27\"},\n\"other\": 5\n}\n",
        "history-selection.json", types);
    REQUIRE(odd);
    REQUIRE(odd->entries.size() == 2);  // "other" left out
    CHECK(odd->entries[0].run_id == "r1");
    CHECK(odd->entries[1].date == "2026-11-27");
    CHECK(odd->entries[1].run_id.empty());
    REQUIRE(types.items().size() == 2);
    CHECK(types.items()[0].message == "run_id is not a string or number; left out");
    CHECK(types.items()[0].line == 3);  // week's run_id, not previous's on line 2
    CHECK(types.items()[1].message == "other is not an object; left out");
    CHECK(types.items()[1].line == 4);

    Diagnostics not_object;
    CHECK_FALSE(parse_submission("[1, 2]", "submission.json", not_object));
    REQUIRE(not_object.items().size() == 1);
    CHECK(not_object.items()[0].line == 1);
}

TEST_CASE("ciresult: bench-gate's JSON names the compared suite runs (suite_runs)", "[ciresult]") {
    render::Report report;
    annotate_gate({suite_data("suite-a")}, {suite_data("suite-v2-published")}, report);
    REQUIRE(report.data.contains("suite_runs"));
    const auto& runs = report.data["suite_runs"];
    CHECK_FALSE(runs.contains("baseline"));  // suite-a has neither file
    REQUIRE(runs.contains("current"));
    CHECK(runs["current"]["submission"]["head_sha"] == "5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f");
    CHECK(runs["current"]["submission"]["run_attempt"] == "2");
    const auto& entries = runs["current"]["history_selection"]["entries"];
    CHECK(entries["previous"]["run_id"] == "20261203T020000Z-1a2b3c4d");
    CHECK_FALSE(entries["previous"].contains("reason"));
    CHECK(entries["week"]["reason"] == "artifact expired");

    render::Report plain;
    annotate_gate({suite_data("suite-a")}, {suite_data("suite-b")}, plain);
    CHECK_FALSE(plain.data.contains("suite_runs"));
}

TEST_CASE("suite: the rows' lines in one pass are line_of_string()'s", "[ciresult]") {
    // Escaped quotes before a needle, a needle inside a longer string, repeated and absent
    // values, an empty one, one that needs escaping: each as text.find() finds it.
    const std::string text =
        "{\n\"a\": \"x\\\"op-1\" ,\n \"op-1\": [1,\n2],\n\"op-10\"\n"
        "\"op-2\" \"q\\\"z\"\n\"\"\n\"b\\\\c\"\n}";
    const std::vector<std::string> values = {"op-1", "op-10", "op-2", "op-1", "missing",
                                             "",     "q\"z",  "b\\c", "a",    "x\"op-1"};
    const std::vector<std::size_t> lines = lines_of_strings(text, values);
    REQUIRE(lines.size() == values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        INFO(values[i]);
        CHECK(lines[i] == line_of_string(text, values[i]));
    }
    CHECK(lines[0] == 2);  // `"op-1"` after the escaped quote on line 2
    CHECK(lines[4] == 0);
}

}  // namespace ciresult_suite_test
