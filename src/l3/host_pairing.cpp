// Multi-rank host pairing (see host_pairing.hpp, upstream-2026-09.md §1.14). Costs are doubles
// as upstream's (Python floats), so ties and the factor-4 margin decide alike.

#include "ptune/l3/host_pairing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/json_document.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"

namespace ptune::l3 {

namespace {

using swimlane::HostWindow;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMarginRatio = 4.0;

Error pairing_error(std::string message) {
    return Error{std::move(message), "", 0, ExitCode::InputError};
}

std::string rank_name(int rank) {
    return fmt::format("rank{}", rank);
}

/// How much wider the logged join windows are than the capture's own records (∞: the records do
/// not fit); with no join on both sides, device_wall against the whole extent.
double pairing_cost(const HostWindow& w, const swimlane::CaptureExtent& c) {
    const double f = static_cast<double>(c.freq_hz);
    if (f <= 0) return kInf;
    auto phase = [&](std::string_view name) -> std::optional<std::int64_t> {
        for (const auto& [n, span] : w.sub_phases)
            if (n == name) return span.second;
        return std::nullopt;
    };
    double cost = 0;
    int matched = 0;
    auto join = [&](std::string_view name,
                    const std::optional<std::pair<std::int64_t, std::int64_t>>& records) {
        auto window = phase(name);
        if (!window || !records) return true;
        double records_ns = static_cast<double>(records->second - records->first) * 1e9 / f;
        if (records_ns > static_cast<double>(*window)) return false;
        cost += static_cast<double>(*window) - records_ns;
        ++matched;
        return true;
    };
    if (!join("sched", c.sched) || !join("orch", c.orch)) return kInf;
    if (matched == 0) {
        if (!c.has_extent) return kInf;
        double extent_ns = static_cast<double>(c.last - c.first) * 1e9 / f;
        if (extent_ns > static_cast<double>(w.device_wall_dur)) return kInf;
        cost = static_cast<double>(w.device_wall_dur) - extent_ns;
    }
    return cost;
}

bool contains_host_records(const HostWindow& w, const swimlane::CaptureExtent& c) {
    if (!c.host_records || !w.has_root) return false;
    return c.host_records->first >= w.root_start &&
           c.host_records->second <= w.root_start + w.root_dur;
}

/// P(n, k) capped just above the limit (no overflow).
std::uint64_t permutations(std::size_t n, std::size_t k) {
    std::uint64_t count = 1;
    for (std::size_t i = 0; i < k; ++i) {
        count *= static_cast<std::uint64_t>(n - i);
        if (count > kMaxAssignments) return kMaxAssignments + 1;
    }
    return count;
}

std::string us1(double ns) {
    return stats::format_fixed(ns / 1000.0, 1);
}

}  // namespace

Result<RankPin> parse_rank_pid(std::string_view text) {
    auto bad = [&] {
        return pairing_error(fmt::format(
            "--rank-pid must be RANK=PID or RANK=PID:INV (for example, 0=4242), not '{}'", text));
    };
    auto eq = text.find('=');
    if (eq == std::string_view::npos) return bad();
    auto rank = text::parse_uint(text.substr(0, eq));
    std::string_view rest = text.substr(eq + 1);
    auto colon = rest.find(':');
    auto pid = text::parse_uint(rest.substr(0, colon));
    if (!rank || !pid || *pid == 0 || *rank > 1'000'000) return bad();
    RankPin pin;
    pin.rank = static_cast<int>(*rank);
    pin.pid = *pid;
    if (colon != std::string_view::npos) {
        auto inv = text::parse_uint(rest.substr(colon + 1));
        if (!inv) return bad();
        pin.inv = *inv;
    }
    return pin;
}

std::string HostPairing::to_json() const {
    auto optional = [](const std::optional<std::int64_t>& v) {
        return v ? nlohmann::json(*v) : nlohmann::json();
    };
    nlohmann::json j = {{"pid", pid},
                        {"inv", inv},
                        {"source", source},
                        {"sidecar_keys", source == "capture_sidecar" ? nlohmann::json(sidecar_keys)
                                                                     : nlohmann::json()},
                        {"window_excess_ns", optional(window_excess_ns)},
                        {"assignment_margin_ns", optional(assignment_margin_ns)}};
    return json_document::dump(j);
}

std::vector<HostWindow> placeable_windows(const std::vector<HostWindow>& all) {
    std::vector<HostWindow> out;
    for (const HostWindow& w : all)
        if (w.has_runner && w.has_device_wall && w.runner_start > 0 && w.runner_dur > 0 &&
            w.device_wall_dur > 0)
            out.push_back(w);
    return out;
}

namespace {

/// The three steps of pair_ranks (§1.14), sharing what each step decided.
class RankPairer {
  public:
    RankPairer(const std::vector<HostWindow>& windows, const std::vector<PairingCapture>& captures)
        : windows(windows), captures(captures), n(captures.size()) {
        for (std::size_t k = 0; k < n; ++k) by_rank[captures[k].rank] = k;
    }

