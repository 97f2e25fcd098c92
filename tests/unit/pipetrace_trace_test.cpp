// Core swimlane traces (upstream-2026-12.md §4): the §4.6 composed example's numbers from both
// the Insight export and its Perfetto variant, the self-check, labels, bad input (§4.5), and
// the pipe.* rules.

#include <catch2/catch.hpp>

#include <sstream>

#include "ptune/pipetrace/pipeline.hpp"
#include "ptune/pipetrace/trace_events.hpp"
#include "ptune/rules/engine.hpp"

namespace pipetrace_trace_test {

using namespace ptune;
using namespace ptune::pipetrace;

namespace {

const std::string kPipeData = std::string(PTUNE_TEST_DATA) + "/pipetrace/";
const std::string kFolder =
    kPipeData + "core_swimlane_TestQkMatmul_case1_a2a3sim_qk_matmul_mix0_20261201_120000";

Result<Trace> parse_pipe_text(const std::string& text, Diagnostics& diagnostics) {
    std::istringstream in(text);
    return parse_trace(in, "t.json", diagnostics);
}

const PipeStats* pipe_row(const SubCoreStats& core, pmu::Pipe pipe) {
    for (const PipeStats& row : core.pipes)
        if (row.pipe == pipe) return &row;
    return nullptr;
}

double overlap_of(const SubCoreStats& core, pmu::Pipe a, pmu::Pipe b) {
    for (const Overlap& overlap : core.overlaps)
        if ((overlap.a == a && overlap.b == b) || (overlap.a == b && overlap.b == a))
            return overlap.time;
    return -1;
}

void check_spec_numbers(const Loaded& loaded) {
    const Analysis& analysis = loaded.analysis;
    CHECK(analysis.span == Approx(4.5));
    REQUIRE(analysis.subcores.size() == 1);
    const SubCoreStats& core = analysis.subcores[0];
    CHECK(core.name == "core0.cubecore0");
    const PipeStats* mte2 = pipe_row(core, pmu::Pipe::Mte2);
    REQUIRE(mte2);
    CHECK(mte2->busy == Approx(3.0));
    CHECK(mte2->instr_time == Approx(4.0));
    CHECK(mte2->count == 2);
    CHECK(pipe_row(core, pmu::Pipe::Mte1)->busy == Approx(0.5));
    CHECK(pipe_row(core, pmu::Pipe::Cube)->busy == Approx(1.5));
    CHECK(pipe_row(core, pmu::Pipe::Fixpipe)->busy == Approx(0.5));
    CHECK(overlap_of(core, pmu::Pipe::Mte2, pmu::Pipe::Cube) == Approx(0.5));
    CHECK(core.exposed_load == Approx(2.5));
    CHECK(analysis.check.mmad == 1);
    CHECK(analysis.check.fix_l0c == 1);
    CHECK_FALSE(analysis.check.truncated);
    REQUIRE(analysis.bottleneck);
    CHECK(*analysis.bottleneck == pmu::Pipe::Mte2);
    CHECK(analysis.kernel == "qk_matmul");
}

}  // namespace

TEST_CASE("pipe trace: the §4.6 composed example, Insight export", "[pipetrace]") {
    Diagnostics diagnostics;
    auto loaded = load(kPipeData + "spec_4_6_trace.json", 1, diagnostics);
    REQUIRE(loaded);
    CHECK_FALSE(loaded->trace.perfetto);
    CHECK(loaded->trace.flags == 1);  // the B/E SET_FLAG pair is not MTE2 work
    loaded->analysis = analyze(loaded->trace, {1, "TestQkMatmul_case1_a2a3sim_qk_matmul_mix0"});
    check_spec_numbers(*loaded);
    CHECK(diagnostics.empty());
}

TEST_CASE("pipe trace: the folder prefers the Perfetto variant, same numbers", "[pipetrace]") {
    Diagnostics diagnostics;
    auto loaded = load(kFolder, 1, diagnostics);
    REQUIRE(loaded);
    CHECK(loaded->trace.perfetto);
    CHECK(loaded->path.find("_trace_perfetto.json") != std::string::npos);
    check_spec_numbers(*loaded);
}

TEST_CASE("pipe trace: labels and kernel names", "[pipetrace]") {
    CHECK(label_of(kFolder) == "TestQkMatmul_case1_a2a3sim_qk_matmul_mix0");
    CHECK(label_of("x/Foo_c_a5_k_mix0_1_2_trace_perfetto.json") == "Foo_c_a5_k_mix0_1_2");
    CHECK(kernel_of_label("Foo_c_a5_k_mix0_1_2") == "k");
    CHECK(kernel_of_label("TestQkMatmul_case1_a2a3sim_qk_matmul_mix0") == "qk_matmul");
    CHECK(kernel_of_label("Test_case_a2a3_flash_attn_mix1_2") == "flash_attn");
    CHECK(kernel_of_label("no_platform_here_mix0").empty());
    CHECK(kernel_of_label("Test_case_a5_kernel").empty());
    CHECK(pipe_of_lane("FIXPIPE") == pmu::Pipe::Fixpipe);
    CHECK(pipe_of_lane("VECTOR#3") == pmu::Pipe::Vec);
    CHECK_FALSE(pipe_of_lane("CACHEMISS"));
}

TEST_CASE("pipe trace: self-check against the loop trip count", "[pipetrace]") {
    Diagnostics diagnostics;
    auto trace = parse_pipe_text(
        R"([{"name":"MMAD","ph":"X","pid":"core0.cubecore0","tid":"CUBE","ts":0,"dur":1},
            {"name":"MMAD","ph":"X","pid":"core0.cubecore0","tid":"CUBE","ts":1,"dur":1},
            {"name":"FIX_L0C_TO_DST","ph":"X","pid":"core0.cubecore0","tid":"FIXP","ts":2,"dur":1},
            {"name":"MOV","ph":"X","pid":"core0.cubecore0","tid":"MTE2","ts":0,"dur":3}])",
        diagnostics);
    REQUIRE(trace);
    Analysis unequal = analyze(*trace, {});
    CHECK(unequal.check.truncated);
    CHECK(unequal.check.verdict.rfind("truncated export: no timing conclusion", 0) == 0);
    CHECK_FALSE(unequal.bottleneck);  // no timing conclusion

    auto even = parse_pipe_text(
        R"([{"name":"MMAD","ph":"X","pid":"core0.cubecore0","tid":"CUBE","ts":0,"dur":1},
            {"name":"FIX_L0C_TO_DST","ph":"X","pid":"core0.cubecore0","tid":"FIXP","ts":2,"dur":1}])",
        diagnostics);
    REQUIRE(even);
    CHECK(analyze(*even, {4, ""}).check.truncated);  // 1 < n_blocks 4
    CHECK_FALSE(analyze(*even, {1, ""}).check.truncated);
    CHECK(analyze(*even, {1, ""}).bottleneck);
}

