// Bench cases -> JSON: the documents of bench-summary --format json (case_to_json), and the
// same text written directly (write_case_json).

#include "ptune/bench/summary.hpp"

#include <algorithm>

#include "ptune/render/pretty_json.hpp"

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

/// The block whose members a case's document repeats at its top: the CI block, else the last
/// one; null when the case has none.
const BenchBlock* top_block(const BenchCase& bench_case) {
    const BenchBlock* ci = bench_case.ci_block();
    if (ci == nullptr && !bench_case.blocks.empty()) ci = &bench_case.blocks.back();
    return ci;
}

/// The top-level `notes`: the top block's, then the case's not among them (a block of notes
/// alone, a skipped run, repeats them as case notes: listed once).
std::vector<std::string> top_notes(const BenchBlock* top, const BenchCase& bench_case) {
    std::vector<std::string> notes = top ? top->notes : std::vector<std::string>{};
    for (const std::string& note : bench_case.notes) {
        if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
    }
    return notes;
}

}  // namespace

json case_to_json(const BenchCase& bench_case) {
    json blocks = json::array();
    for (const BenchBlock& block : bench_case.blocks) blocks.push_back(block_to_json(block));
    json out = {{"case", bench_case.name}, {"status", optional_json(bench_case.status)}};
    const BenchBlock* ci = top_block(bench_case);
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
    out["notes"] = top_notes(ci, bench_case);
    out["case_notes"] = bench_case.notes;
    // Only when there are: the JSON of a log without them stays as it was.
    if (!bench_case.sentinels.empty()) out["sentinels"] = bench_case.sentinels;
    out["blocks"] = std::move(blocks);
    return out;
}