    /// 1. Pins: the user's, then the automatic ones of host_build_graph host captures.
    Status pin(const std::vector<RankPin>& pins) {
        for (const RankPin& pin : pins) {
            auto it = by_rank.find(pin.rank);
            if (it == by_rank.end())
                return pairing_error(
                    fmt::format("pinned pairing names a capture that is not being merged: {}",
                                rank_name(pin.rank)));
            std::vector<std::size_t> of_pid;
            std::optional<std::size_t> exact;
            for (std::size_t i = 0; i < windows.size(); ++i) {
                if (windows[i].pid != pin.pid) continue;
                of_pid.push_back(i);
                if (pin.inv && windows[i].inv == *pin.inv) exact = i;
            }
            if (pin.inv) {
                if (!exact)
                    return pairing_error(
                        fmt::format("pinned pairing {}={}:{} names an invocation with no placeable "
                                    "chip.run.runner_run window in the Host logs",
                                    pin.rank, pin.pid, *pin.inv));
                pinned[it->second] = *exact;
                continue;
            }
            if (of_pid.size() != 1) {
                std::vector<std::string> invs;
                for (std::size_t i : of_pid) invs.push_back(std::to_string(windows[i].inv));
                return pairing_error(fmt::format(
                    "pinned pairing {}={} names a pid with {} placeable invocations (inv {}); "
                    "name the invocation too, as {}={}:INV",
                    pin.rank, pin.pid, of_pid.size(),
                    invs.empty() ? std::string("none") : fmt::format("{}", fmt::join(invs, ", ")),
                    pin.rank, pin.pid));
            }
            pinned[it->second] = of_pid.front();
        }
        {
            std::set<std::size_t> used;
            for (const auto& [capture, window] : pinned)
                if (!used.insert(window).second)
                    return pairing_error(
                        "pinned pairing sends two captures to one Host invocation");
        }
        // Automatic pins: two captures pinning one window say nothing; they go on to the next
        // steps.
        std::map<std::size_t, std::vector<std::size_t>> automatic;  // window → captures
        for (std::size_t k = 0; k < n; ++k) {
            const PairingCapture& c = captures[k];
            if (pinned.count(k) || !c.host_build_graph_host || !c.host_pid) continue;
            std::vector<std::size_t> fits;
            for (std::size_t i = 0; i < windows.size(); ++i)
                if (static_cast<std::int64_t>(windows[i].pid) == *c.host_pid &&
                    contains_host_records(windows[i], c.extent))
                    fits.push_back(i);
            if (fits.size() == 1) automatic[fits.front()].push_back(k);
        }
        for (const auto& [capture, window] : pinned) taken.insert(window);
        for (const auto& [window, claimants] : automatic)
            if (claimants.size() == 1 && !taken.count(window)) {
                pinned[claimants.front()] = window;
                taken.insert(window);
            }

        return ok_status();
    }

