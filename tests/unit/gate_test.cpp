// The decision core of bench-gate on synthetic runs with fixed seeds (the issue's "done when"
// scenarios at the library level; tests/cli/bench-gate/ runs them end to end).

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "gate_synth.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"
#include "ptune/gate/gate.hpp"
#include "ptune/gate/report.hpp"

namespace gate_test {

using namespace ptune;
using namespace ptune::gate;

namespace {

Observation observe(const std::vector<double>& samples, bool keep_samples,
                    std::string source = "run") {
    Observation o;
    o.source = std::move(source);
    o.min = *std::min_element(samples.begin(), samples.end());
    o.max = *std::max_element(samples.begin(), samples.end());
    o.median = stats::median(samples);
    o.mean = stats::mean(samples);
    o.rounds = samples.size();
    if (keep_samples) o.samples = samples;
    return o;
}

Observation run_of(const SynthCase& c, std::uint64_t seed, bool keep_samples) {
    return observe(synth_samples(c, 100, seed), keep_samples);
}

Observation mean_only(double mean) {
    Observation o;
    o.source = "results.tsv";
    o.mean = mean;
    return o;
}

const CaseResult& find(const GateResult& result, const std::string& name) {
    auto it = std::find_if(result.cases.begin(), result.cases.end(),
                           [&](const CaseResult& c) { return c.name == name; });
    REQUIRE(it != result.cases.end());
    return *it;
}

}  // namespace

TEST_CASE("raw samples: a +20% shift regresses, a fresh draw and +2% do not", "[bench-gate]") {
    SynthCase base{"k", 500.0, 0.02};
    SynthCase shifted = base;
    shifted.shift_pct = 20.0;
    SynthCase small = base;
    small.shift_pct = 2.0;
    std::vector<CaseInput> cases = {
        {"shifted", {run_of(base, 1, true)}, run_of(shifted, 2, true)},
        {"fresh", {run_of(base, 3, true)}, run_of(base, 4, true)},
        {"small", {run_of(base, 5, true)}, run_of(small, 6, true)},
    };
    const auto result = evaluate(cases, Options{});
    const auto& regressed = find(result, "shifted");
    CHECK(regressed.verdict == Verdict::Regressed);
    CHECK(regressed.test == Test::UTest);
    CHECK(*regressed.p_adjusted < 1e-10);
    CHECK(*regressed.shift_us == Approx(100.0).epsilon(0.05));
    CHECK(*regressed.delta_pct == Approx(20.0).margin(1.0));
    CHECK(find(result, "fresh").verdict == Verdict::Unchanged);
    CHECK(find(result, "small").verdict == Verdict::Unchanged);  // below the 5% threshold
    CHECK(result.failed());
    CHECK(result.count(Verdict::Regressed) == 1);
    REQUIRE(result.geomean.delta_pct);
    CHECK(*result.geomean.delta_pct > 5.0);
    CHECK(result.geomean.cases == 3);
}

TEST_CASE("slow outliers move the mean but not the median", "[bench-gate]") {
    SynthCase base{"k", 500.0, 0.01};
    SynthCase spiky = base;
    spiky.outliers = 4;
    spiky.outlier_factor = 3.0;
    std::vector<CaseInput> cases = {{"spiky", {run_of(base, 11, true)}, run_of(spiky, 12, true)}};
    Options median;
    median.metric = Metric::Median;
    auto by_median = evaluate(cases, median);
    CHECK(by_median.cases[0].verdict == Verdict::Unchanged);
    CHECK_FALSE(by_median.failed());
    // The mean crosses 5% but the rank test sees only four slow rounds: noisy, not a failure.
    auto by_mean = evaluate(cases, Options{});
    CHECK(*by_mean.cases[0].delta_pct > 5.0);
    CHECK(by_mean.cases[0].verdict == Verdict::Noisy);
    CHECK_FALSE(by_mean.failed());
}

TEST_CASE("summaries only: the rank bounds of the summaries decide", "[bench-gate]") {
    SynthCase base{"k", 500.0, 0.02};
    SynthCase shifted = base;
    shifted.shift_pct = 20.0;
    std::vector<CaseInput> cases = {
        {"shifted", {run_of(base, 21, false)}, run_of(shifted, 22, false)},
        {"fresh", {run_of(base, 23, false)}, run_of(base, 24, false)},
    };
    auto result = evaluate(cases, Options{});
    const auto& regressed = find(result, "shifted");
    CHECK(regressed.verdict == Verdict::Regressed);
    CHECK(regressed.test == Test::Bounds);
    // At least as strong as "current median above baseline max", C(100,50)/C(200,50).
    CHECK(*regressed.p_value <= 2.2229697512078617e-19);
    CHECK(*regressed.p_value >= 1.0 / 9.0549e58);  // 1/C(200,100): complete separation
    CHECK(find(result, "fresh").verdict == Verdict::Unchanged);

    // A mean beyond the threshold (a long tail: the max moves with it) whose median still sits
    // inside the baseline's range: the summaries cannot show it, and +10% is below the hard
    // threshold, so it passes as underpowered.
    Observation wide_base = run_of(base, 25, false);
    Observation tail_heavy = run_of(base, 26, false);
    *tail_heavy.mean = *wide_base.mean * 1.10;
    *tail_heavy.max = *tail_heavy.mean * 1.5;
    auto noisy = evaluate({{"tail", {wide_base}, tail_heavy}}, Options{});
    CHECK(noisy.cases[0].verdict == Verdict::Underpowered);
    CHECK(noisy.cases[0].test == Test::Bounds);
    CHECK_FALSE(noisy.failed());
}

TEST_CASE("a history of six runs fences a drifting case but not a stable one", "[bench-gate]") {
    const std::vector<double> drift = {1.00, 1.08, 0.92, 1.08, 0.92, 1.00};
    const std::vector<double> steady = {1.000, 1.004, 0.997, 1.002, 0.999, 1.001};
    CaseInput drifting{"drifting", {}, mean_only(500.0 * 1.06)};
    CaseInput stable{"stable", {}, mean_only(300.0 * 1.20)};
    CaseInput stable_small{"stable-small", {}, mean_only(300.0 * 1.06)};
    for (std::size_t i = 0; i < drift.size(); ++i) {
        drifting.baseline.push_back(mean_only(500.0 * drift[i]));
        stable.baseline.push_back(mean_only(300.0 * steady[i]));
        stable_small.baseline.push_back(mean_only(300.0 * steady[i]));
    }
    auto result = evaluate({drifting, stable, stable_small}, Options{});
    const auto& d = find(result, "drifting");
    CHECK(d.test == Test::Fence);
    CHECK(d.verdict == Verdict::Noisy);
    CHECK(d.baseline_runs == 6);
    CHECK(*d.baseline == Approx(500.0));
    const auto& s = find(result, "stable");
    CHECK(s.test == Test::Fence);
    CHECK(s.verdict == Verdict::Regressed);
    // +6% on a stable case is outside its (tight) fence and above the 5% threshold.
    CHECK(find(result, "stable-small").verdict == Verdict::Regressed);
}

TEST_CASE("results.tsv means with one baseline: the tolerances alone decide", "[bench-gate]") {
    std::vector<CaseInput> cases = {
        {"up", {mean_only(100.0)}, mean_only(110.0)},
        {"tiny", {mean_only(2.0)}, mean_only(2.4)},  // +20% but only 0.4 us
        {"down", {mean_only(100.0)}, mean_only(80.0)},
    };
    auto result = evaluate(cases, Options{});
    CHECK(find(result, "up").verdict == Verdict::Regressed);
    CHECK(find(result, "up").test == Test::Threshold);
    CHECK(find(result, "tiny").verdict == Verdict::Unchanged);
    CHECK(find(result, "down").verdict == Verdict::Improved);

    Options by_median;
    by_median.metric = Metric::Median;
    auto median = evaluate(cases, by_median);
    CHECK(median.cases[0].verdict == Verdict::Incomparable);
    CHECK_THAT(median.cases[0].reason, Catch::Contains("only a mean"));
}

TEST_CASE("one-sided cases, bad numbers and mismatched runs get their own verdicts",
          "[bench-gate]") {
    Observation base = mean_only(100.0);
    Observation zero = mean_only(0.0);
    Observation unavailable;
    unavailable.source = "cur.log:3";
    unavailable.unavailable = "no orch/sched spans captured";
    Observation rounds_100 = mean_only(100.0), rounds_10 = mean_only(101.0);
    rounds_100.declared_rounds = 100;
    rounds_10.declared_rounds = 10;
    Observation a2a3 = mean_only(100.0), a5 = mean_only(100.0);
    a2a3.platform = "a2a3";
    a5.platform = "a5";
    std::vector<CaseInput> cases = {
        {"gone", {base}, std::nullopt},
        {"fresh", {}, base},
        {"zero-current", {base}, zero},
        {"zero-baseline", {zero}, base},
        {"unavailable", {base}, unavailable},
        {"rounds", {rounds_100}, rounds_10},
        {"platform", {a2a3}, a5},
    };
    auto result = evaluate(cases, Options{});
    CHECK(find(result, "gone").verdict == Verdict::Missing);
    CHECK(find(result, "fresh").verdict == Verdict::New);
    CHECK(find(result, "zero-current").verdict == Verdict::Incomparable);
    CHECK_THAT(find(result, "zero-current").reason, Catch::Contains("not a positive time"));
    CHECK(find(result, "zero-baseline").verdict == Verdict::Incomparable);
    CHECK_THAT(find(result, "zero-baseline").reason, Catch::Contains("not a positive time"));
    CHECK(find(result, "unavailable").verdict == Verdict::Missing);
    CHECK_THAT(find(result, "unavailable").reason, Catch::Contains("no orch/sched"));
    CHECK(find(result, "rounds").verdict == Verdict::Incomparable);
    CHECK_THAT(find(result, "rounds").reason, Catch::Contains("100 rounds vs 10"));
    CHECK(find(result, "platform").verdict == Verdict::Incomparable);
    // Missing cases and damaged numbers fail by default; mismatched testbeds do not.
    CHECK(result.failed());
    CHECK(find(result, "gone").fails);
    CHECK(find(result, "unavailable").fails);
    CHECK(find(result, "zero-current").fails);
    CHECK(find(result, "zero-baseline").fails);
    CHECK_FALSE(find(result, "rounds").fails);
    CHECK_FALSE(find(result, "platform").fails);
    CHECK_FALSE(find(result, "fresh").fails);
    Options allowed;
    allowed.allow_missing = {"gone", "unav*"};
    auto lenient = evaluate({cases[0], cases[1], cases[4], cases[5], cases[6]}, allowed);
    CHECK_FALSE(lenient.failed());
    CHECK(result.geomean.cases == 0);
    CHECK_FALSE(result.geomean.delta_pct);
}

TEST_CASE("overrides, ignore patterns and the geomean threshold", "[bench-gate]") {
    std::vector<CaseInput> cases = {
        {"models/a.py", {mean_only(100.0)}, mean_only(108.0)},
        {"models/skip/b.py", {mean_only(100.0)}, mean_only(200.0)},
        {"models/c.py", {mean_only(100.0)}, mean_only(104.0)},
    };
    Options options;
    options.overrides["models/a.py"].threshold_pct = 10.0;
    options.ignore = {"models/skip/*"};
    options.geomean_threshold_pct = 3.0;
    auto result = evaluate(cases, options);
    REQUIRE(result.cases.size() == 2);
    CHECK(result.ignored == std::vector<std::string>{"models/skip/b.py"});
    CHECK(find(result, "models/a.py").verdict == Verdict::Unchanged);
    CHECK(find(result, "models/a.py").tolerance.threshold_pct == 10.0);
    CHECK(find(result, "models/c.py").verdict == Verdict::Unchanged);
    REQUIRE(result.geomean.delta_pct);
    CHECK(*result.geomean.delta_pct == Approx(5.98).margin(0.01));  // sqrt(1.08 * 1.04) - 1
    CHECK(result.geomean.regressed);
    CHECK(result.failed());
}

TEST_CASE("Holm turns a borderline p among many cases into noisy", "[bench-gate]") {
    // Baseline and current of 8 rounds a side, overlapping: one-sided p around 0.03.
    const std::vector<double> base = {100, 101, 102, 103, 104, 105, 106, 107};
    const std::vector<double> cur = {102.5, 103.5, 104.5, 105.5, 106.5, 107.5, 120, 121};
    std::vector<CaseInput> one = {{"x", {observe(base, true)}, observe(cur, true)}};
    auto alone = evaluate(one, Options{});
    REQUIRE(alone.cases[0].p_value);
    CHECK(*alone.cases[0].p_value < 0.05);
    CHECK(alone.cases[0].verdict == Verdict::Regressed);
    std::vector<CaseInput> many = one;
    for (int i = 0; i < 5; ++i)
        many.push_back({"same" + std::to_string(i), {observe(base, true)}, observe(base, true)});
    auto family = evaluate(many, Options{});
    CHECK(*family.cases[0].p_adjusted > 0.05);
    CHECK(family.cases[0].verdict == Verdict::Noisy);
}

TEST_CASE("config file: defaults, overrides, ignore and clear errors", "[bench-gate]") {
    auto config = parse_config(R"({"threshold_pct": 8, "min_delta_us": 2,
        "ignore": ["models/x/*"], "cases": {"models/a.py": {"threshold_pct": 15}}})",
                               "gate.json");
    REQUIRE(config);
    CHECK(*config->threshold_pct == 8.0);
    CHECK(*config->min_delta_us == 2.0);
    CHECK(config->ignore == std::vector<std::string>{"models/x/*"});
    CHECK(*config->cases["models/a.py"].threshold_pct == 15.0);
    CHECK_FALSE(config->cases["models/a.py"].min_delta_us);

    auto typo = parse_config(R"({"treshold_pct": 8})", "gate.json");
    REQUIRE_FALSE(typo);
    CHECK_THAT(typo.error().message, Catch::Contains("unknown key 'treshold_pct'"));
    auto negative = parse_config(R"({"cases": {"a": {"min_delta_us": -1}}})", "gate.json");
    REQUIRE_FALSE(negative);
    CHECK_THAT(negative.error().message, Catch::Contains("cases.a.min_delta_us"));
    auto broken = parse_config("{\n  \"threshold_pct\": 5,\n  oops\n}", "gate.json");
    REQUIRE_FALSE(broken);
    CHECK(broken.error().file == "gate.json");
    CHECK(broken.error().line == 3);
}

