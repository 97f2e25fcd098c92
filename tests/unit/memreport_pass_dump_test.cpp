// Rebuilding the memory table from a pass dump (mem-report.md §11, upstream-2026-09.md §5):
// both syntaxes, discovery and cross-check, backend resolution, live ranges and the peak, the
// under-fill noise threshold, and damaged dumps.

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/memreport/live_ranges.hpp"
#include "ptune/memreport/memory_map.hpp"
#include "ptune/memreport/pass_dump.hpp"
#include "ptune/memreport/pipeline.hpp"
#include "ptune/memreport/report.hpp"
#include "ptune/rules/engine.hpp"

namespace memreport_pass_dump_test {

using namespace ptune;
using namespace ptune::memreport;
namespace fs = std::filesystem;

namespace {

std::string data_path(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/memreport/passdump/" + name;
}

std::string read(const std::string& path) {
    auto text = io::read_file(path);
    REQUIRE(text.ok());
    return *text;
}

const std::string kOld = "old_syntax/passes_dump/13_after_AllocateMemoryAddr.py";
const std::string kBothRun = "tree_both/build_output/Demo_20260720_100000/";
const std::string kOverlap3 = "overlap3/passes_dump/11_after_AllocateMemoryAddr.py";

Analysis load(const std::string& input, Diagnostics& diagnostics, Options options = {}) {
    auto source = locate_report(input, diagnostics);
    REQUIRE(source.ok());
    auto analysis = load_and_analyze(*source, options, diagnostics);
    REQUIRE(analysis.ok());
    return std::move(*analysis);
}

std::set<std::tuple<std::string, std::string, std::string>> findings_of(const Analysis& analysis) {
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    rules::MetricStore store;
    publish(analysis, store);
    std::set<std::tuple<std::string, std::string, std::string>> fired;
    for (const auto& f : rules::evaluate(*catalogue, store, {"mem."}))
        fired.emplace(f.rule, f.subject.name, std::string(rules::to_string(f.severity)));
    return fired;
}

bool has_warning(const Diagnostics& diagnostics, std::size_t line, const std::string& needle) {
    for (const auto& d : diagnostics.items()) {
        if (d.line == line && d.message.find(needle) != std::string::npos) return true;
    }
    return false;
}

std::size_t occurrences(const std::string& text, const std::string& needle) {
    std::size_t count = 0;
    for (std::size_t at = 0; (at = text.find(needle, at)) != std::string::npos; ++at) ++count;
    return count;
}

std::string live_names(const SpaceUsage& usage) {
    std::string out;
    for (std::size_t index : usage.peak->live) out += usage.buffers[index].name + " ";
    return out;
}

}  // namespace

TEST_CASE("old-syntax dump rebuilds the v1 report of its build byte for byte",
          "[memreport][dump]") {
    Diagnostics diagnostics;
    Analysis analysis = load(data_path(kOld), diagnostics);
    const Report& report = analysis.report;
    CHECK(report.origin == Origin::PassDump);
    CHECK(report.dump_syntax == DumpSyntax::Old);
    CHECK(report.program == "RopeBlock");
    CHECK(analysis.choice.source == "assumed");
    CHECK(format_text_report(report, "910B_CCE", FormatVersion::V1) ==
          read(data_path("old_syntax/memory_after_AllocateMemoryAddr.expected.txt")));

    // The expected data, independent of the text: bytes, limits, MemRefs and buffers.
    auto expected = nlohmann::json::parse(read(data_path("old_syntax/expected.json")));
    REQUIRE(report.functions.size() == expected["functions"].size());
    for (std::size_t f = 0; f < report.functions.size(); ++f) {
        const auto& want = expected["functions"][f];
        const Function& got = report.functions[f];
        CHECK(got.name == want["name"]);
        REQUIRE(got.spaces.size() == want["spaces"].size());
        for (std::size_t s = 0; s < got.spaces.size(); ++s) {
            const auto& ws = want["spaces"][s];
            const SpaceUsage& gs = got.spaces[s];
            CHECK(gs.space == ws["space"]);
            CHECK(gs.used_bytes == ws["used_bytes"].get<std::uint64_t>());
            CHECK(gs.used_exact);
            CHECK(gs.limit_bytes == ws["limit_bytes"].get<std::uint64_t>());
            CHECK(gs.memrefs == ws["memrefs"].get<std::uint64_t>());
            REQUIRE(gs.buffers.size() == ws["buffers"].size());
            for (std::size_t b = 0; b < gs.buffers.size(); ++b) {
                CHECK(gs.buffers[b].name == ws["buffers"][b][0]);
                CHECK(gs.buffers[b].addr_begin == ws["buffers"][b][1].get<std::uint64_t>());
                CHECK(gs.buffers[b].size_bytes == ws["buffers"][b][2].get<std::uint64_t>());
            }
        }
    }
    for (const auto& excluded : expected["excluded_functions"]) {
        for (const auto& function : report.functions) CHECK(function.name != excluded);
    }
    // March 2026: the Vec limit is the pre-safe-cap 192 KB.
    CHECK(analysis.choice.legacy_vec_limit);
}

TEST_CASE("older syntax: size-0 and 16 B Vec functions as in real March-2026 dumps",
          "[memreport][dump][rules]") {
    const std::string dump =
        "# pypto.program: Qwen3\n"
        "import pypto.language as pl\n\n@pl.program\nclass Qwen3:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def q_incore_0_aiv(self, x_0: pl.Tensor[[1, 4], pl.FP32, "
        "pl.MemRef(pl.MemorySpace.DDR, -1, 16, 0)]):\n"
        "        mem_vec_10: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, 0, 16, 10)\n"
        "        return x_0\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def q_incore_2_aiv(self):\n"
        "        mem_vec_1: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, 0, 0, 1)\n"
        "        mem_vec_2: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, 0, 0, 2)\n"
        "        mem_vec_3: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, 0, 0, 3)\n"
        "        mem_vec_4: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, 0, 0, 4)\n"
        "        return\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def q_incore_3_aiv(self):\n"
        "        mem_vec_1: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, 0, 8192, 1)\n"
        "        return\n";
    Diagnostics diagnostics;
    Report report = parse_pass_dump(std::string_view(dump), "dump.py", diagnostics);
    CHECK(diagnostics.items().empty());
    apply_dump_backend(report, Backend::A2A3, "assumed", diagnostics);
    Analysis analysis{{"dump.py", "", ""}, std::move(report), {}, {}};
    analysis.choice = analyze(analysis.report, std::nullopt, diagnostics);
    REQUIRE(analysis.report.functions.size() == 3);
    CHECK(format_text_report(analysis.report, "910B_CCE", FormatVersion::V1)
              .find("  Vec    |       16 B  |   192.0 KB  |    0.0%  |  1\n") != std::string::npos);
    const SpaceUsage& zero = analysis.report.functions[1].spaces.front();
    CHECK(zero.used_bytes == 0);
    CHECK(zero.memrefs == 4);
    // 16 B and 0 B of Vec are below the 1 KB threshold: no under-fill warning; 8 KB still has one.
    auto fired = findings_of(analysis);
    CHECK_FALSE(fired.count({"mem.underfilled-vec", "q_incore_0_aiv", "warning"}));
    CHECK_FALSE(fired.count({"mem.underfilled-vec", "q_incore_2_aiv", "warning"}));
    CHECK(fired.count({"mem.underfilled-vec", "q_incore_3_aiv", "warning"}));
}

TEST_CASE("a new-syntax dump and the text report of the same build give equal tables",
          "[memreport][dump]") {
    Diagnostics diagnostics;
    // The build directory holds both: the text report is read, the dump cross-checks it.
    Analysis both = load(data_path("tree_both"), diagnostics);
    CHECK(fs::path(both.source.file).filename() == kReportName);
    CHECK(fs::path(both.source.cross_check).filename() == "14_after_AllocateMemoryAddr.py");
    CHECK(both.differences.empty());

    Diagnostics dump_diagnostics;
    Analysis dump =
        load(data_path(kBothRun + "passes_dump/14_after_AllocateMemoryAddr.py"), dump_diagnostics);
    CHECK(dump.report.dump_syntax == DumpSyntax::New);
    CHECK(dump_diagnostics.items().empty());
    CHECK(compare_tables(both.report, dump.report).empty());
    // Not vacuous: the functions, spaces, bytes and buffers are the ones composed.
    REQUIRE(dump.report.functions.size() == 3);
    const SpaceUsage* vec = dump.report.functions[1].find("Vec");
    REQUIRE(vec);
    CHECK(vec->used_bytes == 122880);  // the tile-typed parameter at 106496 + 16384
    CHECK(vec->memrefs == 5);
    CHECK(vec->buffers.front().addr_begin == 8192);  // the reserved floor below it
    const SpaceUsage* mat = dump.report.functions[0].find("Mat");
    REQUIRE(mat);
    CHECK(mat->memrefs == 3);  // the slice view counts on its own
    CHECK(mat->buffers.size() == 2);

    // A difference is found and named.
    Report changed = dump.report;
    changed.functions[1].spaces[0].buffers[1].addr_begin += 32;
    changed.functions[1].spaces[0].memrefs = 4;
    auto differences = compare_tables(both.report, changed);
    REQUIRE(differences.size() == 3);
    CHECK(differences[0] == "'attn_aiv' Vec: MemRefs 5 in the text report, 4 in the dump");
}

TEST_CASE("three buffers live together: the exact peak and live-at-peak list",
          "[memreport][dump][live]") {
    Diagnostics diagnostics;
    Analysis analysis = load(data_path(kOverlap3), diagnostics);
    REQUIRE(analysis.report.functions.size() == 1);
    const SpaceUsage& vec = analysis.report.functions[0].spaces.at(0);
    REQUIRE(vec.peak);
    CHECK(vec.peak->bytes == 40960);
    CHECK(vec.peak->at == 10);
    CHECK(vec.peak->top == 40960);
    CHECK(live_names(vec) == "mem_vec_0 mem_vec_1 mem_vec_2 ");
    // mem_vec_3 reuses mem_vec_0's bytes after its last use: reuse, not an overlap.
    CHECK(vec.overlaps.empty());
    const Buffer& reused = vec.buffers[1];
    CHECK(reused.name == "mem_vec_3");
    CHECK(reused.live_begin == 11);
    CHECK(reused.live_end == 12);
    CHECK(analysis.choice.source == "assumed");

    auto view = to_json(analysis.report, analysis.choice);
    const auto& peak = view["functions"][0]["spaces"][0]["peak"];
    CHECK(peak["live_bytes"] == 40960);
    CHECK(peak["at"] == 10);
    REQUIRE(peak["live"].size() == 3);
    CHECK(peak["live"][2] == nlohmann::json({{"name", "mem_vec_2"},
                                             {"size_bytes", 8192},
                                             {"addr_begin", 32768},
                                             {"addr_end", 40960},
                                             {"live_begin", 10},
                                             {"live_end", 11}}));

    // The map marks exactly those three rectangles and the peak line.
    std::string svg = memory_map_svg(analysis.report, analysis.report.functions[0], vec, 0);
    CHECK(occurrences(svg, "data-live-at-peak=\"1\"") == 3);
    CHECK(svg.find("data-peak-at=\"10\" data-peak-bytes=\"40960\"") != std::string::npos);
    CHECK(svg.find("limit 184.0 KB") != std::string::npos);
}

TEST_CASE("peak and overlaps on hand-made live ranges", "[memreport][live]") {
    SpaceUsage usage;
    auto add = [&](std::string name, std::uint64_t begin, std::uint64_t end, std::uint64_t from,
                   std::uint64_t to) {
        Buffer buffer;
        buffer.name = std::move(name);
        buffer.allocated = true;
        buffer.addr_begin = begin;
        buffer.addr_end = end;
        buffer.size_bytes = end - begin;
        buffer.live_begin = from;
        buffer.live_end = to;
        usage.buffers.push_back(buffer);
    };
    add("a", 0, 100, 1, 5);
    add("b", 100, 300, 5, 9);
    add("c", 50, 150, 6, 6);  // overlaps b in address and time; a only in address
    auto peak = find_peak(usage);
    REQUIRE(peak);
    CHECK(peak->bytes == 300);  // a + b at 5 and b + c at 6 are both 300: the first point wins
    CHECK(peak->at == 5);
    auto overlaps = find_overlaps(usage);
    REQUIRE(overlaps.size() == 1);
    CHECK(usage.buffers[overlaps[0].first].name == "c");
    CHECK(usage.buffers[overlaps[0].second].name == "b");
    CHECK(overlaps[0].at == 6);
    CHECK_FALSE(find_peak(SpaceUsage{}));
}

TEST_CASE("discovery: the newest dump by its NN, never an earlier pass; backend resolution",
          "[memreport][dump][pipeline]") {
    auto found = find_reports(data_path("tree_dump_only"));
    REQUIRE(found.size() == 2);
    CHECK(found[0].filename() == "14_after_AllocateMemoryAddr.py");
    CHECK(found[1].filename() == "07_after_AllocateMemoryAddr.py");
    Diagnostics diagnostics;
    auto source = choose_report(found, data_path("tree_dump_only"), diagnostics);
    CHECK(fs::path(source.file).filename() == "14_after_AllocateMemoryAddr.py");
    CHECK(source.cross_check.empty());

    Analysis meta = load(data_path("tree_dump_only"), diagnostics);
    CHECK(meta.choice.backend == Backend::A2A3);
    CHECK(meta.choice.source == "compiled_meta");

    // ptoas/*.pto target_arch comes before compiled_meta.json.
    Analysis ptoas = load(data_path("tree_dump_ptoas"), diagnostics);
    CHECK(ptoas.choice.backend == Backend::A5);
    CHECK(ptoas.choice.source == "ptoas");
    CHECK(ptoas.report.functions[1].find("Vec")->limit_bytes == 240u * 1024);
    CHECK(ptoas.report.functions[0].find("Acc")->limit_bytes == 256u * 1024);

    // --backend before everything.
    Options forced;
    forced.backend = Backend::A2A3;
    Analysis option = load(data_path("tree_dump_ptoas"), diagnostics, forced);
    CHECK(option.choice.source == "option");
    CHECK(option.report.functions[1].find("Vec")->limit_bytes == 184u * 1024);
}

TEST_CASE("a damaged compiled_meta.json is said at its line, and a2a3 is assumed",
          "[memreport][dump][pipeline][malformed]") {
    const fs::path tree =
        fs::temp_directory_path() / ("ptune-memreport-meta-" + std::to_string(::getpid()));
    fs::remove_all(tree);
    fs::copy(data_path("tree_dump_only"), tree, fs::copy_options::recursive);
    const fs::path meta = tree / "build_output/Demo_20260901_090000/compiled_meta.json";
    REQUIRE(fs::exists(meta));
    std::ofstream(meta) << "{\n  \"backend_type\": \"Ascend950";  // cut mid-write
    Diagnostics diagnostics;
    Analysis analysis = load(tree.string(), diagnostics);
    CHECK(analysis.choice.backend == Backend::A2A3);
    CHECK(analysis.choice.source == "assumed");
    CHECK(has_warning(diagnostics, 2, "not valid JSON: syntax error"));
    CHECK(has_warning(diagnostics, 2, "; a2a3 is assumed"));
    fs::remove_all(tree);
}

TEST_CASE("damaged dumps: clear messages with the dump line, the rest of the table kept",
          "[memreport][dump][malformed]") {
    std::string dump = read(data_path(kOverlap3));
    SECTION("a MemRef with an unparsable size") {
        std::string bad = dump;
        bad.replace(bad.find("), 8192)"), 8, "), 8l92)");
        Diagnostics diagnostics;
        Report report = parse_pass_dump(std::string_view(bad), "d.py", diagnostics);
        CHECK(has_warning(diagnostics, 10, "unparsable size '8l92'"));
        REQUIRE(report.functions.size() == 1);
        CHECK(report.functions[0].spaces[0].buffers.size() == 3);
        CHECK(report.functions[0].spaces[0].memrefs == 3);
    }
    SECTION("a dump that stops inside a function") {
        std::string cut = dump.substr(0, dump.find("        d_vec"));
        Diagnostics diagnostics;
        Report report = parse_pass_dump(std::string_view(cut), "d.py", diagnostics);
        CHECK(has_warning(diagnostics, 10, "the dump ends inside function 'peak_aiv'"));
        REQUIRE(report.functions.size() == 1);
        CHECK(report.functions[0].spaces[0].exact_used == 40960);
    }
    SECTION("a line cut inside a MemRef") {
        std::string cut = dump.substr(0, dump.find("16384), pl.Mem.Vec] = pl.tile.exp"));
        Diagnostics diagnostics;
        Report report = parse_pass_dump(std::string_view(cut), "d.py", diagnostics);
        CHECK(has_warning(diagnostics, 9, "does not close on its line"));
        CHECK(report.functions.size() == 1);
    }
    SECTION("overlapping buffers live at the same time: an error finding") {
        std::string bad = dump;
        bad.replace(bad.find("mem_vec_2, pl.const(32768"), 25, "mem_vec_2, pl.const(24576");
        Diagnostics diagnostics;
        Report report = parse_pass_dump(std::string_view(bad), "d.py", diagnostics);
        apply_dump_backend(report, Backend::A2A3, "assumed", diagnostics);
        Analysis analysis{{"d.py", "", ""}, std::move(report), {}, {}};
        analysis.choice = analyze(analysis.report, std::nullopt, diagnostics);
        CHECK(has_warning(diagnostics, 10, "mem_vec_1 [16384, 32768) and mem_vec_2"));
        CHECK(findings_of(analysis).count({"mem.live-overlap", "peak_aiv", "error"}));
    }
    SECTION("an address past the limit") {
        std::string bad = dump;
        bad.replace(bad.find("pl.const(32768"), 14, "pl.const(190000");
        Diagnostics diagnostics;
        Report report = parse_pass_dump(std::string_view(bad), "d.py", diagnostics);
        apply_dump_backend(report, Backend::A2A3, "assumed", diagnostics);
        CHECK(has_warning(diagnostics, 10, "mem_vec_2 ends at 198192 B, past the Vec limit"));
        CHECK(report.functions[0].spaces[0].buffers.size() == 4);
    }
    SECTION("a dump before address assignment is refused") {
        std::string early = dump;
        for (const char* offset : {"pl.const(16384", "pl.const(32768"}) {
            early.replace(early.find(offset), std::string(offset).size(), "pl.const(0");
        }
        Diagnostics diagnostics;
        Report report = parse_pass_dump(std::string_view(early), "d.py", diagnostics);
        CHECK(report.refusal.find("before address assignment") != std::string::npos);
    }
}

TEST_CASE("the HTML page is self-contained and holds one map per space", "[memreport][html]") {
    Diagnostics diagnostics;
    Analysis analysis = load(data_path("tree_both"), diagnostics);
    auto report = build_report(analysis, {}, false);
    std::ostringstream out;
    make_html_renderer(analysis)->render(report, out, {});
    std::string html = out.str();
    CHECK(html.find("<!DOCTYPE html>") == 0);
    CHECK(html.find("src=\"http") == std::string::npos);
    CHECK(html.find("href=\"http") == std::string::npos);
    CHECK(occurrences(html, "data-chart=\"memory-map-") ==
          6);  // attn_aic: 4 spaces, attn_aiv: Vec, scale_aiv: Vec
    CHECK(memory_maps(analysis.report).size() == 6);
    CHECK(memory_maps(analysis.report, 2).size() == 2);
}

TEST_CASE("newer syntax variants: user-named base, literal and dynamic offsets, Bias, rebinding",
          "[memreport][dump]") {
    const std::string dump =
        "# pypto.program: V\n@pl.program\nclass V:\n"
        "    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.CORE)\n"
        "    def mm_aic(self, x: pl.Tensor[[16, 16], pl.FP32]):\n"
        "        a: pl.Tile[[16, 16], pl.BF16, pl.MemRef(\"my_ring_buffer_name_long\", 1024, 512), "
        "pl.Mem.Mat] = pl.tile.load(x)\n"
        "        b: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_mat_1, i * 512, 512), pl.Mem.Mat] = "
        "pl.tile.slice(a)\n"
        "        c: pl.Tile[[1, 16], pl.FP32, pl.MemRef(mem_bias_0, 0, 64), pl.Mem.Bias] = "
        "pl.tile.load(x)\n"
        "        if i == 0:\n"
        "            d: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_0, pl.const(0, pl.INT64), "
        "1024), "
        "pl.Mem.Acc] = pl.tile.matmul(a, b)\n"
        "        else:\n"
        "            d: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_0, pl.const(0, pl.INT64), "
        "1024), "
        "pl.Mem.Acc] = pl.tile.matmul_acc(d, a, b)\n"
        "        return d\n";
    Diagnostics diagnostics;
    Report report = parse_pass_dump(std::string_view(dump), "v.py", diagnostics);
    CHECK(diagnostics.items().empty());
    REQUIRE(report.functions.size() == 1);
    const Function& f = report.functions[0];
    REQUIRE(f.spaces.size() == 2);  // Mat and Acc; Bias is never tabled
    const SpaceUsage* mat = f.find("Mat");
    REQUIRE(mat);
    CHECK(mat->exact_used == 1536u);  // 1024 + 512; the dynamic offset counts its size only
    CHECK(mat->memrefs == 2);
    REQUIRE(mat->buffers.size() == 2);
    CHECK(mat->buffers[0].name == "my_ring_buffer_name_long");
    CHECK(mat->buffers[0].live_begin == 6);
    CHECK(mat->buffers[0].live_end == 12);   // `a` is read by both matmul arms
    CHECK_FALSE(mat->buffers[1].allocated);  // mem_mat_1 has no constant offset
    const SpaceUsage* acc = f.find("Acc");
    REQUIRE(acc);
    CHECK(acc->memrefs == 1);  // `d` bound in both arms is one tile
    CHECK(acc->buffers[0].live_begin == 10);
    CHECK(acc->buffers[0].live_end == 13);  // to the return
}

}  // namespace memreport_pass_dump_test
