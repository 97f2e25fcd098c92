// September-2026 records (upstream-2026-09.md §1): runtime and task labels, run_epoch and
// detected runs, scheduler streams and measured idle, lifecycle records, clock alignment by
// span containment (the worked example of §1.12.3) and saved-record validation.

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/swimlane/analyze.hpp"
#include "ptune/swimlane/containment.hpp"
#include "ptune/swimlane/pipeline.hpp"
#include "ptune/swimlane/reader.hpp"
#include "ptune/swimlane/trace.hpp"

namespace swimlane_upstream_test {

using namespace ptune;
using namespace ptune::swimlane;

namespace {

std::string fixture(const std::string& name) {
    auto text = io::read_file(std::string(PTUNE_TEST_DATA) + "/swimlane/upstream-2026-09/" + name);
    REQUIRE(text.ok());
    return *text;
}

Capture read_ok(const std::string& json, Diagnostics& diagnostics, ReadOptions options = {}) {
    if (options.source_name.empty()) options.source_name = "records.json";
    auto capture = read_capture(json, options, diagnostics);
    INFO((capture.ok() ? std::string() : capture.error().to_string()));
    REQUIRE(capture.ok());
    return std::move(capture).value();
}

bool has_message(const Diagnostics& diagnostics, const std::string& needle) {
    for (const auto& item : diagnostics.items())
        if (item.message.find(needle) != std::string::npos) return true;
    return false;
}

HostAlignmentInput windows_of(const std::string& log) {
    HostSpanLog spans;
    read_host_spans(log, spans);
    HostAlignmentInput input;
    input.windows = host_windows(spans.spans);
    input.logs = {"host.log"};
    return input;
}

// The log of the §1.12.3 worked example (with an optional launch marker).
std::string worked_example_log(bool launch) {
    std::string log =
        "[STRACE] v=1 pid=7 tid=7 inv=1 hid=0 depth=1 name=chip.run.runner_run ts=2000000 "
        "dur=5000 \n"
        "[STRACE] v=1 pid=7 tid=7 inv=1 hid=0 depth=2 name=chip.run.runner_run.device_wall ts=0 "
        "dur=2000 clk=dev\n"
        "[STRACE] v=1 pid=7 tid=7 inv=1 hid=0 depth=3 name=chip.run.runner_run.device_wall.sched "
        "ts=700 dur=500 clk=dev\n"
        "[STRACE] v=1 pid=7 tid=7 inv=1 hid=0 depth=0 name=chip.run ts=999000 dur=1010000 \n";
    if (launch)
        log +=
            "[STRACE] v=1 pid=7 tid=7 inv=1 hid=0 depth=2 name=chip.run.runner_run.aicpu_launch "
            "ts=2002500 dur=0 \n";
    return log;
}

}  // namespace

TEST_CASE("task labels follow the runtime", "[swimlane][upstream]") {
    const std::uint64_t sub = (std::uint64_t{1} << 62) | (std::uint64_t{2} << 32) | 0;
    const std::uint64_t param = (std::uint64_t{2} << 62) | 3;
    CHECK(task_display(5, TaskLabels::HostBuildGraph) == "t5");
    CHECK(task_display(sub, TaskLabels::HostBuildGraph) == "g2t0");
    CHECK(task_display(sub + 2, TaskLabels::HostBuildGraph) == "g2t2");
    CHECK(task_display(param, TaskLabels::HostBuildGraph) == "p3");
    CHECK(task_display((std::uint64_t{3} << 62) | 4, TaskLabels::HostBuildGraph) == "t4");
    CHECK(task_display(5, TaskLabels::Ring) == "r0t5");
    CHECK(task_display((std::uint64_t{1} << 32) | 3, TaskLabels::Ring) == "r1t3");
    // Older files keep the older rule.
    CHECK(task_display(5) == "t5");
    CHECK(task_display((std::uint64_t{1} << 32) | 3) == "r1t3");
    // The longest labels fit the room writers give them (kMaxTaskLabel).
    const std::uint64_t widest_sub =
        (std::uint64_t{1} << 62) | (std::uint64_t{0xFFFFF} << 32) | 0xFFFFFFFFu;
    CHECK(task_display(widest_sub, TaskLabels::HostBuildGraph) == "g1048575t4294967295");
    CHECK(task_display((std::uint64_t{0xFF} << 32) | 0xFFFFFFFFu) == "r255t4294967295");
    for (std::uint64_t id :
         {widest_sub, (std::uint64_t{0xFF} << 32) | 0xFFFFFFFFu, ~std::uint64_t{0}})
        for (TaskLabels labels :
             {TaskLabels::Legacy, TaskLabels::Ring, TaskLabels::HostBuildGraph}) {
            char room[kMaxTaskLabel];
            const std::string label(room, write_task_label(room, id, labels));
            CHECK(label == task_display(id, labels));
            CHECK(label.size() <= kMaxTaskLabel);
        }
}

TEST_CASE("span containment: the worked example of §1.12.3", "[swimlane][upstream][containment]") {
    HostAlignmentInput input = windows_of(worked_example_log(false));
    REQUIRE(input.windows.size() == 1);
    const HostWindow& w = input.windows[0];
    CHECK(w.has_runner);
    CHECK(w.has_device_wall);
    CHECK(w.has_root);
    CHECK_FALSE(w.identity);
    REQUIRE(w.sub_phases.size() == 1);

    // cycle(ns) = 1 000 000 + ns at 1 GHz; extent = the aicpu dispatch record 300..700.
    CaptureExtent extent;
    extent.freq_hz = 1'000'000'000;
    extent.has_extent = true;
    extent.first = 1'000'300;
    extent.last = 1'000'700;
    extent.sched = std::pair<std::int64_t, std::int64_t>{1'000'300, 1'000'700};
    extent.host_records = std::pair<std::int64_t, std::int64_t>{1'000'000, 1'001'000};

    SECTION("without a launch marker") {
        ContainmentAlignment a = align_by_containment(input, extent);
        INFO(a.reason);
        REQUIRE(a.bounded());
        CHECK(a.device_anchor_cycles == 1'000'300);
        CHECK(a.host_anchor_ns == 2'000'750);
        CHECK(a.host_anchor_min_ns == 2'000'700);
        CHECK(a.host_anchor_max_ns == 2'003'800);
        CHECK(a.bound_ns() == 3100);
        CHECK(a.record_json() ==
              R"({"status":"bounded","device_anchor_cycles":1000300,"host_anchor_ns":2000750,)"
              R"("host_anchor_min_ns":2000700,"host_anchor_max_ns":2003800})");
        auto placement = nlohmann::json::parse(a.placement_json);
        CHECK(placement["method"] == "span_containment_v1");
        CHECK(placement["slack_ns"] == 3000);
        CHECK(placement["outer_slack_ns"] == 3000);
        CHECK(placement["join"]["residual_ns"] == 100);
        CHECK(placement["join"]["sources"] == nlohmann::json({"sched", "device_wall"}));
        CHECK_FALSE(placement.contains("aicpu_launch_ns"));
    }
    SECTION("with the launch marker at 2002500") {
        input = windows_of(worked_example_log(true));
        ContainmentAlignment a = align_by_containment(input, extent);
        REQUIRE(a.bounded());
        CHECK(a.host_anchor_ns == 2'003'250);
        CHECK(a.host_anchor_min_ns == 2'003'200);
        CHECK(a.host_anchor_max_ns == 2'003'800);
        auto placement = nlohmann::json::parse(a.placement_json);
        CHECK(placement["place_lo_ns"] == 2'002'500);
        CHECK(placement["aicpu_launch_ns"] == 2'002'500);
        CHECK(placement["causal_constraint"] == "aicpu_launch<=device_start");
    }
    SECTION("the same at 50 MHz, cycle(ns) = 1 000 000 + ns/20") {
        extent.freq_hz = 50'000'000;
        extent.first = 1'000'015;
        extent.last = 1'000'035;
        extent.sched = std::pair<std::int64_t, std::int64_t>{1'000'015, 1'000'035};
        ContainmentAlignment a = align_by_containment(input, extent);
        REQUIRE(a.bounded());
        CHECK(a.device_anchor_cycles == 1'000'015);
        CHECK(a.host_anchor_ns == 2'000'750);
        CHECK(a.host_anchor_min_ns == 2'000'700);
        CHECK(a.host_anchor_max_ns == 2'003'800);
    }
    SECTION("windows that do not fit") {
        CHECK(align_by_containment(HostAlignmentInput{}, extent).reason == "no Host log available");
        extent.host_records = std::pair<std::int64_t, std::int64_t>{1, 2};  // outside chip.run
        CHECK(align_by_containment(input, extent).reason ==
              "no matching Host runner_run/device_wall windows");
        extent.host_records.reset();
        input.sidecar = DispatchIdentity{std::int64_t{8}, std::nullopt};
        CHECK(align_by_containment(input, extent).reason ==
              "no matching Host runner_run/device_wall windows");
        input.sidecar.reset();
        HostAlignmentInput two = windows_of(
            worked_example_log(false) +
            "[STRACE] v=1 pid=7 tid=7 inv=2 hid=0 depth=1 name=chip.run.runner_run ts=3000000 "
            "dur=5000 \n[STRACE] v=1 pid=7 tid=7 inv=2 hid=0 depth=2 "
            "name=chip.run.runner_run.device_wall ts=0 dur=2000 clk=dev\n");
        CHECK(align_by_containment(two, extent).reason ==
              "capture does not uniquely identify a Host invocation");
    }
    SECTION("device work wider than the runner window") {
        HostWindow narrow = input.windows[0];
        narrow.device_wall_dur = 6000;  // 6 us of device wall in a 5 us runner window
        auto placed = place_in_window(narrow, extent);
        REQUIRE_FALSE(placed.ok());
        CHECK(placed.error().message ==
              "pid 7 inv 1 draws 6.000 us of device work but its chip.run.runner_run window is "
              "only 5.000 us wide");
        extent.last = 1'006'000;  // records reaching past what device_wall allows
        CHECK(align_by_containment(input, extent).reason ==
              "pid 7 inv 1 and this capture cannot describe one run: the device windows they "
              "report do not overlap");
    }
    SECTION("a launch marker on the device clock is invalid") {
        input = windows_of(worked_example_log(false) +
                           "[STRACE] v=1 pid=7 tid=7 inv=1 hid=0 depth=2 "
                           "name=chip.run.runner_run.aicpu_launch ts=10 dur=0 clk=dev\n");
        CHECK(
            align_by_containment(input, extent).reason.starts_with("invalid AICPU launch marker"));
    }
}

TEST_CASE("host spans: envelopes, two records on one line, torn records", "[swimlane][upstream]") {
    HostSpanLog log;
    read_host_spans(
        "[mono_ns=5][T0x1][TIMING] emit_host_span: [STRACE] v=1 pid=3 tid=3 inv=1 hid=ab depth=0 "
        "name=chip.run ts=100 dur=50 run_id=1 dispatch_id=2 slot_id=0 generation=1 run_epoch=5 "
        "[STRACE] v=1 pid=3 tid=3 inv=1 hid=ab depth=1 name=chip.run.runner_run ts=110 dur=20 \n"
        "[STRACE] v=1 pid=3 tid=3 inv=1 hid=ab depth=1 name=chip.run.runner_ru~\n"
        "[STRACE] v=1 pid=3 tid=3 inv=1 hid=ab depth=1 name=node.submit ts=1 dur=1 \n",
        log);
    REQUIRE(log.spans.size() == 2);  // node.* spans carry nothing alignment uses
    CHECK(log.torn == 1);
    std::vector<HostWindow> windows = host_windows(log.spans);
    REQUIRE(windows.size() == 1);
    REQUIRE(windows[0].identity);
    CHECK(*windows[0].identity == std::array<std::int64_t, 4>{1, 2, 0, 1});
    CHECK(windows[0].runner_start == 110);
}

TEST_CASE("saved clock_alignment is validated as §1.12.2 says", "[swimlane][upstream]") {
    bool valid = false;
    auto check = [&](const std::string& json, const std::string& reason) {
        ContainmentAlignment a = validate_saved_alignment(json, 1'000'000'000, valid);
        CHECK_FALSE(valid);
        CHECK(a.reason == reason);
    };
    check("[1]", "clock_alignment must be an object");
    check(R"({"status":"calibrated"})", "unsupported clock_alignment status");
    check(
        R"({"status":"bounded","device_anchor_cycles":1.5,"host_anchor_ns":2,"host_anchor_min_ns":1,"host_anchor_max_ns":3})",
        "clock_alignment anchors and bounds must be integers");
    check(
        R"({"status":"bounded","device_anchor_cycles":1,"host_anchor_ns":5,"host_anchor_min_ns":6,"host_anchor_max_ns":9})",
        "invalid clock_alignment bounds");
    check(
        R"({"status":"bounded","device_anchor_cycles":0,"host_anchor_ns":5,"host_anchor_min_ns":4,"host_anchor_max_ns":9})",
        "invalid clock_alignment bounds");
    ContainmentAlignment a = validate_saved_alignment(
        R"({"status":"bounded","device_anchor_cycles":10,"host_anchor_ns":5,"host_anchor_min_ns":4,"host_anchor_max_ns":9})",
        0, valid);
    CHECK_FALSE(valid);
    CHECK(a.reason == "capture metadata has no usable clock_freq_hz");
    a = validate_saved_alignment(
        R"({"status":"bounded","device_anchor_cycles":10,"host_anchor_ns":5,"host_anchor_min_ns":4,"host_anchor_max_ns":9})",
        50'000'000, valid);
    CHECK(valid);
    CHECK(a.bounded());
    CHECK(a.bound_ns() == 5);
    a = validate_saved_alignment(R"({"status":"unavailable","reason":"no Host log available"})",
                                 50'000'000, valid);
    CHECK(valid);
    CHECK(a.reason == "no Host log available");
}

TEST_CASE("the worked example through the reader: mapping on the host axis",
          "[swimlane][upstream][containment]") {
    const std::string records = R"({"chip_swimlane_level": 3, "metadata": {
        "runtime": "host_build_graph", "clock_freq_hz": 1000000000, "num_cores": 1,
        "core_types": ["aic"], "orchestrator_source": "host",
        "host_orchestration_origin_ns": 1000000},
      "aicore_tasks": [[0, 0, 1, 1000500, 1000600, 0, 1]],
      "scheduler_tasks": {"producer": "aicpu", "records": [[0, 1, 1000400, 1000650, 1]]},
      "scheduler_records": {"streams": [{"platform": "a2a3", "producer": "aicpu", "scheduler_id": 0,
        "worker_id": 0, "core_type": "aicpu", "physical_core_id": null,
        "capture": {"committed": 1, "dropped": 0, "truncated": false}, "records": [
        {"start_cycles": 1000300, "end_cycles": 1000700, "run_epoch": 1, "loop_iter": 1,
         "kind": "dispatch", "tasks_processed": 1, "task_id": null}], "metrics": []}]},
      "host_orchestrator_phases": [[{"submit_idx": 0, "task_id": 0, "start_host_ns": 1000000,
        "end_host_ns": 1001000}]]})";
    HostAlignmentInput input = windows_of(worked_example_log(false));
    Diagnostics diagnostics;
    ReadOptions options;
    options.host_alignment = &input;
    Capture capture = read_ok(records, diagnostics, options);
    REQUIRE(capture.clock_alignment.bounded());
    CHECK(capture.clock_alignment.host_anchor_ns == 2'000'750);
    CHECK(capture.clock.axis == Clock::Axis::HostPlaced);
    REQUIRE(capture.tasks.size() == 1);
    // start cycle 1000500 → host 2000750 + 200 ns, minus the host origin 1000000.
    CHECK(capture.tasks[0].start_ns == 1'000'950);
    CHECK(capture.tasks[0].dispatch_ns == 1'000'850);
    CHECK(capture.tasks[0].run_epoch == 1);
    CHECK(capture.orchestrator_phases[0].start_ns == 0);

    SECTION("a saved bounded record is used without logs") {
        std::string saved = records;
        saved.replace(
            saved.find("\"host_orchestration_origin_ns\": 1000000"), 39,
            R"("host_orchestration_origin_ns": 1000000, "clock_alignment": {"status":"bounded","device_anchor_cycles":1000300,"host_anchor_ns":2000750,"host_anchor_min_ns":2000700,"host_anchor_max_ns":2003800})");
        Capture again = read_ok(saved, diagnostics);
        CHECK(again.clock_alignment.source == "saved");
        CHECK(again.tasks[0].start_ns == 1'000'950);
    }
    SECTION("no logs, no saved record: unavailable and the causal seam") {
        Diagnostics quiet;
        Capture alone = read_ok(records, quiet);
        CHECK(alone.clock_alignment.status == ContainmentAlignment::Status::Unavailable);
        CHECK(alone.clock_alignment.reason == "no Host log available");
        CHECK(alone.clock.axis == Clock::Axis::HostComposite);
        CHECK(has_message(quiet, "clock alignment skipped: no Host log available"));
    }
    SECTION("an invalid saved record is ignored with a warning") {
        std::string saved = records;
        saved.replace(saved.find("\"host_orchestration_origin_ns\": 1000000"), 39,
                      R"("host_orchestration_origin_ns": 1000000, "clock_alignment": "yes")");
        Diagnostics warned;
        Capture again = read_ok(saved, warned, options);
        CHECK(has_message(warned,
                          "ignoring saved clock alignment: clock_alignment must be an object"));
        CHECK(again.clock_alignment.bounded());  // recomputed from the logs
        CHECK(again.clock_alignment.source == "host logs");
    }
}

