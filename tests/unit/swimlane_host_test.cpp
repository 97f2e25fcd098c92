// Host-orchestration captures (swimlane.md §2.6–§2.7, §5.7, §6.2.1) and the Graph Execution
// process (§5.4): the clock-anchor mapping, the causal-composite fallback and its reasons, the
// host lanes and metadata, and the graph envelopes. Expected times are computed by hand from the
// spec's formula (tests/data/swimlane/README.md), or are upstream's unit-test expectations.

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/swimlane/reader.hpp"
#include "ptune/swimlane/trace.hpp"

namespace swimlane_host_test {

using namespace ptune;
using namespace ptune::swimlane;
using nlohmann::json;

namespace {

std::string host_data(const std::string& name) {
    auto text = io::read_file(std::string(PTUNE_TEST_DATA) + "/swimlane/host/" + name);
    REQUIRE(text.ok());
    return *text;
}

Capture read(const std::string& text, Diagnostics& diagnostics) {
    auto capture = read_capture(text, {"records.json", {}}, diagnostics);
    INFO((capture.ok() ? std::string() : capture.error().to_string()));
    REQUIRE(capture.ok());
    return std::move(*capture);
}

Capture read(const std::string& text) {
    Diagnostics diagnostics;
    return read(text, diagnostics);
}

json trace_of(const Capture& capture) {
    TraceSource source;
    source.capture = &capture;
    std::ostringstream out;
    TraceCounts counts;
    REQUIRE(write_trace(std::span(&source, 1), {}, out, counts).ok());
    return json::parse(out.str());
}

/// The X events of the trace with this name.
std::vector<json> slices_named(const json& trace, const std::string& name) {
    std::vector<json> out;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "X" && e["name"] == name) out.push_back(e);
    return out;
}

std::size_t flows_named(const json& trace, const std::string& name) {
    std::size_t n = 0;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "s" && e["name"] == name) ++n;
    return n;
}

/// Every diagnostic, one per line.
std::string messages(const Diagnostics& diagnostics) {
    std::string out;
    for (const auto& d : diagnostics.items()) out += d.to_string() + "\n";
    return out;
}

std::string reason_of(const json& records) {
    Capture capture = read(records.dump());
    CHECK(capture.clock.axis == Clock::Axis::HostComposite);
    return capture.host.alignment.reason;
}

}  // namespace

TEST_CASE("upstream's calibrated clock-alignment case gives upstream's times", "[swimlane][host]") {
    Capture capture =
        read(host_data("test_host_and_device_timestamps_use_calibrated_clock_alignment."
                       "chip_swimlane_records.json"));
    REQUIRE(capture.host_orchestration);
    CHECK(capture.host.alignment.calibrated);
    CHECK(capture.host.alignment.anchor_uncertainty_ns == 20);
    REQUIRE(capture.tasks.size() == 1);
    CHECK(capture.tasks[0].dispatch_ns == 1447);
    CHECK(capture.tasks[0].start_ns == 1550);
    REQUIRE(capture.orchestrator_phases.size() == 1);
    CHECK(capture.orchestrator_phases[0].start_ns == 0);
    CHECK(capture.orchestrator_phases[0].end_ns == 300);
    // Statistics print the converter's float µs: (map(c) − origin) / 1000.
    CHECK(capture.clock.upstream_us(capture.tasks[0].dispatch_ns) == 1.447);

    json trace = trace_of(capture);
    CHECK(trace["metadata"]["layout"] == "clock_aligned");
    CHECK(trace["metadata"]["clock_alignment"]["max_uncertainty_ns"] == 20);
    CHECK(trace["metadata"]["cross_domain_latency_available"] == true);
    auto submit = slices_named(trace, "submit(t7)");
    REQUIRE(submit.size() == 1);
    CHECK(submit[0]["pid"] == 1);
    CHECK(submit[0]["tid"] == 4000);
    CHECK(submit[0]["dur"].get<double>() == 0.3);
}

