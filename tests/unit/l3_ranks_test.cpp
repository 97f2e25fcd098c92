// Multi-card analysis (ptune/l3/ranks.hpp) on generated trees: the slow rank, its dispatch and
// its kernel are named by the swimlane and the pmu pipelines alike, with any thread count; the
// L3.* rules fire on them and only on them; and `--flows block` draws one arrow per edge.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "analyze_synth.hpp"
#include "l3_synth.hpp"
#include "ptune/l3/ranks.hpp"
#include "ptune/swimlane/pipeline.hpp"
#include "ptune/swimlane/trace.hpp"

namespace l3_ranks_test {

using namespace ptune;
using namespace ptune::l3;
namespace fs = std::filesystem;
namespace synth = ptune::swimlane::synth;

namespace {

fs::path scratch(const std::string& name) {
    fs::path dir =
        fs::temp_directory_path() / ("ptune-l3-ranks-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

const rules::Catalogue& catalogue() {
    static const rules::Catalogue builtin = *rules::Catalogue::builtin();
    return builtin;
}

/// A 16-rank tree whose rank 5 runs expert_gemm 4× longer (made once for the file).
const fs::path& sixteen_ranks() {
    static const fs::path dir = [] {
        fs::path d = scratch("sixteen");
        synth::TreeOptions options;
        options.ranks = 16;
        options.tasks = 60;
        options.slow_rank = 5;
        synth::TreeSummary summary;
        std::string error;
        REQUIRE(synth::write_rank_tree(d, options, summary, error));
        REQUIRE(summary.captures == 16);
        return d;
    }();
    return dir;
}

/// A small tree of three equal ranks, records only, in a fresh scratch directory.
fs::path three_ranks(const std::string& name) {
    fs::path root = scratch(name);
    synth::TreeOptions options;
    options.ranks = 3;
    options.tasks = 30;
    options.pmu = false;
    synth::TreeSummary summary;
    std::string error;
    REQUIRE(synth::write_rank_tree(root, options, summary, error));
    return root;
}

std::vector<rules::Finding> l3_findings(const Comparison& c) {
    rules::MetricStore store;
    publish(c, store);
    return rules::evaluate(catalogue(), store, {"L3."});
}

}  // namespace

TEST_CASE("swimlane: a 16-rank tree names the slow rank, its dispatch and its kernel",
          "[l3][ranks]") {
    auto tree = read_tree(sixteen_ranks());
    REQUIRE(tree.ok());
    CHECK(tree->gaps.empty());
    CHECK(tree->dispatches == std::vector<std::string>{"d0 (run1:0)"});
    Comparison c = analyze_swimlane_tree(*tree, catalogue(), {2, std::nullopt});
    REQUIRE(c.ranks.size() == 16);
    REQUIRE(c.dispatches.size() == 1);
    const DispatchSummary& d = c.dispatches.front();
    CHECK(d.members.size() == 16);
    CHECK(c.ranks[d.straggler].label == "rank5/d0");
    REQUIRE_FALSE(d.deltas.empty());
    CHECK(d.deltas.front().name == "expert_gemm");
    CHECK(d.imbalance_pct > 50);
    CHECK(c.ranks[d.median_rank].label != "rank5/d0");

    auto findings = l3_findings(c);
    std::map<std::string, std::vector<std::string>> by_rule;
    for (const auto& f : findings) by_rule[f.rule].push_back(f.subject.name + ": " + f.message);
    REQUIRE(by_rule["L3.rank-imbalance"].size() == 1);
    CHECK_THAT(by_rule["L3.rank-imbalance"][0], Catch::Contains("rank5/d0 is the straggler"));
    CHECK_THAT(by_rule["L3.rank-imbalance"][0], Catch::Contains("kernel expert_gemm"));
    CHECK_THAT(by_rule["L3.rank-imbalance"][0], Catch::StartsWith("d0 (run1:0): rank5/d0"));
    REQUIRE(by_rule["L3.kernel-slower-on-rank"].size() == 1);
    CHECK_THAT(by_rule["L3.kernel-slower-on-rank"][0], Catch::StartsWith("rank5/d0 expert_gemm"));
    // Same-work ranks do not wait on each other here.
    CHECK(by_rule["L3.rank-waiting"].empty());
}

TEST_CASE("swimlane: one thread and two threads give the same figures", "[l3][ranks]") {
    auto tree = read_tree(sixteen_ranks());
    REQUIRE(tree.ok());
    Comparison one = analyze_swimlane_tree(*tree, catalogue(), {1, std::nullopt});
    Comparison two = analyze_swimlane_tree(*tree, catalogue(), {2, std::nullopt});
    REQUIRE(one.ranks.size() == two.ranks.size());
    for (std::size_t i = 0; i < one.ranks.size(); ++i) {
        CHECK(one.ranks[i].label == two.ranks[i].label);
        CHECK(one.ranks[i].value == two.ranks[i].value);
        CHECK(one.ranks[i].path_us == two.ranks[i].path_us);
    }
    CHECK(one.dispatches.front().straggler == two.dispatches.front().straggler);
}

TEST_CASE("pmu: the same tree's pmu.csv files name the same rank and kernel", "[l3][ranks]") {
    auto tree = read_tree(sixteen_ranks());
    REQUIRE(tree.ok());
    Comparison c = analyze_pmu_tree(*tree, catalogue(), {2, std::nullopt});
    REQUIRE(c.dispatches.size() == 1);
    CHECK(c.unit == "cycles");
    const DispatchSummary& d = c.dispatches.front();
    CHECK(c.ranks[d.straggler].label == "rank5/d0");
    CHECK(d.deltas.front().name == "expert_gemm");
    auto findings = l3_findings(c);
    bool imbalance = false, kernel = false;
    for (const auto& f : findings) {
        imbalance |= f.rule == "L3.rank-imbalance" &&
                     f.message.find("rank5/d0 is the straggler") != std::string::npos;
        kernel |= f.rule == "L3.kernel-slower-on-rank" && f.subject.name == "rank5/d0 expert_gemm";
    }
    CHECK(imbalance);
    CHECK(kernel);
}

TEST_CASE("compare: straggler ties, the median rank and a rank waiting on others", "[l3][ranks]") {
    Comparison c;
    c.unit = "µs";
    c.measure = "makespan";
    auto rank = [&](int r, double value, double path, double wait) {
        RankResult result;
        result.rank = r;
        result.label = "rank" + std::to_string(r) + "/d0";
        result.key = "d0";
        result.usable = true;
        result.value = value;
        result.has_path = true;
        result.path_us = path;
        result.path_wait_us = wait;
        result.path_kernel_us = path - wait;
        result.kernels = {{"a2a", 4, value / 2, value / 8}};
        c.ranks.push_back(result);
    };
    rank(0, 1000, 900, 100);
    rank(1, 1000, 900, 100);
    rank(2, 1010, 1000, 700);  // waits: 70 % of its path
    rank(3, 1000, 900, 90);
    compare(c);
    REQUIRE(c.dispatches.size() == 1);
    const DispatchSummary& d = c.dispatches.front();
    CHECK(c.ranks[d.straggler].rank == 2);
    CHECK(d.spread == Approx(10));
    CHECK(d.imbalance_pct == Approx(1.0));
    auto findings = l3_findings(c);
    REQUIRE(findings.size() == 1);  // 1 % imbalance is no finding, the wait is
    CHECK(findings[0].rule == "L3.rank-waiting");
    CHECK(findings[0].subject.name == "rank2/d0");

    // Equal values: the lowest rank is the straggler, whatever the order.
    Comparison tie;
    tie.ranks = {c.ranks[1], c.ranks[0]};
    compare(tie);
    CHECK(tie.ranks[tie.dispatches.front().straggler].rank == 0);
}

TEST_CASE("a rank that cannot be read is left out and said, the others compared", "[l3][ranks]") {
    fs::path root = three_ranks("unreadable");
    std::ofstream(root / "rank1/d0/chip_swimlane_records.json") << "[1, 2";
    auto tree = read_tree(root);
    REQUIRE(tree.ok());
    Comparison c = analyze_swimlane_tree(*tree, catalogue(), {2, std::nullopt});
    REQUIRE(c.ranks.size() == 3);
    CHECK_FALSE(c.ranks[1].usable);
    CHECK(c.ranks[1].diagnostics.count(Severity::Error) >= 1);
    REQUIRE(c.dispatches.size() == 1);
    CHECK(c.dispatches.front().members.size() == 2);
    Comparison p = analyze_pmu_tree(*tree, catalogue(), {1, std::nullopt});
    CHECK(p.dispatches.empty());
    CHECK(p.gaps.size() == 3);  // each capture's missing pmu.csv, once
    fs::remove_all(root);
}

TEST_CASE("parallel_for runs every index once on any thread count", "[l3][ranks]") {
    for (unsigned threads : {1u, 2u, 7u}) {
        std::vector<int> seen(100, 0);
        parallel_for(
            seen.size(), threads, [&](std::size_t i) { ++seen[i]; }, "test");
        CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    }
    parallel_for(
        0, 2, [](std::size_t) { FAIL("no work"); }, "test");
}

TEST_CASE("swimlane-merge --flows: block draws one arrow per deps.json edge", "[l3][flows]") {
    fs::path dir = scratch("spmd");
    synth::Options options;
    options.scenario = synth::Scenario::SpmdMix;
    std::size_t edges = 0;
    {
        std::ofstream records(dir / "chip_swimlane_records.json");
        std::ofstream deps(dir / "deps.json");
        std::ofstream names(dir / "name_map_spmd.json");
        edges = synth::write_capture(options, records, deps, names).edges;
    }
    REQUIRE(edges == 12);
    swimlane::LoadRequest request;
    request.input = dir;
    auto found = swimlane::find_captures(request);
    REQUIRE(found.ok());
    Diagnostics diagnostics;
    auto loaded = swimlane::load_capture(found->captures.front(), request, diagnostics);
    REQUIRE(loaded.ok());
    swimlane::TraceSource source;
    source.capture = &loaded->capture;
    source.deps = loaded->deps_or_null();
    source.names = loaded->names_or_null();

    // Dependency arrows (flow starts named dependency or hb_violation) per pid.
    auto arrows = [&](swimlane::FlowMode mode) {
        swimlane::TraceOptions trace_options;
        trace_options.flows = mode;
        std::ostringstream out;
        swimlane::TraceCounts counts;
        REQUIRE(swimlane::write_trace({&source, 1}, trace_options, out, counts).ok());
        auto trace = nlohmann::json::parse(out.str());
        std::map<int, std::size_t> per_pid;
        for (const auto& e : trace["traceEvents"])
            if (e.value("ph", "") == "s" &&
                (e.value("name", "") == "dependency" || e.value("name", "") == "hb_violation"))
                ++per_pid[e["pid"].get<int>()];
        return per_pid;
    };
    auto block = arrows(swimlane::FlowMode::Block);
    CHECK(block[4] == edges);  // Worker View
    CHECK(block[3] == edges);  // Scheduler View
    auto instance = arrows(swimlane::FlowMode::Instance);
    CHECK(instance[4] > edges);  // mixed SPMD tasks anchor once per kernel: 2 × 2 per edge
    auto none = arrows(swimlane::FlowMode::None);
    CHECK(none[4] == 0);
    CHECK(none[3] == 0);
    fs::remove_all(dir);
}

TEST_CASE("ranks of different architectures are compared and said once", "[l3][ranks]") {
    fs::path root = three_ranks("mixed");
    fs::path records = root / "rank2/d0/chip_swimlane_records.json";
    std::string text;
    {
        std::ifstream in(records);
        text.assign(std::istreambuf_iterator<char>(in), {});
    }
    auto at = text.find("\"clock_freq_hz\": 50000000");
    REQUIRE(at != std::string::npos);
    text.replace(at, 25, "\"clock_freq_hz\": 1000000000");
    std::ofstream(records) << text;
    auto tree = read_tree(root);
    REQUIRE(tree.ok());
    Comparison c = analyze_swimlane_tree(*tree, catalogue(), {2, std::nullopt});
    std::size_t said = 0;
    for (const auto& gap : c.gaps)
        if (gap.find("ranks differ in architecture (a2a3, 72 cores on rank0/d0 and 1 more; a5, 72 "
                     "cores on rank2/d0)") != std::string::npos)
            ++said;
    CHECK(said == 1);
    REQUIRE(c.dispatches.size() == 1);
    CHECK(c.dispatches.front().members.size() == 3);
    fs::remove_all(root);
}

}  // namespace l3_ranks_test