TEST_CASE("runtime: named, refused, inferred", "[swimlane][upstream]") {
    Diagnostics diagnostics;
    auto with_runtime = [](const std::string& runtime_json) {
        return R"({"chip_swimlane_level": 1, "metadata": {)" + runtime_json +
               R"("clock_freq_hz": 1000000000, "core_types": ["aic"]},
               "aicore_tasks": [[0, 5, 1, 100, 200, 10]]})";
    };
    Capture tmr = read_ok(with_runtime(R"("runtime": "tensormap_and_ringbuffer", )"), diagnostics);
    CHECK(tmr.runtime_given);
    CHECK(tmr.labels == TaskLabels::Ring);
    Capture old = read_ok(with_runtime(""), diagnostics);
    CHECK_FALSE(old.runtime_given);
    CHECK(old.labels == TaskLabels::Legacy);
    CHECK(old.runtime == Runtime::TensormapAndRingbuffer);
    auto bad = read_capture(with_runtime(R"("runtime": "aicpu_build_graph", )"),
                            ReadOptions{"r.json", {}, nullptr}, diagnostics);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message ==
          "metadata.runtime is 'aicpu_build_graph', which this tool does not decode; expected "
          "'host_build_graph' or 'tensormap_and_ringbuffer'");
    // An id in host_build_graph space 1 → inferred host_build_graph with its labels.
    Capture inferred =
        read_ok(R"({"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 1000000000,
        "core_types": ["aic"]}, "aicore_tasks": [[0, 4611686027017322496, 1, 100, 200, 10]]})",
                diagnostics);
    CHECK_FALSE(inferred.runtime_given);
    CHECK(inferred.runtime == Runtime::HostBuildGraph);
    CHECK(task_display(inferred.tasks[0].task_id, inferred.labels) == "g2t0");
}

