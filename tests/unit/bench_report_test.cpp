// `[RUN]` report lines, log framing, results.tsv and JSON round trips (bench-log.md §1, §3, §5).

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "../../src/bench/text_util.hpp"
#include "ptune/bench/model.hpp"
#include "ptune/bench/pipeline.hpp"
#include "ptune/bench/summary.hpp"

namespace bench_report_test {

using namespace ptune;
using namespace ptune::bench;

namespace {

std::string data(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/bench/" + name;
}

/// A temporary file holding `text`, removed at scope exit.
struct TempFile {
    explicit TempFile(const std::string& text, const std::string& name = "bench_test.log") {
        path = (std::filesystem::temp_directory_path() /
                ("ptune_" + std::to_string(::getpid()) + "_" + name))
                   .string();
        std::ofstream(path, std::ios::binary) << text;
    }
    ~TempFile() { std::filesystem::remove(path); }
    std::string path;
};

/// Each diagnostic's line and message, in order.
std::vector<std::pair<std::size_t, std::string>> lines_and_messages(
    const Diagnostics& diagnostics) {
    std::vector<std::pair<std::size_t, std::string>> out;
    for (const auto& item : diagnostics.items()) out.emplace_back(item.line, item.message);
    return out;
}

std::vector<BenchCase> load(const std::vector<std::string>& inputs, Diagnostics& diagnostics,
                            LoadOptions options = {}) {
    auto cases = load_bench_inputs(inputs, options, diagnostics);
    REQUIRE(cases.ok());
    return std::move(*cases);
}

std::vector<std::string> run_lines_of(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("[RUN]", 0) == 0) lines.push_back(line);
    }
    return lines;
}

}  // namespace

TEST_CASE("bench report: the verified upstream report parses and prints back byte for byte",
          "[bench][report]") {
    std::string path = data("composed/pypto-lib_test_report_lines_stay_ci_safe.full_output.txt");
    Diagnostics diagnostics;
    auto cases = load({path}, diagnostics);
    REQUIRE(cases.size() == 1);
    CHECK(diagnostics.empty());
    REQUIRE(cases[0].blocks.size() == 1);
    const BenchBlock& block = cases[0].blocks[0];
    CHECK(block.origin == Origin::Report);
    REQUIRE(block.effective_us);
    CHECK(block.effective_us->rounds == 2);
    CHECK(block.effective_us->mean == 99.7);
    REQUIRE(block.ranks.size() == 2);
    CHECK(block.ranks[0].rank == 10);
    REQUIRE(block.ranks[0].slots.size() == 2);
    CHECK(block.ranks[0].slots[1].name == "decode_orch");
    CHECK(block.ranks[1].slots.size() == 1);
    REQUIRE(block.raw);
    CHECK(block.raw->per_rank.at(11) == std::vector<double>{99.0, 100.4});
    REQUIRE(block.context);
    CHECK(block.context->kernel == "moe_ep2");
    CHECK(block.context->resident);
    CHECK(block.context->host_union_mean_us == 405.0);
    CHECK(cases[0].ci_mean() == 99.7);
    CHECK(format_run_lines(block, true) == run_lines_of(path));
}

TEST_CASE("bench report: the real hand-aligned PR #868 report", "[bench][report]") {
    Diagnostics diagnostics;
    auto cases = load({data("pypto-lib__commit65f3477b__l3_rank_slot_report.txt")}, diagnostics);
    REQUIRE(cases.size() == 1);
    const BenchBlock* block = cases[0].ci_block();
    REQUIRE(block);
    CHECK(block->effective_us->rounds == 5);
    CHECK(block->effective_us->median == 106129.0);
    REQUIRE(block->ranks.size() == 2);
    CHECK(block->ranks[0].rank == 3229451);
    REQUIRE(block->ranks[1].slots.size() == 2);
    CHECK(block->ranks[1].slots[1].name == "lm_head_test");
    CHECK(block->ranks[1].slots[1].eff_us->min == 546.6);
    REQUIRE(rank_imbalance(*block));
    CHECK(*rank_imbalance(*block) == Approx(103897.6 / 102771.6));
}

