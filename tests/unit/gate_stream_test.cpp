// bench-gate's low-memory path: cases streamed out of the loader, kept as GateRun digests and
// compared one at a time; and the one route (run_gate) advise shares with bench-gate.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ptune/advise/advisor.hpp"
#include "ptune/bench/model.hpp"
#include "ptune/bench/pipeline.hpp"
#include "ptune/gate/input.hpp"
#include "ptune/gate/pipeline.hpp"
#include "ptune/rules/engine.hpp"

namespace gate_stream_test {

using namespace ptune;
using namespace ptune::bench;
using namespace ptune::gate;

namespace {

namespace fs = std::filesystem;

fs::path write_file(const std::string& name, const std::string& text) {
    const fs::path dir = fs::temp_directory_path() / "ptune_gate_stream_test";
    fs::create_directories(dir);
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
}

std::string group(const std::string& name, double mean, std::size_t rounds = 5) {
    return "::group::" + name + "\n[RUN]   effective_us (" + std::to_string(rounds) +
           " rounds) min=" + std::to_string(mean - 1) + " median=" + std::to_string(mean) +
           " mean=" + std::to_string(mean) + " max=" + std::to_string(mean + 1) +
           "\n::endgroup::\n";
}

BenchCase case_with(const std::string& name, const std::string& file) {
    BenchCase c;
    c.name = name;
    c.source = {file, 3};
    BenchBlock& block = c.blocks.emplace_back();
    block.source = {file, 7};
    block.declared_rounds = 4;
    Summary& s = block.effective_us.emplace();
    s.rounds = 4;
    s.min = 9.0;
    s.median = 10.0;
    s.mean = 10.5;
    s.max = 12.0;
    return c;
}

}  // namespace

TEST_CASE("for_each_bench_case hands over what load_bench_inputs returns", "[bench-gate]") {
    const auto path = write_file("two.log", group("models/a.py", 10) + group("models/b.py", 20));
    const auto single = write_file("one.log",
                                   "[RUN]   effective_us (3 rounds) min=1.0 "
                                   "median=2.0 mean=2.0 max=3.0\n");
    Diagnostics first, second;
    auto loaded = load_bench_inputs({path.string(), single.string()}, {}, first);
    REQUIRE(loaded);
    std::vector<BenchCase> streamed;
    auto status = for_each_bench_case({path.string(), single.string()}, {}, second,
                                      [&](BenchCase&& c) { streamed.push_back(std::move(c)); });
    REQUIRE(status);
    REQUIRE(streamed.size() == loaded->size());
    REQUIRE(streamed.size() == 3);
    for (std::size_t i = 0; i < streamed.size(); ++i) {
        CHECK(streamed[i].name == (*loaded)[i].name);
        CHECK(streamed[i].named_from_file == (*loaded)[i].named_from_file);
        CHECK(streamed[i].ci_mean() == (*loaded)[i].ci_mean());
    }
    CHECK(streamed[2].named_from_file);  // "one", named after its file
    CHECK_FALSE(streamed[0].named_from_file);
}

TEST_CASE("a NUL byte late in the binary probe drops the cases that ended before it",
          "[bench-gate]") {
    std::string text = group("models/a.py", 10);
    text += std::string(1000, 'x') + '\n';
    text += std::string("bin") + '\0' + "ary\n";  // still within the first 8 KiB
    const auto path = write_file("late_nul.log", text);
    Diagnostics diagnostics;
    std::size_t handed = 0;
    auto status =
        for_each_bench_case({path.string()}, {}, diagnostics, [&](BenchCase&&) { ++handed; });
    CHECK_FALSE(status);
    CHECK(handed == 0);
    CHECK_THAT(status.error().message, Catch::Contains("binary"));
}

TEST_CASE("a GateRun digest gives back the observation observe() made", "[bench-gate]") {
    BenchCase c = case_with("models/x.py", "nightly/results-a2a3/run.log");
    RawSamples& raw = c.blocks.front().raw.emplace();
    raw.ranks = 1;
    raw.rounds = 4;
    raw.per_rank[7] = {9.0, 10.0, 11.0, 12.0};
    BenchCase unavailable;
    unavailable.name = "models/y.py";
    unavailable.source = {"run.log", 0};
    unavailable.notes.push_back("no benchmark lines");

    GateRun run;
    run.add(c);
    run.add(unavailable);
    Diagnostics diagnostics;
    const Observation expected = observe(c, diagnostics);
    const Observation got = run.take_observation(0);
    CHECK(got.source == expected.source);
    CHECK(got.source == "nightly/results-a2a3/run.log:7");
    CHECK(got.platform == "a2a3");
    CHECK(got.min == expected.min);
    CHECK(got.median == expected.median);
    CHECK(got.mean == expected.mean);
    CHECK(got.max == expected.max);
    CHECK(got.rounds == 4);
    CHECK(got.declared_rounds == std::optional<std::size_t>(4));
    CHECK(got.samples == std::vector<double>{9.0, 10.0, 11.0, 12.0});
    const Observation missing = run.take_observation(1);
    CHECK(missing.unavailable == "no benchmark lines");
    CHECK(missing.source == "run.log");
    CHECK_FALSE(missing.mean);
}

TEST_CASE("advise's bench-gate section is bench-gate's report: one route, run_gate",
          "[bench-gate][advise]") {
    std::string base, cur;
    for (int i = 0; i < 30; ++i) {
        const std::string name = "models/case_" + std::to_string(i) + ".py";
        base += group(name, 100 + i);
        cur += group(name, (i % 5 == 0 ? 140 : 100) + i);
    }
    base += group("models/only_base.py", 50);
    cur += group("models/only_cur.py", 50);
    const auto base_path = write_file("advise_base.log", base);
    const auto cur_path = write_file("advise_cur.log", cur);
    const auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue);
    const Options options;  // advise gates with bench-gate's defaults

