// Multi-rank host placement (ptune/l3/host_pairing.hpp, placement.hpp; upstream-2026-09.md
// §1.14): every pairing mode (pinned by --rank-pid, pinned automatically by the sidecar's
// host_pid, capture_sidecar, device_window_fit), every refusal (bad pins, two ranks claiming one
// invocation, a rank no invocation can hold, ties, too many assignments) and the composed
// two-rank fixture placed end to end.

#include <map>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ptune/l3/host_pairing.hpp"
#include "ptune/l3/placement.hpp"
#include "ptune/l3/tree.hpp"
#include "ptune/swimlane/trace.hpp"

namespace l3_host_pairing_test {

using namespace ptune;
using namespace ptune::l3;
using swimlane::CaptureExtent;
using swimlane::HostWindow;

namespace {

/// One invocation: runner_run [start, start+dur), device_wall `wall`, a `sched` sub-phase of
/// `sched_dur` at 700 ns, and a root chip.run around the runner.
HostWindow window(std::uint64_t pid, std::uint64_t inv = 1, std::int64_t start = 1'000'000,
                  std::int64_t sched_dur = 100, std::int64_t dur = 5'000,
                  std::int64_t wall = 2'000) {
    HostWindow w;
    w.pid = pid, w.inv = inv;
    w.has_runner = true, w.runner_start = start, w.runner_dur = dur;
    w.has_device_wall = true, w.device_wall_dur = wall;
    w.has_root = true, w.root_start = start - 1'000, w.root_dur = dur + 2'000;
    w.sub_phases.push_back({"sched", {700, sched_dur}});
    return w;
}

/// A 1 GHz capture whose scheduler records span `sched_ns`, at cycle `base`.
PairingCapture capture(int rank, std::int64_t sched_ns, std::int64_t base = 100'000) {
    PairingCapture c;
    c.rank = rank;
    c.extent.freq_hz = 1'000'000'000;
    c.extent.has_extent = true;
    c.extent.first = base, c.extent.last = base + 400;
    c.extent.sched = std::pair(base + 10, base + 10 + sched_ns);
    return c;
}

std::string error_of(const Result<std::vector<HostPairing>>& r) {
    REQUIRE_FALSE(r);
    return r.error().message;
}

/// d0 of the composed two-rank tree (tests/data/l3/l3_two_rank, upstream-2026-09 fixture).
Tree two_rank_tree() {
    auto tree =
        read_tree(std::string(PTUNE_TEST_DATA) + "/l3/l3_two_rank/dfx_outputs", {0, std::nullopt});
    REQUIRE(tree);
    return std::move(*tree);
}

std::vector<swimlane::CaptureFiles> capture_files(const Tree& tree) {
    std::vector<swimlane::CaptureFiles> files;
    for (const RankCapture& c : tree.captures) {
        swimlane::CaptureFiles f;
        f.records = c.records;
        f.rank = c.rank;
        f.label = c.label;
        files.push_back(f);
    }
    return files;
}

}  // namespace

TEST_CASE("device_window_fit pairs each capture with the window its scheduler records fit best",
          "[l3][pairing]") {
    std::vector<HostWindow> windows = {window(10, 1, 1'000'000, 100),
                                       window(11, 1, 2'000'000, 300)};
    auto pairs = pair_ranks(windows, {capture(0, 50), capture(1, 250)}, {});
    REQUIRE(pairs);
    REQUIRE(pairs->size() == 2);
    CHECK((*pairs)[0].pid == 10);
    CHECK((*pairs)[1].pid == 11);
    CHECK((*pairs)[0].source == "device_window_fit");
    CHECK((*pairs)[0].window_excess_ns == 50);
    CHECK((*pairs)[1].window_excess_ns == 50);
    // The swapped assignment cannot hold rank1's 250 ns in a 100 ns window: no runner-up.
    CHECK_FALSE((*pairs)[0].assignment_margin_ns);
    auto json = nlohmann::json::parse((*pairs)[0].to_json());
    CHECK(json["source"] == "device_window_fit");
    CHECK(json["sidecar_keys"].is_null());
    CHECK(json["assignment_margin_ns"].is_null());
}

TEST_CASE("device_window_fit reports the margin over the runner-up", "[l3][pairing]") {
    // rank0 (90 ns) fits both; rank1 (250 ns) only the wide one: best total 10 + 50 = 60, the
    // swap is infeasible; a third window widens the choice so the runner-up is finite.
    std::vector<HostWindow> windows = {window(10, 1, 1'000'000, 100), window(11, 1, 2'000'000, 300),
                                       window(12, 1, 3'000'000, 900)};
    auto pairs = pair_ranks(windows, {capture(0, 90), capture(1, 250)}, {});
    REQUIRE(pairs);
    CHECK((*pairs)[0].pid == 10);
    CHECK((*pairs)[1].pid == 11);
    // Runner-up: rank0→10 (10), rank1→12 (650) = 660; margin 600.
    CHECK((*pairs)[0].assignment_margin_ns == 600);
    CHECK((*pairs)[1].assignment_margin_ns == 600);
}

TEST_CASE("look-alike ranks pair ambiguously; a pin settles them", "[l3][pairing]") {
    std::vector<HostWindow> windows = {window(10), window(11, 1, 2'000'000)};
    std::vector<PairingCapture> captures = {capture(0, 50), capture(1, 50, 500'000)};
    CHECK_THAT(error_of(pair_ranks(windows, captures, {})),
               Catch::Contains("the captures pair ambiguously with the Host log's invocations: "
                               "the best match is off by 0.1 us of window and the next by 0.1 us"));
    auto pinned = pair_ranks(windows, captures, {{0, 11, std::nullopt}, {1, 10, 1}});
    REQUIRE(pinned);
    CHECK((*pinned)[0].pid == 11);
    CHECK((*pinned)[1].pid == 10);
    CHECK((*pinned)[0].source == "pinned");
    CHECK((*pinned)[1].source == "pinned");
}

TEST_CASE("a pin with a one-sided tie: one pinned, the other fitted", "[l3][pairing]") {
    std::vector<HostWindow> windows = {window(10), window(11, 1, 2'000'000)};
    auto pairs = pair_ranks(windows, {capture(0, 50), capture(1, 50)}, {{1, 10, std::nullopt}});
    REQUIRE(pairs);
    CHECK((*pairs)[1].source == "pinned");
    CHECK((*pairs)[0].source == "device_window_fit");
    CHECK((*pairs)[0].pid == 11);
}

TEST_CASE("bad pins are refused with the rule they break", "[l3][pairing]") {
    std::vector<HostWindow> windows = {window(10, 1), window(10, 2, 2'000'000), window(11)};
    std::vector<PairingCapture> captures = {capture(0, 50), capture(1, 60)};
    CHECK(error_of(pair_ranks(windows, captures, {{0, 10, std::nullopt}})) ==
          "pinned pairing 0=10 names a pid with 2 placeable invocations (inv 1, 2); name the "
          "invocation too, as 0=10:INV");
    CHECK(error_of(pair_ranks(windows, captures, {{0, 99, std::nullopt}})) ==
          "pinned pairing 0=99 names a pid with 0 placeable invocations (inv none); name the "
          "invocation too, as 0=99:INV");
    CHECK_THAT(error_of(pair_ranks(windows, captures, {{0, 10, 7}})),
               Catch::Contains("pinned pairing 0=10:7 names an invocation with no placeable "
                               "chip.run.runner_run window"));
    CHECK(error_of(pair_ranks(windows, captures, {{0, 11, std::nullopt}, {1, 11, 1}})) ==
          "pinned pairing sends two captures to one Host invocation");
    CHECK(error_of(pair_ranks(windows, captures, {{5, 11, std::nullopt}})) ==
          "pinned pairing names a capture that is not being merged: rank5");
}

TEST_CASE("rank-pid values: RANK=PID and RANK=PID:INV", "[l3][pairing]") {
    auto a = parse_rank_pid("0=4242");
    REQUIRE(a);
    CHECK(a->rank == 0);
    CHECK(a->pid == 4242);
    CHECK_FALSE(a->inv);
    auto b = parse_rank_pid("3=4242:2");
    REQUIRE(b);
    CHECK(b->rank == 3);
    CHECK(b->inv == 2u);
    for (const char* bad : {"4242", "0=", "=4242", "0=abc", "0=4242:", "0=0", "-1=5", "0=5:x"}) {
        auto r = parse_rank_pid(bad);
        REQUIRE_FALSE(r);
        CHECK(r.error().message ==
              std::string("--rank-pid must be RANK=PID or RANK=PID:INV (for example, 0=4242), "
                          "not '") +
                  bad + "'");
    }
}

TEST_CASE("capture_sidecar: host_pid and the dispatch key name one window", "[l3][pairing]") {
    std::vector<HostWindow> windows = {window(10), window(11, 1, 2'000'000),
                                       window(11, 2, 3'000'000)};
    windows[1].identity = std::array<std::int64_t, 4>{1, 1, 0, 1};
    windows[2].identity = std::array<std::int64_t, 4>{1, 2, 0, 1};
    PairingCapture by_pid = capture(0, 50);
    by_pid.host_pid = 10;
    PairingCapture by_both = capture(1, 50);
    by_both.host_pid = 11;
    by_both.identity = std::array<std::int64_t, 4>{1, 2, 0, 1};
    auto pairs = pair_ranks(windows, {by_pid, by_both}, {});
    REQUIRE(pairs);
    CHECK((*pairs)[0].source == "capture_sidecar");
    CHECK((*pairs)[0].sidecar_keys == std::vector<std::string>{"host_pid"});
    CHECK((*pairs)[1].pid == 11);
    CHECK((*pairs)[1].inv == 2);
    CHECK((*pairs)[1].sidecar_keys == std::vector<std::string>{"host_pid", "dispatch"});
    auto json = nlohmann::json::parse((*pairs)[1].to_json());
    CHECK(json["sidecar_keys"] == nlohmann::json({"host_pid", "dispatch"}));
    CHECK(json["window_excess_ns"].is_null());
}

TEST_CASE("two ranks whose sidecars claim one invocation go to the fit", "[l3][pairing]") {
    std::vector<HostWindow> windows = {window(10, 1, 1'000'000, 100),
                                       window(11, 1, 2'000'000, 300)};
    PairingCapture a = capture(0, 250), b = capture(1, 50);
    a.host_pid = b.host_pid = 11;  // a malformed sidecar: both say pid 11
    auto pairs = pair_ranks(windows, {a, b}, {});
    REQUIRE(pairs);
    CHECK((*pairs)[0].source == "device_window_fit");
    CHECK((*pairs)[1].source == "device_window_fit");
    CHECK((*pairs)[0].pid == 11);
    CHECK((*pairs)[1].pid == 10);
}

TEST_CASE("a sidecar naming an invocation a pin claimed is a contradiction", "[l3][pairing]") {
    std::vector<HostWindow> windows = {window(10), window(11, 1, 2'000'000)};
    PairingCapture a = capture(0, 50), b = capture(1, 60);
    b.host_pid = 10;
    CHECK_THAT(error_of(pair_ranks(windows, {a, b}, {{0, 10, std::nullopt}})),
               Catch::Contains("capture rank1's sidecar names a Host invocation that a pinned "
                               "pairing already claims"));
}

TEST_CASE("a host_build_graph capture is pinned by its sidecar host_pid", "[l3][pairing]") {
    std::vector<HostWindow> windows = {window(10), window(10, 2, 2'000'000),
                                       window(11, 1, 3'000'000)};
    PairingCapture c = capture(0, 50);
    c.host_build_graph_host = true;
    c.host_pid = 10;
    c.extent.host_records = std::pair<std::int64_t, std::int64_t>(2'000'100, 2'000'900);
    auto pairs = pair_ranks(windows, {c}, {});
    REQUIRE(pairs);
    CHECK((*pairs)[0].source == "pinned");
    CHECK((*pairs)[0].inv == 2);
    // Without host records inside a window of its pid it is a sidecar pairing: pid 10 has two
    // windows, so the fit decides between them (equal: ambiguous).
    c.extent.host_records.reset();
    CHECK_THAT(error_of(pair_ranks(windows, {c}, {})), Catch::Contains("pair ambiguously"));
}

TEST_CASE("a rank no invocation can hold, and more ranks than invocations", "[l3][pairing]") {
    std::vector<HostWindow> windows = {window(10, 1, 1'000'000, 100)};
    CHECK_THAT(error_of(pair_ranks(windows, {capture(0, 500)}, {})),
               Catch::Contains("no way of matching these captures to the Host log's invocations "
                               "puts every capture inside a window wide enough to hold it"));
    CHECK(error_of(pair_ranks(windows, {capture(0, 50), capture(1, 50)}, {})) ==
          "2 captures but only 1 Host invocations to place them in");
}

TEST_CASE("more than 200000 assignments are not scored", "[l3][pairing]") {
    std::vector<HostWindow> windows;
    std::vector<PairingCapture> captures;
    for (int i = 0; i < 9; ++i) {  // 9! = 362880
        windows.push_back(window(10 + static_cast<std::uint64_t>(i), 1, 1'000'000 * (i + 1), 100));
        captures.push_back(capture(i, 10 * (i + 1)));
    }
    CHECK_THAT(error_of(pair_ranks(windows, captures, {})), Catch::Contains("too many to score"));
    // Eight (40320 assignments) are scored.
    windows.pop_back(), captures.pop_back();
    CHECK_THAT(error_of(pair_ranks(windows, captures, {})), Catch::Contains("ambiguously"));
}

TEST_CASE("placeable windows need a runner, a device_wall and positive times", "[l3][pairing]") {
    HostWindow no_wall = window(1), zero = window(2), good = window(3);
    no_wall.has_device_wall = false;
    zero.device_wall_dur = 0;
    auto kept = placeable_windows({no_wall, zero, good});
    REQUIRE(kept.size() == 1);
    CHECK(kept[0].pid == 3);
}

TEST_CASE("the bound line and the cross-rank uncertainty", "[l3][pairing]") {
    CHECK(bound_line({40'000, 40'000}) ==
          "each Rank placed within 40.0 us of its chip.run.runner_run window; a cross-Rank gap "
          "under 80.0 us is undecided");
    CHECK(bound_line({6'000, 2'500, 4'000}) ==
          "each Rank placed within 2.5–6.0 us of its chip.run.runner_run window; a cross-Rank "
          "gap under 10.0 us is undecided");
    CHECK(bound_line({6'000}) ==
          "each Rank placed within 6.0 us of its chip.run.runner_run window");
    CHECK_FALSE(cross_rank_uncertainty({6'000}));
    CHECK(cross_rank_uncertainty({1, 5, 3}) == 8);
}

TEST_CASE("the composed two-rank tree: both ranks pinned and placed within 40 us",
          "[l3][pairing][placement]") {
    auto tree = two_rank_tree();
    std::vector<swimlane::CaptureFiles> files = capture_files(tree);
    PlacementRequest request;
    request.root = tree.root;
    REQUIRE(has_host_logs(request));
    Diagnostics diagnostics;
    auto placed = place_ranks(files, {}, request, diagnostics);
    REQUIRE(placed);
    REQUIRE(placed->ranks.size() == 2);
    CHECK(placed->logs.size() == 2);
    CHECK(placed->global_origin_ns == 918273645000);  // rank0's root chip.run
    CHECK(placed->slacks() == std::vector<std::int64_t>{40'000, 40'000});
    const auto& a0 = placed->ranks[0].loaded.capture.clock_alignment;
    CHECK(a0.bounded());
    CHECK(a0.device_anchor_cycles == 4320000000090);
    CHECK(a0.host_anchor_ns == 918273708900);
    CHECK(a0.host_anchor_min_ns == 918273708500);
    CHECK(a0.host_anchor_max_ns == 918273749300);
    const auto& a1 = placed->ranks[1].loaded.capture.clock_alignment;
    CHECK(a1.host_anchor_ns == 918273715900);
    CHECK(a1.host_anchor_min_ns == 918273715500);
    CHECK(a1.host_anchor_max_ns == 918273756300);
    CHECK(placed->ranks[0].pairing.source == "pinned");
    CHECK(placed->ranks[0].pairing.pid == 2091377);
    CHECK(placed->ranks[1].pairing.pid == 2091389);

    auto meta =
        nlohmann::json::parse(multi_rank_metadata(*placed, pairing_metadata(tree), "d0", ""));
    CHECK(meta["layout"] == "containment_spliced_multi_rank");
    CHECK(meta["runtime"] == "host_build_graph");
    CHECK(meta["dispatch"] == "d0");
    CHECK(meta["dispatch_id"].is_null());
    CHECK(meta["dispatch_pairing"] == "parent_dispatch_identity");
    CHECK(meta["dispatch_identity"]["group_size"] == 2);
    CHECK(meta["cross_rank_uncertainty_ns"] == 80'000);
    CHECK(meta["rank_count"] == 2);
    CHECK(meta["trace_status"] == "complete");
    CHECK(meta["host_clock_domain_id"] == "linux-boot-id:9e3f6a20-4c1d-4b7e-a5f2-1c8d3e7b6a90");
    CHECK(meta["ranks"][1]["placement"]["outer_pid"] == 2091389);
    CHECK(meta["ranks"][1]["placement"]["slack_ns"] == 40'000);
    CHECK(meta["ranks"][0]["host_pairing"]["source"] == "pinned");
    CHECK(meta["ranks"][0]["dispatch_identity"]["host_pid"] == 2091377);

    // A pin naming the other rank's process moves it there; the sidecar of rank1 then names an
    // invocation the pin took: a contradiction.
    request.pins = {{0, 2091389, std::nullopt}};
    auto crossed = place_ranks(files, {}, request, diagnostics);
    REQUIRE_FALSE(crossed);
    CHECK_THAT(crossed.error().message, Catch::Contains("already claims"));
}

TEST_CASE("the multi-rank trace: rank pids, one host origin, every slice inside its window",
          "[l3][pairing][placement]") {
    auto tree = two_rank_tree();
    std::vector<swimlane::CaptureFiles> files = capture_files(tree);
    PlacementRequest request;
    request.root = tree.root;
    Diagnostics diagnostics;
    auto placed = place_ranks(files, {}, request, diagnostics);
    REQUIRE(placed);
    swimlane::MultiRankLayout layout;
    layout.global_origin_ns = placed->global_origin_ns;
    layout.metadata_json = multi_rank_metadata(*placed, pairing_metadata(tree), "d0", "");
    std::vector<swimlane::TraceSource> sources;
    for (const PlacedRank& r : placed->ranks) {
        layout.ranks.push_back(r.rank);
        layout.slacks_ns.push_back(r.slack_ns);
        swimlane::TraceSource s;
        s.capture = &r.loaded.capture;
        s.label = "rank" + std::to_string(r.rank);
        sources.push_back(s);
    }
    swimlane::TraceOptions options;
    options.multi_rank = &layout;
    std::ostringstream out;
    swimlane::TraceCounts counts;
    REQUIRE(swimlane::write_trace(sources, options, out, counts));
    auto trace = nlohmann::json::parse(out.str());
    CHECK(trace["metadata"]["layout"] == "containment_spliced_multi_rank");
    CHECK(trace["metadata"]["global_origin_ns"] == 918273645000);
    std::set<std::string> names;
    std::map<int, std::pair<double, double>> span;  // rank → [min ts, max end] of its slices
    for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "process_sort_index")
            CHECK(e["args"]["sort_index"] == e["pid"]);  // ranks in pid order
        if (e["ph"] == "M" && e["name"] == "process_name") {
            names.insert(std::to_string(e["pid"].get<int>()) + " " +
                         e["args"]["name"].get<std::string>());
            continue;
        }
        if (e["ph"] != "X") continue;
        int rank = e["pid"].get<int>() / 100 - 1;
        CHECK(e["args"]["rank"] == rank);  // every slice names its rank and slack
        CHECK(e["args"]["slack_ns"] == 40'000);
        double ts = e["ts"].get<double>(), end = ts + e["dur"].get<double>();
        auto [it, fresh] = span.try_emplace(rank, ts, end);
        if (!fresh) it->second = {std::min(it->second.first, ts), std::max(it->second.second, end)};
    }
    CHECK(names.count("104 rank0 / Worker View"));
    CHECK(names.count("204 rank1 / Worker View"));
    REQUIRE(span.size() == 2);
    // Device work inside each rank's runner_run window (µs from the origin): rank0's window is
    // [62, 122], rank1's [69, 129]; the host records start at 40 and 47.
    CHECK(span[0].first >= 40.0);
    CHECK(span[0].second <= 122.0);
    CHECK(span[1].first >= 47.0);
    CHECK(span[1].second <= 129.0);
}

}  // namespace l3_host_pairing_test
