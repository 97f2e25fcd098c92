// The schedule-graph analyses as tables and JSON (schedule_graph_report.hpp).

#include "schedule_graph_report.hpp"

#include <fmt/format.h>

#include "ptune/core/stats.hpp"

namespace ptune::swimlane::detail {

namespace {

// Text tables list this many rows; the JSON view keeps every one.
constexpr std::size_t kGraphRows = 10;
// The setup table is shown once some row spends this share of its time in setup: below it,
// setup is the usual fixed cost and the table would only repeat it.
constexpr double kSetupShareShown = 0.10;

std::string us(double value) {
    return stats::format_fixed(value, 2);
}

std::string optional_us(const std::optional<double>& value) {
    return value ? us(*value) : "-";
}

render::Table redundant_table(const ScheduleGraph& g) {
    render::Table t;
    t.title = fmt::format("Redundant dependencies ({} of {} edges; §8.3 transitive reduction)",
                          g.redundant.size(), g.edges);
    t.columns = {"edge", "mode", "excess dispatch delay"};
    t.units = {"", "", "µs"};
    for (std::size_t i = 0; i < g.redundant.size() && i < kGraphRows; ++i) {
        const RedundantEdge& e = g.redundant[i];
        t.rows.push_back({e.pred + " → " + e.succ, e.data_flow_only ? "data-flow" : "reduced",
                          optional_us(e.excess_delay_us)});
    }
    return t;
}

render::Table early_table(const ScheduleGraph& g) {
    render::Table t;
    t.title = "Early dispatch (§8.4: marked tasks and those whose every input is)";
    t.columns = {"task", "lead", "verdict"};
    t.units = {"", "µs", ""};
    for (std::size_t i = 0; i < g.early.size() && i < kGraphRows; ++i) {
        const EarlyDispatchTask& e = g.early[i];
        t.rows.push_back({e.task, optional_us(e.lead_us),
                          !e.lead_us ? "no timing" : (e.led() ? "ran ahead" : "never led")});
    }
    return t;
}

render::Table chains_table(const ScheduleGraph& g) {
    render::Table t;
    t.title = "Single-dependency chains (§8.5: merge candidates)";
    t.columns = {"chain", "links", "scheduling between links"};
    t.units = {"", "", "µs"};
    for (std::size_t i = 0; i < g.chains.size() && i < kGraphRows; ++i) {
        const SingleChain& c = g.chains[i];
        std::string name = c.tasks.size() <= 3 ? fmt::format("{}", fmt::join(c.tasks, " → "))
                                               : c.tasks.front() + " → … → " + c.tasks.back();
        t.rows.push_back({name, std::to_string(c.tasks.size() - 1), us(c.overhead_us)});
    }
    return t;
}

render::Table gaps_table(const GapClasses& gaps) {
    render::Table t;
    t.title = "Critical path gaps (§8.6)";
    t.columns = {"class", "gaps", "time"};
    t.units = {"", "", "µs"};
    t.rows = {{"front-gap", "1", us(gaps.front_gap_us)},
              {"core-wait", std::to_string(gaps.core_wait_count), us(gaps.core_wait_us)},
              {"data-wait", std::to_string(gaps.data_wait_count), us(gaps.data_wait_us)}};
    return t;
}

render::Table setup_table(const ScheduleGraph& g) {
    render::Table t;
    t.title = fmt::format("Longest setups (§8.2: receive → start; {} µs on the critical path)",
                          us(g.setup_on_path_us));
    t.columns = {"task", "core", "setup", "share"};
    t.units = {"", "", "µs", ""};
    for (const SetupRow& row : g.longest_setup)
        t.rows.push_back(
            {row.task, std::to_string(row.core), us(row.setup_us), stats::format_ratio(row.ratio)});
    return t;
}

nlohmann::json optional_json(const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json();
}

}  // namespace

void add_schedule_graph_tables(render::Report& report, const ScheduleGraph& g) {
    if (!g.redundant.empty()) report.tables.push_back(redundant_table(g));
    if (!g.early.empty()) report.tables.push_back(early_table(g));
    if (!g.chains.empty()) report.tables.push_back(chains_table(g));
    if (g.gaps) report.tables.push_back(gaps_table(*g.gaps));
    if (!g.largest_setup_share.empty() && g.largest_setup_share.front().ratio >= kSetupShareShown)
        report.tables.push_back(setup_table(g));
}

nlohmann::json schedule_graph_json(const ScheduleGraph& g) {
    nlohmann::json functions = nlohmann::json::array();
    for (const FunctionTiming& f : g.functions)
        functions.push_back({{"func_id", f.func_id},
                             {"name", f.name},
                             {"count", f.count},
                             {"min_us", f.min_us},
                             {"max_us", f.max_us},
                             {"avg_us", f.avg_us},
                             {"setup_sum_us", f.setup_sum_us}});
    auto setups = [](const std::vector<SetupRow>& rows) {
        nlohmann::json out = nlohmann::json::array();
        for (const SetupRow& r : rows)
            out.push_back(
                {{"task", r.task}, {"core", r.core}, {"setup_us", r.setup_us}, {"ratio", r.ratio}});
        return out;
    };
    nlohmann::json redundant = nlohmann::json::array();
    for (const RedundantEdge& e : g.redundant)
        redundant.push_back({{"pred", e.pred},
                             {"succ", e.succ},
                             {"data_flow_only", e.data_flow_only},
                             {"excess_delay_us", optional_json(e.excess_delay_us)}});
    nlohmann::json early = nlohmann::json::array();
    for (const EarlyDispatchTask& e : g.early)
        early.push_back(
            {{"task", e.task}, {"lead_us", optional_json(e.lead_us)}, {"led", e.led()}});
    nlohmann::json chains = nlohmann::json::array();
    for (const SingleChain& c : g.chains)
        chains.push_back({{"tasks", c.tasks}, {"overhead_us", c.overhead_us}});
    nlohmann::json gaps;
    if (g.gaps)
        gaps = {{"front_gap_us", g.gaps->front_gap_us},
                {"core_wait_us", g.gaps->core_wait_us},
                {"data_wait_us", g.gaps->data_wait_us},
                {"core_wait_count", g.gaps->core_wait_count},
                {"data_wait_count", g.gaps->data_wait_count}};
    return {{"functions", std::move(functions)},
            {"longest_setup", setups(g.longest_setup)},
            {"largest_setup_share", setups(g.largest_setup_share)},
            {"setup_on_path_us", g.setup_on_path_us},
            {"has_graph", g.has_graph},
            {"edges", g.edges},
            {"alloc_nodes", g.alloc_nodes},
            {"redundant", std::move(redundant)},
            {"redundant_df", g.redundant_df},
            {"fire", g.fire},
            {"star", g.star},
            {"early", std::move(early)},
            {"chains", std::move(chains)},
            {"gaps", std::move(gaps)}};
}

}  // namespace ptune::swimlane::detail
