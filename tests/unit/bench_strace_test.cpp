// [STRACE] record grammar and the recomputation of upstream's report (bench-log.md §1.13, §4),
// checked against the verified outputs in tests/data/bench/composed/.

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>

#include "../../src/bench/strace.hpp"
#include "ptune/bench/summary.hpp"
#include "ptune/core/io.hpp"

namespace bench_strace_test {

using namespace ptune;
using namespace ptune::bench;

namespace {

/// One record in the fake prefix of pypto's test_benchmark.py marker builder.
std::string span(std::uint64_t pid, std::uint64_t inv, const std::string& hid, int depth,
                 const std::string& name, std::int64_t ts, std::int64_t dur, bool device = false) {
    return fmt::format(
        "[2026-01-01][T0x1][TIMING] {}: [STRACE] v=1 pid={} tid=1 inv={} hid={} depth={} name={} "
        "ts={} dur={}{}\n",
        name, pid, inv, hid, depth, name, ts, dur, device ? " clk=dev" : "");
}

/// A launch as pypto's tests build it: root (host µs) + device_wall (device µs), ts = inv×1000.
std::string launch(std::uint64_t pid, std::uint64_t inv, double host_us, double device_us,
                   const std::string& hid = "abc") {
    auto ns = [](double us) { return static_cast<std::int64_t>(us * 1000); };
    std::int64_t ts = static_cast<std::int64_t>(inv) * 1000;
    return span(pid, inv, hid, 2, "chip.run.runner_run.device_wall", ts, ns(device_us), true) +
           span(pid, inv, hid, 0, "chip.run", ts, ns(host_us));
}

std::optional<BenchBlock> recompute(const std::string& text, StraceOptions options,
                                    Diagnostics& diagnostics) {
    StraceCollector collector("test.log", diagnostics);
    io::LineReader reader{std::string_view(text)};
    std::string_view line;
    while (reader.next(line)) collector.feed(line, reader.line_number());
    return collector.compute(options);
}

std::vector<std::string> run_lines(const std::string& text, StraceOptions options) {
    Diagnostics diagnostics;
    options.raw = true;
    options.kernel = "k";
    auto block = recompute(text, options, diagnostics);
    REQUIRE(block);
    return format_run_lines(*block, true);
}

/// The `[RUN]` lines of one `### name` section of the derived upstream report.
std::vector<std::string> derived_section(const std::string& name) {
    std::ifstream in(std::string(PTUNE_TEST_DATA) +
                     "/bench/composed/pypto_test_benchmark_inputs.derived_report.txt");
    std::vector<std::string> lines;
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
        if (line.rfind("### ", 0) == 0)
            inside = line == "### " + name;
        else if (inside && line.rfind("[RUN]", 0) == 0)
            lines.push_back(line);
    }
    REQUIRE_FALSE(lines.empty());
    return lines;
}

StraceOptions loop(std::size_t warmup, std::size_t rounds, bool distributed) {
    StraceOptions options;
    options.warmup = warmup;
    options.rounds = rounds;
    options.distributed = distributed;
    return options;
}

}  // namespace

TEST_CASE("bench strace: record grammar of every prefix generation", "[bench][strace]") {
    auto current = parse_strace_record(
        " v=1 pid=48213 tid=48214 inv=4294967303 hid=4A2E809168376AAC depth=3 "
        "name=chip.run.runner_run.device_wall.orch ts=23180 dur=386320 clk=dev");
    REQUIRE(current);
    CHECK(current->pid == 48213);
    CHECK(current->tid == 48214);
    CHECK(current->inv == 4294967303ull);  // beyond 32 bits
    CHECK(current->hid == "4A2E809168376AAC");
    CHECK(current->depth == 3);
    CHECK(current->name == "chip.run.runner_run.device_wall.orch");
    CHECK(current->ts == 23180);
    CHECK(current->dur == 386320);

    // A record cut before ts= is torn, and so is one with a negative duration.
    CHECK_FALSE(parse_strace_record(" v=1 pid=1 tid=1 inv=1 hid=ab depth=0 name=chip.run"));
    CHECK_FALSE(
        parse_strace_record(" v=1 pid=1 tid=1 inv=1 hid=ab depth=0 name=chip.run ts=5 dur=-3"));
    CHECK_FALSE(
        parse_strace_record("v=1 pid=1 tid=1 inv=1 hid=ab depth=0 name=chip.run ts=5 dur=3"));
}

