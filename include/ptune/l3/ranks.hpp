#pragma once
/// @file ranks.hpp
/// Multi-card analysis: every capture of an L3 tree (tree.hpp) through the same per-capture
/// pipeline as one chip (swimlane/pipeline.hpp, pmu/pipeline.hpp), ranks read in parallel on
/// threads, then across the ranks of each dispatch: the straggler (the rank whose own time is
/// largest, which sets the round), the spread, and what makes the difference (the straggler's
/// critical path and kernels against the median rank's). The `L3.*` rules (rules/L3.json) read
/// the metrics published here.
///
/// Memory stays bounded: a worker loads one capture, analyses it, evaluates that rank's own
/// rules, keeps a small summary (RankResult) and frees the model before taking the next one, so
/// the peak is about `threads` captures, whatever the number of ranks.
///
/// Each rank's figures are durations on its own clock (makespan, kernel times, critical path),
/// so comparing them needs no common time axis and no cross-rank clock bound.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/l3/host_pairing.hpp"
#include "ptune/l3/tree.hpp"
#include "ptune/render/report.hpp"
#include "ptune/rules/engine.hpp"

namespace ptune::l3 {

/// Worker threads: `PTUNE_THREADS` when set to a positive number (the benchmark's one-thread
/// case), else std::thread::hardware_concurrency() (at least 1).
unsigned thread_count();

/// Runs `job(i)` for every i in [0, n) on up to `threads` threads (the caller's included), each
/// index exactly once. A progress line `label k/n` appears on stderr only on a TTY and only once
/// the work has taken about a second.
void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t)>& job,
                  const std::string& label);

/// One kernel (function) of one rank: count, total and median, in the comparison's unit.
struct KernelFigure {
    std::string name;
    std::size_t count = 0;
    double total = 0;
    double median = 0;
};

/// What remains of one rank's capture after its analysis.
struct RankResult {
    int rank = -1;
    int dispatch = -1;
    std::string label;  ///< "rank3/d0"
    std::string key;    ///< dispatch key ("d0" or "run1:0")
    std::string input;  ///< the file analysed
    bool usable = false;
    double value = 0;  ///< swimlane: makespan (µs); pmu: Σ pmu_total_cycles
    std::size_t tasks = 0;
    int level = 0;     ///< swimlane capture level (0 for pmu)
    std::string arch;  ///< "a2a3, 72 cores"; from the clock and core count (pmu: header)
    bool has_path = false;
    double path_us = 0, path_kernel_us = 0, path_wait_us = 0;
    std::vector<std::pair<std::string, double>> path_kernels;  ///< kernel time on the path
    std::vector<KernelFigure> kernels;                         ///< by name
    std::vector<rules::Finding> findings;  ///< the rank's own (L2.* or pmu.*) findings
    std::vector<std::string> inputs;       ///< every file read
    Diagnostics diagnostics;               ///< what reading it said, replayed in rank order
    /// Host placement (upstream-2026-09.md §1.12, §1.14): the `clock_alignment` status of the
    /// capture ("" when it has none), why it is unavailable, the bound width
    /// `host_anchor_max_ns − host_anchor_min_ns`, and, when placed in a host invocation of the
    /// tree's logs, its slack and how it was paired.
    std::string alignment_status;
    std::string alignment_reason;
    std::int64_t alignment_bound_ns = -1;
    std::int64_t slack_ns = -1;
    std::optional<HostPairing> pairing;
};

/// A kernel of the straggler against the same kernel on the median rank.
struct KernelDelta {
    std::string name;
    double straggler = 0;
    double median = 0;
};

/// One dispatch across its ranks.
struct DispatchSummary {
    std::string key;
    std::vector<std::size_t> members;  ///< usable results, by rank
    std::size_t straggler = 0;         ///< index into Comparison::ranks
    std::size_t median_rank = 0;       ///< the rank holding the (lower) median value
    double max = 0, median = 0, min = 0;
    double spread = 0;                ///< max − min
    double imbalance_pct = 0;         ///< (max − median) / median × 100
    std::vector<KernelDelta> deltas;  ///< straggler − median rank, largest first
};

/// Which per-capture pipeline produced the figures.
enum class Source { Swimlane, Pmu };

/// Everything found over a tree.
struct Comparison {
    Source source = Source::Swimlane;
    std::string unit;               ///< "µs" or "cycles"
    std::string measure;            ///< "makespan" or "Σ pmu_total_cycles"
    std::vector<RankResult> ranks;  ///< tree order (dispatch, rank)
    std::vector<DispatchSummary> dispatches;
    std::vector<std::string> gaps;  ///< the tree's and the analysis' (mixed levels, unreadable)
    /// What pairing the ranks with the tree's host logs said (§1.14), replayed after the ranks.
    Diagnostics placement_diagnostics;
    /// Per dispatch key placed on the host clock: `cross_rank_uncertainty_ns` (−1 with one rank).
    std::vector<std::pair<std::string, std::int64_t>> placed_dispatches;
};

/// Options of the tree analyses.
struct TreeOptions {
    unsigned threads = 1;
    /// pmu only: AICore clock in MHz (pmu.csv records none).
    std::optional<double> aicore_mhz;
};

/// Every capture with records, through load_capture/analyze_capture/publish and the L2.* rules.
Comparison analyze_swimlane_tree(const Tree& tree, const rules::Catalogue& catalogue,
                                 const TreeOptions& options);
/// Every capture with a pmu.csv, through load_pmu/analyze/publish_metrics and the pmu.* rules.
Comparison analyze_pmu_tree(const Tree& tree, const rules::Catalogue& catalogue,
                            const TreeOptions& options);

/// Fills `dispatches` from `ranks` (called by the analyses; public for tests).
void compare(Comparison& comparison);

/// Publishes the cross-rank metrics: subject kind "dispatch" (per key: straggler, spread,
/// imbalance, the difference), "rank" (per capture: critical-path wait against the median
/// rank's) and "rank-kernel" ("rank3/d0 expert_gemm": that kernel against the other ranks).
/// `only_if_absent`: leave subjects another source already published (advise, pmu after
/// swimlane).
void publish(const Comparison& comparison, rules::MetricStore& store, bool only_if_absent = false);

/// Replays every rank's diagnostics and every gap (once each) into `diagnostics`.
void report_diagnostics(const Tree& tree, const Comparison& comparison, Diagnostics& diagnostics);

/// The report of a tree: per rank and dispatch, across ranks, the difference; `findings` are the
/// L3.* findings, followed by each rank's own findings (subject prefixed with the rank label).
render::Report build_report(const std::string& command, const Tree& tree,
                            const Comparison& comparison, std::vector<rules::Finding> findings);

/// Each rank's own findings, the subject prefixed with the rank label ("rank3/d0" for a run-wide
/// finding, "rank3/d0 QK" for a kernel), in tree order.
std::vector<rules::Finding> rank_findings(const Comparison& comparison);

/// Every input file read, in tree order.
std::vector<std::string> inputs(const Comparison& comparison);

}  // namespace ptune::l3
