// `[RUN]` bench report lines -> bench blocks. Hand-written matching instead of std::regex:
// sweep logs reach hundreds of MB and every line passes through here (bench-log.md §1).

#include "report_parser.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "ptune/core/text.hpp"
#include "text_util.hpp"

namespace ptune::bench {

namespace {

/// The longest note kept whole (a `benchmark unavailable:` RuntimeError text can be long).
constexpr std::size_t kMaxNoteBytes = 4096;

/// Consumes `key=value` where value runs to the next whitespace; nullopt if the key differs.
std::optional<std::string_view> take_field(std::string_view& text, std::string_view key) {
    text = text::trim_left(text);
    if (!text.starts_with(key) || text.size() <= key.size() || text[key.size()] != '=') {
        return std::nullopt;
    }
    text.remove_prefix(key.size() + 1);
    std::size_t end = 0;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
    std::string_view value = text.substr(0, end);
    text.remove_prefix(end);
    return value;
}

/// A printed statistic: a plain decimal number (never inf/nan, which upstream cannot print
/// for a positive sample set and which no consumer could compare).
std::optional<double> parse_value(std::string_view text) {
    if (text.empty() || text.front() == '+' || text.front() == '-') return std::nullopt;
    return text::parse_double(text);
}

}  // namespace

std::optional<Summary> parse_summary_fields(std::string_view text, std::string_view* rest) {
    Summary summary;
    double* targets[] = {&summary.min, &summary.median, &summary.mean, &summary.max};
    constexpr std::string_view keys[] = {"min", "median", "mean", "max"};
    for (std::size_t i = 0; i < 4; ++i) {
        auto field = take_field(text, keys[i]);
        if (!field) return std::nullopt;
        auto value = parse_value(*field);
        if (!value) return std::nullopt;
        *targets[i] = *value;
    }
    if (rest != nullptr) *rest = text::trim(text);
    return summary;
}

void ReportParser::reset(const std::string& source) {
    source_ = source;
    block_open_ = false;
    saw_report_ = false;
    skipping_repeated_rank_ = false;
    pending_notes_.clear();
    pending_line_ = 0;
    hints_ = HarnessLoopHints{};
    task_slots_ = TaskSlotReader(
        [this](std::size_t line, std::string message) { warn(line, std::move(message)); });
    task_slot_line_ = false;
    outside_slots_ = TaskSlots{};
}

void ReportParser::warn(std::size_t line_number, std::string message) {
    diagnostics_.warn(source_, line_number, std::move(message));
}

BenchBlock& ReportParser::open_block(std::size_t line_number) {
    BenchBlock& block = case_.blocks.emplace_back();
    block.origin = Origin::Report;
    block.source = {source_, line_number};
    block.notes = std::move(pending_notes_);
    pending_notes_.clear();
    block_open_ = true;
    skipping_repeated_rank_ = false;
    return block;
}

void ReportParser::add_note(std::string note, std::size_t line_number) {
    if (block_open_) {
        case_.blocks.back().notes.push_back(std::move(note));
    } else {
        if (pending_notes_.empty()) pending_line_ = line_number;
        pending_notes_.push_back(std::move(note));
    }
}

void ReportParser::finish() {
    if (!pending_notes_.empty()) {
        // A run that printed notes but no headline (skipped, benchmark unavailable): its notes
        // form a block of their own, so `--format run` prints them where upstream did, and
        // become case notes, which explain why the case has no number.
        BenchBlock& block = case_.blocks.emplace_back();
        block.origin = Origin::Report;
        block.source = {source_, pending_line_};
        block.notes = pending_notes_;
        for (auto& note : pending_notes_) case_.notes.push_back(std::move(note));
        pending_notes_.clear();
    }
    block_open_ = false;
}

void ReportParser::note_loop_hint(std::string_view body) {
    // `ignoring PYPTO_BENCH_ROUNDS='abc' (want an integer >= 1); using 100` (§1.8).
    std::size_t using_at = body.rfind("; using ");
    if (using_at == std::string_view::npos) return;
    auto value = text::parse_uint(text::trim(body.substr(using_at + 8)));
    if (!value || *value > std::numeric_limits<std::size_t>::max()) return;
    if (text::starts_with(body, "ignoring PYPTO_BENCH_ROUNDS=")) {
        hints_.rounds = static_cast<std::size_t>(*value);
    } else if (text::starts_with(body, "ignoring PYPTO_BENCH_WARMUP=")) {
        hints_.warmup = static_cast<std::size_t>(*value);
    }
}

bool ReportParser::feed(std::string_view line, std::size_t line_number) {
    std::size_t tag = line.find("[RUN]");
    if (tag == std::string_view::npos) return false;
    std::string_view after_tag = line.substr(tag + 5);
    std::string_view body = text::trim(after_tag);
    if (body.empty() || after_tag.front() != ' ') return false;

    if (text::starts_with(body, "effective_us "))
        return parse_headline(body.substr(13), false, line_number);
    if (text::starts_with(body, "fast_effective_us "))
        return parse_headline(body.substr(18), true, line_number);
    // §1.7 task-timing slots (after the raw block): `task slots:`, `rank P task_slot K:`,
    // `raw fin_us=[..]`. Every [RUN] line goes through, so any other ends a slot's raw list —
    // except that a line which cannot be one (not `t…` or `r…`) after a line that was none
    // leaves the reader as it is, and skips it (most lines: compile, runtime, validate, PASS).
    const char first = body.front();
    if (first == 't' || first == 'r' || task_slot_line_) {
        // Lines outside a block are read (and left out) into a place of their own, which
        // lives as long as a run of them: a `raw fin_us=[..]` list goes to the slot line before
        // it (it was a fresh, empty place per line, and the list went to a slot that was not
        // there: a crash).
        if (!task_slot_line_) outside_slots_ = TaskSlots{};
        task_slot_line_ = task_slots_.feed(
            body, line_number, block_open_ ? case_.blocks.back().task_slots : outside_slots_);
        if (task_slot_line_) {
            if (!block_open_) warn(line_number, "task slot line outside a bench block; left out");
            return true;
        }
    }
    // The tags below by their first byte: one comparison for the lines that are none of them.
    if (first == 'r') {
        if (text::starts_with(body, "rank ")) return parse_rank(body.substr(5), line_number);
        if (text::starts_with(body, "raw samples:"))
            return parse_raw_header(body.substr(12), line_number);
    } else if (first == 's') {
        if (text::starts_with(body, "slot ")) return parse_slot(body.substr(5), line_number);
    } else if (first == 'b' || first == 'i') {
        if (text::starts_with(body, "benchmark kernel="))
            return parse_context(body.substr(17), line_number);
        if (text::starts_with(body, "benchmark skipped: ") ||
            text::starts_with(body, "benchmark unavailable: ") ||
            text::starts_with(body, "benchmark rounds interrupted: ") ||
            text::starts_with(body, "ignoring PYPTO_BENCH_")) {
            note_loop_hint(body);
            // Long enough for any RuntimeError text upstream prints, so `--format run` repeats
            // it.
            add_note(clip_for_message(body, kMaxNoteBytes), line_number);
            return true;
        }
    }
    // Stage lines end a block (bench-log.md §3.4 rule 2). A note printed in a stage that never
    // produced a headline (e.g. `benchmark unavailable`) belongs to the case, not to a later run.
    bool stage_begin = body.size() > 4 && body.substr(body.size() - 4) == " ...";
    bool stage_end = body.find(" done (") != std::string_view::npos && body.back() == ')';
    bool verdict = text::starts_with(body, "PASS (") || text::starts_with(body, "FAIL");
    if (body == "benchmark ...") hints_.benchmark_stage = true;
    if (stage_begin || stage_end || verdict) {
        close_block();
        if (verdict || body == "validate ...") finish();
    }
    return false;
}

bool ReportParser::parse_headline(std::string_view rest, bool fast, std::size_t line_number) {
    saw_report_ = true;
    if (text::starts_with(rest, "unavailable:")) {
        close_block();
        BenchBlock& block = open_block(line_number);
        block.fast_variant = fast;
        block.unavailable = std::string(text::trim(rest.substr(12)));
        return true;
    }
    // `(N rounds) min=.. median=.. mean=.. max=..[ valid_rounds=V/T]`
    std::string_view text = rest;
    std::optional<std::uint64_t> rounds;
    std::optional<Summary> summary;
    std::string_view tail;
    std::optional<std::string_view> valid;
    bool singular = false;
    if (text::starts_with(text, "(")) {
        text.remove_prefix(1);
        rounds = take_uint(text);
        singular = text::starts_with(text, " round)");
        if (rounds && (text::starts_with(text, " rounds)") || singular)) {
            text.remove_prefix(text.find(')') + 1);
            summary = parse_summary_fields(text, &tail);
        }
    }
    if (summary && !tail.empty()) {
        // Only the 2026-07-15 fast_ form carries a trailing `valid_rounds=V/T`.
        valid = take_field(tail, "valid_rounds");
        std::size_t slash = valid ? valid->find('/') : std::string_view::npos;
        bool counts = slash != std::string_view::npos &&
                      text::parse_uint(valid->substr(0, slash)) &&
                      text::parse_uint(valid->substr(slash + 1));
        if (!fast || !counts || !text::trim(tail).empty()) summary.reset();
    }
    if (!summary) {
        warn(line_number, fmt::format("garbled effective_us headline, ignored: {}",
                                      clip_for_message(rest, 120)));
        return true;
    }
    summary->rounds = static_cast<std::size_t>(*rounds);
    close_block();
    BenchBlock& block = open_block(line_number);
    block.fast_variant = fast;
    block.effective_us = summary;
    if (valid) block.valid_rounds = std::string(*valid);
    block.singular_round = singular;
    return true;
}

bool ReportParser::parse_raw_samples(std::uint64_t pid, std::string_view text,
                                     std::string_view rest, std::size_t line_number) {
    text.remove_prefix(7);
    auto count = take_uint(text);
    if (!count || !text::starts_with(text, " eff_us=[") || text.back() != ']') {
        warn(line_number,
             fmt::format("garbled raw sample line, ignored: rank {}", clip_for_message(rest, 120)));
        return true;
    }
    std::string_view list = text.substr(9, text.size() - 10);
    std::vector<double> values;
    values.reserve(std::min<std::size_t>(*count, list.size() / 2 + 1));  // n= may lie
    std::size_t start = text::trim(list).empty() ? list.size() + 1 : 0;  // "[]": no values
    while (start <= list.size()) {
        std::size_t comma = std::min(list.find(',', start), list.size());
        std::string_view item = text::trim(list.substr(start, comma - start));
        auto value = text::parse_double(item);
        if (!value) {
            warn(line_number,
                 fmt::format("garbled value '{}' in raw samples of rank {}, line ignored",
                             clip_for_message(item, 40), pid));
            return true;
        }
        values.push_back(*value);
        start = comma + 1;
    }
    if (values.size() != *count) {
        warn(line_number, fmt::format("raw samples of rank {} announce n={} but list {} values",
                                      pid, *count, values.size()));
    }
    if (!block_open_) open_block(line_number);
    BenchBlock& block = case_.blocks.back();
    if (!block.raw) block.raw.emplace();
    if (!block.raw->per_rank.emplace(pid, std::move(values)).second) {
        warn(line_number, fmt::format("raw samples of rank {} printed twice in one bench "
                                      "block, the repeat is ignored",
                                      pid));
    }
    return true;
}

bool ReportParser::parse_rank(std::string_view rest, std::size_t line_number) {
    saw_report_ = true;
    std::string_view text = rest;
    auto pid = take_uint(text);
    if (!pid) {
        warn(line_number,
             fmt::format("garbled rank line, ignored: rank {}", clip_for_message(rest, 120)));
        return true;
    }
    if (text::starts_with(text, " raw n=")) return parse_raw_samples(*pid, text, rest, line_number);
    if (!text::starts_with(text, ": ")) {
        warn(line_number,
             fmt::format("garbled rank line, ignored: rank {}", clip_for_message(rest, 120)));
        return true;
    }
    text = text::trim(text.substr(2));
    Rank rank;
    rank.rank = *pid;
    rank.source = {source_, line_number};
    bool ok = true;
    if (text == "(no timing)") {
    } else if (text::starts_with(text, "eff_us ")) {
        std::string_view tail;
        rank.eff_us = parse_summary_fields(text.substr(7), &tail);
        ok = rank.eff_us.has_value();
        if (ok && !tail.empty()) {
            // 2026-07-07..07-22: a second column `device_wall_us mean=.. max=..`.
            ok = text::starts_with(tail, "device_wall_us ");
            if (ok) tail.remove_prefix(15);
            auto mean = ok ? take_field(tail, "mean") : std::nullopt;
            auto max = mean ? take_field(tail, "max") : std::nullopt;
            ok = max && text::trim(tail).empty() && parse_value(*mean) && parse_value(*max);
            if (ok) {
                rank.device_wall_mean_us = parse_value(*mean);
                rank.device_wall_max_us = parse_value(*max);
            }
        }
    } else if (text::starts_with(text, "device_wall_us ")) {
        std::string_view tail = text.substr(15);
        auto mean = take_field(tail, "mean");
        auto max = mean ? take_field(tail, "max") : std::nullopt;
        ok = max && parse_value(*mean) && parse_value(*max);
        if (ok) {
            rank.device_wall_mean_us = parse_value(*mean);
            rank.device_wall_max_us = parse_value(*max);
        }
    } else {
        ok = false;
    }
    if (!ok) {
        warn(line_number,
             fmt::format("garbled rank line, ignored: rank {}", clip_for_message(rest, 120)));
        return true;
    }
    if (!block_open_) open_block(line_number);
    std::vector<Rank>& ranks = case_.blocks.back().ranks;
    skipping_repeated_rank_ = std::any_of(ranks.begin(), ranks.end(),
                                          [&](const Rank& seen) { return seen.rank == rank.rank; });
    if (skipping_repeated_rank_) {
        // Upstream prints each rank once per block; a second line (a log merged with itself,
        // interleaved output) would double the rank and skew the imbalance.
        warn(line_number, fmt::format("rank {} printed twice in one bench block, the repeat and "
                                      "its slot lines are ignored",
                                      rank.rank));
        return true;
    }
    ranks.push_back(std::move(rank));
    return true;
}

bool ReportParser::parse_slot(std::string_view rest, std::size_t line_number) {
    saw_report_ = true;
    std::string_view text = rest;
    auto index = take_uint(text);
    Slot slot;
    bool ok = index.has_value();
    if (ok && text::starts_with(text, " (")) {
        std::size_t close = text.find(')');
        ok = close != std::string_view::npos;
        if (ok) {
            slot.name = std::string(text.substr(2, close - 2));
            text.remove_prefix(close + 1);
        }
    }
    ok = ok && text::starts_with(text, ":");
    if (ok) {
        text = text::trim(text.substr(1));
        if (text::starts_with(text, "eff_us ")) {
            std::string_view tail;
            slot.eff_us = parse_summary_fields(text.substr(7), &tail);
            ok = slot.eff_us.has_value() && tail.empty();
        } else {
            ok = text == "(no timing)";
        }
    }
    if (!ok) {
        warn(line_number,
             fmt::format("garbled slot line, ignored: slot {}", clip_for_message(rest, 120)));
        return true;
    }
    slot.slot = static_cast<std::size_t>(*index);
    if (!block_open_ || case_.blocks.back().ranks.empty()) {
        warn(line_number,
             fmt::format("slot {} line without a rank line before it, ignored", slot.slot));
        return true;
    }
    if (skipping_repeated_rank_) return true;
    std::vector<Slot>& slots = case_.blocks.back().ranks.back().slots;
    if (std::any_of(slots.begin(), slots.end(),
                    [&](const Slot& seen) { return seen.slot == slot.slot; })) {
        warn(line_number, fmt::format("slot {} of rank {} printed twice, the repeat is ignored",
                                      slot.slot, case_.blocks.back().ranks.back().rank));
        return true;
    }
    slots.push_back(std::move(slot));
    return true;
}

bool ReportParser::parse_raw_header(std::string_view rest, std::size_t line_number) {
    saw_report_ = true;
    std::string_view text = rest;
    auto ranks = take_field(text, "ranks");
    auto rounds = ranks ? take_field(text, "rounds") : std::nullopt;
    auto warmup = rounds ? take_field(text, "warmup") : std::nullopt;
    std::optional<std::uint64_t> ranks_n, rounds_n, warmup_n;
    if (warmup) {
        ranks_n = text::parse_uint(*ranks);
        rounds_n = text::parse_uint(*rounds);
        warmup_n = text::parse_uint(*warmup);
    }
    text = text::trim(text);
    bool fallback = text == "fallback_flattened=1";
    if (!warmup_n || !ranks_n || !rounds_n || (!fallback && !text.empty())) {
        warn(line_number,
             fmt::format("garbled raw samples header, ignored: {}", clip_for_message(rest, 120)));
        return true;
    }
    if (!block_open_) open_block(line_number);
    BenchBlock& block = case_.blocks.back();
    RawSamples& raw = block.raw.emplace();
    raw.ranks = static_cast<std::size_t>(*ranks_n);
    raw.rounds = static_cast<std::size_t>(*rounds_n);
    raw.warmup = static_cast<std::size_t>(*warmup_n);
    raw.fallback_flattened = fallback;
    block.declared_rounds = raw.rounds;
    block.declared_warmup = raw.warmup;
    return true;
}

bool ReportParser::parse_context(std::string_view rest, std::size_t line_number) {
    saw_report_ = true;
    Context context;
    context.source = {source_, line_number};
    std::string_view text = rest;
    std::size_t end = 0;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
    context.kernel = std::string(text.substr(0, end));
    text.remove_prefix(end);
    text = text::trim(text);
    // The 2026-06-28 variant ends in a parenthetical remark, e.g. `(device_wall_us all 0 ...)`.
    if (std::size_t paren = text.find(" (");
        paren != std::string_view::npos || text::starts_with(text, "(")) {
        std::size_t at = text::starts_with(text, "(") ? 0 : paren + 1;
        context.fields["remark"] = std::string(text.substr(at));
        text = text.substr(0, at);
    }
    bool ok = !context.kernel.empty();
    for (std::string_view token : text::split_ws(text)) {
        std::size_t eq = token.find('=');
        if (eq == std::string_view::npos || eq == 0) {
            ok = false;
            break;
        }
        std::string key(token.substr(0, eq));
        std::string_view value = token.substr(eq + 1);
        context.fields[key] = std::string(value);
        auto number = parse_value(value);
        bool numeric_key = key != "kernel";
        if (numeric_key && !number) {
            ok = false;
            break;
        }
        if (key == "l3_resident") context.resident = *number != 0.0;
        if (key == "rounds" || key == "ranks") {
            // Counts: whole numbers only (a float like 2.7e101 has no size_t value).
            auto count = text::parse_uint(value);
            if (!count || *count > std::numeric_limits<std::size_t>::max()) {
                ok = false;
                break;
            }
            (key == "rounds" ? context.rounds : context.ranks) = static_cast<std::size_t>(*count);
        }
        if (key == "host_union_mean_us") context.host_union_mean_us = number;
        if (key == "host_mean_us") context.host_mean_us = number;
        if (key == "fallback_flattened") context.fallback_flattened = *number != 0.0;
    }
    if (!ok) {
        warn(line_number, fmt::format("garbled benchmark context line, ignored: kernel={}",
                                      clip_for_message(rest, 120)));
        return true;
    }
    if (!block_open_) open_block(line_number);
    BenchBlock& block = case_.blocks.back();
    if (context.rounds && !block.declared_rounds) block.declared_rounds = context.rounds;
    block.context = std::move(context);
    close_block();  // the context line is the last line of an L3 block
    return true;
}

}  // namespace ptune::bench
