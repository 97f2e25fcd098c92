// The phrases of describe_metric, one row per metric family of docs/METRICS.md.

#include "evidence_text.hpp"

#include <array>
#include <cmath>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"

namespace ptune::advise {

namespace {

enum class Kind {
    Flag,      // 1 / 0: `text` / `negated`
    Fraction,  // 0..1, printed as a percentage
    Percent,   // already a percentage
    Ratio,     // 0..1, printed with two decimals
    Count,
    Bytes,
    Micros,
};

struct Phrase {
    std::string_view prefix;  // the metric name up to the wildcard (or all of it)
    std::string_view suffix;  // after the wildcard; a row without a wildcard has no suffix
    bool wildcard;
    Kind kind;
    std::string_view text;     // {x}: the wildcard part (pipes upper-cased), {v}: the value
    std::string_view negated;  // Flag only: the text for 0
};

// clang-format off
constexpr std::array kPhrases = {
    Phrase{"pmu.bottleneck_is_", "", true, Kind::Flag, "the bottleneck pipe is {x}", "the bottleneck pipe is not {x}"},
    Phrase{"pmu.ratio.", "", true, Kind::Fraction, "{x} busy {v} of total cycles", ""},
    Phrase{"pmu.is_aic", "", false, Kind::Flag, "it runs on AIC (cube) cores", "it does not run on AIC cores"},
    Phrase{"pmu.is_aiv", "", false, Kind::Flag, "it runs on AIV (vector) cores", "it does not run on AIV cores"},
    Phrase{"pmu.is_a5", "", false, Kind::Flag, "the PMU capture is from an A5 device", "the PMU capture is not from an A5 device"},
    Phrase{"pmu.mixed", "", false, Kind::Flag, "it shares tasks with a kernel of the other core type", "it runs in tasks of its own"},
    Phrase{"pmu.all_zero", "", false, Kind::Flag, "every PMU counter is 0 (no data)", "the PMU counters hold data"},
    Phrase{"pmu.bound_ratio_with_mte3", "", false, Kind::Ratio, "bound ratio counting MTE3 {v}", ""},
    Phrase{"pmu.bound_ratio", "", false, Kind::Ratio, "bound ratio {v} (busiest of MTE2 and its compute pipe over total cycles)", ""},
    Phrase{"pmu.partner_bound_ratio", "", false, Kind::Ratio, "its AIC partner's bound ratio is {v}", ""},
    Phrase{"pmu.max_pipe_ratio", "", false, Kind::Fraction, "its busiest pipe is busy {v} of total cycles", ""},
    Phrase{"pmu.cycle_share", "", false, Kind::Fraction, "it takes {v} of all PMU cycles", ""},
    Phrase{"pmu.icache_miss_rate", "", false, Kind::Fraction, "instruction-cache miss rate {v}", ""},
    Phrase{"pmu.median_task_us", "", false, Kind::Micros, "median task {v}", ""},
    Phrase{"pmu.run_cores", "", false, Kind::Count, "{v} cores in the capture", ""},
    Phrase{"pmu.run_kernels", "", false, Kind::Count, "{v} kernels in the capture", ""},
    Phrase{"pmu.tasks", "", false, Kind::Count, "{v} tasks", ""},
    Phrase{"mem.left_right.max_usage_pct", "", false, Kind::Percent, "Left/Right filled to {v} of their limit", ""},
    Phrase{"mem.max_usage_pct", "", false, Kind::Percent, "its fullest on-chip space is at {v} of its limit", ""},
    Phrase{"mem.grow.k.mat_pct", "", false, Kind::Percent, "Mat would be {v} full with K doubled", ""},
    Phrase{"mem.grow.n.acc_pct", "", false, Kind::Percent, "Acc would be {v} full with the N chunk doubled", ""},
    Phrase{"mem.Vec.legacy_limit", "", false, Kind::Flag, "the report prints the old physical Vec limit", "the report prints the current Vec limit"},
    Phrase{"mem.legacy_vec_limit", "", false, Kind::Flag, "the report prints the old physical Vec limit", "the report prints the current Vec limit"},
    Phrase{"mem.Vec.safe_cap_bytes", "", false, Kind::Bytes, "the Vec safe cap is {v}", ""},
    Phrase{"mem.report_found", "", false, Kind::Flag, "a memory report was found", "no memory report was found"},
    Phrase{"mem.", ".usage_pct", true, Kind::Percent, "{x} filled to {v} of its limit", ""},
    Phrase{"mem.", ".used_bytes", true, Kind::Bytes, "{x} holds {v}", ""},
    Phrase{"mem.", ".paired_buffers", true, Kind::Flag, "every {x} buffer size comes in pairs (double buffering)", "the {x} buffers are not paired"},
    Phrase{"hints.PH001.mat_max_rows", "", false, Kind::Count, "its largest PH001 Mat load has {v} rows", ""},
    Phrase{"hints.compiles", "", false, Kind::Count, "{v} compiles appended in one log", ""},
    Phrase{"hints.unknown_code", "", false, Kind::Flag, "the hint code is not in the spec", "the hint code is known"},
    Phrase{"hints.", ".count", true, Kind::Count, "{v} {x} hint site(s) in its source", ""},
};
// clang-format on

std::string value_text(Kind kind, double value) {
    switch (kind) {
        case Kind::Fraction:
            return stats::format_fixed(value * 100.0, 1) + " %";
        case Kind::Percent:
            return stats::format_fixed(value, 1) + " %";
        case Kind::Ratio:
            return stats::format_fixed(value, 2);
        case Kind::Count:
            return fmt::format("{:.0f}", value);
        case Kind::Bytes:
            return fmt::format("{:.0f} B", value);
        case Kind::Micros:
            return stats::format_fixed(value, 1) + " µs";
        case Kind::Flag:
            break;
    }
    return fmt::format("{:.6g}", value);
}

std::string fill(std::string_view text, std::string_view part, const std::string& value) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text.substr(i, 3) == "{x}") {
            out += part;
            i += 2;
        } else if (text.substr(i, 3) == "{v}") {
            out += value;
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

// Pipe names as the PMU tables print them (MTE2, CUBE); space names stay as they are (Mat).
std::string display_part(std::string_view metric, std::string_view part) {
    std::string out(part);
    if (metric.starts_with("pmu."))
        for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

std::string describe_metric(std::string_view metric, double value) {
    for (const Phrase& phrase : kPhrases) {
        std::string_view part;
        if (phrase.wildcard) {
            if (!metric.starts_with(phrase.prefix) || !metric.ends_with(phrase.suffix) ||
                metric.size() <= phrase.prefix.size() + phrase.suffix.size())
                continue;
            part = metric.substr(phrase.prefix.size(),
                                 metric.size() - phrase.prefix.size() - phrase.suffix.size());
            if (part.find('.') != std::string_view::npos) continue;
        } else if (metric != phrase.prefix) {
            continue;
        }
        std::string shown = display_part(metric, part);
        if (phrase.kind == Kind::Flag)
            return fill(value != 0 ? phrase.text : phrase.negated, shown, "");
        return fill(phrase.text, shown, value_text(phrase.kind, value));
    }
    return fmt::format("{} = {:.6g}", metric, value);
}

}  // namespace ptune::advise
