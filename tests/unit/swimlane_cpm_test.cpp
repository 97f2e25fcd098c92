// CPM_static.json / CPM_observed.json (upstream-2026-09.md §4): the critical set is the Worker
// View bars not renamed `·(…)`; swimlane-analyze compares it with its own path.

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "ptune/swimlane/cpm.hpp"

namespace swimlane_cpm_test {

using namespace ptune;
using namespace ptune::swimlane;

namespace {

const std::string kDir = std::string(PTUNE_TEST_DATA) + "/host/critical_path/";

std::vector<std::uint64_t> ids(const CpmPath& path) {
    std::vector<std::uint64_t> out;
    for (const CpmTask& task : path.critical) out.push_back(task.task_id);
    return out;
}

}  // namespace

TEST_CASE("CPM traces: critical sets from the renamed Worker View bars", "[swimlane][cpm]") {
    Diagnostics diagnostics;
    std::vector<CpmPath> paths = find_cpm(kDir, diagnostics);
    CHECK(diagnostics.empty());
    REQUIRE(paths.size() == 2);
    const std::uint64_t r1 = std::uint64_t{1} << 32;
    CHECK(paths[0].kind == "static");
    CHECK(paths[0].runtime == "tensormap_and_ringbuffer");
    CHECK(paths[0].worker_bars == 4);
    CHECK(ids(paths[0]) == std::vector<std::uint64_t>{r1, r1 + 2, r1 + 3});
    CHECK(paths[0].critical[1].name == "SF(r1t2)");
    CHECK(paths[1].kind == "observed");
    CHECK(ids(paths[1]) == std::vector<std::uint64_t>{r1 + 1, r1 + 2, r1 + 3});

    CriticalPath ours;
    ours.available = true;
    for (std::uint64_t local : {0, 2, 3})
        ours.tasks.push_back({r1 + local, fmt::format("r1t{}", local), 0, 0, 0});
    render::Report report;
    add_cpm_comparison(report, kDir + "chip_swimlane_records.json", ours, &diagnostics);
    REQUIRE(report.tables.size() == 1);
    const auto& rows = report.tables[0].rows;
    REQUIRE(rows.size() == 2);
    CHECK(rows[0] == std::vector<std::string>{"CPM_static", "3", "3", "-", "-",
                                              "QK(r1t0), SF(r1t2), PV(r1t3)"});
    CHECK(rows[1] == std::vector<std::string>{"CPM_observed", "3", "2", "r1t0", "ROPE(r1t1)",
                                              "ROPE(r1t1), SF(r1t2), PV(r1t3)"});
    CHECK(report.data["cpm"][0]["same_tasks"] == true);
    CHECK(report.data["cpm"][1]["same_tasks"] == false);
}

TEST_CASE("CPM traces: bad input is an error", "[swimlane][cpm]") {
    for (const char* text : {"", "{\"traceEvents\": [", "{\"traceEvents\": []}",
                             "[{\"ph\": \"X\", \"pid\": 4, \"name\": \"a\"}]"}) {
        std::istringstream in(text);
        CHECK_FALSE(read_cpm(in, "CPM_static.json"));
    }
    std::istringstream bare(
        "[{\"ph\": \"X\", \"pid\": 4, \"name\": \"a(t1)\", \"ts\": 1, \"dur\": 2, \"args\": "
        "{\"taskId\": \"7\"}}, {\"ph\": \"X\", \"pid\": 3, \"name\": \"b\", \"args\": {\"taskId\": "
        "8}}]");
    auto path = read_cpm(bare, "CPM_observed.json");
    REQUIRE(path);
    CHECK(path->kind == "observed");
    CHECK(ids(*path) == std::vector<std::uint64_t>{7});
}

}  // namespace swimlane_cpm_test
