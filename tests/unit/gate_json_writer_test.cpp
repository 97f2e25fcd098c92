// bench-gate's JSON renderer writes its cases without a DOM: its output must be the text of the
// report whose data holds every case's DOM (ReportSettings::cases_in_data), byte for byte.

#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ptune/gate/gate.hpp"
#include "ptune/gate/report.hpp"

namespace gate_json_writer_test {

using namespace ptune;
using namespace ptune::gate;

namespace {

void check_renderer_writes_dom(const GateResult& result) {
    ReportSettings with_cases{Options{}, false, true};
    ReportSettings streamed{Options{}, false, false};
    std::ostringstream expected, written;
    render::write_json(render::to_json(make_report(result, with_cases)), expected, true);
    make_json_renderer(result)->render(make_report(result, streamed), written, {});
    CHECK(written.str() == expected.str());
}

Observation observe(std::vector<double> samples) {
    Observation o;
    o.source = "run";
    o.min = samples.front();
    o.max = samples.back();
    o.median = samples[samples.size() / 2];
    o.mean = samples[samples.size() / 2];
    o.rounds = samples.size();
    o.samples = std::move(samples);
    return o;
}

}  // namespace

TEST_CASE("bench-gate's JSON renderer writes cases of every shape as their DOM", "[bench-gate]") {
    GateResult result;
    CaseResult bare;
    bare.name = "bare";
    result.cases.push_back(bare);

    CaseResult full;
    full.name = "models/\xff \"quoted\"\\case";
    full.verdict = Verdict::Regressed;
    full.test = Test::UTest;
    full.fails = true;
    full.baseline = 500.25;
    full.current = 612.0;
    full.delta_pct = 22.339;
    full.delta_us = 111.75;
    full.p_value = 1e-300;
    full.p_adjusted = 0.05;
    full.shift_us = -3.0;
    full.fence = NoiseFence{499.5, -0.05, 0.07};
    full.tolerance = {2.5, 0.0};
    full.baseline_runs = 3;
    full.baseline_samples = 300;
    full.current_samples = 100;
    full.baseline_sd = 1e20;
    full.current_sd = 0.1;
    full.reason = "noisy: \x01 tab\t\xfe";
    result.cases.push_back(full);

    CaseResult odd = full;
    odd.name = "odd";
    odd.verdict = Verdict::Missing;
    odd.test = Test::None;
    odd.current = std::numeric_limits<double>::quiet_NaN();
    odd.delta_pct = std::numeric_limits<double>::infinity();
    odd.fence = std::nullopt;
    odd.reason = "";
    result.cases.push_back(odd);
    check_renderer_writes_dom(result);

    SECTION("no cases") {
        check_renderer_writes_dom(GateResult{});
    }
}

TEST_CASE("bench-gate's JSON renderer writes evaluated cases as their DOM", "[bench-gate]") {
    std::vector<CaseInput> cases = {
        {"slower", {observe({100, 101, 102, 103, 104})}, observe({120, 121, 122, 123, 124})},
        {"same", {observe({100, 101, 102, 103, 104})}, observe({100, 101, 102, 103, 104})},
        {"new", {}, observe({50, 51, 52})},
        {"gone", {observe({10, 11, 12})}, std::nullopt},
    };
    check_renderer_writes_dom(evaluate(cases, Options{}));
}

}  // namespace gate_json_writer_test
