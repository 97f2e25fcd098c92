// The --overhead counters (swimlane.md §5.4, §10.2) on small hand-made captures whose samples
// are worked out below from the model's definition; the upstream reference run of the composed
// sample is compared in swimlane_trace_test.cpp.

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ptune/swimlane/reader.hpp"
#include "ptune/swimlane/trace.hpp"

namespace swimlane_overhead_test {

using namespace ptune;
using namespace ptune::swimlane;
using nlohmann::json;

namespace {

// 1 GHz, so ticks are ns. Cores: 0 AIC, 1 and 2 AIV.
//   A (id 1): core 0, dispatch 90, kernel [100, 200)
//   B (id 2): core 1, dispatch 300, kernel [310, 400); pred A → ready [200, 300) on AIV
//   C (id 3): MIX, core 0 dispatch 250 kernel [260, 350), core 2 dispatch 270 kernel [280, 380);
//             pred A → ready from 200 to its first dispatch 250, on AIC and on AIV
// The time origin is the smallest positive timestamp, A's dispatch (90).
constexpr const char* kRecords = R"({"chip_swimlane_level": 2,
  "metadata": {"clock_freq_hz": 1000000000, "core_types": ["aic", "aiv", "aiv"]},
  "aicore_tasks": [[0, 1, 1, 100, 200, 0], [0, 3, 2, 260, 350, 0], [1, 2, 1, 310, 400, 0],
                   [2, 3, 1, 280, 380, 0]],
  "aicpu_tasks": [[0, 1, 90, 210], [0, 2, 250, 360], [1, 1, 300, 410], [2, 1, 270, 390]]})";
constexpr const char* kDeps = R"({"tasks": [
  {"task_id": "1", "kernel_ids": [0, -1, -1], "block_num": 1},
  {"task_id": "2", "kernel_ids": [-1, 1, -1], "block_num": 1},
  {"task_id": "3", "kernel_ids": [2, 3, 3], "block_num": 1}],
  "edges": [{"pred": "1", "succ": "2"}, {"pred": "1", "succ": "3"}, {"pred": "1", "succ": "3"}]})";
constexpr std::int64_t kOrigin = 90;

struct Sample {
    std::int64_t ns;
    std::string name;
    std::int64_t value;
    bool operator==(const Sample&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Sample& s) {
    return os << s.ns << ' ' << s.name << '=' << s.value;
}

/// The overhead samples of a JSON trace, in file order (ns rebased to raw ticks).
std::vector<Sample> samples(const json& trace) {
    std::vector<Sample> out;
    for (const auto& e : trace["traceEvents"]) {
        if (e.value("cat", "") != "overhead") continue;
        CHECK(e["ph"] == "C");
        CHECK(e["pid"] == 2);
        std::string name = e["name"];
        auto ns = std::llround(e["ts"].get<double>() * 1000);
        out.push_back({ns + kOrigin, name, e["args"][name].get<std::int64_t>()});
    }
    return out;
}

json render(const Capture& capture, const Deps* deps, bool overhead) {
    TraceSource source;
    source.capture = &capture;
    source.deps = deps;
    TraceOptions options;
    options.overhead = overhead;
    std::ostringstream out;
    TraceCounts counts;
    REQUIRE(write_trace({&source, 1}, options, out, counts).ok());
    return json::parse(out.str());
}

struct Fixture {
    Capture capture;
    Deps deps;
    Fixture(const char* records = kRecords) {
        Diagnostics diagnostics;
        auto c = read_capture(records, {"records.json", {}}, diagnostics);
        REQUIRE(c.ok());
        capture = std::move(*c);
        auto d = read_deps(kDeps, "deps.json", diagnostics);
        REQUIRE(d.ok());
        deps = std::move(*d);
        apply_deps(capture, deps);
    }
};

}  // namespace

