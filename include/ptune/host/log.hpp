#pragma once
/// @file log.hpp
/// simpler's host logs of September 2026 (upstream-2026-09.md §2): `host.<pid>.log` (enveloped
/// records of at most 512 bytes, a cut one ending in `~`), `host-strace.<pid>.log` and
/// `host_clock_alignment.<pid>.log` (bare `[STRACE]` lines), console logs holding the same
/// records. One streaming reader turns physical lines into typed events; a domain keeps what
/// it needs (bench: a few numbers per invocation; swimlane: the spans of one invocation).
///
/// Physical lines may hold several records (processes share the capture fd): a line is split
/// at every envelope `[mono_ns=…][T0x…][LEVEL] func: ` and at every bare `[STRACE]`, and each
/// piece is read on its own. A piece that is not whole is never read for numbers: a torn
/// `[STRACE]` record (fails the full grammar) and a cut ordinary record (ends in `~`) are only
/// counted (HostLogStats).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/core/diagnostics.hpp"

namespace ptune::host {

/// The clock a span's `ts` is on: host CLOCK_MONOTONIC ns, or (`clk=dev`) the per-invocation
/// device clock whose origin is only comparable within the same `(pid, inv)`.
enum class ClockDomain { Host, Device };

/// The root identity of a dispatch (`chip.run` attrs `run_id dispatch_id slot_id generation`);
/// dispatch_identity.json spells it `run_id endpoint_dispatch_id pipeline_slot
/// pipeline_generation` (§1.12.1).
struct DispatchIdentity {
    std::uint64_t run_id = 0;
    std::uint64_t dispatch_id = 0;
    std::uint64_t slot_id = 0;
    std::uint64_t generation = 0;
    friend bool operator==(const DispatchIdentity&, const DispatchIdentity&) = default;
};

/// One `[STRACE] v=1 pid tid inv hid depth name ts dur <attrs>` span (bench-log.md §1.13.1).
/// Names and attribute values are kept as written (percent-encoded, see percent_decode()).
struct Span {
    std::uint64_t pid = 0;
    std::uint64_t tid = 0;
    std::uint64_t inv = 0;  ///< (pid, inv) is one invocation; 0 on thread-scoped families
    std::string hid;        ///< callable hash, lowercase hex
    std::uint32_t depth = 0;
    std::string name;
    std::int64_t ts = 0;   ///< ns on `clock`
    std::int64_t dur = 0;  ///< ns
    ClockDomain clock = ClockDomain::Host;
    /// `k=v` attributes after `dur=` (clk=dev included), first occurrence of a key wins.
    std::map<std::string, std::string, std::less<>> attrs;
    /// The last attribute hit its 192-byte cap and ends in `~` (its value excludes the `~`).
    bool attrs_cut = false;
    /// `mono_ns` of the envelope (emission time); absent on bare lines.
    std::optional<std::int64_t> emitted_mono_ns;
    std::size_t line = 0;  ///< 1-based physical line

