// Adapter from the bench model to the gate: which number of a case is compared, and which
// samples back it.

#include "ptune/bench/gate_input.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

namespace ptune::bench::gate {

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

std::string place(const SourceRef& source) {
    return source.line > 0 ? fmt::format("{}:{}", source.file, source.line) : source.file;
}

}  // namespace

Observation observe(const BenchCase& bench_case, Diagnostics& diagnostics) {
    Observation o;
    o.source = place(bench_case.source);
    o.platform = platform_from_path(bench_case.source.file);
    const BenchBlock* block = bench_case.ci_block();
    if (!block) {
        o.unavailable =
            bench_case.notes.empty() ? "no effective_us headline" : bench_case.notes.front();
        return o;
    }
    o.source = place(block->source);
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

std::vector<CaseInput> pair_cases(const std::vector<std::vector<BenchCase>>& baseline_runs,
                                  const std::vector<BenchCase>& current, Diagnostics& diagnostics) {
    std::vector<CaseInput> inputs;
    std::map<std::string, std::size_t> index;
    const auto entry = [&](const std::string& name) -> CaseInput& {
        auto [it, inserted] = index.emplace(name, inputs.size());
        if (inserted) inputs.push_back(CaseInput{name, {}, std::nullopt});
        return inputs[it->second];
    };
    for (const auto& bench_case : current) {
        CaseInput& input = entry(bench_case.name);
        if (input.current) {
            diagnostics.warn(
                bench_case.source.file, bench_case.source.line,
                fmt::format("case '{}' appears again in the current run (first at {}); "
                            "using this one",
                            bench_case.name, input.current->source));
        }
        input.current = observe(bench_case, diagnostics);
    }
    // `--baseline base.log --current cur.log`: one case a side, each named after its own file.
    const bool one_unlabelled_each =
        current.size() == 1 && current.front().named_from_file && !baseline_runs.empty() &&
        std::all_of(baseline_runs.begin(), baseline_runs.end(),
                    [](const auto& run) { return run.size() == 1 && run.front().named_from_file; });
    for (const auto& run : baseline_runs) {
        for (const auto& bench_case : run) {
            std::string name = bench_case.name;
            if (one_unlabelled_each && name != current.front().name) {
                diagnostics.note(bench_case.source.file, 0,
                                 fmt::format("one unlabelled case a side: comparing '{}' with the "
                                             "current '{}' (label both NAME=PATH to choose)",
                                             name, current.front().name));
                name = current.front().name;
            }
            entry(name).baseline.push_back(observe(bench_case, diagnostics));
        }
    }
    return inputs;
}

}  // namespace ptune::bench::gate