namespace {

// write_case_json: case_to_json's members in the order its objects list them (by key); each
// function below mirrors the *_to_json above it.

using render::PrettyJson;

void write_optional(PrettyJson& json, const std::optional<double>& value) {
    json.number_or_null(value);
}
void write_optional(PrettyJson& json, const std::optional<std::size_t>& value) {
    value ? json.number(static_cast<std::uint64_t>(*value)) : json.null();
}
void write_optional(PrettyJson& json, const std::optional<std::string>& value) {
    value ? json.string(*value) : json.null();
}

void write_strings(PrettyJson& json, const std::vector<std::string>& values) {
    json.begin_array();
    for (const std::string& value : values) {
        json.element();
        json.string(value);
    }
    json.end_array();
}

void write_numbers(PrettyJson& json, const std::vector<double>& values) {
    json.begin_array();
    for (double value : values) {
        json.element();
        json.number(value);
    }
    json.end_array();
}

void write_summary(PrettyJson& json, const std::optional<Summary>& summary) {
    if (!summary) return json.null();
    json.begin_object();
    const bool whole = !summary->mean_only;
    json.key("max");
    whole ? json.number(summary->max) : json.null();
    json.key("mean");
    json.number(summary->mean);
    json.key("median");
    whole ? json.number(summary->median) : json.null();
    json.key("min");
    whole ? json.number(summary->min) : json.null();
    json.key("rounds");
    // Rank and slot lines print no sample count: 0 means unknown there.
    whole && summary->rounds > 0 ? json.number(static_cast<std::uint64_t>(summary->rounds))
                                 : json.null();
    json.end_object();
}

void write_fact_value(PrettyJson& json, std::size_t value) {
    json.number(static_cast<std::uint64_t>(value));
}
void write_fact_value(PrettyJson& json, bool value) {
    json.boolean(value);
}

template <class T>
void write_fact(PrettyJson& json, std::string_view name, const LoopFact<T>& fact) {
    json.key(name);
    json.begin_object();
    json.key("source");
    json.string(to_string(fact.source));
    json.key("value");
    write_fact_value(json, fact.value);
    json.key("why");
    json.string(fact.why);
    json.end_object();
}

void write_context(PrettyJson& json, const std::optional<Context>& context) {
    if (!context) return json.null();
    const Context& c = *context;
    json.begin_object();
    json.key("fallback_flattened");
    json.boolean(c.fallback_flattened);
    json.key("fields");
    json.begin_object();
    for (const auto& [name, value] : c.fields) {
        json.key(name);
        json.string(value);
    }
    json.end_object();
    json.key("host_mean_us");
    write_optional(json, c.host_mean_us);
    json.key("host_union_mean_us");
    write_optional(json, c.host_union_mean_us);
    json.key("kernel");
    json.string(c.kernel);
    json.key("mode");
    json.string(c.resident ? "l3_resident" : "l3");
    json.key("ranks");
    write_optional(json, c.ranks);
    json.key("rounds");
    write_optional(json, c.rounds);
    json.key("source");
    json.string(to_string(c.source));
    json.end_object();
}

void write_ranks(PrettyJson& json, const std::vector<Rank>& ranks) {
    json.begin_array();
    for (const Rank& rank : ranks) {
        json.element();
        json.begin_object();
        if (rank.device_wall_max_us) {
            json.key("device_wall_max_us");
            json.number(*rank.device_wall_max_us);
        }
        if (rank.device_wall_mean_us) {
            json.key("device_wall_mean_us");
            json.number(*rank.device_wall_mean_us);
        }
        json.key("eff_us");
        write_summary(json, rank.eff_us);
        json.key("rank");
        json.number(rank.rank);
        json.key("slots");
        json.begin_array();
        for (const Slot& slot : rank.slots) {
            json.element();
            json.begin_object();
            json.key("eff_us");
            write_summary(json, slot.eff_us);
            json.key("name");
            json.string(slot.name);
            json.key("slot");
            json.number(static_cast<std::uint64_t>(slot.slot));
            json.end_object();
        }
        json.end_array();
        json.end_object();
    }
    json.end_array();
}

void write_raw(PrettyJson& json, const std::optional<RawSamples>& raw) {
    if (!raw) return json.null();
    json.begin_object();
    json.key("fallback_flattened");
    json.boolean(raw->fallback_flattened);
    json.key("ranks");
    json.number(static_cast<std::uint64_t>(raw->ranks));
    json.key("rounds");
    json.number(static_cast<std::uint64_t>(raw->rounds));
    json.key("samples");
    json.begin_array();
    for (const auto& [pid, values] : raw->per_rank) {
        json.element();
        json.begin_object();
        json.key("eff_us");
        write_numbers(json, values);
        json.key("rank");
        json.number(pid);
        json.end_object();
    }
    json.end_array();
    json.key("warmup");
    json.number(static_cast<std::uint64_t>(raw->warmup));
    json.end_object();
}

void write_task_slots(PrettyJson& json, const TaskSlots& task_slots) {
    json.begin_object();
    json.key("ranks");
    write_optional(json, task_slots.declared_ranks);
    json.key("slots");
    json.begin_array();
    for (const TaskSlot& slot : task_slots.slots) {
        json.element();
        json.begin_object();
        json.key("dfin_us");
        write_optional(json, slot.dfin_us);
        json.key("dur_us");
        json.number(slot.dur_us);
        json.key("fin_us");
        json.number(slot.fin_us);
        json.key("n");
        json.number(static_cast<std::uint64_t>(slot.n));
        json.key("rank");
        json.number(slot.rank);
        json.key("raw_fin_us");
        write_numbers(json, slot.raw_fin_us);
        json.key("slot");
        json.number(static_cast<std::uint64_t>(slot.slot));
        json.end_object();
    }
    json.end_array();
    json.end_object();
}

/// What a case adds to its CI block's members at the top of its document.
struct CaseMembers {
    const BenchCase& bench_case;
    bool no_origin;                         ///< no block has a headline: `origin` is null
    const std::vector<std::string>& notes;  ///< the block's notes, then the case's
};

/// A block's members (block_to_json), with a case's among them in key order when `top` is set.
void write_block_members(PrettyJson& json, const BenchBlock& block, const CaseMembers* top) {
    if (top) {
        json.key("blocks");
        json.begin_array();
        for (const BenchBlock& each : top->bench_case.blocks) {
            json.element();
            json.begin_object();
            write_block_members(json, each, nullptr);
            json.end_object();
        }
        json.end_array();
        json.key("case");
        json.string(top->bench_case.name);
        json.key("case_notes");
        write_strings(json, top->bench_case.notes);
    }
    json.key("context");
    write_context(json, block.context);
    json.key("declared_rounds");
    write_optional(json, block.declared_rounds);
    json.key("declared_warmup");
    write_optional(json, block.declared_warmup);
    json.key("effective_us");
    write_summary(json, block.effective_us);
    json.key("fast_variant");
    json.boolean(block.fast_variant);
    json.key("imbalance");
    write_optional(json, rank_imbalance(block));
    if (block.loop_facts) {
        json.key("loop_facts");
        json.begin_object();
        write_fact(json, "distributed", block.loop_facts->distributed);
        write_fact(json, "resident", block.loop_facts->resident);
        write_fact(json, "rounds", block.loop_facts->rounds);
        write_fact(json, "warmup", block.loop_facts->warmup);
        json.end_object();
    }
    json.key("notes");
    write_strings(json, top ? top->notes : block.notes);
    json.key("origin");
    if (top && top->no_origin)
        json.null();
    else
        json.string(to_string(block.origin));
    json.key("ranks");
    write_ranks(json, block.ranks);
    json.key("raw");
    write_raw(json, block.raw);
    if (top && !top->bench_case.sentinels.empty()) {
        json.key("sentinels");
        write_strings(json, top->bench_case.sentinels);
    }
    if (block.singular_round) {
        json.key("singular_round");
        json.boolean(true);
    }
    json.key("source");
    json.string(to_string(block.source));
    if (top) {
        json.key("status");
        write_optional(json, top->bench_case.status);
    }
    if (!block.task_slots.slots.empty()) {
        json.key("task_slots");
        write_task_slots(json, block.task_slots);
    }
    json.key("unavailable");
    write_optional(json, block.unavailable);
    if (block.valid_rounds) {
        json.key("valid_rounds");
        json.string(*block.valid_rounds);
    }
}

}  // namespace

void write_case_json(const BenchCase& bench_case, std::size_t indent, std::string& out) {
    const BenchBlock* ci = top_block(bench_case);
    const std::vector<std::string> notes = top_notes(ci, bench_case);
    BenchBlock empty;
    if (ci == nullptr) {
        empty.source = bench_case.source;
        ci = &empty;
    }
    const CaseMembers top{bench_case, ci == &empty, notes};
    PrettyJson json(out, indent);
    json.begin_object();
    write_block_members(json, *ci, &top);
    json.end_object();
}

}  // namespace ptune::bench
