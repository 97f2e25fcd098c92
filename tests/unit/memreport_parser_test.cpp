// The memory-report parser and analyzer against the fixtures' expected values (model data the
// composed reports were rendered from) and against composed damage.

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ptune/memreport/analyzer.hpp"
#include "ptune/memreport/parser.hpp"

namespace memreport_parser_test {

using namespace ptune;
using namespace ptune::memreport;

namespace {

std::string data_path(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/memreport/" + name;
}

std::string slurp(const std::string& name) {
    std::ifstream in(data_path(name), std::ios::binary);
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

struct Parsed {
    Report report;
    BackendChoice choice;
    Diagnostics diagnostics;
};

Parsed parse_fixture(const std::string& name, std::optional<Backend> forced = std::nullopt) {
    Parsed parsed;
    std::ifstream in(data_path(name), std::ios::binary);
    REQUIRE(in);
    parsed.report = parse_report(in, name, parsed.diagnostics);
    parsed.choice = analyze(parsed.report, forced, parsed.diagnostics);
    return parsed;
}

bool has_warning(const Diagnostics& diagnostics, std::size_t line, const std::string& needle) {
    for (const auto& item : diagnostics.items()) {
        if (item.line == line && item.message.find(needle) != std::string::npos) return true;
    }
    return false;
}

std::string all_diagnostics(const Diagnostics& diagnostics) {
    std::string text;
    for (const auto& item : diagnostics.items()) text += item.to_string() + "\n";
    return text;
}

// Every value of an *.expected.json must be recovered from its report.
void check_against_expected(const std::string& stem) {
    auto expected = nlohmann::json::parse(slurp(stem + ".expected.json"));
    Parsed parsed = parse_fixture(stem + ".memory_after_AllocateMemoryAddr.txt");
    INFO(all_diagnostics(parsed.diagnostics));
    CHECK(parsed.diagnostics.empty());
    const Report& report = parsed.report;
    CHECK(to_string(report.version) == expected["file_version"].get<std::string>());
    CHECK(report.pass == expected["pass"].get<std::string>());
    CHECK(report.backend_token == expected["backend"].get<std::string>());
    CHECK(report.functions_declared == expected["functions_count"].get<std::uint64_t>());
    CHECK(report.functions_suffix == expected["functions_suffix"].get<std::string>());
    REQUIRE(report.functions.size() == expected["functions"].size());
    // The JSON view carries the same numbers under the field names.
    const auto view = to_json(report, parsed.choice);
    CHECK(view["format_version"] == expected["file_version"]);
    for (std::size_t f = 0; f < report.functions.size(); ++f) {
        const auto& want = expected["functions"][f];
        const auto& got = view["functions"][f];
        CHECK(got["name"] == want["name"]);
        REQUIRE(got["spaces"].size() == want["spaces"].size());
        for (std::size_t s = 0; s < got["spaces"].size(); ++s) {
            CHECK(got["spaces"][s]["space"] == want["spaces"][s]["space"]);
            CHECK(got["spaces"][s]["used_bytes"] == want["spaces"][s]["used_bytes_exact"]);
            CHECK(got["spaces"][s]["limit_bytes"] == want["spaces"][s]["limit_bytes"]);
            CHECK(got["spaces"][s]["memrefs"] == want["spaces"][s]["memrefs"]);
            if (want["spaces"][s]["usage_pct"].is_null()) {
                CHECK(got["spaces"][s]["usage_pct"].is_null());
            } else {
                CHECK(got["spaces"][s]["usage_pct"].get<double>() ==
                      Approx(want["spaces"][s]["usage_pct"].get<double>()).margin(1e-6));
            }
        }
    }
    for (std::size_t f = 0; f < report.functions.size(); ++f) {
        const auto& want = expected["functions"][f];
        const Function& function = report.functions[f];
        INFO("function " << function.name);
        CHECK(function.name == want["name"].get<std::string>());
        REQUIRE(function.spaces.size() == want["spaces"].size());
        for (std::size_t s = 0; s < function.spaces.size(); ++s) {
            const auto& space = want["spaces"][s];
            const SpaceUsage& usage = function.spaces[s];
            INFO("space " << usage.space);
            CHECK(usage.space == space["space"].get<std::string>());
            CHECK(usage.used_text == space["used_text"].get<std::string>());
            CHECK(usage.used_bytes == space["used_bytes_exact"].get<std::uint64_t>());
            CHECK(usage.limit_text == space["limit_text"].get<std::string>());
            CHECK(usage.usage_text == space["usage_text"].get<std::string>());
            CHECK(usage.memrefs == space["memrefs"].get<std::uint64_t>());
            if (space["limit_bytes"].is_null()) {
                CHECK_FALSE(usage.limit_bytes);
                CHECK_FALSE(usage.usage_pct);
            } else {
                REQUIRE(usage.limit_bytes);
                CHECK(*usage.limit_bytes == space["limit_bytes"].get<std::uint64_t>());
                REQUIRE(usage.usage_pct);
                CHECK(*usage.usage_pct == Approx(space["usage_pct"].get<double>()).margin(1e-6));
                CHECK(format_percent(*usage.usage_pct) == usage.usage_text);
            }
            const auto& buffers = want["buffers"].contains(usage.space)
                                      ? want["buffers"][usage.space]
                                      : nlohmann::json::array();
            REQUIRE(usage.buffers.size() == buffers.size());
            for (std::size_t b = 0; b < buffers.size(); ++b) {
                const Buffer& buffer = usage.buffers[b];
                INFO("buffer " << buffer.name);
                CHECK(buffer.name == buffers[b]["name"].get<std::string>());
                CHECK(buffer.size_text == buffers[b]["size_text"].get<std::string>());
                CHECK(buffer.size_bytes == buffers[b]["size_bytes"].get<std::uint64_t>());
                CHECK(buffer.allocated == buffers[b]["allocated"].get<bool>());
                CHECK(buffer.addr_begin == buffers[b]["addr_begin"].get<std::uint64_t>());
                CHECK(buffer.addr_end == buffers[b]["addr_end"].get<std::uint64_t>());
                CHECK(buffer.live_begin == buffers[b]["live_begin"].get<std::uint64_t>());
                CHECK(buffer.live_end == buffers[b]["live_end"].get<std::uint64_t>());
            }
        }
    }
}

}  // namespace

TEST_CASE("sizes and percentages read and print as the writer does", "[memreport]") {
    CHECK(parse_size("768 B")->bytes == 768);
    CHECK(parse_size("768 B")->exact);
    CHECK(parse_size("129.0 KB")->bytes == 132096);
    CHECK_FALSE(parse_size("129.0 KB")->exact);
    CHECK(parse_size("1024.0 KB")->bytes == 1048576);  // 1048575 B prints as 1024.0 KB
    CHECK(parse_size("1.0 MB")->bytes == 1048576);
    CHECK_FALSE(parse_size("1.5 B"));
    CHECK_FALSE(parse_size("12#.0 KB"));
    CHECK_FALSE(parse_size("-1.0 KB"));
    CHECK_FALSE(parse_size("N/A"));
    CHECK(format_size(768) == "768 B");
    CHECK(format_size(1048575) == "1024.0 KB");
    CHECK(format_size(1064960) == "1.0 MB");
    CHECK(format_size(131200) == "128.1 KB");
    // printf-style half-even on the exact binary value (mem-report.md §6).
    CHECK(format_percent(15.625) == "15.6%");
    CHECK(format_percent(3.125) == "3.1%");
    CHECK(format_percent(6.25) == "6.2%");
    CHECK(format_percent(1000.0) == "1000.0%");
}

TEST_CASE("composed reports give the expected values", "[memreport]") {
    SECTION("v3 seed completion") {
        check_against_expected("composed__a2a3_v3__seed_completion");
    }
    SECTION("v3 views, reserve floor, long name") {
        check_against_expected("composed__a2a3_v3__views_reserve_longname");
    }
    SECTION("v1 legacy InCore") {
        check_against_expected("composed__a2a3_v1__legacy_incore");
    }
    SECTION("v3 without backend") {
        check_against_expected("composed__nobackend_v3__na_limits");
    }
}

TEST_CASE("exact Used comes from the address ranges, the backend from the header", "[memreport]") {
    Parsed parsed = parse_fixture(
        "composed__a2a3_v3__views_reserve_longname.memory_after_AllocateMemoryAddr.txt");
    const SpaceUsage* vec = parsed.report.functions[2].find("Vec");
    REQUIRE(vec);
    CHECK(vec->used_text == "128.1 KB");
    CHECK(vec->used_bytes == 131200);  // the printed 128.1 KB alone would read 131174
    CHECK(vec->used_exact);
    CHECK(parsed.choice.backend == Backend::A2A3);
    CHECK(parsed.choice.source == "header");
    CHECK_FALSE(parsed.choice.legacy_vec_limit);
}

TEST_CASE("the tuning guide's excerpt parses without header or blank lines", "[memreport]") {
    Parsed parsed =
        parse_fixture("upstream__pypto-lib_634e77bd__performance-tuning_md_L287-298__excerpt.txt");
    INFO(all_diagnostics(parsed.diagnostics));
    CHECK(parsed.diagnostics.empty());
    REQUIRE(parsed.report.functions.size() == 2);
    CHECK(parsed.report.functions[0].name == "gather_kv");
    CHECK(parsed.report.functions[1].spaces.size() == 4);
    CHECK(parsed.report.version == FormatVersion::Unknown);
    CHECK(parsed.choice.backend == Backend::A2A3);
    CHECK(parsed.choice.source == "limits");  // Acc 128 KB, Vec 184 KB
    CHECK(*parsed.report.functions[1].find("Acc")->usage_pct == Approx(3.125));
}

TEST_CASE("over-limit rows: MB units, usage >= 1000 %, an (unallocated) row, a5", "[memreport]") {
    Parsed parsed = parse_fixture(
        "composed_over__a5_overlimit_unallocated.memory_after_AllocateMemoryAddr.txt");
    INFO(all_diagnostics(parsed.diagnostics));
    CHECK(parsed.diagnostics.empty());
    CHECK(parsed.choice.backend == Backend::A5);
    const Function& aic = parsed.report.functions[0];
    CHECK(aic.find("Mat")->used_bytes == 1064960);
    CHECK(aic.find("Mat")->used_exact);
    CHECK(*aic.find("Mat")->usage_pct == Approx(203.125));
    CHECK_FALSE(aic.find("Mat")->buffers[2].allocated);
    CHECK(*aic.find("Acc")->limit_bytes == 262144);
    const SpaceUsage* vec = parsed.report.functions[1].find("Vec");
    CHECK(vec->usage_text == "1000.0%");
    CHECK(vec->used_bytes == 2457600);
    CHECK(*vec->usage_pct == Approx(1000.0));
}

TEST_CASE("v2 with CRLF line ends and a pre-safe-cap Vec limit", "[memreport]") {
    Parsed parsed =
        parse_fixture("composed_legacy__a2a3_v2_crlf.memory_after_AllocateMemoryAddr.txt");
    INFO(all_diagnostics(parsed.diagnostics));
    CHECK(parsed.diagnostics.empty());
    CHECK(parsed.report.version == FormatVersion::V2);
    CHECK(parsed.report.backend_token == "910B");
    REQUIRE(parsed.report.functions.size() == 2);
    CHECK(parsed.report.functions[0].find("Vec")->used_bytes == 194560);
    CHECK(*parsed.report.functions[0].find("Vec")->limit_bytes == 196608);
    CHECK(parsed.choice.legacy_vec_limit);
}

TEST_CASE("damage is reported with file:line and what parsed is kept", "[memreport]") {
    const std::string name = "composed_bad__damaged.memory_after_AllocateMemoryAddr.txt";
    Parsed parsed = parse_fixture(name);
    const std::string diagnostics = all_diagnostics(parsed.diagnostics);
    INFO(diagnostics);
    CHECK(has_warning(parsed.diagnostics, 3, "unknown backend '910C_X'"));
    CHECK(has_warning(parsed.diagnostics, 11, "garbled table row in 'attn_aic'"));
    CHECK(has_warning(parsed.diagnostics, 12, "garbled table row in 'attn_aic'"));
    CHECK(has_warning(parsed.diagnostics, 18, "the Buffers block ends at 32768 B"));
    CHECK(has_warning(parsed.diagnostics, 4, "announces 3 function(s) but 2 were read"));
    REQUIRE(parsed.report.functions.size() == 2);
    const Function& aic = parsed.report.functions[0];
    REQUIRE(aic.spaces.size() == 1);
    CHECK(aic.spaces[0].space == "Mat");
    const SpaceUsage& vec = parsed.report.functions[1].spaces[0];
    CHECK(vec.used_bytes == 65536);  // the printed Used, not the cut buffer block
    CHECK_FALSE(vec.used_exact);
    CHECK(parsed.choice.backend == Backend::A2A3);  // inferred from the Vec limit
    CHECK(parsed.choice.source == "limits");
}

TEST_CASE("stray and malformed lines never stop the parser", "[memreport]") {
    Diagnostics diagnostics;
    Report report = parse_report(
        "  Vec    |   1.0 KB  |   184.0 KB  |   0.5%  |  1\n"
        "hello\n"
        "--- empty ---\n"
        "--- f ---\n"
        "  Vec    |   1.0 KB  |   184.0 KB  |   0.5%  |  1\n"
        "  Vec    |   2.0 KB  |   184.0 KB  |   1.1%  |  1\n"
        "  Buffers (Mat)  -- base allocations making up Used (gaps between ranges = alignment)\n"
        "    mem_mat_0         |     8.0 KB  |  [0, 8192)       |  [4, 40]\n"
        "  Buffers (Vec)  -- base allocations making up Used (gaps between ranges = alignment)\n"
        "    mem_vec_0         |     1.0 KB  |  [1024, 0)       |  [4, 40]\n"
        "    mem_vec_1         |     1.0 KB  |  [0, 1024)  \n",
        "t.txt", diagnostics);
    INFO(all_diagnostics(diagnostics));
    CHECK(has_warning(diagnostics, 1, "before any '--- function ---'"));
    CHECK(has_warning(diagnostics, 2, "unrecognised line 'hello'"));
    CHECK(has_warning(diagnostics, 3, "'empty' has no table rows"));
    CHECK(has_warning(diagnostics, 6, "second 'Vec' row"));
    CHECK(has_warning(diagnostics, 7, "does not list"));
    CHECK(has_warning(diagnostics, 10, "garbled Buffers (Vec) row"));
    CHECK(has_warning(diagnostics, 11, "garbled Buffers (Vec) row"));
    REQUIRE(report.functions.size() == 1);
    CHECK(report.functions[0].spaces.size() == 1);
    CHECK(report.functions[0].spaces[0].buffers.empty());
    CHECK(report.version == FormatVersion::V3);
}

TEST_CASE("a forced backend fills N/A limits and overrides with a warning", "[memreport]") {
    Parsed filled = parse_fixture(
        "composed__nobackend_v3__na_limits.memory_after_AllocateMemoryAddr.txt", Backend::A5);
    const SpaceUsage& vec = filled.report.functions[0].spaces[0];
    REQUIRE(vec.limit_bytes);
    CHECK(*vec.limit_bytes == 245760);
    CHECK(vec.limit_from_backend);
    CHECK(*vec.usage_pct == Approx(100.0 * 768 / 245760));
    CHECK(filled.diagnostics.empty());

    Parsed overridden = parse_fixture(
        "composed__a2a3_v3__seed_completion.memory_after_AllocateMemoryAddr.txt", Backend::A5);
    CHECK(overridden.choice.backend == Backend::A5);
    CHECK(overridden.choice.source == "option");
    CHECK(
        has_warning(overridden.diagnostics, 3, "--backend a5 overrides the report, which is a2a3"));
    // The printed limits stay: they are what the compiler used.
    CHECK(*overridden.report.functions[1].find("Acc")->limit_bytes == 131072);
}

TEST_CASE("a report cut at any byte parses what is left without failing", "[memreport]") {
    const std::string text =
        slurp("composed__a2a3_v3__views_reserve_longname.memory_after_AllocateMemoryAddr.txt");
    for (std::size_t cut = 0; cut <= text.size(); ++cut) {
        Diagnostics diagnostics;
        Report report = parse_report(std::string_view(text).substr(0, cut), "cut.txt", diagnostics);
        BackendChoice choice = analyze(report, std::nullopt, diagnostics);
        rules::MetricStore store;
        publish_metrics(report, choice, store);
        INFO("cut at byte " << cut);
        REQUIRE(report.functions.size() <= 3);
        for (const auto& function : report.functions) {
            REQUIRE_FALSE(function.spaces.empty());
            for (const auto& usage : function.spaces) {
                // Used is never below what a (possibly cut) Buffers block proves.
                for (const auto& buffer : usage.buffers)
                    REQUIRE(usage.used_bytes >= buffer.addr_end);
            }
        }
    }
}

}  // namespace memreport_parser_test
