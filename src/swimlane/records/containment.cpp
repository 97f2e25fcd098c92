// Span containment (upstream-2026-09.md §1.12): the host windows of the `[STRACE]` spans, the
// placement of a capture's device cycles inside one, and the `metadata.clock_alignment` record.
// Arithmetic is in doubles where upstream's is (Python floats), so the rounded record matches.

#include "ptune/swimlane/containment.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/json_document.hpp"
#include "ptune/host/log.hpp"

namespace ptune::swimlane {

namespace {

constexpr std::string_view kRunner = "chip.run.runner_run";

template <class T>
bool parse_number(std::string_view text, T& out) {
    if (text.empty()) return false;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && ptr == text.data() + text.size();
}

/// Keeps the spans clock alignment uses from the host-log reader's events.
class AlignmentSpans final : public host::HostLogVisitor {
  public:
    explicit AlignmentSpans(HostSpanLog& log) : log_(log) {}
    void on_span(const host::Span& s) override {
        switch (host::classify_span(s.name)) {
            case host::SpanFamily::Root:
            case host::SpanFamily::RunnerRun:
            case host::SpanFamily::DeviceWall:
            case host::SpanFamily::DevicePhase:
            case host::SpanFamily::AicpuLaunch:
                break;
            default:
                if (!log_.all_spans) return;
        }
        if (log_.all_spans && log_.keep && !log_.keep(s.pid, s.inv)) return;
        HostSpan span;
        span.pid = s.pid, span.tid = s.tid, span.inv = s.inv, span.depth = s.depth;
        span.name = s.name;
        span.ts = s.ts, span.dur = s.dur;
        span.device = s.clock == host::ClockDomain::Device;
        for (const auto& [k, v] : s.attrs) span.attrs.emplace_back(k, v);
        log_.spans.push_back(std::move(span));
    }

