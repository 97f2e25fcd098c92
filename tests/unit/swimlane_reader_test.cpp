// Readers of swimlane captures: every generation, the join, the clock, deps, names, bad input.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/swimlane/discover.hpp"
#include "ptune/swimlane/reader.hpp"

namespace swimlane_reader_test {

using namespace ptune;
using namespace ptune::swimlane;
namespace fs = std::filesystem;

namespace {

std::string data(const std::string& name) {
    auto text = io::read_file(std::string(PTUNE_TEST_DATA) + "/swimlane/" + name);
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

const TaskRow& row_on(const Capture& capture, std::uint64_t task_id, std::uint32_t core) {
    for (const auto& row : capture.tasks)
        if (row.task_id == task_id && row.core_id == core) return row;
    FAIL("no row for task " << task_id << " on core " << core);
    return capture.tasks.front();
}

}  // namespace

TEST_CASE("composed level-4 capture joins AICore and AICPU rows in integer ns",
          "[swimlane][reader]") {
    Diagnostics diagnostics;
    Capture capture = read_ok(data("chip_swimlane_records.json"), diagnostics);
    CHECK(capture.shape == RecordsShape::RawCycles);
    CHECK(capture.level_key == "chip_swimlane_level");
    CHECK(capture.level == 4);
    CHECK(capture.aicore_columns == 6);
    CHECK(capture.clock.freq_hz == 50'000'000);
    CHECK(capture.clock.freq_source == "metadata");
    CHECK(capture.clock.origin_ticks == 4320000000000);  // first orchestrator record
    REQUIRE(capture.tasks.size() == 10);
    CHECK(capture.dropped.total() == 0);
    // Sorted by task id, join order on ties (r1t3 rows on cores 3, 4, 5, 6).
    CHECK(capture.tasks[0].task_id == 4294967297);
    CHECK(capture.tasks[2].task_id == 4294967299);
    CHECK(capture.tasks[2].core_id == 3);
    CHECK(capture.tasks[5].core_id == 6);
    // QK(r1t1) on core 0: receive 2.3 µs, start 2.5, end 12.5, dispatch 1.7, finish 12.9
    // (upstream expected/merged_swimlane.default.json).
    const TaskRow& qk = row_on(capture, 4294967297, 0);
    CHECK(qk.core_type == CoreType::Aic);
    CHECK(qk.receive_ns == 2300);
    CHECK(qk.start_ns == 2500);
    CHECK(qk.end_ns == 12500);
    CHECK(qk.dispatch_ns == 1700);
    CHECK(qk.finish_ns == 12900);
    CHECK(qk.func_id == -1);
    CHECK(capture.clock.upstream_us(qk.receive_ns) == 2.3000000000000003);  // 115 * 0.02
    // Phases: 21 scheduler records on 3 threads of 4 arrays, 7 orchestrator records.
    CHECK(capture.scheduler_phases.size() == 21);
    CHECK(capture.scheduler_arrays == 4);
    CHECK(capture.scheduler_thread_count() == 3);
    CHECK(capture.orchestrator_phases.size() == 7);
    CHECK(capture.orchestrator_arrays == 1);
    const SchedulerPhase& first = capture.scheduler_phases.front();
    CHECK(first.kind == PhaseKind::Dispatch);
    CHECK(first.start_ns == 1600);
    CHECK(first.end_ns == 1800);
    CHECK(first.pop_hit == 1);
    CHECK(first.pop_miss == 2);
    CHECK(first.has_depths);
    CHECK(first.shared_at_start[0] == 1);
    CHECK(capture.core_to_thread == std::vector<int>{0, 1, 2, 0, 0, 1, 1, 2, 2});
}

TEST_CASE("deps.json duplicate edges are folded whether the edges come grouped or not",
          "[swimlane][reader]") {
    // Edges grouped by ascending successor (the runtime's order) are checked within the group;
    // the first edge out of that order, or a group over 32 edges, switches to a hash set over
    // all edges, which must still see the repeats of every earlier group.
    using Edges = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
    auto check = [](const Edges& edges, std::size_t duplicates) {
        std::string json = R"({"tasks":[],"edges":[)";
        Edges unique;
        for (std::size_t e = 0; e < edges.size(); ++e) {
            json += fmt::format(R"({}{{"pred":"{}","succ":"{}"}})", e ? "," : "", edges[e].first,
                                edges[e].second);
            if (std::find(unique.begin(), unique.end(), edges[e]) == unique.end())
                unique.push_back(edges[e]);
        }
        json += "]}";
        Diagnostics diagnostics;
        auto deps = read_deps(json, "deps.json", diagnostics);
        REQUIRE(deps.ok());
        CHECK(deps->edges == unique);
        CHECK(deps->duplicate_edges == duplicates);
        CHECK(edges.size() - unique.size() == duplicates);  // the expectation itself
    };
    Edges grouped = {{1, 10}, {2, 10}, {1, 10}, {1, 11}, {3, 12}, {3, 12}, {2, 12}};
    check(grouped, 2);
    Edges large_group = grouped;
    for (std::uint64_t pred = 0; pred < 40; ++pred) large_group.emplace_back(100 + pred, 200);
    large_group.insert(large_group.end(), {{100, 200}, {139, 200}, {5, 200}, {5, 200}});
    check(large_group, 5);
    Edges out_of_order = large_group;
    out_of_order.insert(out_of_order.end(), {{1, 10}, {3, 12}, {7, 7}, {100, 201}, {7, 7}});
    check(out_of_order, 8);
    Edges unordered_from_start = {{9, 99}, {1, 10}, {1, 10}, {9, 99}, {2, 10}};
    check(unordered_from_start, 2);
}

TEST_CASE("deps.json resolves func ids and block_num; names come from the map",
          "[swimlane][reader]") {
    Diagnostics diagnostics;
    Capture capture = read_ok(data("chip_swimlane_records.json"), diagnostics);
    auto deps = read_deps(data("deps.json"), "deps.json", diagnostics);
    REQUIRE(deps.ok());
    CHECK(deps->tasks.size() == 6);
    CHECK(deps->edges.size() == 7);  // 8 edges, one duplicate (r1t5, r1t6)
    CHECK(deps->duplicate_edges == 1);
    CHECK(deps->tasks.at(4294967300).is_dummy());
    CHECK(apply_deps(capture, *deps) == 0);
    CHECK(row_on(capture, 4294967297, 0).func_id == 0);
    CHECK(row_on(capture, 4294967299, 4).func_id == 1);
    CHECK(row_on(capture, 4294967299, 4).block_num == 4);
    CHECK(row_on(capture, 4294967301, 2).func_id == 2);  // MIX: AIC lane gets kernel_ids[0]
    CHECK(row_on(capture, 4294967301, 7).func_id == 3);  // AIV lanes get kernel_ids[1]
    CHECK(row_on(capture, 4294967301, 8).func_id == 3);

    auto names =
        parse_name_map(data("name_map_TestPA_composed.json"), "name_map.json", diagnostics);
    REQUIRE(names.ok());
    CHECK(names->orchestrator_name == "PagedAttn");
    CHECK(kernel_base_name(1, &*names) == "SF");
    CHECK(kernel_base_name(7, &*names) == "func_7_h");
    CHECK(kernel_base_name(26, nullptr) == "func_26_aa");
    CHECK(kernel_base_name(-1, &*names) == "task");
    CHECK(diagnostics.empty());
}

TEST_CASE("kernel_config.py is read as text, never executed", "[swimlane][reader]") {
    Diagnostics diagnostics;
    auto names =
        parse_kernel_config(data("kernel_config_excerpt.py"), "kernel_config.py", diagnostics);
    REQUIRE(names.ok());
    CHECK_FALSE(names->empty());
    for (const auto& [id, kernel] : names->entries()) CHECK_FALSE(kernel.name.empty());
    // An entry without a name yields no names (the file is no names file) and a warning.
    auto broken = parse_kernel_config("KERNELS = [\n\t{\"func_id\": 3, \"source\": \"x\"},\n]\n",
                                      "k.py", diagnostics);
    CHECK_FALSE(broken.ok());
    REQUIRE(diagnostics.items().size() == 1);
    CHECK(diagnostics.items()[0].line == 2);
}

TEST_CASE("5-column (v2) rows, l2 key, legacy µs tasks and newer sections all read",
          "[swimlane][reader]") {
    Diagnostics diagnostics;
    SECTION("v2 five columns under l2_swimlane_level, frequency from --freq") {
        std::string json =
            R"({"l2_swimlane_level": 2, "metadata": {"num_cores": 1, "core_types": ["aiv"]},
            "aicore_tasks": [[0, 7, 1, 1000, 1100]], "aicpu_tasks": [[0, 1, 990, 1110]]})";
        ReadOptions options;
        options.fallback_freq_hz = 1'000'000'000;
        Capture capture = read_ok(json, diagnostics, options);
        CHECK(capture.aicore_columns == 5);
        CHECK(capture.clock.freq_source == "--freq");
        REQUIRE(capture.tasks.size() == 1);
        CHECK(capture.tasks[0].receive_ns == capture.tasks[0].start_ns);
        CHECK(capture.tasks[0].start_ns == 10);
        CHECK(capture.tasks[0].dispatch_ns == 0);
        // Without metadata frequency nor --freq there is no clock.
        auto no_clock = read_capture(json, ReadOptions{"r.json", std::nullopt}, diagnostics);
        REQUIRE_FALSE(no_clock.ok());
        CHECK(no_clock.error().message.find("--freq") != std::string::npos);
    }
    SECTION("--freq never overrides the file") {
        std::string json =
            R"({"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 50000000, "core_types": ["aic"]},
            "aicore_tasks": [[0, 7, 1, 100, 150, 0]], "aicpu_tasks": []})";
        ReadOptions options{"r.json", 1'000'000'000};
        Capture capture = read_ok(json, diagnostics, options);
        CHECK(capture.clock.freq_hz == 50'000'000);
        REQUIRE(capture.tasks.size() == 1);
        CHECK(capture.tasks[0].end_ns == 1000);
        CHECK_FALSE(capture.tasks[0].has_aicpu());
    }
    SECTION("7 columns with run_epoch and scheduler_tasks / scheduler_records") {
        std::string json =
            R"({"chip_swimlane_level": 3, "metadata": {"clock_freq_hz": 1000000000, "core_types": ["aic"]},
            "aicore_tasks": [[0, 5, 1, 200, 300, 10, 0], [0, 6, 1, 400, 500, 10, 1]],
            "scheduler_tasks": {"schema_version": 1, "producer": "aicpu",
                                "records": [[0, 1, 150, 310, 0], [0, 1, 350, 520, 1]]},
            "scheduler_records": {"schema_version": 1, "streams": [
               {"scheduler_id": 2, "capture": {"committed": 1, "dropped": 0, "truncated": false},
                "records": [{"start_cycles": 150, "end_cycles": 160, "loop_iter": 1, "kind": "dispatch", "tasks_processed": 1}],
                "metrics": [{"record_index": 0, "pop_hit": 4, "shared_at_start": [1,2,3], "shared_at_end": [0,0,0]}]}]},
            "aicpu_lifecycle_records": [{"whatever": 1}]})";
        Capture capture = read_ok(json, diagnostics);
        CHECK(capture.aicore_columns == 7);
        REQUIRE(capture.tasks.size() == 2);
        CHECK(capture.tasks[0].task_id == 5);
        CHECK(capture.tasks[0].dispatch_ns == 0);
        CHECK(capture.tasks[1].task_id == 6);
        CHECK(capture.tasks[1].run_epoch == 1);
        CHECK(capture.tasks[1].dispatch_ns == 200);
        REQUIRE(capture.scheduler_phases.size() == 1);
        CHECK(capture.scheduler_phases[0].thread == 2);
        CHECK(capture.scheduler_phases[0].pop_hit == 4);
        CHECK(capture.scheduler_phases[0].shared_at_start[2] == 3);
    }
    SECTION("legacy µs tasks[] with fanout") {
        std::string json = R"({"version": 1, "tasks": [
            {"task_id": 1, "func_id": 0, "core_id": 0, "core_type": "aic", "start_time_us": 10.5,
             "end_time_us": 12.25, "duration_us": 1.75, "dispatch_time_us": 10.0, "finish_time_us": 12.5, "fanout": [2]},
            {"task_id": 2, "func_id": 1, "core_id": 1, "core_type": "aiv", "start_time_us": 13.0,
             "end_time_us": 14.0, "duration_us": 1.0, "fanout": []}]})";
        Capture capture = read_ok(json, diagnostics);
        CHECK(capture.shape == RecordsShape::MicrosecondTasks);
        CHECK(capture.level_key == "version");
        REQUIRE(capture.tasks.size() == 2);
        CHECK(capture.tasks[0].start_ns == 500);
        CHECK(capture.tasks[0].end_ns == 2250);
        CHECK(capture.tasks[0].dispatch_ns == 0);
        CHECK(capture.tasks[0].func_id == 0);
        CHECK(capture.tasks[1].core_type == CoreType::Aiv);
        CHECK_FALSE(capture.tasks[1].has_aicpu());
        REQUIRE(capture.embedded_edges.size() == 1);
        CHECK(capture.embedded_edges[0] == std::pair<std::uint64_t, std::uint64_t>{1, 2});
    }
}