TEST_CASE("upstream's pool-larger-than-projection capture is complete", "[swimlane][host]") {
    Diagnostics diagnostics;
    Capture capture = read(host_data("test_host_capture_is_complete_when_the_pool_holds_more_than_"
                                     "the_submit_projection.chip_swimlane_records.json"),
                           diagnostics);
    CHECK(capture.host.records_complete);
    CHECK_FALSE(capture.host.alignment.calibrated);
    CHECK(capture.host.alignment.reason == "missing_clock_anchors");
    // Host records 1000–3000 and 3000–4000 ns; the device starts where they end (3 µs).
    CHECK(capture.host.seam_ns == 3000);
    REQUIRE(capture.tasks.size() == 1);
    CHECK(capture.tasks[0].dispatch_ns == 3000);  // the earliest device timestamp (B)
    CHECK(capture.tasks[0].start_ns == 13000);    // 10 cycles later at 1 MHz
    CHECK(capture.clock.upstream_us(capture.tasks[0].start_ns) == 13.0);
    CHECK(messages(diagnostics).find("missing_clock_anchors") != std::string::npos);

    json meta = trace_of(capture)["metadata"];
    CHECK(meta["host_records_complete"] == true);
    CHECK(meta["trace_status"] == "complete");
    CHECK(meta["host_capture"]["pool_records"] == 339);
    CHECK(meta["layout"] == "causal_composite");
    CHECK(meta["cross_domain_gap_unknown"] == true);
    CHECK(meta["logical_seam_us"] == 3.0);
}

TEST_CASE("clock anchors: the fastest valid sample per position, drift spread linearly",
          "[swimlane][host]") {
    Capture capture = read(host_data("calibrated.chip_swimlane_records.json"));
    const HostClockAlignment& a = capture.host.alignment;
    REQUIRE(a.calibrated);
    CHECK(a.pre_sample_idx == 1);   // 20 ns round trip beats 50 ns
    CHECK(a.post_sample_idx == 1);  // sample 0 failed (error object), though faster
    CHECK(a.anchor_uncertainty_ns == 20);
    CHECK(capture.host.origin_ns == 1500);
    CHECK(capture.host.origin_source == "metadata");

    json trace = trace_of(capture);
    auto graph = slices_named(trace, "GraphExecution(t0, 3 visible nodes)");
    REQUIRE(graph.size() == 1);
    CHECK(graph[0]["pid"] == 5);
    CHECK(graph[0]["tid"] == 5000);
    CHECK(graph[0]["ts"].get<double>() == Approx(2.402).margin(1e-9));
    CHECK(graph[0]["dur"].get<double>() == Approx(3.104).margin(1e-9));
    const json& args = graph[0]["args"];
    CHECK(args["outer_task_id"] == 0);
    CHECK(args["visible_node_count"] == 3);
    CHECK(args["visible_node_index_min"] == 0);
    CHECK(args["visible_node_index_max"] == 2);
    CHECK(args["prepare_slice_count"] == 2);
    CHECK(args["prepare_duration_us"].get<double>() == Approx(0.501).margin(1e-9));
    CHECK(args["execution_start_us"].get<double>() == Approx(3.303).margin(1e-9));
    CHECK(args["execution_duration_us"].get<double>() == Approx(2.203).margin(1e-9));

    auto upload = slices_named(trace, "graph_upload");
    REQUIRE(upload.size() == 1);
    CHECK(upload[0]["pid"] == 1);
    CHECK(upload[0]["tid"] == 4100);
    CHECK(upload[0]["cat"] == "host_h2d");
    CHECK(upload[0]["args"]["bytes"] == 4096);
    CHECK(upload[0]["ts"].get<double>() == Approx(0.5).margin(1e-9));
    CHECK(slices_named(trace, "arena_h2d").size() == 1);
    // Calibrated: the host submit of t1 points at its device dispatch.
    CHECK(flows_named(trace, "submit\u2192dispatch") == 1);

    std::map<std::pair<int, int>, std::string> names;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "thread_name")
            names[{e["pid"], e["tid"]}] = e["args"]["name"];
    CHECK(names[{1, 4000}] == "Host_0");
    CHECK(names[{1, 4100}] == "H2D");
    CHECK(names[{5, 5000}] == "Graph_0");
    std::map<int, std::string> processes;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
    CHECK(processes[1] == "Host Orchestrator");
    CHECK(processes[5] == "Graph Execution");
}

TEST_CASE("without usable anchors the device timeline follows the host timeline",
          "[swimlane][host]") {
    Capture capture = read(host_data("unaligned.chip_swimlane_records.json"));
    CHECK(capture.host.seam_ns == 1200);  // host records end at 2700 ns, origin 1500
    json trace = trace_of(capture);
    auto graph = slices_named(trace, "GraphExecution(t0, 3 visible nodes)");
    REQUIRE(graph.size() == 1);
    CHECK(graph[0]["ts"].get<double>() == Approx(1.2).margin(1e-9));  // B = first prepare
    CHECK(graph[0]["dur"].get<double>() == Approx(3.1).margin(1e-9));
    CHECK(flows_named(trace, "submit\u2192dispatch") == 0);  // no cross-domain latency
    CHECK(trace["metadata"]["clock_alignment"]["reason"] == "missing_clock_anchors");
    CHECK(trace["metadata"]["clock_alignment"]["anchor_uncertainty_ns"].is_null());
}

