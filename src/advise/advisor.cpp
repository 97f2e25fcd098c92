// ptune advise: every analyzer on one run, the whole catalogue over the merged metrics, and a
// ranking by the guide's two tiers (schedule first, then each kernel's pipeline).

#include "ptune/advise/advisor.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "ptune/bench/gate.hpp"
#include "ptune/bench/gate_input.hpp"
#include "ptune/bench/gate_report.hpp"
#include "ptune/bench/model.hpp"
#include "ptune/bench/summary.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/hints/pipeline.hpp"
#include "ptune/memreport/pipeline.hpp"
#include "ptune/memreport/report.hpp"
#include "ptune/pmu/analyzer.hpp"
#include "ptune/pmu/kernel_names.hpp"
#include "ptune/pmu/parser.hpp"
#include "ptune/swimlane/analyze.hpp"
#include "ptune/swimlane/discover.hpp"
#include "ptune/swimlane/reader.hpp"

namespace ptune::advise {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kTopRows = 10;

std::string fixed(double value, int decimals) {
    return stats::format_fixed(value, decimals);
}

std::string percent(double fraction) {
    return stats::format_fixed(fraction * 100.0, 1) + " %";
}

// ---------------------------------------------------------------------------------------------
// Benchmark logs.

// The run's effective_us against --baseline runs, with bench-gate's tests and defaults.
void add_bench_gate(Advice& advice, const AdviseOptions& options,
                    const std::vector<bench::BenchCase>& current, rules::MetricStore& store,
                    Diagnostics& diagnostics) {
    std::vector<std::vector<bench::BenchCase>> baseline_runs;
    for (const auto& baseline : options.baselines) {
        auto loaded = bench::load_bench_inputs({baseline}, bench::LoadOptions{}, diagnostics);
        if (!loaded) {
            diagnostics.warn(loaded.error().file, loaded.error().line,
                             "baseline not usable, no comparison: " + loaded.error().message);
            return;
        }
        baseline_runs.push_back(std::move(*loaded));
    }
    bench::gate::Options gate_options;
    auto result = bench::gate::evaluate(
        bench::gate::pair_cases(baseline_runs, current, diagnostics), gate_options);
    bench::gate::publish_metrics(result, gate_options, store);
    Section section{
        "bench-gate", "effective_us against the baseline", {}, nlohmann::json::array(), {}};
    section.table.columns = {"case", "baseline", "current", "delta", "test", "verdict"};
    section.table.align = {render::Align::Left, render::Align::Right, render::Align::Right,
                           render::Align::Right};
    for (const auto& c : result.cases) {
        auto number = [](const std::optional<double>& v) {
            return v ? fixed(*v, 1) : std::string("-");
        };
        section.table.rows.push_back({c.name, number(c.baseline), number(c.current),
                                      c.delta_pct ? fixed(*c.delta_pct, 1) + " %" : "-",
                                      std::string(bench::gate::to_string(c.test)),
                                      std::string(bench::gate::to_string(c.verdict))});
        section.data.push_back(
            {{"case", c.name},
             {"verdict", std::string(bench::gate::to_string(c.verdict))},
             {"test", std::string(bench::gate::to_string(c.test))},
             {"delta_pct", c.delta_pct ? nlohmann::json(*c.delta_pct) : nlohmann::json()}});
    }
    advice.sections.push_back(std::move(section));
}

void add_bench(Advice& advice, const AdviseOptions& options, rules::MetricStore& store,
               Diagnostics& diagnostics) {
    if (options.logs.empty()) return;
    auto cases = bench::load_bench_inputs(options.logs, bench::LoadOptions{}, diagnostics);
    if (!cases) {
        diagnostics.warn(cases.error().file, cases.error().line, cases.error().message);
        return;
    }
    bench::publish_metrics(*cases, store);
    Section section{"bench", "Benchmark (effective_us)", {}, nlohmann::json::array(), {}};
    section.table.columns = {"case", "rounds", "min",   "median",
                             "mean", "max",    "ranks", "imbalance"};
    section.table.align = {render::Align::Left,  render::Align::Right, render::Align::Right,
                           render::Align::Right, render::Align::Right, render::Align::Right,
                           render::Align::Right, render::Align::Right};
    for (const auto& bench_case : *cases) {
        section.data.push_back(bench::case_to_json(bench_case));
        const bench::BenchBlock* block = bench_case.ci_block();
        if (block == nullptr || !block->effective_us) {
            section.table.rows.push_back(
                {bench_case.name, "-", "-", "-", "-", "-", "-",
                 block && block->unavailable ? *block->unavailable : "no timing"});
            continue;
        }
        const bench::Summary& s = *block->effective_us;
        auto imbalance = bench::rank_imbalance(*block);
        section.table.rows.push_back({bench_case.name, std::to_string(s.rounds), fixed(s.min, 1),
                                      fixed(s.median, 1), fixed(s.mean, 1), fixed(s.max, 1),
                                      std::to_string(block->ranks.size()),
                                      imbalance ? fixed(*imbalance, 3) : "-"});
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
    if (!options.baselines.empty()) add_bench_gate(advice, options, *cases, store, diagnostics);
}

// ---------------------------------------------------------------------------------------------
// Swimlane records: schedule metrics (Part 1).

std::optional<std::string> read_small(const fs::path& path, Diagnostics& diagnostics) {
    auto text = io::read_file(path.string());
    if (!text) {
        diagnostics.warn(text.error().file, 0, text.error().message);
        return std::nullopt;
    }
    return std::move(*text);
}

void add_swimlane(Advice& advice, rules::MetricStore& store, Diagnostics& diagnostics) {
    if (advice.inventory.of(ArtifactKind::SwimlaneRecords).empty()) return;
    auto discovery = swimlane::discover_captures(advice.inventory.run_dir);
    if (!discovery) {
        diagnostics.warn(discovery.error().file, 0, discovery.error().message);
        return;
    }
    Section section{"swimlane", "Schedule (L2 swimlane)", {}, nlohmann::json::array(), {}};
    section.table.columns = {
        "capture",          "tasks",        "window µs",       "Total Test Time µs", "parallelism",
        "kernel median µs", "longest task", "critical path µs"};
    section.table.align = {render::Align::Left,  render::Align::Right, render::Align::Right,
                           render::Align::Right, render::Align::Right, render::Align::Right,
                           render::Align::Right, render::Align::Right};
    // Per-function kernel time over every capture, for the chart and the kernel impact shares.
    std::map<std::string, double> kernel_time_us;
    bool first_capture = true;
    for (const auto& files : discovery->captures) {
        auto text = read_small(files.records, diagnostics);
        if (!text) continue;
        swimlane::ReadOptions read_options;
        read_options.source_name = files.records.string();
        auto capture = swimlane::read_capture(*text, read_options, diagnostics);
        if (!capture) {
            diagnostics.warn(capture.error().file, capture.error().line, capture.error().message);
            continue;
        }
        std::optional<swimlane::Deps> deps;
        if (!files.deps.empty()) {
            if (auto deps_text = read_small(files.deps, diagnostics)) {
                auto parsed = swimlane::read_deps(*deps_text, files.deps.string(), diagnostics);
                if (parsed)
                    deps = std::move(*parsed);
                else
                    diagnostics.warn(parsed.error().file, parsed.error().line,
                                     parsed.error().message);
            }
        }
        std::optional<swimlane::NameMap> names;
        if (!files.name_map.empty()) {
            if (auto names_text = read_small(files.name_map, diagnostics)) {
                auto parsed =
                    swimlane::read_name_map(*names_text, files.name_map.string(), diagnostics);
                if (parsed) names = std::move(*parsed);
            }
        } else if (!files.kernel_config.empty()) {
            if (auto config = read_small(files.kernel_config, diagnostics)) {
                names = swimlane::read_kernel_config(*config, files.kernel_config.string(),
                                                     diagnostics);
            }
        }
        if (deps) swimlane::apply_deps(*capture, *deps);
        auto input = swimlane::make_analyze_input(*capture, deps ? &*deps : nullptr,
                                                  names ? &*names : nullptr);
        auto analysis = swimlane::analyze_swimlane(input);
        // L3 trees hold one capture per rank and dispatch; the first one feeds the run subject,
        // the others are summarised in the table (their metrics would overwrite each other).
        if (first_capture) swimlane::publish_metrics(analysis, input, store);
        std::string label = files.label.empty() ? files.records.filename().string() : files.label;
        section.table.rows.push_back(
            {label, std::to_string(analysis.tasks), fixed(analysis.window_us, 2),
             fixed(analysis.total_test_time_us, 2), fixed(analysis.average_parallelism, 3),
             fixed(analysis.kernel_median_us, 2),
             analysis.window_us > 0 ? percent(analysis.tail.longest_task_share) : "-",
             analysis.critical_path.tasks.empty() ? "-"
                                                  : fixed(analysis.critical_path.length_us, 2)});
        section.data.push_back({{"capture", label},
                                {"records", files.records.string()},
                                {"tasks", analysis.tasks},
                                {"window_us", analysis.window_us},
                                {"total_test_time_us", analysis.total_test_time_us},
                                {"average_parallelism", analysis.average_parallelism}});
        for (const auto& function : analysis.functions)
            kernel_time_us[function.name] += function.exec_sum_us;
        if (first_capture) {
            advice.charts.window_begin_us = analysis.window_start_us;
            advice.charts.window_end_us = analysis.window_end_us;
            std::map<int, render::svg::Lane> lanes;
            for (const auto& row : input.rows) {
                auto& lane = lanes[row.core];
                if (lane.name.empty()) lane.name = swimlane::lane_name(row.core, row.kind);
                lane.busy.emplace_back(row.start, row.end);
            }
            for (auto& [core, lane] : lanes) advice.charts.lanes.push_back(std::move(lane));
        }
        first_capture = false;
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
    if (!section.table.rows.empty()) advice.sections.push_back(std::move(section));
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
    Section section{"mem", "On-chip memory (memory report)", {}, nlohmann::json::array(), {}};
    section.table = memreport::usage_table(analysis->report);
    section.data.push_back(memreport::to_json(analysis->report, analysis->choice));
    advice.charts.memory_fill = memreport::usage_bars(analysis->report);
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

void add_pmu(Advice& advice, rules::MetricStore& store, Diagnostics& diagnostics) {
    Section section{"pmu", "Pipes (PMU counters)", {}, nlohmann::json::array(), {}};
    section.table.columns = {"kernel", "core", "tasks", "cycle share", "bound ratio", "bottleneck"};
    section.table.align = {render::Align::Left,  render::Align::Left,  render::Align::Right,
                           render::Align::Right, render::Align::Right, render::Align::Left};
    bool first = true;
    for (const Artifact* artifact : advice.inventory.of(ArtifactKind::Pmu)) {
        auto input = io::open_input(artifact->path.string());
        if (!input) {
            diagnostics.warn(input.error().file, 0, input.error().message);
            continue;
        }
        auto table = pmu::parse_pmu_csv(input->stream(), artifact->path.string(), diagnostics);
        if (!table) {
            diagnostics.warn(table.error().file, table.error().line, table.error().message);
            continue;
        }
        pmu::KernelNames names;
        if (auto names_path = pmu::find_kernel_names(artifact->path)) {
            auto loaded = pmu::load_kernel_names(*names_path, diagnostics);
            if (loaded) names = std::move(*loaded);
        }
        auto analysis = pmu::analyze(*table, names, pmu::AnalyzeOptions{}, diagnostics);
        // Several dispatch directories of an L3 run: the first feeds the rules, as for swimlane.
        if (first) pmu::publish_metrics(*table, analysis, store);
        for (const auto& kernel : analysis.kernels) {
            std::string core =
                kernel.core_type ? std::string(pmu::to_string(*kernel.core_type)) : "mixed";
            auto bound = kernel.weighted.bound_ratio;
            auto bottleneck = kernel.weighted.bottleneck;
            section.table.rows.push_back(
                {kernel.name, core, std::to_string(kernel.tasks),
                 kernel.cycle_share ? percent(*kernel.cycle_share) : "-",
                 bound ? fixed(*bound, 3) : "-",
                 bottleneck ? std::string(pmu::to_string(*bottleneck)) : "-"});
            section.data.push_back(
                {{"kernel", kernel.name},
                 {"scope", artifact->scope},
                 {"bound_ratio", bound ? nlohmann::json(*bound) : nlohmann::json()},
                 {"bottleneck", bottleneck
                                    ? nlohmann::json(std::string(pmu::to_string(*bottleneck)))
                                    : nlohmann::json()}});
            if (first && kernel.cycle_share &&
                !store.subject("kernel", kernel.name).metric("advise.kernel_time_share")) {
                store.set("kernel", kernel.name, "advise.kernel_time_share", *kernel.cycle_share);
            }
            if (first && advice.charts.pipes.size() < kTopRows && analysis.has_pipes) {
                render::svg::StackedBar bar{kernel.name, {}};
                for (pmu::Pipe pipe : pmu::kAllPipes) {
                    if (auto ratio = kernel.weighted.ratio_of(pipe)) {
                        bar.parts.emplace_back(std::string(pmu::to_string(pipe)), *ratio);
                    }
                }
                advice.charts.pipes.push_back(std::move(bar));
            }
        }
        first = false;
    }
    if (!section.table.rows.empty()) advice.sections.push_back(std::move(section));
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

Advice advise(Inventory inventory, const AdviseOptions& options, const rules::Catalogue& catalogue,
              Diagnostics& diagnostics) {
    Advice advice;
    advice.inventory = std::move(inventory);
    rules::MetricStore store;
    add_bench(advice, options, store, diagnostics);
    add_swimlane(advice, store, diagnostics);
    add_memory(advice, store, diagnostics);
    add_pmu(advice, store, diagnostics);
    add_hints(advice, catalogue, store, diagnostics);
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
