// `[STRACE]` loop facts (warmup, rounds, L2/L3, resident) taken from the log, inferred, or
// assumed and said so (issue #18), checked against the composed fixtures' true loop facts.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "ptune/bench/model.hpp"
#include "ptune/bench/summary.hpp"
#include "ptune/core/stats.hpp"

namespace bench_loop_facts_test {

using namespace ptune;
using namespace ptune::bench;

namespace {

std::string composed(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/bench/composed/" + name;
}

/// The true loop of a composed fixture: the first line of its `.expected.txt`
/// (`# rounds=3 warmup=1 distributed=True resident=False PYPTO_BENCH_RAW=1`) and its lines.
struct Expected {
    std::size_t rounds = 0;
    std::size_t warmup = 0;
    bool distributed = false;
    bool resident = false;
    std::string kernel = "unknown";
    std::vector<std::string> lines;
};

Expected expected_of(const std::string& log) {
    std::string path = log.substr(0, log.size() - 4) + ".expected.txt";
    std::ifstream in(path);
    REQUIRE(in);
    Expected expected;
    std::string header;
    std::getline(in, header);
    std::istringstream fields(header.substr(2));
    std::string field;
    while (fields >> field) {
        std::size_t eq = field.find('=');
        std::string key = field.substr(0, eq), value = field.substr(eq + 1);
        if (key == "rounds") expected.rounds = std::stoul(value);
        if (key == "warmup") expected.warmup = std::stoul(value);
        if (key == "distributed") expected.distributed = value == "True";
        if (key == "resident") expected.resident = value == "True";
    }
    std::string line;
    while (std::getline(in, line)) {
        expected.lines.push_back(line);
        std::size_t kernel = line.find("benchmark kernel=");
        if (kernel != std::string::npos) {
            std::size_t from = kernel + 17;
            expected.kernel = line.substr(from, line.find(' ', from) - from);
        }
    }
    return expected;
}

std::vector<std::string> strace_fixtures() {
    std::vector<std::string> logs;
    for (const auto& entry : std::filesystem::directory_iterator(composed(""))) {
        if (entry.path().extension() == ".log") logs.push_back(entry.path().string());
    }
    std::sort(logs.begin(), logs.end());
    REQUIRE(logs.size() >= 6);
    return logs;
}

BenchBlock recompute(const std::string& path, StraceOptions strace, Diagnostics& diagnostics) {
    LoadOptions options;
    options.strace = std::move(strace);
    auto cases = load_bench_inputs({path}, options, diagnostics);
    REQUIRE(cases.ok());
    REQUIRE(cases->size() == 1);
    REQUIRE_FALSE(cases->front().blocks.empty());
    return cases->front().blocks.back();
}

bool detected(FactSource source) {
    return source == FactSource::Flag || source == FactSource::Log ||
           source == FactSource::Inferred;
}

/// A temporary file holding `text`, removed at scope exit.
struct TempFile {
    explicit TempFile(const std::string& text) {
        path = (std::filesystem::temp_directory_path() /
                ("ptune_" + std::to_string(::getpid()) + "_loop_facts.log"))
                   .string();
        std::ofstream(path, std::ios::binary) << text;
    }
    ~TempFile() { std::filesystem::remove(path); }
    std::string path;
};

/// `count` L2 launches of one callable in the current marker format.
std::string l2_launches(std::size_t count) {
    std::string text;
    for (std::size_t inv = 1; inv <= count; ++inv) {
        std::int64_t ts = 1000000 * static_cast<std::int64_t>(inv);
        text += "[STRACE] v=1 pid=5 tid=5 inv=" + std::to_string(inv) +
                " hid=abc depth=3 name=chip.run.runner_run.device_wall.orch ts=0 dur=" +
                std::to_string(1000 * inv) + " clk=dev\n";
        text += "[STRACE] v=1 pid=5 tid=5 inv=" + std::to_string(inv) +
                " hid=abc depth=2 name=chip.run.runner_run.device_wall ts=0 dur=" +
                std::to_string(2000 * inv) + " clk=dev\n";
        text += "[STRACE] v=1 pid=5 tid=5 inv=" + std::to_string(inv) +
                " hid=abc depth=0 name=chip.run ts=" + std::to_string(ts) + " dur=5000 \n";
    }
    return text;
}

}  // namespace

TEST_CASE(
    "bench loop facts: without flags, every composed fixture prints upstream's numbers or "
    "names the facts it assumed",
    "[bench][strace][loop]") {
    for (const std::string& log : strace_fixtures()) {
        CAPTURE(log);
        Expected truth = expected_of(log);
        StraceOptions strace;  // no loop fact given: kernel and raw are not loop facts
        strace.kernel = truth.kernel;
        strace.raw = true;
        Diagnostics diagnostics;
        BenchBlock block = recompute(log, strace, diagnostics);
        REQUIRE(block.loop_facts);
        const LoopFacts& facts = *block.loop_facts;
        // The mode is always read off the markers, never assumed.
        CHECK(facts.distributed.source == FactSource::Log);
        CHECK(facts.distributed.value == truth.distributed);
        if (truth.distributed) {
            CHECK(facts.resident.value == truth.resident);
        }
        // A fact presented as detected is right; a wrong one is labelled as assumed.
        if (detected(facts.warmup.source)) CHECK(facts.warmup.value == truth.warmup);
        if (detected(facts.rounds.source)) CHECK(facts.rounds.value == truth.rounds);
        bool all_right = facts.warmup.value == truth.warmup && facts.rounds.value == truth.rounds &&
                         facts.distributed.value == truth.distributed &&
                         (!truth.distributed || facts.resident.value == truth.resident);
        if (all_right) {
            CHECK(format_run_lines(block, true) == truth.lines);
        } else {
            CHECK_FALSE(detected(facts.warmup.source));
        }
        // stderr: one note naming every fact and its source.
        std::size_t notes = 0;
        for (const auto& item : diagnostics.items()) {
            if (item.severity == Severity::Note && item.message.find("[STRACE] loop: ") == 0) {
                ++notes;
                CHECK(item.message.find(facts.describe()) != std::string::npos);
            }
        }
        CHECK(notes == 1);
    }
}

TEST_CASE("bench loop facts: the L3 fixtures are detected as L3 and match upstream unaided",
          "[bench][strace][loop]") {
    Diagnostics diagnostics;
    StraceOptions strace;
    strace.kernel = "PrefillFwd";
    strace.raw = true;
    BenchBlock block = recompute(composed("l3_strace_2ranks_2disp_w1_r3.log"), strace, diagnostics);
    REQUIRE(block.loop_facts);
    CHECK(block.loop_facts->distributed.why == "2 chip-worker pids with device_wall");
    CHECK(block.loop_facts->resident.source == FactSource::Default);
    REQUIRE(block.effective_us);
    CHECK(stats::format_fixed(block.effective_us->mean, 1) == "101554.7");
    // 8 launches per rank repeat a 2-callable pattern: 4 launches per rank of the loop.
    CHECK(block.loop_facts->warmup.source == FactSource::Assumed);
    CHECK(block.loop_facts->rounds.value == 3);

    Diagnostics swim_diagnostics;
    BenchBlock swim =
        recompute(composed("l3_swimlane_two_pass_w1_r2.log"), strace, swim_diagnostics);
    REQUIRE(swim.loop_facts);
    CHECK(swim.loop_facts->distributed.value);
    CHECK(swim.loop_facts->resident.value);
    CHECK(swim.loop_facts->resident.source == FactSource::Log);
    REQUIRE(swim.context);
    CHECK(swim.context->resident);
}

TEST_CASE("bench loop facts: flags win, and a flag the log contradicts says so",
          "[bench][strace][loop]") {
    std::string log =
        "[RUN]   ignoring PYPTO_BENCH_ROUNDS='abc' (want an integer >= 1); using 100\n"
        "[RUN]   ignoring PYPTO_BENCH_WARMUP='-1' (want an integer >= 0); using 5\n"
        "[RUN] benchmark ...\n" +
        l2_launches(8) + "[RUN] benchmark done (0.10s)\n";
    TempFile file(log);

    Diagnostics diagnostics;
    BenchBlock block = recompute(file.path, {}, diagnostics);
    REQUIRE(block.loop_facts);
    CHECK(block.loop_facts->warmup.value == 5);
    CHECK(block.loop_facts->warmup.source == FactSource::Log);
    CHECK(block.loop_facts->rounds.value == 100);
    CHECK(block.loop_facts->rounds.source == FactSource::Log);
    CHECK(block.loop_facts->distributed.source == FactSource::Log);
    REQUIRE(block.effective_us);
    CHECK(block.effective_us->rounds == 3);  // upstream drops 5 of the 8 launches

    StraceOptions flags;
    flags.warmup = 2;
    Diagnostics flag_diagnostics;
    BenchBlock flagged = recompute(file.path, flags, flag_diagnostics);
    REQUIRE(flagged.loop_facts);
    CHECK(flagged.loop_facts->warmup.value == 2);
    CHECK(flagged.loop_facts->warmup.source == FactSource::Flag);
    CHECK(flagged.loop_facts->warmup.why == "the log says 5");
    CHECK(flagged.effective_us->rounds == 6);

    // A mode flag against what the markers show, and a loop that does not fit the launches.
    StraceOptions l3;
    l3.distributed = true;
    l3.warmup = 1;
    l3.rounds = 100;
    Diagnostics l3_diagnostics;
    BenchBlock forced = recompute(file.path, l3, l3_diagnostics);
    REQUIRE(forced.loop_facts);
    CHECK(forced.loop_facts->distributed.value);
    CHECK(forced.loop_facts->distributed.why == "the log suggests L2: every launch in one process");
    CHECK(forced.loop_facts->rounds.why.find("does not fit the log's 8 launches per rank") !=
          std::string::npos);
}

TEST_CASE("bench loop facts: one known fact and the launches give the other",
          "[bench][strace][loop]") {
    TempFile file("[RUN]   ignoring PYPTO_BENCH_ROUNDS='6.0' (want an integer >= 1); using 6\n" +
                  l2_launches(8));
    Diagnostics diagnostics;
    BenchBlock block = recompute(file.path, {}, diagnostics);
    REQUIRE(block.loop_facts);
    CHECK(block.loop_facts->rounds.source == FactSource::Log);
    CHECK(block.loop_facts->warmup.value == 2);
    CHECK(block.loop_facts->warmup.source == FactSource::Inferred);
    CHECK(block.effective_us->rounds == 6);

    // 105 launches fit the defaults: nothing needs assuming beyond them.
    TempFile defaults(l2_launches(105));
    Diagnostics default_diagnostics;
    BenchBlock fitted = recompute(defaults.path, {}, default_diagnostics);
    CHECK(fitted.loop_facts->warmup.value == kDefaultWarmup);
    CHECK(fitted.loop_facts->rounds.value == kDefaultRounds);
    CHECK(fitted.loop_facts->rounds.why == "pypto-lib's, consistent with the launches");
}

TEST_CASE("bench loop facts: a benchmark stage line rules out the resident path",
          "[bench][strace][loop]") {
    std::ifstream in(composed("l3_strace_2ranks_2disp_w1_r3.log"));
    std::stringstream markers;
    markers << in.rdbuf();
    TempFile file("[RUN] benchmark ...\n" + markers.str());
    Diagnostics diagnostics;
    BenchBlock block = recompute(file.path, {}, diagnostics);
    REQUIRE(block.loop_facts);
    CHECK_FALSE(block.loop_facts->resident.value);
    CHECK(block.loop_facts->resident.source == FactSource::Log);
}

TEST_CASE("bench loop facts: JSON keeps them", "[bench][strace][loop]") {
    Diagnostics diagnostics;
    BenchBlock block = recompute(composed("l2_strace_w2_r6.log"), {}, diagnostics);
    REQUIRE(block.loop_facts);
    BenchCase bench_case;
    bench_case.name = "c";
    bench_case.blocks.push_back(block);
    nlohmann::json json = case_to_json(bench_case);
    CHECK(json["loop_facts"]["warmup"]["source"] == "default");
    CHECK(json["loop_facts"]["rounds"]["source"] == "assumed");
    CHECK(json["loop_facts"]["distributed"]["value"] == false);
    auto back = case_from_json(json, "c.json");
    REQUIRE(back.ok());
    REQUIRE(back->blocks.at(0).loop_facts);
    CHECK(back->blocks[0].loop_facts->describe() == block.loop_facts->describe());
}

}  // namespace bench_loop_facts_test
