// The dsv4-operators suite (upstream-2026-12.md §2): suite-result.json, the comparison rule and
// execution.json.

#include "ptune/ciresult/suite.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "json_util.hpp"
#include "ptune/ciresult/lane.hpp"
#include "ptune/ciresult/operator.hpp"
#include "ptune/core/json_document.hpp"
#include "ptune/core/stats.hpp"

namespace ptune::ciresult {

using nlohmann::json;

namespace {

std::optional<double> number_member(const json& object, const char* key) {
    auto it = object.find(key);
    if (it == object.end() || !it->is_number() || it->is_boolean()) return std::nullopt;
    double value = it->get<double>();
    if (!std::isfinite(value)) return std::nullopt;
    return value;
}

}  // namespace

SuiteCase parse_suite_case(const json& record, std::string_view text, const std::string& source,
                           Diagnostics& diagnostics, std::optional<std::size_t> line) {
    SuiteCase c;
    c.record = record;
    c.case_id = string_member(record, "case_id");
    c.line = c.case_id.empty() ? 0 : line ? *line : line_of_string(text, c.case_id);
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

Result<SuiteResult> parse_suite_result(std::string_view text, const std::string& source,
                                       Diagnostics& diagnostics) {
    auto document = parse_json_object(text, source, "suite-result.json");
    if (!document) return document.error();
    const json& root = *document;
    // Three shapes share the name (§3.5): the lane's (lane_id) is read by lane.hpp.
    if (suite_shape(root) == SuiteShape::Lane) {
        return Error{"suite-result.json: a lane result (lane_id, §3.5), not an operator suite",
                     source, 1, ExitCode::InputError};
    }
    auto cases = suite_cases(root, text, source);
    if (!cases) return cases.error();
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
    // The rows' lines at once (a scan of the text per row was quadratic in the rows).
    std::vector<std::string> case_ids;
    for (const json& record : **cases) {
        if (record.is_object()) case_ids.push_back(string_member(record, "case_id"));
    }
    const std::vector<std::size_t> lines = lines_of_strings(text, case_ids);
    std::size_t row = 0;
    for (const json& record : **cases) {
        if (!record.is_object()) {
            diagnostics.warn(source, 0, "suite-result.json: a cases[] entry is not an object");
            continue;
        }
        suite.cases.push_back(parse_suite_case(record, text, source, diagnostics, lines[row++]));
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

namespace {

// The line of the first `"key"` at or after line `from` (0 when there is none).
std::size_t line_of_key(std::string_view text, std::string_view key, std::size_t from) {
    std::size_t at = 0;
    for (std::size_t line = 1; line < from && at != std::string_view::npos; ++line) {
        at = text.find('\n', at);
        if (at != std::string_view::npos) ++at;
    }
    if (at == std::string_view::npos) return 0;
    const std::size_t found = text.find(fmt::format("\"{}\"", key), at);
    if (found == std::string_view::npos) return 0;
    return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + found, '\n'));
}

// A scalar member as printed (a string as is, a number in JSON); empty when absent or null. A
// list or object is a warning at the key's line (the first at or after line `from`) and empty.
std::string scalar_member(const json& object, const char* key, std::string_view text,
                          const std::string& source, Diagnostics& diagnostics,
                          std::size_t from = 1) {
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) return {};
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number() || it->is_boolean()) return it->dump();
    diagnostics.warn(source, line_of_key(text, key, from),
                     fmt::format("{} is not a string or number; left out", key));
    return {};
}

// A document that must be an object: a warning naming what is lost when it is not.
std::optional<json> side_document(std::string_view text, const std::string& source,
                                  std::string_view what, Diagnostics& diagnostics) {
    auto document = parse_json_object(text, source, what);
    if (!document) {
        diagnostics.warn(document.error().file, document.error().line,
                         document.error().message + "; the suite is read without it");
        return std::nullopt;
    }
    return std::move(*document);
}

}  // namespace