    Diagnostics gate_diagnostics;
    auto outcome = run_gate({{base_path.string()}, "", {cur_path.string()}}, options,
                            ReportSettings{options, false, true}, &*catalogue, gate_diagnostics);
    REQUIRE(outcome);
    REQUIRE(outcome->report.tables.size() == 1);

    Diagnostics advise_diagnostics;
    advise::AdviseOptions advise_options;
    advise_options.logs = {cur_path.string()};
    advise_options.baselines = {base_path.string()};
    const auto advice =
        advise::advise(advise::Inventory{}, advise_options, *catalogue, advise_diagnostics);
    const advise::Section* section = nullptr;
    for (const auto& s : advice.sections)
        if (s.id == "bench-gate") section = &s;
    REQUIRE(section != nullptr);
    CHECK(section->table.columns == outcome->report.tables[0].columns);
    CHECK(section->table.rows == outcome->report.tables[0].rows);
    CHECK(section->data == outcome->report.data["cases"]);
    CHECK(outcome->result.count(Verdict::Regressed) +
              outcome->result.count(Verdict::Underpowered) ==
          6);
    CHECK(outcome->result.count(Verdict::New) == 1);
    CHECK(outcome->result.count(Verdict::Missing) == 1);

    // The same bench.gate-* findings, in the same order, from advise's catalogue run.
    std::vector<std::string> gate_findings, advise_findings;
    for (const auto& f : outcome->report.findings)
        gate_findings.push_back(f.rule + " " + f.message);
    for (const auto& ranked : advice.findings) {
        if (ranked.finding.rule.starts_with("bench.gate-"))
            advise_findings.push_back(ranked.finding.rule + " " + ranked.finding.message);
    }
    std::sort(gate_findings.begin(), gate_findings.end());
    std::sort(advise_findings.begin(), advise_findings.end());
    CHECK(advise_findings == gate_findings);
}