TEST_CASE("damaged summaries are incomparable with a reason and fail the gate", "[bench-gate]") {
    const auto summary = [](std::size_t rounds, double min, double median, double mean,
                            double max) {
        Observation o;
        o.source = "run.log:1";
        o.rounds = rounds;
        o.min = min;
        o.median = median;
        o.mean = mean;
        o.max = max;
        return o;
    };
    const Observation good = summary(5, 90, 100, 100, 110);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<std::pair<std::string, Observation>> damaged = {
        {"a summary of 0 rounds", summary(0, 90, 100, 100, 110)},
        {"min 120 above max 110", summary(5, 120, 100, 100, 110)},
        {"median 130 outside [min 90, max 110]", summary(5, 90, 130, 100, 110)},
        {"mean 80 outside [min 90, max 110]", summary(5, 90, 100, 80, 110)},
        {"median nan is not a positive time", summary(5, 90, nan, 100, 110)},
        {"min -90 is not a positive time", summary(5, -90, 100, 100, 110)},
    };
    for (const auto& [why, observation] : damaged) {
        INFO(why);
        // Damaged on the current side...
        auto current = evaluate({{"c", {good}, observation}}, Options{});
        CHECK(current.cases[0].verdict == Verdict::Incomparable);
        CHECK_THAT(current.cases[0].reason, Catch::Contains(why));
        CHECK(current.cases[0].fails);
        CHECK(current.failed());
        // ...and on the baseline side: never a pass either.
        auto baseline = evaluate({{"c", {observation}, good}}, Options{});
        CHECK(baseline.cases[0].verdict == Verdict::Incomparable);
        CHECK_THAT(baseline.cases[0].reason, Catch::Contains(why));
        CHECK(baseline.failed());
    }
}

