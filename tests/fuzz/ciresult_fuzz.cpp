// Fuzz target: ciresult's parsers (upstream-2026-12.md §1, §2). The first byte picks the input
// kind: daily-CI raw-result.json (with or without a manifest expectation), report.md,
// perf_cases.json, suite-result.json (compared with itself, turned into bench cases and tables)
// or execution.json, a run.log's §1.7 lines (parse_run_log) or an operator-suite
// raw-result.json (validate_suite_raw, also against a request), a measurement.json, the
// published folder's submission.json / history-selection.json (with execution.json), the
// operator report.md (also cross-checked against itself) or an operator manifest (every case's
// case_contract). Every result is taken through to_bench_cases() and the tables.

#include <cstdint>
#include <sstream>

#include "fuzz_support.hpp"
#include "ptune/ciresult/inputs.hpp"
#include "ptune/ciresult/operator.hpp"

namespace ciresult_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    using namespace ptune::ciresult;
    ptune::fuzz::FuzzInput input(data, size, 1);
    ptune::Diagnostics diagnostics;
    const std::string_view text = input.text();
    switch (input.option(0) % 12) {
        case 0:
        case 1: {
            std::optional<Expectation> expected;
            if (input.option(0) % 8 == 1) expected = Expectation{3, 2, 2};
            DailyRun run;
            run.root = "published";
            DailyCase& c = run.cases.emplace_back();
            c.case_id = "fuzz";
            c.result = evaluate_raw_result(text, "raw-result.json", expected);
            c.row = ReportRow{"fuzz", ReportRow::Kind::Value, 1.0, "1.00", 3};
            (void)to_bench_cases(run);
            (void)daily_tables(run);
            break;
        }
        case 2: {
            auto rows = parse_daily_report(text, "report.md", diagnostics);
            if (rows) {
                DailyRun run;
                for (auto& row : *rows) {
                    DailyCase& c = run.cases.emplace_back();
                    c.case_id = row.case_id;
                    c.row = row;
                }
                (void)to_bench_cases(run);
                (void)daily_tables(run);
            }
            break;
        }
        case 3: {
            auto manifest = parse_manifest(text, "perf_cases.json");
            (void)manifest;
            break;
        }
        case 4: {
            auto suite = parse_suite_result(text, "suite-result.json", diagnostics);
            if (suite) {
                std::size_t refused = 0;
                (void)suite_comparison_table(*suite, *suite, refused);
                (void)to_bench_cases(*suite);
                (void)suite_tables(*suite);
            }
            break;
        }
        case 5: {
            std::istringstream in{std::string(text)};
            DailyRun run;
            DailyCase& c = run.cases.emplace_back();
            c.case_id = "fuzz";
            c.run_log = parse_run_log(in, "run.log", diagnostics);
            (void)daily_tables(run);
            break;
        }
        case 6: {
            auto validated = validate_suite_raw(text, "raw-result.json");
            if (validated) {
                SuiteResult suite;
                suite.cases.push_back(std::move(*validated));
                (void)to_bench_cases(suite);
                (void)suite_tables(suite);
            }
            break;
        }
        case 7: {
            // The published folder's small JSON files (§2.9): execution.json, submission.json
            // and history-selection.json, the last two through the suite's tables and JSON.
            auto execution = parse_execution(text, "execution.json");
            (void)execution;
            SuiteResult suite;
            suite.submission = parse_submission(text, "submission.json", diagnostics);
            suite.history_selection =
                parse_history_selection(text, "history-selection.json", diagnostics);
            (void)suite_tables(suite);
            (void)run_record_json(suite);
            break;
        }
        case 8: {
            auto suite = parse_measurement(text, "measurement.json", diagnostics);
            if (suite) {
                (void)to_bench_cases(*suite);
                (void)suite_tables(*suite);
            }
            break;
        }
        case 9: {
            auto report = parse_operator_report(text, "report.md", diagnostics);
            if (report) {
                const SuiteResult suite = suite_of_report(*report);
                (void)cross_check_operator_report(*report, suite, diagnostics);
                (void)to_bench_cases(suite);
                (void)suite_tables(suite);
            }
            break;
        }
        case 10: {
            auto manifest = parse_operator_manifest(text, "operator_perf_cases.json");
            if (manifest) {
                for (const auto& c : manifest->cases) {
                    try {
                        (void)case_contract(*manifest, c);
                    } catch (const std::domain_error&) {
                        // NaN cannot be in parsed JSON; kept for the contract's sake
                    }
                }
            }
            break;
        }
        default: {
            static const nlohmann::json request = nlohmann::json::parse(
                R"({"case_id": "demo-attention-8k", "run_config": {"ring_heap": 1},
                    "required_specs": {"x_out": {"shape": [8, 4], "dtype": "torch.float32"}},
                    "required_outputs": ["x_out"]})");
            auto validated = validate_suite_raw(text, "raw-result.json", &request);
            if (validated) {
                SuiteResult suite;
                suite.cases.push_back(std::move(*validated));
                (void)to_bench_cases(suite);
            }
            break;
        }
    }
    return 0;
}

}  // namespace ciresult_fuzz
