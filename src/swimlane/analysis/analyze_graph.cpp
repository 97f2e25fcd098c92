// The graph analyses of one capture (analyzer.hpp): the dependency graph, hand-offs, trails and
// the critical path, linear passes over the deduplicated edges.

#include "analyzer.hpp"

namespace ptune::swimlane::analysis {

Graph build_graph(const AnalyzeInput& input, std::unordered_map<std::uint64_t, std::size_t>& index,
                  std::size_t row_tasks) {
    std::vector<std::pair<std::size_t, std::size_t>> edges;
    edges.reserve(input.edges.size());
    auto node_of = [&](std::uint64_t id) {
        auto [it, inserted] = index.try_emplace(id, index.size());
        return it->second;
    };
    for (const auto& [pred, succ] : input.edges) {
        if (pred == succ) continue;
        edges.emplace_back(node_of(pred), node_of(succ));
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    Graph graph;
    graph.nodes = std::max(index.size(), row_tasks);
    auto fill = [&](bool by_succ, std::vector<std::size_t>& begin, std::vector<std::size_t>& list) {
        begin.assign(graph.nodes + 1, 0);
        for (const auto& [p, s] : edges) ++begin[(by_succ ? s : p) + 1];
        std::partial_sum(begin.begin(), begin.end(), begin.begin());
        list.resize(edges.size());
        std::vector<std::size_t> cursor(begin.begin(), begin.end() - 1);
        for (const auto& [p, s] : edges) list[cursor[by_succ ? s : p]++] = by_succ ? p : s;
    };
    fill(true, graph.pred_begin, graph.preds);
    fill(false, graph.succ_begin, graph.succs);
    return graph;
}

// Kahn's algorithm; nodes on a cycle are left out of the order.
std::vector<std::size_t> topological_order(const Graph& graph) {
    std::vector<std::size_t> indegree(graph.nodes, 0), order;
    order.reserve(graph.nodes);
    for (std::size_t v = 0; v < graph.nodes; ++v)
        indegree[v] = graph.pred_begin[v + 1] - graph.pred_begin[v];
    for (std::size_t v = 0; v < graph.nodes; ++v) {
        if (indegree[v] == 0) order.push_back(v);
    }
    for (std::size_t head = 0; head < order.size(); ++head) {
        auto [first, last] = graph.succs_of(order[head]);
        for (const std::size_t* s = first; s != last; ++s) {
            if (--indegree[*s] == 0) order.push_back(*s);
        }
    }
    return order;
}

void Analyzer::handoffs() {
    std::size_t row_tasks = tasks_.size();
    auto fan = [&](std::size_t v, bool out) {
        auto [first, last] = out ? graph_.succs_of(v) : graph_.preds_of(v);
        return std::count_if(first, last, [&](std::size_t u) { return u < row_tasks; });
    };
    std::map<std::pair<int, int>, HandoffGroup> groups;
    CubeVectorStats& cv = out_.cube_vector;
    for (std::size_t p = 0; p < row_tasks; ++p) {
        if (mixed(p) || fan(p, true) != 1) continue;
        auto [first, last] = graph_.succs_of(p);
        std::size_t q = *std::find_if(first, last, [&](std::size_t u) { return u < row_tasks; });
        if (mixed(q) || tasks_[p].has_aic == tasks_[q].has_aic || fan(q, false) != 1) continue;
        double handoff = std::max(0.0, tasks_[q].start - tasks_[p].end);
        HandoffGroup& g = groups[{tasks_[p].func_id, tasks_[q].func_id}];
        g.producer_func = tasks_[p].func_id;
        g.consumer_func = tasks_[q].func_id;
        ++g.pairs;
        g.handoff_sum_us += handoff;
        g.handoff_max_us = std::max(g.handoff_max_us, handoff);
        ++cv.handoff_pairs;
        cv.handoff_sum_us += handoff;
    }
    for (auto& [key, g] : groups) {
        g.producer = function_name(g.producer_func, in_.names);
        g.consumer = function_name(g.consumer_func, in_.names);
        cv.handoffs.push_back(g);
    }
    std::stable_sort(
        cv.handoffs.begin(), cv.handoffs.end(),
        [](const HandoffGroup& a, const HandoffGroup& b) { return a.pairs > b.pairs; });
}

void Analyzer::trails() {
    if (!in_.has_aicpu_timing) return;
    double max_gap = std::max(opt_.trail_min_gap_us, 3 * out_.dispatch_cost_us.value_or(0.0));
    // Group single-block tasks by function (by core type when the function is unknown).
    std::map<std::pair<int, int>, std::vector<std::size_t>> groups;
    for (std::size_t t = 0; t < tasks_.size(); ++t) {
        if (is_spmd(tasks_[t])) continue;
        int kind = mixed(t) ? 2 : (tasks_[t].has_aic ? 0 : 1);
        groups[{tasks_[t].func_id, tasks_[t].func_id < 0 ? kind : 0}].push_back(t);
    }
    std::vector<std::size_t> run_stamp(graph_.nodes, 0);
    std::size_t stamp = 0;
    for (auto& [key, members] : groups) {
        std::stable_sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
            return tasks_[a].dispatch < tasks_[b].dispatch;
        });
        std::vector<std::size_t> run;
        // Named copy: clang 14 (the fuzzing build) cannot capture a structured binding.
        auto func_id = key.first;
        auto close = [&]() {
            if (run.size() >= opt_.trail_min_tasks) out_.trails.push_back(make_trail(func_id, run));
            run.clear();
            ++stamp;
        };
        for (std::size_t t : members) {
            bool linked = false;
            for (auto [first, last] : {graph_.preds_of(t), graph_.succs_of(t)}) {
                linked = linked || std::any_of(first, last, [&](std::size_t u) {
                             return run_stamp[u] == stamp + 1;
                         });
            }
            if (!run.empty() &&
                (linked || tasks_[t].dispatch - tasks_[run.back()].dispatch > max_gap))
                close();
            run.push_back(t);
            run_stamp[t] = stamp + 1;
        }
        close();
    }
    std::sort(out_.trails.begin(), out_.trails.end(),
              [](const DispatchTrail& a, const DispatchTrail& b) {
                  return a.first_dispatch_us < b.first_dispatch_us;
              });
}

