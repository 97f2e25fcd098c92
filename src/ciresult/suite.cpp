// The dsv4-operators suite (upstream-2026-12.md §2): suite-result.json, the comparison rule and
// execution.json.

#include "ptune/ciresult/suite.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "json_util.hpp"
#include "ptune/core/stats.hpp"

namespace ptune::ciresult {

using nlohmann::json;

namespace {

std::string string_member(const json& object, const char* key) {
    auto it = object.find(key);
    if (it == object.end() || !it->is_string()) return {};
    return it->get<std::string>();
}

std::optional<double> number_member(const json& object, const char* key) {
    auto it = object.find(key);
    if (it == object.end() || !it->is_number() || it->is_boolean()) return std::nullopt;
    double value = it->get<double>();
    if (!std::isfinite(value)) return std::nullopt;
    return value;
}

SuiteCase read_case(const json& record, std::string_view text, const std::string& source,
                    Diagnostics& diagnostics) {
    SuiteCase c;
    c.record = record;
    c.case_id = string_member(record, "case_id");
    c.line = c.case_id.empty() ? 0 : line_of_string(text, c.case_id);
    c.status = string_member(record, "status");
    c.error = string_member(record, "error");
    c.measurement_id = string_member(record, "measurement_id");
    c.measurement_case = string_member(record, "measurement_case");
    if (auto it = record.find("shared_measurement"); it != record.end() && it->is_boolean())
        c.shared_measurement = it->get<bool>();
    c.metric_us = number_member(record, "metric_us");
    c.max_rank_median_us = number_member(record, "max_rank_median_us");
    c.rank_spread_us = number_member(record, "rank_spread_us");
    c.wall_seconds = number_member(record, "wall_seconds");
    if (c.case_id.empty()) {
        diagnostics.warn(source, 0, "suite-result.json: a cases[] row without a case_id");
        c.case_id = "?";
    }
    if (c.status == "running") {
        diagnostics.warn(
            source, c.line,
            fmt::format("{}: status running: its producer died (interrupted)", c.case_id));
        c.status = "interrupted";
    }
    if (c.status != "pass") return c;
    if (!c.metric_us || !(*c.metric_us > 0.0)) {
        c.valid = false;
        diagnostics.warn(source, c.line,
                         fmt::format("{}: status pass without a finite metric_us > 0; counted "
                                     "as not passing",
                                     c.case_id));
        return c;
    }
    if (auto it = record.find("ranks"); it != record.end() && it->is_array()) {
        for (const json& r : *it) {
            if (!r.is_object()) continue;
            SuiteRank rank;
            rank.trace_pid = string_member(r, "trace_pid");
            rank.median_us = number_member(r, "median_us").value_or(0.0);
            if (auto s = r.find("samples_us"); s != r.end() && s->is_array()) {
                for (const json& v : *s) {
                    if (v.is_number() && !v.is_boolean() && std::isfinite(v.get<double>()))
                        rank.samples_us.push_back(v.get<double>());
                }
            }
            c.ranks.push_back(std::move(rank));
        }
    }
    return c;
}

}  // namespace

Result<SuiteResult> parse_suite_result(std::string_view text, const std::string& source,
                                       Diagnostics& diagnostics) {
    auto document = parse_json_document(text, source);
    if (!document) return document.error();
    const json& root = *document;
    if (!root.is_object())
        return Error{"suite-result.json is not a JSON object", source, 1, ExitCode::InputError};
    auto cases = root.find("cases");
    if (cases == root.end() || !cases->is_array()) {
        return Error{"suite-result.json: cases is not a list", source,
                     std::max<std::size_t>(1, line_of_string(text, "cases")), ExitCode::InputError};
    }
    SuiteResult suite;
    suite.source = source;
    suite.suite_id = string_member(root, "suite_id");
    suite.run_id = string_member(root, "run_id");
    suite.logical_date = string_member(root, "logical_date");
    suite.variant = string_member(root, "variant");
    suite.status = string_member(root, "status");
    if (suite.status == "running") {
        diagnostics.warn(source, 0, "suite status running: its producer died (interrupted)");
        suite.status = "interrupted";
    }
    if (auto it = root.find("coverage_complete"); it != root.end() && it->is_boolean())
        suite.coverage_complete = it->get<bool>();
    for (const json& record : *cases) {
        if (!record.is_object()) {
            diagnostics.warn(source, 0, "suite-result.json: a cases[] entry is not an object");
            continue;
        }
        suite.cases.push_back(read_case(record, text, source, diagnostics));
        if (!suite.cases.back().measurement_id.empty()) suite.v2 = true;
    }
    if (suite.variant == "ci") suite.v2 = true;
    return suite;
}

namespace {

const json* find_key(const json& record, const char* key) {
    auto it = record.find(key);
    return it == record.end() || it->is_null() ? nullptr : &*it;
}

constexpr const char* kSystemComponents[] = {"python",      "torch",         "numpy",
                                             "cann_sha256", "driver_sha256", "bundle"};

}  // namespace

Comparison compare_cases(const SuiteCase& current, const SuiteCase* baseline, bool ci_stack) {
    Comparison out;
    if (baseline == nullptr || baseline->status != "pass" || current.status != "pass" ||
        !baseline->valid || !current.valid) {
        out.reason = "no passing baseline/current result";
        return out;
    }
    const json empty = json::object();
    const json* current_tools = find_key(current.record, "toolchain");
    const json* baseline_tools = find_key(baseline->record, "toolchain");
    const json& ct = current_tools && current_tools->is_object() ? *current_tools : empty;
    const json& bt = baseline_tools && baseline_tools->is_object() ? *baseline_tools : empty;
    if (ci_stack) {
        for (const char* key : kSystemComponents) {
            const json* a = find_key(ct, key);
            const json* b = find_key(bt, key);
            if (a == nullptr || b == nullptr || *a != *b) {
                out.reason = fmt::format("incomparable system component: {}", key);
                return out;
            }
        }
    }
    std::vector<const char*> keys = {"case_contract", "device_identity", "fixture_sha256",
                                     "golden_sha256"};
    if (!ci_stack) keys.push_back("toolchain");
    for (const char* key : keys) {
        const json* a = find_key(current.record, key);
        const json* b = find_key(baseline->record, key);
        if (a == nullptr || b == nullptr || *a != *b) {
            out.reason = fmt::format("incomparable {}", key);
            return out;
        }
    }
    out.delta_pct = (*current.metric_us / *baseline->metric_us - 1.0) * 100.0;
    if (ci_stack) {
        std::vector<std::string> changed;
        for (const auto& [key, value] : ct.items()) {
            const json* other = find_key(bt, key.c_str());
            if (other == nullptr || *other != value) changed.push_back(key);
        }
        for (const auto& [key, value] : bt.items()) {
            if (find_key(ct, key.c_str()) == nullptr &&
                std::find(changed.begin(), changed.end(), key) == changed.end())
                changed.push_back(key);
        }
        std::sort(changed.begin(), changed.end());
        const json* a = find_key(current.record, "source_sha");
        const json* b = find_key(baseline->record, "source_sha");
        if ((a == nullptr) != (b == nullptr) || (a && *a != *b))
            changed.insert(changed.begin(), "pypto-lib");
        out.changed_components = std::move(changed);
    }
    return out;
}

std::string format_change(const Comparison& comparison) {
    if (!comparison.delta_pct) return "N/A";
    return (*comparison.delta_pct >= 0.0 ? "+" : "") +
           stats::format_fixed(*comparison.delta_pct, 2) + "%";
}

Result<Execution> parse_execution(std::string_view text, const std::string& source) {
    auto document = parse_json_document(text, source);
    if (!document) return document.error();
    const json& root = *document;
    if (!root.is_object())
        return Error{"execution.json is not a JSON object", source, 1, ExitCode::InputError};
    Execution execution;
    execution.phase = string_member(root, "phase");
    execution.step_outcome = string_member(root, "step_outcome");
    if (auto it = root.find("suite_exit_code"); it != root.end() && it->is_number_integer())
        execution.suite_exit_code = it->get<long long>();
    if (auto it = root.find("errors"); it != root.end() && it->is_array()) {
        for (const json& e : *it) {
            if (e.is_object())
                execution.errors.emplace_back(string_member(e, "phase"), string_member(e, "error"));
        }
    }
    return execution;
}

}  // namespace ptune::ciresult
