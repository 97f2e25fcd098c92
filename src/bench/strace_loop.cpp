// How long the benchmark loop was and in which mode it ran (L2/L3, resident), read from the
// launch groups a StraceCollector gathered, the harness lines and the flags (bench-log.md
// §1.13.5, §1.13.6, §2.3).

#include "strace.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include <fmt/format.h>

namespace ptune::bench {

namespace {

constexpr const char* kLoopNotPrinted = "pypto-lib's; the log does not print it";
/// True when every count is a positive multiple of `loop` (L3 chunks rounds this way, §2.3).
bool divides_all(std::size_t loop, const std::vector<std::size_t>& counts) {
    return loop > 0 && !counts.empty() &&
           std::all_of(counts.begin(), counts.end(),
                       [&](std::size_t count) { return count > 0 && count % loop == 0; });
}

/// The shortest period (a divisor of the length) after which `hids` repeats itself.
std::size_t hid_period(const std::vector<std::uint32_t>& hids) {
    for (std::size_t period = 1; period < hids.size(); ++period) {
        if (hids.size() % period != 0) continue;
        bool repeats = true;
        for (std::size_t i = period; i < hids.size() && repeats; ++i)
            repeats = hids[i] == hids[i - period];
        if (repeats) return period;
    }
    return hids.size();
}

}  // namespace

std::vector<const StraceCollector::Group*> StraceCollector::l2_bucket(
    const std::vector<const Group*>& groups) {
    // The hid bucket with the most launches is the benchmarked callable (§4); ties go to the
    // bucket whose first group comes first in (pid, inv) order, i.e. the first one met here.
    // When every complete launch has a hid of its own, the hid names no callable: every
    // bucket would hold one launch and the warmup would leave none, so all launches count.
    if (hids_all_distinct(groups)) {
        std::vector<const Group*> all(groups.begin(), groups.end());
        std::stable_sort(all.begin(), all.end(),
                         [](const Group* a, const Group* b) { return a->inv < b->inv; });
        return all;
    }
    std::map<std::uint32_t, std::size_t> counts;
    std::vector<std::uint32_t> first_seen;
    for (const Group* group : groups) {
        if (counts[group->hid]++ == 0) first_seen.push_back(group->hid);
    }
    std::vector<const Group*> bucket;
    if (first_seen.empty()) return bucket;
    std::uint32_t chosen = first_seen.front();
    for (std::uint32_t hid : first_seen) {
        if (counts[hid] > counts[chosen]) chosen = hid;
    }
    for (const Group* group : groups) {
        if (group->hid == chosen) bucket.push_back(group);
    }
    std::stable_sort(bucket.begin(), bucket.end(),
                     [](const Group* a, const Group* b) { return a->inv < b->inv; });
    return bucket;
}

bool StraceCollector::hids_all_distinct(const std::vector<const Group*>& groups) {
    std::vector<std::uint32_t> hids;
    for (const Group* group : groups) {
        if (group->has_root) hids.push_back(group->hid);
    }
    std::sort(hids.begin(), hids.end());
    return hids.size() >= 2 && std::adjacent_find(hids.begin(), hids.end()) == hids.end();
}

StraceCollector::Launches StraceCollector::l3_launches(const std::vector<const Group*>& groups) {
    // Launches are groups with a depth-0 root; ranks are pids with a device_wall somewhere,
    // which drops the host-orchestrator parent and setup groups (§4).
    Launches by_pid;
    std::map<std::uint64_t, bool> has_device;
    for (const Group* group : groups) {
        if (!group->has_root) continue;
        by_pid[group->pid].push_back(group);  // already in inv order
        has_device[group->pid] = has_device[group->pid] || group->has_device;
    }
    for (auto it = by_pid.begin(); it != by_pid.end();) {
        it = has_device[it->first] ? std::next(it) : by_pid.erase(it);
    }
    return by_pid;
}

void StraceCollector::detect_mode(const StraceOptions& options, const HarnessLoopHints& hints,
                                  const std::vector<const Group*>& groups, LoopFacts& facts) const {
    const Launches workers = l3_launches(groups);
    std::map<std::uint64_t, bool> launching_pids;  // pid -> has a root without device_wall only
    for (const Group* group : groups) {
        if (group->has_root && workers.count(group->pid) == 0) launching_pids[group->pid] = true;
        if (workers.count(group->pid) != 0) launching_pids[group->pid] = false;
    }
    bool parent = std::any_of(launching_pids.begin(), launching_pids.end(),
                              [](const auto& entry) { return entry.second; });

    // L2 or L3 (bench-log.md §1.13.5, §1.13.6), and the resident path, as the log shows them.
    if (saw_sentinel_) {
        facts.distributed = {true, FactSource::Log, "two-pass swimlane sentinels (L3 only)"};
    } else if (workers.size() >= 2) {
        facts.distributed = {true, FactSource::Log,
                             fmt::format("{} chip-worker pids with device_wall", workers.size())};
    } else if (chip_processes_.size() >= 2) {
        facts.distributed = {
            true, FactSource::Log,
            fmt::format("{} chip processes (`[chip_process pid=... dev=N] ready` lines)",
                        chip_processes_.size())};
    } else if (node_dispatches_ > 0) {
        facts.distributed = {
            true, FactSource::Log,
            fmt::format("{} L3 scheduler `node.dispatch` spans", node_dispatches_)};
    } else if (workers.size() == 1 && parent) {
        facts.distributed = {true, FactSource::Log,
                             "a host-orchestrator pid (chip.run without device_wall) beside the "
                             "chip worker"};
    } else if (launching_pids.size() == 1) {
        facts.distributed = {false, FactSource::Log, "every launch in one process"};
    } else {
        facts.distributed = {false, FactSource::Default, "the markers show no chip worker"};
    }
    if (saw_sentinel_) {
        facts.resident = {true, FactSource::Log, "two-pass swimlane sentinels (resident L3 path)"};
    } else if (hints.benchmark_stage) {
        facts.resident = {false, FactSource::Log,
                          "a `[RUN] benchmark ...` stage line (the resident path has none)"};
    } else {
        facts.resident = {false, FactSource::Default,
                          "the non-resident path; nothing in the log tells"};
    }
    // Flags win; one the log contradicts says what the log shows.
    auto flagged = [](LoopFact<bool>& fact, bool value, const char* yes, const char* no) {
        std::string why =
            fact.source == FactSource::Log && fact.value != value
                ? fmt::format("the log suggests {}: {}", fact.value ? yes : no, fact.why)
                : "";
        fact = {value, FactSource::Flag, std::move(why)};
    };
    bool resident_flag = options.resident.value_or(false);
    if (options.distributed || resident_flag)
        flagged(facts.distributed, options.distributed.value_or(false) || resident_flag, "L3",
                "L2");
    if (options.resident) flagged(facts.resident, *options.resident, "resident", "not resident");
}

StraceCollector::LoopLength StraceCollector::measure_loop(const std::vector<const Group*>& groups,
                                                          bool distributed) const {
    // How many launches the loop made: per rank for L3 (a multiple: several dispatches per
    // round), all of them for L2, one per timing pass with sentinels.
    LoopLength measured;
    std::vector<std::size_t>& counts = measured.counts;
    std::optional<std::size_t>& launches = measured.launches;
    std::string& launches_why = measured.why;
    if (saw_sentinel_) {
        if (!rejected_ && !in_timing_) {
            launches = timing_regions_;
            launches_why = fmt::format("{} timing passes", timing_regions_);
            counts.push_back(timing_regions_);
        }
    } else if (!distributed) {
        std::size_t bucket = l2_bucket(groups).size();
        launches = bucket;
        launches_why = fmt::format("{} launches of the benchmarked callable", bucket);
        counts.push_back(bucket);
    } else {
        // A rank's dispatches repeat the same callables every round: the period of its hid
        // sequence is its dispatches per round.
        std::optional<std::size_t> common;
        bool agree = true;
        std::vector<std::string> shapes;
        for (const auto& [pid, list] : l3_launches(groups)) {
            counts.push_back(list.size());
            std::vector<std::uint32_t> hids;
            for (const Group* group : list) hids.push_back(group->hid);
            std::size_t period = hid_period(hids);
            std::size_t loop = list.size() / period;
            // A sequence that never repeats shows no round structure at all.
            if ((common && *common != loop) || (period == list.size() && period > 1)) agree = false;
            common = loop;
            std::string shape = fmt::format("{} launches, a {}-dispatch callable pattern {} times",
                                            list.size(), period, loop);
            if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end())
                shapes.push_back(std::move(shape));
        }
        if (agree && common) {
            launches = common;
            launches_why = fmt::format("{} launches per rank in the loop ({})", *common,
                                       fmt::join(shapes, "; "));
        } else if (!shapes.empty()) {
            launches_why = fmt::format("launches per rank: {}", fmt::join(shapes, "; "));
        }
    }
    return measured;
}