DispatchTrail Analyzer::make_trail(int func_id, const std::vector<std::size_t>& run) const {
    const TaskSummary& first = tasks_[run.front()];
    const TaskSummary& last = tasks_[run.back()];
    DispatchTrail trail;
    trail.func_id = func_id;
    trail.function = func_id >= 0 ? function_name(func_id, in_.names)
                                  : (mixed(run.front()) ? "MIX" : (first.has_aic ? "AIC" : "AIV"));
    trail.tasks = run.size();
    trail.first_task = first.label;
    trail.last_task = last.label;
    trail.first_dispatch_us = first.dispatch;
    trail.span_us = last.dispatch - first.dispatch;
    trail.slope_us = trail.span_us / static_cast<double>(run.size() - 1);
    std::vector<double> starts;
    double exec = 0;
    for (std::size_t t : run) {
        exec += tasks_[t].end - tasks_[t].start;
        starts.push_back(tasks_[t].start);
    }
    trail.mean_exec_us = exec / static_cast<double>(run.size());
    trail.span_over_exec = trail.mean_exec_us > 0 ? trail.span_us / trail.mean_exec_us : 0.0;
    CoreType kind = first.has_aic ? CoreType::Aic : CoreType::Aiv;
    double capacity = static_cast<double>(cores_of(kind)) * trail.span_us;
    if (capacity > 0) {
        trail.idle_core_fraction =
            1.0 - occupancy_.busy(kind, first.dispatch, last.dispatch) / capacity;
    }
    trail.staircase_r2 = linear_fit_r2(starts);
    return trail;
}

std::vector<std::string> Analyzer::one_cycle(const std::vector<char>& in_dag) const {
    std::size_t start = graph_.nodes;
    for (std::size_t v = 0; v < graph_.nodes && start == graph_.nodes; ++v)
        if (!in_dag[v]) start = v;
    std::unordered_map<std::size_t, std::size_t> seen;  // node -> position in the walk
    std::vector<std::size_t> walk;
    for (std::size_t v = start; v < graph_.nodes && !seen.contains(v);) {
        seen.emplace(v, walk.size());
        walk.push_back(v);
        auto [first, last] = graph_.preds_of(v);
        const std::size_t* next =
            std::find_if(first, last, [&](std::size_t p) { return !in_dag[p]; });
        v = next == last ? graph_.nodes : *next;
        if (v < graph_.nodes && seen.contains(v)) {
            walk.erase(walk.begin(), walk.begin() + static_cast<long>(seen.at(v)));
            std::reverse(walk.begin(), walk.end());  // in dependency order
            std::vector<std::string> names;
            for (std::size_t node : walk) names.push_back(node_label(node));
            return names;
        }
    }
    return {};
}

