#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "hints_test_data.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"
#include "ptune/hints/lint.hpp"
#include "ptune/hints/render.hpp"

namespace hints_lint_test {

using namespace ptune;
using namespace ptune::hints;
namespace fs = std::filesystem;

namespace {

using hints_test::catalogue;
using hints_test::data_path;

ParsedLog read_text(const std::string& text, const std::string& name,
                    std::optional<int> base = std::nullopt) {
    std::istringstream in(text);
    Diagnostics diagnostics;
    return read_log(in, name, diagnostics, base, std::nullopt);
}

ParsedLog read_data(const std::string& name) {
    auto text = io::read_file(data_path(name));
    REQUIRE(text.ok());
    return read_text(*text, name);
}

LintResult lint_logs(std::vector<ParsedLog> logs, const LintOptions& options = {}) {
    Diagnostics diagnostics;
    return lint(std::move(logs), catalogue(), options, diagnostics);
}

const LintDiagnostic& at_line(const LintResult& result, std::size_t line) {
    for (const auto& d : result.diagnostics) {
        if (d.line == line) return d;
    }
    FAIL("no diagnostic at line " << line);
    throw std::logic_error("unreachable");
}

// A scratch directory removed at the end of the test.
struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("ptune-hints-" + std::to_string(::getpid()));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
    void write(const std::string& name, const std::string& text) const {
        fs::create_directories((path / name).parent_path());
        std::ofstream(path / name) << text;
    }
};

const char* kPh001 =
    "[perf_hint PH001] TileInnermostDimGranularity: tile.load has innermost dim = 128B (tile "
    "fp32[32], target_memory=Vec); moves 2048B as 16 x 128B rows; recommended >= 512B for backend "
    "a2a3 (L2 cache line = 512B). Consider increasing tile shape on the innermost axis. at ";

}  // namespace

TEST_CASE("columns become 1-based by the template generation or the build directory", "[hints]") {
    ParsedLog v1 = read_data("composed__a2a3_legacy_v1_ph001.perf_hints.log");
    CHECK(v1.column_base.base == 0);
    ParsedLog head = read_data("composed__a2a3_pypto_planner__head_format.perf_hints.log");
    CHECK(head.column_base.base == 1);
    ParsedLog v2 = read_data("composed__a2a3_v2_ph001.perf_hints.log");
    CHECK(v2.column_base.base == 1);  // no marker: today's base
    CHECK(read_text(std::string(kPh001) + "k.py:3:0\n", "z").column_base.base == 1);  // v3 wins
    CHECK(read_text("[perf_hint PH-AT-003] AutoTileMatmulL0: tile.matmul: x at k.py:3:0\n", "z")
              .column_base.base == 0);
    CHECK(read_text("[perf_hint PH-AT-003] AutoTileMatmulL0: tile.matmul: x at k.py:3:0\n", "z", 1)
              .column_base.base == 1);

    auto result = lint_logs({std::move(v1)});
    REQUIRE(result.diagnostics.size() == 2);   // v1 repeats identical lines: merged
    CHECK(result.diagnostics[0].column == 5);  // 0-based 4 -> 1-based 5
    CHECK(result.diagnostics[0].count == 2);
    CHECK(result.diagnostics[0].weight == 2);  // v1: the repeats are the occurrences

    auto build = column_base_from_build(
        data_path("build_output/Attn_20260820_101500/report/perf_hints.log"));
    REQUIRE(build);
    CHECK(build->base == 1);
    CHECK_FALSE(column_base_from_build(data_path("composed__a2a3_v2_ph001.perf_hints.log")));
}

