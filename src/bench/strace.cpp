// [STRACE] record parsing and the recomputation of Effective exactly as pypto's bench.py and
// pypto-lib's golden/runner.py do it (bench-log.md §1.13, §2.3, §4).

#include "strace.hpp"
#include "text_util.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"

namespace ptune::bench {

namespace {

constexpr std::string_view kStraceTag = "[STRACE]";
constexpr std::string_view kSentinelTag = "[pypto] l3_swimlane_pass=";
constexpr std::string_view kNoDeviceSpans =
    "no device-domain spans (sim platform or non-profiling build)";
constexpr std::string_view kNoOrchSched = "no orch/sched spans captured";
constexpr const char* kNotPrinted = "pypto-lib's; the log does not print it";
constexpr std::string_view kNoMarkersNote =
    "benchmark unavailable: no [STRACE] markers captured (runtime built without SIMPLER_PROFILING)";

bool is_space(char c) {
    return c == ' ' || c == '\t';
}
bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/// Consumes `\s+key=`; false (and nothing consumed) if the key differs.
inline bool take_key(std::string_view& text, std::string_view key) {
    std::size_t at = 0;
    while (at < text.size() && is_space(text[at])) ++at;
    if (at == 0 || text.size() <= at + key.size() || text[at + key.size()] != '=') return false;
    for (std::size_t i = 0; i < key.size(); ++i) {
        if (text[at + i] != key[i]) return false;
    }
    text.remove_prefix(at + key.size() + 1);
    return true;
}

/// Consumes `\s+key=` then the longest (non-empty) run of characters accepted by `accept`
/// into `value`; false if there is none. Plain bool results: this runs ten times per record.
template <class Accept>
bool take(std::string_view& text, std::string_view key, Accept accept, std::string_view& value) {
    if (!take_key(text, key)) return false;
    std::size_t end = 0;
    while (end < text.size() && accept(text[end])) ++end;
    if (end == 0) return false;
    value = text.substr(0, end);
    text.remove_prefix(end);
    return true;
}

/// Consumes `\s+key=` then the (non-empty) text up to the next blank into `value`.
bool take_token(std::string_view& text, std::string_view key, std::string_view& value) {
    if (!take_key(text, key)) return false;
    // Two memchr passes beat a byte loop on span names of 20-50 characters.
    std::size_t end = std::min(text.find(' '), text.size());
    end = std::min(end, text.substr(0, end).find('\t'));
    if (end == 0) return false;
    value = text.substr(0, end);
    text.remove_prefix(end);
    return true;
}

/// Reads the run of decimal digits at the start of `text` into `value`, 8 digits per step
/// (SWAR: timestamps have 12+ digits and a byte loop mispredicts at every number's end).
/// Returns the number of digits, or 0 when there are none or the value overflows 64 bits.
std::size_t read_decimal(std::string_view text, std::uint64_t& value) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ull;
    std::uint64_t number = 0;
    std::size_t at = 0;
    while (std::endian::native == std::endian::little && text.size() - at >= 8) {
        std::uint64_t word;
        std::memcpy(&word, text.data() + at, 8);
        // A byte is a digit when its high nibble is 3 and adding 6 keeps it there.
        std::uint64_t not_digit = ((word & (0xF0 * kOnes)) ^ (0x30 * kOnes)) |
                                  (((word + 0x06 * kOnes) & (0xF0 * kOnes)) ^ (0x30 * kOnes));
        std::size_t digits =
            not_digit == 0 ? 8 : static_cast<std::size_t>(std::countr_zero(not_digit)) / 8;
        if (digits == 0) break;
        if (at + digits > 19) break;  // may not fit: the careful loop below takes over
        // Keep the digits, aligned to the high end, then fold pairs, quads and octets.
        word = (word - 0x30 * kOnes) << (8 * (8 - digits));
        word = (word * 10 + (word >> 8)) & 0x00FF00FF00FF00FFull;
        word = (word * 100 + (word >> 16)) & 0x0000FFFF0000FFFFull;
        word = (word * 10000 + (word >> 32)) & 0xFFFFFFFFull;
        static constexpr std::uint64_t kPowers[] = {1,      10,      100,      1000,     10000,
                                                    100000, 1000000, 10000000, 100000000};
        number = number * kPowers[digits] + word;
        at += digits;
        if (digits < 8) {
            value = number;
            return at;
        }
    }
    for (; at < text.size() && is_digit(text[at]); ++at) {
        auto digit = static_cast<std::uint64_t>(text[at] - '0');
        if (number > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return 0;
        number = number * 10 + digit;
    }
    value = number;
    return at;
}

/// Consumes `\s+key=` then a run of decimal digits into `value`; false when the digits are
/// missing or the value exceeds `limit`.
bool take_number(std::string_view& text, std::string_view key, std::uint64_t limit,
                 std::uint64_t& value) {
    if (!take_key(text, key)) return false;
    std::uint64_t number = 0;
    std::size_t digits = read_decimal(text, number);
    if (digits == 0 || number > limit) return false;
    text.remove_prefix(digits);
    value = number;
    return true;
}

/// The kind of span a name is, across the three root-name eras (bench-log.md §1.13.4).
enum class SpanKind { Other, Root, DeviceWall, Orch, Sched, NotAnInvocation };

SpanKind classify(std::string_view name) {
    // Scheduler families, external producers and setup groups are not launches (§1.13.4).
    // Dispatch on the first byte: this runs for every record of a capture.
    std::string_view root;
    switch (name.empty() ? '\0' : name.front()) {
        case 'l':
            if (name.starts_with("l3.")) return SpanKind::NotAnInvocation;
            break;
        case 'h':
            if (name.starts_with("host.")) return SpanKind::NotAnInvocation;
            break;
        case 'n':
            if (name.starts_with("node.") || name.starts_with("network1.") ||
                name.starts_with("network2.") || name.starts_with("network3.")) {
                return SpanKind::NotAnInvocation;
            }
            break;
        case 'e':
            if (name.starts_with("ext.")) return SpanKind::NotAnInvocation;
            break;
        case 'c':
            if (name.starts_with("chip.prewarm")) return SpanKind::NotAnInvocation;
            if (name.starts_with("chip.run")) root = "chip.run";
            break;
        case 's':
            if (name.starts_with("simpler_prewarm")) return SpanKind::NotAnInvocation;
            if (name.starts_with("simpler_run")) root = "simpler_run";
            break;
        case 'r':
            if (name.starts_with("run_prepared")) root = "run_prepared";
            break;
        default:
            break;
    }
    if (root.empty()) return SpanKind::Other;
    std::string_view rest = name.substr(root.size());
    if (rest.empty()) return SpanKind::Root;
    if (rest == ".runner_run.device_wall") return SpanKind::DeviceWall;
    if (rest == ".runner_run.device_wall.orch") return SpanKind::Orch;
    if (rest == ".runner_run.device_wall.sched") return SpanKind::Sched;
    return SpanKind::Other;
}

std::string lowercase(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

double fmean(std::span<const double> values) {
    return stats::mean(values).value_or(0.0);
}

}  // namespace

std::optional<StraceRecord> parse_strace_record(std::string_view text) {
    // ts + dur must stay representable: windows are computed in integer nanoseconds.
    constexpr auto kAny = std::numeric_limits<std::uint64_t>::max();
    constexpr auto kI64 = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    StraceRecord record;
    std::string_view version;
    std::uint64_t ts = 0, dur = 0;
    bool ok = take(text, "v", is_digit, version) && take_number(text, "pid", kAny, record.pid) &&
              take_number(text, "tid", kAny, record.tid) &&
              take_number(text, "inv", kAny, record.inv) && take(text, "hid", is_hex, record.hid) &&
              take_number(text, "depth", kAny, record.depth) &&
              take_token(text, "name", record.name) && take_number(text, "ts", kI64, ts) &&
              take_number(text, "dur", kI64 - ts, dur);
    if (!ok) return std::nullopt;
    record.ts = static_cast<std::int64_t>(ts);
    record.dur = static_cast<std::int64_t>(dur);
    return record;
}

std::optional<Summary> summarize_positive(std::span<const double> values) {
    std::vector<double> positive;
    positive.reserve(values.size());
    for (double value : values) {
        if (value > 0.0) positive.push_back(value);
    }
    if (positive.empty()) return std::nullopt;
    Summary summary;
    summary.rounds = positive.size();
    auto [lo, hi] = std::minmax_element(positive.begin(), positive.end());
    summary.min = *lo;
    summary.max = *hi;
    summary.mean = *stats::mean(positive);
    summary.median = *stats::median(std::move(positive));
    return summary;
}

double StraceCollector::Group::effective_us() const {
    // A bounding window over whichever of orch/sched exist, in integer ns, one division (§4).
    if (has_orch && has_sched) {
        std::int64_t begin = std::min(orch_ts, sched_ts);
        std::int64_t end = std::max(orch_ts + orch_dur, sched_ts + sched_dur);
        return static_cast<double>(end - begin) / 1000.0;
    }
    if (has_orch) return static_cast<double>(orch_dur) / 1000.0;
    if (has_sched) return static_cast<double>(sched_dur) / 1000.0;
    return 0.0;
}

void StraceCollector::feed(std::string_view line, std::size_t line_number) {
    // Events are `[STRACE]` records and sentinels; each runs to the next event. The caller
    // hands the line from its first event on, so the search starts there.
    auto next_event = [&](std::size_t from) {
        for (std::size_t at = line.find('[', from); at != std::string_view::npos;
             at = line.find('[', at + 1)) {
            std::string_view rest = line.substr(at);
            if (rest.starts_with(kStraceTag) || rest.starts_with(kSentinelTag)) return at;
        }
        return std::string_view::npos;
    };
    auto piece_between = [&](std::size_t after, std::size_t next) {
        return line.substr(after,
                           next == std::string_view::npos ? std::string_view::npos : next - after);
    };
    std::size_t at = next_event(0);
    while (at != std::string_view::npos) {
        if (line.substr(at).starts_with(kSentinelTag)) {
            std::size_t after = at + kSentinelTag.size();
            std::size_t next = next_event(after);
            on_sentinel(piece_between(after, next), line_number);
            at = next;
            continue;
        }
        std::size_t after = at + kStraceTag.size();
        std::size_t next = next_event(after);
        std::string_view piece = piece_between(after, next);
        // A record head is `[STRACE]\s+v=\d+` (simpler's count_record_heads).
        std::string_view head = text::trim_left(piece);
        if (head.size() < piece.size() && head.size() > 2 && head.substr(0, 2) == "v=" &&
            is_digit(head[2])) {
            ++record_heads_;
            if (first_line_ == 0) first_line_ = line_number;
            if (auto record = parse_strace_record(piece)) {
                add_record(*record, line_number);
            } else {
                ++torn_records_;
                diagnostics_.warn(source_, line_number,
                                  "torn or malformed [STRACE] record, dropped");
            }
        }
        at = next;
    }
}

namespace {

std::size_t group_hash(std::uint64_t pid, std::uint64_t inv) {
    std::uint64_t h = (pid * 0x9E3779B97F4A7C15ull) ^ inv;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    return static_cast<std::size_t>(h ^ (h >> 33));
}

}  // namespace

StraceCollector::Group* StraceCollector::find_or_add_group(std::uint64_t pid, std::uint64_t inv,
                                                           bool& created) {
    created = false;
    // Kept at most half full; grown (and rebuilt from the deque) before that is passed.
    if (group_index_.size() < 2 * (groups_.size() + 1)) {
        std::vector<std::uint32_t> grown(std::max<std::size_t>(64, 2 * group_index_.size()), 0);
        std::size_t mask = grown.size() - 1;
        for (std::size_t at = 0; at < groups_.size(); ++at) {
            std::size_t slot = group_hash(groups_[at].pid, groups_[at].inv) & mask;
            while (grown[slot] != 0) slot = (slot + 1) & mask;
            grown[slot] = static_cast<std::uint32_t>(at + 1);
        }
        group_index_ = std::move(grown);
    }
    std::size_t mask = group_index_.size() - 1;
    std::size_t slot = group_hash(pid, inv) & mask;
    for (; group_index_[slot] != 0; slot = (slot + 1) & mask) {
        Group& group = groups_[group_index_[slot] - 1];
        if (group.pid == pid && group.inv == inv) return &group;
    }
    // Slot values are positions + 1 in 32 bits: 4 billion launches would need a 400 GB log.
    if (groups_.size() >= std::numeric_limits<std::uint32_t>::max() - 1) {
        if (!groups_full_) {
            diagnostics_.warn(source_, 0,
                              "more than 4294967294 [STRACE] launch groups; later ones are "
                              "ignored");
        }
        groups_full_ = true;
        return nullptr;
    }
    Group& group = groups_.emplace_back();
    group.pid = pid;
    group.inv = inv;
    group_index_[slot] = static_cast<std::uint32_t>(groups_.size());
    created = true;
    return &group;
}

std::uint32_t StraceCollector::hid_id(std::string_view hid) {
    std::string name = lowercase(hid);
    auto [it, inserted] = hid_ids_.try_emplace(name, static_cast<std::uint32_t>(hid_names_.size()));
    if (inserted) hid_names_.push_back(std::move(name));
    return it->second;
}

void StraceCollector::add_record(const StraceRecord& record, std::size_t line_number) {
    SpanKind kind = classify(record.name);
    if (kind == SpanKind::NotAnInvocation) return;
    Group* group = last_group_;
    if (group == nullptr || group->pid != record.pid || group->inv != record.inv) {
        bool created = false;
        group = find_or_add_group(record.pid, record.inv, created);
        if (group == nullptr) return;
        if (created) {
            group->hid = hid_id(record.hid);
            group->line = line_number;
            group->in_timing_region = in_timing_;
        }
        last_group_ = group;
    }
    // pypto keeps the first emitted span of a name within a group (§4).
    switch (kind) {
        case SpanKind::Root:
            if (record.depth == 0 && !group->has_root) {
                group->has_root = true;
                group->root_ts = record.ts;
                group->root_dur = record.dur;
            }
            break;
        case SpanKind::DeviceWall:
            if (!group->has_device) {
                group->has_device = true;
                group->device_dur = record.dur;
            }
            break;
        case SpanKind::Orch:
            if (!group->has_orch) {
                group->has_orch = true;
                group->orch_ts = record.ts;
                group->orch_dur = record.dur;
            }
            break;
        case SpanKind::Sched:
            if (!group->has_sched) {
                group->has_sched = true;
                group->sched_ts = record.ts;
                group->sched_dur = record.dur;
            }
            break;
        case SpanKind::Other:
        case SpanKind::NotAnInvocation:
            break;
    }
}

void StraceCollector::reject_capture(std::size_t line_number, std::string reason) {
    if (rejected_) return;
    diagnostics_.warn(
        source_, line_number,
        fmt::format("two-pass swimlane capture rejected: {}; no samples are reported", reason));
    rejected_ = std::move(reason);
}

void StraceCollector::on_sentinel(std::string_view text, std::size_t line_number) {
    // Substring rules of pypto's two-pass capture (bench-log.md §1.13.6).
    saw_sentinel_ = true;
    bool timing = text.substr(0, 7) == "timing ";
    if (!timing) return;
    std::string_view event = text.substr(7);
    if (event.substr(0, 11) == "event=begin") {
        if (in_timing_)
            reject_capture(line_number, "a timing pass begins before the previous one ended");
        saw_timing_begin_ = true;
        in_timing_ = true;
        timing_begin_line_ = line_number;
        ++timing_regions_;
        last_group_ = nullptr;
    } else if (event.substr(0, 9) == "event=end") {
        if (!in_timing_) reject_capture(line_number, "a timing pass ends that never began");
        in_timing_ = false;
        last_group_ = nullptr;
    }
}

std::vector<const StraceCollector::Group*> StraceCollector::usable_groups() const {
    std::vector<const Group*> groups;
    groups.reserve(groups_.size());
    for (const Group& group : groups_) {
        if (saw_sentinel_ && !group.in_timing_region) continue;
        groups.push_back(&group);
    }
    std::sort(groups.begin(), groups.end(), [](const Group* a, const Group* b) {
        return std::tie(a->pid, a->inv) < std::tie(b->pid, b->inv);
    });
    return groups;
}

namespace {

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
            warmup = LoopFact<std::size_t>{kDefaultWarmup, FactSource::Default, kNotPrinted};
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
        defaults_fit ? "pypto-lib's, consistent with the launches" : kNotPrinted;
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
        block.source = {source_, first_line_};
        block.declared_rounds = loop.rounds;
        block.declared_warmup = loop.warmup;
        block.notes.emplace_back(kNoMarkersNote);
        return with_facts(std::move(block));
    }
    if (groups.empty()) {
        diagnostics_.warn(source_, first_line_,
                          "[STRACE] markers hold no launch (only setup or scheduler spans)");
        return std::nullopt;
    }
    if (loop.distributed) return with_facts(compute_l3(l3_launches(groups), loop));
    std::vector<const Group*> bucket = l2_bucket(groups);
    std::vector<const Group*>().swap(groups);  // the bucket is all compute_l2 needs
    return with_facts(compute_l2(std::move(bucket), loop));
}

namespace {

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

BenchBlock StraceCollector::compute_l2(std::vector<const Group*> bucket,
                                       const Loop& options) const {
    std::size_t skip = std::min(options.warmup, bucket.size());
    // A view, not a copy: every launch is held once already.
    std::span<const Group* const> measured(bucket.data() + skip, bucket.size() - skip);

    BenchBlock block;
    block.origin = Origin::Strace;
    block.source = {source_, measured.empty() ? first_line_ : measured.front()->line};
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

BenchBlock StraceCollector::compute_l3(const Launches& by_pid, const Loop& options) const {
    BenchBlock block;
    block.origin = Origin::Strace;
    block.declared_rounds = options.rounds;
    block.declared_warmup = options.warmup;
    block.source = {source_, first_line_};
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
            if (block.source.line == first_line_ && !launches.empty())
                block.source.line = launches.front()->line;
        }
        set_headline(block, all_zero(device), effective);
        context.ranks = 0;
        context.host_mean_us = fmean(host);
        context.fallback_flattened = true;
        block.raw = std::move(raw);
        context.source = block.source;
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
        rank.source = {source_, launches[first]->line};
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
    block.source.line = block.ranks.front().source.line;
    set_headline(block, all_zero(device), headline);
    context.ranks = by_pid.size();
    context.host_union_mean_us = fmean(union_us);
    context.host_mean_us = fmean(host);
    block.raw = std::move(raw);
    context.source = block.source;
    return block;
}

}  // namespace ptune::bench