TEST_CASE("runs: by run_epoch, or detected when task ids repeat", "[swimlane][upstream][runs]") {
    Diagnostics diagnostics;
    SECTION("two epochs in one file") {
        Capture capture =
            read_ok(R"({"chip_swimlane_level": 2, "metadata": {"clock_freq_hz": 1000000000,
            "core_types": ["aic", "aiv"]},
            "aicore_tasks": [[0, 5, 1, 100, 200, 10, 1], [1, 6, 1, 150, 250, 10, 1],
                             [0, 5, 1, 900, 1000, 10, 2], [1, 6, 1, 950, 1050, 10, 2]],
            "scheduler_tasks": {"producer": "aicpu", "records": [[0, 1, 80, 210, 1], [1, 1, 120, 260, 1],
                             [0, 1, 880, 1010, 2], [1, 1, 920, 1060, 2]]}})",
                    diagnostics);
        REQUIRE(capture.runs.size() == 2);
        CHECK(capture.runs[0].epoch == 1);
        CHECK(capture.runs[1].epoch == 2);
        CHECK(capture.runs[0].tasks == 2);
        REQUIRE(capture.tasks.size() == 4);
        CHECK(capture.tasks[0].run_epoch == 1);
        CHECK(capture.tasks[2].run_epoch == 2);
        // Joined on (epoch, core, reg): the second run's rows got the second run's dispatch.
        CHECK(capture.tasks[2].dispatch_ns == 880 - 80);
    }
    SECTION("no epochs, same ids after all cores fell idle: two runs") {
        Capture capture =
            read_ok(R"({"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 1000000000,
            "core_types": ["aic", "aiv"]},
            "aicore_tasks": [[0, 5, 1, 100, 200, 10], [1, 6, 1, 150, 250, 10],
                             [0, 5, 1, 42000100, 42000200, 10], [1, 6, 1, 42000150, 42000250, 10]]})",
                    diagnostics);
        REQUIRE(capture.runs.size() == 2);
        CHECK(capture.runs[0].epoch == kNoEpoch);
        CHECK(capture.runs[1].tasks == 2);
        CHECK(has_message(diagnostics, "2 runs in one records file without run_epoch"));
        // Analysed per run: each run's task 5 is 100 ns, never one 42 ms task.
        LoadedCapture loaded;
        loaded.capture = capture;
        auto runs = analyze_runs(loaded, {});
        REQUIRE(runs.size() == 2);
        CHECK(runs[0].analysis.tasks == 2);
        CHECK(runs[1].analysis.tasks == 2);
        CHECK(runs[0].run_label == "run 1 of 2");
        CHECK(runs[1].analysis.window_us < 1.0);
    }
    SECTION("an id seen in an earlier run only is no repeat of the current one") {
        // Run 1 has tasks 5 and 6; task 5 again starts run 2; task 6, far later, repeats run 1
        // but not run 2, so it stays in run 2.
        Capture capture =
            read_ok(R"({"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 1000000000,
            "core_types": ["aic", "aiv"]},
            "aicore_tasks": [[0, 5, 1, 100, 200, 10], [1, 6, 1, 150, 250, 10],
                             [0, 5, 1, 42000100, 42000200, 10], [1, 6, 1, 84000150, 84000250, 10]]})",
                    diagnostics);
        REQUIRE(capture.runs.size() == 2);
        CHECK(capture.runs[0].tasks == 2);
        CHECK(capture.runs[1].tasks == 2);
    }
    SECTION("a task id after an idle gap without a token restart stays in its run") {
        Capture capture =
            read_ok(R"({"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 1000000000,
            "core_types": ["aiv", "aiv"]},
            "aicore_tasks": [[0, 5, 1, 100, 200, 10], [1, 5, 1, 5000, 5100, 10]]})",
                    diagnostics);
        CHECK(capture.runs.size() == 1);
    }
    SECTION("SPMD rows of one task side by side stay one run") {
        Capture capture =
            read_ok(R"({"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 1000000000,
            "core_types": ["aiv", "aiv"]},
            "aicore_tasks": [[0, 5, 1, 100, 200, 10], [1, 5, 1, 110, 210, 10], [0, 6, 2, 5000, 5100, 10]]})",
                    diagnostics);
        CHECK(capture.runs.size() == 1);
    }
}

