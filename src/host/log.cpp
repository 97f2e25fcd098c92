// Host-log reader (upstream-2026-09.md §2, bench-log.md §1.13): physical lines → records →
// typed events. Only whole records are read for numbers; cut and torn ones are counted.

#include "ptune/host/log.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"

namespace ptune::host {

namespace {

constexpr std::string_view kStrace = "[STRACE]";
constexpr std::string_view kChipProcess = "[chip_process ";

bool is_blank(char c) {
    return c == ' ' || c == '\t';
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool all_of(std::string_view text, bool (*accept)(char)) {
    return !text.empty() && std::all_of(text.begin(), text.end(), accept);
}

/// `[0-9]+` as u64 (nullopt on overflow or any other byte).
std::optional<std::uint64_t> to_u64(std::string_view text) {
    if (!all_of(text, is_digit)) return std::nullopt;
    return text::parse_uint(text);
}
/// `[0-9]+` that fits a signed 64-bit value.
std::optional<std::int64_t> to_i64(std::string_view text) {
    auto value = to_u64(text);
    if (!value || *value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return std::nullopt;
    return static_cast<std::int64_t>(*value);
}

/// Next blank-separated token of `text` (consumed); empty at the end.
std::string_view next_token(std::string_view& text) {
    std::size_t begin = 0;
    while (begin < text.size() && is_blank(text[begin])) ++begin;
    std::size_t end = begin;
    while (end < text.size() && !is_blank(text[end])) ++end;
    std::string_view token = text.substr(begin, end - begin);
    text.remove_prefix(end);
    return token;
}

/// Takes the next token as `key=value`, the key exactly `key`; the value may be empty.
bool take_field(std::string_view& text, std::string_view key, std::string_view& value) {
    std::string_view token = next_token(text);
    if (token.size() <= key.size() || !token.starts_with(key) || token[key.size()] != '=')
        return false;
    value = token.substr(key.size() + 1);
    return true;
}

/// `k=v` tokens into a map (first occurrence wins); tokens without `=` are ignored.
template <class Map>
void take_attrs(std::string_view text, Map& attrs) {
    for (std::string_view token = next_token(text); !token.empty(); token = next_token(text)) {
        std::size_t eq = token.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;
        attrs.emplace(std::string(token.substr(0, eq)), std::string(token.substr(eq + 1)));
    }
}

/// Length of an envelope `[mono_ns=N][T0xH][LEVEL] func: ` (or the older date form
/// `[YYYY-MM-DD …][T0xH][LEVEL] func: `) at the start of `text`; 0 if there is none.
struct Envelope {
    std::size_t length = 0;
    std::optional<std::int64_t> mono_ns;
    std::string_view level;
    std::string_view func;
};
Envelope parse_envelope(std::string_view text) {
    Envelope envelope;
    if (text.size() < 4 || text[0] != '[') return envelope;
    std::size_t close = text.find(']');
    if (close == std::string_view::npos) return envelope;
    std::string_view first = text.substr(1, close - 1);
    if (first.starts_with("mono_ns=")) {
        envelope.mono_ns = to_i64(first.substr(8));
        if (!envelope.mono_ns) return envelope;
    } else if (first.size() < 10 || !is_digit(first[0]) || first[4] != '-' || first[7] != '-') {
        return envelope;
    }
    std::string_view rest = text.substr(close + 1);
    if (!rest.starts_with("[T0x")) return {};
    std::size_t thread_end = rest.find(']');
    if (thread_end == std::string_view::npos || !all_of(rest.substr(4, thread_end - 4), is_hex))
        return {};
    rest.remove_prefix(thread_end + 1);
    if (!rest.starts_with('[')) return {};
    std::size_t level_end = rest.find(']');
    if (level_end == std::string_view::npos || level_end < 2) return {};
    envelope.level = rest.substr(1, level_end - 1);
    for (char c : envelope.level) {
        if (!(is_digit(c) || (c >= 'A' && c <= 'Z') || c == '_')) return {};
    }
    rest.remove_prefix(level_end + 1);
    std::size_t blanks = 0;
    while (blanks < rest.size() && is_blank(rest[blanks])) ++blanks;
    if (blanks == 0) return {};
    rest.remove_prefix(blanks);
    std::size_t colon = rest.find(':');
    if (colon == std::string_view::npos || colon == 0) return {};
    envelope.func = rest.substr(0, colon);
    if (envelope.func.find_first_of("\r\n") != std::string_view::npos) return {};
    rest.remove_prefix(colon + 1);
    std::size_t after = 0;
    while (after < rest.size() && is_blank(rest[after])) ++after;
    rest.remove_prefix(after);
    envelope.length = static_cast<std::size_t>(rest.data() - text.data());
    return envelope;
}

/// `[STRACE]\s+v=\d` at the start of `text` (a record head, as upstream counts them).
bool is_span_head(std::string_view text) {
    if (!text.starts_with(kStrace)) return false;
    std::size_t at = kStrace.size();
    std::size_t blanks = at;
    while (at < text.size() && is_blank(text[at])) ++at;
    return at > blanks && text.substr(at).starts_with("v=") && at + 2 < text.size() &&
           is_digit(text[at + 2]);
}

/// Parses a span body (the text after `[STRACE]`); nullopt when it fails the grammar.
std::optional<Span> parse_span(std::string_view body) {
    std::string_view version, pid, tid, inv, hid, depth, name, ts, dur;
    if (!take_field(body, "v", version) || !all_of(version, is_digit) ||
        !take_field(body, "pid", pid) || !take_field(body, "tid", tid) ||
        !take_field(body, "inv", inv) || !take_field(body, "hid", hid) || !all_of(hid, is_hex) ||
        !take_field(body, "depth", depth) || !take_field(body, "name", name) || name.empty() ||
        !take_field(body, "ts", ts) || !take_field(body, "dur", dur)) {
        return std::nullopt;
    }
    Span span;
    auto pid_value = to_u64(pid), tid_value = to_u64(tid), inv_value = to_u64(inv);
    auto depth_value = to_u64(depth);
    auto ts_value = to_i64(ts), dur_value = to_i64(dur);
    if (!pid_value || !tid_value || !inv_value || !depth_value ||
        *depth_value > std::numeric_limits<std::uint32_t>::max() || !ts_value || !dur_value ||
        *dur_value > std::numeric_limits<std::int64_t>::max() - *ts_value) {
        return std::nullopt;
    }
    span.pid = *pid_value;
    span.tid = *tid_value;
    span.inv = *inv_value;
    span.hid.assign(hid);
    std::transform(span.hid.begin(), span.hid.end(), span.hid.begin(),
                   [](char c) { return c >= 'A' && c <= 'F' ? static_cast<char>(c + 32) : c; });
    span.depth = static_cast<std::uint32_t>(*depth_value);
    span.name.assign(name);
    span.ts = *ts_value;
    span.dur = *dur_value;
    std::string_view attrs = text::trim(body);
    if (attrs.ends_with('~')) {
        // A field that hit its cap ends in `~`: a marker, not data (§1.13.3).
        span.attrs_cut = true;
        attrs.remove_suffix(1);
    }
    take_attrs(attrs, span.attrs);
    const std::string* clock = span.attr("clk");
    if (clock != nullptr && *clock == "dev") span.clock = ClockDomain::Device;
    return span;
}

/// Text after `tag` (and its blanks) in `text`, or nullopt when the tag is absent.
std::optional<std::string_view> after_tag(std::string_view text, std::string_view tag) {
    std::size_t at = text.find(tag);
    if (at == std::string_view::npos) return std::nullopt;
    return text.substr(at + tag.size());
}

std::optional<ClockAnchor> parse_anchor(std::string_view body) {
    std::string_view version, pid, mono, wall;
    if (!take_field(body, "v", version) || !all_of(version, is_digit) ||
        !take_field(body, "pid", pid) || !take_field(body, "mono_ns", mono) ||
        !take_field(body, "wall_ns", wall) || !text::trim(body).empty()) {
        return std::nullopt;
    }
    auto pid_value = to_u64(pid);
    auto mono_value = to_i64(mono), wall_value = to_i64(wall);
    if (!pid_value || !mono_value || !wall_value) return std::nullopt;
    return ClockAnchor{*pid_value, *mono_value, *wall_value, 0};
}

std::optional<HostLogDrops> parse_drops(std::string_view body) {
    static constexpr std::string_view kKeys[] = {
        "v",           "pid", "new", "total", "queue_full", "claim_exhausted", "output_failed",
        "not_admitted"};
    std::uint64_t values[std::size(kKeys)] = {};
    for (std::size_t i = 0; i < std::size(kKeys); ++i) {
        std::string_view value;
        if (!take_field(body, kKeys[i], value)) return std::nullopt;
        auto number = to_u64(value);
        if (!number) return std::nullopt;
        values[i] = *number;
    }
    HostLogDrops drops;
    drops.pid = values[1];
    drops.added = values[2];
    drops.total = values[3];
    drops.queue_full = values[4];
    drops.claim_exhausted = values[5];
    drops.output_failed = values[6];
    drops.not_admitted = values[7];
    return drops;
}

std::optional<HostOrchPhase> parse_host_orch(std::string_view body) {
    std::map<std::string, std::string, std::less<>> fields;
    take_attrs(body, fields);
    auto get = [&](std::string_view key) -> const std::string* {
        auto it = fields.find(key);
        return it == fields.end() ? nullptr : &it->second;
    };
    const std::string* kind = get("phase");
    const std::string* total = get("total_ns");
    const std::string* count = get("count");
    if (kind == nullptr || kind->empty() || total == nullptr || count == nullptr)
        return std::nullopt;
    HostOrchPhase phase;
    phase.kind = *kind;
    auto total_value = to_i64(*total);
    auto count_value = to_u64(*count);
    if (!total_value || !count_value) return std::nullopt;
    phase.total_ns = *total_value;
    phase.count = *count_value;
    if (const std::string* detail = get("detail_sum")) {
        phase.detail_sum = to_i64(*detail);
        if (!phase.detail_sum) return std::nullopt;
    }
    if (const std::string* dropped = get("dropped")) {
        auto value = to_u64(*dropped);
        if (!value) return std::nullopt;
        phase.dropped = *value;
    }
    return phase;
}

std::optional<LegacyBindPhase> parse_legacy_bind(std::string_view body) {
    std::string_view segment, start, dur;
    if (!take_field(body, "phase", segment) || segment.empty() ||
        !take_field(body, "start_ns", start) || !take_field(body, "dur_ns", dur)) {
        return std::nullopt;
    }
    auto start_value = to_i64(start), dur_value = to_i64(dur);
    if (!start_value || !dur_value ||
        *dur_value > std::numeric_limits<std::int64_t>::max() - *start_value)
        return std::nullopt;
    LegacyBindPhase phase;
    phase.segment.assign(segment);
    phase.start_ns = *start_value;
    phase.dur_ns = *dur_value;
    take_attrs(body, phase.attrs);
    return phase;
}

/// `pid=<pid> dev=<n>] ready` (the text after `[chip_process `).
std::optional<ChipProcessReady> parse_chip_ready(std::string_view body) {
    std::size_t close = body.find(']');
    if (close == std::string_view::npos || text::trim(body.substr(close + 1)) != "ready")
        return std::nullopt;
    std::string_view fields = body.substr(0, close);
    std::string_view pid, dev;
    if (!take_field(fields, "pid", pid) || !take_field(fields, "dev", dev) ||
        !text::trim(fields).empty())
        return std::nullopt;
    auto pid_value = to_u64(pid), dev_value = to_u64(dev);
    if (!pid_value || !dev_value) return std::nullopt;
    return ChipProcessReady{*pid_value, *dev_value, 0};
}

/// `Core <c>: skipped <n> AICore record slot(s) with start_time=0 …`.
std::optional<CollectorSkip> parse_collector_skip(std::string_view message) {
    auto body = after_tag(message, "Core ");
    if (!body) return std::nullopt;
    std::size_t colon = body->find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    auto core = to_u64(body->substr(0, colon));
    std::string_view rest = body->substr(colon + 1);
    std::string_view word = next_token(rest);
    std::string_view count = next_token(rest);
    auto skipped = to_u64(count);
    if (!core || word != "skipped" || !skipped) return std::nullopt;
    return CollectorSkip{*core, *skipped, 0};
}

/// Where records start on a physical line: envelopes, bare span heads (a head right after an
/// envelope belongs to it) and `[chip_process` markers. Sorted, unique.
std::vector<std::size_t> record_starts(std::string_view line) {
    std::vector<std::size_t> starts;
    std::size_t owned_head = std::string_view::npos;
    for (std::size_t at = line.find('['); at != std::string_view::npos;
         at = line.find('[', at + 1)) {
        std::string_view rest = line.substr(at);
        if (rest.starts_with("[mono_ns=") || (rest.size() > 5 && is_digit(rest[1]))) {
            Envelope envelope = parse_envelope(rest);
            if (envelope.length > 0) {
                starts.push_back(at);
                owned_head = at + envelope.length;
                at = owned_head - 1;  // the message may itself start with '['
                continue;
            }
        }
        if (at != owned_head && (is_span_head(rest) || rest.starts_with(kChipProcess)))
            starts.push_back(at);
    }
    return starts;
}

}  // namespace

const std::string* Span::attr(std::string_view key) const {
    auto it = attrs.find(key);
    return it == attrs.end() ? nullptr : &it->second;
}

std::optional<std::int64_t> Span::attr_int(std::string_view key) const {
    const std::string* value = attr(key);
    if (value == nullptr) return std::nullopt;
    return text::parse_int(*value);
}

std::optional<DispatchIdentity> Span::identity() const {
    auto number = [&](std::string_view key) -> std::optional<std::uint64_t> {
        const std::string* value = attr(key);
        return value == nullptr ? std::nullopt : to_u64(*value);
    };
    auto run_id = number("run_id"), dispatch_id = number("dispatch_id");
    auto slot_id = number("slot_id"), generation = number("generation");
    if (!run_id || !dispatch_id || !slot_id || !generation) return std::nullopt;
    if (*run_id == 0 && *dispatch_id == 0) return std::nullopt;
    return DispatchIdentity{*run_id, *dispatch_id, *slot_id, *generation};
}

SpanFamily classify_span(std::string_view name, std::string_view* suffix) {
    auto set_suffix = [&](std::string_view value) {
        if (suffix != nullptr) *suffix = value;
    };
    set_suffix({});
    for (std::string_view prefix :
         {"node.", "network1.", "network2.", "network3.", "l3.", "host."}) {
        if (name.starts_with(prefix)) return SpanFamily::Scheduler;
    }
    if (name.starts_with("ext.")) return SpanFamily::External;
    if (name.starts_with("chip.prewarm") || name.starts_with("simpler_prewarm"))
        return SpanFamily::Setup;
    std::string_view root;
    for (std::string_view candidate : {"chip.run", "simpler_run", "run_prepared"}) {
        if (name.starts_with(candidate)) root = candidate;
    }
    if (root.empty()) return SpanFamily::Other;
    std::string_view rest = name.substr(root.size());
    if (rest.empty()) return SpanFamily::Root;
    if (!rest.starts_with('.')) return SpanFamily::Other;
    rest.remove_prefix(1);
    if (rest == "runner_run") return SpanFamily::RunnerRun;
    if (rest == "runner_run.device_wall") return SpanFamily::DeviceWall;
    if (rest == "runner_run.aicpu_launch") return SpanFamily::AicpuLaunch;
    if (rest.starts_with("runner_run.device_wall.")) {
        set_suffix(rest.substr(23));
        return SpanFamily::DevicePhase;
    }
    if (rest == "bind") return SpanFamily::Bind;
    if (rest.starts_with("bind.")) {
        set_suffix(rest.substr(5));
        return SpanFamily::BindSegment;
    }
    set_suffix(rest);
    return SpanFamily::OtherInvocation;
}

std::string percent_decode(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() && is_hex(text[i + 1]) && is_hex(text[i + 2])) {
            auto value = text::parse_hex(text.substr(i + 1, 2));
            out.push_back(static_cast<char>(value.value_or(0)));
            i += 2;
        } else {
            out.push_back(text[i]);
        }
    }
    return out;
}

std::string_view HostLogDrops::dominant_reason() const {
    std::pair<std::uint64_t, std::string_view> best{queue_full, "queue_full"};
    for (auto candidate :
         {std::pair<std::uint64_t, std::string_view>{claim_exhausted, "claim_exhausted"},
          {output_failed, "output_failed"},
          {not_admitted, "not_admitted"}}) {
        if (candidate.first > best.first) best = candidate;
    }
    return best.second;
}

void HostLogReader::feed(std::string_view line, std::size_t line_number) {
    if (line.ends_with('\r')) line.remove_suffix(1);
    ++stats_.lines;
    std::vector<std::size_t> starts = record_starts(line);
    if (starts.empty() || starts.front() > 0) {
        // Text before the first record start: a plain line, or the tail of something else.
        std::string_view head = line.substr(0, starts.empty() ? line.size() : starts.front());
        if (!text::trim(head).empty()) read_piece(head, line_number);
    }
    if (starts.size() > 1) ++stats_.shared_lines;
    for (std::size_t i = 0; i < starts.size(); ++i) {
        std::size_t end = i + 1 < starts.size() ? starts[i + 1] : line.size();
        read_piece(line.substr(starts[i], end - starts[i]), line_number);
    }
}

void HostLogReader::read_piece(std::string_view piece, std::size_t line_number) {
    ++stats_.records;
    Envelope envelope = parse_envelope(piece);
    std::string_view message = piece.substr(envelope.length);
    if (is_span_head(message)) {
        ++stats_.span_heads;
        auto span = parse_span(message.substr(kStrace.size()));
        if (!span) {
            ++stats_.torn_spans;
            visitor_.on_torn_span(message, line_number);
            return;
        }
        ++stats_.spans;
        if (span->attrs_cut) ++stats_.cut_attrs;
        span->emitted_mono_ns = envelope.mono_ns;
        span->line = line_number;
        visitor_.on_span(*span);
        return;
    }
    // An ordinary record cut at its 512-byte cap: the text is lost, never read for numbers.
    if (text::trim_right(message).ends_with('~')) {
        ++stats_.cut_records;
        visitor_.on_cut_record(message, line_number);
        return;
    }
    auto malformed = [&](std::string_view family) {
        ++stats_.malformed_payloads;
        visitor_.on_malformed(family, message, line_number);
    };
    if (message.starts_with(kChipProcess)) {
        if (auto ready = parse_chip_ready(message.substr(kChipProcess.size()))) {
            ready->line = line_number;
            visitor_.on_chip_ready(*ready);
        } else {
            malformed("[chip_process]");
        }
        return;
    }
    if (auto body = after_tag(message, "[CLOCK_ANCHOR]")) {
        if (auto anchor = parse_anchor(*body)) {
            anchor->line = line_number;
            visitor_.on_clock_anchor(*anchor);
        } else {
            malformed("[CLOCK_ANCHOR]");
        }
        return;
    }
    if (auto body = after_tag(message, "[HOSTLOG_DROPS]")) {
        if (auto drops = parse_drops(*body)) {
            drops->line = line_number;
            visitor_.on_drops(*drops);
        } else {
            malformed("[HOSTLOG_DROPS]");
        }
        return;
    }
    if (auto body = after_tag(message, "host-orch phase=")) {
        // Re-read from `phase=` so the field reader sees every key.
        std::string_view fields(body->data() - 6, body->size() + 6);
        if (auto phase = parse_host_orch(fields)) {
            phase->line = line_number;
            visitor_.on_host_orch(*phase);
        } else {
            malformed("host-orch");
        }
        return;
    }
    if (auto body = after_tag(message, " bind phase=");
        body || message.starts_with("bind phase=")) {
        std::string_view fields =
            body ? std::string_view(body->data() - 6, body->size() + 6) : message.substr(5);
        if (auto phase = parse_legacy_bind(fields)) {
            phase->line = line_number;
            visitor_.on_legacy_bind(*phase);
        } else {
            malformed("bind phase");
        }
        return;
    }
    if (message.find("AICore record slot(s) with start_time=0") != std::string_view::npos) {
        if (auto skip = parse_collector_skip(message)) {
            skip->line = line_number;
            visitor_.on_collector_skip(*skip);
            return;
        }
    }
    visitor_.on_other(OtherRecord{envelope.level, envelope.func, message, line_number});
}

HostLogStats read_host_log(std::istream& in, HostLogVisitor& visitor) {
    HostLogReader reader(visitor);
    io::LineReader lines(in);
    std::string_view line;
    while (lines.next(line)) reader.feed(line, lines.line_number());
    return reader.stats();
}

namespace {

/// Keeps every event of a small log.
class Collector final : public HostLogVisitor {
  public:
    explicit Collector(HostLog& log) : log_(log) {}
    void on_span(const Span& span) override { log_.spans.push_back(span); }
    void on_clock_anchor(const ClockAnchor& anchor) override { log_.anchors.push_back(anchor); }
    void on_drops(const HostLogDrops& drops) override { log_.drops.push_back(drops); }
    void on_host_orch(const HostOrchPhase& phase) override { log_.host_orch.push_back(phase); }
    void on_legacy_bind(const LegacyBindPhase& phase) override {
        log_.legacy_bind.push_back(phase);
    }
    void on_chip_ready(const ChipProcessReady& ready) override { log_.chip_ready.push_back(ready); }
    void on_collector_skip(const CollectorSkip& skip) override {
        log_.collector_skips.push_back(skip);
    }