// bench-gate's CLI makes the table's rows while writing them (ReportSettings::rows_on_demand):
// the same bytes in text (coloured, narrow) and Markdown as the table held, with regressions,
// improvements, new and missing cases and a geomean row.
TEST_CASE("bench-gate's table made on demand prints as the table held", "[bench-gate]") {
    std::string base, cur;
    for (int i = 0; i < 20; ++i) {
        const std::string name = "models/made_" + std::to_string(i) + ".py";
        base += group(name, 100 + i);
        cur += group(name, (i % 4 == 0 ? 150 : i % 4 == 1 ? 60 : 100) + i);
    }
    base += group("models/only_base.py", 50);
    cur += group("models/only_cur.py", 50);
    const auto base_path = write_file("made_base.log", base);
    const auto cur_path = write_file("made_cur.log", cur);
    const Options options;
    ReportSettings held_settings{options, false, false};
    ReportSettings made_settings = held_settings;
    made_settings.rows_on_demand = true;
    Diagnostics diagnostics;
    auto held = run_gate({{base_path.string()}, "", {cur_path.string()}}, options, held_settings,
                         nullptr, diagnostics);
    auto made = run_gate({{base_path.string()}, "", {cur_path.string()}}, options, made_settings,
                         nullptr, diagnostics);
    REQUIRE(held);
    REQUIRE(made);
    REQUIRE(made->report.tables.size() == 1);
    CHECK(made->report.tables[0].rows.empty());
    CHECK(made->report.tables[0].row_count() == held->report.tables[0].rows.size());
    CHECK(made->result.count(Verdict::Regressed) > 0);
    for (const char* format : {"text", "markdown", "csv"}) {
        for (std::size_t width : {0, 60}) {
            std::ostringstream a, b;
            auto renderer = render::make_standard_renderer(format);
            renderer->render(held->report, a, {true, width});
            renderer->render(made->report, b, {true, width});
            INFO(format << " " << width);
            CHECK(a.str() == b.str());
        }
    }
}

