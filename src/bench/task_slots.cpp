// The task-timing slot lines of upstream-2026-12.md §1.7 (task_slots.hpp).

#include "ptune/bench/task_slots.hpp"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"

namespace ptune::bench {

namespace {

// `key=value` of a token, nullopt when the token is not `key=<finite number>`.
std::optional<double> number_after(std::string_view token, std::string_view key) {
    if (!token.starts_with(key) || token.size() <= key.size() || token[key.size()] != '=')
        return std::nullopt;
    auto value = text::parse_double(token.substr(key.size() + 1));
    if (!value || !std::isfinite(*value)) return std::nullopt;
    return value;
}

// `rank <pid> task_slot <k>: n=<n> fin_us=<a> dur_us=<b>[ dfin_us=<c>]`.
std::optional<TaskSlot> parse_slot(std::string_view body) {
    auto tokens = text::split_ws(body);
    if (tokens.size() != 7 && tokens.size() != 8) return std::nullopt;
    if (tokens[0] != "rank" || tokens[2] != "task_slot" || !tokens[3].ends_with(':'))
        return std::nullopt;
    TaskSlot slot;
    auto rank = text::parse_uint(tokens[1]);
    auto k = text::parse_uint(tokens[3].substr(0, tokens[3].size() - 1));
    auto n = number_after(tokens[4], "n");
    auto fin = number_after(tokens[5], "fin_us");
    auto dur = number_after(tokens[6], "dur_us");
    if (!rank || !k || !n || !fin || !dur || *n < 0 || *n != std::floor(*n)) return std::nullopt;
    slot.rank = *rank;
    slot.slot = static_cast<std::size_t>(*k);
    slot.n = static_cast<std::size_t>(*n);
    slot.fin_us = *fin;
    slot.dur_us = *dur;
    if (tokens.size() == 8) {
        slot.dfin_us = number_after(tokens[7], "dfin_us");
        if (!slot.dfin_us) return std::nullopt;
    }
    return slot;
}

}  // namespace

bool TaskSlotReader::feed(std::string_view body, std::size_t line, TaskSlots& into) {
    const bool after_slot = last_was_slot_;
    last_was_slot_ = false;
    if (body.starts_with("task slots: ranks=")) {
        if (auto ranks = text::parse_uint(body.substr(18)))
            into.declared_ranks = static_cast<std::size_t>(*ranks);
        else
            warn_(line, "task slots line without a rank count");
        return true;
    }
    if (body.starts_with("rank ") && body.find(" task_slot ") != std::string_view::npos) {
        auto slot = parse_slot(body);
        if (!slot) {
            warn_(line, "task_slot line that does not parse; left out");
            return true;
        }
        slot->line = line;
        into.slots.push_back(std::move(*slot));
        last_was_slot_ = true;
        return true;
    }
    if (!body.starts_with("raw fin_us=[")) return false;
    // `into` may not hold the slot the line before was read into: a headline between them
    // opened another block.
    if (!after_slot || into.slots.empty()) {
        warn_(line, "raw fin_us list without its task_slot line");
        return true;
    }
    std::string_view list = body.substr(12);
    if (!list.ends_with(']')) {
        warn_(line, "raw fin_us list not closed; left out");
        return true;
    }
    list.remove_suffix(1);
    std::vector<double> values;
    if (!text::trim(list).empty()) {
        for (std::string_view item : text::split(list, ',')) {
            auto v = text::parse_double(text::trim(item));
            if (!v || !std::isfinite(*v)) {
                warn_(line, "raw fin_us list with a bad number; left out");
                return true;
            }
            values.push_back(*v);
        }
    }
    TaskSlot& slot = into.slots.back();
    if (values.size() != slot.n)
        warn_(line, fmt::format("raw fin_us lists {} values but its slot says n={}", values.size(),
                                slot.n));
    slot.raw_fin_us = std::move(values);
    return true;
}

void TaskSlotReader::check(const TaskSlots& slots) const {
    if (!slots.declared_ranks || slots.slots.empty()) return;
    std::set<std::uint64_t> ranks;
    for (const TaskSlot& slot : slots.slots) ranks.insert(slot.rank);
    if (ranks.size() != *slots.declared_ranks)
        warn_(0, fmt::format("task slots: ranks={} but {} rank(s) have slot lines",
                             *slots.declared_ranks, ranks.size()));
}

render::Table task_slot_table(std::string title,
                              const std::vector<std::pair<std::string, const TaskSlots*>>& cases,
                              bool case_column) {
    render::Table table;
    table.title = std::move(title);
    table.columns = {"rank", "slot", "n", "fin", "dur", "dfin", "raw"};
    table.units = {"", "", "", "µs", "µs", "µs"};
    if (case_column) {
        table.columns.insert(table.columns.begin(), "case");
        table.units.insert(table.units.begin(), "");
    }
    table.align.assign(table.columns.size(), render::Align::Right);
    if (case_column) table.align.front() = render::Align::Left;
    for (const auto& [name, slots] : cases) {
        for (const TaskSlot& s : slots->slots) {
            std::vector<std::string> row = {
                std::to_string(s.rank),
                std::to_string(s.slot),
                std::to_string(s.n),
                stats::format_fixed(s.fin_us, 1),
                stats::format_fixed(s.dur_us, 1),
                s.dfin_us ? stats::format_fixed(*s.dfin_us, 1) : "-",
                s.raw_fin_us.empty() ? "-" : std::to_string(s.raw_fin_us.size())};
            if (case_column) row.insert(row.begin(), name);
            table.rows.push_back(std::move(row));
        }
    }
    return table;
}

}  // namespace ptune::bench
