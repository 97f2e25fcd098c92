// Bench cases -> JSON: the documents of bench-summary --format json (case_to_json).

#include "ptune/bench/summary.hpp"

#include <algorithm>

namespace ptune::bench {

namespace {

using nlohmann::json;

json summary_to_json(const std::optional<Summary>& summary) {
    if (!summary) return nullptr;
    if (summary->mean_only) {
        return {{"rounds", nullptr},
                {"min", nullptr},
                {"median", nullptr},
                {"mean", summary->mean},
                {"max", nullptr}};
    }
    // Rank and slot lines print no sample count: 0 means unknown there.
    return {{"rounds", summary->rounds > 0 ? json(summary->rounds) : json(nullptr)},
            {"min", summary->min},
            {"median", summary->median},
            {"mean", summary->mean},
            {"max", summary->max}};
}

json optional_json(const std::optional<double>& value) {
    return value ? json(*value) : json(nullptr);
}
json optional_json(const std::optional<std::size_t>& value) {
    return value ? json(*value) : json(nullptr);
}
json optional_json(const std::optional<std::string>& value) {
    return value ? json(*value) : json(nullptr);
}

template <class T>
json fact_to_json(const LoopFact<T>& fact) {
    return {{"value", fact.value}, {"source", to_string(fact.source)}, {"why", fact.why}};
}

json loop_facts_to_json(const LoopFacts& facts) {
    return {{"warmup", fact_to_json(facts.warmup)},
            {"rounds", fact_to_json(facts.rounds)},
            {"distributed", fact_to_json(facts.distributed)},
            {"resident", fact_to_json(facts.resident)}};
}

json block_to_json(const BenchBlock& block) {
    json ranks = json::array();
    for (const Rank& rank : block.ranks) {
        json slots = json::array();
        for (const Slot& slot : rank.slots) {
            slots.push_back({{"slot", slot.slot},
                             {"name", slot.name},
                             {"eff_us", summary_to_json(slot.eff_us)}});
        }
        json entry = {{"rank", rank.rank},
                      {"eff_us", summary_to_json(rank.eff_us)},
                      {"slots", std::move(slots)}};
        if (rank.device_wall_mean_us) entry["device_wall_mean_us"] = *rank.device_wall_mean_us;
        if (rank.device_wall_max_us) entry["device_wall_max_us"] = *rank.device_wall_max_us;
        ranks.push_back(std::move(entry));
    }
    json context = nullptr;
    if (block.context) {
        const Context& c = *block.context;
        context = {{"kernel", c.kernel},
                   {"mode", c.resident ? "l3_resident" : "l3"},
                   {"rounds", optional_json(c.rounds)},
                   {"ranks", optional_json(c.ranks)},
                   {"host_union_mean_us", optional_json(c.host_union_mean_us)},
                   {"host_mean_us", optional_json(c.host_mean_us)},
                   {"fallback_flattened", c.fallback_flattened},
                   {"fields", c.fields},
                   {"source", to_string(c.source)}};
    }
    json raw = nullptr;
    if (block.raw) {
        json samples = json::array();
        for (const auto& [pid, values] : block.raw->per_rank)
            samples.push_back({{"rank", pid}, {"eff_us", values}});
        raw = {{"ranks", block.raw->ranks},
               {"rounds", block.raw->rounds},
               {"warmup", block.raw->warmup},
               {"fallback_flattened", block.raw->fallback_flattened},
               {"samples", std::move(samples)}};
    }
    json out = {{"source", to_string(block.source)},
                {"origin", to_string(block.origin)},
                {"effective_us", summary_to_json(block.effective_us)},
                {"fast_variant", block.fast_variant},
                {"unavailable", optional_json(block.unavailable)},
                {"ranks", std::move(ranks)},
                {"imbalance", optional_json(rank_imbalance(block))},
                {"context", std::move(context)},
                {"raw", std::move(raw)},
                {"declared_rounds", optional_json(block.declared_rounds)},
                {"declared_warmup", optional_json(block.declared_warmup)},
                {"notes", block.notes}};
    // Only recomputed blocks have loop facts, only the 07-15..07-22 fast headlines the rest:
    // other outputs keep their shape.
    if (block.loop_facts) out["loop_facts"] = loop_facts_to_json(*block.loop_facts);
    if (block.valid_rounds) out["valid_rounds"] = *block.valid_rounds;
    if (!block.task_slots.slots.empty()) {
        json slots = json::array();
        for (const TaskSlot& slot : block.task_slots.slots) {
            slots.push_back({{"rank", slot.rank},
                             {"slot", slot.slot},
                             {"n", slot.n},
                             {"fin_us", slot.fin_us},
                             {"dur_us", slot.dur_us},
                             {"dfin_us", optional_json(slot.dfin_us)},
                             {"raw_fin_us", slot.raw_fin_us}});
        }
        out["task_slots"] = {{"ranks", optional_json(block.task_slots.declared_ranks)},
                             {"slots", std::move(slots)}};
    }
    if (block.singular_round) out["singular_round"] = true;
    return out;
}

}  // namespace

json case_to_json(const BenchCase& bench_case) {
    json blocks = json::array();
    for (const BenchBlock& block : bench_case.blocks) blocks.push_back(block_to_json(block));
    json out = {{"case", bench_case.name}, {"status", optional_json(bench_case.status)}};
    const BenchBlock* ci = bench_case.ci_block();
    if (ci == nullptr && !bench_case.blocks.empty()) ci = &bench_case.blocks.back();
    if (ci != nullptr) {
        // The CI block's members at the top as well: a copy of its document in `blocks`.
        json view = blocks.at(static_cast<std::size_t>(ci - bench_case.blocks.data()));
        for (auto& [key, value] : view.items()) out[key] = std::move(value);
    } else {
        BenchBlock empty;
        empty.source = bench_case.source;
        json view = block_to_json(empty);
        for (auto& [key, value] : view.items()) out[key] = std::move(value);
        out["origin"] = nullptr;
    }
    json notes = out["notes"];
    // A block of notes alone (a skipped run) repeats them as case notes: list them once.
    for (const std::string& note : bench_case.notes) {
        if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
    }
    out["notes"] = std::move(notes);
    out["case_notes"] = bench_case.notes;
    // Only when there are: the JSON of a log without them stays as it was.
    if (!bench_case.sentinels.empty()) out["sentinels"] = bench_case.sentinels;
    out["blocks"] = std::move(blocks);
    return out;
}

}  // namespace ptune::bench
