// pmu-analyze's JSON renderer writes its rows without a DOM: its output must be the text of the
// report's JSON with rows_json's DOM of the rows, byte for byte, whatever the file holds.

#include <filesystem>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/pmu/analyzer.hpp"
#include "ptune/pmu/parser.hpp"
#include "ptune/pmu/report.hpp"
#include "ptune/render/report.hpp"

namespace pmu_json_writer_test {

using namespace ptune;
using namespace ptune::pmu;

namespace {

// Renders `csv` with the streaming renderer and with the DOM; false when it is not a pmu.csv.
bool check_renderer_writes_dom(std::string_view csv, const std::string& source,
                               const KernelNames& names = {}) {
    Diagnostics diagnostics;
    auto table = parse_pmu_csv(csv, source, diagnostics);
    if (!table.ok()) return false;
    Analysis analysis = analyze(*table, names, {}, diagnostics);
    render::Report report = build_report(*table, analysis, {}, {});
    nlohmann::json dom = render::to_json(report);
    dom["rows"] = rows_json(*table, analysis);
    std::ostringstream expected, written;
    render::write_json(dom, expected, true);
    make_json_renderer(*table, analysis)->render(report, written, {});
    INFO(source);
    CHECK(written.str() == expected.str());
    return true;
}

}  // namespace

TEST_CASE("pmu-analyze's JSON renderer writes every fixture's rows as their DOM", "[pmu][json]") {
    int checked = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(PTUNE_TEST_DATA) + "/pmu")) {
        if (entry.path().extension() != ".csv") continue;
        auto text = io::read_file(entry.path().string());
        REQUIRE(text.ok());
        checked += check_renderer_writes_dom(*text, entry.path().filename().string());
    }
    CHECK(checked >= 7);
}

TEST_CASE("pmu-analyze's JSON renderer writes rows of every shape as their DOM", "[pmu][json]") {
    KernelNames names;
    names.add(1, {"attn \"q\" \xff", "aic"});
    names.add(2, {"vec_add", "aiv"});
    SECTION("AIC and AIV rows: ratios, clamped busy cycles, a zero total, negative ids") {
        CHECK(check_renderer_writes_dom(
            "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,vec_busy_cycles,"
            "cube_busy_cycles,scalar_busy_cycles,mte1_busy_cycles,mte2_busy_cycles,"
            "mte3_busy_cycles,icache_miss,icache_req,event_type\n"
            "0,0,0x0000000100000001,1,0,92160,0,61440,4096,30720,71680,0,12,903,2\n"
            "-1,-24,0xffffffff00000007,2,1,20480,6144,0,2048,0,30000,4096,3,448,2\n"
            "3,5,0x0000000000000002,7,1,0,0,0,0,0,0,0,0,0,2\n",
            "pipes.csv", names));
    }
    SECTION("counters without pipes: names the DOM sorts and escapes, one named twice") {
        CHECK(check_renderer_writes_dom(
            "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,zeta,Alpha,"
            "q\"uote,alpha,zeta,event_type\n"
            "0,3,0x0000000000000005,1,1,1000,10,20,30,40,50,9\n"
            "1,4,0x0000000000000006,2,0,18446744073709551615,0,0,0,18446744073709551615,1,9\n",
            "counters.csv", names));
    }
    SECTION("no rows") {
        CHECK(check_renderer_writes_dom(
            "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,vec_busy_cycles,"
            "event_type\n",
            "empty.csv"));
    }
}

}  // namespace pmu_json_writer_test