TEST_CASE("overhead counters: idle cores, ready work, MIX on both types", "[swimlane][overhead]") {
    Fixture f;
    json trace = render(f.capture, &f.deps, true);
    // W = [100, 400]; a sample at W's start for every series, then one per change, none at 400.
    std::vector<Sample> expected = {
        {100, "oh_aic_idle", 0},
        {100, "oh_aic_ready", 0},
        {100, "oh_aic_overhead", 0},
        {100, "oh_aiv_idle", 2},
        {100, "oh_aiv_ready", 0},
        {100, "oh_aiv_overhead", 0},
        {100, "oh_all_overhead", 0},
        {100, "oh_has_overhead", 0},
        // A ends: the AIC core idles; C is ready on both types, B on AIV.
        {200, "oh_aic_idle", 1},
        {200, "oh_aic_ready", 1},
        {200, "oh_aic_overhead", 1},
        {200, "oh_aiv_ready", 2},
        {200, "oh_aiv_overhead", 1},
        {200, "oh_all_overhead", 1},
        {200, "oh_has_overhead", 1},
        // C dispatched: only B is still waiting, on AIV, where cores are idle.
        {250, "oh_aic_ready", 0},
        {250, "oh_aic_overhead", 0},
        {250, "oh_aiv_ready", 1},
        {250, "oh_all_overhead", 0},
        {260, "oh_aic_idle", 0},
        {280, "oh_aiv_idle", 1},
        // B dispatched: nothing ready any more.
        {300, "oh_aiv_ready", 0},
        {300, "oh_aiv_overhead", 0},
        {300, "oh_has_overhead", 0},
        {310, "oh_aiv_idle", 0},
        {350, "oh_aic_idle", 1},
        {380, "oh_aiv_idle", 1},
    };
    CHECK(samples(trace) == expected);
    // The series have no thread_name (as upstream): they are bare counters on pid 2.
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "M" && e.contains("tid"))
            CHECK_FALSE(e["tid"].get<std::int64_t>() / 100 == 91);
    // pid 2 gets its process name although this level-2 capture has no scheduler phases.
    bool named = false;
    for (const auto& e : trace["traceEvents"])
        if (e["name"] == "process_name" && e["pid"] == 2)
            named = e["args"]["name"] == "AICPU Scheduler";
    CHECK(named);
}

TEST_CASE("overhead counters: only when asked and when there is a task graph",
          "[swimlane][overhead]") {
    Fixture f;
    CHECK(samples(render(f.capture, &f.deps, false)).empty());
    CHECK(samples(render(f.capture, nullptr, true)).empty());
    Deps no_edges = f.deps;
    no_edges.edges.clear();
    TraceSource source;
    source.capture = &f.capture;
    source.deps = &no_edges;
    CHECK_FALSE(has_task_graph(source));
    CHECK(samples(render(f.capture, &no_edges, true)).empty());
}

TEST_CASE("overhead counters: a type without cores has no series", "[swimlane][overhead]") {
    // B alone on its AIV core; A's row is left out, so B falls back to its own dispatch: never
    // ready before it, and the counters only show the idle core.
    Fixture f(R"({"chip_swimlane_level": 2,
      "metadata": {"clock_freq_hz": 1000000000, "core_types": ["aic", "aiv"]},
      "aicore_tasks": [[1, 2, 1, 310, 400, 0]], "aicpu_tasks": [[1, 1, 90, 410]]})");
    std::vector<Sample> got = samples(render(f.capture, &f.deps, true));
    std::vector<Sample> expected = {{310, "oh_aiv_idle", 0},
                                    {310, "oh_aiv_ready", 0},
                                    {310, "oh_aiv_overhead", 0},
                                    {310, "oh_all_overhead", 0},
                                    {310, "oh_has_overhead", 0}};
    CHECK(got == expected);
}

TEST_CASE("overhead counters: one set per capture in its own process group",
          "[swimlane][overhead]") {
    Fixture a, b;
    TraceSource sources[2];
    for (auto [source, fixture, label] :
         {std::tuple{&sources[0], &a, "rank0/d0"}, std::tuple{&sources[1], &b, "rank1/d0"}}) {
        source->capture = &fixture->capture;
        source->deps = &fixture->deps;
        source->label = label;
    }
    sources[1].deps = nullptr;  // no graph: no counters for the second capture
    TraceOptions options;
    options.overhead = true;
    std::ostringstream out;
    TraceCounts counts;
    REQUIRE(write_trace(sources, options, out, counts).ok());
    json trace = json::parse(out.str());
    std::map<std::int64_t, int> per_pid;
    for (const auto& e : trace["traceEvents"])
        if (e.value("cat", "") == "overhead") ++per_pid[e["pid"].get<std::int64_t>()];
    CHECK(per_pid == std::map<std::int64_t, int>{{102, 27}});
    CHECK(counts.counters == 27);
}

}  // namespace swimlane_overhead_test
