// ptune advise: every analyzer on one run, the whole catalogue over the merged metrics, and a
// ranking by the guide's two tiers (schedule first, then each kernel's pipeline).

#include "ptune/advise/advisor.hpp"

#include "l3_section.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "ptune/bench/pipeline.hpp"
#include "ptune/bench/summary.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/gate/pipeline.hpp"
#include "ptune/hints/pipeline.hpp"
#include "ptune/memreport/memory_map.hpp"
#include "ptune/memreport/pipeline.hpp"
#include "ptune/memreport/report.hpp"
#include "ptune/pmu/analyzer.hpp"
#include "ptune/pmu/pipeline.hpp"
#include "ptune/pmu/report.hpp"
#include "ptune/swimlane/pipeline.hpp"
#include "ptune/swimlane/report.hpp"

namespace ptune::advise {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kTopRows = 10;
// Memory maps in the HTML report: enough for a program's kernels, bounded for huge reports.
constexpr std::size_t kMemoryMaps = 24;

std::string fixed(double value, int decimals) {
    return stats::format_fixed(value, decimals);
}

std::string percent(double fraction) {
    return stats::format_ratio(fraction);
}

// ---------------------------------------------------------------------------------------------
// Benchmark logs.

// The run's effective_us against --baseline runs, with bench-gate's tests, defaults and table.
void add_bench_gate(Advice& advice, const AdviseOptions& options,
                    std::vector<bench::BenchCase> current, rules::MetricStore& store,
                    Diagnostics& diagnostics) {
    gate::Options gate_options;
    gate::GateRequest request{options.baselines, "", {}, false, std::move(current)};
    auto outcome =
        gate::run_gate(request, gate_options, {gate_options, false}, nullptr, diagnostics);
    if (!outcome) {
        diagnostics.warn(outcome.error().file, outcome.error().line,
                         "baseline not usable, no comparison: " + outcome.error().message);
        return;
    }
    gate::publish_metrics(outcome->result, gate_options, store);
    auto& report = outcome->report;
    advice.sections.push_back({"bench-gate",
                               "effective_us against the baseline",
                               std::move(report.tables.front()),
                               std::move(report.data["cases"]),
                               {}});
}

void add_bench(Advice& advice, const AdviseOptions& options, rules::MetricStore& store,
               Diagnostics& diagnostics) {
    if (options.logs.empty()) return;
    auto cases = bench::load_run(options.logs, bench::LoadOptions{}, diagnostics);
    if (!cases) {
        diagnostics.warn(cases.error().file, cases.error().line, cases.error().message);
        return;
    }
    bench::publish_metrics(*cases, store);
    Section section{"bench", "Benchmark (effective_us)", {}, nlohmann::json::array(), {}};
    section.table = bench::summary_table(*cases, section.notes);
    for (const auto& bench_case : *cases) {
        section.data.push_back(bench::case_to_json(bench_case));
        const bench::BenchBlock* block = bench_case.ci_block();
        if (block == nullptr || !block->effective_us) continue;
        const bench::Summary& s = *block->effective_us;
        if (block->ranks.size() > 1) {
            for (const auto& rank : block->ranks) {
                if (!rank.eff_us) continue;
                advice.charts.rank_effective_us.push_back(
                    {fmt::format("{} rank {}", bench_case.name, rank.rank), rank.eff_us->mean,
                     fixed(rank.eff_us->mean, 1) + " µs", false});
            }
        } else {
            advice.charts.rank_effective_us.push_back(
                {bench_case.name, s.mean, fixed(s.mean, 1) + " µs", false});
        }
    }
    advice.sections.push_back(std::move(section));
    // The run's cases are not needed after the comparison: the gate takes them.
    if (!options.baselines.empty())
        add_bench_gate(advice, options, std::move(*cases), store, diagnostics);
}

// ---------------------------------------------------------------------------------------------
// Swimlane records: schedule metrics (Part 1).

void add_swimlane(Advice& advice, const rules::Catalogue& catalogue, rules::MetricStore& store,
                  Diagnostics& diagnostics) {
    if (advice.inventory.of(ArtifactKind::SwimlaneRecords).empty()) return;
    if (add_l3(advice, l3::Source::Swimlane, catalogue, store, diagnostics)) return;
    swimlane::LoadRequest request;
    request.input = advice.inventory.run_dir;
    auto discovery = swimlane::find_captures(request);
    if (!discovery) {
        // The inventory looks deeper than the swimlane layouts (a directory above several
        // runs): the capture is then read where the inventory found it.
        request.input =
            advice.inventory.of(ArtifactKind::SwimlaneRecords).front()->path.parent_path().string();
        discovery = swimlane::find_captures(request);
    }
    if (!discovery) {
        diagnostics.warn(discovery.error().file, 0, discovery.error().message);
        return;
    }
    swimlane::AnalyzeOptions options = swimlane::analyze_options(catalogue);
    swimlane::Overview overview = swimlane::make_overview();
    // Per-function kernel time over every capture, for the chart and the kernel impact shares.
    std::map<std::string, double> kernel_time_us;
    bool first_capture = true;
    for (const auto& files : discovery->captures) {
        auto loaded = swimlane::load_capture(files, request, diagnostics);
        if (!loaded) {
            diagnostics.warn(loaded.error().file, loaded.error().line, loaded.error().message);
            continue;
        }
        // A records file holding several runs: one overview row per run, never one pooled run.
        for (const auto& result : swimlane::analyze_runs(*loaded, options)) {
            const swimlane::Analysis& analysis = result.analysis;
            // L3 trees hold one capture per rank and dispatch; the first one feeds the run subject,
            // the others are summarised in the table (their metrics would overwrite each other).
            if (first_capture) swimlane::publish(result, store);
            std::string label =
                files.label.empty() ? files.records.filename().string() : files.label;
            if (!result.run_label.empty()) label += " [" + result.run_label + "]";
            swimlane::add_to_overview(overview, label, *loaded, analysis);
            for (const auto& function : analysis.functions)
                kernel_time_us[function.name] += function.exec_sum_us;
            if (first_capture) {
                advice.charts.window_begin_us = analysis.window_start_us;
                advice.charts.window_end_us = analysis.window_end_us;
                std::map<int, render::svg::Lane> lanes;
                for (const auto& row : result.input.rows) {
                    auto& lane = lanes[row.core];
                    if (lane.name.empty()) lane.name = swimlane::lane_name(row.core, row.kind);
                    lane.busy.emplace_back(row.start, row.end);
                }
                for (auto& [core, lane] : lanes) advice.charts.lanes.push_back(std::move(lane));
            }
            first_capture = false;
        }
    }
    double total = 0;
    for (const auto& [name, time] : kernel_time_us) total += time;
    std::vector<std::pair<std::string, double>> ordered(kernel_time_us.begin(),
                                                        kernel_time_us.end());
    std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    for (const auto& [name, time] : ordered) {
        if (total > 0) store.set("kernel", name, "advise.kernel_time_share", time / total);
        if (advice.charts.top_kernels.size() < kTopRows) {
            advice.charts.top_kernels.push_back(
                {name, time,
                 fmt::format("{} µs ({})", fixed(time, 2), total > 0 ? percent(time / total) : "-"),
                 false});
        }
    }
    if (overview.table.rows.empty()) return;
    advice.sections.push_back({"swimlane",
                               "Schedule (L2 swimlane)",
                               std::move(overview.table),
                               std::move(overview.data),
                               {}});
}

// ---------------------------------------------------------------------------------------------
// Memory report (Part 2: on-chip buffers per kernel).

void add_memory(Advice& advice, rules::MetricStore& store, Diagnostics& diagnostics) {
    std::vector<fs::path> reports;
    for (const Artifact* artifact : advice.inventory.of(ArtifactKind::MemoryReport))
        reports.push_back(artifact->path);
    auto analysis = memreport::load_and_analyze(
        memreport::choose_report(reports, advice.inventory.run_dir, diagnostics), {}, diagnostics);
    if (!analysis) {
        diagnostics.warn(analysis.error().file, analysis.error().line, analysis.error().message);
        return;
    }
    memreport::publish(*analysis, store);
    if (!analysis->found()) return;
    bool dump = analysis->report.origin == memreport::Origin::PassDump;
    Section section{"mem",
                    dump ? "On-chip memory (rebuilt from the pass dump; backend " +
                               memreport::backend_text(analysis->report, analysis->choice) + ")"
                         : "On-chip memory (memory report)",
                    {},
                    nlohmann::json::array(),
                    {}};
    section.table = memreport::usage_table(analysis->report);
    section.data.push_back(memreport::to_json(analysis->report, analysis->choice));
    advice.charts.memory_fill = memreport::usage_bars(analysis->report);
    advice.charts.memory_maps = memreport::memory_maps(analysis->report, kMemoryMaps);
    advice.sections.push_back(std::move(section));
}

// ---------------------------------------------------------------------------------------------
// perf_hints.log (Part 2: transfers and pipeline depth at source lines).

void add_hints(Advice& advice, const rules::Catalogue& catalogue, rules::MetricStore& store,
               Diagnostics& diagnostics) {
    std::vector<std::string> paths;
    for (const Artifact* artifact : advice.inventory.of(ArtifactKind::PerfHints))
        paths.push_back(artifact->path.string());
    auto logs = hints::read_logs(paths, {}, diagnostics);
    if (logs.empty()) return;
    hints::LintOptions lint_options;
    lint_options.root = advice.inventory.run_dir;
    auto result = hints::lint(std::move(logs), catalogue, lint_options, diagnostics);
    hints::publish(result, store);

    auto summaries = hints::summarise_by_rule(result);
    Section section{"hints", "Compiler hints (perf_hints.log)", {}, {}, {}};
    section.table = hints::summary_table(summaries);
    section.data = hints::summary_json(summaries);
    advice.sections.push_back(std::move(section));
    for (const auto& summary : summaries)
        advice.findings.push_back({hints::summary_finding(summary, catalogue), 2, 0, ""});
    for (const auto& finding : result.log_findings) advice.findings.push_back({finding, 3, 0, ""});
}

// ---------------------------------------------------------------------------------------------
// pmu.csv (Part 2 item 4: the bottleneck pipe of each kernel).

void add_pmu(Advice& advice, const rules::Catalogue& catalogue, rules::MetricStore& store,
             Diagnostics& diagnostics) {
    if (!advice.inventory.of(ArtifactKind::Pmu).empty() &&
        add_l3(advice, l3::Source::Pmu, catalogue, store, diagnostics))
        return;
    pmu::Overview overview = pmu::make_overview();
    bool first = true;
    for (const Artifact* artifact : advice.inventory.of(ArtifactKind::Pmu)) {
        auto loaded = pmu::load_pmu(artifact->path.string(), {}, diagnostics);
        if (!loaded) {
            diagnostics.warn(loaded.error().file, loaded.error().line, loaded.error().message);
            continue;
        }
        auto analysis =
            pmu::analyze(loaded->table, loaded->names, pmu::AnalyzeOptions{}, diagnostics);
        pmu::add_to_overview(overview, artifact->scope, analysis);
        // Several dispatch directories of an L3 run: the first feeds the rules, as for swimlane.
        if (!first) continue;
        first = false;
        pmu::publish_metrics(loaded->table, analysis, store);
        for (const auto& kernel : analysis.kernels) {
            if (kernel.cycle_share &&
                !store.subject("kernel", kernel.name).metric("advise.kernel_time_share")) {
                store.set("kernel", kernel.name, "advise.kernel_time_share", *kernel.cycle_share);
            }
            if (advice.charts.pipes.size() < kTopRows && analysis.has_pipes) {
                render::svg::StackedBar bar{kernel.name, {}};
                for (pmu::Pipe pipe : pmu::kAllPipes) {
                    if (auto ratio = kernel.weighted.ratio_of(pipe)) {
                        bar.parts.emplace_back(std::string(pmu::to_string(pipe)), *ratio);
                    }
                }
                advice.charts.pipes.push_back(std::move(bar));
            }
        }
    }
    if (overview.table.rows.empty()) return;
    advice.sections.push_back(
        {"pmu", "Pipes (PMU counters)", std::move(overview.table), std::move(overview.data), {}});
}

// ---------------------------------------------------------------------------------------------
// Ranking.

int tier_of(const rules::Finding& finding) {
    if (finding.tier == "regression") return 0;
    if (finding.tier == "schedule") return 1;
    if (finding.tier == "pipeline") return 2;
    return 3;
}

// The share of the run a finding touches: the rule's own impact expression when it has one,
// else the kernel's share of kernel time, else the share a run-wide metric states.
void estimate_impact(RankedFinding& ranked, const rules::MetricStore& store) {
    const rules::Finding& finding = ranked.finding;
    if (finding.impact) {
        ranked.impact = std::clamp(*finding.impact, 0.0, 1.0);
        ranked.impact_basis = "rule estimate";
        return;
    }
    if (finding.subject.kind == "kernel" || finding.subject.kind == "function") {
        auto it = store.subjects().find({"kernel", finding.subject.name});
        if (it != store.subjects().end()) {
            if (auto share = it->second.metric("advise.kernel_time_share")) {
                ranked.impact = std::clamp(*share, 0.0, 1.0);
                ranked.impact_basis = "kernel's share of kernel time";
                return;
            }
        }
    }
}

}  // namespace

