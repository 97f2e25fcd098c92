// A bench case's headline as an Observation (observation.hpp): which number of a case is
// compared or recorded, and which samples back it.

#include "ptune/bench/observation.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

namespace ptune::bench {

std::string_view to_string(Metric metric) {
    switch (metric) {
        case Metric::Mean:
            return "mean";
        case Metric::Median:
            return "median";
        case Metric::Min:
            return "min";
    }
    return "mean";
}

std::optional<Metric> parse_metric(std::string_view text) {
    if (text == "mean") return Metric::Mean;
    if (text == "median") return Metric::Median;
    if (text == "min") return Metric::Min;
    return std::nullopt;
}

std::optional<double> Observation::value(Metric metric) const {
    switch (metric) {
        case Metric::Mean:
            return mean;
        case Metric::Median:
            return median;
        case Metric::Min:
            return min;
    }
    return std::nullopt;
}

std::vector<double> headline_samples(const RawSamples& raw) {
    std::vector<double> samples;
    if (raw.per_rank.size() <= 1 || raw.fallback_flattened) {
        for (const auto& [rank, values] : raw.per_rank) {
            for (double v : values) {
                if (v > 0.0) samples.push_back(v);
            }
        }
        return samples;
    }
    // L3: a rank runs its dispatches of a round serially; the round takes as long as the
    // slowest rank (bench-log.md §4).
    if (raw.rounds == 0) return {};
    // The header's round count is checked against the samples before anything is sized by it:
    // a declared 2^64-1 rounds must not become an allocation.
    for (const auto& [rank, values] : raw.per_rank) {
        if (values.empty() || values.size() % raw.rounds != 0) return {};
    }
    std::vector<double> per_round(raw.rounds, 0.0);
    for (const auto& [rank, values] : raw.per_rank) {
        const std::size_t dispatches = values.size() / raw.rounds;
        for (std::size_t round = 0; round < raw.rounds; ++round) {
            double sum = 0.0;
            for (std::size_t d = 0; d < dispatches; ++d) sum += values[round * dispatches + d];
            per_round[round] = std::max(per_round[round], sum);
        }
    }
    for (double v : per_round) {
        if (v > 0.0) samples.push_back(v);
    }
    return samples;
}

std::string platform_from_path(const std::string& path) {
    constexpr std::string_view kArtifactPrefix = "results-";
    for (const auto& part : std::filesystem::path(path)) {
        const std::string name = part.string();
        if (name.size() > kArtifactPrefix.size() && name.starts_with(kArtifactPrefix)) {
            return name.substr(kArtifactPrefix.size());
        }
    }
    return {};
}

namespace {

std::string observation_place(const SourceRef& source) {
    return source.line > 0 ? fmt::format("{}:{}", source.file, source.line) : source.file;
}

}  // namespace

Observation observe(const BenchCase& bench_case, Diagnostics& diagnostics) {
    Observation o;
    o.source = observation_place(bench_case.source);
    o.platform = platform_from_path(bench_case.source.file);
    const BenchBlock* block = bench_case.ci_block();
    if (!block) {
        o.unavailable =
            bench_case.notes.empty() ? "no effective_us headline" : bench_case.notes.front();
        return o;
    }
    o.source = observation_place(block->source);
    o.declared_rounds = block->declared_rounds;
    if (!block->effective_us) {
        o.unavailable = block->unavailable.value_or("no effective_us headline");
        return o;
    }
    const Summary& summary = *block->effective_us;
    if (bench_case.status == "fail" && !(summary.mean > 0.0)) {
        // Daily CI writes 0 for a case that failed: no result, not a time of zero.
        o.unavailable = "the case failed (results.tsv status fail)";
        return o;
    }
    o.mean = summary.mean;
    o.value_only_report = summary.mean_only && block->origin == Origin::CiResult;
    o.headline_is_median = block->headline_is_median && !summary.mean_only;
    if (!summary.mean_only) {
        o.min = summary.min;
        o.median = summary.median;
        o.max = summary.max;
        o.rounds = summary.rounds;
    }
    if (block->raw) {
        o.samples = headline_samples(*block->raw);
        if (!summary.mean_only && o.samples.size() != summary.rounds) {
            diagnostics.warn(block->source.file, block->source.line,
                             fmt::format("{}: raw samples give {} rounds but the headline says {}; "
                                         "comparing summaries only",
                                         bench_case.name, o.samples.size(), summary.rounds));
            o.samples.clear();
        }
    }
    return o;
}

}  // namespace ptune::bench