    /// 2. Sidecar keys narrow a capture to the windows of its process and/or invocation.
    Status narrow_by_sidecar() {
        for (std::size_t k = 0; k < n; ++k) {
            if (pinned.count(k)) continue;
            const PairingCapture& c = captures[k];
            if (!c.host_pid && !c.identity) continue;
            std::vector<std::string> keys;
            std::vector<std::size_t> matched, remaining;
            for (std::size_t i = 0; i < windows.size(); ++i) {
                if (c.host_pid && static_cast<std::int64_t>(windows[i].pid) != *c.host_pid)
                    continue;
                if (c.identity && windows[i].identity != c.identity) continue;
                matched.push_back(i);
                if (!taken.count(i)) remaining.push_back(i);
            }
            if (c.host_pid) keys.push_back("host_pid");
            if (c.identity) keys.push_back("dispatch");
            if (remaining.empty() && !matched.empty())
                return pairing_error(fmt::format(
                    "capture {}'s sidecar names a Host invocation that a pinned pairing already "
                    "claims; the pin and the capture disagree about which invocation ran it",
                    rank_name(c.rank)));
            if (!remaining.empty()) narrowed[k] = {std::move(remaining), std::move(keys)};
        }
        // Two captures whose sidecars name one window contradict each other: the fit decides them.
        {
            std::map<std::size_t, std::vector<std::size_t>> claimed;
            for (const auto& [k, entry] : narrowed)
                if (entry.first.size() == 1) claimed[entry.first.front()].push_back(k);
            for (const auto& [window, claimants] : claimed)
                if (claimants.size() > 1)
                    for (std::size_t k : claimants) narrowed.erase(k);
        }
        for (const auto& [k, entry] : narrowed)
            if (entry.first.size() == 1) {
                by_sidecar[k] = entry.first.front();
                taken.insert(entry.first.front());
            }

        return ok_status();
    }

    /// 3. The fit: every assignment of the free captures to the free windows, scored.
    Status fit() {
        for (std::size_t k = 0; k < n; ++k)
            if (!pinned.count(k) && !by_sidecar.count(k)) free_captures.push_back(k);
        std::set<std::size_t> free_window_set;
        for (std::size_t k : free_captures) {
            allowed.push_back(candidates_of(k));
            free_window_set.insert(allowed.back().begin(), allowed.back().end());
        }
        std::uint64_t count = permutations(free_window_set.size(), free_captures.size());
        if (count > kMaxAssignments)
            return pairing_error(fmt::format(
                "{} capture(s) carry no dispatch_identity.json and the Host logs hold {} candidate "
                "chip.run.runner_run windows, more than {} ways of matching them — too many to "
                "score. "
                "Re-run so the captures carry the sidecar, narrow the logs with --host-log, or pin "
                "the pairing with --rank-pid RANK=PID:INV.",
                free_captures.size(), free_window_set.size(), kMaxAssignments));
        return score();
    }

    std::vector<HostPairing> result() {
        std::vector<HostPairing> out(n);
        for (std::size_t k = 0; k < n; ++k) {
            HostPairing& p = out[k];
            p.rank = captures[k].rank;
            if (auto it = pinned.find(k); it != pinned.end()) {
                p.window = it->second, p.source = "pinned";
            } else if (auto s = by_sidecar.find(k); s != by_sidecar.end()) {
                p.window = s->second, p.source = "capture_sidecar";
                p.sidecar_keys = narrowed[k].second;
            } else {
                std::size_t j = static_cast<std::size_t>(
                    std::find(free_captures.begin(), free_captures.end(), k) -
                    free_captures.begin());
                p.window = best[j], p.source = "device_window_fit";
                p.window_excess_ns = std::llround(costs[{k, p.window}]);
            }
            p.pid = windows[p.window].pid;
            p.inv = windows[p.window].inv;
            if (!std::isinf(runner_up))
                p.assignment_margin_ns = std::llround(runner_up - best_cost);
        }
        return out;
    }

