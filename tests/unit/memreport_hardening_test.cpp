// mem-report under attack (issue 36): deeply nested `pl.const(` in a pass dump, and a v3 report
// cut at a line boundary inside its last function.

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "ptune/memreport/analyzer.hpp"
#include "ptune/memreport/parser.hpp"
#include "ptune/memreport/pass_dump.hpp"

namespace memreport_hardening_test {

using namespace ptune;
using namespace ptune::memreport;

namespace {

std::string nested_const(std::size_t levels, std::uint64_t value) {
    std::string text;
    for (std::size_t i = 0; i < levels; ++i) text += "pl.const(";
    text += std::to_string(value);
    for (std::size_t i = 0; i < levels; ++i) text += ", pl.INT64)";
    return text;
}

std::string hardening_data(const std::string& name) {
    std::ifstream in(std::string(PTUNE_TEST_DATA) + "/memreport/" + name, std::ios::binary);
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("a MemRef size nested in 100,000 pl.const( is read, in one pass", "[memreport][dump]") {
    for (std::size_t levels : {1u, 2u, 100000u}) {
        const std::string dump =
            "# pypto.program: Deep\n"
            "import pypto.language as pl\n\n@pl.program\nclass Deep:\n"
            "    @pl.function(type=pl.FunctionType.InCore)\n"
            "    def deep_aiv(self):\n"
            "        mem_vec_1: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, 0, " +
            nested_const(levels, 4096) +
            ", 1)\n"
            "        return\n";
        Diagnostics diagnostics;
        Report report = parse_pass_dump(std::string_view(dump), "deep.py", diagnostics);
        INFO(levels << " levels");
        REQUIRE(report.functions.size() == 1);
        CHECK(report.functions[0].spaces.front().exact_used == 4096u);
    }
    // An outer call that never closes is no constant.
    const std::string open =
        "# pypto.program: Deep\n"
        "import pypto.language as pl\n\n@pl.program\nclass Deep:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def deep_aiv(self):\n"
        "        mem_vec_1: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, 0, "
        "pl.const(pl.const(4096, pl.INT64), 1)\n"
        "        return\n";
    Diagnostics diagnostics;
    Report report = parse_pass_dump(std::string_view(open), "open.py", diagnostics);
    CHECK((report.functions.empty() || report.functions[0].spaces.front().exact_used != 4096u));
}

TEST_CASE("a v3 report cut at a line boundary inside its last function is named truncated",
          "[memreport]") {
    const std::string text =
        hardening_data("composed__a2a3_v3__seed_completion.memory_after_AllocateMemoryAddr.txt");
    // Whole: no such warning.
    {
        Diagnostics diagnostics;
        Report report = parse_report(std::string_view(text), "whole.txt", diagnostics);
        for (const auto& item : diagnostics.items())
            CHECK(item.message.find("truncated") == std::string::npos);
    }
    // Cut after each line of the last function (header to its first Buffers row): a warning
    // at the last line read, naming the function.
    std::size_t last_function = text.rfind("\n--- kv_proj_matmul ---\n") + 1;
    std::size_t first_buffer_row = text.find("mem_mat_0", last_function);
    for (std::size_t cut = text.find('\n', last_function) + 1; cut < first_buffer_row;
         cut = text.find('\n', cut) + 1) {
        std::string_view part = std::string_view(text).substr(0, cut);
        Diagnostics diagnostics;
        Report report = parse_report(part, "cut.txt", diagnostics);
        std::size_t lines = static_cast<std::size_t>(std::count(part.begin(), part.end(), '\n'));
        bool has_rows =
            !report.functions.empty() && report.functions.back().name == "kv_proj_matmul";
        if (!has_rows) continue;  // no row of it read yet: the function was dropped (warned)
        bool warned = false;
        for (const auto& item : diagnostics.items()) {
            warned = warned || (item.message.find("looks truncated inside its last function "
                                                  "'kv_proj_matmul'") != std::string::npos &&
                                item.line == lines);
        }
        INFO("cut after line " << lines);
        CHECK(warned);
    }
}

TEST_CASE("size and percent intervals at the reader's limits never fail", "[memreport]") {
    // The largest MB value the reader accepts, and past it.
    auto top = size_interval("1000000000000.0 MB");
    if (top) CHECK(top->lo <= top->hi);
    CHECK_FALSE(size_interval("1000000000001.0 MB"));
    CHECK_FALSE(percent_interval("1e400%", 196608, {0, 1000}));
    CHECK_FALSE(percent_interval("81.6%", 0, {0, 1000}));
    auto wide = percent_interval("99999999999999999999.9%", 1, {0, 1000});
    CHECK_FALSE(wide);
}

TEST_CASE("size_interval: exactly the byte counts that print the text, on a grid of values",
          "[memreport]") {
    // size_interval searches a window around the value read (issue 35); the interval must be
    // every byte count format_size prints as `text` and nothing next to it, as the search over
    // the whole KB or MB range gave.
    auto check = [](const std::string& text) {
        INFO(text);
        auto range = size_interval(text);
        REQUIRE(range);
        CHECK(range->lo <= range->hi);
        CHECK(format_size(range->lo) == text);
        CHECK(format_size(range->hi) == text);
        CHECK(format_size(range->lo - 1) != text);
        CHECK(format_size(range->hi + 1) != text);
    };
    for (int tenths = 10; tenths <= 10240; tenths += 7)
        check(fmt::format("{}.{} KB", tenths / 10, tenths % 10));
    check("1024.0 KB");
    for (long tenths = 10; tenths <= 200000; tenths += 997)
        check(fmt::format("{}.{} MB", tenths / 10, tenths % 10));
    for (const char* text : {"1.0 MB", "4095.9 MB", "123456789.5 MB", "9999999.9 MB"}) check(text);
    CHECK_FALSE(size_interval("0.9 MB"));     // below 1 MiB the writer prints KB
    CHECK_FALSE(size_interval("1024.1 KB"));  // past 1048575 B it prints MB
    CHECK_FALSE(size_interval("0.4 KB"));
}

}  // namespace memreport_hardening_test