std::string Analyzer::node_label(std::size_t node) const {
    if (node < tasks_.size()) return tasks_[node].label;
    for (const auto& [id, index] : task_index_)
        if (index == node) return task_display(id);
    return fmt::format("node {}", node);
}

void Analyzer::critical_path() {
    CriticalPath& cp = out_.critical_path;
    std::size_t row_tasks = tasks_.size();
    std::vector<std::size_t> order = topological_order(graph_);
    std::vector<char> in_dag(graph_.nodes, 0);
    for (std::size_t v : order) in_dag[v] = 1;
    for (std::size_t v = 0; v < row_tasks; ++v) cp.cycle_tasks += in_dag[v] ? 0 : 1;
    if (order.size() < graph_.nodes) cp.cycle = one_cycle(in_dag);
    std::vector<double> end(graph_.nodes, kUntimed), gate(graph_.nodes, kUntimed);
    for (std::size_t v : order) {
        auto [first, last] = graph_.preds_of(v);
        for (const std::size_t* p = first; p != last; ++p) gate[v] = std::max(gate[v], end[*p]);
        end[v] = v < row_tasks ? tasks_[v].end : gate[v];
    }
    // Backward pass: the latest end that does not delay any successor beyond its own slack.
    std::vector<double> slack(graph_.nodes, 0.0);
    std::vector<double> slacks;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        std::size_t v = *it;
        if (end[v] == kUntimed) continue;
        double latest_end = out_.window_end_us;
        auto [first, last] = graph_.succs_of(v);
        for (const std::size_t* s = first; s != last; ++s) {
            if (in_dag[*s]) latest_end = std::min(latest_end, gate[*s] + slack[*s]);
        }
        slack[v] = std::max(0.0, latest_end - end[v]);
        if (v < row_tasks) slacks.push_back(slack[v]);
    }
    cp.graph_tasks = slacks.size();
    cp.zero_slack_tasks = static_cast<std::size_t>(
        std::count_if(slacks.begin(), slacks.end(), [](double s) { return s <= kZeroSlackUs; }));
    cp.slack_p50_us = quantile_or_zero(slacks, 0.5);
    cp.slack_max_us = slacks.empty() ? 0.0 : *std::max_element(slacks.begin(), slacks.end());

    std::size_t sink = row_tasks;
    for (std::size_t v = 0; v < row_tasks; ++v) {
        if (!in_dag[v]) continue;
        if (sink == row_tasks || tasks_[v].end > tasks_[sink].end ||
            (tasks_[v].end == tasks_[sink].end && tasks_[v].finish > tasks_[sink].finish)) {
            sink = v;
        }
    }
    if (sink == row_tasks) return;
    std::vector<PathStep> reversed;
    for (std::size_t v = sink;;) {
        std::size_t best = graph_.nodes;
        auto [first, last] = graph_.preds_of(v);
        for (const std::size_t* p = first; p != last; ++p) {
            if (in_dag[*p] && end[*p] != kUntimed && (best == graph_.nodes || end[*p] > end[best]))
                best = *p;
        }
        if (v < row_tasks) {
            const TaskSummary& task = tasks_[v];
            PathStep step{task.task_id, task.label, task.start, task.end, 0.0};
            if (best != graph_.nodes)
                step.wait_us = std::max(0.0, task.start - end[best]);
            else if (in_.has_aicpu_timing)
                step.wait_us = std::max(0.0, task.start - task.dispatch);
            reversed.push_back(step);
        }
        if (best == graph_.nodes) break;
        v = best;
    }
    cp.tasks.assign(reversed.rbegin(), reversed.rend());
    for (const auto& step : cp.tasks) {
        cp.kernel_us += step.end - step.start;
        cp.overhead_us += step.wait_us;
    }
    const TaskSummary& root = tasks_[task_index_.at(cp.tasks.front().task_id)];
    cp.length_us = tasks_[sink].end - (in_.has_aicpu_timing ? root.dispatch : root.start);
    cp.window_share = share(cp.length_us);
    cp.available = true;
}

}  // namespace ptune::swimlane::analysis