TEST_CASE("bench-gate github annotations are valid UTF-8 whatever the case names (issue 36)",
          "[bench-gate]") {
    GateResult result;
    CaseResult c;
    c.name = "models/\xff\xfe bad.py";
    c.verdict = Verdict::Missing;
    c.reason = "not in the current run";
    c.fails = true;
    result.cases.push_back(c);
    const ReportSettings settings{Options{}, false, true};
    std::ostringstream out;
    make_github_renderer(result, settings)->render(make_report(result, settings), out, {});
    CHECK(out.str().find("::error") != std::string::npos);
    CHECK(text::is_valid_utf8(out.str()));
}

TEST_CASE("few raw samples: what Holm's factor puts out of reach is underpowered, not noisy",
          "[bench-gate]") {
    // 3 rounds a side, completely separated, +30 %: p = 1/C(6,3) = 0.05 exactly, which is not
    // below alpha 0.05 (it used to pass as `noisy` with p 0.100 after Holm).
    const std::vector<double> base3 = {105.0, 107.0, 109.0};
    const std::vector<double> slow3 = {137.0, 139.5, 142.0};
    auto three = evaluate({{"tp2", {observe(base3, true)}, observe(slow3, true)}}, Options{});
    CHECK(three.cases[0].verdict == Verdict::Underpowered);
    CHECK(three.cases[0].fails);  // +30 % is above the 25 % hard threshold
    CHECK(three.failed());

    // 4 rounds a side: complete separation gives 1/C(8,4) = 0.0143, enough alone, but among
    // four changed cases Holm multiplies the smallest p by 4 (0.057): none can be significant,
    // so each is underpowered, and those above the hard threshold fail.
    const std::vector<double> base4 = {100.0, 101.0, 102.0, 103.0};
    std::vector<CaseInput> cases;
    for (double factor : {1.10, 1.12, 1.30, 1.35}) {
        std::vector<double> slow;
        for (double v : base4) slow.push_back(v * factor);
        cases.push_back(
            {"x" + std::to_string(cases.size()), {observe(base4, true)}, observe(slow, true)});
    }
    auto four = evaluate(cases, Options{});
    for (const auto& c : four.cases) {
        INFO(c.name << ": " << c.reason);
        CHECK(c.verdict == Verdict::Underpowered);
        CHECK(c.fails == (*c.delta_pct > 25.0));
    }
    // The same case alone reaches alpha: regressed.
    auto alone = evaluate({cases[2]}, Options{});
    CHECK(alone.cases[0].verdict == Verdict::Regressed);
}

