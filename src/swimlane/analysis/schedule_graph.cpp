// The IDE's schedule analyses made precise (schedule_graph.hpp, upstream-2026-12.md §8).

#include "ptune/swimlane/schedule_graph.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <span>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "analyzer.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"
#include "ptune/swimlane/reader.hpp"

namespace ptune::swimlane {

namespace {

constexpr std::size_t kTopSetups = 5;

/// One node of the deps graph: its edges, its rows' times and whether it is an ALLOC task.
struct Node {
    std::uint64_t id = 0;
    /// Node indices, in the edges' order: views into GraphAnalysis's flat edge lists.
    std::span<const std::size_t> preds, succs;
    bool alloc = true;   ///< known only from edges (§8.3)
    bool early = false;  ///< "early_dispatch": true
    bool has_rows = false;
    /// The rows' times (earliest dispatch and start, latest end and finish) and the label.
    TaskSummary task{0,
                     -1,
                     "",
                     std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity()};
    std::size_t topo = 0;   ///< position in a topological order
    std::size_t level = 0;  ///< longest path from a source: an edge always climbs a level
};

class GraphAnalysis {
  public:
    GraphAnalysis(const AnalyzeInput& input, const GraphInput& graph, const Analysis& analysis)
        : in_(input), graph_(graph), analysis_(analysis) {}

    ScheduleGraph run() {
        function_timings();
        setups();
        if (!graph_.edges.empty()) {
            build_nodes();
            if (topological_order()) {
                out_.has_graph = true;
                redundant_edges();
                markers_and_early_dispatch();
                single_chains();
            }
        }
        gap_classes();
        return std::move(out_);
    }

  private:
    // §8.1: end − start per AICore row, setup excluded.
    void function_timings() {
        std::map<int, FunctionTiming> by_func;
        for (const AnalyzeRow& row : in_.rows) {
            FunctionTiming& f = by_func[row.func_id];
            double exec = row.end - row.start;
            if (f.count == 0) {
                f.func_id = row.func_id;
                f.name = analysis::function_name(row.func_id, in_.names);
                f.min_us = f.max_us = exec;
            }
            f.min_us = std::min(f.min_us, exec);
            f.max_us = std::max(f.max_us, exec);
            f.avg_us += exec;  // the sum until the end
            f.setup_sum_us += row.start - row.receive;
            ++f.count;
        }
        for (auto& [id, f] : by_func) {
            f.avg_us /= static_cast<double>(f.count);
            out_.functions.push_back(std::move(f));
        }
    }

    // §8.2: the longest setups and the largest setup shares.
    void setups() {
        std::vector<SetupCandidate> rows;
        rows.reserve(in_.rows.size());
        for (std::size_t i = 0; i < in_.rows.size(); ++i) {
            const AnalyzeRow& row = in_.rows[i];
            double setup = row.start - row.receive;
            if (setup <= 0) continue;
            double whole = setup + row.end - row.start;
            rows.push_back({i, setup, whole > 0 ? setup / whole : 0});
        }
        out_.longest_setup = top_setups(rows, &SetupCandidate::setup_us);
        out_.largest_setup_share = top_setups(rows, &SetupCandidate::ratio);
        std::unordered_map<std::uint64_t, double> setup_by_task;
        for (const AnalyzeRow& row : in_.rows)
            setup_by_task[row.task_id] =
                std::max(setup_by_task[row.task_id], row.start - row.receive);
        for (const PathStep& step : analysis_.critical_path.tasks)
            out_.setup_on_path_us += setup_by_task[step.task_id];
    }

    /// A row with a setup: its index in the input, its setup and its setup share.
    struct SetupCandidate {
        std::size_t row;
        double setup_us, ratio;
    };

