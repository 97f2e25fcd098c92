// Legacy device-log timing lines -> Effective per round, as the retired simpler parser computed
// "Total" (bench-log.md §1.14).

#include "device_log.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "ptune/core/text.hpp"
#include "strace.hpp"
#include "text_util.hpp"

namespace ptune::bench {

namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t';
}

/// Consumes at least one blank; false if there is none.
bool take_blanks(std::string_view& text) {
    std::size_t n = 0;
    while (n < text.size() && is_blank(text[n])) ++n;
    text.remove_prefix(n);
    return n > 0;
}

/// Consumes `literal`; false (nothing consumed) if the text does not start with it.
bool take_literal(std::string_view& text, std::string_view literal) {
    if (!text.starts_with(literal)) return false;
    text.remove_prefix(literal.size());
    return true;
}

/// Consumes `[0-9]+` into `value`; false when empty or beyond 64 bits.
bool take_uint(std::string_view& text, std::uint64_t& value) {
    auto parsed = bench::take_uint(text);
    if (parsed) value = *parsed;
    return parsed.has_value();
}

/// Consumes `[0-9.]+us` into `value` (µs).
bool take_cost(std::string_view& text, double& value) {
    std::size_t n = 0;
    while (n < text.size() && ((text[n] >= '0' && text[n] <= '9') || text[n] == '.')) ++n;
    auto parsed = n == 0 ? std::nullopt : text::parse_double(text.substr(0, n));
    if (!parsed || !text.substr(n).starts_with("us")) return false;
    value = *parsed;
    text.remove_prefix(n + 2);
    return true;
}

struct TimingLine {
    bool orch = false;
    std::uint64_t start = 0, end = 0;
    double cost_us = 0.0;
};

/// `Thread\s+N:\s+orch_start=A\s+orch_end=B\s+orch_cost=Cus` or the sched form (whose end key
/// may read `sched_end(timeout)`), anywhere on the line (a CANN dlog prefix comes first).
std::optional<TimingLine> parse_timing_line(std::string_view line) {
    for (std::size_t at = line.find("Thread"); at != std::string_view::npos;
         at = line.find("Thread", at + 1)) {
        std::string_view text = line.substr(at + 6);
        std::uint64_t thread = 0;
        if (!take_blanks(text) || !take_uint(text, thread) || !take_literal(text, ":") ||
            !take_blanks(text)) {
            continue;
        }
        TimingLine timing;
        timing.orch = text.starts_with("orch_start=");
        std::string_view kind = timing.orch ? "orch" : "sched";
        bool ok = take_literal(text, kind) && take_literal(text, "_start=") &&
                  take_uint(text, timing.start) && take_blanks(text) && take_literal(text, kind) &&
                  take_literal(text, "_end");
        if (ok && !timing.orch) take_literal(text, "(timeout)");
        ok = ok && take_literal(text, "=") && take_uint(text, timing.end) && take_blanks(text) &&
             take_literal(text, kind) && take_literal(text, "_cost=") &&
             take_cost(text, timing.cost_us);
        if (ok) return timing;
    }
    return std::nullopt;
}

}  // namespace

bool mentions_device_timing(std::string_view line) {
    return line.find("_start=") != std::string_view::npos &&
           line.find("Thread") != std::string_view::npos;
}

void DeviceLogCollector::feed(std::string_view line, std::size_t line_number) {
    auto timing = parse_timing_line(line);
    if (!timing) return;
    ++lines_;
    // Rounds split at each orch line (§1.14); sched lines before the first one form a round
    // without orch, which is dropped.
    if (timing->orch || rounds_.empty()) rounds_.emplace_back();
    Round& round = rounds_.back();
    if (timing->orch) {
        round.line = line_number;
        round.has_orch = true;
        round.orch_start = timing->start;
        round.orch_end = timing->end;
        round.orch_cost_us = timing->cost_us;
    } else {
        round.sched.emplace_back(timing->start, timing->end);
    }
}

std::optional<BenchBlock> DeviceLogCollector::compute(const StraceOptions& options) const {
    if (lines_ == 0) return std::nullopt;
    std::vector<double> totals;
    std::size_t first_line = 0;
    for (const Round& round : rounds_) {
        if (!round.has_orch || round.sched.empty()) continue;  // dropped, as upstream does
        // Cycles per µs, self-calibrated from the orch line.
        double cycles_per_us =
            round.orch_end > round.orch_start && round.orch_cost_us > 0.0
                ? static_cast<double>(round.orch_end - round.orch_start) / round.orch_cost_us
                : 0.0;
        if (!(cycles_per_us > 0.0) || !std::isfinite(cycles_per_us)) {
            diagnostics_.warn(source_, round.line,
                              "device-log round without a usable orch_cost (the cycle rate "
                              "comes from it), dropped");
            continue;
        }
        std::uint64_t begin = round.orch_start, end = round.orch_end;
        for (auto [start, stop] : round.sched) {
            begin = std::min(begin, start);
            end = std::max(end, stop);
        }
        if (first_line == 0) first_line = round.line;
        totals.push_back(end > begin ? static_cast<double>(end - begin) / cycles_per_us : 0.0);
    }

    BenchBlock block;
    block.origin = Origin::DeviceLog;
    block.source = {source_, first_line};
    const std::size_t warmup = options.warmup.value_or(kDefaultWarmup);
    block.declared_warmup = warmup;
    std::size_t skip = std::min(warmup, totals.size());
    std::vector<double> measured(totals.begin() + static_cast<std::ptrdiff_t>(skip), totals.end());
    block.effective_us = summarize_positive(measured);
    if (!block.effective_us) {
        block.unavailable = totals.empty() ? "no complete round (an orch line with its sched lines)"
                                           : fmt::format("{} round(s), all within --warmup {}",
                                                         totals.size(), warmup);
    }
    return block;
}

}  // namespace ptune::bench
