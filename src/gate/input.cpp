// Adapter from the bench model to the gate: which number of a case is compared, and which
// samples back it.

#include "ptune/gate/input.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <new>
#include <type_traits>

#include <sys/mman.h>

#include <fmt/format.h>

namespace ptune::gate {

namespace {

std::string place(const bench::SourceRef& source) {
    return source.line > 0 ? fmt::format("{}:{}", source.file, source.line) : source.file;
}

}  // namespace

namespace {

enum : std::uint8_t {
    kHasMin = 1,
    kHasMedian = 2,
    kHasMean = 4,
    kHasMax = 8,
    kHasDeclaredRounds = 16,
    kValueOnlyReport = 32,
    kReleased = 64,  // GateRun::release() was called for it
};

}  // namespace

std::uint32_t GateRun::intern(const std::string& text) {
    if (text.empty()) return 0;
    auto [it, inserted] = string_index_.emplace(text, static_cast<std::uint32_t>(strings_.size()));
    if (inserted) strings_.push_back(text);
    return it->second;
}

static_assert(std::is_trivially_destructible_v<GateRun::Digest>);
static_assert(GateRun::kChunkCases * sizeof(GateRun::Digest) % 4096 == 0, "whole pages");

std::uint32_t GateRun::narrow(std::size_t i, Wide field, std::size_t value) {
    if (value < Digest::kNone) return static_cast<std::uint32_t>(value);
    wide_[i * 4 + field] = value;
    return Digest::kNone;
}

void GateRun::Unmap::operator()(Digest* digests) const {
    munmap(digests, kChunkCases * sizeof(Digest));
}

void GateRun::release(std::size_t i) {
    const std::size_t at = position(i);
    Chunk& chunk = chunks_[at / kChunkCases];
    chunk.digests.get()[at % kChunkCases].present |= kReleased;
    ++held_released_;
    const std::size_t cases = std::min(kChunkCases, stored_ - (at - at % kChunkCases));
    if (++chunk.released == cases) {
        chunk.digests.reset();
        chunk.names = std::string();
        held_ -= cases;
        held_released_ -= cases;
        return;
    }
    // Cases released out of order leave chunks partly used: once a quarter of the cases held is
    // released, the rest moves together (each move shrinks what is held by a quarter, so all of
    // them copy at most 3 × the cases). Released in order, a quarter of 8 chunks is never
    // released while held: only the chunk being released is partly used.
    if (held_ >= 8 * kChunkCases && 4 * held_released_ >= held_) compact();
}

void GateRun::compact() {
    constexpr std::uint32_t kGone = Digest::kNone;
    std::vector<Chunk> old = std::move(chunks_);
    chunks_.clear();
    if (moved_.empty()) {
        moved_.resize(size_);
        for (std::size_t i = 0; i < size_; ++i) moved_[i] = static_cast<std::uint32_t>(i);
    }
    // Positions rise with the case index (added in order, kept in order here): each old chunk is
    // passed once, and freed as soon as it is.
    std::size_t next = 0;
    for (std::size_t i = 0; i < size_; ++i) {
        const std::uint32_t at = moved_[i];
        if (at == kGone) continue;
        Chunk& from = old[at / kChunkCases];
        moved_[i] = kGone;
        if (from.digests && !(from.digests.get()[at % kChunkCases].present & kReleased)) {
            const Digest& d = from.digests.get()[at % kChunkCases];
            if (next % kChunkCases == 0) {
                if (!chunks_.empty()) chunks_.back().names.shrink_to_fit();
                chunks_.push_back(map_chunk());
            }
            Chunk& to = chunks_.back();
            Digest& copy = *new (to.digests.get() + next % kChunkCases) Digest(d);
            copy.name_offset = static_cast<std::uint32_t>(to.names.size());
            to.names.append(from.names, d.name_offset, d.name_size);
            moved_[i] = static_cast<std::uint32_t>(next++);
        }
        if (at % kChunkCases == kChunkCases - 1 || at + 1 == stored_) {
            from.digests.reset();
            from.names = std::string();
        }
    }
    stored_ = held_ = next;
    held_released_ = 0;
}

GateRun::Chunk GateRun::map_chunk() {
    void* pages = mmap(nullptr, kChunkCases * sizeof(Digest), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) throw std::bad_alloc();
    return {std::unique_ptr<Digest, Unmap>(static_cast<Digest*>(pages)), {}, 0};
}

std::size_t GateRun::chunks_held() const {
    return static_cast<std::size_t>(
        std::count_if(chunks_.begin(), chunks_.end(),
                      [](const Chunk& chunk) { return chunk.digests != nullptr; }));
}

void GateRun::add(const bench::BenchCase& bench_case) {
    Diagnostics warnings;
    Observation o = observe(bench_case, warnings);
    if (size_ % kChunkCases == 0) {
        // The chunk before is full: its names take no more room than they need.
        if (!chunks_.empty()) chunks_.back().names.shrink_to_fit();
        chunks_.push_back(map_chunk());
    }
    Chunk& chunk = chunks_.back();
    // A name's place is 32-bit: 4 GiB of names in one chunk is more than any memory here.
    if (bench_case.name.size() > Digest::kNone - chunk.names.size()) throw std::bad_alloc();
    Digest& d = *new (chunk.digests.get() + size_ % kChunkCases) Digest;
    ++size_;
    stored_ = held_ = size_;
    d.name_offset = static_cast<std::uint32_t>(chunk.names.size());
    d.name_size = static_cast<std::uint32_t>(bench_case.name.size());
    chunk.names += bench_case.name;
    const std::size_t i = size_ - 1;
    d.case_line = narrow(i, kCaseLine, bench_case.source.line);
    d.case_file = intern(bench_case.source.file);
    // Where observe() took Observation::source from.
    const bench::BenchBlock* block = bench_case.ci_block();
    const bench::SourceRef& source = block ? block->source : bench_case.source;
    d.file = intern(source.file);
    d.line = narrow(i, kLine, source.line);
    const auto keep = [&](const std::optional<double>& value, double& slot, std::uint8_t bit) {
        if (!value) return;
        slot = *value;
        d.present |= bit;
    };
    keep(o.min, d.min, kHasMin);
    keep(o.median, d.median, kHasMedian);
    keep(o.mean, d.mean, kHasMean);
    keep(o.max, d.max, kHasMax);
    d.rounds = narrow(i, kRounds, o.rounds);
    if (o.declared_rounds) {
        d.declared_rounds = narrow(i, kDeclaredRounds, *o.declared_rounds);
        d.present |= kHasDeclaredRounds;
    }
    if (o.value_only_report) d.present |= kValueOnlyReport;
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
}

Observation GateRun::take_observation(std::size_t i) {
    const Digest& d = (*this)[i];
    Observation o;
    o.source = place({text(d.file), line(i)});
    if (d.present & kHasMin) o.min = d.min;
    if (d.present & kHasMedian) o.median = d.median;
    if (d.present & kHasMean) o.mean = d.mean;
    if (d.present & kHasMax) o.max = d.max;
    o.rounds = widen(i, kRounds, d.rounds);
    if (d.samples != Digest::kNone) o.samples = std::move(samples_[d.samples]);
    if (d.present & kHasDeclaredRounds)
        o.declared_rounds = widen(i, kDeclaredRounds, d.declared_rounds);
    o.value_only_report = (d.present & kValueOnlyReport) != 0;
    o.platform = text(d.platform);
    o.unavailable = text(d.unavailable);
    return o;
}

void GateRun::replay_warnings(std::size_t i, Diagnostics& diagnostics) const {
    const std::uint32_t index = (*this)[i].warning;
    if (index == Digest::kNone) return;
    const Diagnostic& warning = warnings_[index];
    diagnostics.add(warning.severity, warning.file, warning.line, warning.message);
}

namespace {

constexpr std::uint32_t kNoCase = GateRun::Digest::kNone;
constexpr std::uint32_t kCurrentRun = kNoCase;

// One case of the result, in pair_cases order: where its name is read and which current case
// (the last occurrence) it compares.
struct PairSlot {
    std::uint32_t run;
    std::uint32_t index;
    std::uint32_t current = kNoCase;
};

// The current run's cases by name (a few words per case instead of a map of names).
struct CurrentIndex {
    std::vector<std::uint32_t> by_name;  ///< case indices sorted by name (stable)
    std::vector<std::uint32_t> slot_of;  ///< each case's slot
};

// One slot per distinct current name, the last occurrence compared (with a warning for each
// repeat); the digests' own warnings replayed in order.
CurrentIndex current_slots(const GateRun& current, std::vector<PairSlot>& slots,
                           Diagnostics& diagnostics) {
    const auto count = static_cast<std::uint32_t>(current.size());
    CurrentIndex index;
    auto& by_name = index.by_name;
    by_name.resize(count);
    for (std::uint32_t i = 0; i < count; ++i) by_name[i] = i;
    // Stable, so the first of equal names comes first and finds every occurrence's first one.
    std::stable_sort(by_name.begin(), by_name.end(), [&](std::uint32_t a, std::uint32_t b) {
        return current.name(a) < current.name(b);
    });
    std::vector<std::uint32_t> first(count), previous(count, kNoCase);
    for (std::uint32_t k = 0; k < count; ++k) {
        const bool repeat = k > 0 && current.name(by_name[k - 1]) == current.name(by_name[k]);
        first[by_name[k]] = repeat ? first[by_name[k - 1]] : by_name[k];
        if (repeat) previous[by_name[k]] = by_name[k - 1];
    }
    index.slot_of.assign(count, kNoCase);
    for (std::uint32_t i = 0; i < count; ++i) {
        std::uint32_t slot;
        if (first[i] == i) {
            slot = static_cast<std::uint32_t>(slots.size());
            slots.push_back({kCurrentRun, i});
        } else {
            slot = index.slot_of[first[i]];
            diagnostics.warn(current.text(current[i].case_file), current.case_line(i),
                             fmt::format("case '{}' appears again in the current run (first at "
                                         "{}); using this one",
                                         current.name(i),
                                         place({current.text(current[previous[i]].file),
                                                current.line(previous[i])})));
        }
        slots[slot].current = i;
        index.slot_of[i] = slot;
        current.replay_warnings(i, diagnostics);
    }
    return index;
}

// A baseline case's place: its slot, run and index in the run.
struct PairLink {
    std::uint32_t slot, run, index;
};

// Links every baseline case to the slot of its name, adding a slot for a name the current run
// lacks; the digests' warnings replayed in order.
std::vector<PairLink> link_baseline(const std::vector<GateRun>& baseline_runs,
                                    const GateRun& current, CurrentIndex& index,
                                    std::vector<PairSlot>& slots, Diagnostics& diagnostics) {
    const auto find_current = [&](std::string_view name) -> std::uint32_t {
        auto it = std::lower_bound(
            index.by_name.begin(), index.by_name.end(), name,
            [&](std::uint32_t a, std::string_view key) { return current.name(a) < key; });
        return it != index.by_name.end() && current.name(*it) == name ? index.slot_of[*it]
                                                                      : kNoCase;
    };
    // `--baseline base.log --current cur.log`: one case a side, each named after its own file.
    const bool one_unlabelled_each =
        current.size() == 1 && current[0].named_from_file && !baseline_runs.empty() &&
        std::all_of(baseline_runs.begin(), baseline_runs.end(),
                    [](const GateRun& run) { return run.size() == 1 && run[0].named_from_file; });
    // Baseline cases whose name the current run lacks, by name (views into the runs).
    std::unordered_map<std::string_view, std::uint32_t> baseline_only;
    std::vector<PairLink> links;
    for (std::uint32_t r = 0; r < baseline_runs.size(); ++r) {
        const GateRun& run = baseline_runs[r];
        for (std::uint32_t i = 0; i < run.size(); ++i) {
            std::string_view name = run.name(i);
            if (one_unlabelled_each && name != current.name(0)) {
                diagnostics.note(run.text(run[i].case_file), 0,
                                 fmt::format("one unlabelled case a side: comparing '{}' with the "
                                             "current '{}' (label both NAME=PATH to choose)",
                                             name, current.name(0)));
                name = current.name(0);
            }
            std::uint32_t slot = find_current(name);
            if (slot == kNoCase) {
                auto [it, inserted] =
                    baseline_only.emplace(name, static_cast<std::uint32_t>(slots.size()));
                if (inserted) slots.push_back({r, i});
                slot = it->second;
            }
            links.push_back({slot, r, i});
            run.replay_warnings(i, diagnostics);
        }
    }
    return links;
}

}  // namespace

void for_each_pair(std::vector<GateRun>& baseline_runs, GateRun& current, Diagnostics& diagnostics,
                   const std::function<void(CaseInput&&)>& visit,
                   const std::function<void(std::size_t)>& on_count) {
    std::vector<PairSlot> slots;
    std::vector<PairLink> links;
    {
        CurrentIndex index = current_slots(current, slots, diagnostics);
        links = link_baseline(baseline_runs, current, index, slots, diagnostics);
    }
    // The links in slot order, run order kept within a slot (a counting sort).
    std::vector<std::uint32_t> begin(slots.size() + 1, 0);
    for (const PairLink& link : links) ++begin[link.slot + 1];
    for (std::size_t s = 0; s < slots.size(); ++s) begin[s + 1] += begin[s];
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ordered(links.size());
    {
        std::vector<std::uint32_t> next(begin.begin(), begin.end() - 1);
        for (const PairLink& link : links) ordered[next[link.slot]++] = {link.run, link.index};
    }
    std::vector<PairLink>().swap(links);  // its memory given back (`= {}` would keep it)
    if (on_count) on_count(slots.size());
    for (std::size_t s = 0; s < slots.size(); ++s) {
        const PairSlot& slot = slots[s];
        CaseInput input;
        // Each slot names a different digest, and no name is looked up any more.
        input.name = slot.run == kCurrentRun ? current.take_name(slot.index)
                                             : baseline_runs[slot.run].take_name(slot.index);
        for (std::uint32_t k = begin[s]; k < begin[s + 1]; ++k)
            input.baseline.push_back(
                baseline_runs[ordered[k].first].take_observation(ordered[k].second));
        if (slot.current != kNoCase) input.current = current.take_observation(slot.current);
        // Every digest read for this slot is done with (a current name's earlier occurrences
        // between its first and last stay until the run is freed).
        for (std::uint32_t k = begin[s]; k < begin[s + 1]; ++k)
            baseline_runs[ordered[k].first].release(ordered[k].second);
        if (slot.run == kCurrentRun && slot.index != slot.current) current.release(slot.index);
        if (slot.current != kNoCase) current.release(slot.current);
        visit(std::move(input));
    }
}

std::vector<CaseInput> pair_cases(const std::vector<std::vector<bench::BenchCase>>& baseline_runs,
                                  const std::vector<bench::BenchCase>& current,
                                  Diagnostics& diagnostics) {
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

}  // namespace ptune::gate