    /// The kTopSetups rows of largest `key`, ties in label order, then in the capture's. Only rows
    /// that can be among them get a label: those whose key reaches the kTopSetups-th largest (a
    /// 200,000-task capture has ~300,000 rows, and labelling each cost more than the graph
    /// analyses).
    std::vector<SetupRow> top_setups(const std::vector<SetupCandidate>& rows,
                                     double SetupCandidate::*key) const {
        double threshold = -std::numeric_limits<double>::infinity();
        if (rows.size() > kTopSetups) {
            std::vector<double> keys;
            keys.reserve(rows.size());
            for (const SetupCandidate& c : rows) keys.push_back(c.*key);
            auto nth = keys.begin() + static_cast<std::ptrdiff_t>(kTopSetups - 1);
            std::nth_element(keys.begin(), nth, keys.end(), std::greater<>());
            threshold = *nth;
        }
        std::vector<std::pair<double, SetupRow>> ranked;  // (key, row)
        for (const SetupCandidate& c : rows) {
            if (c.*key < threshold) continue;
            const AnalyzeRow& row = in_.rows[c.row];
            ranked.push_back({c.*key, {label_of_row(row), row.core, c.setup_us, c.ratio}});
        }
        // Stable: rows alike in key and label (one task's blocks) keep the capture's order.
        std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first > b.first : a.second.task < b.second.task;
        });
        std::vector<SetupRow> top;
        for (std::size_t i = 0; i < ranked.size() && i < kTopSetups; ++i)
            top.push_back(std::move(ranked[i].second));
        return top;
    }

    std::string label_of_row(const AnalyzeRow& row) const {
        return analysis::task_label(row.task_id, row.func_id, false, in_.names, in_.labels);
    }

    // A node's converter label, made when a result first names it: most nodes are never named,
    // and formatting every label of a 200,000-task graph cost more than the analyses.
    const std::string& label(std::size_t i) {
        Node& n = nodes_[i];
        if (n.task.label.empty()) {
            n.task.label = n.alloc ? fmt::format("alloc({})", task_display(n.id, in_.labels))
                                   : analysis::task_label(n.id, n.task.func_id,
                                                          analysis::is_spmd(n.task, in_.block_num),
                                                          in_.names, in_.labels);
        }
        return n.task.label;
    }

    std::size_t node(std::uint64_t id) {
        auto [it, inserted] = index_.try_emplace(id, nodes_.size());
        if (inserted) {
            nodes_.emplace_back();
            nodes_.back().id = id;
        }
        return it->second;
    }

