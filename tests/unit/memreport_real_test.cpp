// Real pypto-lib memory reports and pass dumps (tests/data/memreport/real, issue 31 items 6 and
// 7): the numbers ptune prints are numbers the file can hold, and advice follows the 1 KB rule
// whatever the source.

#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <string>

#include "ptune/memreport/analyzer.hpp"
#include "ptune/memreport/parser.hpp"
#include "ptune/memreport/pipeline.hpp"
#include "ptune/rules/engine.hpp"

namespace memreport_real_test {

using namespace ptune;
using namespace ptune::memreport;

namespace {

const std::string kRealQuant =
    "real/pypto-lib__e3c3249b__projects_deepseek_v32_exp_lightning_indexer_prolog_quant__report__"
    "memory_after_AllocateMemoryAddr.txt";
const std::string kRealDecodeDump =
    "real/pypto-lib__1c7a3901__examples_qwen3_32b_decode_dump__passes_dump__13_after_"
    "AllocateMemoryAddr.py";
const std::string kRealDecodeReport =
    "real/pypto-lib__1c7a3901__examples_qwen3_32b_decode_dump__report__memory_after_"
    "AllocateMemoryAddr.txt";

std::string real_path(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/memreport/" + name;
}

Report analysed(const std::string& name, Diagnostics& diagnostics) {
    std::ifstream in(real_path(name), std::ios::binary);
    REQUIRE(in);
    Report report = parse_report(in, name, diagnostics);
    analyze(report, std::nullopt, diagnostics);
    return report;
}

// The rules fired on an analysis as "rule@function".
std::set<std::string> fired_on(const Analysis& analysis) {
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    rules::MetricStore store;
    publish(analysis, store);
    std::set<std::string> fired;
    for (const auto& finding : rules::evaluate(*catalogue, store, {"mem."}))
        fired.insert(finding.rule + "@" + finding.subject.name);
    return fired;
}

Analysis load_real(const std::string& name, Diagnostics& diagnostics) {
    auto source = locate_report(real_path(name), diagnostics);
    REQUIRE(source.ok());
    auto analysis = load_and_analyze(*source, {}, diagnostics);
    REQUIRE(analysis.ok());
    return std::move(*analysis);
}

}  // namespace

TEST_CASE("size_interval: every byte count a printed size can stand for", "[memreport]") {
    auto kb = size_interval("156.8 KB");
    REQUIRE(kb);
    CHECK(kb->lo == 160512);  // 156.75 KB prints 156.8 (half-even)
    CHECK(kb->hi == 160614);
    CHECK(format_size(kb->lo) == "156.8 KB");
    CHECK(format_size(kb->hi) == "156.8 KB");
    CHECK(format_size(kb->lo - 1) != "156.8 KB");
    CHECK(format_size(kb->hi + 1) != "156.8 KB");
    auto bytes = size_interval("768 B");
    REQUIRE(bytes);
    CHECK((bytes->lo == 768 && bytes->hi == 768));
    auto top = size_interval("1024.0 KB");  // 1048575 B still prints in KB
    REQUIRE(top);
    CHECK(top->hi == 1048575);
    auto mb = size_interval("1.0 MB");
    REQUIRE(mb);
    CHECK(mb->lo == 1048576);
    CHECK(format_size(mb->hi) == "1.0 MB");
    CHECK(format_size(mb->hi + 1) == "1.1 MB");
    CHECK_FALSE(size_interval("0.5 KB"));  // below 1024 B the writer prints bytes
    CHECK_FALSE(size_interval("12 KB"));

    auto narrowed = percent_interval("81.6%", 196608, *kb);
    REQUIRE(narrowed);
    CHECK(narrowed->lo == 160512);
    CHECK(narrowed->hi == 160530);
    CHECK_FALSE(percent_interval("90.0%", 196608, *kb));
}

TEST_CASE("real v1 report: a rounded Used keeps the file's percentage and a possible byte count",
          "[memreport][real]") {
    Diagnostics diagnostics;
    Report report = analysed(kRealQuant, diagnostics);
    CHECK(diagnostics.empty());
    REQUIRE(report.functions.size() == 6);
    const Function& quant = report.functions.back();
    REQUIRE(quant.name == "incore_symmetric_quant");
    const SpaceUsage& vec = *quant.find("Vec");
    CHECK_FALSE(vec.used_exact);
    // 156.8 KB alone allows [160512, 160614]; 81.6% of 192 KB only up to 160530.
    CHECK(vec.used_min == 160512);
    CHECK(vec.used_max == 160530);
    // The printed 160563 moved into that interval: a byte count the row can hold.
    CHECK(vec.used_bytes == 160530);
    REQUIRE(vec.usage_pct);
    CHECK(*vec.usage_pct == Approx(100.0 * 160530 / 196608));
    CHECK(format_percent(*vec.usage_pct) == "81.6%");  // as the file prints it, not 81.7%
    // Every row: the percentage shown is the one printed.
    for (const auto& function : report.functions) {
        for (const auto& usage : function.spaces) {
            REQUIRE(usage.usage_pct);
            CHECK(format_percent(*usage.usage_pct) == usage.usage_text);
            CHECK(format_size(usage.used_bytes) == usage.used_text);
        }
    }
}

TEST_CASE("a rounded buffer size with an exact address range takes the range's width",
          "[memreport]") {
    Diagnostics diagnostics;
    Report report = analysed(
        "composed__a2a3_v3__rounded_buffer_sizes.memory_after_AllocateMemoryAddr.txt", diagnostics);
    CHECK(diagnostics.empty());
    REQUIRE(report.functions.size() == 1);
    const SpaceUsage& vec = report.functions[0].spaces[0];
    REQUIRE(vec.buffers.size() == 3);
    CHECK(vec.buffers[2].size_text == "2.8 KB");
    CHECK(vec.buffers[2].size_bytes == 2816);  // [9472, 12288), not 2.8 × 1024 = 2867
    CHECK(vec.buffers[2].size_exact);
    CHECK(vec.buffers[0].size_bytes == 8704);
    CHECK(vec.used_exact);
    CHECK(vec.used_bytes == 12288);
    REQUIRE(vec.peak);
    CHECK(vec.peak->bytes == 12288);  // was 12339, more than the space holds
    CHECK(vec.peak->bytes <= vec.used_bytes);
}

TEST_CASE("real pass dump: pairs of 0-byte and 16 B Vec allocations get no stage advice",
          "[memreport][real]") {
    Diagnostics dump_diagnostics;
    Analysis dump = load_real(kRealDecodeDump, dump_diagnostics);
    REQUIRE(dump.report.origin == Origin::PassDump);
    Diagnostics text_diagnostics;
    Analysis text = load_real(kRealDecodeReport, text_diagnostics);
    // The rebuilt table is the report's (upstream-2026-09.md §5)...
    REQUIRE(dump.report.functions.size() == text.report.functions.size());
    for (std::size_t i = 0; i < dump.report.functions.size(); ++i) {
        const SpaceUsage* a = dump.report.functions[i].find("Vec");
        const SpaceUsage* b = text.report.functions[i].find("Vec");
        REQUIRE((a && b));
        CHECK(a->used_bytes == b->used_bytes);
        CHECK(a->used_bytes < 1024);
    }
    // ...and the advice is the same: nothing under 1 KB is worth a deeper pipeline.
    for (const auto& rule : fired_on(dump)) {
        CHECK(rule.rfind("mem.deeper-stage", 0) != 0);
        CHECK(rule.rfind("mem.underfilled", 0) != 0);
    }
    CHECK(fired_on(dump) == fired_on(text));
}

}  // namespace memreport_real_test
