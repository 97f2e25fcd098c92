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

namespace {

enum : std::uint8_t {
    kHasMin = 1,
    kHasMedian = 2,
    kHasMean = 4,
    kHasMax = 8,
    kHasDeclaredRounds = 16,
};

}  // namespace

std::uint32_t GateRun::intern(const std::string& text) {
    if (text.empty()) return 0;
    auto [it, inserted] = string_index_.emplace(text, static_cast<std::uint32_t>(strings_.size()));
    if (inserted) strings_.push_back(text);
    return it->second;
}

void GateRun::add(const BenchCase& bench_case) {
    Diagnostics warnings;
    Observation o = observe(bench_case, warnings);
    Digest d;
    d.name = bench_case.name;
    d.case_line = bench_case.source.line;
    d.case_file = intern(bench_case.source.file);
    // Where observe() took Observation::source from.
    const BenchBlock* block = bench_case.ci_block();
    const SourceRef& source = block ? block->source : bench_case.source;
    d.file = intern(source.file);
    d.line = source.line;
    const auto keep = [&](const std::optional<double>& value, double& slot, std::uint8_t bit) {
        if (!value) return;
        slot = *value;
        d.present |= bit;
    };
    keep(o.min, d.min, kHasMin);
    keep(o.median, d.median, kHasMedian);
    keep(o.mean, d.mean, kHasMean);
    keep(o.max, d.max, kHasMax);
    d.rounds = o.rounds;
    if (o.declared_rounds) {
        d.declared_rounds = *o.declared_rounds;
        d.present |= kHasDeclaredRounds;
    }
    d.platform = intern(o.platform);
    d.unavailable = intern(o.unavailable);
    if (!o.samples.empty()) {
        d.samples = static_cast<std::uint32_t>(samples_.size());
        samples_.push_back(std::move(o.samples));
    }
    // observe() warns at most once (raw samples that disagree with the headline).
    if (!warnings.items().empty()) {
        d.warning = static_cast<std::uint32_t>(warnings_.size());
        warnings_.push_back(warnings.items().front());
    }
    d.named_from_file = bench_case.named_from_file;
    cases_.push_back(std::move(d));
}

Observation GateRun::take_observation(std::size_t i) {
    const Digest& d = cases_[i];
    Observation o;
    o.source = place({text(d.file), d.line});
    if (d.present & kHasMin) o.min = d.min;
    if (d.present & kHasMedian) o.median = d.median;
    if (d.present & kHasMean) o.mean = d.mean;
    if (d.present & kHasMax) o.max = d.max;
    o.rounds = d.rounds;
    if (d.samples != Digest::kNone) o.samples = std::move(samples_[d.samples]);
    if (d.present & kHasDeclaredRounds) o.declared_rounds = d.declared_rounds;
    o.platform = text(d.platform);
    o.unavailable = text(d.unavailable);
    return o;
}

void GateRun::replay_warnings(std::size_t i, Diagnostics& diagnostics) const {
    if (cases_[i].warning == Digest::kNone) return;
    const Diagnostic& warning = warnings_[cases_[i].warning];
    diagnostics.add(warning.severity, warning.file, warning.line, warning.message);
}

