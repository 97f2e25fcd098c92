// Multi-rank directory mode, end to end (see pipeline.hpp, upstream-2026-09.md §1.14): pins
// parsed, ranks paired and placed (placement.cpp), the host lanes drawn (host_lanes.cpp), one
// origin for everything, and the trace metadata.

#include "ptune/l3/pipeline.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/core/json_document.hpp"
#include "ptune/l3/host_lanes.hpp"

namespace ptune::l3 {

namespace {

/// What the host block needs of a placed rank, from its placement metadata.
RankHostInput host_input(const PlacedRank& rank) {
    const swimlane::ContainmentAlignment& a = rank.loaded.capture.clock_alignment;
    RankHostInput in;
    in.rank = rank.rank;
    in.pid = rank.pairing.pid;
    in.inv = rank.pairing.inv;
    in.slack_ns = rank.slack_ns;
    in.place_lo_ns = rank.place_lo_ns;
    in.device_phase_zero = a.device_phase_zero;
    in.device_phase_zero_host_ns = a.device_phase_zero_host_ns;
    auto placement = nlohmann::json::parse(a.placement_json, nullptr, false);
    if (placement.is_object()) {
        in.placement_json = json_document::dump(placement);
        in.place_hi_ns = placement.value("place_hi_ns", rank.place_lo_ns + rank.slack_ns);
        in.outer_start_ns = placement.value("outer_start_ns", std::int64_t{0});
        in.outer_duration_ns = placement.value("outer_duration_ns", std::int64_t{0});
    }
    return in;
}

/// The spans the host lanes draw from (§1.14): every span of the paired invocations and of the
/// pids that ran none (the dispatcher candidates), read again from the logs so that the chip
/// processes' other invocations — most of a long log — are never held.
Result<std::vector<swimlane::HostSpan>> lane_spans(const MultiRankPlacement& placed) {
    std::set<std::pair<std::uint64_t, std::uint64_t>> paired;
    std::set<std::uint64_t> paired_pids;
    for (const PlacedRank& r : placed.ranks) {
        paired.insert({r.pairing.pid, r.pairing.inv});
        paired_pids.insert(r.pairing.pid);
    }
    swimlane::HostSpanLog log;
    log.all_spans = true;
    log.keep = [&](std::uint64_t pid, std::uint64_t inv) {
        return !paired_pids.count(pid) || paired.count({pid, inv}) > 0;
    };
    for (const std::string& path : placed.logs) {
        auto in = io::open_input(path);
        if (!in) return in.error();
        swimlane::read_host_spans(in->stream(), log);
    }
    return std::move(log.spans);
}

}  // namespace

Result<std::optional<MultiRankMerge>> merge_ranks(const MultiRankRequest& request,
                                                  Diagnostics& diagnostics) {
    const Tree& tree = *request.tree;
    PlacementRequest placement_request;
    placement_request.root = tree.root;
    placement_request.host_logs = request.base.host_logs;
    for (const std::string& value : request.rank_pids) {
        auto pin = parse_rank_pid(value);
        if (!pin) return pin.error();
        placement_request.pins.push_back(*pin);
    }
    if (!has_host_logs(placement_request)) {
        if (!request.rank_pids.empty())
            return Error{fmt::format("--rank-pid needs host logs: no host_clock_alignment.*.log or "
                                     "host.*.log under {}",
                                     tree.root.string()),
                         request.input, 0, ExitCode::InputError};
        diagnostics.note(tree.root.string(), 0,
                         "no host_clock_alignment.*.log or host.*.log under the tree: the ranks "
                         "are not placed on the host clock (each keeps its own axis, --align)");
        return std::optional<MultiRankMerge>();
    }
    auto placed = place_ranks(request.captures, request.base, placement_request, diagnostics);
    if (!placed) return placed.error();

    MultiRankMerge out;
    std::vector<RankHostInput> hosts;
    for (const PlacedRank& rank : placed->ranks) hosts.push_back(host_input(rank));
    auto spans = lane_spans(*placed);
    if (!spans) return spans.error();
    auto host = build_host_layout(*spans, hosts);
    if (!host) return Error{host.error().message, tree.root.string(), 0, ExitCode::InputError};
    placed->dispatcher_pids = host->dispatcher_pids;
    // §1.14: the origin is the earliest placement, paired invocation host span or dispatcher
    // span (host_lanes.cpp), and never later than what placement itself found.
    placed->global_origin_ns = std::min(placed->global_origin_ns, host->earliest_ns);

    swimlane::MultiRankLayout& layout = out.layout;
    layout.global_origin_ns = placed->global_origin_ns;
    layout.metadata_json =
        multi_rank_metadata(*placed, pairing_metadata(tree), request.dispatch, request.dispatch_id);
    layout.processes = std::move(host->processes);
    layout.threads = std::move(host->threads);
    layout.slices = std::move(host->slices);
    for (PlacedRank& rank : placed->ranks) {
        layout.ranks.push_back(rank.rank);
        layout.slacks_ns.push_back(rank.slack_ns);
        rank.loaded.files.label = fmt::format("rank{}", rank.rank);
        out.loaded.push_back(std::move(rank.loaded));
    }
    out.placement = std::move(*placed);
    return std::optional<MultiRankMerge>(std::move(out));
}

std::string multi_rank_summary(const MultiRankMerge& merge, const std::string& input,
                               const std::string& trace_path) {
    std::vector<std::string> names;
    for (int rank : merge.layout.ranks) names.push_back(fmt::format("rank{}", rank));
    std::string text = fmt::format(
        "\n\u2713 Multi-Rank conversion complete\n  Input:  {}\n  Ranks:  {}\n  Bound:  {}\n",
        input, fmt::join(names, ", "), bound_line(merge.placement.slacks()));
    if (!trace_path.empty())
        text += fmt::format(
            "  Output: {}\n\nTo visualize: Open https://ui.perfetto.dev/ and drag in {}\n",
            trace_path, trace_path);
    return text;
}

}  // namespace ptune::l3