LoopFacts StraceCollector::settle_loop(const StraceOptions& options, const HarnessLoopHints& hints,
                                       const std::vector<const Group*>& groups) const {
    LoopFacts facts;
    detect_mode(options, hints, groups, facts);
    const LoopLength measured = measure_loop(groups, facts.distributed.value);
    const std::vector<std::size_t>& counts = measured.counts;
    const std::optional<std::size_t>& launches = measured.launches;
    const std::string& launches_why = measured.why;
    // Whether a loop of `warmup + rounds` launches fits them; a sum beyond size_t (absurd
    // flags) fits nothing.
    auto fits = [&](std::size_t warmup_count, std::size_t rounds_count) {
        if (warmup_count > std::numeric_limits<std::size_t>::max() - rounds_count) return false;
        std::size_t loop = warmup_count + rounds_count;
        return facts.distributed.value && !saw_sentinel_ ? divides_all(loop, counts)
                                                         : launches && *launches == loop;
    };

    // Warmup and rounds: flags, then harness lines, then what the launches allow.
    auto given = [](std::optional<std::size_t> flag, std::optional<std::size_t> logged,
                    const char* knob) -> std::optional<LoopFact<std::size_t>> {
        if (flag) {
            std::string why =
                logged && *logged != *flag ? fmt::format("the log says {}", *logged) : "";
            return LoopFact<std::size_t>{*flag, FactSource::Flag, why};
        }
        if (logged) {
            return LoopFact<std::size_t>{
                *logged, FactSource::Log,
                fmt::format("`[RUN]   ignoring {}=...; using {}`", knob, *logged)};
        }
        return std::nullopt;
    };
    auto warmup = given(options.warmup, hints.warmup, "PYPTO_BENCH_WARMUP");
    auto rounds = given(options.rounds, hints.rounds, "PYPTO_BENCH_ROUNDS");
    // The loop lengths the launches allow: the count itself for L2 and timing passes, any
    // divisor of every rank's count for L3.
    std::vector<std::size_t> lengths;
    if (!facts.distributed.value || saw_sentinel_) {
        if (launches) lengths.push_back(*launches);
    } else if (!counts.empty()) {
        std::size_t divisor = 0;
        for (std::size_t count : counts) divisor = std::gcd(divisor, count);
        for (std::size_t length = 1; length <= divisor; ++length) {
            if (divisor % length == 0) lengths.push_back(length);
        }
    }
    // One fact known: the other is the rest of the loop, sound when one length alone fits.
    auto other = [&](const LoopFact<std::size_t>& known, const char* name,
                     std::size_t fallback) -> std::optional<LoopFact<std::size_t>> {
        if (fits(known.value, fallback)) return std::nullopt;  // the default fits: keep it
        std::vector<std::size_t> longer;
        for (std::size_t length : lengths) {
            if (length > known.value) longer.push_back(length);
        }
        std::string why = fmt::format("{}, minus {} {}", launches_why, name, known.value);
        if (longer.size() == 1)
            return LoopFact<std::size_t>{longer.front() - known.value, FactSource::Inferred, why};
        if (launches && std::find(longer.begin(), longer.end(), *launches) != longer.end())
            return LoopFact<std::size_t>{*launches - known.value, FactSource::Assumed, why};
        return std::nullopt;
    };
    if (warmup && !rounds) {
        rounds = other(*warmup, "warmup", kDefaultRounds);
    } else if (rounds && !warmup) {
        warmup = other(*rounds, "rounds", kDefaultWarmup);
    } else if (!warmup && !rounds && !fits(kDefaultWarmup, kDefaultRounds) && launches &&
               *launches > 0) {
        if (*launches > kDefaultWarmup) {
            warmup = LoopFact<std::size_t>{kDefaultWarmup, FactSource::Default, kLoopNotPrinted};
        } else {
            std::size_t assumed = *launches > 1 ? 1 : 0;
            warmup = LoopFact<std::size_t>{
                assumed, FactSource::Assumed,
                fmt::format("the default {} leaves no round of {}", kDefaultWarmup, launches_why)};
        }
        // Only as good as the warmup it rests on.
        rounds = LoopFact<std::size_t>{
            *launches - warmup->value, FactSource::Assumed,
            fmt::format("{}, minus the assumed warmup {}", launches_why, warmup->value)};
    }
    bool defaults_fit = fits(kDefaultWarmup, kDefaultRounds);
    const char* why_default =
        defaults_fit ? "pypto-lib's, consistent with the launches" : kLoopNotPrinted;
    facts.warmup =
        warmup.value_or(LoopFact<std::size_t>{kDefaultWarmup, FactSource::Default, why_default});
    facts.rounds =
        rounds.value_or(LoopFact<std::size_t>{kDefaultRounds, FactSource::Default, why_default});
    if (facts.warmup.source == FactSource::Flag && facts.rounds.source == FactSource::Flag &&
        !launches_why.empty() && !fits(facts.warmup.value, facts.rounds.value)) {
        facts.rounds.why += facts.rounds.why.empty() ? "" : "; ";
        facts.rounds.why += fmt::format("warmup + rounds does not fit the log's {}", launches_why);
    }
    if (facts.distributed.value && facts.resident.value && facts.warmup.value < 1) {
        // The resident L3 path forces warmup >= 1: its first launch is the validation dispatch.
        facts.warmup.value = 1;
        facts.warmup.why += facts.warmup.why.empty() ? "" : "; ";
        facts.warmup.why += "raised to 1: the resident path's first launch validates";
    }
    return facts;
}

}  // namespace ptune::bench
