#pragma once
// `[STRACE]` markers (bench-log.md §1.13) -> the report pypto + pypto-lib would print (§4).
// Streaming: only a few numbers per launch group are kept, never the records themselves.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ptune/bench/model.hpp"
#include "ptune/core/diagnostics.hpp"

namespace ptune::bench {

/// One `[STRACE]` record, fields as printed (name not percent-decoded).
struct StraceRecord {
    std::uint64_t pid = 0;
    std::uint64_t tid = 0;
    std::uint64_t inv = 0;
    std::string_view hid;
    std::uint64_t depth = 0;
    std::string_view name;
    std::int64_t ts = 0;
    std::int64_t dur = 0;
};

/// Parses the text after a `[STRACE]` tag (`v=1 pid=.. ... dur=.. attrs`); nullopt for a torn
/// or malformed record. The views point into `text`.
std::optional<StraceRecord> parse_strace_record(std::string_view text);

/// Summary of the positive values (zeros and negatives dropped, as pypto-lib does); nullopt
/// when none is left. Mean is exactly rounded (fsum / n), median averages the middle two.
std::optional<Summary> summarize_positive(std::span<const double> values);

/// Loop facts the harness printed near the markers (bench-log.md §1.8, §1.9).
struct HarnessLoopHints {
    std::optional<std::size_t> warmup;  ///< `ignoring PYPTO_BENCH_WARMUP=...; using N`
    std::optional<std::size_t> rounds;  ///< `ignoring PYPTO_BENCH_ROUNDS=...; using N`
    /// A `[RUN] benchmark ...` stage line: the resident L3 path prints none (§1.10).
    bool benchmark_stage = false;
};

/// Collects the launch groups of one case and recomputes its report.
class StraceCollector {
  public:
    StraceCollector(std::string source, Diagnostics& diagnostics)
        : source_(source), diagnostics_(diagnostics), sources_{std::move(source)} {}

    /// Back to a new collector's state for the lines of `source` (the next case of a log),
    /// keeping what it allocated: a log of 100,000 small cases makes one collector.
    void reset(std::string source);

    /// The lines fed from now on come from `source` (one case read from several files: the
    /// host logs of one L3 run's ranks, upstream-2026-12.md §7.1).
    void set_source(std::string source);

    /// Feeds one normalised physical line that contains `[STRACE]` and/or a two-pass swimlane
    /// sentinel; records and sentinels are taken in the order they appear on the line.
    void feed(std::string_view line, std::size_t line_number);
    /// True once a record head (`[STRACE] v=N`) was seen.
    bool saw_markers() const { return record_heads_ > 0; }
    /// What the report should say about the capture itself, after compute() (a log that ends
    /// inside an invocation).
    const std::vector<std::string>& capture_notes() const { return capture_notes_; }
    /// Chip processes announced by `[chip_process pid=P dev=N] ready` lines (an L3 console,
    /// upstream-2026-09.md §2.7): pid -> device.
    const std::map<std::uint64_t, std::uint64_t>& chip_processes() const { return chip_processes_; }
    /// The block upstream would print for these markers under `options`; nullopt (with a
    /// warning) when the markers hold no launch at all. Facts `options` leaves unset come from
    /// `hints`, the markers (L3: several chip-worker pids with device_wall, a host-orchestrator
    /// pid, swimlane sentinels; the number of launches) or the pypto-lib defaults; the block's
    /// loop_facts say which, and a note in `diagnostics` names them.
    std::optional<BenchBlock> compute(const StraceOptions& options,
                                      const HarnessLoopHints& hints = {});

  private:
    /// What one `(pid, inv)` launch group contributes; spans of a name keep the first emitted.
    /// Kept for every launch until compute() (the medians need every launch's sample, and
    /// which launches are measured is known only at the end), so it is packed: 88 bytes.
    struct Group {
        std::uint64_t pid = 0;
        std::uint64_t inv = 0;
        std::size_t line = 0;
        std::uint32_t hid = 0;  ///< index into hid_names_ (lower-cased)
        bool in_timing_region : 1 = false;
        bool has_root : 1 = false;
        bool has_device : 1 = false;
        bool has_orch : 1 = false;
        bool has_sched : 1 = false;
        std::uint16_t file = 0;  ///< index into sources_ (several host logs of one run)
        std::int64_t root_ts = 0, root_dur = 0;
        std::int64_t device_dur = 0;
        std::int64_t orch_ts = 0, orch_dur = 0;
        std::int64_t sched_ts = 0, sched_dur = 0;

        double effective_us() const;
        double device_us() const {
            return has_device ? static_cast<double>(device_dur) / 1000.0 : 0.0;
        }
        double host_us() const { return has_root ? static_cast<double>(root_dur) / 1000.0 : 0.0; }
    };

    /// The group of `(pid, inv)`, created (and `created` set) when new; nullptr past the
    /// index's 2^32 - 2 groups.
    Group* find_or_add_group(std::uint64_t pid, std::uint64_t inv, bool& created);
    std::uint32_t hid_id(std::string_view hid);