TEST_CASE("a compile appended twice collapses to one set of diagnostics", "[hints]") {
    ParsedLog twice = read_data("composed__appended_twice.perf_hints.log");
    CHECK(twice.total_entries == 32);
    CHECK(twice.compile_starts == std::vector<std::size_t>{1, 18});
    CHECK(twice.identical_compiles);
    ParsedLog once = read_data("composed__a2a3_pypto_planner__head_format.perf_hints.log");
    CHECK(once.compile_starts.size() == 1);

    auto result = lint_logs({std::move(twice)});
    CHECK(result.diagnostics.size() == 16);
    for (const auto& d : result.diagnostics) CHECK(d.count == 2);
    REQUIRE(result.log_findings.size() == 1);
    CHECK(result.log_findings[0].rule == "hints.appended-log");

    // PH001-only logs: a site that comes back (or goes back in order) starts a new compile.
    std::string a = std::string(kPh001) + "k.py:3:5\n";
    std::string b = std::string(kPh001) + "k.py:9:5\n";
    ParsedLog same = read_text(a + b + a + b, "z");
    CHECK(same.compile_starts == std::vector<std::size_t>{1, 3});
    CHECK(same.identical_compiles);
    ParsedLog changed = read_text(a + b + a, "z");
    CHECK(changed.compile_starts.size() == 2);
    CHECK_FALSE(changed.identical_compiles);
    ParsedLog invalid_first =
        read_text(a + std::string(kPh001).substr(0, std::string(kPh001).size() - 4) + "\n", "z");
    CHECK(invalid_first.compile_starts.size() == 2);
}

TEST_CASE("advice comes from the hints rules of the catalogue", "[hints]") {
    auto result =
        lint_logs({read_data("composed__a2a3_pypto_planner__head_format.perf_hints.log")});
    REQUIRE(result.diagnostics.size() == 16);
    std::map<std::size_t, std::string> rule_by_log_line;
    for (const auto& d : result.diagnostics) rule_by_log_line[d.entry.log_line] = d.rule_id;
    CHECK(rule_by_log_line[1] == "hints.PH-AT-008");
    CHECK(rule_by_log_line[5] == "hints.PH-AT-006");   // the Mat-scratch variant (H8)
    CHECK(rule_by_log_line[10] == "hints.PH-MR-001");  // slot-bound (H3)
    CHECK(rule_by_log_line[11] == "hints.PH-MR-001-space-pressure");  // H4
    const auto& bf16 = at_line(result, 338);
    CHECK(bf16.catalogue == "H1");
    CHECK(bf16.advice_summary ==
          "widen the innermost tile dimension (256 B) to a multiple of 256 bfloat16 elements (512 "
          "B)");
    const auto& int4 = at_line(result, 96);
    CHECK(int4.advice_summary.find("1024 int4 elements") != std::string::npos);
    // The invalid-span PH001 has no location and keeps its log line.
    const auto& invalid = result.diagnostics[10];
    CHECK(invalid.line == 0);
    CHECK(invalid.file.empty());
    CHECK(invalid.entry.log_line == 12);
    CHECK(at_line(result, 311).weight == 2048 * 16);

    // H2: the valid region narrower than the tile adds its advice.
    auto padded = lint_logs({read_text(
        "[perf_hint PH001] TileInnermostDimGranularity: tile.load has innermost dim = 64B (tile "
        "fp32[16], target_memory=Vec); moves 64B as 4 x 16B rows; recommended >= 128B for backend "
        "a5 (L2 cache line = 512B). Consider increasing tile shape on the innermost axis. at "
        "k.py:3:5\n",
        "z")});
    REQUIRE(padded.diagnostics.size() == 1);
    CHECK(padded.diagnostics[0].rule_ids ==
          std::vector<SharedText>{"hints.PH001", "hints.PH001-tail"});
    CHECK(padded.diagnostics[0].advice_summary.find("32 fp32 elements (128 B)") !=
          std::string::npos);

    // A rule disabled with --rules drops its hints.
    rules::Catalogue custom = catalogue();
    REQUIRE(
        custom.merge_json(R"({"rules":[{"id":"hints.PH001","enabled":false}]})", "x.json").ok());
    Diagnostics diagnostics;
    auto without =
        lint({read_data("composed__a2a3_v2_ph001.perf_hints.log")}, custom, {}, diagnostics);
    CHECK(without.diagnostics.empty());
    CHECK(without.disabled == 2);
}

