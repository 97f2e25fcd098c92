// The report of an L3 tree (see ranks.hpp): per rank and dispatch, across ranks, and what makes
// the straggler slower than the median rank.

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/stats.hpp"
#include "ptune/l3/ranks.hpp"

namespace ptune::l3 {

namespace {

std::string fixed(double v, int decimals = 1) {
    return stats::format_fixed(v, decimals);
}

std::string own_findings(const RankResult& r) {
    std::vector<std::string> ids;
    for (const auto& f : r.findings)
        if (std::find(ids.begin(), ids.end(), f.rule) == ids.end()) ids.push_back(f.rule);
    return ids.empty() ? "-" : fmt::format("{}", fmt::join(ids, ", "));
}

std::string top_kernel(const RankResult& r) {
    const KernelFigure* best = nullptr;
    for (const auto& k : r.kernels)
        if (!best || k.total > best->total) best = &k;
    return best ? best->name : "-";
}

const char* pairing_name(Pairing pairing) {
    return pairing == Pairing::ParentDispatchIdentity ? "parent_dispatch_identity"
                                                      : "local_capture_index";
}

std::string us2(std::int64_t ns) {
    return ns < 0 ? std::string("-") : fixed(static_cast<double>(ns) / 1000.0, 2);
}

/// Each rank's clock alignment (upstream-2026-09.md §1.17): status, bound width, and where the
/// tree's host logs placed it (§1.14); also into each rank's JSON entry. Empty when no rank has
/// an alignment at all (older captures).
render::Table placement_table(const Comparison& c, nlohmann::json& rank_data) {
    render::Table t;
    t.title = "Host placement per rank";
    t.columns = {"dispatch",   "rank",         "alignment", "bound (µs)",
                 "slack (µs)", "host pid:inv", "pairing"};
    t.align.assign(t.columns.size(), render::Align::Left);
    t.align[3] = t.align[4] = render::Align::Right;
    for (std::size_t i = 0; i < c.ranks.size(); ++i) {
        const RankResult& r = c.ranks[i];
        if (r.alignment_status.empty()) continue;
        t.rows.push_back({r.key, r.label, r.alignment_status, us2(r.alignment_bound_ns),
                          us2(r.slack_ns),
                          r.pairing ? fmt::format("{}:{}", r.pairing->pid, r.pairing->inv) : "-",
                          r.pairing ? r.pairing->source : "-"});
        nlohmann::json a = {{"status", r.alignment_status}};
        if (!r.alignment_reason.empty()) a["reason"] = r.alignment_reason;
        if (r.alignment_bound_ns >= 0) a["bound_ns"] = r.alignment_bound_ns;
        if (r.slack_ns >= 0) a["slack_ns"] = r.slack_ns;
        if (r.pairing) a["host_pairing"] = nlohmann::json::parse(r.pairing->to_json());
        rank_data[i]["clock_alignment"] = std::move(a);
    }
    return t;
}

/// "Per rank and dispatch": one row and one JSON entry per rank.
render::Table rank_table(const Comparison& c, bool swimlane, nlohmann::json& rank_data) {
    std::string value_column = swimlane ? "makespan (µs)" : "Σ cycles";
    render::Table ranks;
    ranks.title = "Per rank and dispatch";
    ranks.columns = {"dispatch", "rank", "tasks", value_column};
    if (swimlane) ranks.columns.push_back("critical path (µs)");
    ranks.columns.insert(ranks.columns.end(), {"top kernel", "own findings"});
    ranks.align.assign(ranks.columns.size(), render::Align::Right);
    ranks.align[0] = ranks.align[1] = render::Align::Left;
    ranks.align[ranks.columns.size() - 1] = ranks.align[ranks.columns.size() - 2] =
        render::Align::Left;
    for (const RankResult& r : c.ranks) {
        std::vector<std::string> row = {r.key, r.label};
        nlohmann::json j = {{"rank", r.rank},   {"dispatch", r.dispatch}, {"key", r.key},
                            {"label", r.label}, {"input", r.input},       {"usable", r.usable}};
        if (!r.usable) {
            row.insert(row.end(), {"-", "unreadable"});
            if (swimlane) row.push_back("-");
            row.insert(row.end(), {"-", "-"});
        } else {
            row.push_back(std::to_string(r.tasks));
            row.push_back(swimlane ? fixed(r.value, 2) : fmt::format("{:.0f}", r.value));
            if (swimlane) row.push_back(r.has_path ? fixed(r.path_us, 2) : "-");
            row.push_back(top_kernel(r));
            row.push_back(own_findings(r));
            j["value"] = r.value;
            j["tasks"] = r.tasks;
            j["arch"] = r.arch;
            if (swimlane) j["level"] = r.level;
            if (r.has_path)
                j["critical_path"] = {{"length_us", r.path_us},
                                      {"kernel_us", r.path_kernel_us},
                                      {"wait_us", r.path_wait_us}};
            nlohmann::json kernels = nlohmann::json::array();
            for (const auto& k : r.kernels)
                kernels.push_back({{"name", k.name},
                                   {"count", k.count},
                                   {"total", k.total},
                                   {"median", k.median}});
            j["kernels"] = std::move(kernels);
            nlohmann::json own = nlohmann::json::array();
            for (const auto& f : r.findings) own.push_back(f.rule);
            j["findings"] = std::move(own);
        }
        ranks.rows.push_back(std::move(row));
        rank_data.push_back(std::move(j));
    }

    return ranks;
}

/// "Across ranks" and "What makes the straggler slower", one entry per dispatch in the JSON.
nlohmann::json dispatch_tables(const Comparison& c, bool swimlane, render::Table& across,
                               render::Table& difference) {
    // Units in the column headers as "(µs)"; cycles (pmu) are too wide for the headers of these
    // tables, so they go to the tables' titles.
    const std::string unit = swimlane ? fmt::format(" ({})", c.unit) : "";
    const std::string title_unit = swimlane ? "" : fmt::format(" ({})", c.unit);
    across.title = "Across ranks" + title_unit;
    // The median cell names its rank: "13.80 (rank0/d0)".
    across.columns = {"dispatch",      "ranks",      "straggler",     "max" + unit,
                      "median" + unit, "min" + unit, "spread" + unit, "imbalance %"};
    across.align.assign(across.columns.size(), render::Align::Right);
    across.align[0] = across.align[2] = across.align[4] = render::Align::Left;
    difference.title = "What makes the straggler slower" + title_unit;
    difference.columns = {"dispatch", "what", "straggler" + unit, "median rank" + unit,
                          "difference" + unit};
    difference.align = {render::Align::Left, render::Align::Left, render::Align::Right,
                        render::Align::Right, render::Align::Right};
    nlohmann::json dispatch_data = nlohmann::json::array();
    int decimals = swimlane ? 2 : 0;
    for (const DispatchSummary& d : c.dispatches) {
        const RankResult& s = c.ranks[d.straggler];
        const RankResult& m = c.ranks[d.median_rank];
        across.rows.push_back(
            {d.key, std::to_string(d.members.size()), s.label, fixed(d.max, decimals),
             fmt::format("{} ({})", fixed(d.median, decimals), m.label), fixed(d.min, decimals),
             fixed(d.spread, decimals), fixed(d.imbalance_pct, 1)});
        nlohmann::json deltas = nlohmann::json::array();
        if (d.members.size() >= 2) {
            if (s.has_path && m.has_path) {
                difference.rows.push_back({d.key, "critical path", fixed(s.path_us, 2),
                                           fixed(m.path_us, 2), fixed(s.path_us - m.path_us, 2)});
                difference.rows.push_back({d.key, "  kernel time on it", fixed(s.path_kernel_us, 2),
                                           fixed(m.path_kernel_us, 2),
                                           fixed(s.path_kernel_us - m.path_kernel_us, 2)});
            }
            for (std::size_t k = 0; k < d.deltas.size() && k < 3; ++k) {
                const KernelDelta& delta = d.deltas[k];
                if (delta.straggler <= delta.median) break;
                difference.rows.push_back({d.key, "kernel " + delta.name,
                                           fixed(delta.straggler, decimals),
                                           fixed(delta.median, decimals),
                                           fixed(delta.straggler - delta.median, decimals)});
            }
        }
        for (const KernelDelta& delta : d.deltas)
            deltas.push_back(
                {{"kernel", delta.name}, {"straggler", delta.straggler}, {"median", delta.median}});
        nlohmann::json members = nlohmann::json::array();
        for (std::size_t i : d.members) members.push_back(c.ranks[i].label);
        dispatch_data.push_back({{"key", d.key},
                                 {"ranks", members},
                                 {"straggler", s.label},
                                 {"median_rank", m.label},
                                 {"max", d.max},
                                 {"median", d.median},
                                 {"min", d.min},
                                 {"spread", d.spread},
                                 {"imbalance_pct", d.imbalance_pct},
                                 {"kernel_deltas", std::move(deltas)}});
    }

    return dispatch_data;
}

/// The notes on host placement (cross-rank uncertainty, why ranks stay unplaced) and gaps; the
/// placed dispatches for the JSON.
nlohmann::json placement_notes(const Comparison& c, std::vector<std::string>& notes) {
    nlohmann::json placed = nlohmann::json::array();
    for (const auto& [key, uncertainty] : c.placed_dispatches) {
        placed.push_back({{"dispatch", key},
                          {"cross_rank_uncertainty_ns",
                           uncertainty >= 0 ? nlohmann::json(uncertainty) : nlohmann::json()}});
        if (uncertainty >= 0)
            notes.push_back(fmt::format(
                "{}: every rank placed on the host clock by its host invocation; a cross-rank gap "
                "under {} µs (the two largest slacks) is undecided",
                key, fixed(static_cast<double>(uncertainty) / 1000.0, 1)));
    }
    // Why ranks stay unplaced, once per reason (the table has no room for it).
    std::vector<std::pair<std::string, std::vector<std::string>>> unplaced;
    for (const RankResult& r : c.ranks) {
        if (r.alignment_status != "unavailable") continue;
        auto it = std::find_if(unplaced.begin(), unplaced.end(),
                               [&](const auto& u) { return u.first == r.alignment_reason; });
        if (it == unplaced.end())
            it = unplaced.insert(unplaced.end(), {r.alignment_reason, std::vector<std::string>()});
        it->second.push_back(r.label);
    }
    for (const auto& [reason, labels] : unplaced)
        notes.push_back(
            fmt::format("clock alignment unavailable ({}): {}", reason, fmt::join(labels, ", ")));
    for (const std::string& gap : c.gaps) notes.push_back("gap: " + gap);

    return placed;
}

}  // namespace

render::Report build_report(const std::string& command, const Tree& tree, const Comparison& c,
                            std::vector<rules::Finding> findings) {
    render::Report report;
    report.command = command;
    bool swimlane = c.source == Source::Swimlane;

    nlohmann::json rank_data = nlohmann::json::array();
    render::Table ranks = rank_table(c, swimlane, rank_data);
    render::Table across, difference;
    nlohmann::json dispatch_data = dispatch_tables(c, swimlane, across, difference);
    render::Table placement = placement_table(c, rank_data);
    report.tables.push_back(std::move(ranks));
    report.tables.push_back(std::move(across));
    if (!difference.rows.empty()) report.tables.push_back(std::move(difference));
    if (!placement.rows.empty()) report.tables.push_back(std::move(placement));
    report.notes.push_back(fmt::format(
        "{} capture(s) of {} rank(s) under {}; dispatches paired by {}; each rank's {} is on its "
        "own clock, so no cross-rank clock bound applies",
        c.ranks.size(), tree.ranks.size(), tree.root.string(), pairing_name(tree.pairing),
        c.measure));
    nlohmann::json placed = placement_notes(c, report.notes);
    report.data = {{"layout", "l3"},
                   {"root", tree.root.string()},
                   {"source", swimlane ? "swimlane" : "pmu"},
                   {"unit", c.unit},
                   {"measure", c.measure},
                   {"dispatch_pairing", pairing_name(tree.pairing)},
                   {"rank_count", tree.ranks.size()},
                   {"ranks", std::move(rank_data)},
                   {"dispatches", std::move(dispatch_data)},
                   {"gaps", c.gaps}};
    if (!placed.empty()) report.data["host_placement"] = std::move(placed);
    // L3 findings first, then each rank's own, with the rank in the subject.
    for (rules::Finding& f : rank_findings(c)) findings.push_back(std::move(f));
    report.findings = std::move(findings);
    return report;
}

std::vector<rules::Finding> rank_findings(const Comparison& c) {
    std::vector<rules::Finding> out;
    for (const RankResult& r : c.ranks)
        for (rules::Finding f : r.findings) {
            f.subject.name = f.subject.kind == "run" ? r.label : r.label + " " + f.subject.name;
            out.push_back(std::move(f));
        }
    return out;
}

}  // namespace ptune::l3