TEST_CASE("a case result keeps its rare parts boxed: copies are deep, empty is none",
          "[bench-gate]") {
    BoxedString reason;
    CHECK(reason.empty());
    CHECK(reason.str().empty());
    reason += "";
    CHECK(reason.empty());
    reason = std::string();
    CHECK(reason.empty());
    reason += "first";
    reason += "; second";
    CHECK(reason == "first; second");
    BoxedString copy = reason;
    copy += " (more)";
    CHECK(reason == "first; second");
    CHECK(copy == "first; second (more)");
    std::ostringstream out;
    out << copy;
    CHECK(out.str() == "first; second (more)");
    CHECK_THAT(copy, Catch::Contains("(more)"));

    Boxed<NoiseFence> fence = std::optional<NoiseFence>();
    CHECK_FALSE(fence);
    fence = std::optional<NoiseFence>(NoiseFence{2.0, -0.1, 0.1});
    REQUIRE(fence);
    Boxed<NoiseFence> other = fence;
    other->reference = 3.0;
    CHECK(fence->reference == 2.0);
    CHECK((*other).reference == 3.0);
    Boxed<NoiseFence> moved = std::move(other);
    CHECK(moved->upper == 0.1);
    // A 200,000-case gate keeps one CaseResult per case (docs/PERFORMANCE.md, bench-gate).
    CHECK(sizeof(CaseResult) <= 168);
}