TEST_CASE("bad records: truncation keeps what parsed, drops are counted", "[swimlane][reader]") {
    std::string full = data("chip_swimlane_records.json");
    Diagnostics diagnostics;
    SECTION("cut inside aicpu_tasks") {
        std::size_t cut = full.find("[4, 1, 4320000000710");
        Capture capture = read_ok(full.substr(0, cut + 5), diagnostics);
        CHECK(capture.truncated);
        CHECK(capture.tasks.size() == 5);  // AICPU rows of cores 0, 1, 2, 3, 3
        CHECK(capture.dropped.aicore_without_aicpu == 5);
        REQUIRE_FALSE(diagnostics.empty());
        CHECK(diagnostics.items()[0].line == 27);
    }
    SECTION("cut before any AICPU row: AICore timing only") {
        std::size_t cut = full.find("\"aicpu_tasks\"");
        Capture capture = read_ok(full.substr(0, cut), diagnostics);
        CHECK(capture.tasks.size() == 10);
        CHECK_FALSE(capture.tasks[0].has_aicpu());
    }
    SECTION("unmatched, zero and reversed rows") {
        std::string json =
            R"({"chip_swimlane_level": 2, "metadata": {"clock_freq_hz": 1000000000, "core_types": ["aic","aiv"]},
            "aicore_tasks": [[0, 1, 1, 100, 200, 0], [0, 2, 2, 0, 0, 0], [1, 3, 1, 300, 250, 0], [1, 4, 2, "x", 1, 0]],
            "aicpu_tasks": [[0, 1, 90, 210], [0, 2, 95, 96], [1, 1, 290, 310], [1, 9, 1, 2]]})";
        Capture capture = read_ok(json, diagnostics);
        CHECK(capture.tasks.size() == 1);
        CHECK(capture.dropped.zero_start == 1);
        CHECK(capture.dropped.reversed == 1);
        CHECK(capture.dropped.aicpu_without_aicore == 1);
        CHECK(capture.dropped.malformed_rows == 1);
    }
    SECTION("nothing usable") {
        auto none = read_capture("{\"chip_swimlane_", ReadOptions{"x.json", {}}, diagnostics);
        REQUIRE_FALSE(none.ok());
        CHECK(none.error().file == "x.json");
        CHECK(none.error().line == 1);
        auto other = read_capture("{\"foo\": 1}", ReadOptions{"y.json", {}}, diagnostics);
        REQUIRE_FALSE(other.ok());
    }
}