TEST_CASE("the AICore-scheduler fixture: streams, idle, lifecycle", "[swimlane][upstream]") {
    Diagnostics diagnostics;
    Capture capture =
        read_ok(fixture("hbg_l3_aicore_idle/chip_swimlane_records.json"), diagnostics);
    CHECK(capture.runtime == Runtime::HostBuildGraph);
    CHECK(capture.scheduler_producer == "aicore");
    REQUIRE(capture.streams.size() == 1);
    CHECK(capture.streams[0].aicore());
    CHECK(capture.streams[0].physical_core_id == 2);
    CHECK(capture.streams[0].committed == 19);
    CHECK(capture.scheduler_phases.size() == 19);
    std::size_t idle = 0;
    for (const auto& p : capture.scheduler_phases) idle += p.kind == PhaseKind::Idle;
    CHECK(idle == 4);
    REQUIRE(capture.lifecycle.size() == 1);
    // handshake 9004417249100 → 249300: 200 ns; exit_wait 255760 → 255900: 140 ns.
    auto [hs, he] = capture.lifecycle[0].intervals[0];
    CHECK(he - hs == 200);
    auto [ws, we] = capture.lifecycle[0].intervals[6];
    CHECK(we - ws == 140);
    // The time base includes the lifecycle records (the earliest stamp is the handshake).
    CHECK(capture.clock.origin_ticks == 9004417249100);
    CHECK(capture.clock_alignment.reason == "no Host log available");
    REQUIRE(capture.runs.size() == 1);
    CHECK(capture.runs[0].epoch == 2);

    LoadedCapture loaded;
    loaded.capture = capture;
    CaptureAnalysis result = analyze_capture(loaded, {});
    REQUIRE(result.analysis.aicore_schedulers.size() == 1);
    const AicoreSchedulerStats& s = result.analysis.aicore_schedulers[0];
    // Σ idle = 1620 + 1010 + 1700 + 300 ns over the 5700 ns from bootstrap to the last resolve.
    CHECK(s.idle_us == Approx(4.63));
    CHECK(s.span_us == Approx(5.7));
    CHECK(s.idle_share == Approx(4.63 / 5.7));
    CHECK(s.bootstrap_us == Approx(0.3));
    CHECK(s.stolen == 1);
    CHECK(s.refilled == 1);
    CHECK(s.dispatched == 2);
    // Measured idle is not scheduler work.
    REQUIRE(result.analysis.schedulers.size() == 1);
    CHECK(result.analysis.schedulers[0].busy_us < 5.7 - 4.6);
}