TEST_CASE("bench strace: two records on one line, older prefixes and torn records",
          "[bench][strace]") {
    std::string text =
        "[2026-07-02 10:11:12.123456][T0x7f][INFO_V9] ~StraceScope: [strace.h:129] [STRACE] v=1 "
        "pid=7 tid=7 inv=0 "
        "hid=ab depth=2 name=simpler_run.runner_run.device_wall ts=0 dur=9000 clk=dev\n"
        "[mono_ns=1][T0x1][TIMING] emit_host_span: [STRACE] v=1 pid=7 tid=7 inv=0 hid=ab depth=3 "
        "name=simpler_run.runner_run.device_wall.orch ts=0 dur=2000 clk=dev "
        "[mono_ns=2][T0x1][TIMING] emit_host_span: [STRACE] v=1 pid=7 tid=7 inv=0 hid=ab depth=3 "
        "name=simpler_run.runner_run.device_wall.sched ts=5000 dur=3000 clk=dev\n"
        "[2026-08-13 10:11:12.123456][T0x1][TIMING] emit_host_span: [STRACE] v=1 pid=7 tid=7 inv=0 "
        "hid=ab depth=0 "
        "name=simpler_run ts=100 dur=12000 \n"
        "[STRACE] v=1 pid=7 tid=7 inv=1 hid=ab depth=0 name=simpler_run ts=\n";
    Diagnostics diagnostics;
    auto block = recompute(text, loop(0, 1, false), diagnostics);
    REQUIRE(block);
    // orch [0,2000] and sched [5000,8000] ns: the window includes the gap -> 8.0 µs.
    REQUIRE(block->effective_us);
    CHECK(block->effective_us->rounds == 1);
    CHECK(block->effective_us->mean == 8.0);
    // The torn record is reported with its line, and the loss is counted.
    bool torn_line = false, torn_count = false;
    for (const auto& d : diagnostics.items()) {
        if (d.line == 4 && d.message.find("torn") != std::string::npos) torn_line = true;
        if (d.message.find("1 of 5 [STRACE] records") != std::string::npos) torn_count = true;
    }
    CHECK(torn_line);
    CHECK(torn_count);
}

TEST_CASE("bench strace: L2 warmup, hid buckets and scheduler families", "[bench][strace]") {
    // test_parse_discards_warmup_and_collects_rounds + a node.dispatch span + another callable.
    std::string text = launch(100, 0, 99, 99) + launch(100, 1, 99, 99) + launch(100, 2, 100, 10) +
                       launch(100, 3, 200, 20) + launch(100, 4, 300, 30) +
                       span(99, 0, "0", 0, "node.dispatch", 0, 900000) +
                       launch(100, 5, 7, 7, "def");
    Diagnostics diagnostics;
    auto block = recompute(text, loop(2, 3, false), diagnostics);
    REQUIRE(block);
    // No orch/sched spans: device walls are non-zero, Effective is 0 everywhere.
    CHECK_FALSE(block->effective_us);
    CHECK(block->unavailable == std::optional<std::string>("no orch/sched spans captured"));
    auto lines = run_lines(text, loop(2, 3, false));
    CHECK(lines == derived_section("warmup discard"));
}

TEST_CASE("bench strace: no device span reads zero", "[bench][strace]") {
    std::string text = span(100, 0, "abc", 0, "chip.run", 0, 50000);
    CHECK(run_lines(text, loop(0, 1, false)) == derived_section("no device span"));
}

TEST_CASE("bench strace: L3 per-round max over ranks and union window", "[bench][strace]") {
    std::string text = launch(100, 0, 99, 99) + launch(101, 0, 99, 99) + launch(100, 1, 100, 10) +
                       launch(101, 1, 200, 20) + launch(100, 2, 300, 30) + launch(101, 2, 50, 5);
    CHECK(run_lines(text, loop(1, 2, true)) == derived_section("l3 two ranks max"));
}

TEST_CASE("bench strace: L3 multi-dispatch slots and reordered dispatches", "[bench][strace]") {
    std::string multi = launch(100, 0, 1, 4, "a") + launch(100, 1, 1, 6, "b") +
                        launch(100, 2, 1, 3, "a") + launch(100, 3, 1, 7, "b") +
                        launch(101, 0, 1, 5, "c") + launch(101, 1, 1, 8, "c");
    CHECK(run_lines(multi, loop(0, 2, true)) == derived_section("l3 multi dispatch"));

    std::string reordered = launch(100, 0, 1, 4, "a") + launch(100, 1, 1, 6, "b") +
                            launch(100, 2, 1, 7, "b") + launch(100, 3, 1, 3, "a");
    CHECK(run_lines(reordered, loop(0, 2, true)) == derived_section("l3 reordered"));
}

TEST_CASE("bench strace: L3 non-divisible dispatch counts fall back to a flattened pool",
          "[bench][strace]") {
    std::string text = launch(100, 0, 1, 5) + launch(100, 1, 1, 6) + launch(100, 2, 1, 7);
    CHECK(run_lines(text, loop(0, 2, true)) == derived_section("l3 non-divisible"));
}