TEST_CASE("truncated or corrupt deps.json", "[swimlane][reader]") {
    std::string full = data("deps.json");
    Diagnostics diagnostics;
    std::size_t cut = full.find("\"edges\"");
    std::size_t second_edge = full.find("{\"pred\"", full.find("{\"pred\"", cut) + 1);
    auto deps = read_deps(full.substr(0, second_edge + 10), "deps.json", diagnostics);
    REQUIRE(deps.ok());
    CHECK(deps->truncated);
    CHECK(deps->tasks.size() == 6);
    CHECK(deps->edges.size() == 1);
    CHECK(diagnostics.count(Severity::Warning) == 1);
    CHECK_FALSE(read_deps("not json", "deps.json", diagnostics).ok());
    CHECK_FALSE(read_deps("{\"tasks\": []}", "deps.json", diagnostics).ok());
}

TEST_CASE("discovery picks the newest run by name and finds siblings", "[swimlane][discover]") {
    fs::path root = fs::temp_directory_path() /
                    fs::path("ptune_swimlane_discover_" + std::to_string(::getpid()));
    fs::remove_all(root);
    auto touch = [](const fs::path& p) {
        fs::create_directories(p.parent_path());
        std::ofstream(p) << "{}";
    };
    touch(root / "build_output/Prog_20260101_120000/dfx_outputs/chip_swimlane_records.json");
    touch(root / "build_output/Prog_20260301_090000/dfx_outputs/chip_swimlane_records.json");
    touch(root / "build_output/Prog_20260301_090000/dfx_outputs/deps.json");
    touch(root / "build_output/Prog_20260301_090000/dfx_outputs/name_map_Prog.json");
    touch(root / "build_output/Prog_20260301_090000/kernel_config.py");
    auto found = discover_captures(root / "build_output");
    REQUIRE(found.ok());
    REQUIRE(found->captures.size() == 1);
    const CaptureFiles& files = found->captures[0];
    CHECK(files.records.string().find("20260301_090000") != std::string::npos);
    CHECK(files.deps.filename() == "deps.json");
    CHECK(files.name_map.filename() == "name_map_Prog.json");
    CHECK(files.kernel_config.filename() == "kernel_config.py");
    REQUIRE_FALSE(found->notes.empty());
    CHECK(found->notes[0].find("timestamp") != std::string::npos);

    touch(root / "l3/dfx_outputs/rank1/d0/chip_swimlane_records.json");
    touch(root / "l3/dfx_outputs/rank0/d1/chip_swimlane_records.json");
    touch(root / "l3/dfx_outputs/rank0/d0/chip_swimlane_records.json");
    auto l3 = discover_captures(root / "l3");
    REQUIRE(l3.ok());
    REQUIRE(l3->captures.size() == 3);
    CHECK(l3->captures[0].label == "rank0/d0");
    CHECK(l3->captures[1].label == "rank0/d1");
    CHECK(l3->captures[2].label == "rank1/d0");
    CHECK_FALSE(discover_captures(root / "missing").ok());
    fs::remove_all(root);
}