  private:
    HostSpanLog& log_;
};

}  // namespace

std::optional<std::int64_t> HostSpan::int_attr(std::string_view key) const {
    for (const auto& [k, v] : attrs) {
        std::int64_t out = 0;
        if (k == key)
            return parse_number(std::string_view(v), out) ? std::optional(out) : std::nullopt;
    }
    return std::nullopt;
}

void read_host_spans(std::string_view text, HostSpanLog& log) {
    AlignmentSpans visitor(log);
    host::HostLogReader reader(visitor);
    std::size_t line = 0;
    for (std::size_t begin = 0; begin <= text.size();) {
        std::size_t end = text.find('\n', begin);
        if (end == std::string_view::npos) end = text.size();
        if (end > begin) reader.feed(text.substr(begin, end - begin), ++line);
        begin = end + 1;
    }
    log.torn += reader.stats().torn_spans;
}

void read_host_spans(std::istream& in, HostSpanLog& log) {
    AlignmentSpans visitor(log);
    log.torn += host::read_host_log(in, visitor).torn_spans;
}

std::vector<HostWindow> host_windows(const std::vector<HostSpan>& spans) {
    std::vector<HostWindow> windows;
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::size_t> index;
    for (const HostSpan& s : spans) {
        auto [it, fresh] = index.try_emplace({s.pid, s.inv}, windows.size());
        if (fresh) {
            windows.emplace_back();
            windows.back().pid = s.pid;
            windows.back().inv = s.inv;
        }
        HostWindow& w = windows[it->second];
        std::string_view suffix;
        const host::SpanFamily family = host::classify_span(s.name, &suffix);
        if (family == host::SpanFamily::RunnerRun && !s.device && !w.has_runner) {
            w.has_runner = true, w.runner_start = s.ts, w.runner_dur = s.dur;
        } else if (family == host::SpanFamily::DeviceWall && s.device && !w.has_device_wall) {
            w.has_device_wall = true, w.device_wall_ts = s.ts, w.device_wall_dur = s.dur;
        } else if (family == host::SpanFamily::AicpuLaunch && !w.has_launch) {
            w.has_launch = true, w.launch_device = s.device, w.launch_ts = s.ts,
            w.launch_dur = s.dur;
        } else if (family == host::SpanFamily::Root && s.depth == 0 && !w.has_root) {
            w.has_root = true, w.root_start = s.ts, w.root_dur = s.dur;
            auto run = s.int_attr("run_id"), dispatch = s.int_attr("dispatch_id"),
                 slot = s.int_attr("slot_id"), generation = s.int_attr("generation");
            if (run && dispatch && slot && generation && !(*run == 0 && *dispatch == 0))
                w.identity = std::array<std::int64_t, 4>{*run, *dispatch, *slot, *generation};
        } else if (family == host::SpanFamily::DevicePhase && s.device) {
            std::string sub(suffix);
            bool seen = std::any_of(w.sub_phases.begin(), w.sub_phases.end(),
                                    [&](const auto& p) { return p.first == sub; });
            if (!seen) w.sub_phases.push_back({std::move(sub), {s.ts, s.dur}});
        }
    }
    return windows;
}

Result<DispatchIdentity> read_dispatch_identity(std::string_view text, std::string_view source) {
    auto parsed = json_document::parse(text, std::string(source));
    if (!parsed) return parsed.error();
    const nlohmann::json& j = *parsed;
    if (!j.is_object())
        return Error{"dispatch identity is not a JSON object", std::string(source), 1,
                     ExitCode::InputError};
    auto integer = [&](const char* key) -> std::optional<std::int64_t> {
        auto it = j.find(key);
        if (it == j.end() || !it->is_number_integer()) return std::nullopt;
        return it->get<std::int64_t>();
    };
    DispatchIdentity out;
    out.host_pid = integer("host_pid");
    auto run = integer("run_id"), dispatch = integer("endpoint_dispatch_id"),
         slot = integer("pipeline_slot"), generation = integer("pipeline_generation");
    if (run && dispatch && slot && generation)
        out.key = std::array<std::int64_t, 4>{*run, *dispatch, *slot, *generation};
    return out;
}

namespace {

/// One placement with the origin fixed (§1.12.3 steps 2–4).
struct Placed {
    double head = 0, extent_ns = 0, outer_slack = 0, place_lo = 0, place_hi = 0, slack = 0;
    double origin = 0;
    double host_ns(double cycles, double freq) const {
        return place_lo + ((cycles - origin) * 1e9 / freq - head);
    }
};

Error containment_failure(std::string message) {
    return Error{std::move(message), "", 0, ExitCode::InputError};
}

/// The device-phase timeline's zero: the earliest of device_wall and its sub-phases.
std::int64_t device_phase_zero(const HostWindow& w) {
    std::int64_t zero = w.device_wall_ts;
    for (const auto& [name, span] : w.sub_phases) zero = std::min(zero, span.first);
    return zero;
}

/// Step 1: the bounds [lo, hi] of the origin cycle sitting on device-phase 0, from every join
/// of a host window (sched, orch, device_wall) with the capture's extent of the same span.
struct OriginBounds {
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
    std::vector<std::string> sources;
};

Result<OriginBounds> origin_bounds(const HostWindow& w, const CaptureExtent& c, std::int64_t zero,
                                   double f) {
    auto sub = [&](std::string_view name) -> std::optional<std::pair<double, double>> {
        for (const auto& [n, span] : w.sub_phases)
            if (n == name)
                return std::pair(static_cast<double>(span.first - zero),
                                 static_cast<double>(span.second));
        return std::nullopt;
    };
    OriginBounds b;
    auto join = [&](std::string_view name, std::pair<double, double> window,
                    std::pair<std::int64_t, std::int64_t> bounds) {
        auto [t, d] = window;
        b.hi = std::min(b.hi, static_cast<double>(bounds.first) - t * f / 1e9);
        b.lo = std::max(b.lo, static_cast<double>(bounds.second) - (t + d) * f / 1e9);
        b.sources.emplace_back(name);
    };
    if (auto t = sub("sched"); t && c.sched) join("sched", *t, *c.sched);
    if (auto t = sub("orch"); t && c.orch) join("orch", *t, *c.orch);
    join("device_wall",
         {static_cast<double>(w.device_wall_ts - zero), static_cast<double>(w.device_wall_dur)},
         {c.first, c.last});
    if (b.lo > b.hi)
        return containment_failure(
            fmt::format("pid {} inv {} and this capture cannot describe one run: the "
                        "device windows they report do not overlap",
                        w.pid, w.inv));
    return b;
}

/// The device work placed with `origin`: its extent, and the room chip.run.runner_run (after
/// the AICPU launch marker) leaves it.
Result<Placed> place_origin(const HostWindow& w, const CaptureExtent& c, std::int64_t zero,
                            double f, double origin) {
    const double Dw = static_cast<double>(w.runner_dur);
    const double S = static_cast<double>(w.runner_start);
    Placed p;
    p.origin = origin;
    double lo_phase = std::numeric_limits<double>::infinity();
    double hi_phase = -std::numeric_limits<double>::infinity();
    for (std::int64_t cycles : {c.first, c.last}) {
        double ns = (static_cast<double>(cycles) - origin) * 1e9 / f;
        lo_phase = std::min(lo_phase, ns), hi_phase = std::max(hi_phase, ns);
    }
    for (const auto& [name, span] : w.sub_phases) {
        double start = static_cast<double>(span.first - zero);
        lo_phase = std::min(lo_phase, start);
        hi_phase = std::max(hi_phase, start + static_cast<double>(span.second));
    }
    p.head = std::min(0.0, lo_phase);
    p.extent_ns = std::max(static_cast<double>(w.device_wall_dur), hi_phase) - p.head;
    p.outer_slack = Dw - p.extent_ns;
    if (p.outer_slack < 0)
        return containment_failure(
            fmt::format("pid {} inv {} draws {:.3f} us of device work but its "
                        "chip.run.runner_run window is only {:.3f} us wide",
                        w.pid, w.inv, p.extent_ns / 1000.0, Dw / 1000.0));
    p.place_lo = w.has_launch ? std::max(S, static_cast<double>(w.launch_ts)) : S;
    p.place_hi = S + p.outer_slack;
    p.slack = p.place_hi - p.place_lo;
    if (p.slack < 0)
        return containment_failure(
            fmt::format("pid {} inv {}: the AICPU launch marker leaves no room for "
                        "the device work inside chip.run.runner_run",
                        w.pid, w.inv));
    return p;
}

/// The `placement` record of the alignment (§1.12.2), from the middle placement.
std::string placement_record(const HostWindow& w, const Placed& mid, const OriginBounds& b,
                             double f) {
    nlohmann::json placement = {{"method", "span_containment_v1"},
                                {"outer_span", kRunner},
                                {"outer_pid", w.pid},
                                {"outer_inv", w.inv},
                                {"outer_start_ns", w.runner_start},
                                {"outer_duration_ns", w.runner_dur},
                                {"device_wall_ns", w.device_wall_dur},
                                {"device_extent_ns", std::llround(mid.extent_ns)},
                                {"outer_slack_ns", std::llround(mid.outer_slack)},
                                {"slack_ns", std::llround(mid.slack)},
                                {"place_lo_ns", std::llround(mid.place_lo)},
                                {"place_hi_ns", std::llround(mid.place_hi)},
                                {"join",
                                 {{"sources", b.sources},
                                  {"origin_cycles", std::llround(mid.origin)},
                                  {"residual_ns", std::llround((b.hi - b.lo) * 1e9 / f)}}}};
    if (w.has_launch) {
        placement["aicpu_launch_ns"] = w.launch_ts;
        placement["causal_constraint"] = "aicpu_launch<=device_start";
    }
    return json_document::dump(placement);
}

}  // namespace

Result<ContainmentAlignment> place_in_window(const HostWindow& w, const CaptureExtent& c) {
    const double f = static_cast<double>(c.freq_hz);
    if (f <= 0) return containment_failure("capture metadata has no usable clock_freq_hz");
    if (!c.has_extent) return containment_failure("the capture holds no device timestamps");
    const std::int64_t zero = device_phase_zero(w);
    auto bounds = origin_bounds(w, c, zero, f);
    if (!bounds) return bounds.error();
    if (w.has_launch) {
        bool inside = w.launch_ts >= w.runner_start && w.launch_ts <= w.runner_start + w.runner_dur;
        if (w.launch_device || w.launch_dur != 0 || !inside)
            return containment_failure(fmt::format(
                "invalid AICPU launch marker: pid {} inv {} chip.run.runner_run.aicpu_launch must "
                "be a host-clock instant (dur=0) inside its chip.run.runner_run window",
                w.pid, w.inv));
    }
    auto mid = place_origin(w, c, zero, f, (bounds->lo + bounds->hi) / 2);
    if (!mid) return mid.error();
    auto low = place_origin(w, c, zero, f, bounds->lo);
    auto high = place_origin(w, c, zero, f, bounds->hi);
    if (!low) return low.error();
    if (!high) return high.error();
    const double anchor = static_cast<double>(c.first);
    ContainmentAlignment out;
    out.status = ContainmentAlignment::Status::Bounded;
    out.source = "host logs";
    out.device_anchor_cycles = c.first;
    out.host_anchor_ns = std::llround(mid->host_ns(anchor, f));
    double end_lo = low->host_ns(anchor, f), end_hi = high->host_ns(anchor, f);
    out.host_anchor_min_ns = static_cast<std::int64_t>(std::floor(std::min(end_lo, end_hi)));
    out.host_anchor_max_ns =
        static_cast<std::int64_t>(std::ceil(std::max(end_lo + low->slack, end_hi + high->slack)));
    out.placement_json = placement_record(w, *mid, *bounds, f);
    out.device_phase_zero = zero;
    out.device_phase_zero_host_ns = std::llround(mid->place_lo - mid->head);
    return out;
}

ContainmentAlignment align_by_containment(const HostAlignmentInput& input,
                                          const CaptureExtent& extent) {
    ContainmentAlignment out;
    out.logs = input.logs;
    auto unavailable = [&](std::string reason) {
        out.status = ContainmentAlignment::Status::Unavailable;
        out.reason = std::move(reason);
        out.source = "host logs";
        return out;
    };
    if (input.paired) {
        auto placed = place_in_window(*input.paired, extent);
        if (!placed) return unavailable(placed.error().message);
        placed->logs = input.logs;
        return *placed;
    }
    if (input.logs.empty()) return unavailable("no Host log available");
    std::vector<const HostWindow*> candidates;
    for (const HostWindow& w : input.windows) {
        if (!w.has_runner || !w.has_device_wall) continue;
        if (input.sidecar && input.sidecar->host_pid &&
            static_cast<std::int64_t>(w.pid) != *input.sidecar->host_pid)
            continue;
        if (input.sidecar && input.sidecar->key && w.identity && *w.identity != *input.sidecar->key)
            continue;
        if (extent.host_records) {
            auto [first, last] = *extent.host_records;
            if (!w.has_root || first < w.root_start || last > w.root_start + w.root_dur) continue;
        }
        if (w.runner_start <= 0 || w.runner_dur <= 0 || w.device_wall_dur <= 0) continue;
        candidates.push_back(&w);
    }
    if (candidates.empty()) return unavailable("no matching Host runner_run/device_wall windows");
    if (candidates.size() > 1)
        return unavailable("capture does not uniquely identify a Host invocation");
    auto placed = place_in_window(*candidates.front(), extent);
    if (!placed) return unavailable(placed.error().message);
    placed->logs = input.logs;
    return *placed;
}

ContainmentAlignment validate_saved_alignment(std::string_view json, std::uint64_t freq_hz,
                                              bool& valid) {
    ContainmentAlignment out;
    out.source = "saved";
    valid = false;
    auto invalid = [&](std::string reason) {
        out.status = ContainmentAlignment::Status::Unavailable;
        out.reason = std::move(reason);
        return out;
    };
    nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return invalid("clock_alignment must be an object");
    auto status = j.find("status");
    if (status == j.end() || !status->is_string() ||
        (*status != "bounded" && *status != "unavailable"))
        return invalid("unsupported clock_alignment status");
    if (*status == "unavailable") {
        auto reason = j.find("reason");
        out.status = ContainmentAlignment::Status::Unavailable;
        out.reason = reason != j.end() && reason->is_string() ? reason->get<std::string>() : "";
        valid = true;
        return out;
    }
    std::array<std::int64_t, 4> values{};
    constexpr std::array<const char*, 4> kKeys = {"device_anchor_cycles", "host_anchor_ns",
                                                  "host_anchor_min_ns", "host_anchor_max_ns"};
    for (std::size_t i = 0; i < kKeys.size(); ++i) {
        auto it = j.find(kKeys[i]);
        if (it == j.end() || !it->is_number_integer())
            return invalid("clock_alignment anchors and bounds must be integers");
        values[i] = it->get<std::int64_t>();
    }
    if (freq_hz == 0) return invalid("capture metadata has no usable clock_freq_hz");
    auto [anchor, host, min, max] = values;
    if (!(anchor > 0 && 0 < min && min <= host && host <= max))
        return invalid("invalid clock_alignment bounds");
    out.status = ContainmentAlignment::Status::Bounded;
    out.device_anchor_cycles = anchor;
    out.host_anchor_ns = host;
    out.host_anchor_min_ns = min;
    out.host_anchor_max_ns = max;
    valid = true;
    return out;
}

}  // namespace ptune::swimlane