TEST_CASE("bench strace: L3 per-rank Effective and cross-rank skew", "[bench][strace]") {
    auto phases = [](std::uint64_t pid, std::int64_t o_ts, std::int64_t o_dur, std::int64_t s_ts,
                     std::int64_t s_dur) {
        return span(pid, 0, "abc", 3, "chip.run.runner_run.device_wall.orch", o_ts, o_dur, true) +
               span(pid, 0, "abc", 3, "chip.run.runner_run.device_wall.sched", s_ts, s_dur, true) +
               span(pid, 0, "abc", 2, "chip.run.runner_run.device_wall", 0, 9000, true) +
               span(pid, 0, "abc", 0, "chip.run", 0, 5000);
    };
    std::string text = phases(100, 1000, 3000, 2000, 4000) + phases(101, 0, 2000, 5000, 3000);
    CHECK(run_lines(text, loop(0, 1, true)) == derived_section("l3 per-rank effective"));

    std::string skew = launch(100, 0, 5, 10) +
                       span(101, 3, "abc", 2, "chip.run.runner_run.device_wall", 0, 20000, true) +
                       span(101, 3, "abc", 0, "chip.run", 3000, 5000);
    CHECK(run_lines(skew, loop(0, 1, true)) == derived_section("l3 union skew"));
}

TEST_CASE("bench strace: a launch missing its device marker stays aligned", "[bench][strace]") {
    std::string text = span(100, 0, "abc", 0, "chip.run", 0, 200000) + launch(100, 1, 300, 30) +
                       launch(101, 0, 200, 20) + launch(101, 1, 50, 5);
    CHECK(run_lines(text, loop(0, 2, true)) == derived_section("l3 missing device marker"));
}

TEST_CASE("bench strace: two-pass swimlane sentinels", "[bench][strace]") {
    auto region = [](const std::string& pass, const std::string& body) {
        return "[pypto] l3_swimlane_pass=" + pass + " event=begin\n" + body +
               "[pypto] l3_swimlane_pass=" + pass + " event=end\n";
    };
    auto phases = [](std::uint64_t pid, std::uint64_t inv, std::int64_t eff_ns) {
        return span(pid, inv, "abc", 3, "chip.run.runner_run.device_wall.orch", 0, eff_ns, true) +
               span(pid, inv, "abc", 2, "chip.run.runner_run.device_wall", 0, eff_ns + 10, true) +
               span(pid, inv, "abc", 0, "chip.run", static_cast<std::int64_t>(inv) * 1000, 1000);
    };
    std::string text;
    std::uint64_t inv = 0;
    for (std::int64_t eff : {99000, 10000, 30000}) {
        text += region("graph", phases(100, inv, 900000) + phases(101, inv, 901000));
        ++inv;
        text += region("timing", phases(100, inv, eff) + phases(101, inv, eff / 2));
        ++inv;
    }
    Diagnostics diagnostics;
    auto block = recompute(text, loop(1, 2, true), diagnostics);
    REQUIRE(block);
    REQUIRE(block->effective_us);
    CHECK(block->effective_us->min == 10.0);
    CHECK(block->effective_us->max == 30.0);  // nothing from the 900 µs graph passes

    // A timing pass that never ends rejects the whole capture: no number at all.
    Diagnostics rejected_diagnostics;
    auto rejected = recompute(text + "[pypto] l3_swimlane_pass=timing event=begin\n",
                              loop(1, 2, true), rejected_diagnostics);
    REQUIRE(rejected);
    CHECK_FALSE(rejected->has_headline());
    CHECK_FALSE(rejected->notes.empty());
    CHECK_FALSE(rejected_diagnostics.empty());

    // Three timing passes for warmup 1 + rounds 3: cannot be aligned, no samples.
    Diagnostics mismatch_diagnostics;
    auto mismatch = recompute(text, loop(1, 3, true), mismatch_diagnostics);
    REQUIRE(mismatch);
    CHECK_FALSE(mismatch->effective_us);
}

TEST_CASE("bench strace: statistics follow Python exactly", "[bench][strace]") {
    std::vector<double> values = {0.0, 512.3, 505.1, 501.2, -1.0};
    auto summary = summarize_positive(values);
    REQUIRE(summary);
    CHECK(summary->rounds == 3);
    CHECK(summary->median == 505.1);
    CHECK(fmt::format("{:.1f}", summary->mean) == "506.2");
    std::vector<double> even = {1.0, 4.0, 2.0, 3.0};
    CHECK(summarize_positive(even)->median == 2.5);
    std::vector<double> zeros = {0.0, 0.0};
    CHECK_FALSE(summarize_positive(zeros));
    // Exactly rounded sum: a naive left-to-right sum loses both 1.0 against 1e16.
    std::vector<double> large = {1e16, 1.0, 1.0};
    CHECK(summarize_positive(large)->mean == (1e16 + 2.0) / 3.0);

    CHECK(format_raw_value(100.44) == "100.4");
    CHECK(format_raw_value(106300.0) == "106300.0");
    CHECK(format_raw_value(100.25) == "100.2");  // half-even on the exact binary value
    CHECK(format_raw_value(100.35) == "100.3");
    CHECK(format_raw_value(0.0) == "0.0");
    CHECK(format_raw_value(1e16) == "1e+16");
}

