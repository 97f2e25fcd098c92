#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"
#include "ptune/pmu/parser.hpp"

namespace pmu_parser_test {

using namespace ptune;
using namespace ptune::pmu;

namespace {
std::string data(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/pmu/" + name;
}

Result<PmuTable> parse_file(const std::string& name, Diagnostics& diagnostics) {
    auto text = io::read_file(data(name));
    REQUIRE(text.ok());
    return parse_pmu_csv(std::string_view(*text), name, diagnostics);
}
}  // namespace

TEST_CASE("all 14 upstream headers are recognised by whole-header lookup", "[pmu][parser]") {
    auto text = io::read_file(data("headers_by_arch_and_event_type.tsv"));
    REQUIRE(text.ok());
    io::LineReader reader{std::string_view(*text)};
    std::string_view line;
    reader.next(line);  // column names
    int seen = 0;
    while (reader.next(line)) {
        auto fields = text::split(line, '\t');
        REQUIRE(fields.size() == 6);
        INFO(line);
        auto header = parse_header(fields[4]);
        REQUIRE(header.ok());
        CHECK(header->known);
        CHECK(to_string(header->arch) == fields[0]);
        CHECK(header->event_type == std::stoi(std::string(fields[1])));
        CHECK(header->counter_names.size() == std::stoul(std::string(fields[3])));
        CHECK(header->has_pipes() == (fields[1] == "2"));
        ++seen;
    }
    CHECK(seen == 14);
}

TEST_CASE("canonical pipes map by column name on both architectures", "[pmu][parser]") {
    auto a2a3 = parse_header(
        "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,vec_busy_cycles,cube_busy_"
        "cycles,"
        "scalar_busy_cycles,mte1_busy_cycles,mte2_busy_cycles,mte3_busy_cycles,icache_miss,icache_"
        "req,"
        "event_type");
    REQUIRE(a2a3.ok());
    CHECK(a2a3->pipe_column[static_cast<std::size_t>(Pipe::Vec)] == 0u);
    CHECK(a2a3->pipe_column[static_cast<std::size_t>(Pipe::Mte3)] == 5u);
    CHECK_FALSE(a2a3->pipe_column[static_cast<std::size_t>(Pipe::Fixpipe)].has_value());
    CHECK(a2a3->icache_miss_column == 6u);
    CHECK(a2a3->icache_req_column == 7u);
    auto a5 = parse_header(
        "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,pmu_idc_aic_vec_busy_o,"
        "cube_instr_busy,scalar_instr_busy,mte1_instr_busy,mte2_instr_busy,mte3_instr_busy,icache_"
        "req,"
        "icache_miss,pmu_fix_instr_busy,event_type");
    REQUIRE(a5.ok());
    CHECK(a5->arch == Arch::A5);
    CHECK(a5->pipe_column[static_cast<std::size_t>(Pipe::Vec)] == 0u);
    CHECK(a5->pipe_column[static_cast<std::size_t>(Pipe::Fixpipe)] == 8u);
    CHECK(a5->icache_req_column == 6u);  // a5 swaps the icache pair
    CHECK(a5->icache_miss_column == 7u);
}

TEST_CASE("the upstream doc example row", "[pmu][parser]") {
    Diagnostics diagnostics;
    auto table = parse_file(
        "upstream__simpler_6ebaf771__pmu-profiling_md_example__unwrapped.pmu.csv", diagnostics);
    REQUIRE(table.ok());
    CHECK(diagnostics.empty());
    REQUIRE(table->rows.size() == 1);
    const Row& row = table->rows[0];
    CHECK(row.thread_id == 2);
    CHECK(row.core_id == 5);
    CHECK(row.ring_id() == 2);
    CHECK(row.local_id() == 0xa00);
    CHECK(format_task_id(row.task_id) == "0x0000000200000a00");
    CHECK(row.core_type == CoreType::Aiv);
    CHECK(row.total_cycles == 18432);
    CHECK(row.line == 2);
    CHECK(table->counters_of(0)[0] == 1024);
    CHECK(table->counters_of(0)[7] == 448);
}

TEST_CASE("bad rows are reported with their line and skipped", "[pmu][parser]") {
    Diagnostics diagnostics;
    auto table = parse_file("composed__a2a3_bad_rows.pmu.csv", diagnostics);
    REQUIRE(table.ok());
    REQUIRE(table->rows.size() == 2);
    CHECK(table->rows[0].line == 2);
    CHECK(table->rows[1].line == 7);
    CHECK(table->counters.size() == 2 * 8);  // no counters left behind by a rejected row
    REQUIRE(diagnostics.items().size() == 4);
    CHECK(diagnostics.items()[0].line == 3);
    CHECK_THAT(diagnostics.items()[0].message, Catch::Contains("expected 15 fields, found 9"));
    CHECK(diagnostics.items()[1].line == 4);
    CHECK_THAT(diagnostics.items()[1].message, Catch::Contains("vec_busy_cycles '61x4'"));
    CHECK(diagnostics.items()[2].line == 5);
    CHECK_THAT(diagnostics.items()[2].message, Catch::Contains("task_id"));
    CHECK(diagnostics.items()[3].line == 6);
    CHECK_THAT(diagnostics.items()[3].message, Catch::Contains("core_type '7'"));
}

TEST_CASE("files that are not pmu.csv fail with the place", "[pmu][parser]") {
    Diagnostics diagnostics;
    auto not_pmu = parse_file("composed__not_pmu.csv", diagnostics);
    REQUIRE_FALSE(not_pmu.ok());
    CHECK(not_pmu.error().line == 1);
    CHECK_THAT(not_pmu.error().message, Catch::Contains("not a pmu.csv"));
    CHECK_FALSE(parse_pmu_csv(std::string_view(""), "empty.csv", diagnostics).ok());
    CHECK_FALSE(parse_pmu_csv(std::string_view("\n1,2\n"), "blank.csv", diagnostics).ok());

    auto header_only = parse_file("composed__header_only.pmu.csv", diagnostics);
    REQUIRE(header_only.ok());
    CHECK(header_only->rows.empty());
}

TEST_CASE("an unknown counter set is kept raw with a warning", "[pmu][parser]") {
    Diagnostics diagnostics;
    auto table = parse_file("composed__unknown_header.pmu.csv", diagnostics);
    REQUIRE(table.ok());
    CHECK_FALSE(table->header.known);
    CHECK(table->header.arch == Arch::Unknown);
    CHECK(table->header.event_type == 9);  // taken from the rows
    CHECK_FALSE(table->header.has_pipes());
    REQUIRE(table->rows.size() == 1);
    CHECK(table->counters_of(0)[1] == 20);
    REQUIRE(diagnostics.items().size() == 1);
    CHECK(diagnostics.items()[0].line == 1);
}

TEST_CASE("streamed and in-memory parses agree; CRLF and rows in any order", "[pmu][parser]") {
    std::string text =
        "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,cube_fp_instr_busy,"
        "cube_int_instr_busy,event_type\r\n"
        "1,9,0x0000000000000002,1,0,500,100,0,1\r\n"
        "0,3,0x0000000000000001,0,0,400,0,7,1\r\n";
    Diagnostics diagnostics;
    std::istringstream in(text);
    auto streamed = parse_pmu_csv(in, "s.csv", diagnostics);
    auto direct = parse_pmu_csv(std::string_view(text), "s.csv", diagnostics);
    REQUIRE(streamed.ok());
    REQUIRE(direct.ok());
    CHECK(diagnostics.empty());
    CHECK(streamed->header.arch == Arch::A5);
    CHECK(streamed->header.event_type == 1);
    REQUIRE(streamed->rows.size() == 2);
    CHECK(streamed->counters == direct->counters);
    CHECK(streamed->rows[1].core_id == 3);
    CHECK(streamed->counters_of(1)[1] == 7);
}

}  // namespace pmu_parser_test