std::optional<Submission> parse_submission(std::string_view text, const std::string& source,
                                           Diagnostics& diagnostics) {
    auto document = side_document(text, source, "submission.json", diagnostics);
    if (!document) return std::nullopt;
    const json& root = *document;
    Submission out;
    out.source = source;
    if (auto it = root.find("command"); it != root.end() && it->is_array()) {
        for (const json& word : *it)
            out.command.push_back(word.is_string() ? word.get<std::string>()
                                                   : json_document::dump(word));
    } else if (it != root.end()) {
        diagnostics.warn(source, line_of_string(text, "command"),
                         "command is not a list; left out");
    }
    out.logical_date = scalar_member(root, "logical_date", text, source, diagnostics);
    if (auto it = root.find("ci"); it != root.end() && it->is_object()) {
        const json& ci = *it;
        out.repository = scalar_member(ci, "repository", text, source, diagnostics);
        out.workflow_run_id = scalar_member(ci, "workflow_run_id", text, source, diagnostics);
        out.run_attempt = scalar_member(ci, "run_attempt", text, source, diagnostics);
        out.head_sha = scalar_member(ci, "head_sha", text, source, diagnostics);
        out.head_branch = scalar_member(ci, "head_branch", text, source, diagnostics);
        out.workflow_path = scalar_member(ci, "workflow_path", text, source, diagnostics);
    } else if (it != root.end()) {
        diagnostics.warn(source, line_of_string(text, "ci"), "ci is not an object; left out");
    }
    return out;
}

std::optional<HistorySelection> parse_history_selection(std::string_view text,
                                                        const std::string& source,
                                                        Diagnostics& diagnostics) {
    auto document = side_document(text, source, "history-selection.json", diagnostics);
    if (!document) return std::nullopt;
    HistorySelection out;
    out.source = source;
    std::vector<std::string> names = {"previous", "week", "lookup"};
    for (const auto& [key, value] : document->items()) {
        if (std::find(names.begin(), names.end(), key) == names.end()) names.push_back(key);
    }
    for (const std::string& name : names) {
        auto it = document->find(name);
        if (it == document->end()) continue;
        const std::size_t line = line_of_string(text, name);
        if (!it->is_object()) {
            diagnostics.warn(source, line, fmt::format("{} is not an object; left out", name));
            continue;
        }
        HistoryEntry entry;
        entry.name = name;
        entry.line = line;
        entry.run_id = scalar_member(*it, "run_id", text, source, diagnostics, line);
        entry.path = scalar_member(*it, "path", text, source, diagnostics, line);
        entry.date = scalar_member(*it, "date", text, source, diagnostics, line);
        entry.attempt = scalar_member(*it, "attempt", text, source, diagnostics, line);
        entry.reason = scalar_member(*it, "reason", text, source, diagnostics, line);
        out.entries.push_back(std::move(entry));
    }
    return out;
}

