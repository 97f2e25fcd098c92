// write_function_json (memreport/findings.hpp) writes the text nlohmann's dump(2) gives for
// function_json(), at any indentation: checked on hand-made functions with every shape the
// DOM has (peaks, overlaps, unallocated rows, a repeated space, escapes, bad UTF-8, fractions)
// and on every fixture report.

#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "json_writer_check.hpp"
#include "ptune/core/io.hpp"
#include "ptune/memreport/analyzer.hpp"
#include "ptune/memreport/findings.hpp"
#include "ptune/memreport/parser.hpp"

namespace memreport_json_writer_test {

using namespace ptune;
using namespace ptune::memreport;

namespace {

void check_same(const Function& function) {
    json_writer_check::check_writes_dump(function_json(function),
                                         [&](std::size_t indent, std::string& text) {
                                             write_function_json(function, indent, text);
                                         });
}

Buffer buffer(std::string name, std::uint64_t begin, std::uint64_t end, bool allocated = true) {
    Buffer b;
    b.name = std::move(name);
    b.size_bytes = end - begin;
    b.size_text = std::to_string(end - begin) + " B";
    b.allocated = allocated;
    b.addr_begin = begin;
    b.addr_end = end;
    b.live_begin = begin / 16;
    b.live_end = end / 16;
    return b;
}

}  // namespace

TEST_CASE("write_function_json equals function_json's dump on every shape", "[memreport][json]") {
    Function empty;
    check_same(empty);

    Function f;
    f.name = "kernel \"q\"\\\t\x01 caf\xc3\xa9 bad\xff";
    SpaceUsage vec;
    vec.space = "Vec";
    vec.used_text = "96 B";
    vec.limit_text = "N/A";
    vec.usage_text = "N/A";
    vec.memrefs = 3;
    vec.used_bytes = 96;
    vec.used_exact = true;
    vec.limit_bytes = 196608;
    vec.limit_from_backend = true;
    vec.usage_pct = 100.0 * 96 / 196608;
    vec.buffers = {buffer("a", 0, 32), buffer("b\n", 16, 64), buffer("c", 0, 8, false)};
    vec.peak = SpacePeak{64, 2, 64, {0, 1}};
    vec.overlaps = {Overlap{0, 1, 1}};
    f.spaces.push_back(vec);
    SpaceUsage mat;
    mat.space = "Mat";
    mat.usage_pct = 50.0;  // a whole number as a double: "50.0"
    f.spaces.push_back(mat);
    SpaceUsage vec_again = vec;  // a repeated space: function_json keeps the last one's rows
    vec_again.buffers = {buffer("z", 0, 1u << 20)};
    vec_again.peak.reset();
    vec_again.overlaps.clear();
    vec_again.usage_pct.reset();
    f.spaces.push_back(vec_again);
    SpaceUsage acc;
    acc.space = "Acc";
    acc.buffers = {buffer("x", 0, 1024)};
    f.spaces.push_back(acc);
    check_same(f);
}

TEST_CASE("write_function_json equals function_json on every fixture report", "[memreport][json]") {
    std::size_t functions = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(PTUNE_TEST_DATA) + "/memreport")) {
        if (entry.path().extension() != ".txt") continue;
        auto text = io::read_file(entry.path());
        REQUIRE(text.ok());
        Diagnostics diagnostics;
        Report report = parse_report(std::string_view(*text), entry.path().string(), diagnostics);
        analyze(report, std::nullopt, diagnostics);
        for (const auto& function : report.functions) {
            check_same(function);
            ++functions;
        }
    }
    CHECK(functions > 10);
}

}  // namespace memreport_json_writer_test