TEST_CASE("bench report: CI framing, several blocks and the CI number", "[bench][report]") {
    std::string log =
        "2026-08-21T21:43:07.1234567Z ##[group]models/a.py\r\n"
        "2026-08-21T21:43:07.2Z [RUN] benchmark ...\r\n"
        "2026-08-21T21:43:07.3Z [RUN]   effective_us (100 rounds) min=520.1 median=538.4 "
        "mean=539.9 max=602.0\r\n"
        "2026-08-21T21:43:07.4Z [RUN]   effective_us (99 rounds) min=1.0 median=2.0 mean=3.0 "
        "max=4.0\r\n"
        "2026-08-21T21:43:07.5Z [RUN]   effective_us unavailable: no orch/sched spans captured\r\n"
        "2026-08-21T21:43:07.6Z ##[endgroup]\r\n"
        "::group::models/b.py\n"
        "[RUN]   ignoring PYPTO_BENCH_ROUNDS='abc' (want an integer >= 1); using 100\n"
        "\x1b[32mpartial stderr\x1b[0m[RUN]   effective_us (7 rounds) min=1.0 median=2.0 mean=2.5 "
        "max=4.0\n"
        "::endgroup::\n"
        "::group::models/c.py\n"
        "[RUN] benchmark ...\n"
        "[RUN]   benchmark unavailable: benchmark(): no [STRACE] markers captured across 105 "
        "launches.\n"
        "[RUN] benchmark done (1.00s)\n"
        "[RUN] validate ...\n"
        "::endgroup::\n";
    TempFile file(log);
    Diagnostics diagnostics;
    auto cases = load({file.path}, diagnostics);
    REQUIRE(cases.size() == 3);
    CHECK(cases[0].name == "models/a.py");
    CHECK(cases[0].blocks.size() == 3);
    // An unavailable headline after numbers does not hide the last number (CI's grep).
    CHECK(cases[0].ci_mean() == 3.0);
    CHECK(cases[0].ci_block()->source.line == 4);
    CHECK(cases[1].name == "models/b.py");
    CHECK(cases[1].ci_mean() == 2.5);
    REQUIRE(cases[1].blocks[0].notes.size() == 1);
    CHECK(cases[1].blocks[0].notes[0].find("ignoring PYPTO_BENCH_ROUNDS") == 0);
    CHECK(cases[2].name == "models/c.py");
    // The note of a run without a headline is a block of its own (for `--format run`) and
    // explains the missing number as a case note.
    REQUIRE(cases[2].blocks.size() == 1);
    CHECK_FALSE(cases[2].blocks[0].has_headline());
    CHECK(cases[2].blocks[0].source.line == 13);
    CHECK(cases[2].blocks[0].notes == cases[2].notes);
    REQUIRE(cases[2].notes.size() == 1);
    CHECK_FALSE(cases[2].ci_block());
    CHECK_FALSE(cases[2].ci_mean());
}

TEST_CASE("bench report: older shapes are read", "[bench][report]") {
    std::string log =
        "[RUN]   effective_us (3 rounds) min=1.0 median=2.0 mean=2.0 max=3.0\n"
        "[RUN]   fast_effective_us (3 round) min=0.5 median=1.0 mean=1.0 max=1.5 valid_rounds=3/3\n"
        "[RUN]     rank 3229451: eff_us min=92585.6 median=106129.0 mean=103897.6 max=108815.2  "
        "device_wall_us mean=121334.0 max=126002.7\n"
        "[RUN] benchmark kernel=MoeEp2 l3=1 rounds=100 ranks=2 device_wall_mean_us=812 "
        "host_union_mean_us=1290 "
        "host_mean_us=1204\n"
        "[RUN] benchmark kernel=Old no_device_timing=1 rounds=30 (device_wall_us all 0 - runtime "
        "built without "
        "PTO2_PROFILING)\n";
    TempFile file(log, "old.log");
    Diagnostics diagnostics;
    auto cases = load({"old=" + file.path}, diagnostics);
    CHECK(diagnostics.empty());
    REQUIRE(cases.size() == 1);
    CHECK(cases[0].name == "old");
    REQUIRE(cases[0].blocks.size() == 3);
    // The fast_ line (2026-07-13..07-22) is what CI quoted in that era.
    CHECK(cases[0].ci_block()->fast_variant);
    CHECK(cases[0].ci_mean() == 1.0);
    const Rank& rank = cases[0].blocks[1].ranks.at(0);
    CHECK(rank.device_wall_mean_us == 121334.0);
    CHECK(cases[0].blocks[1].context->fields.at("device_wall_mean_us") == "812");
    CHECK(cases[0].blocks[2].context->fields.count("remark") == 1);
    // --format run prints every old shape back as it was printed (bench-log.md §1.12).
    std::vector<std::string> printed, logged;
    for (const BenchBlock& block : cases[0].blocks) {
        for (std::string& line : format_run_lines(block, true)) printed.push_back(line);
    }
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) logged.push_back(line);
    CHECK(printed == logged);
}