TEST_CASE("shape problems are reported, usable rows kept", "[swimlane][upstream][malformed]") {
    Diagnostics diagnostics;
    Capture capture =
        read_ok(R"({"chip_swimlane_level": 3, "metadata": {"runtime": "tensormap_and_ringbuffer",
        "clock_freq_hz": 1000000000, "core_types": ["aic"]},
        "aicore_tasks": [[0, 5, 1, 100, 200, 10], [0, 6, 2, 300, 400, 10, 0]],
        "scheduler_tasks": {"producer": "gpu", "records": [[0, 1, 50, 210], [0, 2, 250, 410, 0]]},
        "scheduler_records": {"streams": [{"producer": "aicpu", "scheduler_id": 0,
           "capture": {"committed": 3, "dropped": 2, "truncated": true},
           "records": [{"start_cycles": 50, "end_cycles": 60, "loop_iter": 0, "kind": "dispatch",
                        "tasks_processed": 1, "task_id": null}], "metrics": []}]},
        "aicpu_lifecycle_records": [7]})",
                diagnostics);
    CHECK(has_message(diagnostics, "aicore_tasks mixes row widths [6, 7]"));
    CHECK(has_message(diagnostics, "scheduler_tasks.records mixes row widths [4, 5]"));
    CHECK(has_message(diagnostics, "producer is 'gpu'"));
    CHECK(has_message(diagnostics, "dropped 2, truncated"));
    CHECK(has_message(diagnostics, "aicpu_lifecycle_records must be an array of objects"));
    // Epoch absent is not epoch 0: each row joined its own kind of partner.
    CHECK(capture.tasks.size() == 2);
    CHECK(capture.labels == TaskLabels::Ring);
}

