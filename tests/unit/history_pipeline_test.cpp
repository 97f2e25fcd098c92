// The history pipeline: times, runs built from bench inputs (through bench::load_run), change
// descriptions and bench-gate baselines from the current segment.

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "history_synth.hpp"
#include "ptune/history/pipeline.hpp"

namespace history_pipeline_test {

using namespace ptune;
using namespace ptune::history;
namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name) {
        path = fs::temp_directory_path() /
               ("ptune-history-pipeline-" + std::to_string(::getpid()) + "-" + name);
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

std::vector<synth::CaseSpec> suite() {
    synth::CaseSpec step;
    step.name = "prefill_fwd";
    step.base_us = 1200;
    step.noise_pct = 1;
    step.step_run = 40;
    step.step_pct = 7;
    synth::CaseSpec noisy;
    noisy.name = "decode_fwd";
    noisy.base_us = 300;
    noisy.noise_pct = 8;
    return {step, noisy};
}

std::string write_log(const fs::path& dir, std::size_t run, bool raw = false,
                      const std::vector<double>& extra = {}) {
    const auto path = (dir / ("run-" + std::to_string(run) + ".log")).string();
    std::ofstream out(path);
    synth::write_run(out, suite(), run, 10, 1, raw, extra);
    return path;
}

}  // namespace

TEST_CASE("times are normalised to UTC seconds", "[history][pipeline]") {
    CHECK(normalise_time("2026-09-01") == "2026-09-01T00:00:00Z");
    CHECK(normalise_time("2026-09-01T12:30") == "2026-09-01T12:30:00Z");
    CHECK(normalise_time("2026-09-01T12:30:05Z") == "2026-09-01T12:30:05Z");
    CHECK(normalise_time("2026-09-01 12:30:05+00:00") == "2026-09-01T12:30:05Z");
    CHECK(normalise_time("@0") == "1970-01-01T00:00:00Z");
    CHECK_FALSE(normalise_time("2026-13-01"));
    CHECK_FALSE(normalise_time("yesterday"));
    CHECK_FALSE(normalise_time("2026-09-01T12:30:05+02:00"));
    // Issue 36: dates that do not exist and seconds past year 9999 are refused.
    CHECK_FALSE(normalise_time("2026-02-30"));
    CHECK_FALSE(normalise_time("2025-02-29"));
    CHECK_FALSE(normalise_time("2026-04-31"));
    CHECK(normalise_time("2024-02-29") == "2024-02-29T00:00:00Z");
    CHECK_FALSE(normalise_time("@9223372036854775807"));
    CHECK(normalise_time("@253402300799") == "9999-12-31T23:59:59Z");
    CHECK_FALSE(normalise_time("@253402300800"));
    CHECK(now_time().size() == 20);
}

TEST_CASE("a run is built from a CI log with its summary and raw samples", "[history][pipeline]") {
    TempDir dir("build");
    Diagnostics diagnostics;
    RunMeta meta;
    meta.commit = "abc";
    meta.time = "2026-09-01";
    auto run = build_run({write_log(dir.path, 1, true)}, meta, diagnostics);
    REQUIRE(run);
    REQUIRE(run->cases.size() == 2);
    const auto& prefill = run->cases[0];
    CHECK(prefill.name == "prefill_fwd");
    CHECK(prefill.value_us == Approx(1200).epsilon(0.02));
    CHECK(prefill.rounds == 10);
    CHECK(prefill.samples.size() == 10);
    CHECK(prefill.origin == "report");
    CHECK(run->info.run_key == "digest:" + run->info.content_digest);
    // The digest ignores the time, so the same run recorded again is recognised.
    meta.time = "2026-09-02";
    auto again = build_run({write_log(dir.path, 1, true)}, meta, diagnostics);
    REQUIRE(again);
    CHECK(again->info.content_digest == run->info.content_digest);
    meta.commit = "def";
    auto other = build_run({write_log(dir.path, 1, true)}, meta, diagnostics);
    CHECK(other->info.content_digest != run->info.content_digest);
    meta.run_id = "ci-42";
    CHECK(build_run({write_log(dir.path, 1)}, meta, diagnostics)->info.run_key == "ci-42");
}

TEST_CASE("a run needs a commit and a number", "[history][pipeline]") {
    TempDir dir("bad");
    Diagnostics diagnostics;
    RunMeta meta;
    CHECK_THAT(build_run({write_log(dir.path, 1)}, meta, diagnostics).error().message,
               Catch::Contains("--commit"));
    meta.commit = "abc";
    const auto empty = (dir.path / "empty.log").string();
    std::ofstream(empty) << "nothing to see\n";
    auto run = build_run({empty}, meta, diagnostics);
    REQUIRE_FALSE(run);
    CHECK(run.error().code == ExitCode::InputError);
    meta.time = "soon";
    CHECK_THAT(build_run({write_log(dir.path, 1)}, meta, diagnostics).error().message,
               Catch::Contains("--time 'soon'"));
}

TEST_CASE("60 synthetic runs: the step is described, the gate baseline is its segment",
          "[history][pipeline]") {
    TempDir dir("sixty");
    const auto db = (dir.path / "h.db").string();
    Diagnostics diagnostics;
    {
        auto store = Store::open(db, {true, 5});
        REQUIRE(store);
        for (std::size_t i = 1; i <= 60; ++i) {
            RunMeta meta;
            meta.commit = fmt::format("c{:03d}", i);
            meta.time = fmt::format("@{}", 1767225600 + i * 3600);
            auto run = build_run({write_log(dir.path, i)}, meta, diagnostics);
            REQUIRE(run);
            REQUIRE((*store)->add(*run));
        }
    }
    auto store = Store::open(db, {});
    REQUIRE(store);
    std::vector<Change> changes;
    REQUIRE(analyse(
        **store, {}, {},
        [&](Analysis&& a) {
            for (auto& c : describe(a)) changes.push_back(c);
            return ok_status();
        },
        diagnostics));
    REQUIRE(changes.size() == 1);
    CHECK(changes[0].name == "prefill_fwd");
    CHECK(changes[0].run == Approx(40).margin(1));
    CHECK(changes[0].commit_before == fmt::format("c{:03d}", changes[0].run - 1));
    CHECK(changes[0].change_pct == Approx(7).margin(1.5));
    CHECK(changes[0].confidence() >= 0.99);

    // The gate's baseline: prefill from its step on (about 21 runs), decode all 60 runs.
    const auto current = write_log(dir.path, 61, false, {10, 6});
    auto current_cases = bench::load_run({current}, bench::LoadOptions{}, diagnostics);
    REQUIRE(current_cases);
    CHECK(current_cases->size() == 2);
    auto baseline = gate_baseline(**store, *current_cases, {}, diagnostics);
    REQUIRE(baseline);
    std::map<std::string, std::size_t> per_case;
    for (const auto& run : *baseline)
        for (const auto& c : run) ++per_case[c.name];
    CHECK(per_case["decode_fwd"] == 60);
    CHECK(per_case["prefill_fwd"] == Approx(21).margin(1));
}

}  // namespace history_pipeline_test
