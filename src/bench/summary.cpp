// Bench cases -> JSON (and back), upstream `[RUN]` lines and rule metrics.

#include "ptune/bench/summary.hpp"
#include "case_facts.hpp"
#include "ptune/rules/subject_rules.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <type_traits>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"

namespace ptune::bench {

namespace {

using nlohmann::json;

std::string fixed1(double value) {
    return stats::format_fixed(value, 1);
}

std::string summary_text(const Summary& summary) {
    return fmt::format("min={} median={} mean={} max={}", fixed1(summary.min),
                       fixed1(summary.median), fixed1(summary.mean), fixed1(summary.max));
}

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

SourceRef parse_source(const std::string& text) {
    SourceRef source{text, 0};
    std::size_t colon = text.rfind(':');
    if (colon != std::string::npos) {
        if (auto line = text::parse_uint(std::string_view(text).substr(colon + 1))) {
            source.file = text.substr(0, colon);
            source.line = static_cast<std::size_t>(*line);
        }
    }
    return source;
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

// --- reading JSON back --------------------------------------------------------------------

struct JsonError {
    std::string message;
};

const json& member(const json& object, const char* key) {
    static const json null_value;
    if (!object.is_object()) throw JsonError{"expected an object"};
    auto it = object.find(key);
    return it == object.end() ? null_value : *it;
}

double number(const json& value, const char* what) {
    if (!value.is_number()) throw JsonError{fmt::format("'{}' is not a number", what)};
    return value.get<double>();
}

std::size_t count(const json& value, const char* what) {
    if (!value.is_number_unsigned()) throw JsonError{fmt::format("'{}' is not a count", what)};
    return value.get<std::size_t>();
}

std::optional<double> optional_number(const json& value, const char* what) {
    if (value.is_null()) return std::nullopt;
    return number(value, what);
}

std::optional<std::size_t> optional_count(const json& value, const char* what) {
    if (value.is_null()) return std::nullopt;
    return count(value, what);
}

std::string string_of(const json& value, const char* what) {
    if (!value.is_string()) throw JsonError{fmt::format("'{}' is not a string", what)};
    return value.get<std::string>();
}

std::optional<Summary> summary_from_json(const json& value) {
    if (value.is_null()) return std::nullopt;
    Summary summary;
    summary.mean = number(member(value, "mean"), "mean");
    if (member(value, "min").is_null()) {
        summary.mean_only = true;
        return summary;
    }
    summary.rounds =
        member(value, "rounds").is_null() ? 0 : count(member(value, "rounds"), "rounds");
    summary.min = number(member(value, "min"), "min");
    summary.median = number(member(value, "median"), "median");
    summary.max = number(member(value, "max"), "max");
    return summary;
}

template <class T>
LoopFact<T> fact_from_json(const json& value, const char* what) {
    LoopFact<T> fact;
    const json& v = member(value, "value");
    if constexpr (std::is_same_v<T, bool>) {
        if (!v.is_boolean()) throw JsonError{fmt::format("'{}' is not a boolean", what)};
        fact.value = v.get<bool>();
    } else {
        fact.value = count(v, what);
    }
    std::string source = string_of(member(value, "source"), "source");
    bool known = false;
    for (FactSource candidate : {FactSource::Flag, FactSource::Log, FactSource::Inferred,
                                 FactSource::Default, FactSource::Assumed}) {
        if (source == to_string(candidate)) {
            fact.source = candidate;
            known = true;
        }
    }
    if (!known) throw JsonError{fmt::format("unknown source '{}' of '{}'", source, what)};
    if (member(value, "why").is_string()) fact.why = member(value, "why").get<std::string>();
    return fact;
}

std::optional<LoopFacts> loop_facts_from_json(const json& value) {
    if (value.is_null()) return std::nullopt;
    LoopFacts facts;
    facts.warmup = fact_from_json<std::size_t>(member(value, "warmup"), "warmup");
    facts.rounds = fact_from_json<std::size_t>(member(value, "rounds"), "rounds");
    facts.distributed = fact_from_json<bool>(member(value, "distributed"), "distributed");
    facts.resident = fact_from_json<bool>(member(value, "resident"), "resident");
    return facts;
}

Origin origin_from(const std::string& text) {
    for (Origin origin : {Origin::Report, Origin::Strace, Origin::ResultsTsv, Origin::Json,
                          Origin::DeviceLog, Origin::CiResult}) {
        if (text == to_string(origin)) return origin;
    }
    throw JsonError{fmt::format("unknown origin '{}'", text)};
}

BenchBlock block_from_json(const json& value) {
    BenchBlock block;
    block.source = parse_source(string_of(member(value, "source"), "source"));
    block.origin = origin_from(string_of(member(value, "origin"), "origin"));
    block.effective_us = summary_from_json(member(value, "effective_us"));
    block.fast_variant =
        member(value, "fast_variant").is_boolean() && member(value, "fast_variant").get<bool>();
    if (!member(value, "unavailable").is_null())
        block.unavailable = string_of(member(value, "unavailable"), "unavailable");
    const json& ranks = member(value, "ranks");
    if (!ranks.is_null() && !ranks.is_array()) throw JsonError{"'ranks' is not an array"};
    for (const json& entry : ranks.is_array() ? ranks : json::array()) {
        Rank& rank = block.ranks.emplace_back();
        rank.rank = count(member(entry, "rank"), "rank");
        rank.eff_us = summary_from_json(member(entry, "eff_us"));
        rank.device_wall_mean_us =
            optional_number(member(entry, "device_wall_mean_us"), "device_wall_mean_us");
        rank.device_wall_max_us =
            optional_number(member(entry, "device_wall_max_us"), "device_wall_max_us");
        rank.source = block.source;
        const json& slots = member(entry, "slots");
        for (const json& s : slots.is_array() ? slots : json::array()) {
            Slot& slot = rank.slots.emplace_back();
            slot.slot = count(member(s, "slot"), "slot");
            slot.name = member(s, "name").is_string() ? member(s, "name").get<std::string>() : "";
            slot.eff_us = summary_from_json(member(s, "eff_us"));
        }
    }
    if (const json& c = member(value, "context"); !c.is_null()) {
        Context& context = block.context.emplace();
        context.kernel = string_of(member(c, "kernel"), "kernel");
        context.resident = member(c, "mode") == "l3_resident";
        context.rounds = optional_count(member(c, "rounds"), "rounds");
        context.ranks = optional_count(member(c, "ranks"), "ranks");
        context.host_union_mean_us =
            optional_number(member(c, "host_union_mean_us"), "host_union_mean_us");
        context.host_mean_us = optional_number(member(c, "host_mean_us"), "host_mean_us");
        context.fallback_flattened = member(c, "fallback_flattened") == true;
        if (member(c, "fields").is_object()) {
            for (const auto& [key, field] : member(c, "fields").items()) {
                if (field.is_string()) context.fields[key] = field.get<std::string>();
            }
        }
        context.source = member(c, "source").is_string()
                             ? parse_source(member(c, "source").get<std::string>())
                             : block.source;
    }
    if (const json& r = member(value, "raw"); !r.is_null()) {
        RawSamples& raw = block.raw.emplace();
        raw.ranks = count(member(r, "ranks"), "ranks");
        raw.rounds = count(member(r, "rounds"), "rounds");
        raw.warmup = count(member(r, "warmup"), "warmup");
        raw.fallback_flattened = member(r, "fallback_flattened") == true;
        const json& samples = member(r, "samples");
        for (const json& entry : samples.is_array() ? samples : json::array()) {
            std::vector<double>& values = raw.per_rank[count(member(entry, "rank"), "rank")];
            const json& list = member(entry, "eff_us");
            if (!list.is_array()) throw JsonError{"'eff_us' of raw samples is not an array"};
            for (const json& v : list) values.push_back(number(v, "eff_us"));
        }
    }
    block.declared_rounds = optional_count(member(value, "declared_rounds"), "declared_rounds");
    block.declared_warmup = optional_count(member(value, "declared_warmup"), "declared_warmup");
    block.loop_facts = loop_facts_from_json(member(value, "loop_facts"));
    if (!member(value, "valid_rounds").is_null())
        block.valid_rounds = string_of(member(value, "valid_rounds"), "valid_rounds");
    block.singular_round = member(value, "singular_round") == true;
    const json& notes = member(value, "notes");
    for (const json& note : notes.is_array() ? notes : json::array()) {
        if (note.is_string()) block.notes.push_back(note.get<std::string>());
    }
    return block;
}

}  // namespace

std::optional<double> rank_imbalance(const BenchBlock& block) {
    std::vector<double> means;
    for (const Rank& rank : block.ranks) {
        if (rank.eff_us && rank.eff_us->mean > 0.0) means.push_back(rank.eff_us->mean);
    }
    if (means.size() < 2) return std::nullopt;
    auto [lo, hi] = std::minmax_element(means.begin(), means.end());
    return *hi / *lo;
}

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

Result<BenchCase> case_from_json(const json& value, const std::string& source) {
    try {
        BenchCase bench_case;
        bench_case.name = string_of(member(value, "case"), "case");
        if (!member(value, "status").is_null())
            bench_case.status = string_of(member(value, "status"), "status");
        const json& blocks = member(value, "blocks");
        if (blocks.is_array()) {
            for (const json& block : blocks) bench_case.blocks.push_back(block_from_json(block));
        } else if (!member(value, "origin").is_null()) {
            bench_case.blocks.push_back(block_from_json(value));
        }
        const json& case_notes = member(value, "case_notes");
        for (const json& note : case_notes.is_array() ? case_notes : json::array()) {
            if (note.is_string()) bench_case.notes.push_back(note.get<std::string>());
        }
        const json& sentinels = member(value, "sentinels");
        for (const json& line : sentinels.is_array() ? sentinels : json::array()) {
            if (line.is_string()) bench_case.sentinels.push_back(line.get<std::string>());
        }
        bench_case.source =
            bench_case.blocks.empty() ? SourceRef{source, 0} : bench_case.blocks.front().source;
        return bench_case;
    } catch (const JsonError& error) {
        return Error{
            fmt::format("case {}: {}",
                        value.is_object() && value.contains("case") ? value["case"].dump() : "?",
                        error.message),
            source, 0, ExitCode::InputError};
    } catch (const json::exception& error) {
        return Error{fmt::format("malformed bench-summary case: {}", error.what()), source, 0,
                     ExitCode::InputError};
    }
}

std::string format_raw_value(double value) {
    // round(x, 1) is half-even on the exact binary value, like printf; repr is the shortest
    // round-trip text, which fmt's "{}" also gives (with Python's exponent threshold), minus
    // the ".0" Python keeps on integral values.
    double rounded = text::parse_double(fixed1(value)).value_or(value);
    std::string text = fmt::format("{}", rounded);
    if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
    return text;
}

namespace {

/// A context line read from a report, from its tokens as printed: every shape of bench-log.md
/// §1.6 and §1.12 lists its keys in this order, so the line reads back byte for byte.
std::string printed_context_line(const Context& context) {
    static constexpr std::string_view kOrder[] = {"l3",
                                                  "l3_resident",
                                                  "no_device_timing",
                                                  "rounds",
                                                  "ranks",
                                                  "device_wall_mean_us",
                                                  "host_union_mean_us",
                                                  "host_mean_us",
                                                  "host_min_us",
                                                  "host_max_us",
                                                  "mean_us",
                                                  "min_us",
                                                  "max_us",
                                                  "fallback_flattened"};
    std::string line = fmt::format("[RUN] benchmark kernel={}", context.kernel);
    auto append = [&](const std::string& key, const std::string& value) {
        if (key != "remark") line += fmt::format(" {}={}", key, value);
    };
    for (std::string_view key : kOrder) {
        auto it = context.fields.find(std::string(key));
        if (it != context.fields.end()) append(it->first, it->second);
    }
    for (const auto& [key, value] : context.fields) {
        if (std::find(std::begin(kOrder), std::end(kOrder), key) == std::end(kOrder))
            append(key, value);
    }
    if (auto remark = context.fields.find("remark"); remark != context.fields.end())
        line += " " + remark->second;
    return line;
}

}  // namespace

std::string format_run_note(std::string_view note) {
    // Upstream indents most notes by three spaces and a few by one (bench-log.md §1.7); the
    // wording alone tells which, so a note read back prints as it was printed.
    constexpr std::string_view kSkipped = "benchmark skipped: ";
    bool one_space = note.starts_with("benchmark rounds interrupted: ") ||
                     note ==
                         "benchmark unavailable: no [STRACE] markers captured (runtime built "
                         "without SIMPLER_PROFILING)";
    if (note.starts_with(kSkipped)) {
        // `<ExcType>: <message>` (2026-06-28 and the 07-03..07-07 resident path) has one space;
        // the fixed reasons (runtime_dir replay, L3 not benchmarked yet) have three.
        std::string_view reason = note.substr(kSkipped.size());
        std::size_t colon = reason.find(": ");
        std::string_view type = reason.substr(0, colon);
        auto identifier = [](char c) {
            return c == '_' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                   (c >= 'A' && c <= 'Z');
        };
        one_space = colon != std::string_view::npos && !type.empty() &&
                    !(type.front() >= '0' && type.front() <= '9') && type.front() != '.' &&
                    std::all_of(type.begin(), type.end(), identifier);
    }
    return fmt::format("[RUN]{}{}", one_space ? " " : "   ", note);
}

std::vector<std::string> format_run_lines(const BenchBlock& block, bool include_raw) {
    std::vector<std::string> lines;
    for (const std::string& note : block.notes) lines.push_back(format_run_note(note));
    const char* prefix = block.fast_variant ? "fast_" : "";
    if (block.effective_us && !block.effective_us->mean_only) {
        std::string line = fmt::format(
            "[RUN]   {}effective_us ({} {}) {}", prefix, block.effective_us->rounds,
            block.singular_round ? "round" : "rounds", summary_text(*block.effective_us));
        if (block.valid_rounds) line += " valid_rounds=" + *block.valid_rounds;
        lines.push_back(std::move(line));
    } else if (block.unavailable) {
        lines.push_back(
            fmt::format("[RUN]   {}effective_us unavailable: {}", prefix, *block.unavailable));
    }
    for (const Rank& rank : block.ranks) {
        std::string body = rank.eff_us ? "eff_us " + summary_text(*rank.eff_us) : "(no timing)";
        if (rank.device_wall_mean_us && rank.device_wall_max_us) {
            std::string device =
                fmt::format("device_wall_us mean={} max={}", fixed1(*rank.device_wall_mean_us),
                            fixed1(*rank.device_wall_max_us));
            body = rank.eff_us ? body + "  " + device : device;
        }
        lines.push_back(fmt::format("[RUN]     rank {}: {}", rank.rank, body));
        for (const Slot& slot : rank.slots) {
            std::string label = slot.name.empty() ? "" : fmt::format(" ({})", slot.name);
            lines.push_back(
                fmt::format("[RUN]       slot {}{}: {}", slot.slot, label,
                            slot.eff_us ? "eff_us " + summary_text(*slot.eff_us) : "(no timing)"));
        }
    }
    if (include_raw && block.raw) {
        const RawSamples& raw = *block.raw;
        lines.push_back(fmt::format("[RUN]   raw samples: ranks={} rounds={} warmup={}{}",
                                    raw.ranks, raw.rounds, raw.warmup,
                                    raw.fallback_flattened ? " fallback_flattened=1" : ""));
        for (const auto& [pid, values] : raw.per_rank) {
            std::vector<std::string> items;
            items.reserve(values.size());
            for (double value : values) items.push_back(format_raw_value(value));
            lines.push_back(fmt::format("[RUN]     rank {} raw n={} eff_us=[{}]", pid,
                                        values.size(), fmt::join(items, ", ")));
        }
    }
    // §1.7 task-timing slots: after the raw block, before the context line.
    if (block.task_slots.declared_ranks)
        lines.push_back(
            fmt::format("[RUN]   task slots: ranks={}", *block.task_slots.declared_ranks));
    for (const TaskSlot& slot : block.task_slots.slots) {
        lines.push_back(fmt::format("[RUN]     rank {} task_slot {}: n={} fin_us={} dur_us={}{}",
                                    slot.rank, slot.slot, slot.n, fixed1(slot.fin_us),
                                    fixed1(slot.dur_us),
                                    slot.dfin_us ? " dfin_us=" + fixed1(*slot.dfin_us) : ""));
        if (include_raw && !slot.raw_fin_us.empty()) {
            std::vector<std::string> items;
            for (double value : slot.raw_fin_us) items.push_back(format_raw_value(value));
            lines.push_back(fmt::format("[RUN]       raw fin_us=[{}]", fmt::join(items, ", ")));
        }
    }
    if (block.context && !block.context->fields.empty()) {
        lines.push_back(printed_context_line(*block.context));
    } else if (block.context) {
        const Context& c = *block.context;
        std::string line = fmt::format("[RUN] benchmark kernel={}", c.kernel);
        if (c.resident) {
            line += " l3_resident=1";
        } else if (c.fields.count("l3") != 0 || block.origin != Origin::Report) {
            line += " l3=1";
        }
        if (c.rounds) line += fmt::format(" rounds={}", *c.rounds);
        if (c.ranks) line += fmt::format(" ranks={}", *c.ranks);
        if (c.host_union_mean_us)
            line += " host_union_mean_us=" + stats::format_fixed(*c.host_union_mean_us, 0);
        if (c.host_mean_us) line += " host_mean_us=" + stats::format_fixed(*c.host_mean_us, 0);
        if (c.fallback_flattened) line += " fallback_flattened=1";
        lines.push_back(std::move(line));
    }
    return lines;
}

// Named, not anonymous: CaseRuleScreen::State (external linkage) holds one, and in a unity
// build GCC refuses an anonymous-namespace type inside it (-Wsubobject-linkage).
namespace case_rules_detail {

/// Every metric publish_case() can set on a case: the one list of their names, which the
/// case-rule screen also reads to tell which rules can differ from case to case.
enum CaseMetric : std::size_t {
    kUnavailable,
    kFallbackFlattened,
    kEffectiveMean,
    kEffectiveMin,
    kEffectiveMedian,
    kEffectiveMax,
    kRounds,
    kMeanOverMedian,
    kDeclaredRounds,
    kRoundsShortfall,
    kRanks,
    kRankImbalance,
    kCaseMetricCount
};
constexpr std::array<std::string_view, kCaseMetricCount> kCaseMetricNames = {
    "bench.unavailable",
    "bench.fallback_flattened",
    "bench.effective_us.mean",
    "bench.effective_us.min",
    "bench.effective_us.median",
    "bench.effective_us.max",
    "bench.rounds",
    "bench.mean_over_median",
    "bench.declared_rounds",
    "bench.rounds_shortfall",
    "bench.ranks",
    "bench.rank_imbalance"};

/// With `slots` (the reused subject's), publish_case() finds the metric nodes the subject
/// holds: each is looked up by name once per sweep, not per case.
struct MetricSlots {
    static constexpr std::size_t kCount = kCaseMetricCount;
    std::array<std::map<std::string, double, std::less<>>::iterator, kCount> node{};
    std::array<bool, kCount> held{};
};

}  // namespace case_rules_detail

namespace {

using namespace case_rules_detail;  // MetricSlots and the case metrics

/// A reused subject's name and location: those of the case `name` at `file`:`line`.
void name_case(std::string_view name, const std::string& file, std::size_t line,
               rules::Subject& subject) {
    subject.key.kind = "case";
    subject.key.name = name;
    subject.locations.resize(1);
    subject.locations.front().file = file;
    subject.locations.front().line = line;
}

/// Sets a case subject's `bench.*` metrics from its CI block and adds the block's location.
/// With `reused` the subject held the previous case (summary_findings() evaluates every case of
/// a sweep through one subject, without an allocation per metric): it is renamed, its metrics
/// this case lacks are erased and its one location replaced. With `named` false (and
/// `reused`), only the metrics are set: name_case() follows when a finding is to be made.
void publish_case(std::string_view name, const std::string& file, std::size_t line,
                  const CaseMetrics& block, rules::Subject& subject, bool reused,
                  MetricSlots* slots = nullptr, bool named = true) {
    auto& metrics = subject.metrics;
    if (slots != nullptr && !reused) slots = nullptr;
    const auto set = [&](CaseMetric k, double value) {
        const std::string_view name = kCaseMetricNames[k];
        if (slots != nullptr && slots->held[k]) {
            slots->node[k]->second = value;
            return;
        }
        auto it = metrics.find(name);
        if (it != metrics.end())
            it->second = value;
        else
            it = metrics.emplace(std::string(name), value).first;
        if (slots != nullptr) {
            slots->node[k] = it;
            slots->held[k] = true;
        }
    };
    const auto set_if = [&](CaseMetric k, bool present, double value) {
        if (present) {
            set(k, value);
            return;
        }
        if (slots != nullptr) {  // every change went through `slots`
            if (slots->held[k]) metrics.erase(slots->node[k]);
            slots->held[k] = false;
        } else if (auto it = metrics.find(kCaseMetricNames[k]); reused && it != metrics.end()) {
            metrics.erase(it);
        }
    };
    if (reused) {
        if (named) name_case(name, file, line, subject);
    } else {
        subject.locations.push_back({file, line, 0});
    }
    set(kUnavailable, block.effective_us ? 0.0 : 1.0);
    const bool fallback = block.fallback_flattened;
    set(kFallbackFlattened, fallback ? 1.0 : 0.0);
    const Summary* s = block.effective_us ? &*block.effective_us : nullptr;
    const bool full = s != nullptr && !s->mean_only;
    const bool declared = full && block.declared_rounds && !fallback;
    set_if(kEffectiveMean, s != nullptr, s ? s->mean : 0.0);
    set_if(kEffectiveMin, full, full ? s->min : 0.0);
    set_if(kEffectiveMedian, full, full ? s->median : 0.0);
    set_if(kEffectiveMax, full, full ? s->max : 0.0);
    set_if(kRounds, full, full ? static_cast<double>(s->rounds) : 0.0);
    set_if(kMeanOverMedian, full && s->median > 0.0,
           full && s->median > 0.0 ? s->mean / s->median : 0.0);
    set_if(kDeclaredRounds, declared, declared ? static_cast<double>(*block.declared_rounds) : 0.0);
    set_if(kRoundsShortfall, declared,
           declared ? static_cast<double>(*block.declared_rounds) - static_cast<double>(s->rounds)
                    : 0.0);
    set_if(kRanks, block.ranks > 0, static_cast<double>(block.ranks));
    set_if(kRankImbalance, block.rank_imbalance.has_value(), block.rank_imbalance.value_or(0.0));
}

}  // namespace

CaseMetrics case_metrics(const BenchBlock& block) {
    CaseMetrics metrics;
    metrics.effective_us = block.effective_us;
    metrics.fallback_flattened = (block.context && block.context->fallback_flattened) ||
                                 (block.raw && block.raw->fallback_flattened);
    metrics.declared_rounds = block.declared_rounds;
    metrics.ranks = block.ranks.size();
    metrics.rank_imbalance = rank_imbalance(block);
    return metrics;
}

void publish_metrics(const std::vector<BenchCase>& cases, rules::MetricStore& store) {
    for (const BenchCase& bench_case : cases) {
        const BenchBlock* block = bench_case.ci_block();
        if (block == nullptr) continue;
        publish_case(bench_case.name, block->source.file, block->source.line, case_metrics(*block),
                     store.subject("case", bench_case.name), false);
    }
}

namespace {

/// Whether `rule`'s condition holds for `subject`.
bool holds(const rules::Rule& rule, const rules::Subject& subject) {
    auto verdict = rules::evaluate_expression(*rule.compiled_condition, subject, rule.params);
    return verdict && *verdict != 0;
}

/// The rules of `case_rules` that may hold for one case and not for another: those that read a
/// metric publish_case() sets. A condition reading none (a `gate.*` rule in bench-summary) has
/// the same verdict for every case, that of a subject without metrics: kept when it holds
/// (then for every case), left out when it does not.
std::vector<const rules::Rule*> rules_to_screen(const rules::SubjectRules& case_rules) {
    std::vector<const rules::Rule*> screened;
    const rules::Subject bare;
    for (const rules::Rule* rule : case_rules.rules()) {
        const std::vector<std::string> read = rules::expression_metrics(*rule->compiled_condition);
        const bool per_case = std::any_of(read.begin(), read.end(), [](const std::string& name) {
            return std::find(kCaseMetricNames.begin(), kCaseMetricNames.end(), name) !=
                   kCaseMetricNames.end();
        });
        if (per_case || holds(*rule, bare)) screened.push_back(rule);
    }
    return screened;
}

/// summary_findings() of the cases `each(visit)` hands to `visit(name, file, line, metrics)`.
template <class ForEach>
std::vector<rules::Finding> case_findings(const ForEach& each, const rules::Catalogue& catalogue,
                                          const rules::MetricStore& store, std::string_view area) {
    CaseRuleScreen screen(catalogue, area);
    std::vector<rules::Finding> findings;
    each([&](std::string_view name, const std::string& file, std::size_t line,
             const CaseMetrics& metrics) { screen.screen(name, file, line, metrics, findings); });
    return with_run_findings(std::move(findings), catalogue, store, area);
}

}  // namespace

struct CaseRuleScreen::State {
    State(const rules::Catalogue& catalogue, std::string_view area)
        : case_rules(catalogue, "case", {std::string(area)}),
          screened(rules_to_screen(case_rules)) {}
    rules::SubjectRules case_rules;
    std::vector<const rules::Rule*> screened;  ///< rules_to_screen(case_rules)
    rules::Subject subject;
    MetricSlots slots;
};

CaseRuleScreen::CaseRuleScreen(const rules::Catalogue& catalogue, std::string_view area)
    : state_(std::make_unique<State>(catalogue, area)) {}
CaseRuleScreen::~CaseRuleScreen() = default;

bool CaseRuleScreen::screen(std::string_view name, const std::string& file, std::size_t line,
                            const CaseMetrics& metrics, std::vector<rules::Finding>& findings) {
    State& state = *state_;
    if (state.screened.empty()) return false;
    publish_case(name, file, line, metrics, state.subject, true, &state.slots, false);
    // Conditions read metrics (and labels), never the name or the location: those are set only
    // for the few cases a rule holds for (not copied for each of 100,000 cases).
    if (std::none_of(state.screened.begin(), state.screened.end(),
                     [&](const rules::Rule* rule) { return holds(*rule, state.subject); }))
        return false;
    name_case(name, file, line, state.subject);
    state.case_rules.evaluate(state.subject, findings);
    return true;
}

std::vector<rules::Finding> with_run_findings(std::vector<rules::Finding> case_findings,
                                              const rules::Catalogue& catalogue,
                                              const rules::MetricStore& store,
                                              std::string_view area) {
    std::vector<rules::Finding> findings = rules::evaluate(catalogue, store, {std::string(area)});
    if (findings.empty()) {  // most runs: no copy of the case findings
        findings = std::move(case_findings);
    } else {
        findings.insert(findings.end(), std::make_move_iterator(case_findings.begin()),
                        std::make_move_iterator(case_findings.end()));
    }
    rules::sort_findings(findings);
    return findings;
}

std::vector<rules::Finding> findings_of_facts(const std::vector<CaseFactsView>& cases,
                                              const rules::Catalogue& catalogue,
                                              const rules::MetricStore& store,
                                              std::string_view area) {
    return case_findings(
        [&](const auto& visit) {
            for (const CaseFactsView& facts : cases)
                visit(facts.name, *facts.file, facts.line, *facts.metrics);
        },
        catalogue, store, area);
}

std::vector<rules::Finding> summary_findings(const std::vector<BenchCase>& cases,
                                             const rules::Catalogue& catalogue,
                                             const rules::MetricStore& store,
                                             std::string_view area) {
    return case_findings(
        [&](const auto& visit) {
            for (const BenchCase& bench_case : cases) {
                const BenchBlock* block = bench_case.ci_block();
                if (block != nullptr)
                    visit(bench_case.name, block->source.file, block->source.line,
                          case_metrics(*block));
            }
        },
        catalogue, store, area);
}

}  // namespace ptune::bench