Result<Execution> parse_execution(std::string_view text, const std::string& source) {
    auto document = parse_json_object(text, source, "execution.json");
    if (!document) return document.error();
    const json& root = *document;
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

namespace ptune::ciresult {

namespace {

struct Violation {
    std::string rule;
};

void require(bool condition, std::string rule) {
    if (!condition) throw Violation{std::move(rule)};
}

bool is_false(const json& object, const char* key) {
    auto it = object.find(key);
    return it != object.end() && it->is_boolean() && !it->get<bool>();
}

// §2.4's checks over benchmark.samples and the per-rank results.
void validate_grid(const json& benchmark, SuiteCase& c) {
    const json& samples = required_member(benchmark, "samples");
    require(samples.is_array(), "samples is not a list");
    require(samples.size() == 100, fmt::format("{} rounds, expected exactly 100", samples.size()));
    require(samples[0].is_object(), "a round is not an object");
    std::vector<std::string> pids;
    for (const auto& [pid, values] : samples[0].items()) pids.push_back(pid);
    std::sort(pids.begin(), pids.end());  // sorted by pid as a string
    require(!pids.empty(), "the first round has no rank");
    if (pids.size() > 1) {
        auto grid = benchmark.find("distributed_grid");
        require(grid != benchmark.end() && grid->is_boolean() && grid->get<bool>(),
                "a multi-card result needs distributed_grid true");
    }
    struct RankState {
        std::size_t dispatches = 0;
        std::vector<std::string> tasks;
        std::vector<std::vector<double>> per_slot;
        std::vector<double> totals;
        std::set<long long> invs;
    };
    std::map<std::string, RankState> state;
    for (const json& round : samples) {
        require(round.is_object(), "a round is not an object");
        require(round.size() == pids.size(), "a rank is missing from a measured round");
        for (const std::string& pid : pids) {
            auto it = round.find(pid);
            require(it != round.end(), "a rank is missing from a measured round");
            require(it->is_array() && !it->empty(), "a rank has no dispatch in a round");
            RankState& rank = state[pid];
            if (rank.dispatches == 0) {
                rank.dispatches = it->size();
                rank.per_slot.resize(rank.dispatches);
            }
            require(it->size() == rank.dispatches, "dispatch count changed between rounds");
            std::vector<double> values;
            for (std::size_t slot = 0; slot < it->size(); ++slot) {
                const json& d = (*it)[slot];
                require(d.is_object(), "a dispatch is not an object");
                const json& inv = required_member(d, "inv");
                require(inv.is_number_integer() && inv.get<long long>() >= 0,
                        "inv is not a non-negative integer");
                require(rank.invs.insert(inv.get<long long>()).second,
                        fmt::format("inv {} repeats for pid {}", inv.get<long long>(), pid));
                const json& task = required_member(d, "task");
                require(task.is_string(), "task is not a string");
                if (rank.tasks.size() <= slot) rank.tasks.push_back(task.get<std::string>());
                require(rank.tasks[slot] == task.get<std::string>(),
                        "a slot's task changed between rounds");
                const json& e = required_member(d, "effective_us");
                require(e.is_number() && !e.is_boolean() && std::isfinite(e.get<double>()) &&
                            e.get<double>() > 0.0,
                        "effective_us is not a finite number > 0");
                values.push_back(e.get<double>());
                rank.per_slot[slot].push_back(e.get<double>());
            }
            rank.totals.push_back(stats::fsum(values));
        }
    }
    double lo = 0.0, hi = 0.0;
    for (const std::string& pid : pids) {
        RankState& rank = state[pid];
        SuiteRank out;
        out.trace_pid = pid;
        out.median_us = stats::median(rank.totals).value_or(0.0);
        out.samples_us = std::move(rank.totals);
        for (std::size_t slot = 0; slot < rank.per_slot.size(); ++slot)
            out.slots.emplace_back(rank.tasks[slot],
                                   stats::median(rank.per_slot[slot]).value_or(0.0));
        if (c.ranks.empty() || out.median_us < lo) lo = out.median_us;
        if (c.ranks.empty() || out.median_us > hi) hi = out.median_us;
        c.ranks.push_back(std::move(out));
    }
    c.metric_us = lo;
    c.max_rank_median_us = hi;
    c.rank_spread_us = hi - lo;
}

}  // namespace

Result<SuiteCase> validate_suite_raw(std::string_view text, const std::string& source,
                                     const nlohmann::json* request) {
    auto document = parse_json_object(text, source, "raw-result.json");
    if (!document) return document.error();
    const json& root = *document;
    SuiteCase c;
    c.case_id = string_member(root, "case_id");
    if (c.case_id.empty()) c.case_id = "raw-result";
    c.line = 1;
    c.status = "fail";
    try {
        auto passed = root.find("passed");
        require(passed != root.end() && passed->is_boolean() && passed->get<bool>(),
                fmt::format("passed is not true: {}", string_member(root, "error")));
        if (request != nullptr) {
            if (auto violation = request_violation(root, *request)) throw Violation{*violation};
        }
        require(!string_member(root, "fixture_sha256").empty() &&
                    !string_member(root, "golden_sha256").empty(),
                "fixture_sha256 or golden_sha256 missing");
        const json& benchmark = required_member(root, "benchmark");
        require(benchmark.is_object(), "benchmark is not an object");
        const json& rounds = required_member(benchmark, "rounds");
        const json& warmup = required_member(benchmark, "warmup");
        require(rounds == json(100) && warmup == json(5), "(rounds, warmup) is not (100, 5)");
        for (const char* flag :
             {"fallback_flattened", "unstable_dispatch_slots", "all_zero_device"})
            require(is_false(benchmark, flag), fmt::format("{} is not false", flag));
        validate_grid(benchmark, c);
        c.status = "pass";
    } catch (const Violation& v) {
        c.error = v.rule;
        c.ranks.clear();
        c.metric_us.reset();
    } catch (const DocumentError& e) {
        c.error = e.message;
        c.ranks.clear();
        c.metric_us.reset();
    }
    c.valid = c.status == "pass";
    return c;
}

}  // namespace ptune::ciresult