    void build_nodes() {
        index_.reserve(graph_.tasks.size());
        nodes_.reserve(graph_.tasks.size());
        for (std::uint64_t id : graph_.tasks) nodes_[node(id)].alloc = false;
        std::vector<std::pair<std::size_t, std::size_t>> links;
        links.reserve(graph_.edges.size());
        for (const auto& [pred, succ] : graph_.edges) {
            std::size_t p = node(pred), s = node(succ);
            if (p != s) links.emplace_back(p, s);
        }
        // Both adjacency lists flat, each node's part in edge order (a counting sort): two
        // vectors per node cost 0.4 M allocations at 200,000 tasks.
        std::vector<std::size_t> succ_at(nodes_.size() + 1), pred_at(nodes_.size() + 1);
        for (const auto& [p, s] : links) {
            ++succ_at[p + 1];
            ++pred_at[s + 1];
        }
        for (std::size_t i = 0; i < nodes_.size(); ++i) {
            succ_at[i + 1] += succ_at[i];
            pred_at[i + 1] += pred_at[i];
        }
        succ_list_.resize(links.size());
        pred_list_.resize(links.size());
        for (std::size_t i = 0; i < nodes_.size(); ++i) {
            nodes_[i].succs = {succ_list_.data() + succ_at[i], succ_at[i + 1] - succ_at[i]};
            nodes_[i].preds = {pred_list_.data() + pred_at[i], pred_at[i + 1] - pred_at[i]};
        }
        for (const auto& [p, s] : links) {
            succ_list_[succ_at[p]++] = s;
            pred_list_[pred_at[s]++] = p;
        }
        // An edge-only node is ALLOC; a task id with rows but absent from tasks[] stays a task.
        for (const AnalyzeRow& row : in_.rows) {
            auto it = index_.find(row.task_id);
            if (it == index_.end()) continue;
            Node& n = nodes_[it->second];
            n.alloc = false;
            n.has_rows = true;
            analysis::add_row(n.task, row);
        }
        for (std::uint64_t id : graph_.early_dispatch)
            if (auto it = index_.find(id); it != index_.end()) nodes_[it->second].early = true;
        for (Node& n : nodes_) n.task.task_id = n.id;
        out_.edges = graph_.edges.size();
        out_.alloc_nodes = static_cast<std::size_t>(
            std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.alloc; }));
    }

    // Kahn's algorithm; false (no graph analyses) on a cycle, which the critical path reports.
    bool topological_order() {
        std::vector<std::size_t> indegree(nodes_.size());
        for (const Node& n : nodes_) indegree[&n - nodes_.data()] = n.preds.size();
        std::vector<std::size_t> ready;
        for (std::size_t i = 0; i < nodes_.size(); ++i)
            if (indegree[i] == 0) ready.push_back(i);
        std::size_t placed = 0;
        while (!ready.empty()) {
            std::size_t i = ready.back();
            ready.pop_back();
            nodes_[i].topo = placed++;
            for (std::size_t s : nodes_[i].succs) {
                nodes_[s].level = std::max(nodes_[s].level, nodes_[i].level + 1);
                if (--indegree[s] == 0) ready.push_back(s);
            }
        }
        return placed == nodes_.size();
    }

    // Marks (with a new generation) every node reachable from `from` by a path of two edges or
    // more: a direct successor is then redundant exactly when it is marked. Every edge climbs at
    // least one level (longest path from a source), so the walk never expands a node at or above
    // the highest direct successor's level: in a layered schedule graph it looks a few levels
    // ahead, not at everything downstream. `mark_` holds one generation number per node, so it is
    // never cleared.
    void mark_indirect(std::size_t from) {
        ++generation_;
        std::size_t limit = 0;
        for (std::size_t w : nodes_[from].succs) limit = std::max(limit, nodes_[w].level);
        stack_.clear();
        auto visit = [&](std::size_t y) {
            if (mark_[y] == generation_ || nodes_[y].level > limit) return;
            mark_[y] = generation_;
            if (nodes_[y].level < limit) stack_.push_back(y);
        };
        for (std::size_t w : nodes_[from].succs)
            for (std::size_t y : nodes_[w].succs) visit(y);
        while (!stack_.empty()) {
            std::size_t x = stack_.back();
            stack_.pop_back();
            for (std::size_t y : nodes_[x].succs) visit(y);
        }
    }

    // §8.3: Reduced hides u→v when another path u→…→v exists, except edges leaving an ALLOC
    // node; the DF proposal also hides those. Each hidden edge gets its successor's excess
    // dispatch delay.
    void redundant_edges() {
        mark_.assign(nodes_.size(), 0);
        // One flag per edge, at the edge's place in succ_list_.
        std::vector<char> hidden_edge(succ_list_.size(), 0);
        auto hidden = [&](std::size_t u) {
            return hidden_edge.data() + (nodes_[u].succs.data() - succ_list_.data());
        };
        for (std::size_t u = 0; u < nodes_.size(); ++u) {
            if (nodes_[u].succs.size() < 2) continue;  // one successor: no other path
            mark_indirect(u);
            for (std::size_t k = 0; k < nodes_[u].succs.size(); ++k)
                hidden(u)[k] = mark_[nodes_[u].succs[k]] == generation_;
        }
        // Dispatch delay of each task beyond its required (non-hidden) predecessors.
        std::vector<char> has_redundant_input(nodes_.size(), 0);
        for (std::size_t u = 0; u < nodes_.size(); ++u)
            for (std::size_t k = 0; k < nodes_[u].succs.size(); ++k)
                if (hidden(u)[k]) has_redundant_input[nodes_[u].succs[k]] = 1;
        auto delay = [&](std::size_t v) -> std::optional<double> {
            const Node& n = nodes_[v];
            if (!n.has_rows || !in_.has_aicpu_timing) return std::nullopt;
            double latest = -std::numeric_limits<double>::infinity();
            for (std::size_t p : n.preds) {
                const Node& pn = nodes_[p];
                if (!pn.has_rows) continue;
                auto it = std::find(pn.succs.begin(), pn.succs.end(), v);
                if (hidden(p)[it - pn.succs.begin()]) continue;
                latest = std::max(latest, pn.task.finish);
            }
            if (!std::isfinite(latest)) return std::nullopt;
            return n.task.dispatch - latest;
        };
        std::vector<double> plain_delays;
        for (std::size_t v = 0; v < nodes_.size(); ++v)
            if (!has_redundant_input[v])
                if (auto d = delay(v)) plain_delays.push_back(*d);
        double baseline = stats::median(plain_delays).value_or(0);
        for (std::size_t u = 0; u < nodes_.size(); ++u) {
            for (std::size_t k = 0; k < nodes_[u].succs.size(); ++k) {
                if (!hidden(u)[k]) continue;
                std::size_t v = nodes_[u].succs[k];
                RedundantEdge edge{label(u), label(v), nodes_[u].alloc, {}};
                if (auto d = delay(v)) edge.excess_delay_us = std::max(0.0, *d - baseline);
                (edge.data_flow_only ? df_only_ : out_.redundant).push_back(std::move(edge));
            }
        }
        // Worth removing first: the largest measured excess.
        auto by_cost = [](const RedundantEdge& a, const RedundantEdge& b) {
            double ca = a.excess_delay_us.value_or(-1), cb = b.excess_delay_us.value_or(-1);
            return ca != cb ? ca > cb : std::tie(a.pred, a.succ) < std::tie(b.pred, b.succ);
        };
        std::stable_sort(out_.redundant.begin(), out_.redundant.end(), by_cost);
        std::stable_sort(df_only_.begin(), df_only_.end(), by_cost);
        out_.redundant_df = df_only_.size();
        for (auto& edge : df_only_) out_.redundant.push_back(std::move(edge));
    }

    // §8.4: 🔥 = ALLOC or early_dispatch; ⭐ = every predecessor 🔥 and one not ALLOC. Did the
    // 🔥 tasks that are not ALLOC, and the ⭐ tasks, dispatch before their last predecessor
    // finished?
    void markers_and_early_dispatch() {
        std::vector<std::size_t> order(nodes_.size());
        for (std::size_t i = 0; i < nodes_.size(); ++i) order[nodes_[i].topo] = i;
        auto fire = [&](std::size_t i) { return nodes_[i].alloc || nodes_[i].early; };
        for (std::size_t i : order) {
            const Node& n = nodes_[i];
            if (fire(i)) out_.fire.push_back(label(i));
            bool all_fire = !n.preds.empty() && std::all_of(n.preds.begin(), n.preds.end(), fire);
            bool one_task = std::any_of(n.preds.begin(), n.preds.end(),
                                        [&](std::size_t p) { return !nodes_[p].alloc; });
            bool star = all_fire && one_task;
            if (star) out_.star.push_back(label(i));
            // The tasks expected to run ahead: marked ones and those whose every input is
            // (§8.7 measures E, a ⭐, against D; proposal).
            if (n.alloc || !(n.early || star)) continue;
            EarlyDispatchTask task{label(i), std::nullopt};
            double latest = -std::numeric_limits<double>::infinity();
            for (std::size_t p : n.preds)
                if (nodes_[p].has_rows) latest = std::max(latest, nodes_[p].task.finish);
            if (n.has_rows && in_.has_aicpu_timing && std::isfinite(latest))
                task.lead_us = latest - n.task.dispatch;
            out_.early.push_back(std::move(task));
        }
    }

    // §8.5: u→v qualifies when v has exactly one predecessor u and u exactly one successor v,
    // ALLOC nodes not counted (proposal); maximal runs of such links.
    void single_chains() {
        auto task_preds = [&](const Node& n) {
            return std::count_if(n.preds.begin(), n.preds.end(),
                                 [&](std::size_t p) { return !nodes_[p].alloc; });
        };
        auto next_link = [&](std::size_t u) -> std::optional<std::size_t> {
            const Node& n = nodes_[u];
            if (n.alloc || n.succs.size() != 1) return std::nullopt;
            std::size_t v = n.succs.front();
            if (nodes_[v].alloc || task_preds(nodes_[v]) != 1) return std::nullopt;
            return v;
        };
        std::vector<char> linked_in(nodes_.size(), 0);
        for (std::size_t u = 0; u < nodes_.size(); ++u)
            if (auto v = next_link(u)) linked_in[*v] = 1;
        for (std::size_t u = 0; u < nodes_.size(); ++u) {
            if (linked_in[u] || !next_link(u)) continue;
            SingleChain chain;
            std::size_t at = u;
            chain.tasks.push_back(label(at));
            while (auto v = next_link(at)) {
                if (nodes_[at].has_rows && nodes_[*v].has_rows)
                    chain.overhead_us += std::max(0.0, nodes_[*v].task.start - nodes_[at].task.end);
                at = *v;
                chain.tasks.push_back(label(at));
            }
            out_.chains.push_back(std::move(chain));
        }
        std::stable_sort(
            out_.chains.begin(), out_.chains.end(), [](const SingleChain& a, const SingleChain& b) {
                return a.tasks.size() != b.tasks.size() ? a.tasks.size() > b.tasks.size()
                                                        : a.overhead_us > b.overhead_us;
            });
    }

    // §8.6 on ptune's observed critical path: each step's wait is core-wait when its core was
    // still running another task when the gating predecessor ended, else data-wait.
    void gap_classes() {
        const CriticalPath& path = analysis_.critical_path;
        if (!path.available || path.tasks.empty()) return;
        // Per core, its rows' (start, end) by start and the latest end of each prefix: "a task
        // on this core started before the step and ended after it became ready" is then one
        // binary search (a linear scan per step took 0.27 s at 200,000 tasks).
        struct CoreBusy {
            std::vector<std::pair<double, double>> intervals;
            std::vector<double> latest_end;
        };
        std::unordered_map<int, CoreBusy> busy;
        std::unordered_map<std::uint64_t, int> core_of;
        for (const AnalyzeRow& row : in_.rows) {
            busy[row.core].intervals.emplace_back(row.start, row.end);
            core_of.try_emplace(row.task_id, row.core);
        }
        for (auto& [core, b] : busy) {
            std::sort(b.intervals.begin(), b.intervals.end());
            b.latest_end.reserve(b.intervals.size());
            double latest = -std::numeric_limits<double>::infinity();
            for (const auto& interval : b.intervals)
                b.latest_end.push_back(latest = std::max(latest, interval.second));
        }
        GapClasses gaps;
        gaps.front_gap_us = std::max(0.0, path.tasks.front().wait_us);
        for (std::size_t i = 1; i < path.tasks.size(); ++i) {
            const PathStep& step = path.tasks[i];
            double wait = std::max(0.0, step.wait_us);
            if (wait <= 0) continue;
            double ready = step.start - wait;  // the gating predecessor's end
            bool core_busy = false;
            if (auto it = core_of.find(step.task_id); it != core_of.end()) {
                // Another task on this core ran across the moment the step became ready: one
                // that started before the step (so not the step itself) and ended after ready.
                const CoreBusy& b = busy[it->second];
                auto before = std::lower_bound(b.intervals.begin(), b.intervals.end(), step.start,
                                               [](const std::pair<double, double>& interval,
                                                  double start) { return interval.first < start; });
                if (before != b.intervals.begin())
                    core_busy =
                        b.latest_end[static_cast<std::size_t>(before - b.intervals.begin() - 1)] >
                        ready;
            }
            (core_busy ? gaps.core_wait_us : gaps.data_wait_us) += wait;
            ++(core_busy ? gaps.core_wait_count : gaps.data_wait_count);
        }
        out_.gaps = gaps;
    }

    const AnalyzeInput& in_;
    const GraphInput& graph_;
    const Analysis& analysis_;
    ScheduleGraph out_;
    std::vector<Node> nodes_;
    std::vector<std::size_t> succ_list_, pred_list_;  ///< the nodes' edges, flat
    std::unordered_map<std::uint64_t, std::size_t> index_;
    std::vector<unsigned> mark_;
    unsigned generation_ = 0;
    std::vector<std::size_t> stack_;
    std::vector<RedundantEdge> df_only_;
};

}  // namespace