TEST_CASE("a gate's case names live in its result: copies of the inputs' names, kept on a move",
          "[bench-gate]") {
    std::vector<CaseInput> inputs(3);
    inputs[0].name = "models/a_rather_long_case_name.py";
    inputs[1].name = std::string(70000, 'x');  // more than a block
    inputs[2].name = "b";
    for (auto& input : inputs) {
        input.baseline.push_back(mean_only(10.0));
        input.current = mean_only(10.0);
    }
    Evaluation evaluation(Options{});
    for (const auto& input : inputs) evaluation.add(input);
    GateResult result = evaluation.finish();
    for (auto& input : inputs) std::fill(input.name.begin(), input.name.end(), '?');
    const GateResult moved = std::move(result);
    const GateResult copy = moved;
    REQUIRE(copy.cases.size() == 3);
    CHECK(copy.cases[0].name == "models/a_rather_long_case_name.py");
    CHECK(copy.cases[1].name == std::string(70000, 'x'));
    CHECK(copy.cases[2].name == "b");
    CHECK(moved.cases[0].name.data() == copy.cases[0].name.data());  // one store, shared

    NameStore store;
    CHECK(store.keep("").empty());
    const std::string_view first = store.keep("first");
    const std::string_view big = store.keep(std::string(100000, 'y'));
    const std::string_view after = store.keep("after");
    CHECK(first == "first");
    CHECK(big == std::string(100000, 'y'));
    CHECK(after == "after");
}

}  // namespace gate_test