  private:
    /// The costs of every allowed assignment and the best and runner-up totals.
    Status score() {
        for (std::size_t j = 0; j < free_captures.size(); ++j)
            for (std::size_t i : allowed[j])
                costs[{free_captures[j], i}] =
                    pairing_cost(windows[i], captures[free_captures[j]].extent);
        // Depth first in window order, so the first of equal totals wins as in upstream's sort.
        std::vector<std::size_t> current(free_captures.size());
        bool any = false;
        std::vector<bool> used(windows.size(), false);
        auto search = [&](auto&& self, std::size_t j, double total) -> void {
            if (j == free_captures.size()) {
                if (!any || total < best_cost) {
                    if (any) runner_up = std::min(runner_up, best_cost);
                    best_cost = total, best = current, any = true;
                } else {
                    runner_up = std::min(runner_up, total);
                }
                return;
            }
            for (std::size_t i : allowed[j]) {
                if (used[i]) continue;
                used[i] = true, current[j] = i;
                self(self, j + 1, total + costs[{free_captures[j], i}]);
                used[i] = false;
            }
        };
        search(search, 0, 0.0);
        if (!any || std::isinf(best_cost))
            return pairing_error(
                "no way of matching these captures to the Host log's invocations puts every "
                "capture "
                "inside a window wide enough to hold it; the log and the captures are probably "
                "from "
                "different runs");
        if (runner_up <= std::max(best_cost * kMarginRatio, best_cost))
            return pairing_error(fmt::format(
                "the captures pair ambiguously with the Host log's invocations: the best match is "
                "off "
                "by {} us of window and the next by {} us, which is too close to tell apart. Ranks "
                "running the same shape leave nothing in the timing that names the other, so "
                "re-run "
                "so the captures carry dispatch_identity.json with its host_pid, or pin the "
                "pairing "
                "explicitly (--rank-pid RANK=PID:INV).",
                us1(best_cost), us1(runner_up)));

        return ok_status();
    }

    std::vector<std::size_t> candidates_of(std::size_t k) const {
        std::vector<std::size_t> out;
        if (auto it = narrowed.find(k); it != narrowed.end()) {
            out = it->second.first;
        } else {
            for (std::size_t i = 0; i < windows.size(); ++i) out.push_back(i);
        }
        out.erase(std::remove_if(out.begin(), out.end(),
                                 [&](std::size_t i) { return taken.count(i) > 0; }),
                  out.end());
        return out;
    }

    const std::vector<HostWindow>& windows;
    const std::vector<PairingCapture>& captures;
    const std::size_t n;
    std::map<int, std::size_t> by_rank;
    std::map<std::size_t, std::size_t> pinned;  // capture → window
    std::set<std::size_t> taken;
    std::map<std::size_t, std::pair<std::vector<std::size_t>, std::vector<std::string>>> narrowed;
    std::map<std::size_t, std::size_t> by_sidecar;
    std::vector<std::size_t> free_captures;
    std::vector<std::vector<std::size_t>> allowed;
    std::map<std::pair<std::size_t, std::size_t>, double> costs;
    std::vector<std::size_t> best;
    double best_cost = kInf, runner_up = kInf;
};

}  // namespace

Result<std::vector<HostPairing>> pair_ranks(const std::vector<HostWindow>& windows,
                                            const std::vector<PairingCapture>& captures,
                                            const std::vector<RankPin>& pins) {
    if (captures.size() > windows.size())
        return pairing_error(
            fmt::format("{} captures but only {} Host invocations to place them in",
                        captures.size(), windows.size()));
    RankPairer pairer(windows, captures);
    if (Status s = pairer.pin(pins); !s) return s.error();
    if (Status s = pairer.narrow_by_sidecar(); !s) return s.error();
    if (Status s = pairer.fit(); !s) return s.error();
    return pairer.result();
}

std::optional<std::int64_t> cross_rank_uncertainty(std::vector<std::int64_t> slacks) {
    if (slacks.size() < 2) return std::nullopt;
    std::sort(slacks.begin(), slacks.end());
    return slacks[slacks.size() - 1] + slacks[slacks.size() - 2];
}

std::string bound_line(const std::vector<std::int64_t>& slacks) {
    if (slacks.empty()) return "";
    auto [lo, hi] = std::minmax_element(slacks.begin(), slacks.end());
    auto us = [](std::int64_t ns) {
        return fmt::format("{:.1f}", static_cast<double>(ns) / 1000.0);
    };
    std::string within = *lo == *hi ? us(*lo) : fmt::format("{}–{}", us(*lo), us(*hi));
    std::string line =
        fmt::format("each Rank placed within {} us of its chip.run.runner_run window", within);
    if (auto u = cross_rank_uncertainty(slacks))
        line += fmt::format("; a cross-Rank gap under {} us is undecided", us(*u));
    return line;
}

}  // namespace ptune::l3