TEST_CASE("fingerprints survive line shifts and drive the baseline", "[hints]") {
    auto before = lint_logs({read_data("composed__a2a3_v2_ph001.perf_hints.log")});
    auto after = lint_logs({read_data("composed__a2a3_v2_ph001_shifted.perf_hints.log")});
    REQUIRE(before.diagnostics.size() == 2);
    REQUIRE(after.diagnostics.size() == 2);
    CHECK(before.diagnostics[0].line != after.diagnostics[0].line);
    CHECK(before.diagnostics[0].fingerprint == after.diagnostics[0].fingerprint);
    CHECK(before.diagnostics[1].fingerprint == after.diagnostics[1].fingerprint);
    CHECK(before.diagnostics[0].fingerprint != before.diagnostics[1].fingerprint);

    auto baseline = parse_baseline(baseline_json(before), "b.json");
    REQUIRE(baseline.ok());
    REQUIRE(baseline->entries.size() == 2);
    baseline->entries.erase(baseline->entries.begin());
    baseline->entries.push_back({"0000000000000000:0", "PH001", "gone.py", "old hint"});
    apply_baseline(after, *baseline);
    std::size_t reported = 0, baselined = 0;
    for (const auto& d : after.diagnostics) {
        reported += d.disposition == Disposition::Reported;
        baselined += d.disposition == Disposition::Baselined;
    }
    CHECK(reported == 1);
    CHECK(baselined == 1);
    REQUIRE(after.fixed.size() == 1);
    CHECK(after.fixed[0].file == "gone.py");

    // Two identical statements in one file keep distinct fingerprints.
    auto twins =
        lint_logs({read_text(std::string(kPh001) + "k.py:3:5\n" + kPh001 + "k.py:9:5\n", "z")});
    REQUIRE(twins.diagnostics.size() == 2);
    CHECK(twins.diagnostics[0].fingerprint.substr(0, 16) ==
          twins.diagnostics[1].fingerprint.substr(0, 16));
    CHECK(twins.diagnostics[0].fingerprint != twins.diagnostics[1].fingerprint);

    CHECK_FALSE(parse_baseline("{\"entries\": []}", "b.json").ok());
    CHECK_FALSE(parse_baseline("not json", "b.json").ok());
    CHECK(parse_baseline("not json", "b.json").error().file == "b.json");
}

TEST_CASE("inline suppressions, unused ones and kernel functions come from the source", "[hints]") {
    TempDir repo;
    repo.write("k/attn.py",
               "import pypto.language as pl\n"
               "\n"
               "@pl.function\n"
               "def kernel(x):\n"
               "    a = pl.load(x)  # ptune: ignore[PH001]\n"
               "    # ptune: ignore[PH001, PH-AT-007]\n"
               "    b = pl.load(x)\n"
               "    c = pl.load(x)  # ptune: ignore\n"
               "    d = pl.load(x)\n"
               "\n"
               "def helper():\n"
               "    pass  # ptune: ignored for prose, not a marker\n");
    std::string log;
    for (int line : {4, 5, 7, 8, 9})
        log += std::string(kPh001) + "k/attn.py:" + std::to_string(line) + ":9\n";
    LintOptions options;
    options.root = repo.path;
    auto result = lint_logs({read_text(log, "z")}, options);
    REQUIRE(result.diagnostics.size() == 5);
    CHECK(at_line(result, 4).disposition == Disposition::Reported);  // the def line itself
    CHECK(at_line(result, 5).disposition == Disposition::Suppressed);
    CHECK(at_line(result, 5).suppressed_by == "k/attn.py:5");
    CHECK(at_line(result, 7).disposition == Disposition::Suppressed);
    CHECK(at_line(result, 7).suppressed_by == "k/attn.py:6");
    CHECK(at_line(result, 8).disposition == Disposition::Suppressed);
    // A trailing comment covers its own line only, never the next statement.
    CHECK(at_line(result, 9).disposition == Disposition::Reported);
    REQUIRE(result.unused_suppressions.size() == 1);
    CHECK(result.unused_suppressions[0].line == 6);
    CHECK(result.unused_suppressions[0].code == "PH-AT-007");
    for (const auto& d : result.diagnostics) CHECK(d.kernel == "kernel");

    LintOptions no_inline = options;
    no_inline.inline_suppressions = false;
    auto everything = lint_logs({read_text(log, "z")}, no_inline);
    for (const auto& d : everything.diagnostics) CHECK(d.disposition == Disposition::Reported);

    rules::MetricStore store;
    publish_kernel_metrics(result, store);
    const auto& kernel = store.subjects().at({"kernel", "kernel"});
    CHECK(*kernel.metric("hints.PH001.count") == 5);
    CHECK(*kernel.metric("hints.count") == 5);
    CHECK(*kernel.metric("hints.PH001.traffic_bytes") == 5 * 2048);
}