    std::int64_t end() const { return ts + dur; }
    /// The attribute's raw value, nullptr if absent.
    const std::string* attr(std::string_view key) const;
    /// The attribute as a signed decimal; nullopt if absent or not a number.
    std::optional<std::int64_t> attr_int(std::string_view key) const;
    /// The root identity when all four keys are numbers (`run_id == dispatch_id == 0` counts as
    /// none, as upstream's later containment does).
    std::optional<DispatchIdentity> identity() const;
};

/// What a span name is, across the families of bench-log.md §1.13.4 and §2.7.
enum class SpanFamily {
    Root,             ///< `chip.run` (and the older `simpler_run`, `run_prepared`)
    RunnerRun,        ///< `<root>.runner_run`
    DeviceWall,       ///< `<root>.runner_run.device_wall` (clk=dev)
    DevicePhase,      ///< `<root>.runner_run.device_wall.<phase>` (clk=dev)
    AicpuLaunch,      ///< `<root>.runner_run.aicpu_launch` (host instant, dur=0)
    Bind,             ///< `<root>.bind`
    BindSegment,      ///< `<root>.bind.<segment>`
    OtherInvocation,  ///< another child of a root (validate, claim_release, …)
    Setup,            ///< `chip.prewarm.*`, `simpler_prewarm*`: not a dispatch
    Scheduler,        ///< `node.*`, `network1-3.*`, `l3.*`, `host.*`: never invocations
    External,         ///< `ext.<producer>.<span>`
    Other,
};

/// The family of a span name; `suffix` (optional) receives the part after the family's prefix
/// (device phase name, bind segment).
SpanFamily classify_span(std::string_view name, std::string_view* suffix = nullptr);

/// `%XX` escapes decoded (bench-log.md §1.13.3); a malformed escape is kept literally.
std::string percent_decode(std::string_view text);

/// `[CLOCK_ANCHOR] v pid mono_ns wall_ns`: wall ≈ wall_ns + record_mono − mono_ns.
struct ClockAnchor {
    std::uint64_t pid = 0;
    std::int64_t mono_ns = 0;
    std::int64_t wall_ns = 0;
    std::size_t line = 0;
};

/// `[HOSTLOG_DROPS]` (§2.3): records lost before reaching the destination. Per pid the line
/// with the largest `total` is the final state; the four reasons sum to `total`.
struct HostLogDrops {
    std::uint64_t pid = 0;
    std::uint64_t added = 0;  ///< `new=`
    std::uint64_t total = 0;
    std::uint64_t queue_full = 0;
    std::uint64_t claim_exhausted = 0;
    std::uint64_t output_failed = 0;
    std::uint64_t not_admitted = 0;
    std::size_t line = 0;
    /// The reason with the largest count (`queue_full` on a tie with it).
    std::string_view dominant_reason() const;
};

/// `host-orch phase=<kind> total_ns count detail_sum dropped` (§2.7): per-kind cost totals of
/// one bind's host orchestration. Kinds nest: these are shares, never intervals.
struct HostOrchPhase {
    std::string kind;
    std::int64_t total_ns = 0;
    std::uint64_t count = 0;
    std::optional<std::int64_t> detail_sum;  ///< newer writers may omit it
    std::uint64_t dropped = 0;
    std::optional<std::uint64_t> pid;  ///< not in the line; set by callers that know it
    std::size_t line = 0;
};

/// The older `bind phase=<segment> start_ns=<n> dur_ns=<n> <attrs>` line (§2.7), the form
/// the `chip.run.bind.<segment>` spans replaced: an interval on the host clock.
struct LegacyBindPhase {
    std::string segment;
    std::int64_t start_ns = 0;
    std::int64_t dur_ns = 0;
    std::map<std::string, std::string, std::less<>> attrs;
    std::size_t line = 0;
};

/// `[chip_process pid=<pid> dev=<n>] ready` on an L3 console (maps a chip pid to a device).
struct ChipProcessReady {
    std::uint64_t pid = 0;
    std::uint64_t device = 0;
    std::size_t line = 0;
};

/// The swimlane collector's `Core <c>: skipped <n> AICore record slot(s) with start_time=0`
/// warning: slots of that core's AICore record buffer that were never written (start_time=0: a
/// race-window write or the recycled buffer's tail), skipped by the collector. No record is
/// lost: the records file holds every slot that was written.
struct CollectorSkip {
    std::uint64_t core = 0;
    std::uint64_t skipped = 0;
    std::size_t line = 0;
};

/// Any other whole record (envelope parsed); `text` is the message after `func: `.
struct OtherRecord {
    std::string_view level;
    std::string_view func;
    std::string_view text;
    std::size_t line = 0;
};

/// Counters over everything a reader saw.
struct HostLogStats {
    std::size_t lines = 0;               ///< physical lines
    std::size_t records = 0;             ///< pieces (records) found on them
    std::size_t span_heads = 0;          ///< `[STRACE]\s+v=\d+` occurrences
    std::size_t spans = 0;               ///< spans that parsed
    std::size_t torn_spans = 0;          ///< heads that failed the grammar (excluded)
    std::size_t cut_records = 0;         ///< ordinary records ending in `~` (text lost)
    std::size_t cut_attrs = 0;           ///< spans whose last attribute hit its cap
    std::size_t shared_lines = 0;        ///< physical lines holding more than one record
    std::size_t malformed_payloads = 0;  ///< an anchor/drops/host-orch/bind line not matching
};

/// Receives the events of a host log in order. Default handlers ignore the event, so a
/// consumer overrides only what it uses.
class HostLogVisitor {
  public:
    virtual ~HostLogVisitor() = default;
    virtual void on_span(const Span&) {}
    virtual void on_clock_anchor(const ClockAnchor&) {}
    virtual void on_drops(const HostLogDrops&) {}
    virtual void on_host_orch(const HostOrchPhase&) {}
    virtual void on_legacy_bind(const LegacyBindPhase&) {}
    virtual void on_chip_ready(const ChipProcessReady&) {}
    virtual void on_collector_skip(const CollectorSkip&) {}
    /// An ordinary record cut at 512 bytes (`~`); `text` is what survived, never parsed.
    virtual void on_cut_record(std::string_view /*text*/, std::size_t /*line*/) {}
    /// A `[STRACE]` head that failed the grammar; counted, its fields unused.
    virtual void on_torn_span(std::string_view /*text*/, std::size_t /*line*/) {}
    /// A `[CLOCK_ANCHOR]`, `[HOSTLOG_DROPS]`, `host-orch`, `bind phase=` or `[chip_process]`
    /// record whose payload does not match its grammar (`family` names which).
    virtual void on_malformed(std::string_view /*family*/, std::string_view /*text*/,
                              std::size_t /*line*/) {}
    virtual void on_other(const OtherRecord&) {}
};

/// Splits physical lines into records and hands them to a visitor. Feed lines in file order.
class HostLogReader {
  public:
    explicit HostLogReader(HostLogVisitor& visitor) : visitor_(visitor) {}
    /// One physical line without its newline (a trailing `\r` is ignored).
    void feed(std::string_view line, std::size_t line_number);
    const HostLogStats& stats() const { return stats_; }