GraphInput make_graph_input(const Deps& deps) {
    GraphInput graph;
    graph.edges = deps.edges;
    graph.tasks.reserve(deps.tasks.size());
    for (const auto& [id, task] : deps.tasks) {
        graph.tasks.push_back(id);
        if (task.early_dispatch) graph.early_dispatch.push_back(id);
    }
    return graph;
}

void publish_schedule_graph(const ScheduleGraph& graph, const Analysis& analysis,
                            rules::MetricStore& store) {
    rules::Subject& run = store.run();
    auto count = [](std::size_t n) { return static_cast<double>(n); };
    // The share of the capture's window a delay is: what removing its cause can gain at most.
    auto share = [&](double us) {
        return analysis.window_us > 0 ? std::clamp(us / analysis.window_us, 0.0, 1.0) : 0.0;
    };
    double max_share = 0;
    for (const SetupRow& row : graph.largest_setup_share)
        max_share = std::max(max_share, row.ratio);
    run.metrics["L2.setup.max_share"] = max_share;
    run.metrics["L2.setup.on_path_us"] = graph.setup_on_path_us;
    if (graph.gaps && analysis.critical_path.length_us > 0) {
        double length = analysis.critical_path.length_us;
        run.metrics["L2.path.front_gap_us"] = graph.gaps->front_gap_us;
        run.metrics["L2.path.core_wait_us"] = graph.gaps->core_wait_us;
        run.metrics["L2.path.data_wait_us"] = graph.gaps->data_wait_us;
        run.metrics["L2.path.core_wait_pct"] = 100 * graph.gaps->core_wait_us / length;
        run.metrics["L2.path.data_wait_pct"] = 100 * graph.gaps->data_wait_us / length;
    }
    if (!graph.has_graph) return;
    run.metrics["L2.graph.edges"] = count(graph.edges);
    run.metrics["L2.graph.redundant"] = count(graph.redundant.size() - graph.redundant_df);
    run.metrics["L2.graph.redundant_df"] = count(graph.redundant_df);
    std::size_t never_led = 0;
    for (const EarlyDispatchTask& task : graph.early)
        if (task.lead_us && !task.led()) ++never_led;
    run.metrics["L2.early.marked"] = count(graph.early.size());
    run.metrics["L2.early.never_led"] = count(never_led);
    run.metrics["L2.chain.count"] = count(graph.chains.size());
    run.metrics["L2.chain.max_links"] =
        graph.chains.empty() ? 0 : count(graph.chains.front().tasks.size() - 1);

    // The reduced mode's edges, costliest first (the DF-only ones follow them).
    std::size_t edges = 0;
    for (const RedundantEdge& edge : graph.redundant) {
        if (edge.data_flow_only || !edge.excess_delay_us) continue;
        if (edges++ == kGraphSubjects) break;
        std::string name = edge.pred + "→" + edge.succ;
        store.set("edge", name, "L2.edge.excess_delay_us", *edge.excess_delay_us);
        store.set("edge", name, "L2.edge.window_share", share(*edge.excess_delay_us));
    }
    std::size_t tasks = 0;
    for (const EarlyDispatchTask& task : graph.early) {
        if (!task.lead_us) continue;
        if (tasks++ == kGraphSubjects) break;
        store.set("task", task.task, "L2.early.lead_us", *task.lead_us);
    }
    for (std::size_t i = 0; i < graph.chains.size() && i < kGraphSubjects; ++i) {
        const SingleChain& chain = graph.chains[i];
        std::string name = chain.tasks.size() <= 3
                               ? fmt::format("{}", fmt::join(chain.tasks, "→"))
                               : chain.tasks.front() + "→…→" + chain.tasks.back();
        store.set("chain", name, "L2.chain.links", count(chain.tasks.size() - 1));
        store.set("chain", name, "L2.chain.overhead_us", chain.overhead_us);
        store.set("chain", name, "L2.chain.window_share", share(chain.overhead_us));
    }
}

ScheduleGraph analyze_schedule_graph(const AnalyzeInput& input, const GraphInput& graph,
                                     const Analysis& analysis) {
    return GraphAnalysis(input, graph, analysis).run();
}

}  // namespace ptune::swimlane
