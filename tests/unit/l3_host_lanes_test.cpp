// The host side of the multi-rank trace (ptune/l3/host_lanes.hpp, pipeline.hpp;
// upstream-2026-09.md §1.14 "pid layout"): dispatcher pids 1..10 chosen from spans of other pids
// overlapping the ranks' window (whole invocations, inv=0 spans alone), the rank host blocks at
// 11 + 3·rank + lane, the origin over every host span, the limits (10 dispatchers, 29 ranks), and
// the composed two-rank tree drawn end to end with string ids.

#include <map>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ptune/l3/host_lanes.hpp"
#include "ptune/l3/pipeline.hpp"
#include "ptune/swimlane/trace.hpp"

namespace l3_host_lanes_test {

using namespace ptune;
using namespace ptune::l3;
using swimlane::HostSpan;

namespace {

HostSpan span(std::uint64_t pid, std::uint64_t inv, std::string name, std::int64_t ts,
              std::int64_t dur, bool device = false, std::uint64_t tid = 0) {
    HostSpan s;
    s.pid = pid, s.tid = tid ? tid : pid, s.inv = inv;
    s.name = std::move(name);
    s.ts = ts, s.dur = dur, s.device = device;
    return s;
}

RankHostInput rank_input(int rank, std::uint64_t pid, std::int64_t place_lo) {
    RankHostInput r;
    r.rank = rank, r.pid = pid, r.inv = 1;
    r.place_lo_ns = place_lo, r.place_hi_ns = place_lo + 3'000, r.slack_ns = 3'000;
    r.outer_start_ns = place_lo, r.outer_duration_ns = 6'000;
    r.device_phase_zero = 0, r.device_phase_zero_host_ns = place_lo;
    r.placement_json = R"({"method":"span_containment_v1","slack_ns":3000})";
    return r;
}

/// Two chip processes (100, 200) and an L3 scheduler (300), plus noise that must stay out.
std::vector<HostSpan> two_rank_spans() {
    std::vector<HostSpan> s;
    s.push_back(span(100, 1, "chip.run", 1'000, 10'000));
    s.back().attrs = {{"run_id", "1"}, {"role", "chip"}};
    s.push_back(span(100, 1, "chip.run.prepare", 900, 50));  // before its root: still the origin
    s.push_back(span(100, 1, "chip.run.runner_run", 2'000, 6'000));
    s.push_back(span(100, 1, "chip.run.runner_run.device_wall", 0, 2'000, true));
    s.push_back(span(100, 1, "chip.run.runner_run.device_wall.sched", 700, 100, true));
    s.push_back(span(200, 1, "chip.run", 1'500, 10'000));
    s.push_back(span(200, 2, "chip.run", 50'000, 1'000));  // another invocation of a chip pid
    // The scheduler: an inv=0 loop overlapping the window (kept), one far away (left out), and
    // invocation 5 whose first span overlaps (so its far span is kept too).
    s.push_back(span(300, 0, "node.scheduler_loop", 1'200, 20'000));
    s.push_back(span(300, 0, "node.scheduler_loop", 900'000, 10));
    s.push_back(span(300, 5, "node.submit", 1'100, 10, false, 301));
    s.push_back(span(300, 5, "node.dispatch", 800'000, 10, false, 301));
    s.push_back(span(400, 3, "network1.step", 10'000'000, 10));  // never overlaps
    return s;
}

std::set<std::string> names_on(const HostLayout& layout, std::int64_t pid) {
    std::set<std::string> out;
    for (const auto& s : layout.slices)
        if (s.pid == pid) out.insert(s.name);
    return out;
}

}  // namespace

TEST_CASE("host lanes: dispatchers at 1..10, rank host blocks at 11 + 3·rank + lane",
          "[l3][host_lanes]") {
    auto layout =
        build_host_layout(two_rank_spans(), {rank_input(0, 100, 2'000), rank_input(1, 200, 2'500)});
    REQUIRE(layout);
    std::map<std::int64_t, std::string> processes;
    for (const auto& p : layout->processes) processes[p.pid] = p.name;
    CHECK(processes == std::map<std::int64_t, std::string>{{1, "dispatcher pid 300 (node)"},
                                                           {11, "rank0 / Host"},
                                                           {12, "rank0 / Device phases (placed)"},
                                                           {13, "rank0 / Placement Bound"},
                                                           {14, "rank1 / Host"},
                                                           {15, "rank1 / Device phases (placed)"},
                                                           {16, "rank1 / Placement Bound"}});
    CHECK(layout->dispatcher_pids == std::vector<std::uint64_t>{300});
    // The dispatcher: the overlapping inv=0 span, all of invocation 5, not the far inv=0 span.
    std::multiset<std::int64_t> dispatcher_starts;
    for (const auto& s : layout->slices)
        if (s.pid == 1) dispatcher_starts.insert(s.start_ns);
    CHECK(dispatcher_starts == std::multiset<std::int64_t>{1'100, 1'200, 800'000});
    // The origin: chip.run.prepare (900) precedes its root (1000) and the scheduler's first kept
    // span (1100): every host span of the paired invocation counts, not only the root.
    CHECK(layout->earliest_ns == 900);
    // Lane 0 holds the invocation's host spans only (not inv 2 of pid 200, no clk=dev span).
    CHECK(names_on(*layout, 11) ==
          std::set<std::string>{"chip.run", "chip.run.prepare", "chip.run.runner_run"});
    CHECK(names_on(*layout, 14) == std::set<std::string>{"chip.run"});
    for (const auto& s : layout->slices) CHECK(s.start_ns != 50'000);
    // Lane 1: one thread per clk=dev name, placed from the device-phase zero, named by the
    // span's last component as upstream names them (`device_wall`, `sched`).
    std::map<std::string, std::int64_t> device_tid;
    for (const auto& t : layout->threads)
        if (t.pid == 12) device_tid[t.name] = t.tid;
    CHECK(device_tid == std::map<std::string, std::int64_t>{{"device_wall", 1}, {"sched", 2}});
    bool saw_sched = false;
    for (const auto& s : layout->slices) {
        if (s.pid != 12 || s.name != "chip.run.runner_run.device_wall.sched") continue;
        saw_sched = true;
        CHECK(s.start_ns == 2'700);
        CHECK(s.tid == 2);
        CHECK(s.cat == "device_phase");
        CHECK(nlohmann::json::parse(s.args_json) ==
              nlohmann::json{{"rank", 0}, {"device_ts_ns", 700}, {"slack_ns", 3'000}});
    }
    CHECK(saw_sched);
    // Lane 2: the outer window and the slack, args = the placement metadata.
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> bound;
    for (const auto& s : layout->slices)
        if (s.pid == 16) {
            CHECK(s.cat == "containment");
            CHECK(nlohmann::json::parse(s.args_json)["method"] == "span_containment_v1");
            bound[s.name] = {s.start_ns, s.dur_ns};
        }
    CHECK(bound ==
          std::map<std::string, std::pair<std::int64_t, std::int64_t>>{
              {"chip.run.runner_run (rank1)", {2'500, 6'000}}, {"slack 3.0 us", {2'500, 3'000}}});
    std::set<std::string> bound_threads, dispatcher_threads, host_threads;
    for (const auto& t : layout->threads) {
        if (t.pid == 13) bound_threads.insert(t.name);
        if (t.pid == 1) dispatcher_threads.insert(t.name);
        if (t.pid == 11) host_threads.insert(t.name);
    }
    CHECK(bound_threads == std::set<std::string>{"outer window", "placement slack"});
    CHECK(dispatcher_threads == std::set<std::string>{"pid 300", "tid 301"});
    CHECK(host_threads == std::set<std::string>{"pid 100"});
    // Host span attrs become args (integers as numbers).
    for (const auto& s : layout->slices)
        if (s.pid == 11 && s.name == "chip.run") {
            auto args = nlohmann::json::parse(s.args_json);
            CHECK(args["run_id"] == 1);
            CHECK(args["role"] == "chip");
            CHECK(args["rank"] == 0);
        }
}

TEST_CASE("host lanes: a dispatcher earlier than every chip span sets the origin",
          "[l3][host_lanes]") {
    auto spans = two_rank_spans();
    spans.push_back(span(300, 0, "node.graph_build", 400, 700));  // overlaps the window at 900
    auto layout = build_host_layout(spans, {rank_input(0, 100, 2'000)});
    REQUIRE(layout);
    CHECK(layout->earliest_ns == 400);
    // Without dispatchers, only the invocation and the placement count.
    auto alone =
        build_host_layout({span(100, 1, "chip.run", 1'000, 10'000)}, {rank_input(0, 100, 2'000)});
    REQUIRE(alone);
    CHECK(alone->earliest_ns == 1'000);
    CHECK(alone->dispatcher_pids.empty());
    auto placed_first =
        build_host_layout({span(100, 1, "chip.run", 5'000, 10'000)}, {rank_input(0, 100, 2'000)});
    REQUIRE(placed_first);
    CHECK(placed_first->earliest_ns == 2'000);  // place_lo
}

TEST_CASE("host lanes: more than 10 dispatchers and ranks above 28 are refused",
          "[l3][host_lanes]") {
    std::vector<HostSpan> spans = {span(100, 1, "chip.run", 1'000, 10'000)};
    for (std::uint64_t pid = 500; pid < 510; ++pid)
        spans.push_back(span(pid, 0, "node.scheduler_loop", 1'500, 100));
    auto ten = build_host_layout(spans, {rank_input(0, 100, 2'000)});
    REQUIRE(ten);
    CHECK(ten->dispatcher_pids.size() == 10);
    CHECK(ten->processes.front().pid == 1);
    spans.push_back(span(510, 7, "network1.dispatch", 1'500, 100));
    auto eleven = build_host_layout(spans, {rank_input(0, 100, 2'000)});
    REQUIRE_FALSE(eleven);
    CHECK(eleven.error().code == ExitCode::InputError);
    CHECK_THAT(eleven.error().message,
               Catch::Contains("11 dispatching processes overlap the Ranks' window") &&
                   Catch::Contains("room for 10"));

    auto rank28 = build_host_layout({}, {rank_input(28, 100, 2'000)});
    REQUIRE(rank28);
    std::int64_t highest = 0;
    for (const auto& p : rank28->processes) highest = std::max(highest, p.pid);
    CHECK(highest == 97);  // 11 + 3·28 + 2, below the ranks' views at 100
    auto rank29 = build_host_layout({}, {rank_input(29, 100, 2'000)});
    REQUIRE_FALSE(rank29);
    CHECK(rank29.error().code == ExitCode::InputError);
    CHECK_THAT(rank29.error().message, Catch::Contains("at most 29 ranks"));
}

TEST_CASE("merge_ranks: the composed two-rank tree drawn with host blocks and string ids",
          "[l3][host_lanes][pipeline]") {
    auto tree =
        read_tree(std::string(PTUNE_TEST_DATA) + "/l3/l3_two_rank/dfx_outputs", {0, std::nullopt});
    REQUIRE(tree);
    MultiRankRequest request;
    request.tree = &*tree;
    for (const RankCapture& c : tree->captures) {
        swimlane::CaptureFiles f;
        f.records = c.records;
        f.rank = c.rank;
        f.label = c.label;
        request.captures.push_back(f);
    }
    request.dispatch = "d0";
    Diagnostics diagnostics;
    auto merged = merge_ranks(request, diagnostics);
    REQUIRE(merged);
    REQUIRE(*merged);
    MultiRankMerge& m = **merged;
    REQUIRE(m.loaded.size() == 2);
    CHECK(m.loaded[1].files.label == "rank1");
    CHECK(m.layout.global_origin_ns == 918273645000);  // rank0's root chip.run
    std::vector<swimlane::TraceSource> sources;
    for (const auto& l : m.loaded) {
        swimlane::TraceSource s;
        s.capture = &l.capture;
        s.deps = l.deps_or_null();
        s.label = l.files.label;
        sources.push_back(s);
    }
    swimlane::TraceOptions options;
    options.multi_rank = &m.layout;
    std::ostringstream out;
    swimlane::TraceCounts counts;
    REQUIRE(swimlane::write_trace(sources, options, out, counts));
    auto trace = nlohmann::json::parse(out.str());
    CHECK(trace["metadata"]["dispatcher_pids"] == nlohmann::json::array());
    std::map<int, std::string> processes;
    std::map<int, std::set<std::string>> threads;
    std::size_t ids = 0, host_slices = 0;
    for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "process_name")
            processes[e["pid"].get<int>()] = e["args"]["name"];
        if (e["ph"] == "M" && e["name"] == "thread_name")
            threads[e["pid"].get<int>()].insert(e["args"]["name"].get<std::string>());
        for (const char* key : {"id", "bind_id"})
            if (e.contains(key)) {
                ++ids;
                int rank = e["pid"].get<int>() / 100 - 1;
                REQUIRE(e[key].is_string());
                CHECK(e[key].get<std::string>().rfind("r" + std::to_string(rank) + ":", 0) == 0);
            }
        if (e["ph"] == "X" && e["pid"].get<int>() < 100) {
            ++host_slices;
            CHECK(e["ts"].get<double>() >= 0.0);
            // Host spans carry their attrs; device phases and bounds name the slack.
            CHECK(e["args"].contains("slack_ns") == (e["cat"] != "host"));
            CHECK(e["args"].contains("rank") == (e["cat"] != "containment"));
        }
    }
    CHECK(ids > 0);
    // Per rank (host.<pid>.log): 6 host spans, 3 device phases, and 2 bound slices.
    CHECK(host_slices == 2 * (6 + 3 + 2));
    CHECK(processes[11] == "rank0 / Host");
    CHECK(processes[15] == "rank1 / Device phases (placed)");
    CHECK(processes[16] == "rank1 / Placement Bound");
    CHECK(processes[204] == "rank1 / Worker View");
    CHECK_FALSE(processes.count(1));  // the fixture has no scheduler log
    // As upstream's l3_swimlane.json (fixtures/upstream-2026-09/expected/l3_two_rank): nested
    // host spans stay on the invocation's one thread (no `pid N#1` overflow lanes), and the
    // device-phase threads are named device_wall / preamble / sched.
    CHECK(threads[11] == std::set<std::string>{"pid 2091377"});
    CHECK(threads[14] == std::set<std::string>{"pid 2091389"});
    CHECK(threads[12] == std::set<std::string>{"device_wall", "preamble", "sched"});

    // The protobuf trace draws the same host blocks; a bound slice's args are one string.
    options.format = swimlane::TraceFormat::Proto;
    std::ostringstream proto;
    REQUIRE(swimlane::write_trace(sources, options, proto, counts));
    const std::string bytes = proto.str();
    for (const char* text :
         {"rank1 / Placement Bound", "rank0 / Device phases (placed)", "placement slack",
          "slack 40.0 us", "chip.run.runner_run (rank1)", "\"method\":\"span_containment_v1\""})
        CHECK(bytes.find(text) != std::string::npos);
}

TEST_CASE("host spans for the lanes: every kind, only the invocations asked for",
          "[l3][host_lanes]") {
    const std::string text =
        "[STRACE] v=1 pid=7 tid=7 inv=1 hid=a depth=1 name=chip.run.bind ts=100 dur=5 bytes=64\n"
        "[STRACE] v=1 pid=7 tid=7 inv=2 hid=a depth=1 name=chip.run.bind ts=900 dur=5\n"
        "[STRACE] v=1 pid=9 tid=9 inv=0 hid=b depth=0 name=node.scheduler_loop ts=50 dur=500\n";
    swimlane::HostSpanLog alignment_only;
    swimlane::read_host_spans(text, alignment_only);
    CHECK(alignment_only.spans.empty());  // placement reads none of these kinds
    swimlane::HostSpanLog lanes;
    lanes.all_spans = true;
    lanes.keep = [](std::uint64_t pid, std::uint64_t inv) { return pid != 7 || inv == 1; };
    swimlane::read_host_spans(text, lanes);
    REQUIRE(lanes.spans.size() == 2);
    CHECK(lanes.spans[0].name == "chip.run.bind");
    CHECK(lanes.spans[0].inv == 1);
    CHECK(lanes.spans[0].int_attr("bytes") == 64);
    CHECK(lanes.spans[1].name == "node.scheduler_loop");
}

}  // namespace l3_host_lanes_test
