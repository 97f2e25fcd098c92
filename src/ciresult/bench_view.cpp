// The bench view of CI results (inputs.hpp to_bench_cases()): each case as a bench::BenchCase
// whose block every bench command (summary, gate, history) reads like a log's.

#include <algorithm>

#include <fmt/format.h>

#include "ptune/ciresult/inputs.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"

namespace ptune::ciresult {

namespace {

// The summary of a rank's round totals (non-empty).
bench::Summary summary_of(const std::vector<double>& values) {
    bench::Summary s;
    s.rounds = values.size();
    s.min = *std::min_element(values.begin(), values.end());
    s.max = *std::max_element(values.begin(), values.end());
    s.median = stats::median(values).value_or(0.0);
    s.mean = stats::fsum(values) / static_cast<double>(values.size());
    return s;
}

bench::Summary summary_of(const RankTotals& rank) {
    bench::Summary s;
    s.rounds = rank.totals.size();
    s.min = rank.min;
    s.median = rank.median;
    s.mean = rank.mean;
    s.max = rank.max;
    return s;
}

// A trace pid as the bench model's rank number, `fallback` when it is not a decimal.
std::uint64_t pid_number(const std::string& pid, std::uint64_t fallback) {
    return text::parse_uint(pid).value_or(fallback);
}

std::string rule_note(const DailyResult& r) {
    return fmt::format(
        "daily-CI headline {} = {} of rank {}; summary and raw samples are that "
        "rank's per-round sums",
        format_headline(*r.headline), describe(r.rule), r.ranks[r.headline_rank].pid);
}

}  // namespace

std::vector<bench::BenchCase> to_bench_cases(const DailyRun& run) {
    std::vector<bench::BenchCase> cases;
    for (const DailyCase& c : run.cases) {
        bench::BenchCase bc;
        bc.name = c.case_id;
        bench::BenchBlock block;
        block.origin = bench::Origin::CiResult;
        if (c.result) {
            const DailyResult& r = *c.result;
            bc.source = {r.source, 0};
            block.source = {r.source, 0};
            bc.status = r.passed ? "pass" : "fail";
            if (r.passed) {
                const RankTotals& head = r.ranks[r.headline_rank];
                block.effective_us = summary_of(head);
                block.declared_rounds = r.rounds;
                block.declared_warmup = r.warmup;
                bench::RawSamples raw;
                raw.ranks = 1;
                raw.rounds = r.rounds;
                raw.warmup = r.warmup;
                raw.per_rank[pid_number(head.pid, r.headline_rank)] = head.totals;
                block.raw = std::move(raw);
                if (r.ranks.size() > 1) {
                    for (std::size_t i = 0; i < r.ranks.size(); ++i) {
                        bench::Rank rank;
                        rank.rank = pid_number(r.ranks[i].pid, i);
                        rank.eff_us = summary_of(r.ranks[i]);
                        rank.source = block.source;
                        block.ranks.push_back(std::move(rank));
                    }
                }
                block.notes.push_back(rule_note(r));
                block.headline_is_median = r.rule == HeadlineRule::Median;
            } else {
                block.unavailable = "FAIL: " + r.reason;
            }
        } else if (c.row) {
            bc.source = {c.report_source, c.row->line};
            block.source = bc.source;
            if (c.row->kind == ReportRow::Kind::Value) {
                bc.status = "pass";
                bench::Summary s;
                s.mean = c.row->value;
                s.mean_only = true;
                block.effective_us = s;
                block.notes.push_back(
                    c.device_count == std::optional<std::size_t>(1)
                        ? "report.md value only (median of per-round sums, 1 card); no samples"
                    : c.device_count ? "report.md value only (smallest per-rank mean of "
                                       "per-round sums); no samples"
                                     : "report.md value only (headline rule unknown without "
                                       "perf_cases.json); no samples");
            } else if (c.row->kind == ReportRow::Kind::Fail) {
                bc.status = "fail";
                block.unavailable = "FAIL in report.md (no raw-result.json)";
            } else {
                block.unavailable = "not run (report.md '-')";
            }
        } else {
            bc.source = {run.manifest ? run.manifest->source : run.root, 0};
            block.source = bc.source;
            block.unavailable = "in perf_cases.json, no result";
        }
        bc.blocks.push_back(std::move(block));
        cases.push_back(std::move(bc));
    }
    return cases;
}

std::vector<bench::BenchCase> to_bench_cases(const SuiteResult& suite) {
    std::vector<bench::BenchCase> cases;
    for (const SuiteCase& c : suite.cases) {
        if (c.shared_measurement) continue;  // not an independent sample (§2.6)
        bench::BenchCase bc;
        bc.name = c.case_id;
        bc.source = {c.source.empty() ? suite.source : c.source, c.line};
        bench::BenchBlock block;
        block.origin = bench::Origin::CiResult;
        block.source = bc.source;
        bc.status = c.status == "pass" && c.valid ? "pass" : "fail";
        const SuiteRank* head = nullptr;
        for (const SuiteRank& rank : c.ranks) {
            if (!rank.samples_us.empty() && (head == nullptr || rank.median_us < head->median_us))
                head = &rank;
        }
        if (c.status != "pass" || !c.valid) {
            block.unavailable = fmt::format("status {}{}", c.status.empty() ? "?" : c.status,
                                            c.error.empty() ? "" : ": " + c.error);
        } else if (head == nullptr) {
            bench::Summary s;
            s.mean = *c.metric_us;
            s.mean_only = true;
            block.effective_us = s;
            block.notes.push_back(suite.suite_id == "report.md"
                                      ? "report.md value only (minimum rank median); no samples"
                                      : "metric_us only (no ranks[].samples_us)");
        } else {
            const auto& v = head->samples_us;
            block.effective_us = summary_of(v);
            block.headline_is_median = true;  // metric_us: the fastest rank's median
            block.declared_rounds = v.size();
            bench::RawSamples raw;
            raw.ranks = 1;
            raw.rounds = v.size();
            raw.per_rank[pid_number(head->trace_pid, 0)] = v;
            block.raw = std::move(raw);
            if (c.ranks.size() > 1) {
                for (std::size_t i = 0; i < c.ranks.size(); ++i) {
                    bench::Rank rank;
                    rank.rank = pid_number(c.ranks[i].trace_pid, i);
                    if (!c.ranks[i].samples_us.empty())
                        rank.eff_us = summary_of(c.ranks[i].samples_us);
                    rank.source = block.source;
                    block.ranks.push_back(std::move(rank));
                }
            }
            block.notes.push_back(fmt::format(
                "operator suite metric_us {} = minimum rank median (rank {}); compare with "
                "--metric median",
                stats::format_fixed(*c.metric_us, 2), head->trace_pid));
        }
        bc.blocks.push_back(std::move(block));
        cases.push_back(std::move(bc));
    }
    return cases;
}

}  // namespace ptune::ciresult