TEST_CASE("bench report: damaged lines are reported and the rest is kept", "[bench][report]") {
    std::string log =
        "[RUN]   effective_us (5 rounds) min=1.0 median=2.0 mean=3.0 max=4.0\n"
        "[RUN]   effective_us (5 rounds) min=1.2.3 median=2.0 mean=3.0 max=4.0\n"
        "[RUN]     rank 12: eff_us min=1.0 median=nan mean=3.0 max=4.0\n"
        "[RUN]     rank 13 raw n=3 eff_us=[1.0, x, 2.0]\n"
        "[RUN]   effective_us (6 rounds) min=1.0 med";  // truncated mid-line
    TempFile file(log, "damaged.log");
    Diagnostics diagnostics;
    auto cases = load({file.path}, diagnostics);
    REQUIRE(cases.size() == 1);
    CHECK(cases[0].ci_mean() == 3.0);
    CHECK(cases[0].blocks.at(0).ranks.empty());
    REQUIRE(diagnostics.items().size() == 4);
    CHECK(diagnostics.items()[0].line == 2);
    CHECK(diagnostics.items()[1].line == 3);
    CHECK(diagnostics.items()[2].line == 4);
    CHECK(diagnostics.items()[3].line == 5);
}

TEST_CASE("bench report: files with nothing usable", "[bench][report]") {
    TempFile empty("", "empty.log");
    TempFile binary(std::string("\x7f"
                                "ELF\0\0\x01[RUN]   effective_us (1 rounds)",
                                34),
                    "binary.log");
    TempFile words("just some text\n[RUN] PASS (1.00s)\n", "words.log");
    for (const std::string& path : {empty.path, binary.path, words.path}) {
        Diagnostics diagnostics;
        auto cases = load_bench_inputs({path}, {}, diagnostics);
        REQUIRE_FALSE(cases.ok());
        CHECK(cases.error().code == ExitCode::InputError);
        // Named once, as the file of the error (printed `PATH: reason`).
        CHECK(cases.error().to_string().find(path) != std::string::npos);
    }
    // One usable input is enough; the empty one is still named.
    Diagnostics diagnostics;
    auto cases =
        load({empty.path, data("pypto-lib__commit65f3477b__l3_rank_slot_report.txt")}, diagnostics);
    CHECK(cases.size() == 1);
    REQUIRE(diagnostics.items().size() == 1);
    CHECK(diagnostics.items()[0].file == empty.path);
}

TEST_CASE("bench report: results.tsv rows", "[bench][report]") {
    TempFile tsv(
        "models/a.py\tpass\t539.9\nmodels/b.py\tfail\t-\n\nmodels/c.py\tpass\nmodels/"
        "d.py\tpass\t1.2.3\nbad row\n",
        "results.tsv");
    Diagnostics diagnostics;
    auto cases = load({tsv.path}, diagnostics);
    REQUIRE(cases.size() == 4);
    CHECK(cases[0].ci_mean() == 539.9);
    CHECK(cases[0].blocks[0].origin == Origin::ResultsTsv);
    CHECK(cases[0].blocks[0].effective_us->mean_only);
    CHECK(cases[1].status == std::optional<std::string>("fail"));
    CHECK_FALSE(cases[1].ci_mean());
    CHECK_FALSE(cases[2].ci_mean());
    CHECK_FALSE(cases[3].ci_mean());
    REQUIRE(diagnostics.items().size() == 2);
    CHECK(diagnostics.items()[0].line == 5);
    CHECK(diagnostics.items()[1].line == 6);
}

TEST_CASE("bench report: bench-summary JSON reads back to the same cases", "[bench][report]") {
    Diagnostics diagnostics;
    auto cases = load({data("composed/pypto-lib_test_report_lines_stay_ci_safe.full_output.txt"),
                       data("pypto-lib__commit65f3477b__l3_rank_slot_report.txt")},
                      diagnostics);
    nlohmann::json document = {{"cases", nlohmann::json::array()}};
    for (const auto& bench_case : cases) document["cases"].push_back(case_to_json(bench_case));
    TempFile json(document.dump(), "summary.json");
    auto reread = load({json.path}, diagnostics);
    REQUIRE(reread.size() == cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
        CHECK(reread[i].name == cases[i].name);
        CHECK(case_to_json(reread[i]) == case_to_json(cases[i]));
        REQUIRE(reread[i].ci_block());
        CHECK(format_run_lines(*reread[i].ci_block(), true) ==
              format_run_lines(*cases[i].ci_block(), true));
    }
    TempFile other(R"({"metric": "x", "value": 1})", "baseline.json");
    CHECK_FALSE(load_bench_inputs({other.path}, {}, diagnostics).ok());
}

