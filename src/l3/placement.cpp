// One dispatch placed across ranks on the host clock (see placement.hpp, upstream-2026-09.md
// §1.14). Each capture is read twice: once for what pairing needs (its extent, join windows and
// host records, diagnostics discarded), then placed in its paired window — the reader maps
// device cycles while it streams, so the window must be known before the real read.

#include "ptune/l3/placement.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/found_files.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/json_document.hpp"
#include "ptune/swimlane/reader.hpp"

namespace ptune::l3 {

namespace fs = std::filesystem;

namespace {

Error placement_error(std::string message, std::string file = "") {
    return Error{std::move(message), std::move(file), 0, ExitCode::InputError};
}

/// The sorted regular files of `dir` named `<prefix>*.log`; one that is a FIFO or device is
/// named in a warning to `diagnostics` (when given), never opened.
std::vector<fs::path> logs_in(const fs::path& dir, std::string_view prefix,
                              Diagnostics* diagnostics) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (!name.starts_with(prefix) || !name.ends_with(".log")) continue;
        if (diagnostics != nullptr ? io::usable_side_file(it->path(), *diagnostics,
                                                          "host log not read for the placement")
                                   : io::is_file(it->path()))
            out.push_back(it->path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// What pass 1 learns of one capture.
struct Scanned {
    swimlane::CaptureAlignmentFacts facts;
    std::string runtime;
    std::string clock_domain;
    std::optional<swimlane::DispatchIdentity> sidecar;
    std::string sidecar_json;
};

Result<Scanned> scan(const swimlane::CaptureFiles& files, const swimlane::LoadRequest& base) {
    Scanned out;
    auto records = io::open_input(files.records.string());
    if (!records) return records.error();
    Diagnostics scratch;  // the real read says it all again
    swimlane::ReadOptions options;
    options.source_name = files.records.string();
    options.fallback_freq_hz = base.fallback_freq_hz;
    options.alignment_facts = &out.facts;
    auto capture = swimlane::read_capture(records->stream(), options, scratch);
    if (!capture) return capture.error();
    out.runtime = std::string(swimlane::to_string(capture->runtime));
    out.clock_domain = capture->host_clock_domain_id;
    fs::path sidecar = files.records.parent_path() / "dispatch_identity.json";
    if (io::is_file(sidecar)) {
        auto text = io::read_file(sidecar.string(), 1u << 20);
        if (text) {
            if (auto identity = swimlane::read_dispatch_identity(*text, sidecar.string())) {
                out.sidecar = *identity;
                auto j = nlohmann::json::parse(*text, nullptr, false);
                if (!j.is_discarded()) out.sidecar_json = json_document::dump(j);
            }
        }
    }
    return out;
}

}  // namespace

namespace {

/// tree_host_logs(), naming the special files it leaves out in `diagnostics` when given.
std::vector<fs::path> find_tree_host_logs(const fs::path& root, Diagnostics* diagnostics) {
    std::vector<fs::path> out = logs_in(root, "host_clock_alignment.", diagnostics);
    for (auto& p : logs_in(root, "host.", diagnostics)) out.push_back(std::move(p));
    std::vector<fs::path> nested;
    std::error_code ec;
    for (fs::directory_iterator r(root, ec), end; !ec && r != end; r.increment(ec)) {
        if (!r->path().filename().string().starts_with("rank") || !io::is_dir(r->path())) continue;
        std::error_code ec2;
        for (fs::directory_iterator d(r->path(), ec2); !ec2 && d != end; d.increment(ec2))
            if (d->path().filename().string().starts_with("d") && io::is_dir(d->path()))
                // A chip child's host.<pid>.log sits in the first dispatch directory its
                // process wrote (upstream-2026-12.md §7.1), not at the root.
                for (std::string_view prefix : {"host_clock_alignment.", "host."})
                    for (auto& p : logs_in(d->path(), prefix, diagnostics)) nested.push_back(p);
    }
    std::sort(nested.begin(), nested.end());
    out.insert(out.end(), nested.begin(), nested.end());
    return out;
}

}  // namespace

std::vector<fs::path> tree_host_logs(const fs::path& root) {
    return find_tree_host_logs(root, nullptr);
}

bool has_host_logs(const PlacementRequest& request) {
    return !request.host_logs.empty() || !tree_host_logs(request.root).empty();
}

std::vector<std::int64_t> MultiRankPlacement::slacks() const {
    std::vector<std::int64_t> out;
    for (const PlacedRank& r : ranks) out.push_back(r.slack_ns);
    return out;
}

Result<DispatchPairing> pair_dispatch(const std::vector<swimlane::CaptureFiles>& captures,
                                      const swimlane::LoadRequest& base,
                                      const PlacementRequest& request, Diagnostics& diagnostics) {
    DispatchPairing out;
    const std::string root = request.root.string();
    std::vector<fs::path> logs = request.host_logs.empty()
                                     ? find_tree_host_logs(request.root, &diagnostics)
                                     : request.host_logs;
    if (logs.empty())
        return placement_error(
            fmt::format("no host_clock_alignment.*.log or host.*.log under {}: every Rank is "
                        "placed inside its chip.run.runner_run window, which only the Host logs "
                        "record (pass --host-log)",
                        root),
            root);
    swimlane::HostSpanLog spans;
    for (const fs::path& path : logs) {
        auto log = io::open_input(path.string());
        if (!log) return log.error();
        swimlane::read_host_spans(log->stream(), spans);
        out.logs.push_back(path.string());
    }
    if (spans.torn)
        diagnostics.warn(root, 0,
                         fmt::format("{} [STRACE] record(s) are incomplete and are excluded from "
                                     "clock alignment",
                                     spans.torn));
    out.windows = placeable_windows(swimlane::host_windows(spans.spans));
    if (out.windows.empty())
        return placement_error(
            "the Host logs hold no chip.run.runner_run / chip.run.runner_run.device_wall pair; "
            "nothing brackets the device work",
            root);

    std::vector<PairingCapture> pairing_input;
    for (std::size_t k = 0; k < captures.size(); ++k) {
        auto s = scan(captures[k], base);
        if (!s) return s.error();
        PairingCapture c;
        c.rank = captures[k].rank;
        c.extent = s->facts.extent;
        c.host_build_graph_host = s->facts.host_build_graph_host;
        if (s->sidecar) c.host_pid = s->sidecar->host_pid, c.identity = s->sidecar->key;
        pairing_input.push_back(std::move(c));
        out.sidecars.push_back(s->sidecar_json);
        if (k == 0) out.runtime = s->runtime;
        if (s->runtime != out.runtime)
            return placement_error(
                fmt::format("ranks name different runtimes: rank{} {}, rank{} {}",
                            captures.front().rank, out.runtime, captures[k].rank, s->runtime),
                root);
        const std::string& domain = s->clock_domain;
        if (domain.empty()) {
            diagnostics.warn(captures[k].records.string(), 0,
                             fmt::format("rank{} predates metadata.host_clock_domain_id ({}); the "
                                         "merge assumes every Rank ran against one Host clock",
                                         captures[k].rank, captures[k].records.string()));
            continue;
        }
        if (out.host_clock_domain_id && *out.host_clock_domain_id != domain)
            return placement_error(
                fmt::format(
                    "ranks ran against different Host clocks (metadata.host_clock_domain_id "
                    "'{}' and '{}' on rank{}); their host times cannot share one axis",
                    *out.host_clock_domain_id, domain, captures[k].rank),
                root);
        out.host_clock_domain_id = domain;
    }
    auto pairs = pair_ranks(out.windows, pairing_input, request.pins);
    if (!pairs) return placement_error(pairs.error().message, root);
    out.pairs = std::move(*pairs);
    return out;
}

Result<MultiRankPlacement> place_ranks(const std::vector<swimlane::CaptureFiles>& captures,
                                       const swimlane::LoadRequest& base,
                                       const PlacementRequest& request, Diagnostics& diagnostics) {
    auto paired = pair_dispatch(captures, base, request, diagnostics);
    if (!paired) return paired.error();
    MultiRankPlacement out;
    out.logs = paired->logs;
    out.host_clock_domain_id = paired->host_clock_domain_id;
    out.runtime = paired->runtime;
    // Each capture read again, placed in its window; the origin is the earliest placement and
    // host span of the paired invocations.
    std::int64_t origin = std::numeric_limits<std::int64_t>::max();
    for (std::size_t k = 0; k < captures.size(); ++k) {
        const HostPairing& pairing = paired->pairs[k];
        const swimlane::HostWindow& window = paired->windows[pairing.window];
        swimlane::LoadRequest one = base;
        one.paired_window = &window;
        one.paired_logs = out.logs;
        auto loaded = swimlane::load_capture(captures[k], one, diagnostics);
        if (!loaded) return loaded.error();
        const swimlane::ContainmentAlignment& a = loaded->capture.clock_alignment;
        if (!a.bounded())
            return placement_error(
                fmt::format("rank{} cannot be placed in pid {} inv {}: {}", captures[k].rank,
                            pairing.pid, pairing.inv, a.reason),
                captures[k].records.string());
        PlacedRank placed;
        placed.rank = captures[k].rank;
        placed.pairing = pairing;
        auto placement = nlohmann::json::parse(a.placement_json, nullptr, false);
        if (placement.is_object()) {
            placed.slack_ns = placement.value("slack_ns", std::int64_t{0});
            placed.place_lo_ns = placement.value("place_lo_ns", std::int64_t{0});
        }
        placed.dispatch_identity_json = paired->sidecars[k];
        placed.loaded = std::move(*loaded);
        origin = std::min({origin, placed.place_lo_ns, window.runner_start});
        if (window.has_root) origin = std::min(origin, window.root_start);
        if (window.has_launch && !window.launch_device) origin = std::min(origin, window.launch_ts);
        out.ranks.push_back(std::move(placed));
    }
    out.global_origin_ns = origin;
    std::sort(out.ranks.begin(), out.ranks.end(),
              [](const PlacedRank& a, const PlacedRank& b) { return a.rank < b.rank; });
    return out;
}

std::string pairing_metadata(const Tree& tree) {
    nlohmann::json out;
    const RankCapture* with_identity = nullptr;
    for (const RankCapture& c : tree.captures)
        if (c.identity && !with_identity) with_identity = &c;
    if (tree.pairing == Pairing::ParentDispatchIdentity && with_identity) {
        const DispatchIdentity& id = *with_identity->identity;
        out["dispatch_pairing"] = "parent_dispatch_identity";
        out["dispatch_identity"] = {{"run_id", id.run_id},
                                    {"task_slot", id.task_slot},
                                    {"group_size", id.group_size},
                                    {"callable_digest", id.callable_digest}};
    } else {
        out["dispatch_pairing"] = "local_capture_index";
        if (with_identity && with_identity->identity->group_size == 1)
            out["dispatch_identity_status"] = "individual_submissions";
    }
    return json_document::dump(out);
}

std::string multi_rank_metadata(const MultiRankPlacement& p, const std::string& pairing_json,
                                const std::string& dispatch, const std::string& dispatch_id) {
    auto or_null = [](const std::string& s) {
        return s.empty() ? nlohmann::json() : nlohmann::json(s);
    };
    nlohmann::json ranks = nlohmann::json::array();
    bool partial = false;
    for (const PlacedRank& r : p.ranks) {
        const swimlane::Capture& cap = r.loaded.capture;
        bool complete = !cap.host_orchestration || cap.host.records_complete;
        partial = partial || !complete;
        nlohmann::json rank = {
            {"rank", r.rank},
            {"input", r.loaded.files.records.string()},
            {"trace_status", complete ? "complete" : "partial"},
            {"source_timeline_origin_ns", cap.host.origin_ns},
            {"placement", nlohmann::json::parse(cap.clock_alignment.placement_json)},
            {"host_pairing", nlohmann::json::parse(r.pairing.to_json())},
            {"host_capture", cap.host.capture_json.empty()
                                 ? nlohmann::json()
                                 : nlohmann::json::parse(cap.host.capture_json)},
            {"dispatch_identity", r.dispatch_identity_json.empty()
                                      ? nlohmann::json()
                                      : nlohmann::json::parse(r.dispatch_identity_json)},
            {"clock_alignment", nlohmann::json::parse(cap.clock_alignment.record_json())}};
        ranks.push_back(std::move(rank));
    }
    nlohmann::json dispatcher_pids = p.dispatcher_pids;
    auto uncertainty = cross_rank_uncertainty(p.slacks());
    nlohmann::json out = {
        {"layout", "containment_spliced_multi_rank"},
        {"runtime", p.runtime},
        {"dispatch", or_null(dispatch)},
        {"dispatch_id", or_null(dispatch_id)},
        {"host_clock_domain_id",
         p.host_clock_domain_id ? nlohmann::json(*p.host_clock_domain_id) : nlohmann::json()},
        {"host_logs", p.logs},
        {"global_origin_ns", p.global_origin_ns},
        {"dispatcher_pids", dispatcher_pids},
        {"rank_count", p.ranks.size()},
        {"trace_status", partial ? "partial" : "complete"},
        {"ranks", std::move(ranks)},
        {"cross_rank_uncertainty_ns",
         uncertainty ? nlohmann::json(*uncertainty) : nlohmann::json()},
        {"clock_alignment_written_to_input", false}};
    auto pairing = nlohmann::json::parse(pairing_json, nullptr, false);
    if (pairing.is_object())
        for (auto& [key, value] : pairing.items()) out[key] = value;
    return json_document::dump(out);
}

}  // namespace ptune::l3