TEST_CASE("orchestrator records keep their phase names in a table of the capture",
          "[swimlane][reader]") {
    STATIC_REQUIRE(sizeof(OrchestratorPhase) == 48);  // (one per task: it was 80 with a string)
    auto records = nlohmann::json::parse(data("chip_swimlane_records.json"));
    auto& orch = records["aicpu_orchestrator_phases"][0];
    REQUIRE(orch.size() == 7);
    const char* phases[] = {"orch_fanin", nullptr,     "orch_submit", "orch_params",
                            "orch_fanin", "orch_scan", nullptr};
    for (std::size_t i = 0; i < 7; ++i)
        if (phases[i]) orch[i]["phase"] = phases[i];
    Diagnostics diagnostics;
    Capture capture = read_ok(records.dump(), diagnostics);
    REQUIRE(capture.orchestrator_phases.size() == 7);
    for (std::size_t i = 0; i < 7; ++i)
        CHECK(capture.phase_name(capture.orchestrator_phases[i]) ==
              (phases[i] ? phases[i] : "orch_submit"));
    // One entry per distinct name, "orch_submit" (also a record without a phase) first.
    CHECK(capture.orchestrator_phase_names ==
          std::vector<std::string>{"orch_submit", "orch_fanin", "orch_params", "orch_scan"});
    CHECK(capture.orchestrator_phases[1].name == 0);
    CHECK(capture.orchestrator_phases[0].name == capture.orchestrator_phases[4].name);
}

