// host_phase_records.jsonl reader and per-kind summary (upstream-2026-09.md §2.8).

#include "ptune/host/phase_records.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"

namespace ptune::host {

namespace {

using nlohmann::json;

std::optional<std::int64_t> int_member(const json& object, const char* key) {
    auto it = object.find(key);
    if (it == object.end() || !it->is_number_integer()) return std::nullopt;
    if (it->is_number_unsigned() && it->get<std::uint64_t>() > (std::uint64_t{1} << 62))
        return std::nullopt;
    return it->get<std::int64_t>();
}

std::optional<std::uint64_t> uint_member(const json& object, const char* key) {
    auto it = object.find(key);
    if (it == object.end() || !it->is_number_unsigned()) return std::nullopt;
    return it->get<std::uint64_t>();
}

/// The pass of one line, or why it is not one.
std::optional<PhasePass> read_pass(const json& line, std::string& why) {
    if (!line.is_object()) {
        why = "not a JSON object";
        return std::nullopt;
    }
    PhasePass pass;
    auto pid = uint_member(line, "pid");
    auto inv = uint_member(line, "inv");
    auto records = line.find("records");
    if (!pid || !inv) {
        why = "\"pid\" and \"inv\" must be non-negative integers";
        return std::nullopt;
    }
    if (records == line.end() || !records->is_array()) {
        why = "\"records\" is not a list";
        return std::nullopt;
    }
    pass.pid = *pid;
    pass.inv = *inv;
    pass.dropped = uint_member(line, "dropped").value_or(0);
    for (const json& item : *records) {
        PhaseRecord record;
        const char* bad = "a record needs \"phase\", \"start_ns\" and \"end_ns\" with end >= start";
        if (!item.is_object()) {
            why = bad;
            return std::nullopt;
        }
        auto phase = item.find("phase");
        // Plain integers, not optionals: g++ 12 warns about optionals read after this test.
        std::int64_t start = int_member(item, "start_ns").value_or(-1);
        std::int64_t end = int_member(item, "end_ns").value_or(-1);
        if (phase == item.end() || !phase->is_string() || start < 0 || end < start) {
            why = bad;
            return std::nullopt;
        }
        record.phase = phase->get<std::string>();
        record.start_ns = start;
        record.end_ns = end;
        record.detail = int_member(item, "detail").value_or(0);
        record.tid = uint_member(item, "tid");
        pass.records.push_back(std::move(record));
    }
    return pass;
}

}  // namespace

bool is_bind_segment(std::string_view phase) {
    static constexpr std::string_view kSegments[] = {
        "args",         "arena_build", "static_arena", "gm_heap",   "shared_mem",
        "runtime_init", "host_orch",   "graph_upload", "arena_h2d", "host_view_close"};
    return std::find(std::begin(kSegments), std::end(kSegments), phase) != std::end(kSegments);
}

std::vector<PhasePass> parse_phase_records(std::istream& in, const std::string& source,
                                           Diagnostics& diagnostics) {
    std::vector<PhasePass> passes;
    io::LineReader reader(in, 16u << 20);
    std::string_view line;
    // A damaged line is only known to be the last one when the next line comes: hold it back.
    std::optional<std::pair<std::size_t, std::string>> pending;
    auto flush_pending = [&](bool last) {
        if (!pending) return;
        if (last) {
            diagnostics.note(source, pending->first,
                             "truncated last line skipped (the file is still being appended?): " +
                                 pending->second);
        } else {
            diagnostics.warn(source, pending->first, pending->second + ", line skipped");
        }
        pending.reset();
    };
    while (reader.next(line)) {
        std::size_t number = reader.line_number();
        if (text::trim(line).empty()) continue;
        flush_pending(false);
        json value =
            reader.truncated() ? json(json::value_t::discarded) : json::parse(line, nullptr, false);
        if (value.is_discarded()) {
            pending.emplace(number, "not valid JSON");
            continue;
        }
        std::string why;
        auto pass = read_pass(value, why);
        if (!pass) {
            diagnostics.warn(source, number, why + ", line skipped");
            continue;
        }
        pass->line = number;
        passes.push_back(std::move(*pass));
    }
    flush_pending(true);
    return passes;
}

std::vector<PhaseKindSummary> summarize_phase_kinds(const std::vector<PhasePass>& passes) {
    std::vector<PhaseKindSummary> kinds;
    std::map<std::string, std::size_t, std::less<>> index;
    std::vector<std::vector<std::int64_t>> durations;
    for (const PhasePass& pass : passes) {
        for (const PhaseRecord& record : pass.records) {
            auto [it, inserted] = index.try_emplace(record.phase, kinds.size());
            if (inserted) {
                PhaseKindSummary kind;
                kind.phase = record.phase;
                kinds.push_back(std::move(kind));
                durations.emplace_back();
            }
            durations[it->second].push_back(record.end_ns - record.start_ns);
        }
    }
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        std::vector<std::int64_t>& values = durations[i];
        std::sort(values.begin(), values.end());
        kinds[i].count = values.size();
        for (std::int64_t value : values) kinds[i].total_ns += value;
        // Lower median: an observed duration, as a table of integers wants.
        kinds[i].p50_ns = values[(values.size() - 1) / 2];
        kinds[i].max_ns = values.back();
    }
    return kinds;
}

}  // namespace ptune::host
