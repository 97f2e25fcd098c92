// write_case_json (bench/summary.hpp) writes the text nlohmann's dump(2) gives for
// case_to_json(), at any indentation: checked on a hand-made case with every optional member set
// (and each of its blocks alone), on cases without blocks or without a headline, and on every
// case of the bench fixtures (reports, [STRACE] recomputations, results.tsv, task slots,
// sentinels, damaged logs).

#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "json_writer_check.hpp"
#include "ptune/bench/model.hpp"
#include "ptune/bench/summary.hpp"

namespace bench_case_json_writer_test {

using namespace ptune;
using namespace ptune::bench;

namespace {

void check_same(const BenchCase& bench_case) {
    INFO(bench_case.name);
    json_writer_check::check_writes_dump(
        case_to_json(bench_case),
        [&](std::size_t indent, std::string& text) { write_case_json(bench_case, indent, text); });
}

Summary summary(double mean, std::size_t rounds) {
    Summary s;
    s.rounds = rounds;
    s.min = mean * 0.9;
    s.median = mean + 0.25;
    s.mean = mean;
    s.max = mean * 1.5;
    return s;
}

// A block with every member the JSON can carry.
BenchBlock full_block() {
    BenchBlock block;
    block.effective_us = summary(101.5, 5);
    block.fast_variant = true;
    block.valid_rounds = "4/5";
    block.singular_round = true;
    Rank rank;
    rank.rank = 2263908;
    rank.eff_us = summary(100.0, 0);
    rank.device_wall_mean_us = 98.5;
    rank.device_wall_max_us = 1e21;
    Slot slot;
    slot.slot = 1;
    slot.name = "orch \"a\"\t\xff";
    slot.eff_us = summary(50.0, 3);
    rank.slots = {slot, Slot{2, "", std::nullopt}};
    Rank other;
    other.rank = 2263922;
    other.eff_us = summary(103.0, 5);
    block.ranks = {rank, other};
    RawSamples raw;
    raw.ranks = 2;
    raw.rounds = 3;
    raw.warmup = 1;
    raw.fallback_flattened = true;
    raw.per_rank = {{2263908, {0.0, 1.5, 1e-7}}, {2263922, {}}};
    block.raw = raw;
    Context context;
    context.kernel = "paged_attention";
    context.resident = true;
    context.rounds = 3;
    context.ranks = 2;
    context.host_union_mean_us = 120.25;
    context.fallback_flattened = true;
    context.fields = {{"kernel", "paged_attention"}, {"l3_resident", "1"}, {"z", "caf\xc3\xa9"}};
    context.source = {"run.log", 12};
    block.context = context;
    block.origin = Origin::Strace;
    block.source = {"run.log", 10};
    block.declared_rounds = 3;
    block.declared_warmup = 1;
    block.notes = {"interrupted", "skip: no device"};
    LoopFacts facts;
    facts.warmup = {1, FactSource::Flag, ""};
    facts.rounds = {3, FactSource::Inferred, "launches - warmup"};
    facts.distributed = {true, FactSource::Log, "2 pids"};
    facts.resident = {false, FactSource::Default, "not shown"};
    block.loop_facts = facts;
    TaskSlot task_slot;
    task_slot.rank = 2263908;
    task_slot.slot = 1;
    task_slot.n = 3;
    task_slot.fin_us = 10.5;
    task_slot.dur_us = 2.0;
    task_slot.dfin_us = 0.1;
    task_slot.raw_fin_us = {10.4, 10.5, 10.6};
    block.task_slots.declared_ranks = 2;
    block.task_slots.slots = {task_slot, TaskSlot{2263922, 2, 0, 1.0, 0.5, std::nullopt, {}, 0}};
    return block;
}

}  // namespace

TEST_CASE("write_case_json equals case_to_json's dump on every shape", "[bench][json]") {
    BenchCase bare;
    bare.name = "no blocks";
    bare.source = {"sweep.log", 3};
    bare.notes = {"no benchmark lines", "no benchmark lines", "twice"};
    check_same(bare);

    BenchCase full;
    full.name = "models/\"quoted\"\tcase.py";
    full.status = "pass";
    full.sentinels = {"[PERF] deterministic_seed 7", "[VALIDATION] mode=strict"};
    full.notes = {"interrupted", "only the case's"};
    BenchBlock unavailable;
    unavailable.unavailable = "no device";
    unavailable.notes = {"skip: no device"};
    BenchBlock mean_only;
    mean_only.effective_us = summary(539.9, 5);  // mean only: no rounds whatever is set
    mean_only.effective_us->mean_only = true;
    mean_only.origin = Origin::ResultsTsv;
    full.blocks = {unavailable, full_block(), mean_only};
    check_same(full);
    for (const BenchBlock& block : full.blocks) {
        BenchCase one = full;
        one.blocks = {block};
        check_same(one);
    }

    BenchCase no_headline = full;
    no_headline.blocks = {BenchBlock{}};
    no_headline.blocks[0].notes = {"interrupted"};
    no_headline.status.reset();
    no_headline.sentinels.clear();
    check_same(no_headline);
}

TEST_CASE("write_case_json equals case_to_json on every case of the bench fixtures",
          "[bench][json]") {
    std::size_t checked = 0;
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(std::string(PTUNE_TEST_DATA) + "/bench")) {
        if (!entry.is_regular_file() || entry.path().extension() == ".md") continue;
        Diagnostics diagnostics;
        auto cases = load_bench_inputs({entry.path().string()}, {}, diagnostics);
        if (!cases.ok()) continue;  // not a bench input (binary.bin, notes)
        for (const BenchCase& bench_case : *cases) {
            check_same(bench_case);
            ++checked;
        }
    }
    CHECK(checked > 40);
}

}  // namespace bench_case_json_writer_test