    void add_record(const StraceRecord& record, std::size_t line_number);
    void on_sentinel(std::string_view text, std::size_t line_number);
    /// `pid=P dev=N] ready` after a `[chip_process ` tag.
    void on_chip_process(std::string_view text, std::size_t line_number);
    void reject_capture(std::size_t line_number, std::string reason);
    /// The loop a computation runs with, every fact settled.
    struct Loop {
        std::size_t warmup = kDefaultWarmup;
        std::size_t rounds = kDefaultRounds;
        bool distributed = false;
        bool resident = false;
        std::string kernel;
        bool raw = false;
    };
    using Launches = std::map<std::uint64_t, std::vector<const Group*>>;

    std::vector<const Group*> usable_groups() const;
    /// Per pid, its last invocation when it has no root while an earlier one has: the log
    /// ends inside it (a root span is written last, bench-log.md §1.13.4). Said once, on
    /// stderr; these groups are left out of every computation.
    std::vector<const Group*> cut_invocations(const std::vector<const Group*>& groups) const;
    /// Warns about cut_invocations(), notes them for the report and removes them from
    /// `groups`.
    void leave_out_cut_invocations(std::vector<const Group*>& groups);
    /// L2: the hid bucket with the most launches (the benchmarked callable), in inv order;
    /// every launch when each complete launch has a hid of its own (hids_all_distinct).
    static std::vector<const Group*> l2_bucket(const std::vector<const Group*>& groups);
    /// True when at least two launches have a root and no two of them share a hid: the hid
    /// then names no callable (a real September host log, one hid per dispatch).
    static bool hids_all_distinct(const std::vector<const Group*>& groups);
    /// L3: per pid, its launches (groups with a root) in inv order, for pids that have a
    /// device_wall somewhere (chip workers; drops the host-orchestrator parent).
    static Launches l3_launches(const std::vector<const Group*>& groups);
    /// What the launches tell about the loop's length (warmup + rounds).
    struct LoopLength {
        std::vector<std::size_t> counts;      ///< launches per rank (L3) or in all (L2, passes)
        std::optional<std::size_t> launches;  ///< the loop length they suggest
        std::string why;                      ///< how that was read, for messages
    };

    /// L2/L3 and the resident path: flags, else what the markers and harness lines show.
    void detect_mode(const StraceOptions& options, const HarnessLoopHints& hints,
                     const std::vector<const Group*>& groups, LoopFacts& facts) const;
    LoopLength measure_loop(const std::vector<const Group*>& groups, bool distributed) const;
    LoopFacts settle_loop(const StraceOptions& options, const HarnessLoopHints& hints,
                          const std::vector<const Group*>& groups) const;
    BenchBlock compute_l2(std::vector<const Group*> bucket, const Loop& loop) const;
    BenchBlock compute_l3(const Launches& by_pid, const Loop& loop) const;
    /// L3 without a whole number of loops per rank: every launch after each rank's warmup,
    /// pooled into one series (`fallback_flattened`).
    void pool_l3(const Launches& by_pid, const Loop& loop, BenchBlock& block,
                 std::optional<RawSamples>& raw) const;
    /// L3 whose chip workers completed no launch in the log: one `(no timing)` rank per chip
    /// process (or per pid with chip.run spans) and the reason as the headline.
    BenchBlock no_l3_launch(const std::vector<const Group*>& groups, const Loop& loop) const;

    /// Where a group's first record was.
    SourceRef where(const Group* group) const { return {sources_[group->file], group->line}; }
    /// Where the first marker was.
    SourceRef first_ref() const { return {sources_[first_file_], first_line_}; }

    // reset() sets every member below back to its initial value: a member added here goes there.
    std::string source_;
    Diagnostics& diagnostics_;
    std::vector<std::string> sources_;  // every file fed; source_ is the last
    // Groups in order of first record (a deque: references stay valid as it grows) and an
    // open-addressing index over them (slot = position + 1, 0 = empty; 4 bytes a slot, at
    // most half full): ~100 bytes a launch in all, where a node map of groups took ~230.
    std::deque<Group> groups_;
    std::vector<std::uint32_t> group_index_;
    bool groups_full_ = false;
    std::vector<std::string> hid_names_;
    std::unordered_map<std::string, std::uint32_t> hid_ids_;
    Group* last_group_ = nullptr;
    std::size_t record_heads_ = 0;
    std::size_t torn_records_ = 0;
    std::size_t first_line_ = 0;
    std::size_t first_file_ = 0;
    // Two-pass swimlane sentinels (bench-log.md §1.13.6).
    bool saw_sentinel_ = false;
    bool saw_timing_begin_ = false;
    bool in_timing_ = false;
    std::size_t timing_regions_ = 0;
    std::size_t timing_begin_line_ = 0;
    std::optional<std::string> rejected_;
    std::map<std::uint64_t, std::uint64_t> chip_processes_;  // pid -> dev
    std::size_t node_dispatches_ = 0;
    std::vector<std::string> capture_notes_;  // L3 scheduler `node.dispatch`
};

}  // namespace ptune::bench
