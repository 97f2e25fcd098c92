// scope_stats.jsonl reader (upstream-2026-09.md §3.1, §3.2): streamed line by line (each line
// is a small JSON object), begin/end paired by (site, depth) with a stack.

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"
#include "ptune/scope/pipeline.hpp"

namespace ptune::scope {

namespace {

using nlohmann::json;

/// A member as a signed 64-bit integer (not a float, not a bool).
std::optional<std::int64_t> get_int(const json& object, const char* key) {
    auto it = object.find(key);
    if (it == object.end()) return std::nullopt;
    if (it->is_number_integer()) {
        if (it->is_number_unsigned() &&
            it->get<std::uint64_t>() >
                static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return std::nullopt;
        return it->get<std::int64_t>();
    }
    return std::nullopt;
}

std::optional<std::vector<std::int64_t>> get_int_array(const json& object, const char* key) {
    auto it = object.find(key);
    if (it == object.end() || !it->is_array()) return std::nullopt;
    std::vector<std::int64_t> values;
    for (const json& item : *it) {
        if (!item.is_number_integer() || (item.is_number_integer() && item.get<std::int64_t>() < 0))
            return std::nullopt;
        values.push_back(item.get<std::int64_t>());
    }
    return values;
}

/// The metadata line; an error message when it is not one.
Result<Meta> read_meta(const json& line) {
    auto fail = [](std::string message) {
        return Error{std::move(message), "", 0, ExitCode::InputError};
    };
    if (!line.is_object()) return fail("first line is not a JSON object (the metadata line)");
    auto version = get_int(line, "version");
    if (!version) return fail("metadata line has no integer \"version\" (not a scope_stats.jsonl)");
    if (*version < 4 || *version > 6)
        return fail(
            fmt::format("unsupported scope_stats version {} (ptune reads 4 to 6)", *version));
    Meta meta;
    meta.version = static_cast<int>(*version);
    auto fatal = line.find("fatal");
    if (fatal == line.end() || !fatal->is_boolean())
        return fail("metadata \"fatal\" must be true or false");
    meta.fatal = fatal->get<bool>();
    auto dropped = get_int(line, "dropped");
    auto total = get_int(line, "total");
    if (!dropped || !total || *dropped < 0 || *total < 0)
        return fail("metadata \"dropped\" and \"total\" must be non-negative integers");
    meta.dropped = static_cast<std::uint64_t>(*dropped);
    meta.total = static_cast<std::uint64_t>(*total);
    auto window = get_int_array(line, "task_window_max");
    auto heap = get_int_array(line, "heap_max");
    if (!window || !heap)
        return fail(
            "metadata \"task_window_max\" and \"heap_max\" must be lists of non-negative "
            "integers");
    meta.task_window_max = std::move(*window);
    meta.heap_max = std::move(*heap);
    if (meta.has_dep_pool()) {
        auto pool = get_int_array(line, "dep_pool_max");
        if (!pool)
            return fail(
                fmt::format("version {} metadata needs \"dep_pool_max\" (a list of "
                            "non-negative integers)",
                            meta.version));
        meta.dep_pool_max = std::move(*pool);
    }
    auto tensormap = get_int(line, "tensormap_max");
    if (!tensormap || *tensormap < 0)
        return fail("metadata \"tensormap_max\" must be a non-negative integer");
    meta.tensormap_max = *tensormap;
    return meta;
}

/// One sample; an error message when a field is missing or wrong.
Result<Sample> read_sample(const json& line, const Meta& meta) {
    auto fail = [](std::string message) {
        return Error{std::move(message), "", 0, ExitCode::InputError};
    };
    if (!line.is_object()) return fail("sample is not a JSON object");
    Sample sample;
    auto site = line.find("site");
    if (site == line.end() || !site->is_string()) return fail("sample has no \"site\" string");
    sample.site = site->get<std::string>();
    auto phase = line.find("phase");
    if (phase == line.end() || !phase->is_string() || (*phase != "begin" && *phase != "end"))
        return fail("sample \"phase\" must be \"begin\" or \"end\"");
    sample.begin = *phase == "begin";
    auto depth = get_int(line, "depth");
    auto ring = get_int(line, "ring");
    if (!depth || !ring || *depth < 0 || *ring < 0 || *depth > 1000000 || *ring > 1000000)
        return fail("sample \"depth\" and \"ring\" must be non-negative integers");
    sample.depth = static_cast<std::uint32_t>(*depth);
    sample.ring = static_cast<std::uint32_t>(*ring);
    struct Field {
        const char* key;
        std::int64_t* out;
    };
    for (Field field :
         {Field{"task_window_start", &sample.task_window_start},
          Field{"task_window_end", &sample.task_window_end},
          Field{"heap_start", &sample.heap_start}, Field{"heap_end", &sample.heap_end},
          Field{"tensormap", &sample.tensormap}}) {
        auto value = get_int(line, field.key);
        if (!value || *value < 0)
            return fail(fmt::format("sample \"{}\" must be a non-negative integer", field.key));
        *field.out = *value;
    }
    if (meta.has_dep_pool()) {
        auto start = get_int(line, "dep_pool_start");
        auto end = get_int(line, "dep_pool_end");
        if (!start || !end || *start < 0 || *end < 0)
            return fail(
                fmt::format("version {} sample needs non-negative \"dep_pool_start\" and "
                            "\"dep_pool_end\"",
                            meta.version));
        sample.dep_pool_start = start;
        sample.dep_pool_end = end;
    }
    return sample;
}

std::optional<std::int64_t> capacity_of(const std::vector<std::int64_t>& max, std::uint32_t ring) {
    if (ring >= max.size()) return std::nullopt;
    return max[ring];
}

/// §3.2 for one resource; `wrap` (v5 heap) corrects a negative difference by the ring size.
ResourceUse use_of(std::int64_t begin_tail, std::int64_t begin_head, std::int64_t end_tail,
                   std::int64_t end_head, std::optional<std::int64_t> capacity, bool wrap) {
    ResourceUse use;
    use.capacity = capacity;
    auto diff = [&](std::int64_t a, std::int64_t b) {
        std::int64_t value = a - b;  // both non-negative: no overflow
        if (value < 0 && wrap && capacity && *capacity > 0) {
            value += *capacity;
            use.approximate = true;
        }
        return value;
    };
    use.high_water = diff(end_head, begin_tail);
    use.real_occupancy = diff(end_head, end_tail);
    use.alloc = diff(end_head, begin_head);
    return use;
}

ScopeUse pair(const Sample& begin, const Sample& end, const Meta& meta) {
    ScopeUse scope;
    scope.site = end.site;
    scope.depth = end.depth;
    scope.ring = end.ring;
    scope.task_window =
        use_of(begin.task_window_start, begin.task_window_end, end.task_window_start,
               end.task_window_end, capacity_of(meta.task_window_max, end.ring), false);
    scope.heap = use_of(begin.heap_start, begin.heap_end, end.heap_start, end.heap_end,
                        capacity_of(meta.heap_max, end.ring), meta.version == 5);
    if (meta.has_dep_pool()) {
        scope.dep_pool = use_of(*begin.dep_pool_start, *begin.dep_pool_end, *end.dep_pool_start,
                                *end.dep_pool_end, capacity_of(meta.dep_pool_max, end.ring), false);
    }
    scope.tensormap_in_use = end.tensormap;
    scope.begin_line = begin.line;
    scope.end_line = end.line;
    return scope;
}

}  // namespace

std::optional<double> ResourceUse::high_water_pct() const {
    if (!capacity || *capacity <= 0) return std::nullopt;
    return 100.0 * static_cast<double>(high_water) / static_cast<double>(*capacity);
}

std::optional<double> ResourceUse::real_occupancy_pct() const {
    if (!capacity || *capacity <= 0) return std::nullopt;
    return 100.0 * static_cast<double>(real_occupancy) / static_cast<double>(*capacity);
}

const OrchErrorInfo* orch_error_info(int code) {
    static constexpr OrchErrorInfo kCodes[] = {
        {1, "SCOPE_DEADLOCK",
         "a scope submitted more tasks than its ring's task window; slots free only at scope end",
         "split the scope or raise ring_task_window"},
        {2, "HEAP_RING_DEADLOCK", "the ring ran out of heap bytes",
         "scope the intermediates, shrink them, or raise ring_heap"},
        {3, "FLOW_CONTROL_DEADLOCK",
         "the task window blocked while heap is free (usually nesting on the same ring)",
         "move the nested submission to another ring"},
        {4, "DEP_POOL_OVERFLOW", "fan-in edges overflowed the ring's dep pool",
         "cut fan-in or raise ring_dep_pool"},
        {11, "TENSORMAP_OVERFLOW", "the global tensormap wedged", "check the tensormap row"},
    };
    for (const OrchErrorInfo& info : kCodes) {
        if (info.code == code) return &info;
    }
    return nullptr;
}

Result<ScopeStats> parse_scope_stats(std::istream& in, const std::string& source,
                                     Diagnostics& diagnostics) {
    ScopeStats stats;
    stats.source = source;
    io::LineReader reader(in, 1u << 20);
    std::string_view line;
    bool have_meta = false;
    std::vector<Sample> stack;
    while (reader.next(line)) {
        std::size_t number = reader.line_number();
        if (text::trim(line).empty()) continue;
        if (reader.truncated()) {
            if (!have_meta) return Error{"first line longer than 1 MiB", source, number};
            diagnostics.warn(source, number, "line longer than 1 MiB, skipped");
            ++stats.skipped_lines;
            continue;
        }
        json value = json::parse(line, nullptr, false);
        if (!have_meta) {
            if (value.is_discarded())
                return Error{"first line is not JSON (expected the scope_stats metadata line)",
                             source, number};
            auto meta = read_meta(value);
            if (!meta) return Error{meta.error().message, source, number};
            stats.meta = std::move(*meta);
            have_meta = true;
            continue;
        }
        if (value.is_discarded()) {
            diagnostics.warn(source, number,
                             "not a JSON object (truncated or damaged sample), skipped");
            ++stats.skipped_lines;
            continue;
        }
        auto sample = read_sample(value, stats.meta);
        if (!sample) {
            diagnostics.warn(source, number, sample.error().message + ", skipped");
            ++stats.skipped_lines;
            continue;
        }
        sample->line = number;
        ++stats.samples;
        stats.tensormap_peak = std::max(stats.tensormap_peak, sample->tensormap);
        if (sample->begin) {
            stack.push_back(std::move(*sample));
            continue;
        }
        // The innermost open scope of the same (site, depth); scopes opened inside it and never
        // closed are left open (they are what a wedged run leaves behind).
        auto match = std::find_if(stack.rbegin(), stack.rend(), [&](const Sample& open) {
            return open.site == sample->site && open.depth == sample->depth;
        });
        if (match == stack.rend()) {
            ++stats.unmatched_ends;
            diagnostics.warn(source, number,
                             fmt::format("\"end\" of {} (depth {}) without its \"begin\", ignored",
                                         sample->site, sample->depth));
            continue;
        }
        ScopeUse use = pair(*match, *sample, stats.meta);
        if (use.heap.approximate) stats.heap_approximate = true;
        stats.scopes.push_back(std::move(use));
        stack.erase(std::next(match).base());
    }
    if (!have_meta) return Error{"empty file (no metadata line)", source, 0};
    for (const Sample& open : stack)
        stats.open_scopes.push_back({open.site, open.depth, open.ring, open.line});
    return stats;
}

}  // namespace ptune::scope