namespace {

/// The capture at `dir` loaded through the pipeline (sibling logs, sidecar, deps, names) and its
/// JSON trace parsed.
struct Traced {
    LoadedCapture loaded;
    nlohmann::json trace;
    std::string diagnostics;
};

Traced trace_of(const std::string& dir, std::vector<std::filesystem::path> host_logs = {}) {
    LoadRequest request;
    request.input = std::string(PTUNE_TEST_DATA) + "/swimlane/upstream-2026-09/" + dir +
                    "/chip_swimlane_records.json";
    request.host_logs = std::move(host_logs);
    Diagnostics diagnostics;
    auto found = find_captures(request);
    REQUIRE(found.ok());
    auto loaded = load_capture(found->captures.front(), request, diagnostics);
    INFO((loaded.ok() ? std::string() : loaded.error().to_string()));
    REQUIRE(loaded.ok());
    Traced out;
    out.loaded = std::move(*loaded);
    TraceSource source;
    source.capture = &out.loaded.capture;
    source.deps = out.loaded.deps_or_null();
    source.names = out.loaded.names_or_null();
    std::ostringstream text;
    TraceCounts counts;
    REQUIRE(write_trace(std::span(&source, 1), {}, text, counts).ok());
    out.trace = nlohmann::json::parse(text.str());
    for (const auto& item : diagnostics.items()) out.diagnostics += item.message + "\n";
    return out;
}

std::map<std::int64_t, std::string> processes(const nlohmann::json& trace) {
    std::map<std::int64_t, std::string> out;
    for (const auto& e : trace["traceEvents"])
        if (e["name"] == "process_name") out[e["pid"]] = e["args"]["name"];
    return out;
}

std::set<std::string> threads(const nlohmann::json& trace, std::int64_t pid) {
    std::set<std::string> out;
    for (const auto& e : trace["traceEvents"])
        if (e["name"] == "thread_name" && e["pid"] == pid) out.insert(e["args"]["name"]);
    return out;
}

std::vector<std::string> slices(const nlohmann::json& trace, std::int64_t pid) {
    std::vector<std::string> out;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "X" && e["pid"] == pid) out.push_back(e["name"]);
    return out;
}

