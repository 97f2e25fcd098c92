// Daily performance CI results (upstream-2026-12.md §1): perf_cases.json, raw-result.json and
// report.md, and the headline recomputed as ci_perf.py does.

#include "ptune/ciresult/daily.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "json_util.hpp"
#include "ptune/core/json_document.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"

namespace ptune::ciresult {

using nlohmann::json;

const ManifestCase* Manifest::find(std::string_view case_id) const {
    for (const ManifestCase& c : cases) {
        if (c.case_id == case_id) return &c;
    }
    return nullptr;
}

const char* describe(HeadlineRule rule) {
    return rule == HeadlineRule::Median ? "median of per-round sums (1 card)"
                                        : "smallest per-rank mean of per-round sums";
}

std::string format_headline(double value) {
    return stats::format_fixed(value, 2);
}

namespace {

std::size_t count_of(const json& value, const char* what) {
    if (!value.is_number_integer() || value.get<long long>() < 0)
        throw DocumentError{fmt::format("{} is not a non-negative integer", what)};
    return value.get<std::size_t>();
}

}  // namespace

Result<Manifest> parse_manifest(std::string_view text, const std::string& source) {
    auto document = json_document::parse(text, source);
    if (!document) return document.error();
    Manifest manifest;
    manifest.source = source;
    try {
        const json& root = *document;
        if (!root.is_object()) throw DocumentError{"not a JSON object"};
        if (root.contains("platform") && root["platform"].is_string())
            manifest.platform = root["platform"].get<std::string>();
        const json& sampling = required_member(root, "sampling");
        manifest.rounds = count_of(required_member(sampling, "rounds"), "sampling.rounds");
        manifest.warmup = count_of(required_member(sampling, "warmup"), "sampling.warmup");
        const json& cases = required_member(root, "cases");
        if (!cases.is_array()) throw DocumentError{"cases is not a list"};
        std::set<std::string> seen;
        for (const json& entry : cases) {
            if (!entry.is_object()) throw DocumentError{"a cases[] entry is not an object"};
            ManifestCase c;
            const json& id = required_member(entry, "case_id");
            if (!id.is_string()) throw DocumentError{"case_id is not a string"};
            c.case_id = id.get<std::string>();
            if (!seen.insert(c.case_id).second) {
                return Error{"duplicate case_id in the manifest: " + c.case_id, source,
                             line_of_string(text, c.case_id, 2), ExitCode::InputError};
            }
            if (entry.contains("entrypoint") && entry["entrypoint"].is_string())
                c.entrypoint = entry["entrypoint"].get<std::string>();
            c.device_count = count_of(required_member(entry, "device_count"), "device_count");
            if (c.device_count == 0) throw DocumentError{"device_count is 0"};
            if (entry.contains("arguments")) {
                if (!entry["arguments"].is_array()) throw DocumentError{"arguments is not a list"};
                for (const json& a : entry["arguments"]) {
                    if (!a.is_string()) throw DocumentError{"an argument is not a string"};
                    c.arguments.push_back(a.get<std::string>());
                }
            }
            manifest.cases.push_back(std::move(c));
        }
    } catch (const DocumentError& e) {
        return Error{fmt::format("perf_cases.json: {}", e.message), source, 0,
                     ExitCode::InputError};
    }
    return manifest;
}

namespace {

// Python's int-string order is not ours: ranks are shown pid ascending, numerically when
// every key is a number.
bool pid_less(const std::string& a, const std::string& b) {
    auto x = text::parse_uint(a);
    auto y = text::parse_uint(b);
    if (x && y) return *x < *y;
    return a < b;
}

void fail(DailyResult& result, std::string reason) {
    result.passed = false;
    result.reason = std::move(reason);
}

bool flag(const json& benchmark, const char* name) {
    const json& value = required_member(benchmark, name);
    if (!value.is_boolean()) throw DocumentError{fmt::format("{} is not a boolean", name)};
    return value.get<bool>();
}

using RoundSums = std::vector<std::vector<std::pair<std::string, double>>>;

// Every round is read (types checked) before any rule decides: a wrong type anywhere is the
// reason upstream would give too. Round 0's pids and dispatch counts seed the rank table.
RoundSums read_rounds(const json& samples, DailyResult& result) {
    if (!samples.is_array()) throw DocumentError{"samples is not a list"};
    RoundSums rounds;
    for (const json& round : samples) {
        if (!round.is_object()) throw DocumentError{"a samples[] round is not an object"};
        auto& sums = rounds.emplace_back();
        for (const auto& [pid, values] : round.items()) {
            if (!values.is_array())
                throw DocumentError{fmt::format("samples of pid {} is not a list", pid)};
            std::vector<double> row;
            for (const json& v : values) {
                if (!v.is_number() || v.is_boolean())
                    throw DocumentError{fmt::format("a sample of pid {} is not a number", pid)};
                row.push_back(v.get<double>());
                if (!(row.back() > 0.0)) ++result.nonpositive_values;
            }
            sums.emplace_back(pid, stats::fsum(row));
            if (rounds.size() == 1) {
                RankTotals rank;
                rank.pid = pid;
                rank.dispatches = row.size();
                result.ranks.push_back(std::move(rank));
            }
        }
    }
    return rounds;
}

// Upstream's rejections, in upstream's order: the loop sizes against the manifest, the three
// flags, the round count, the ranks of every round. False (the reason in `result`) on the first.
struct Flags {
    bool flattened = false, unstable = false, all_zero = false;
};

bool accept_rounds(const Flags& flags, const RoundSums& rounds,
                   const std::optional<Expectation>& expected, DailyResult& result) {
    if (expected && (result.rounds != expected->rounds || result.warmup != expected->warmup)) {
        fail(result, fmt::format("benchmark loop rounds={} warmup={} differs from the "
                                 "manifest's rounds={} warmup={}",
                                 result.rounds, result.warmup, expected->rounds, expected->warmup));
        return false;
    }
    const char* reason = flags.flattened  ? "fallback_flattened is true"
                         : flags.unstable ? "unstable_dispatch_slots is true"
                         : flags.all_zero ? "all_zero_device is true"
                                          : nullptr;
    if (reason != nullptr) return fail(result, reason), false;
    if (rounds.size() != result.rounds) {
        fail(result, fmt::format("{} sample rounds, expected {}", rounds.size(), result.rounds));
        return false;
    }
    if (rounds.empty()) return fail(result, "no measured round"), false;
    const std::size_t device_count = expected ? expected->device_count : rounds[0].size();
    if (rounds[0].size() != device_count) {
        fail(result, fmt::format("the first round has {} rank(s), expected {}", rounds[0].size(),
                                 device_count));
        return false;
    }
    return true;
}

// Each rank's per-round sums in round order; false when a round lacks one of round 0's ranks.
bool take_rank_totals(const RoundSums& rounds, DailyResult& result) {
    std::sort(result.ranks.begin(), result.ranks.end(),
              [](const RankTotals& a, const RankTotals& b) { return pid_less(a.pid, b.pid); });
    for (const auto& round : rounds) {
        if (round.size() != result.ranks.size())
            return fail(result, "a rank is missing from a measured round"), false;
        for (const auto& [round_pid, total] : round) {
            // A named copy: clang 14 cannot capture a structured binding in a lambda.
            const std::string& pid = round_pid;
            auto it = std::find_if(result.ranks.begin(), result.ranks.end(),
                                   [&](const RankTotals& r) { return r.pid == pid; });
            if (it == result.ranks.end())
                return fail(result, "a rank is missing from a measured round"), false;
            it->totals.push_back(total);
        }
    }
    for (RankTotals& rank : result.ranks) {
        const auto& t = rank.totals;
        rank.mean = stats::fsum(t) / static_cast<double>(t.size());
        rank.median = stats::median(t).value_or(0.0);
        rank.min = *std::min_element(t.begin(), t.end());
        rank.max = *std::max_element(t.begin(), t.end());
    }
    return true;
}

// The headline (§1.4): one card, the median of per-round sums; several, the smallest per-rank
// mean.
void take_headline(DailyResult& result) {
    if (result.ranks.size() == 1) {
        result.rule = HeadlineRule::Median;
        result.headline_rank = 0;
        result.headline = result.ranks[0].median;
        return;
    }
    result.rule = HeadlineRule::MinRankMean;
    std::size_t best = 0;
    for (std::size_t i = 1; i < result.ranks.size(); ++i)
        if (result.ranks[i].mean < result.ranks[best].mean) best = i;
    result.headline_rank = best;
    result.headline = result.ranks[best].mean;
}

// Upstream's correctness verdict: `passed` false ends the evaluation with its error text.
bool correctness_passed(const json& root, DailyResult& result) {
    const json& passed = required_member(root, "passed");
    if (!passed.is_boolean()) throw DocumentError{"passed is not a boolean"};
    if (passed.get<bool>()) return true;
    const json& error = root.contains("error") ? root["error"] : json();
    fail(result,
         fmt::format("correctness failed: {}", error.is_string() ? error.get<std::string>()
                                               : error.is_null() ? std::string("None")
                                                                 : json_document::dump(error)));
    return false;
}

}  // namespace

DailyResult evaluate_raw_result(std::string_view text, const std::string& source,
                                const std::optional<Expectation>& expected) {
    DailyResult result;
    result.source = source;
    auto document = json_document::parse(text, source);
    if (!document) {
        fail(result, document.error().message);
        result.malformed = true;
        result.malformed_line = document.error().line;
        return result;
    }
    try {
        const json& root = *document;
        if (!root.is_object()) throw DocumentError{"not a JSON object"};
        if (!correctness_passed(root, result)) return result;
        const json& benchmark = required_member(root, "benchmark");
        if (!benchmark.is_object()) throw DocumentError{"benchmark is not an object"};
        result.rounds = count_of(required_member(benchmark, "rounds"), "benchmark.rounds");
        result.warmup = count_of(required_member(benchmark, "warmup"), "benchmark.warmup");
        // The flags are read (and type-checked) before the samples, as upstream does.
        const Flags flags{flag(benchmark, "fallback_flattened"),
                          flag(benchmark, "unstable_dispatch_slots"),
                          flag(benchmark, "all_zero_device")};
        RoundSums rounds = read_rounds(required_member(benchmark, "samples"), result);
        if (accept_rounds(flags, rounds, expected, result) && take_rank_totals(rounds, result)) {
            take_headline(result);
            result.passed = true;
        }
    } catch (const DocumentError& e) {
        fail(result, e.message);
        result.malformed = true;
    } catch (const json::exception& e) {
        fail(result, e.what());
        result.malformed = true;
    }
    if (!result.passed) result.ranks.clear();
    return result;
}

Result<std::vector<ReportRow>> parse_daily_report(std::string_view text, const std::string& source,
                                                  Diagnostics& diagnostics) {
    std::vector<ReportRow> rows;
    bool in_table = false;
    bool header_seen = false;
    std::size_t value_column = 1;
    std::size_t line_no = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text::trim(text.substr(start, end - start));
        ++line_no;
        start = end + 1;
        if (!line.starts_with('|')) {
            in_table = false;
            if (end == text.size()) break;
            continue;
        }
        std::string_view inner = line.substr(1);
        if (inner.ends_with('|')) inner.remove_suffix(1);
        std::vector<std::string> cells;
        for (std::string_view cell : text::split(inner, '|')) cells.emplace_back(text::trim(cell));
        if (!in_table) {
            // A header row: `| Case | Effective (us) | ...` (extra columns are ignored).
            in_table = true;
            if (cells.size() >= 2 && cells[0] == "Case") {
                auto it = std::find(cells.begin(), cells.end(), "Effective (us)");
                if (it != cells.end()) {
                    header_seen = true;
                    value_column = static_cast<std::size_t>(it - cells.begin());
                    continue;
                }
            }
            in_table = false;
            continue;
        }
        if (!header_seen) continue;
        if (std::all_of(cells.begin(), cells.end(), [](const std::string& c) {
                return !c.empty() && c.find_first_not_of("-: ") == std::string::npos;
            })) {
            continue;  // the separator row
        }
        if (cells.size() <= value_column || cells[0].empty()) {
            diagnostics.warn(source, line_no, "report.md row without a case and a value");
            continue;
        }
        ReportRow row;
        row.case_id = cells[0];
        row.text = cells[value_column];
        row.line = line_no;
        if (row.text == "FAIL") {
            row.kind = ReportRow::Kind::Fail;
        } else if (row.text == "-") {
            row.kind = ReportRow::Kind::NotRun;
        } else if (auto value = text::parse_double(row.text);
                   value && std::isfinite(*value) &&
                   row.text.find_first_not_of("0123456789.") == std::string::npos) {
            row.kind = ReportRow::Kind::Value;
            row.value = *value;
        } else {
            diagnostics.warn(source, line_no,
                             fmt::format("report.md: value '{}' of case {} is neither a decimal, "
                                         "FAIL nor -; row left out",
                                         row.text, row.case_id));
            continue;
        }
        rows.push_back(std::move(row));
    }
    if (!header_seen) {
        return Error{"not a daily-CI report.md: no '| Case | Effective (us) |' table", source, 0,
                     ExitCode::InputError};
    }
    return rows;
}

}  // namespace ptune::ciresult
