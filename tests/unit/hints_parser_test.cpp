#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/hints/parser.hpp"

namespace hints_parser_test {

using namespace ptune;
using namespace ptune::hints;
using nlohmann::json;

namespace {

std::string data_path(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/hints/" + name;
}

std::string read_data(const std::string& name) {
    auto text = io::read_file(data_path(name));
    REQUIRE(text.ok());
    return *text;
}

std::vector<Entry> parse_file(const std::string& name, Diagnostics& diagnostics) {
    std::ifstream in(data_path(name));
    REQUIRE(in);
    std::vector<Entry> entries;
    parse_log(in, name, diagnostics, [&](Entry&& entry) { entries.push_back(std::move(entry)); });
    return entries;
}

json optional_text(const std::optional<SourceSpan>& span, bool file) {
    if (!span) return nullptr;
    return file ? json(span->file) : json(span->line);
}

// Every fixture entry: code, rule, message, raw location and typed fields as in *.expected.json.
void check_against_expected(const std::string& stem) {
    Diagnostics diagnostics;
    auto entries = parse_file(stem + ".perf_hints.log", diagnostics);
    json expected = json::parse(read_data(stem + ".expected.json"))["entries"];
    REQUIRE(entries.size() == expected.size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
        INFO(stem << " entry " << i);
        const Entry& entry = entries[i];
        CHECK(entry.code.str() == expected[i]["code"]);
        CHECK(entry.rule.str() == expected[i]["rule"]);
        CHECK(entry.message == expected[i]["message"]);
        CHECK(optional_text(entry.span, true) == expected[i]["file"]);
        CHECK(optional_text(entry.span, false) == expected[i]["line"]);
        CHECK((entry.span ? json(entry.span->column) : json(nullptr)) == expected[i]["col"]);
        CHECK(entry.fields.json() == expected[i]["fields"]);
        CHECK(entry.template_matched);
    }
    CHECK(diagnostics.empty());
}

}  // namespace

TEST_CASE("fixture logs parse to the expected entries", "[hints]") {
    check_against_expected("composed__a2a3_pypto_planner__head_format");
    check_against_expected("composed__a2a3_legacy_v1_ph001");
    check_against_expected("composed__a2a3_v2_ph001");
}

TEST_CASE("PH001 template generations are told apart", "[hints]") {
    Diagnostics diagnostics;
    auto v1 = parse_file("composed__a2a3_legacy_v1_ph001.perf_hints.log", diagnostics);
    auto v2 = parse_file("composed__a2a3_v2_ph001.perf_hints.log", diagnostics);
    auto head = parse_file("composed__a2a3_pypto_planner__head_format.perf_hints.log", diagnostics);
    CHECK(v1[0].ph001_template == 1);
    CHECK(v2[0].ph001_template == 2);
    CHECK(head[10].ph001_template == 3);
    CHECK(head[15].ph001_template == 2);  // HEAD without the volume clause (symbolic shape)
    CHECK(head[0].ph001_template == 0);   // not PH001
}

TEST_CASE("a multi-line entry keeps its lines and takes the location from the last", "[hints]") {
    Diagnostics diagnostics;
    auto entries =
        parse_file("composed__a2a3_pypto_planner__head_format.perf_hints.log", diagnostics);
    const Entry& chooser = entries[2];
    CHECK(chooser.code == "PH-AT-005");
    CHECK(chooser.log_line == 3);
    CHECK(chooser.physical_lines == 2);
    CHECK(entries[3].log_line == 5);
    REQUIRE(chooser.span);
    CHECK(chooser.span->line == 471);
    CHECK(chooser.message.find("\nCheck failed: best at /home/dev/pypto/src/ir/transforms/utils/"
                               "l0_tile_chooser.cpp:600") != std::string::npos);
}

TEST_CASE("split_location takes the last ' at file:line:col'", "[hints]") {
    std::string text = "x (16 occurrences at this source location) at models/a b.py:3:-1";
    auto span = split_location(text);
    REQUIRE(span);
    CHECK(span->file == "models/a b.py");
    CHECK(span->line == 3);
    CHECK(span->column == -1);
    CHECK(text == "x (16 occurrences at this source location)");

    std::string no_column = "Check failed: best at x.cpp:600";
    CHECK_FALSE(split_location(no_column));
    CHECK(no_column == "Check failed: best at x.cpp:600");

    std::string pseudo = "msg at <string>:12:0";
    span = split_location(pseudo);
    REQUIRE(span);
    CHECK(span->file == "<string>");
    CHECK(span->column == 0);

    std::string colon_path = "msg at C:/k/x.py:7:2";
    span = split_location(colon_path);
    REQUIRE(span);
    CHECK(span->file == "C:/k/x.py");

    std::string across_lines = "msg at first\nline.py:1:2";
    CHECK_FALSE(split_location(across_lines));
    std::string empty_file = "msg at :1:2";
    CHECK_FALSE(split_location(empty_file));
    std::string huge = "msg at f.py:99999999999999999999999:1";
    CHECK_FALSE(split_location(huge));
}

TEST_CASE("the other templates give typed fields", "[hints]") {
    Diagnostics diagnostics;
    auto entries = parse_log_text(
        "[perf_hint PH-DSA-001] AllocateMemoryAddr: DSA-RP's bounded strict search did not retain "
        "all software-pipeline buffer separations for 'qk_kernel'; 1 of 1 relaxed pair(s) reuse "
        "physical storage. Pipeline overlap may be reduced. at k.py:10:1\n"
        "[perf_hint PH-AT-006] AutoTileMatmulL0: tile.matmul with a Vec left operand needs M/N "
        "tiling, which this pass does not support; left untouched at k.py:20:5\n"
        "[perf_hint PH-AT-007] AutoTileMatmulL0: tile.matmul: chooser picked k=48 not dividing "
        "K=200; K-boundary handling not yet supported — left untouched at k.py:21:5\n"
        "[perf_hint PH-XY-042] NewPass: tile.load: something new at k.py:30:5\n"
        "[perf_hint PH001] TileInnermostDimGranularity: tile.load has innermost dim = lots\n",
        "t.log", diagnostics);
    REQUIRE(entries.size() == 5);
    CHECK(entries[0].fields.json() ==
          json{{"function", "qk_kernel"}, {"overlapping_pairs", 1}, {"relaxed_pairs", 1}});
    CHECK(entries[1].fields.json() == json{{"op", "tile.matmul"}});
    CHECK(entries[2].fields.json() == json{{"op", "tile.matmul"}});  // older wording: op only
    CHECK(entries[2].template_matched);
    CHECK(entries[3].code == "PH-XY-042");
    CHECK(entries[3].fields.json() == json{{"op", "tile.load"}});
    CHECK_FALSE(entries[4].template_matched);
    CHECK(entries[4].fields.json() == json{{"op", "tile.load"}});
    CHECK_FALSE(entries[4].span);
    REQUIRE(diagnostics.items().size() == 1);
    CHECK(diagnostics.items()[0].line == 5);
}

TEST_CASE("damaged logs keep what parsed and name the bad lines", "[hints]") {
    Diagnostics diagnostics;
    std::string text =
        "garbage before\nmore garbage\n"
        "[perf_hint PH001 broken\n"
        "continuation of the broken one\n"
        "[perf_hint PH-AT-003] AutoTileMatmulL0: tile.matmul: unsupported sub-byte dtype on "
        "operand or accumulator — left untouched at k.py:5:9\r\n"
        "\n"
        "[perf_hint] Legacy: no code here \xff at k.py:6:1";
    auto entries = parse_log_text(text, "bad.log", diagnostics);
    REQUIRE(entries.size() == 2);
    CHECK(entries[0].code == "PH-AT-003");
    CHECK(entries[0].span->column == 9);  // the CR of a CRLF file is not part of the column
    CHECK(entries[1].code.empty());
    CHECK(entries[1].rule == "Legacy");
    CHECK(entries[1].message == "no code here \xEF\xBF\xBD");
    std::vector<std::size_t> lines;
    for (const auto& d : diagnostics.items()) lines.push_back(d.line);
    CHECK(lines == std::vector<std::size_t>{1, 3, 7});
}

TEST_CASE("the wrapped upstream doc excerpt is read as one entry without a location", "[hints]") {
    // The doc wraps the log line; a real log never does. The entry is kept, its template not.
    Diagnostics diagnostics;
    auto entries = parse_file(
        "upstream__pypto-lib_634e77bd__performance-tuning_md_L400-403__wrapped_excerpt.txt",
        diagnostics);
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].code == "PH001");
    CHECK(entries[0].physical_lines == 4);
    CHECK_FALSE(entries[0].template_matched);
}

TEST_CASE("dtype widths follow the compiler's names", "[hints]") {
    CHECK(dtype_bits("bfloat16") == 16);
    CHECK(dtype_bits("int4") == 4);
    CHECK(dtype_bits("bool") == 1);
    CHECK(dtype_bits("fp8e4m3fn") == 8);
    CHECK_FALSE(dtype_bits("bf16"));
    CHECK(is_known_code("PH-AT-011"));
    CHECK_FALSE(is_known_code("PH-AT-001"));
}

}  // namespace hints_parser_test