TEST_CASE("bench report: the JSON renderer writes what one document of the cases would",
          "[bench][report]") {
    // Large sweeps are rendered in chunks of 32 cases, every other chunk on a second thread:
    // the bytes must not depend on that. Counts below one chunk, at the thread's threshold,
    // and with a partial last chunk; a name that needs escaping and one that is not UTF-8.
    for (std::size_t count : {0u, 1u, 5u, 1024u, 1537u}) {
        std::string log;
        for (std::size_t i = 0; i < count; ++i) {
            const std::string name = i == 3   ? "models/\"quoted\"\tcase.py"
                                     : i == 4 ? "models/\xff_not_utf8.py"
                                              : fmt::format("models/case_{:05}.py", i);
            log += fmt::format(
                "::group::{}\n[RUN]   effective_us (5 rounds) min={}.0 median={}.5 mean={}.5 "
                "max={}.0\n::endgroup::\n",
                name, i + 1, i + 1, i + 1, i + 2);
        }
        if (count == 0) log = "no bench lines\n";
        TempFile file(log, "sweep.log");
        Diagnostics diagnostics;
        auto cases = load_bench_inputs({file.path}, {}, diagnostics);
        std::vector<BenchCase> loaded = cases.ok() ? std::move(*cases) : std::vector<BenchCase>{};
        REQUIRE(loaded.size() == count);
        render::Report report;
        report.command = "bench-summary";
        report.notes.push_back("a note of the envelope");
        std::ostringstream streamed;
        make_cases_json_renderer(loaded)->render(report, streamed, {});
        nlohmann::json document = render::to_json(report);
        document["cases"] = nlohmann::json::array();
        for (const BenchCase& bench_case : loaded)
            document["cases"].push_back(case_to_json(bench_case));
        INFO(count << " cases");
        CHECK(streamed.str() ==
              document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    }
}

TEST_CASE("bench report: a directory yields one case per file with bench content",
          "[bench][report]") {
    Diagnostics diagnostics;
    auto cases = load({data("composed")}, diagnostics);
    // 6 [STRACE] logs (recomputed with the default loop) + 8 report files.
    REQUIRE(cases.size() == 14);
    CHECK(cases[0].name == "l2_hbg_no_orch_sched_w1_r3.expected");
    CHECK(cases[0].blocks.at(0).origin == Origin::Report);
    CHECK(cases[1].name == "l2_hbg_no_orch_sched_w1_r3");
    CHECK(cases[1].blocks.at(0).origin == Origin::Strace);
    for (const auto& bench_case : cases) CHECK_FALSE(bench_case.blocks.empty());
}

TEST_CASE("bench report: the log prefilter finds every tag at every position", "[bench][report]") {
    // The vector scan works on 64-byte steps: put each tag at each offset of two steps, in
    // filler that holds near misses ("[pass]", "[ab", ":: ", "#[", "#x#", "_sx", "_xt").
    const std::string filler = "x [pass] [ab : :: #[ #x# _sx _xt ";
    using namespace std::string_view_literals;
    for (std::string_view tag :
         {"[RUN]"sv, "[STRACE]"sv, "[pypto]"sv, "[chip_process "sv, "::group::"sv, "::endgroup::"sv,
          "##[group]"sv, "_start="sv, "\x1b[0m"sv}) {
        for (std::size_t at = 0; at < 140; ++at) {
            std::string text;
            while (text.size() < at) text += filler;
            text.resize(at);
            text += tag;
            text += filler + filler + filler;
            std::size_t newlines = 0;
            const char* found = find_log_interest(text.data(), text.data() + text.size(), newlines);
            INFO("tag " << tag << " at " << at);
            CHECK(found == text.data() + at);
        }
    }
    std::string dull;
    for (int i = 0; i < 20; ++i) dull += filler;
    std::size_t newlines = 0;
    CHECK(find_log_interest(dull.data(), dull.data() + dull.size(), newlines) ==
          dull.data() + dull.size());
    dull += '\x1b';
    CHECK(find_log_interest(dull.data(), dull.data() + dull.size(), newlines) ==
          dull.data() + dull.size() - 1);
}

TEST_CASE(
    "bench report: the log prefilter agrees with its byte-wise test on random text, and "
    "counts the newlines it skips",
    "[bench][report]") {
    // The documented test, one position at a time (bytes past the end read as 0).
    auto hit_at = [](const std::string& text, std::size_t at) {
        auto byte = [&](std::size_t i) -> unsigned char {
            return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : 0;
        };
        const unsigned char a = byte(0), b = byte(1), c = byte(2);
        return a == 0x1b ||
               (a == '[' &&
                ((b >= 'P' && b <= 'S') || b == 'V' || c == 'y' || (b == 'c' && c == 'h'))) ||
               (a == ':' && b == ':' && (c == 'g' || c == 'e')) ||
               (a == '#' && b == '#' && c == '[') || (a == '_' && b == 's' && c == 't');
    };
    // The patterns' bytes, their nibble neighbours (0x5B '[' against 0x1B, 0xDB, 0x4B, 0x5A...)
    // and bytes with the high bit set, which a nibble lookup must not mistake for others.
    static constexpr char kBytes[] =
        "[]:#_\x1b\xdb\x9b\x3b\x4b\x5a\x5f\x1fPQRSTUVWpqrsvOcChHyYgGeEfsStT\x80\xff\x00 \n";
    const std::string alphabet(kBytes, sizeof kBytes - 1);  // the \x00 included
    std::uint64_t state = 0x9E3779B97F4A7C15ULL;
    auto next = [&state] {  // xorshift64*: the same texts on every run
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return state * 0x2545F4914F6CDD1DULL;
    };
    for (int round = 0; round < 3000; ++round) {
        std::string text(next() % 300, 'x');
        // Mostly filler, so that hits are rare enough to be found deep in the text, and lines.
        for (char& ch : text) {
            const std::uint64_t pick = next() % 16;
            if (pick < 2) ch = alphabet[next() % alphabet.size()];
            if (pick == 2) ch = '\n';
        }
        const std::size_t begin = text.empty() ? 0 : next() % (text.size() + 1);
        std::size_t expected = text.size();
        for (std::size_t at = begin; at < text.size(); ++at) {
            if (hit_at(text, at)) {
                expected = at;
                break;
            }
        }
        INFO("round " << round << " size " << text.size() << " from " << begin);
        const char* first = text.data();
        // The newlines before the hit are added to what the caller counted so far (7).
        const auto newlines_before =
            static_cast<std::size_t>(7 + std::count(first + begin, first + expected, '\n'));
        for (auto finder : {find_log_interest, find_log_interest_portable}) {
            std::size_t newlines = 7;
            CHECK(finder(first + begin, first + text.size(), newlines) - first ==
                  static_cast<std::ptrdiff_t>(expected));
            CHECK(newlines == newlines_before);
        }
    }
}

TEST_CASE("bench report: legacy device-log orch/sched lines give Effective per round",
          "[bench][report]") {
    Diagnostics diagnostics;
    LoadOptions options;
    options.strace.warmup = 0;
    SECTION("the upstream doc sample: one round, Total = (max end - min start) / cycle rate") {
        auto cases =
            load({data("simpler__l2-timing__legacy_device_log_lines.txt")}, diagnostics, options);
        REQUIRE(cases.size() == 1);
        const BenchBlock* block = cases[0].ci_block();
        REQUIRE(block != nullptr);
        CHECK(block->origin == Origin::DeviceLog);
        REQUIRE(block->effective_us);
        CHECK(block->effective_us->rounds == 1);
        // 46589 cycles at 26959 cycles / 539.180 us
        CHECK(block->effective_us->mean == Approx(46589.0 * 539.18 / 26959.0).epsilon(1e-12));
        CHECK(format_run_lines(*block, false) ==
              std::vector<std::string>{"[RUN]   effective_us (1 rounds) min=931.8 median=931.8 "
                                       "mean=931.8 max=931.8"});
    }
    SECTION("dlog prefixes, timeouts, incomplete and uncalibrated rounds, warmup") {
        TempFile log(
            "[INFO] AICPU(1,x):2026-06-01 Thread 0: sched_start=5 sched_end=9 sched_cost=1us\n"
            "[INFO] AICPU(1,x):2026-06-01 Thread 3: orch_start=1000 orch_end=2000 "
            "orch_cost=10.000us\n"
            "[INFO] AICPU(1,x):2026-06-01 Thread 0: sched_start=900 sched_end(timeout)=2500 "
            "sched_cost=16.000us\n"
            "Thread 3: orch_start=3000 orch_end=3500 orch_cost=5.000us\n"  // no sched: dropped
            "Thread 3: orch_start=4000 orch_end=5000 orch_cost=0.000us\n"  // no cycle rate
            "Thread 1: sched_start=4000 sched_end=5000 sched_cost=10.000us\n"
            "Thread 3: orch_start=6000 orch_end=7000 orch_cost=20.000us\n"
            "Thread 1: sched_start=6500 sched_end=7100 sched_cost=12.000us\n"
            "Thread 2: sched_start=6100 sched_end=6900 sched_cost=16.000us\n",
            "device.log");
        auto cases = load({log.path}, diagnostics, options);
        REQUIRE(cases.size() == 1);
        const BenchBlock* block = cases[0].ci_block();
        REQUIRE(block != nullptr);
        REQUIRE(block->effective_us);
        // Rounds kept: (2500-900)/100 = 16.0 and (7100-6000)/50 = 22.0.
        CHECK(block->effective_us->rounds == 2);
        CHECK(block->effective_us->min == 16.0);
        CHECK(block->effective_us->max == 22.0);
        CHECK(block->source.line == 2);
        REQUIRE(diagnostics.items().size() == 1);
        CHECK(diagnostics.items()[0].line == 5);

        options.strace.warmup = 1;
        Diagnostics again;
        auto warm = load({log.path}, again, options);
        REQUIRE(warm[0].ci_block()->effective_us);
        CHECK(warm[0].ci_block()->effective_us->rounds == 1);
        CHECK(warm[0].ci_block()->effective_us->mean == 22.0);
    }
}

TEST_CASE("bench report: a rank, slot or raw line repeated in one block is ignored with a warning",
          "[bench][report]") {
    TempFile log(
        "[RUN]   effective_us (3 rounds) min=1.0 median=2.0 mean=2.0 max=3.0\n"
        "[RUN]     rank 7: eff_us min=1.0 median=2.0 mean=2.0 max=3.0\n"
        "[RUN]       slot 0 (a): eff_us min=1.0 median=2.0 mean=2.0 max=3.0\n"
        "[RUN]       slot 0 (a): eff_us min=9.0 median=9.0 mean=9.0 max=9.0\n"
        "[RUN]     rank 8: eff_us min=1.5 median=2.5 mean=2.5 max=3.5\n"
        "[RUN]     rank 7: eff_us min=5.0 median=6.0 mean=6.0 max=7.0\n"
        "[RUN]       slot 1 (b): eff_us min=5.0 median=6.0 mean=6.0 max=7.0\n"
        "[RUN]   raw samples: ranks=2 rounds=3 warmup=0\n"
        "[RUN]     rank 7 raw n=3 eff_us=[1.0, 2.0, 3.0]\n"
        "[RUN]     rank 7 raw n=3 eff_us=[5.0, 6.0, 7.0]\n",
        "repeated.log");
    Diagnostics diagnostics;
    auto cases = load({log.path}, diagnostics);
    REQUIRE(cases.size() == 1);
    const BenchBlock& block = cases[0].blocks.at(0);
    REQUIRE(block.ranks.size() == 2);
    CHECK(block.ranks[0].rank == 7);
    CHECK(block.ranks[0].eff_us->mean == 2.0);
    REQUIRE(block.ranks[0].slots.size() == 1);
    CHECK(block.ranks[0].slots[0].eff_us->mean == 2.0);
    CHECK(block.ranks[1].rank == 8);
    CHECK(block.ranks[1].slots.empty());  // slot 1 followed the ignored repeat of rank 7
    REQUIRE(block.raw);
    CHECK(block.raw->per_rank.at(7) == std::vector<double>{1.0, 2.0, 3.0});
    std::vector<std::size_t> lines;
    for (const auto& item : diagnostics.items()) lines.push_back(item.line);
    CHECK(lines == std::vector<std::size_t>{4, 6, 10});
}

TEST_CASE("bench report: a context line whose counts are not whole numbers is garbled",
          "[bench][report]") {
    // Found by fuzzing: rounds=2.7e101 was converted to size_t (undefined behaviour).
    TempFile log(
        "[RUN]   effective_us (2 rounds) min=1.0 median=1.5 mean=1.5 max=2.0\n"
        "[RUN] benchmark kernel=K l3=1 rounds=2.7e101 ranks=2 host_union_mean_us=5 "
        "host_mean_us=4\n"
        "[RUN] benchmark kernel=K l3=1 rounds=2 ranks=1.5 host_union_mean_us=5 host_mean_us=4\n",
        "context.log");
    Diagnostics diagnostics;
    auto cases = load({log.path}, diagnostics);
    REQUIRE(cases.size() == 1);
    CHECK_FALSE(cases[0].blocks.at(0).context.has_value());
    REQUIRE(diagnostics.items().size() == 2);
    CHECK(diagnostics.items()[0].line == 2);
    CHECK(diagnostics.items()[1].line == 3);
}

TEST_CASE(
    "bench report: every skip, unavailable, interrupted and env-knob wording prints back "
    "as upstream printed it",
    "[bench][report]") {
    // bench-log.md §1.7 and §1.8: one space after [RUN] for interrupted, the resident "no
    // [STRACE] markers" note and `skipped: <ExcType>: <message>`; three for the rest.
    const std::vector<std::string> wordings = {
        "[RUN]   benchmark skipped: no live CompiledProgram (runtime_dir replay)",
        "[RUN]   benchmark skipped: L3 distributed program (L2 single-chip only)",
        "[RUN] benchmark skipped: RuntimeError: chip worker 3229451 exited with code 1",
        "[RUN] benchmark skipped: pypto.runtime.BenchError: no device",
        "[RUN]   benchmark unavailable: benchmark(): no [STRACE] markers captured across 105 "
        "launches. The runtime emits per-launch timing markers only when built with the "
        "SIMPLER_HOST_STRACE macro (LOG_TIMING tier); this runtime emitted none. Rebuild the "
        "runtime with SIMPLER_HOST_STRACE enabled to read benchmark timing.",
        "[RUN]   benchmark unavailable: device 3: out of memory",
        "[RUN] benchmark unavailable: no [STRACE] markers captured (runtime built without "
        "SIMPLER_PROFILING)",
        "[RUN] benchmark rounds interrupted: KeyboardInterrupt: interrupted by user",
        "[RUN]   ignoring PYPTO_BENCH_ROUNDS='abc' (want an integer >= 1); using 100",
        "[RUN]   ignoring PYPTO_BENCH_WARMUP='-1' (want an integer >= 0); using 5",
    };
    for (const std::string& wording : wordings) {
        CAPTURE(wording);
        TempFile log("[RUN] runtime ...\n" + wording + "\n[RUN] runtime done (1.00s)\n",
                     "wording.log");
        Diagnostics diagnostics;
        auto cases = load({log.path}, diagnostics);
        REQUIRE(cases.size() == 1);
        std::vector<std::string> printed;
        for (const BenchBlock& block : cases[0].blocks) {
            for (std::string& line : format_run_lines(block, true)) printed.push_back(line);
        }
        CHECK(printed == std::vector<std::string>{wording});
        // And through the JSON output read back.
        auto reread = case_from_json(case_to_json(cases[0]), "wording.json");
        REQUIRE(reread.ok());
        REQUIRE(reread->blocks.size() == 1);
        CHECK(format_run_lines(reread->blocks[0], true) == std::vector<std::string>{wording});
    }
}

TEST_CASE("bench report: --format run equals upstream on every composed [STRACE] fixture",
          "[bench][report]") {
    for (const auto& entry : std::filesystem::directory_iterator(data("composed"))) {
        if (entry.path().extension() != ".log") continue;
        std::string log = entry.path().string();
        CAPTURE(log);
        std::ifstream expected_file(log.substr(0, log.size() - 4) + ".expected.txt");
        std::string header, line;
        std::getline(expected_file, header);
        std::vector<std::string> expected;
        while (std::getline(expected_file, line)) expected.push_back(line);
        // The declared loop from the header, as the flags would give it.
        LoadOptions options;
        auto number = [&](const std::string& key) {
            std::size_t at = header.find(key + "=");
            REQUIRE(at != std::string::npos);
            return std::stoul(header.substr(at + key.size() + 1));
        };
        options.strace.rounds = number("rounds");
        options.strace.warmup = number("warmup");
        options.strace.distributed = header.find("distributed=True") != std::string::npos;
        options.strace.resident = header.find("resident=True") != std::string::npos;
        options.strace.raw = true;
        for (const std::string& text : expected) {
            std::size_t at = text.find("kernel=");
            if (at != std::string::npos)
                options.strace.kernel = text.substr(at + 7, text.find(' ', at) - at - 7);
        }
        Diagnostics diagnostics;
        auto cases = load({log}, diagnostics, options);
        REQUIRE(cases.size() == 1);
        REQUIRE(cases[0].blocks.size() == 1);
        CHECK(format_run_lines(cases[0].blocks[0], true) == expected);
    }
}

TEST_CASE("bench report: task slot raw lists with no slot of their block do not crash",
          "[bench][report]") {
    // Task slot lines before any headline are left out; the raw list after one went to a fresh
    // place per line whose slot list was empty (a crash), and so did a raw list after a
    // headline that opened another block between it and its slot line.
    std::string log =
        "::group::outside\n"
        "[RUN]   task slots: ranks=1\n"
        "[RUN]     rank 7 task_slot 0: n=2 fin_us=10.5 dur_us=3.0\n"
        "[RUN]       raw fin_us=[10.0, 11.0]\n"
        "[RUN]   effective_us (2 rounds) min=1.0 median=2.0 mean=2.5 max=4.0\n"
        "::endgroup::\n"
        "::group::between\n"
        "[RUN]   effective_us (2 rounds) min=1.0 median=2.0 mean=2.5 max=4.0\n"
        "[RUN]     rank 7 task_slot 0: n=2 fin_us=10.5 dur_us=3.0\n"
        "[RUN]   effective_us (2 rounds) min=1.0 median=2.0 mean=2.5 max=4.0\n"
        "[RUN]       raw fin_us=[10.0, 11.0]\n"
        "::endgroup::\n";
    TempFile file(log);
    Diagnostics diagnostics;
    auto cases = load({file.path}, diagnostics);
    REQUIRE(cases.size() == 2);
    REQUIRE(cases[0].blocks.size() == 1);
    CHECK(cases[0].blocks[0].task_slots.slots.empty());
    REQUIRE(cases[1].blocks.size() == 2);
    CHECK(cases[1].blocks[0].task_slots.slots.size() == 1);
    CHECK(cases[1].blocks[1].task_slots.slots.empty());
    const auto warnings = lines_and_messages(diagnostics);
    CHECK(warnings == std::vector<std::pair<std::size_t, std::string>>{
                          {2, "task slot line outside a bench block; left out"},
                          {3, "task slot line outside a bench block; left out"},
                          {4, "task slot line outside a bench block; left out"},
                          {11, "raw fin_us list without its task_slot line"}});
}

TEST_CASE("bench report: nothing of a case's reading carries over to the next case",
          "[bench][report]") {
    // One parser reads every case of a log in turn: notes without a headline, loop hints, an
    // open block, a repeated rank and a task slot's raw list end with their case.
    std::string log =
        "::group::a\n"
        "[RUN]   ignoring PYPTO_BENCH_ROUNDS='x' (want an integer >= 1); using 7\n"
        "[RUN]   effective_us (7 rounds) min=1.0 median=2.0 mean=2.5 max=4.0\n"
        "[RUN]     rank 5: eff_us min=1.0 median=2.0 mean=2.5 max=4.0\n"
        "[RUN]     rank 5: eff_us min=1.0 median=2.0 mean=2.5 max=4.0\n"
        "[RUN]     rank 6 task_slot 0: n=1 fin_us=1.0 dur_us=1.0\n"
        "::endgroup::\n"
        "::group::b\n"
        "[RUN]       raw fin_us=[1.0]\n"
        "[RUN]       slot 0 (x): eff_us min=1.0 median=2.0 mean=2.5 max=4.0\n"
        "[RUN]   benchmark skipped: runtime_dir replay\n"
        "::endgroup::\n"
        "::group::c\n"
        "[RUN]     rank 5: eff_us min=1.0 median=2.0 mean=2.5 max=4.0\n"
        "[RUN]       slot 0 (x): eff_us min=1.0 median=2.0 mean=2.5 max=4.0\n"
        "::endgroup::\n";
    TempFile file(log);
    Diagnostics diagnostics;
    auto cases = load({file.path}, diagnostics);
    REQUIRE(cases.size() == 3);
    REQUIRE(cases[0].blocks.size() == 1);
    CHECK(cases[0].blocks[0].notes.size() == 1);
    CHECK(cases[0].blocks[0].ranks.size() == 1);
    CHECK(cases[0].blocks[0].task_slots.slots.size() == 1);
    REQUIRE(cases[1].blocks.size() == 1);
    CHECK_FALSE(cases[1].blocks[0].has_headline());
    CHECK(cases[1].notes == std::vector<std::string>{"benchmark skipped: runtime_dir replay"});
    REQUIRE(cases[2].blocks.size() == 1);
    REQUIRE(cases[2].blocks[0].ranks.size() == 1);
    CHECK(cases[2].blocks[0].ranks[0].slots.size() == 1);
    const auto warnings = lines_and_messages(diagnostics);
    CHECK(warnings ==
          std::vector<std::pair<std::size_t, std::string>>{
              {5,
               "rank 5 printed twice in one bench block, the repeat and its slot lines are "
               "ignored"},
              {9, "raw fin_us list without its task_slot line"},
              {9, "task slot line outside a bench block; left out"},
              {10, "slot 0 line without a rank line before it, ignored"}});
}

}  // namespace bench_report_test