void for_each_pair(std::vector<GateRun>& baseline_runs, GateRun& current, Diagnostics& diagnostics,
                   const std::function<void(CaseInput&&)>& visit,
                   const std::function<void(std::size_t)>& on_count) {
    constexpr std::uint32_t kNone = GateRun::Digest::kNone;
    constexpr std::uint32_t kCurrentRun = kNone;
    const auto count = static_cast<std::uint32_t>(current.size());
    // A few words per case instead of a map of names: the current cases sorted by name (stable,
    // so the first of equal names comes first) find every occurrence's first one.
    std::vector<std::uint32_t> by_name(count);
    for (std::uint32_t i = 0; i < count; ++i) by_name[i] = i;
    std::stable_sort(by_name.begin(), by_name.end(), [&](std::uint32_t a, std::uint32_t b) {
        return current[a].name < current[b].name;
    });
    std::vector<std::uint32_t> first(count), previous(count, kNone);
    for (std::uint32_t k = 0; k < count; ++k) {
        const bool repeat = k > 0 && current[by_name[k - 1]].name == current[by_name[k]].name;
        first[by_name[k]] = repeat ? first[by_name[k - 1]] : by_name[k];
        if (repeat) previous[by_name[k]] = by_name[k - 1];
    }
    // One slot per case of the result, in pair_cases order: where its name is read and which
    // current case (the last occurrence) it compares.
    struct Slot {
        std::uint32_t run;
        std::uint32_t index;
        std::uint32_t current = kNone;
    };
    std::vector<Slot> slots;
    std::vector<std::uint32_t>& slot_of = previous;  // reused once a case's warning is given
    for (std::uint32_t i = 0; i < count; ++i) {
        std::uint32_t slot;
        if (first[i] == i) {
            slot = static_cast<std::uint32_t>(slots.size());
            slots.push_back({kCurrentRun, i});
        } else {
            slot = slot_of[first[i]];
            diagnostics.warn(current.text(current[i].case_file), current[i].case_line,
                             fmt::format("case '{}' appears again in the current run (first at "
                                         "{}); using this one",
                                         current[i].name,
                                         place({current.text(current[previous[i]].file),
                                                current[previous[i]].line})));
        }
        slots[slot].current = i;
        slot_of[i] = slot;
        current.replay_warnings(i, diagnostics);
    }
    first.clear();
    first.shrink_to_fit();
    const auto find_current = [&](const std::string& name) -> std::uint32_t {
        auto it = std::lower_bound(
            by_name.begin(), by_name.end(), name,
            [&](std::uint32_t a, const std::string& key) { return current[a].name < key; });
        return it != by_name.end() && current[*it].name == name ? slot_of[*it] : kNone;
    };
    // `--baseline base.log --current cur.log`: one case a side, each named after its own file.
    const bool one_unlabelled_each =
        count == 1 && current[0].named_from_file && !baseline_runs.empty() &&
        std::all_of(baseline_runs.begin(), baseline_runs.end(),
                    [](const GateRun& run) { return run.size() == 1 && run[0].named_from_file; });
    // Baseline cases whose name the current run lacks, by name (views into the runs).
    std::unordered_map<std::string_view, std::uint32_t> baseline_only;
    struct Link {
        std::uint32_t slot, run, index;
    };
    std::vector<Link> links;
    for (std::uint32_t r = 0; r < baseline_runs.size(); ++r) {
        const GateRun& run = baseline_runs[r];
        for (std::uint32_t i = 0; i < run.size(); ++i) {
            const std::string* name = &run[i].name;
            if (one_unlabelled_each && *name != current[0].name) {
                diagnostics.note(run.text(run[i].case_file), 0,
                                 fmt::format("one unlabelled case a side: comparing '{}' with the "
                                             "current '{}' (label both NAME=PATH to choose)",
                                             *name, current[0].name));
                name = &current[0].name;
            }
            std::uint32_t slot = find_current(*name);
            if (slot == kNone) {
                auto [it, inserted] =
                    baseline_only.emplace(*name, static_cast<std::uint32_t>(slots.size()));
                if (inserted) slots.push_back({r, i});
                slot = it->second;
            }
            links.push_back({slot, r, i});
            run.replay_warnings(i, diagnostics);
        }
    }
    by_name = {};
    slot_of = {};
    baseline_only = {};
    // The links in slot order, run order kept within a slot (a counting sort).
    std::vector<std::uint32_t> begin(slots.size() + 1, 0);
    for (const Link& link : links) ++begin[link.slot + 1];
    for (std::size_t s = 0; s < slots.size(); ++s) begin[s + 1] += begin[s];
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ordered(links.size());
    {
        std::vector<std::uint32_t> next(begin.begin(), begin.end() - 1);
        for (const Link& link : links) ordered[next[link.slot]++] = {link.run, link.index};
    }
    links = {};
    if (on_count) on_count(slots.size());
    for (std::size_t s = 0; s < slots.size(); ++s) {
        const Slot& slot = slots[s];
        CaseInput input;
        // Each slot names a different digest, and no name is looked up any more.
        input.name = slot.run == kCurrentRun ? current.take_name(slot.index)
                                             : baseline_runs[slot.run].take_name(slot.index);
        for (std::uint32_t k = begin[s]; k < begin[s + 1]; ++k)
            input.baseline.push_back(
                baseline_runs[ordered[k].first].take_observation(ordered[k].second));
        if (slot.current != kNone) input.current = current.take_observation(slot.current);
        visit(std::move(input));
    }
}

std::vector<CaseInput> pair_cases(const std::vector<std::vector<BenchCase>>& baseline_runs,
                                  const std::vector<BenchCase>& current, Diagnostics& diagnostics) {
    std::vector<GateRun> runs(baseline_runs.size());
    for (std::size_t r = 0; r < baseline_runs.size(); ++r) {
        for (const auto& bench_case : baseline_runs[r]) runs[r].add(bench_case);
    }
    GateRun current_run;
    for (const auto& bench_case : current) current_run.add(bench_case);
    std::vector<CaseInput> inputs;
    for_each_pair(runs, current_run, diagnostics,
                  [&](CaseInput&& input) { inputs.push_back(std::move(input)); });
    return inputs;
}

}  // namespace ptune::bench::gate