// Host logs, host phase records and scope_stats.jsonl (host_scope_section.cpp).
void add_host_and_scope(Advice& advice, const AdviseOptions& options, rules::MetricStore& store,
                        Diagnostics& diagnostics);

Advice advise(Inventory inventory, const AdviseOptions& options, const rules::Catalogue& catalogue,
              Diagnostics& diagnostics) {
    Advice advice;
    advice.inventory = std::move(inventory);
    rules::MetricStore store;
    add_bench(advice, options, store, diagnostics);
    add_swimlane(advice, catalogue, store, diagnostics);
    add_memory(advice, store, diagnostics);
    add_pmu(advice, catalogue, store, diagnostics);
    add_hints(advice, catalogue, store, diagnostics);
    add_host_and_scope(advice, options, store, diagnostics);
    // Each analyzer pins the run subject to its own file; merged, those places say nothing about
    // a run-wide finding.
    store.run().locations.clear();

    // Per-hint rules were summarised above; every other rule runs over the merged metrics.
    for (auto& finding : rules::evaluate(catalogue, store)) {
        if (finding.rule.rfind("hints.", 0) == 0 && finding.subject.kind == "entry") continue;
        advice.findings.push_back({std::move(finding), 3, 0, ""});
    }
    for (auto& ranked : advice.findings) {
        ranked.tier = tier_of(ranked.finding);
        estimate_impact(ranked, store);
    }
    std::stable_sort(advice.findings.begin(), advice.findings.end(),
                     [](const RankedFinding& a, const RankedFinding& b) {
                         if (a.tier != b.tier) return a.tier < b.tier;
                         // Notes (healthy kernels, headroom hints) follow every actual problem.
                         bool a_info = a.finding.severity == rules::RuleSeverity::Info;
                         bool b_info = b.finding.severity == rules::RuleSeverity::Info;
                         if (a_info != b_info) return b_info;
                         if (a.impact != b.impact) return a.impact > b.impact;
                         return a.finding.severity > b.finding.severity;
                     });
    return advice;
}

}  // namespace ptune::advise