TEST_CASE("pipe trace: exposed load against CUBE ∪ VECTOR", "[pipetrace]") {
    Diagnostics diagnostics;
    auto trace = parse_pipe_text(
        R"({"traceEvents":[
            {"name":"L","ph":"X","pid":"core0.veccore0","tid":"MTE2","ts":0,"dur":10},
            {"name":"V","ph":"X","pid":"core0.veccore0","tid":"VECTOR","ts":2,"dur":2},
            {"name":"V","ph":"X","pid":"core0.veccore0","tid":"VECTOR","ts":3,"dur":2},
            {"name":"X","ph":"X","pid":"core0.veccore0","tid":"MYSTERY","ts":0,"dur":1},
            {"name":"C","ph":"X","pid":"core0.veccore0","tid":"CACHEMISS","ts":0,"dur":1},
            {"name":"H","ph":"X","pid":7,"tid":"MTE2","ts":0,"dur":100}]})",
        diagnostics);
    REQUIRE(trace);
    CHECK(trace->non_core == 1);
    Analysis analysis = analyze(*trace, {});
    REQUIRE(analysis.subcores.size() == 1);
    const SubCoreStats& core = analysis.subcores[0];
    CHECK(core.mte2_compute_overlap == Approx(3.0));
    CHECK(core.exposed_load == Approx(7.0));
    CHECK(core.exposed_share == Approx(0.7));
    CHECK(trace->subcores[0].other_lanes.at("MYSTERY") == 1);
    CHECK_FALSE(analysis.check.applicable);
}

