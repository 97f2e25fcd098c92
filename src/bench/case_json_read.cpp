// JSON -> bench cases: bench-summary's JSON read back as an input (case_from_json).

#include "ptune/bench/summary.hpp"

#include <fmt/format.h>

#include "ptune/core/json_document.hpp"
#include "ptune/core/text.hpp"

namespace ptune::bench {

namespace {

using nlohmann::json;

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
        return Error{fmt::format("case {}: {}",
                                 value.is_object() && value.contains("case")
                                     ? json_document::dump(value["case"])
                                     : "?",
                                 error.message),
                     source, 0, ExitCode::InputError};
    } catch (const json::exception& error) {
        return Error{fmt::format("malformed bench-summary case: {}", error.what()), source, 0,
                     ExitCode::InputError};
    }
}

}  // namespace ptune::bench