/// The first slice named `name` (on process `pid` when given).
const nlohmann::json* slice(const nlohmann::json& trace, const std::string& name,
                            std::int64_t pid = -1) {
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "X" && e["name"] == name && (pid < 0 || e["pid"] == pid)) return &e;
    return nullptr;
}

}  // namespace

TEST_CASE("hbg level 4 Graph replay: labels, lanes, envelope, alignment from the sibling log",
          "[swimlane][upstream][trace]") {
    Traced t = trace_of("hbg_l4_graph_replay");
    const Capture& capture = t.loaded.capture;
    // Span containment by hand (§1.12.3): joins sched (600, 9000) and device_wall (0, 12000)
    // over records 1000…9380 (cycles − 7212530000000) give origin ∈ [−220, 400], 90; the
    // launch marker moves place_lo to 7230954940077000, slack 16000 ns.
    REQUIRE(capture.clock_alignment.bounded());
    CHECK(capture.clock_alignment.device_anchor_cycles == 7212530001000);
    CHECK(capture.clock_alignment.host_anchor_ns == 7230954940077910);
    CHECK(capture.clock_alignment.host_anchor_min_ns == 7230954940077600);
    CHECK(capture.clock_alignment.host_anchor_max_ns == 7230954940094220);
    CHECK(std::any_of(t.loaded.inputs.begin(), t.loaded.inputs.end(), [](const std::string& in) {
        return in.ends_with("host_clock_alignment.3810442.log");
    }));

    CHECK(processes(t.trace) == std::map<std::int64_t, std::string>{{1, "Host Orchestrator"},
                                                                    {2, "AICPU Scheduler"},
                                                                    {3, "Scheduler View"},
                                                                    {4, "Worker View"},
                                                                    {5, "Graph Execution"}});
    CHECK(threads(t.trace, 2) ==
          std::set<std::string>{"Sched_0", "Sched_1", "shared_ready_queue (global)"});
    auto worker = slices(t.trace, 4);
    for (const char* name : {"gate_proj(t0)", "rms_norm(t1)", "qk_matmul(g2t0)", "softmax(g2t1)",
                             "rope(g2t2)", "residual_add(t3)", "alloc(t2)"})
        CHECK(std::count(worker.begin(), worker.end(), name) == 1);
    auto sched = slices(t.trace, 2);
    // resolve_standalone is drawn as resolve on the resolution thread's main lane.
    CHECK(std::count(sched.begin(), sched.end(), "resolve(1)") == 6);
    CHECK(std::count(sched.begin(), sched.end(), "graph_prepare(3)") == 1);
    const nlohmann::json* graph = slice(t.trace, "GraphExecution(t2, 3 visible sub-tasks)");
    REQUIRE(graph);
    CHECK((*graph)["args"]["visible_sub_task_count"] == 3);
    CHECK((*graph)["args"]["visible_sub_task_local_id_max"] == 2);
    CHECK((*graph)["args"]["synthetic_id_layout"] ==
          "space1:(outer_task_id << 32) | sub_task_local_id");
    CHECK((*graph)["args"]["run_epoch"] == 5);
    const nlohmann::json* qk = slice(t.trace, "qk_matmul(g2t0)", 4);
    REQUIRE(qk);
    CHECK((*qk)["args"]["run_epoch"] == 5);
    // On the host axis: receive cycle 4862 → 7230954940077000 + 4862 − 90 − origin 30000 µs-ns.
    CHECK((*qk)["ts"].get<double>() == Approx(51.772));
    const nlohmann::json& meta = t.trace["metadata"];
    CHECK(meta["layout"] == "containment_spliced");
    CHECK(meta["runtime"] == "host_build_graph");
    CHECK(meta["clock_alignment"]["status"] == "bounded");
    CHECK(meta["placement"]["slack_ns"] == 16000);
    CHECK(meta["placement"]["join"]["residual_ns"] == 620);
    CHECK(meta["cross_domain_latency_available"] == true);
    const nlohmann::json& provenance = t.trace["otherData"]["sources"][0]["clock_alignment"];
    CHECK(provenance["written_to_input"] == false);
    CHECK(provenance["bound_ns"] == 16620);
}

