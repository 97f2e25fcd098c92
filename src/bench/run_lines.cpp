// A block as upstream prints it: its `[RUN]` lines (format_run_lines) and notes.

#include "ptune/bench/summary.hpp"

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"

namespace ptune::bench {

namespace {

std::string fixed1(double value) {
    return stats::format_fixed(value, 1);
}

std::string summary_text(const Summary& summary) {
    return fmt::format("min={} median={} mean={} max={}", fixed1(summary.min),
                       fixed1(summary.median), fixed1(summary.mean), fixed1(summary.max));
}

}  // namespace

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

}  // namespace ptune::bench