TEST_CASE("scheduler phase records keep every field in 72 bytes; pop counts saturate at 16 bits",
          "[swimlane][reader]") {
    // A capture holds several per task: 80 bytes each was the largest block at the 20K-task
    // peak (issue #35). pop_hit / pop_miss (read by no output) are 16 bits, saturating.
    STATIC_REQUIRE(sizeof(SchedulerPhase) <= 72);
    Diagnostics diagnostics;
    std::string json =
        R"({"chip_swimlane_level": 3, "metadata": {"runtime": "tensormap_and_ringbuffer",
            "clock_freq_hz": 1000000000, "core_types": ["aic"]},
        "aicore_tasks": [[0, 5, 1, 200, 300, 10, 7]],
        "scheduler_tasks": {"schema_version": 1, "producer": "aicpu",
                            "records": [[0, 1, 150, 310, 7]]},
        "scheduler_records": {"schema_version": 1, "streams": [
           {"scheduler_id": 3, "capture": {"committed": 3, "dropped": 0, "truncated": false},
            "records": [
              {"start_cycles": 150, "end_cycles": 160, "loop_iter": 4000000000, "kind": "dispatch", "tasks_processed": 9, "run_epoch": 7},
              {"start_cycles": 170, "end_cycles": 180, "loop_iter": 2, "kind": "dummy_task", "task_id": 81604378625, "run_epoch": 7},
              {"start_cycles": 190, "end_cycles": 195, "loop_iter": 3, "kind": "scan", "run_epoch": 7}],
            "metrics": [{"record_index": 0, "pop_hit": 70000, "pop_miss": 32767,
                         "shared_at_start": [1, 2, 2147483647], "shared_at_end": [4, 5, 6]}]}]}})";
    Capture capture = read_ok(json, diagnostics);
    REQUIRE(capture.scheduler_phases.size() == 3);
    const SchedulerPhase& dispatch = capture.scheduler_phases[0];
    CHECK(dispatch.kind == PhaseKind::Dispatch);
    CHECK(dispatch.thread == 3);
    CHECK(dispatch.start_ns == 0);  // (the origin: the smallest timestamp)
    CHECK(dispatch.end_ns == 10);
    CHECK(dispatch.loop_iter == 4000000000u);
    CHECK(dispatch.tasks_processed == 9);
    CHECK(dispatch.run_epoch == 7);
    CHECK(dispatch.task_id == -1);
    CHECK(dispatch.pop_hit == kMaxPopCount);  // 70000 saturates
    CHECK(dispatch.pop_miss == 32767);
    CHECK(dispatch.has_depths);
    CHECK(dispatch.shared_at_start == std::array<std::int32_t, 3>{1, 2, 2147483647});
    CHECK(dispatch.shared_at_end == std::array<std::int32_t, 3>{4, 5, 6});
    const SchedulerPhase& dummy = capture.scheduler_phases[1];
    CHECK(dummy.kind == PhaseKind::DummyTask);
    CHECK(dummy.task_id == 81604378625);
    CHECK(dummy.pop_hit == -1);
    CHECK(dummy.pop_miss == -1);
    CHECK(dummy.tasks_processed == -1);
    CHECK_FALSE(dummy.has_depths);
    const SchedulerPhase& scan = capture.scheduler_phases[2];
    CHECK(scan.kind == PhaseKind::Other);
    CHECK(capture.phase_name(scan) == "scan");
    CHECK(scan.loop_iter == 3);
}

}  // namespace swimlane_reader_test