TEST_CASE("a saved clock_alignment is honoured without a log; --host-log forces a fresh one",
          "[swimlane][upstream][trace]") {
    Traced saved = trace_of("hbg_l4_saved_alignment");
    CHECK(saved.loaded.capture.clock_alignment.source == "saved");
    CHECK(saved.trace["metadata"]["layout"] == "containment_spliced");
    CHECK_FALSE(saved.trace["metadata"].contains("placement"));
    Traced fresh = trace_of("hbg_l4_graph_replay");
    // The same placement either way: every slice at the same time.
    CHECK((*slice(saved.trace, "rope(g2t2)"))["ts"] == (*slice(fresh.trace, "rope(g2t2)"))["ts"]);
    Traced forced =
        trace_of("hbg_l4_saved_alignment",
                 {std::string(PTUNE_TEST_DATA) + "/swimlane/upstream-2026-09/hbg_l4_graph_replay/"
                                                 "host_clock_alignment.3810442.log"});
    CHECK(forced.loaded.capture.clock_alignment.source == "host logs");
    CHECK(forced.trace["metadata"].contains("placement"));
}

TEST_CASE("AICore scheduler lane, measured idle slices, lifecycle process",
          "[swimlane][upstream][trace]") {
    Traced t = trace_of("hbg_l3_aicore_idle");
    CHECK(processes(t.trace)[2] == "AICore Scheduler");
    CHECK(processes(t.trace)[6] == "AICPU Lifecycle");
    CHECK(threads(t.trace, 2) == std::set<std::string>{"Scheduler_0"});
    CHECK(threads(t.trace, 6) == std::set<std::string>{"AICPU Thread 0"});
    auto sched = slices(t.trace, 2);
    CHECK(std::count(sched.begin(), sched.end(), "idle") == 4);
    for (const char* name : {"bootstrap", "StateProbe(t0)", "Dispatch(t1)", "Refill(t2)",
                             "Worksteal(t3)", "Completion(t3)", "Resolve(t0)"})
        CHECK(std::count(sched.begin(), sched.end(), name) == 1);
    const nlohmann::json* idle = slice(t.trace, "idle");
    CHECK((*idle)["cname"] == "grey");
    CHECK((*slice(t.trace, "Refill(t2)"))["args"]["task_id"] == 2);
    auto lifecycle = slices(t.trace, 6);
    CHECK(lifecycle == std::vector<std::string>{"handshake_partition", "topology_config",
                                                "context_publish", "bootstrap_wait",
                                                "register_release", "exit_signal", "exit_wait"});
    CHECK(t.trace["metadata"]["layout"] == "causal_composite");
    CHECK(t.trace["metadata"]["clock_alignment"]["reason"] == "no Host log available");
}

TEST_CASE("two runs with run_epoch: r0t labels, arrows per run", "[swimlane][upstream][trace]") {
    Traced t = trace_of("two_runs_epoch");
    auto worker = slices(t.trace, 4);
    CHECK(std::count(worker.begin(), worker.end(), "task(r0t0)") == 2);
    std::set<std::int64_t> epochs;
    for (const auto& e : t.trace["traceEvents"])
        if (e["ph"] == "X" && e["pid"] == 4)
            epochs.insert(e["args"]["run_epoch"].get<std::int64_t>());
    CHECK(epochs == std::set<std::int64_t>{1, 2});
    REQUIRE(t.trace["otherData"]["sources"][0]["runs"].size() == 2);
}

TEST_CASE("September host_capture validation (§1.7)", "[swimlane][upstream]") {
    auto capture_with = [](const std::string& host_capture) {
        return R"({"chip_swimlane_level": 3, "metadata": {"runtime": "host_build_graph",
            "clock_freq_hz": 1000000000, "core_types": ["aic"], "orchestrator_source": "host",
            "host_capture": )" +
               host_capture + R"(},
          "aicore_tasks": [[0, 0, 1, 500, 600, 0]],
          "host_orchestrator_phases": [[{"submit_idx": 0, "task_id": 0, "start_host_ns": 100,
            "end_host_ns": 200}]]})";
    };
    Diagnostics diagnostics;
    Capture complete = read_ok(
        capture_with(
            R"({"status": "complete", "expected_records": 1, "recorded_records": 1, "dropped_records": 0, "error": null})"),
        diagnostics);
    CHECK(complete.host.records_complete);
    CHECK(complete.host.validation_errors.empty());
    Capture missing = read_ok(
        capture_with(R"({"status": "complete", "recorded_records": 1, "dropped_records": 0})"),
        diagnostics);
    CHECK_FALSE(missing.host.records_complete);
    CHECK(missing.host.validation_errors ==
          std::vector<std::string>{"expected_record_count_missing"});
    Capture mismatch = read_ok(
        capture_with(
            R"({"status": "complete", "expected_records": 2, "recorded_records": 3, "dropped_records": 0})"),
        diagnostics);
    CHECK(mismatch.host.validation_errors ==
          std::vector<std::string>{"expected_record_count_mismatch",
                                   "recorded_record_count_mismatch"});
    CHECK(nlohmann::json::parse(mismatch.host.capture_json)["converter_validation_errors"].size() ==
          2);
}

}  // namespace swimlane_upstream_test