TEST_CASE("each reason anchors cannot calibrate is named", "[swimlane][host]") {
    json records = json::parse(host_data("calibrated.chip_swimlane_records.json"));
    json& anchors = records["metadata"]["clock_anchors"];
    SECTION("no samples") {
        anchors["samples"] = json::array();
        CHECK(reason_of(records) == "missing_clock_anchor_samples");
    }
    SECTION("device unit") {
        anchors["device_timestamp_unit"] = "device_uptime_us";
        CHECK(reason_of(records) == "unsupported_device_timestamp_unit");
    }
    SECTION("no valid start anchor") {
        for (auto& s : anchors["samples"])
            if (s["position"] == "pre_host_orchestration") s["error"] = 3;
        CHECK(reason_of(records) == "no_valid_pre_host_orchestration_anchor");
    }
    SECTION("no valid end anchor") {
        for (auto& s : anchors["samples"])
            if (s["position"] == "post_device_execution") s["device_cycles"] = 0;
        CHECK(reason_of(records) == "no_valid_post_device_execution_anchor");
    }
    SECTION("device anchors out of order") {
        for (auto& s : anchors["samples"])
            if (s["position"] == "post_device_execution") s["device_cycles"] = 50;
        CHECK(reason_of(records) == "device_anchor_order_invalid");
    }
    SECTION("host anchors out of order") {
        for (auto& s : anchors["samples"])
            if (s["position"] == "post_device_execution")
                s["host_before_ns"] = 500, s["host_after_ns"] = 510;
        CHECK(reason_of(records) == "host_anchor_order_invalid");
    }
    SECTION("a device timestamp outside the anchors") {
        records["aicpu_tasks"][3][3] = 120000;  // a finish after the end anchor (99100)
        CHECK(reason_of(records) == "device_timestamps_outside_anchor_coverage");
    }
}

TEST_CASE("device µs-uptime anchors are 1 µs less certain", "[swimlane][host]") {
    json records = json::parse(host_data("calibrated.chip_swimlane_records.json"));
    records["metadata"]["clock_anchors"]["raw_device_timestamp_unit"] = "device_uptime_us";
    Capture capture = read(records.dump());
    CHECK(capture.host.alignment.anchor_uncertainty_ns == 1020);
}

TEST_CASE("host_capture that contradicts the records is reported, not trusted",
          "[swimlane][host]") {
    json records = json::parse(host_data("calibrated.chip_swimlane_records.json"));
    records["metadata"]["host_capture"]["recorded_records"] = 5;
    Diagnostics diagnostics;
    Capture capture = read(records.dump(), diagnostics);
    CHECK_FALSE(capture.host.records_complete);
    REQUIRE(capture.host.validation_errors.size() == 1);
    CHECK(messages(diagnostics).find("recorded_records is 5") != std::string::npos);
    json meta = trace_of(capture)["metadata"];
    CHECK(meta["trace_status"] == "partial");
    CHECK(meta["host_capture"]["converter_validation_errors"].size() == 1);
}

TEST_CASE("host records before the origin are dropped and counted", "[swimlane][host]") {
    json records = json::parse(host_data("calibrated.chip_swimlane_records.json"));
    records["host_orchestrator_phases"][0][0]["start_host_ns"] = 1400;  // origin is 1500
    Capture capture = read(records.dump());
    CHECK(capture.orchestrator_phases.size() == 1);
    CHECK(capture.dropped.malformed_phases == 1);
}

TEST_CASE("host and AICPU orchestrator records together are refused", "[swimlane][host]") {
    json records = json::parse(host_data("calibrated.chip_swimlane_records.json"));
    records["aicpu_orchestrator_phases"] = json::array({json::array(
        {{{"submit_idx", 0}, {"task_id", 1}, {"start_cycles", 3100}, {"end_cycles", 3200}}})});
    Diagnostics diagnostics;
    auto capture = read_capture(records.dump(), {"records.json", {}}, diagnostics);
    REQUIRE_FALSE(capture.ok());
    CHECK(capture.error().to_string().find("ambiguous") != std::string::npos);
}