TEST_CASE("pipe trace: bad input per §4.5", "[pipetrace]") {
    Diagnostics diagnostics;
    CHECK_FALSE(parse_pipe_text("42", diagnostics));
    CHECK_FALSE(parse_pipe_text("not json", diagnostics));
    auto unpaired = parse_pipe_text(
        R"([{"name":"SET_FLAG","ph":"B","pid":"core0.cubecore0","tid":"MTE2","id":1,"ts":1},
            {"name":"WAIT_FLAG","ph":"E","pid":"core0.cubecore0","tid":"CUBE","id":2,"ts":2},
            7,
            {"name":"MOV","ph":"X","pid":"core0.cubecore0","tid":"MTE2","ts":"x"},
            {"name":"MOV","ph":"X","pid":"core0.cubecore0","tid":"MTE2","ts":4}])",
        diagnostics);
    REQUIRE(unpaired);
    CHECK(unpaired->unpaired_flags == 2);
    CHECK(unpaired->skipped == 1);
    CHECK(unpaired->instructions == 1);  // the missing dur is 0
    REQUIRE(diagnostics.items().size() == 2);
    CHECK(diagnostics.items()[0].line == 3);
    CHECK(diagnostics.items()[1].line == 4);

    Diagnostics cut;
    auto truncated = parse_pipe_text(
        "{\"traceEvents\":[\n{\"name\":\"MMAD\",\"ph\":\"X\",\"pid\":\"core0.cubecore0\","
        "\"tid\":\"CUBE\",\"ts\":0,\"dur\":1},\n{\"name\":\"FIX",
        cut);
    REQUIRE(truncated);
    CHECK(truncated->syntax_error_line == 3u);
    CHECK(analyze(*truncated, {}).check.truncated);
}

TEST_CASE("pipe trace: pipe.* rules and the cross rule X7", "[pipetrace]") {
    Diagnostics diagnostics;
    auto loaded = load(kFolder, std::nullopt, diagnostics);
    REQUIRE(loaded);
    rules::MetricStore store;
    publish(*loaded, store);
    const rules::Subject& subject = store.subject("kernel", "qk_matmul");
    CHECK(subject.metric("pipe.mte2_exposed_share").value() == Approx(2.5 / 4.5));
    CHECK(subject.metric("pipe.bottleneck_is_mte2").value() == 1);
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue);
    auto findings = rules::evaluate(*catalogue, store, {"pipe.", "cross."});
    bool exposed = false, cross = false;
    for (const auto& finding : findings) {
        exposed |= finding.rule == "pipe.mte2-exposed";
        cross |= finding.rule == "cross.mte2-bound-exposed-in-trace";
    }
    CHECK(exposed);
    CHECK_FALSE(cross);  // no PMU metrics for the kernel
    store.set("kernel", "qk_matmul", "pmu.bottleneck_is_mte2", 1);
    store.set("kernel", "qk_matmul", "pmu.ratio.mte2", 0.8);
    findings = rules::evaluate(*catalogue, store, {"cross."});
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].rule == "cross.mte2-bound-exposed-in-trace");
}

}  // namespace pipetrace_trace_test
