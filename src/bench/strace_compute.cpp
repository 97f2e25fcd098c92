// The report pypto + pypto-lib would print for the launch groups a StraceCollector gathered:
// Effective recomputed per launch, L2 and L3 layouts (bench-log.md §2.3, §4).

#include "strace.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"

namespace ptune::bench {

namespace {

constexpr std::string_view kNoDeviceSpans =
    "no device-domain spans (sim platform or non-profiling build)";
constexpr std::string_view kNoOrchSched = "no orch/sched spans captured";
constexpr std::string_view kNoMarkersNote =
    "benchmark unavailable: no [STRACE] markers captured (runtime built without SIMPLER_PROFILING)";

double strace_fmean(std::span<const double> values) {
    return stats::mean(values).value_or(0.0);
}

bool all_zero(std::span<const double> values) {
    return std::all_of(values.begin(), values.end(), [](double v) { return v == 0.0; });
}

/// Fills the headline of `block` from per-round device and Effective series as pypto-lib's
/// `_report_effective` decides between a number and an `unavailable` reason.
void set_headline(BenchBlock& block, bool all_zero_device, std::span<const double> effective) {
    if (all_zero_device) {
        block.unavailable = std::string(kNoDeviceSpans);
        return;
    }
    block.effective_us = summarize_positive(effective);
    if (!block.effective_us) block.unavailable = std::string(kNoOrchSched);
}

}  // namespace

std::optional<BenchBlock> StraceCollector::compute(const StraceOptions& options,
                                                   const HarnessLoopHints& hints) {
    if (torn_records_ > 0) {
        diagnostics_.warn(
            source_, 0,
            fmt::format("{} of {} [STRACE] records were torn or malformed and dropped",
                        torn_records_, record_heads_));
    }
    if (saw_sentinel_) {
        if (in_timing_) reject_capture(timing_begin_line_, "the last timing pass never ended");
        if (!saw_timing_begin_) reject_capture(first_line_, "sentinels without any timing pass");
    }
    std::vector<const Group*> groups = usable_groups();
    leave_out_cut_invocations(groups);
    LoopFacts facts = settle_loop(options, hints, groups);
    Loop loop{facts.warmup.value,   facts.rounds.value, facts.distributed.value,
              facts.resident.value, options.kernel,     options.raw};
    auto with_facts = [&](BenchBlock block) {
        diagnostics_.note(source_, 0, "[STRACE] loop: " + facts.describe());
        block.loop_facts = std::move(facts);
        return block;
    };
    if (rejected_ || (saw_sentinel_ && timing_regions_ != loop.warmup + loop.rounds)) {
        if (!rejected_) {
            diagnostics_.warn(
                source_, timing_begin_line_,
                fmt::format("{} timing passes but warmup + rounds = {}: the launches cannot "
                            "be aligned, no samples are reported",
                            timing_regions_, loop.warmup + loop.rounds));
        }
        BenchBlock block;
        block.origin = Origin::Strace;
        block.source = first_ref();
        block.declared_rounds = loop.rounds;
        block.declared_warmup = loop.warmup;
        block.notes.emplace_back(kNoMarkersNote);
        return with_facts(std::move(block));
    }
    if (groups.empty()) {
        diagnostics_.warn(first_ref().file, first_line_,
                          "[STRACE] markers hold no launch (only setup or scheduler spans)");
        return std::nullopt;
    }
    if (loop.distributed) {
        Launches launches = l3_launches(groups);
        if (launches.empty()) return with_facts(no_l3_launch(groups, loop));
        return with_facts(compute_l3(launches, loop));
    }
    if (hids_all_distinct(groups)) {
        std::string message =
            "every complete launch has a hid of its own: the hid names no callable here, so "
            "every launch is taken in inv order (upstream buckets launches by hid)";
        diagnostics_.note(first_ref().file, first_line_, message);
        capture_notes_.push_back(std::move(message));
    }
    std::vector<const Group*> bucket = l2_bucket(groups);
    std::vector<const Group*>().swap(groups);  // the bucket is all compute_l2 needs
    BenchBlock block = compute_l2(std::move(bucket), loop);
    if (loop.raw && block.effective_us && block.effective_us->rounds != loop.rounds) {
        // Upstream's L2 takes every launch after the warmup as a sample (bench-log.md §4) but
        // its raw header repeats the declared rounds: the two lines disagree, as upstream's
        // would. Say so rather than print the contradiction silently.
        diagnostics_.warn(
            block.source.file, block.source.line,
            fmt::format("rounds {} ({}) but the launches after the warmup {} give {} samples: "
                        "as upstream, the headline says effective_us ({} rounds) while the raw "
                        "header prints the declared rounds={}",
                        loop.rounds, to_string(facts.rounds.source), loop.warmup,
                        block.effective_us->rounds, block.effective_us->rounds, loop.rounds));
    }
    return with_facts(std::move(block));
}

void StraceCollector::leave_out_cut_invocations(std::vector<const Group*>& groups) {
    std::vector<const Group*> cut = cut_invocations(groups);
    if (cut.empty()) return;
    std::vector<std::string> names;
    for (const Group* group : cut)
        names.push_back(fmt::format("pid {} inv {}", group->pid, group->inv));
    std::string message = fmt::format(
        "the log ends inside {} invocation(s) ({}): no root span was written for "
        "them, so they are left out",
        cut.size(), fmt::join(names, ", "));
    diagnostics_.warn(where(cut.front()).file, cut.front()->line, message);
    capture_notes_.push_back(std::move(message));
    std::erase_if(groups, [&](const Group* group) {
        return std::find(cut.begin(), cut.end(), group) != cut.end();
    });
}

BenchBlock StraceCollector::no_l3_launch(const std::vector<const Group*>& groups,
                                         const Loop& options) const {
    BenchBlock block;
    block.origin = Origin::Strace;
    block.declared_rounds = options.rounds;
    block.declared_warmup = options.warmup;
    block.source = first_ref();
    // Ranks: the chip processes the console announced, else the pids with chip.run spans.
    std::map<std::uint64_t, SourceRef> ranks;
    for (const auto& [pid, dev] : chip_processes_) ranks[pid] = first_ref();
    if (ranks.empty()) {
        for (const Group* group : groups) ranks.try_emplace(group->pid, where(group));
    }
    std::size_t started = 0;
    for (const Group* group : groups) {
        if (ranks.count(group->pid) != 0) ++started;
    }
    for (const auto& [pid, source] : ranks) {
        Rank& rank = block.ranks.emplace_back();
        rank.rank = pid;
        rank.source = source;
    }
    block.unavailable = fmt::format(
        "no launch completed in the log ({} chip worker(s), {} launch(es) begun, no chip.run "
        "root with device_wall)",
        ranks.size(), started);
    return block;
}

BenchBlock StraceCollector::compute_l2(std::vector<const Group*> bucket,
                                       const Loop& options) const {
    std::size_t skip = std::min(options.warmup, bucket.size());
    // A view, not a copy: every launch is held once already.
    std::span<const Group* const> measured(bucket.data() + skip, bucket.size() - skip);

    BenchBlock block;
    block.origin = Origin::Strace;
    block.source = measured.empty() ? first_ref() : where(measured.front());
    block.declared_rounds = options.rounds;
    block.declared_warmup = options.warmup;
    bool all_zero_device = true;
    std::vector<double> effective;
    effective.reserve(measured.size());
    for (const Group* group : measured) {
        all_zero_device = all_zero_device && group->device_us() == 0.0;
        effective.push_back(group->effective_us());
    }
    set_headline(block, all_zero_device, effective);
    if (options.raw) {
        RawSamples& raw = block.raw.emplace();
        raw.rounds = options.rounds;
        raw.warmup = options.warmup;
        std::vector<const Group*> by_pid(measured.begin(), measured.end());
        std::sort(by_pid.begin(), by_pid.end(), [](const Group* a, const Group* b) {
            return std::tie(a->pid, a->inv) < std::tie(b->pid, b->inv);
        });
        for (const Group* group : by_pid) raw.per_rank[group->pid].push_back(group->effective_us());
        raw.ranks = raw.per_rank.size();
    }
    return block;
}

void StraceCollector::pool_l3(const Launches& by_pid, const Loop& options, BenchBlock& block,
                              std::optional<RawSamples>& raw) const {
    Context& context = *block.context;
    // Non-deterministic dispatch shape: pool every launch after each pid's warmup.
    std::vector<double> device, effective, host;
    for (const auto& [pid, launches] : by_pid) {
        std::size_t skip = std::min(options.warmup, launches.size());
        for (std::size_t i = skip; i < launches.size(); ++i) {
            device.push_back(launches[i]->device_us());
            effective.push_back(launches[i]->effective_us());
            host.push_back(launches[i]->host_us());
            if (raw) raw->per_rank[pid].push_back(launches[i]->effective_us());
        }
        if (block.source.line == first_line_ && block.source.file == first_ref().file &&
            !launches.empty())
            block.source = where(launches.front());
    }
    set_headline(block, all_zero(device), effective);
    context.ranks = 0;
    context.host_mean_us = strace_fmean(host);
    context.fallback_flattened = true;
    block.raw = std::move(raw);
    context.source = block.source;
}

BenchBlock StraceCollector::compute_l3(const Launches& by_pid, const Loop& options) const {
    BenchBlock block;
    block.origin = Origin::Strace;
    block.declared_rounds = options.rounds;
    block.declared_warmup = options.warmup;
    block.source = first_ref();
    Context& context = block.context.emplace();
    context.kernel = options.kernel;
    context.resident = options.resident;
    context.rounds = options.rounds;

    const std::size_t loop = options.warmup + options.rounds;
    bool fallback = by_pid.empty();
    for (const auto& [pid, launches] : by_pid) {
        if (loop == 0 || launches.size() % loop != 0) fallback = true;
    }

    std::optional<RawSamples> raw;
    if (options.raw) {
        raw.emplace();
        raw->ranks = by_pid.size();
        raw->rounds = options.rounds;
        raw->warmup = options.warmup;
        raw->fallback_flattened = fallback;
    }

    if (fallback) {
        pool_l3(by_pid, options, block, raw);
        return block;
    }

    const std::size_t rounds = options.rounds;
    std::vector<double> headline(rounds, 0.0), device(rounds, 0.0), host(rounds, 0.0),
        union_us(rounds, 0.0);
    std::vector<std::int64_t> union_begin(rounds, std::numeric_limits<std::int64_t>::max());
    std::vector<std::int64_t> union_end(rounds, std::numeric_limits<std::int64_t>::min());
    bool multi_dispatch = false;
    bool unstable_slots = false;
    for (const auto& [pid, launches] : by_pid) {
        std::size_t per_round = launches.size() / loop;
        multi_dispatch = multi_dispatch || per_round > 1;
        std::size_t first = options.warmup * per_round;
        Rank& rank = block.ranks.emplace_back();
        rank.rank = pid;
        rank.source = where(launches[first]);
        std::vector<double> rank_effective(rounds);
        std::vector<std::vector<double>> slot_effective(per_round, std::vector<double>(rounds));
        for (std::size_t k = 0; k < rounds; ++k) {
            std::vector<double> eff, dev, hst;
            for (std::size_t s = 0; s < per_round; ++s) {
                const Group* launch = launches[first + k * per_round + s];
                eff.push_back(launch->effective_us());
                dev.push_back(launch->device_us());
                hst.push_back(launch->host_us());
                slot_effective[s][k] = launch->effective_us();
                if (launch->hid != launches[first + s]->hid) unstable_slots = true;
                union_begin[k] = std::min(union_begin[k], launch->root_ts);
                union_end[k] = std::max(union_end[k], launch->root_ts + launch->root_dur);
                if (raw) raw->per_rank[pid].push_back(launch->effective_us());
            }
            rank_effective[k] = stats::fsum(eff);
            headline[k] = std::max(headline[k], rank_effective[k]);
            device[k] = std::max(device[k], stats::fsum(dev));
            host[k] = std::max(host[k], stats::fsum(hst));
        }
        rank.eff_us = summarize_positive(rank_effective);
        for (std::size_t s = 0; s < per_round; ++s) {
            Slot& slot = rank.slots.emplace_back();
            slot.slot = s;
            slot.name = hid_names_[launches[first + s]->hid];
            slot.eff_us = summarize_positive(slot_effective[s]);
        }
    }
    // Slot lines appear only when some rank dispatches more than once per round, and never
    // when a slot saw different callables across rounds (`unstable_dispatch_slots`).
    if (!multi_dispatch || unstable_slots) {
        for (Rank& rank : block.ranks) rank.slots.clear();
    }
    for (std::size_t k = 0; k < rounds; ++k) {
        if (union_end[k] >= union_begin[k])
            union_us[k] = static_cast<double>(union_end[k] - union_begin[k]) / 1000.0;
    }
    block.source = block.ranks.front().source;
    set_headline(block, all_zero(device), headline);
    context.ranks = by_pid.size();
    context.host_union_mean_us = strace_fmean(union_us);
    context.host_mean_us = strace_fmean(host);
    block.raw = std::move(raw);
    context.source = block.source;
    return block;
}

}  // namespace ptune::bench