TEST_CASE("the root option makes absolute paths relative; pseudo-files lose their location",
          "[hints]") {
    LintOptions options;
    options.root = "/home/dev/pypto-lib";
    auto result =
        lint_logs({read_data("composed__a2a3_pypto_planner__head_format.perf_hints.log")}, options);
    CHECK(result.diagnostics[0].file == "models/qwen3_14b/decode_fwd.py");
    auto pseudo = lint_logs({read_text(std::string(kPh001) + "<string>:3:5\n", "z")});
    CHECK(pseudo.diagnostics[0].line == 0);
    CHECK(pseudo.diagnostics[0].entry.span->file == "<string>");
}

TEST_CASE("output forms follow the conventions", "[hints]") {
    CHECK(ptune::text::github_escape("a%b\r\nc:d,e", false) == "a%25b%0D%0Ac:d,e");
    CHECK(ptune::text::github_escape("a%b\r\nc:d,e", true) == "a%25b%0D%0Ac%3Ad%2Ce");

    auto result =
        lint_logs({read_data("composed__a2a3_pypto_planner__head_format.perf_hints.log")});
    render::Report report;
    std::ostringstream github;
    make_github_renderer(result, 3)->render(report, github, {});
    std::string text = github.str();
    std::size_t warnings = 0, pos = 0;
    while ((pos = text.find("\n::warning ", pos)) != std::string::npos) ++warnings, ++pos;
    CHECK(warnings + (text.rfind("::warning ", 0) == 0) == 3);
    CHECK(text.find("::notice title=ptune hints-lint::13 more perf hint(s)") != std::string::npos);
    CHECK(text.find("::group::ptune hints-lint: all 16 hints") != std::string::npos);
    // Ranked by traffic: the 131072 B site first.
    CHECK(text.rfind(
              "::warning file=/home/dev/pypto-lib/models/qwen3_14b/decode_fwd.py,line=311,col=25",
              0) == 0);

    std::ostringstream sarif;
    make_sarif_renderer(result, catalogue(), false)->render(report, sarif, {});
    auto document = nlohmann::json::parse(sarif.str());
    CHECK(document["version"] == "2.1.0");
    const auto& run = document["runs"][0];
    CHECK(run["results"].size() == 16);
    CHECK(run["tool"]["driver"]["rules"].size() == 10);  // distinct codes
    const auto& first = run["results"][0];
    CHECK(first["ruleId"] == "PH-AT-008");
    CHECK(first["locations"][0]["physicalLocation"]["region"]["startColumn"] == 21);
    CHECK(first["partialFingerprints"]["primaryLocationLineHash"] ==
          result.diagnostics[0].fingerprint);
    // The invalid-span PH001 points at its own log line (GitHub code scanning requires a
    // location on every result).
    const auto& log_location = run["results"][10]["locations"][0]["physicalLocation"];
    CHECK(log_location["artifactLocation"]["uri"].get<std::string>().find("perf_hints.log") !=
          std::string::npos);
    CHECK(log_location["region"]["startLine"] == result.diagnostics[10].entry.log_line);
}

}  // namespace hints_lint_test
