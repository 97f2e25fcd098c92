// serving-strace-swimlane.json (upstream-2026-12.md §5): the §5.5 composed example's
// statistics, the straggler, device lanes against the serving window, bad input (§5.4).

#include <catch2/catch.hpp>

#include <sstream>

#include "ptune/rules/engine.hpp"
#include "ptune/serving/pipeline.hpp"

namespace serving_trace_test {

using namespace ptune;
using namespace ptune::serving;

namespace {

const std::string kServingData = std::string(PTUNE_TEST_DATA) + "/serving/";

Result<ServingTrace> parse_serving_text(const std::string& text, Diagnostics& diagnostics) {
    std::istringstream in(text);
    return parse_serving_trace(in, "s.json", diagnostics);
}

}  // namespace

TEST_CASE("serving trace: the §5.5 composed example", "[serving]") {
    Diagnostics diagnostics;
    auto loaded = load(kServingData + "spec_5_5_serving-strace-swimlane.json", diagnostics);
    REQUIRE(loaded);
    CHECK(diagnostics.empty());
    const Analysis& analysis = loaded->analysis;
    REQUIRE(analysis.workers.size() == 1);
    CHECK(analysis.workers[0].name == "worker-0");
    CHECK(analysis.workers[0].count == 3);
    CHECK(analysis.workers[0].mean == 3000);
    CHECK(analysis.workers[0].max == 4000);
    CHECK(analysis.workers[0].min == 2000);
    CHECK(loaded->trace.host_pid == "2");
    REQUIRE(analysis.devices.size() == 1);
    CHECK(analysis.devices[0].key == "4");
    CHECK(analysis.devices[0].count == 1);
    CHECK(analysis.devices[0].mean == 1500);
    CHECK(analysis.devices[0].in_window == 1500);
    CHECK(analysis.window_end - analysis.window_begin == 9000);
    REQUIRE(analysis.straggler);
    CHECK(analysis.straggler_share == 1.0);
}

TEST_CASE("serving trace: the straggler among several workers and the rule", "[serving]") {
    Diagnostics diagnostics;
    auto trace = parse_serving_text(
        R"([{"ph":"M","name":"process_name","pid":"w-a","args":{"name":"worker-a"}},
            {"ph":"X","name":"t","cat":"worker","pid":"w-a","tid":1,"ts":0,"dur":100},
            {"ph":"X","name":"t","cat":"worker","pid":3,"tid":1,"ts":0,"dur":300},
            {"ph":"X","name":"t","cat":"worker","pid":3,"tid":1,"ts":400},
            {"ph":"X","name":"h","cat":"strace.host","pid":9,"tid":0,"ts":-50,"dur":100}])",
        diagnostics);
    REQUIRE(trace);
    CHECK(trace->workers.size() == 2);
    CHECK(trace->workers[1].name == "pid 3");
    Analysis analysis = analyze(*trace);
    REQUIRE(analysis.straggler);
    CHECK(analysis.workers[*analysis.straggler].key == "3");
    CHECK(analysis.workers[1].min == 0);  // X without dur = 0
    CHECK(analysis.straggler_share == Approx(0.75));
    CHECK(analysis.straggler_excess == Approx(1.5));
    REQUIRE(analysis.devices.size() == 1);
    CHECK(analysis.devices[0].in_window == 50);  // [-50, 50) against the window [0, 400]
    Loaded loaded{"s.json", std::move(*trace), analysis};
    rules::MetricStore store;
    publish(loaded, store);
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue);
    auto findings = rules::evaluate(*catalogue, store, {"serving."});
    REQUIRE(findings.size() == 2);
    CHECK(findings[0].rule == "serving.straggler");
}

TEST_CASE("serving trace: bad input per §5.4", "[serving]") {
    Diagnostics diagnostics;
    CHECK_FALSE(parse_serving_text("\"text\"", diagnostics));
    auto trace = parse_serving_text(
        "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":-5},\n"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2},\n"
        "{\"ph\":\"X\",\"pid\":1,",
        diagnostics);
    REQUIRE(trace);
    CHECK(trace->skipped == 1);
    CHECK(trace->syntax_error_line == 3u);
    REQUIRE(trace->workers.size() == 1);
    CHECK(trace->workers[0].spans.size() == 1);
    CHECK(trace->host_pid.empty());
}

}  // namespace serving_trace_test