  private:
    void read_piece(std::string_view piece, std::size_t line_number);
    HostLogVisitor& visitor_;
    HostLogStats stats_;
};

/// Streams `in` through a HostLogReader; returns its counters.
HostLogStats read_host_log(std::istream& in, HostLogVisitor& visitor);

/// Everything in a (small) host log, kept: alignment logs, tests, fuzzing.
struct HostLog {
    std::vector<Span> spans;
    std::vector<ClockAnchor> anchors;
    std::vector<HostLogDrops> drops;
    std::vector<HostOrchPhase> host_orch;
    std::vector<LegacyBindPhase> legacy_bind;
    std::vector<ChipProcessReady> chip_ready;
    std::vector<CollectorSkip> collector_skips;
    HostLogStats stats;

    /// Per pid, the drops line with the largest total (the final state), by pid.
    std::vector<HostLogDrops> final_drops() const;
};

/// Reads a whole host log into a HostLog (text stays unowned only during the call).
HostLog parse_host_log(std::string_view text);
HostLog parse_host_log(std::istream& in);

/// Warnings for `diagnostics` about what a log lost: torn spans (upstream's wording), cut
/// records and `[HOSTLOG_DROPS]` per pid. `source` names the file.
void report_losses(const HostLog& log, const std::string& source, Diagnostics& diagnostics);

/// The upstream warning for a drops line (§2.3).
std::string drops_warning(const HostLogDrops& drops);

}  // namespace ptune::host
