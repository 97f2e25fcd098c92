// [STRACE] record parsing and the collection of launch groups (bench-log.md §1.13). The loop's
// shape is settled in strace_loop.cpp, the report computed in strace_compute.cpp.

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
constexpr std::string_view kChipProcessTag = "[chip_process ";

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
            if (rest.starts_with(kStraceTag) || rest.starts_with(kSentinelTag) ||
                rest.starts_with(kChipProcessTag))
                return at;
        }
        return std::string_view::npos;
    };
    auto piece_between = [&](std::size_t after, std::size_t next) {
        return line.substr(after,
                           next == std::string_view::npos ? std::string_view::npos : next - after);
    };
    // A sentinel or chip-process line at `at`: handled, `at` moved to the next event.
    auto take_tagged = [&](std::size_t& at, std::string_view tag, auto handle) {
        if (!line.substr(at).starts_with(tag)) return false;
        std::size_t after = at + tag.size();
        std::size_t next = next_event(after);
        (this->*handle)(piece_between(after, next), line_number);
        at = next;
        return true;
    };
    std::size_t at = next_event(0);
    while (at != std::string_view::npos) {
        if (take_tagged(at, kSentinelTag, &StraceCollector::on_sentinel) ||
            take_tagged(at, kChipProcessTag, &StraceCollector::on_chip_process))
            continue;
        std::size_t after = at + kStraceTag.size();
        std::size_t next = next_event(after);
        std::string_view piece = piece_between(after, next);
        // A record head is `[STRACE]\s+v=\d+` (simpler's count_record_heads).
        std::string_view head = text::trim_left(piece);
        if (head.size() < piece.size() && head.size() > 2 && head.substr(0, 2) == "v=" &&
            is_digit(head[2])) {
            ++record_heads_;
            if (first_line_ == 0) {
                first_line_ = line_number;
                first_file_ = sources_.size() - 1;
            }
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
    if (kind == SpanKind::NotAnInvocation) {
        // The L3 scheduler's per-rank dispatches (upstream-2026-09.md §2.7): not launches, but
        // they show the run is L3.
        if (record.name == "node.dispatch") ++node_dispatches_;
        return;
    }
    Group* group = last_group_;
    if (group == nullptr || group->pid != record.pid || group->inv != record.inv) {
        bool created = false;
        group = find_or_add_group(record.pid, record.inv, created);
        if (group == nullptr) return;
        if (created) {
            group->hid = hid_id(record.hid);
            group->line = line_number;
            group->file = static_cast<std::uint16_t>(sources_.size() - 1);
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

void StraceCollector::reset(std::string source) {
    sources_.resize(1);
    sources_.front() = source;
    source_ = std::move(source);
    groups_.clear();
    // An index grown for a large capture is dropped rather than cleared for each small case.
    if (group_index_.size() <= 1024)
        std::fill(group_index_.begin(), group_index_.end(), 0);
    else
        std::vector<std::uint32_t>().swap(group_index_);  // (`= {}` would keep its memory)
    groups_full_ = false;
    hid_names_.clear();
    if (hid_ids_.bucket_count() <= 1024)
        hid_ids_.clear();  // (clearing walks every bucket)
    else
        decltype(hid_ids_)().swap(hid_ids_);
    last_group_ = nullptr;
    record_heads_ = 0;
    torn_records_ = 0;
    first_line_ = 0;
    first_file_ = 0;
    saw_sentinel_ = false;
    saw_timing_begin_ = false;
    in_timing_ = false;
    timing_regions_ = 0;
    timing_begin_line_ = 0;
    rejected_.reset();
    chip_processes_.clear();
    node_dispatches_ = 0;
    capture_notes_.clear();
}

void StraceCollector::set_source(std::string source) {
    if (source == source_) return;
    // File indices are 16 bits: a run of more than 65535 host logs keeps naming the last.
    if (sources_.size() < std::numeric_limits<std::uint16_t>::max()) sources_.push_back(source);
    source_ = std::move(source);
    last_group_ = nullptr;
}

void StraceCollector::on_chip_process(std::string_view text, std::size_t line_number) {
    // `pid=<pid> dev=<n>] ready` (no envelope, L3 console).
    if (!text.starts_with("pid=")) return;
    text.remove_prefix(4);
    auto pid = take_uint(text);
    if (!pid || !text.starts_with(" dev=")) return;
    text.remove_prefix(5);
    auto dev = take_uint(text);
    if (!dev || !text.starts_with("] ready")) return;
    if (chip_processes_.empty() && first_line_ == 0) {
        first_line_ = line_number;
        first_file_ = sources_.size() - 1;
    }
    chip_processes_[*pid] = *dev;
}

std::vector<const StraceCollector::Group*> StraceCollector::cut_invocations(
    const std::vector<const Group*>& groups) const {
    // `groups` is in (pid, inv) order: the last group of each pid ends its run.
    std::vector<const Group*> cut;
    bool pid_has_root = false;
    for (std::size_t at = 0; at < groups.size(); ++at) {
        const Group* group = groups[at];
        bool last_of_pid = at + 1 == groups.size() || groups[at + 1]->pid != group->pid;
        if (last_of_pid && !group->has_root && pid_has_root) cut.push_back(group);
        pid_has_root = last_of_pid ? false : pid_has_root || group->has_root;
    }
    return cut;
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

}  // namespace ptune::bench