TEST_CASE("[STRACE] groups revisited out of order after the index grows give the same report",
          "[bench][strace]") {
    // 300 launches of two callables on two L3 ranks: every group is met four times, one kind of
    // span at a time over all launches, so each lookup after the first crosses several rebuilds
    // of the group index. The report must equal the one from launches written one by one.
    auto ns = [](std::size_t inv, std::size_t k) { return static_cast<std::int64_t>(inv * 7 + k); };
    std::string grouped, scattered;
    std::vector<std::string> roots, walls, orchs, scheds;
    for (std::uint64_t pid : {101u, 202u}) {
        for (std::size_t inv = 0; inv < 300; ++inv) {
            std::string hid = inv % 2 == 0 ? "AA" : "bb";  // case folds: "aa" is one callable
            std::int64_t ts = static_cast<std::int64_t>(inv) * 100000;
            std::string root = span(pid, inv, hid, 0, "chip.run", ts, 90000 + ns(inv, pid));
            std::string wall = span(pid, inv, hid, 2, "chip.run.runner_run.device_wall", ts + 10,
                                    60000 + ns(inv, 1), true);
            std::string orch = span(pid, inv, hid, 3, "chip.run.runner_run.device_wall.orch",
                                    ts + 20, 30000 + ns(inv, 2), true);
            std::string sched = span(pid, inv, hid, 3, "chip.run.runner_run.device_wall.sched",
                                     ts + 25, 40000 + ns(inv, pid % 7), true);
            grouped += wall + orch + sched + root;
            roots.push_back(root);
            walls.push_back(wall);
            orchs.push_back(orch);
            scheds.push_back(sched);
        }
    }
    for (const auto* kind : {&orchs, &scheds, &walls, &roots})
        for (const std::string& line : *kind) scattered += line;
    StraceOptions options = loop(2, 148, true);
    CHECK(run_lines(scattered, options) == run_lines(grouped, options));
    Diagnostics diagnostics;
    auto block = recompute(scattered, options, diagnostics);
    REQUIRE(block);
    REQUIRE(block->ranks.size() == 2);
    REQUIRE(block->effective_us);
    CHECK(block->effective_us->rounds == 148);
    // Two dispatches per round (aa, bb): slot names come from the interned, lower-cased hids.
    REQUIRE(block->ranks[0].slots.size() == 2);
    CHECK(block->ranks[0].slots[0].name == "aa");
    CHECK(block->ranks[0].slots[1].name == "bb");
}

TEST_CASE("bench strace: a reset collector reads the next capture as a new one would",
          "[bench][strace]") {
    // The loader reuses one collector for every case of a log: what an earlier capture left
    // (launch groups, hids, sentinels, a rejected timing pass, chip processes, a grown index)
    // must not reach the next one.
    std::string first = "[chip_process pid=7 dev=3] ready\n";
    for (std::uint64_t inv = 0; inv < 700; ++inv)  // > 1024 index slots: the index is dropped
        first += launch(100 + inv % 2, inv, 50.0 + static_cast<double>(inv % 5), 20.0, "Zz");
    first += "[pypto] l3_swimlane_pass=timing event=begin\n";  // never ends: rejects `first`
    std::string second;
    for (std::uint64_t inv = 0; inv < 12; ++inv)
        second += launch(300, inv, 10.0 + static_cast<double>(inv), 5.0);
    StraceOptions options = loop(2, 10, false);
    options.raw = true;
    options.kernel = "k";
    for (const std::string* earlier : {&first, &second}) {
        Diagnostics fresh_diagnostics, reused_diagnostics;
        auto fresh = recompute(second, options, fresh_diagnostics);
        StraceCollector reused("a.log", reused_diagnostics);
        io::LineReader reader{std::string_view(*earlier)};
        std::string_view line;
        while (reader.next(line)) reused.feed(line, reader.line_number());
        reused.compute(options);
        reused.reset("test.log");
        CHECK_FALSE(reused.saw_markers());
        CHECK(reused.chip_processes().empty());
        io::LineReader again{std::string_view(second)};
        while (again.next(line)) reused.feed(line, again.line_number());
        auto block = reused.compute(options);
        REQUIRE(fresh);
        REQUIRE(block);
        CHECK(format_run_lines(*block, true) == format_run_lines(*fresh, true));
        CHECK(to_string(block->source) == to_string(fresh->source));
        CHECK(reused.capture_notes().empty());
    }
}

}  // namespace bench_strace_test