  private:
    HostLog& log_;
};

}  // namespace

HostLog parse_host_log(std::string_view text) {
    HostLog log;
    Collector collector(log);
    HostLogReader reader(collector);
    io::LineReader lines(text);
    std::string_view line;
    while (lines.next(line)) reader.feed(line, lines.line_number());
    log.stats = reader.stats();
    return log;
}

HostLog parse_host_log(std::istream& in) {
    HostLog log;
    Collector collector(log);
    log.stats = read_host_log(in, collector);
    return log;
}

std::vector<HostLogDrops> HostLog::final_drops() const {
    std::map<std::uint64_t, HostLogDrops> by_pid;
    for (const HostLogDrops& item : drops) {
        auto [it, inserted] = by_pid.try_emplace(item.pid, item);
        if (!inserted && item.total > it->second.total) it->second = item;
    }
    std::vector<HostLogDrops> out;
    for (auto& [pid, item] : by_pid) out.push_back(item);
    return out;
}

std::string drops_warning(const HostLogDrops& drops) {
    return fmt::format(
        "pid {} dropped {} host-log record(s) before they reached the destination "
        "(queue_full={} claim_exhausted={} output_failed={} not_admitted={}); the timing below "
        "is computed from an incomplete log",
        drops.pid, drops.total, drops.queue_full, drops.claim_exhausted, drops.output_failed,
        drops.not_admitted);
}

void report_losses(const HostLog& log, const std::string& source, Diagnostics& diagnostics) {
    const HostLogStats& stats = log.stats;
    if (stats.torn_spans > 0) {
        diagnostics.warn(source, 0,
                         fmt::format("{} of {} [STRACE] records are incomplete and are excluded "
                                     "from the timing",
                                     stats.torn_spans, stats.span_heads));
    }
    if (stats.cut_records > 0) {
        diagnostics.note(source, 0,
                         fmt::format("{} record(s) cut at the 512-byte limit (ending in '~'); "
                                     "their text is lost and was not read",
                                     stats.cut_records));
    }
    for (const HostLogDrops& drops : log.final_drops())
        diagnostics.warn(source, drops.line, drops_warning(drops));
}

}  // namespace ptune::host
