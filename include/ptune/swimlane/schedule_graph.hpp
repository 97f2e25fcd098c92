#pragma once
/// @file schedule_graph.hpp
/// The schedule analyses engineers click through in the pypto-tools IDE view
/// (upstream-2026-12.md §8), computed to explain and advise: per-function statistics without
/// setup and the setup ranking (§8.1, §8.2), redundant dependencies with what each costs (§8.3),
/// early dispatch and its lead (§8.4), single-dependency chains (§8.5) and the gap classes along
/// the observed critical path (§8.6). Everything is linear or O(E log E) in rows and edges except
/// the reachability test of the transitive reduction, which walks from each edge's other
/// successors only down to the target's topological position and keeps one visited mark per
/// node (O(V) memory, never a V×V matrix).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ptune/rules/metrics.hpp"
#include "ptune/swimlane/analyze.hpp"
#include "ptune/swimlane/model.hpp"

namespace ptune::swimlane {

/// What the graph analyses read besides the rows (AnalyzeInput): the deps.json graph.
struct GraphInput {
    /// Deduplicated (pred, succ) edges, as AnalyzeInput::edges.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> edges;
    /// The ids of deps.json `tasks[]`. A node known only from edges is an ALLOC task (§8.3).
    std::vector<std::uint64_t> tasks;
    /// Tasks whose deps.json entry has `"early_dispatch": true`.
    std::vector<std::uint64_t> early_dispatch;
};

/// Per-function statistics with setup excluded (§8.1: one sample per AICore row, a proposal).
struct FunctionTiming {
    int func_id = -1;
    std::string name;
    std::size_t count = 0;
    double min_us = 0, max_us = 0, avg_us = 0;  ///< end − start
    double setup_sum_us = 0;                    ///< Σ (start − receive)
};

/// One row's local setup (§8.2): receive→start.
struct SetupRow {
    std::string task;  ///< label
    int core = 0;
    double setup_us = 0;
    double ratio = 0;  ///< setup / (setup + end − start) (proposal)
};

/// A transitively redundant edge (§8.3) and its measured cost.
struct RedundantEdge {
    std::string pred, succ;       ///< labels
    bool data_flow_only = false;  ///< redundant only under the DF proposal (leaves an ALLOC node)
    /// The successor's dispatch delay beyond the median of tasks without redundant inputs:
    /// dispatch − latest finish of its required predecessors − that median (µs, ≥ 0); absent
    /// without AICPU timing or rows.
    std::optional<double> excess_delay_us;
};

/// A task expected to dispatch early — marked `early_dispatch` (🔥, not ALLOC) or with every
/// input early-processable (⭐; a proposal: §8.7 measures such a task) — and what happened (§8.4).
struct EarlyDispatchTask {
    std::string task;
    std::optional<double> lead_us;  ///< latest predecessor finish − dispatch (> 0: early)
    bool led() const { return lead_us && *lead_us > 0; }
};

/// A maximal chain of single-dependency links (§8.5), a merge candidate.
struct SingleChain {
    std::vector<std::string> tasks;  ///< labels, in order
    double overhead_us =
        0;  ///< Σ over links of next start − previous end (scheduling between them)
};

/// Gap classes along the observed critical path (§8.6, simpler's vocabulary).
struct GapClasses {
    double front_gap_us = 0;  ///< before the first path task: start − dispatch
    double core_wait_us = 0;  ///< the task's core was busy with another task
    double data_wait_us = 0;  ///< waiting for a predecessor to finish (and its dispatch)
    std::size_t core_wait_count = 0, data_wait_count = 0;
};

/// Everything the graph analyses found.
struct ScheduleGraph {
    std::vector<FunctionTiming> functions;      ///< by func_id
    std::vector<SetupRow> longest_setup;        ///< the 5 longest setups, longest first
    std::vector<SetupRow> largest_setup_share;  ///< the 5 largest setup ratios
    double setup_on_path_us = 0;                ///< Σ setup of the critical path's tasks
    bool has_graph = false;                     ///< deps.json edges were read
    std::size_t edges = 0, alloc_nodes = 0;
    std::vector<RedundantEdge> redundant;  ///< reduced mode's hidden edges, then DF-only ones
    std::size_t redundant_df = 0;          ///< of which data_flow_only
    std::vector<std::string> fire, star;   ///< 🔥 and ⭐ markers (labels)
    std::vector<EarlyDispatchTask> early;  ///< 🔥 tasks that are not ALLOC, and ⭐ tasks
    std::vector<SingleChain> chains;       ///< longest first
    std::optional<GapClasses> gaps;        ///< with a critical path
};

/// The graph part of deps.json: its deduplicated edges, its tasks[] ids and the tasks marked
/// `"early_dispatch": true`.
GraphInput make_graph_input(const Deps& deps);

/// Runs the graph analyses. `analysis` supplies the critical path.
ScheduleGraph analyze_schedule_graph(const AnalyzeInput& input, const GraphInput& graph,
                                     const Analysis& analysis);

/// At most this many redundant edges, early-dispatch tasks and chains become subjects of their
/// own (the costliest first), so a graph of 100,000 edges does not flood the rules.
inline constexpr std::size_t kGraphSubjects = 10;

/// Publishes for the rules engine: on the run `L2.graph.*` (edges, redundant, redundant_df),
/// `L2.setup.*`, `L2.early.*` (marked, never_led), `L2.chain.*` (count, max_links) and, with a
/// critical path, `L2.path.{front_gap,core_wait,data_wait}_us` and `_pct` of its length; subjects
/// `edge` "pred→succ" (`L2.edge.excess_delay_us`, `L2.edge.window_share`), `task`
/// (`L2.early.lead_us`) and `chain` "first→…→last" (`L2.chain.links`, `L2.chain.overhead_us`,
/// `L2.chain.window_share`).
void publish_schedule_graph(const ScheduleGraph& graph, const Analysis& analysis,
                            rules::MetricStore& store);

}  // namespace ptune::swimlane