TEST_CASE("graph envelopes take first-fit lanes by prepare start", "[swimlane][graph]") {
    json records = json::parse(host_data("calibrated.chip_swimlane_records.json"));
    // A second outer task t2 prepared while t0 still runs: its node 5 ((2 << 10) | 5).
    records["aicpu_scheduler_phases"][0].push_back(
        {{"kind", "graph_prepare"}, {"task_id", 2}, {"start_cycles", 4500}, {"end_cycles", 4600}});
    records["aicore_tasks"].push_back(
        {1, (std::uint64_t{1} << 32) | (2u << 10) | 5u, 3, 7200, 7300, 0});
    records["aicpu_tasks"].push_back({1, 3, 7150, 7350});
    json trace = trace_of(read(records.dump()));
    auto second = slices_named(trace, "GraphExecution(t2, 1 visible nodes)");
    REQUIRE(second.size() == 1);
    CHECK(second[0]["tid"] == 5001);  // t0's envelope runs until 6100 cycles
    CHECK(second[0]["args"]["visible_node_index_min"] == 5);
    CHECK(slices_named(trace, "GraphExecution(t0, 3 visible nodes)")[0]["tid"] == 5000);
}

TEST_CASE("device-orchestration captures have no graph or host processes", "[swimlane][graph]") {
    auto text =
        io::read_file(std::string(PTUNE_TEST_DATA) + "/swimlane/chip_swimlane_records.json");
    REQUIRE(text.ok());
    Capture capture = read(*text);
    CHECK_FALSE(capture.host_orchestration);
    CHECK(capture.clock.axis == Clock::Axis::Device);
    json trace = trace_of(capture);
    CHECK_FALSE(trace.contains("metadata"));
    for (const auto& e : trace["traceEvents"]) CHECK(e["pid"] != 5);
}

TEST_CASE("host_capture nested deeper than it is ever written is cut, not recursed into",
          "[swimlane][host]") {
    std::string text = host_data("calibrated.chip_swimlane_records.json");
    std::string deep = std::string(100000, '[') + std::string(100000, ']');
    auto at = text.find("\"pool_records\": 64");
    REQUIRE(at != std::string::npos);
    text.replace(at, std::string("\"pool_records\": 64").size(), "\"pool_records\": " + deep);
    Capture capture = read(text);
    json meta = trace_of(capture)["metadata"];
    json kept = meta["host_capture"]["pool_records"];
    int depth = 0;
    for (; kept.is_array() && !kept.empty(); kept = kept[0]) ++depth;
    CHECK(depth == 6);  // host_capture itself is level 1 of the 8 kept
    CHECK(meta["host_capture"]["recorded_records"] == 2);
}

TEST_CASE("absolute alignment puts host captures on the shared host clock", "[swimlane][host]") {
    json later = json::parse(host_data("calibrated.chip_swimlane_records.json"));
    later["metadata"]["host_orchestration_origin_ns"] = 2500;
    for (auto& record : later["host_orchestrator_phases"][0]) {
        record["start_host_ns"] = record["start_host_ns"].get<std::int64_t>() + 1000;
        record["end_host_ns"] = record["end_host_ns"].get<std::int64_t>() + 1000;
    }
    Capture first = read(host_data("calibrated.chip_swimlane_records.json"));
    Capture second = read(later.dump());
    std::vector<TraceSource> sources(2);
    sources[0].capture = &first;
    sources[0].label = "rank0/d0";
    sources[1].capture = &second;
    sources[1].label = "rank1/d0";
    TraceOptions options;
    options.align = TimeAlign::Absolute;
    std::ostringstream out;
    TraceCounts counts;
    REQUIRE(write_trace(sources, options, out, counts).ok());
    json trace = json::parse(out.str());
    CHECK(trace["otherData"]["sources"][0]["time_offset_ns"] == 0);
    CHECK(trace["otherData"]["sources"][1]["time_offset_ns"] == 1000);
    CHECK(slices_named(trace, "submit(t0)").size() == 2);
    for (const auto& e : slices_named(trace, "submit(t0)"))
        CHECK(e["ts"].get<double>() == Approx(e["pid"] == 101 ? 0.0 : 1.0).margin(1e-9));

    // A device-orchestration capture has no host clock to share.
    auto text =
        io::read_file(std::string(PTUNE_TEST_DATA) + "/swimlane/chip_swimlane_records.json");
    REQUIRE(text.ok());
    Capture device = read(*text);
    sources[1].capture = &device;
    std::ostringstream refused;
    auto status = write_trace(sources, options, refused, counts);
    REQUIRE_FALSE(status.ok());
    CHECK(status.error().to_string().find("--align start") != std::string::npos);
}

}  // namespace swimlane_host_test
