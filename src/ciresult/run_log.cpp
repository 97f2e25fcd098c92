// run.log lines new since bench-log.md (upstream-2026-12.md §1.7): task-timing slots and the
// seed sentinels.

#include "ptune/ciresult/run_log.hpp"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"

namespace ptune::ciresult {

namespace {

// `key=value` of a token, nullopt when the token is not `key=<number>`.
std::optional<double> number_after(std::string_view token, std::string_view key) {
    if (!token.starts_with(key) || token.size() <= key.size() || token[key.size()] != '=')
        return std::nullopt;
    auto value = text::parse_double(token.substr(key.size() + 1));
    if (!value || !std::isfinite(*value)) return std::nullopt;
    return value;
}

// `rank <pid> task_slot <k>: n=<n> fin_us=<a> dur_us=<b>[ dfin_us=<c>]` (after `[RUN]`).
std::optional<TaskSlot> parse_slot(std::string_view rest) {
    auto tokens = text::split_ws(rest);
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

RunLogFacts parse_run_log(std::istream& in, const std::string& source, Diagnostics& diagnostics) {
    RunLogFacts facts;
    io::LineReader reader(in);
    std::string_view raw_line;
    bool last_was_slot = false;
    while (reader.next(raw_line)) {
        const std::string clean =
            text::has_ansi(raw_line) ? text::strip_ansi(raw_line) : std::string(raw_line);
        std::string_view line = text::trim(clean);
        const std::size_t number = reader.line_number();
        for (std::string_view tag :
             {"[PERF] deterministic_seed ", "[RUN] fixture seed=", "[VALIDATION] mode="}) {
            if (line.starts_with(tag)) {
                facts.sentinels.emplace_back(line);
                break;
            }
        }
        if (!line.starts_with("[RUN]")) {
            last_was_slot = false;
            continue;
        }
        std::string_view rest = text::trim(line.substr(5));
        if (rest.starts_with("task slots: ranks=")) {
            auto ranks = text::parse_uint(rest.substr(18));
            if (ranks) {
                facts.declared_ranks = static_cast<std::size_t>(*ranks);
            } else {
                diagnostics.warn(source, number, "task slots line without a rank count");
            }
            last_was_slot = false;
        } else if (rest.starts_with("rank ") &&
                   rest.find(" task_slot ") != std::string_view::npos) {
            auto slot = parse_slot(rest);
            if (!slot) {
                diagnostics.warn(source, number, "task_slot line that does not parse; left out");
                last_was_slot = false;
                continue;
            }
            slot->line = number;
            facts.slots.push_back(std::move(*slot));
            last_was_slot = true;
        } else if (rest.starts_with("raw fin_us=[")) {
            if (!last_was_slot) {
                diagnostics.warn(source, number, "raw fin_us list without its task_slot line");
                continue;
            }
            last_was_slot = false;
            std::string_view list = rest.substr(12);
            if (!list.ends_with(']')) {
                diagnostics.warn(source, number, "raw fin_us list not closed; left out");
                continue;
            }
            list.remove_suffix(1);
            std::vector<double> values;
            bool good = true;
            if (!text::trim(list).empty()) {
                for (std::string_view item : text::split(list, ',')) {
                    auto v = text::parse_double(text::trim(item));
                    if (!v || !std::isfinite(*v)) {
                        good = false;
                        break;
                    }
                    values.push_back(*v);
                }
            }
            TaskSlot& slot = facts.slots.back();
            if (!good) {
                diagnostics.warn(source, number, "raw fin_us list with a bad number; left out");
            } else if (values.size() != slot.n) {
                diagnostics.warn(source, number,
                                 fmt::format("raw fin_us lists {} values but its slot says n={}",
                                             values.size(), slot.n));
                slot.raw_fin_us = std::move(values);
            } else {
                slot.raw_fin_us = std::move(values);
            }
        } else {
            last_was_slot = false;
        }
    }
    if (facts.declared_ranks) {
        std::set<std::uint64_t> ranks;
        for (const TaskSlot& slot : facts.slots) ranks.insert(slot.rank);
        if (!facts.slots.empty() && ranks.size() != *facts.declared_ranks) {
            diagnostics.warn(source, 0,
                             fmt::format("task slots: ranks={} but {} rank(s) have slot lines",
                                         *facts.declared_ranks, ranks.size()));
        }
    }
    return facts;
}

}  // namespace ptune::ciresult