TEST_CASE("a GateRun keeps counts above 32 bits and names of any length", "[bench-gate]") {
    BenchCase c = case_with(std::string(70000, 'n'), "huge.log");
    c.source.line = 5'000'000'000ULL;
    c.blocks.front().source.line = 4'294'967'295ULL;  // the escape value itself
    c.blocks.front().declared_rounds = 1ULL << 40;
    c.blocks.front().effective_us->rounds = (1ULL << 32) + 7;
    GateRun run;
    run.add(case_with("models/a.py", "a.log"));
    run.add(c);
    CHECK(run.name(0) == "models/a.py");
    CHECK(run.name(1) == std::string(70000, 'n'));
    CHECK(run.case_line(0) == 3);
    CHECK(run.case_line(1) == 5'000'000'000ULL);
    CHECK(run.line(1) == 4'294'967'295ULL);
    const Observation got = run.take_observation(1);
    CHECK(got.source == "huge.log:4294967295");
    CHECK(got.rounds == (1ULL << 32) + 7);
    CHECK(got.declared_rounds == std::optional<std::size_t>(1ULL << 40));
    CHECK(run.take_observation(0).rounds == 4);
}

TEST_CASE("a GateRun gives a chunk back once all its cases are released, in any order",
          "[bench-gate]") {
    GateRun run;
    const std::size_t count = 2 * GateRun::kChunkCases + 3;
    for (std::size_t i = 0; i < count; ++i)
        run.add(case_with("models/c" + std::to_string(i) + ".py", "run.log"));
    REQUIRE(run.chunks_held() == 3);
    // The middle chunk, backwards: held until its last case goes.
    for (std::size_t i = 2 * GateRun::kChunkCases; i-- > GateRun::kChunkCases + 1;) run.release(i);
    CHECK(run.chunks_held() == 3);
    run.release(GateRun::kChunkCases);
    CHECK(run.chunks_held() == 2);
    // The others are untouched.
    CHECK(run.name(0) == "models/c0.py");
    CHECK(run.name(count - 1) == "models/c" + std::to_string(count - 1) + ".py");
    CHECK(run.take_observation(count - 1).source == "run.log:7");
    // The last chunk holds 3 cases.
    for (std::size_t i = count; i-- > 2 * GateRun::kChunkCases;) run.release(i);
    CHECK(run.chunks_held() == 1);
    for (std::size_t i = 0; i < GateRun::kChunkCases; ++i) run.release(i);
    CHECK(run.chunks_held() == 0);
    CHECK(run.size() == count);
}

TEST_CASE("pairing frees every chunk it reads: shuffled order, repeats, one-sided cases",
          "[bench-gate]") {
    // Baseline: a case the current run lacks, then c0..c(N-1); current: the same names
    // backwards, c5 again at the end (the last occurrence is compared), and a new one.
    const std::size_t n = GateRun::kChunkCases + 100;
    std::vector<GateRun> baseline(1);
    baseline[0].add(case_with("gone", "base.log"));
    for (std::size_t i = 0; i < n; ++i)
        baseline[0].add(case_with("c" + std::to_string(i), "base.log"));
    GateRun current;
    for (std::size_t i = n; i-- > 0;) current.add(case_with("c" + std::to_string(i), "cur.log"));
    BenchCase again = case_with("c5", "cur2.log");
    again.blocks.front().effective_us->mean = 99.0;
    current.add(again);
    current.add(case_with("new", "cur.log"));
    Diagnostics diagnostics;
    std::vector<CaseInput> inputs;
    std::vector<std::size_t> held_while_visited;
    for_each_pair(baseline, current, diagnostics, [&](CaseInput&& input) {
        held_while_visited.push_back(baseline[0].chunks_held() + current.chunks_held());
        inputs.push_back(std::move(input));
    });
    REQUIRE(inputs.size() == n + 2);
    CHECK(inputs[0].name == "c" + std::to_string(n - 1));
    CHECK(inputs[n - 1 - 5].name == "c5");
    CHECK(*inputs[n - 1 - 5].current->mean == 99.0);
    CHECK(inputs[n - 1 - 5].baseline.size() == 1);
    CHECK(inputs[n].name == "new");
    CHECK(inputs[n].baseline.empty());
    CHECK(inputs[n + 1].name == "gone");
    CHECK_FALSE(inputs[n + 1].current);
    REQUIRE(diagnostics.items().size() == 1);
    CHECK_THAT(diagnostics.items()[0].message, Catch::Contains("'c5' appears again"));
    // Chunks go while the pairing runs (the baseline's second chunk, c4095.., after the first
    // 101 cases), and none is left at the end.
    CHECK(held_while_visited[99] == 4);
    CHECK(held_while_visited[100] == 3);
    CHECK(baseline[0].chunks_held() == 0);
    CHECK(current.chunks_held() == 0);
}

TEST_CASE("a GateRun released out of order moves the cases still needed into fewer chunks",
          "[bench-gate]") {
    GateRun run;
    const std::size_t count = 20 * GateRun::kChunkCases;
    for (std::size_t i = 0; i < count; ++i) {
        BenchCase c = case_with("models/c" + std::to_string(i) + ".py", "run.log");
        c.blocks.front().effective_us->mean = static_cast<double>(i);
        if (i == count - 3) c.blocks.front().source.line = 6'000'000'000ULL;
        if (i == 7) {
            RawSamples& raw = c.blocks.front().raw.emplace();
            raw.ranks = 1;
            raw.rounds = 4;
            raw.per_rank[0] = {9.0, 10.0, 11.0, 12.0};
        }
        run.add(c);
    }
    REQUIRE(run.chunks_held() == 20);
    // Every 4th case of every chunk: no chunk whole, and at a quarter of them the others move.
    for (std::size_t i = 0; i < count; i += 4) {
        run.release(i);
        if (i + 4 < count) REQUIRE(run.chunks_held() == 20);
    }
    CHECK(run.chunks_held() == 15);
    // Again, from the moved chunks, backwards: a third of what is held, moved again at a quarter
    // (46,080 cases left: 11.25 chunks).
    for (std::size_t i = count; i-- > 0;)
        if (i % 4 == 2) run.release(i);
    CHECK(run.chunks_held() == 12);
    // Each case keeps its index: name, numbers, raw samples, a line kept aside.
    for (std::size_t i = 1; i < count; i += 2) {
        REQUIRE(run.name(i) == "models/c" + std::to_string(i) + ".py");
        REQUIRE(run[i].mean == static_cast<double>(i));
    }
    CHECK(run.line(count - 3) == 6'000'000'000ULL);
    CHECK(run.take_observation(count - 3).source == "run.log:6000000000");
    CHECK(run.take_observation(7).samples == std::vector<double>{9.0, 10.0, 11.0, 12.0});
    for (std::size_t i = 1; i < count; i += 2) run.release(i);
    CHECK(run.chunks_held() == 0);
}

}  // namespace gate_stream_test
