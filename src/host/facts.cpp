// Host-side facts for bench-summary and advise (upstream-2026-09.md §2.3, §2.7, §2.8).

#include "ptune/host/facts.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ptune/core/found_files.hpp"
#include "ptune/core/io.hpp"

namespace ptune::host {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPhaseRecordsName = "host_phase_records.jsonl";

/// Keeps bind segments per invocation, drops per pid and host-orch lines.
class FactsVisitor final : public HostLogVisitor {
  public:
    explicit FactsVisitor(HostLogFacts& facts) : facts_(facts) {}

    void on_span(const Span& span) override {
        std::string_view segment;
        SpanFamily family = classify_span(span.name, &segment);
        if (family != SpanFamily::BindSegment && family != SpanFamily::Bind) return;
        BindBreakdown* detailed = breakdown(span.pid, span.inv);
        if (detailed == nullptr) {
            fold(span.pid, span.inv, family == SpanFamily::Bind ? std::string_view() : segment,
                 span.dur);
            return;
        }
        BindBreakdown& bind = *detailed;
        if (family == SpanFamily::Bind) {
            if (!bind.bind_dur_ns) bind.bind_dur_ns = span.dur;
            return;
        }
        bind.segments.push_back({std::string(segment), span.ts, span.dur, span.attrs});
    }
    void on_drops(const HostLogDrops& drops) override {
        auto it = std::find_if(facts_.drops.begin(), facts_.drops.end(),
                               [&](const HostLogDrops& d) { return d.pid == drops.pid; });
        if (it == facts_.drops.end()) {
            facts_.drops.push_back(drops);
        } else if (drops.total > it->total) {
            *it = drops;
        }
    }
    void on_host_orch(const HostOrchPhase& phase) override {
        if (facts_.host_orch.size() < kDetailedHostOrch) {
            facts_.host_orch.push_back(phase);
            return;
        }
        FoldedHostLog& folded = facts_.folded;
        ++folded.host_orch_lines;
        auto it = std::find_if(folded.host_orch.begin(), folded.host_orch.end(),
                               [&](const HostOrchPhase& p) { return p.kind == phase.kind; });
        if (it == folded.host_orch.end()) {
            folded.host_orch.push_back(phase);
            folded.host_orch.back().line = 0;
            return;
        }
        it->total_ns += phase.total_ns;
        it->count += phase.count;
        if (phase.detail_sum) it->detail_sum = it->detail_sum.value_or(0) + *phase.detail_sum;
        it->dropped += phase.dropped;
    }
    void on_legacy_bind(const LegacyBindPhase& phase) override {
        // A new bind starts when a segment repeats.
        bool repeat =
            legacy_ == kNone ||
            (legacy_ == kFolded
                 ? std::find(legacy_seen_.begin(), legacy_seen_.end(), phase.segment) !=
                       legacy_seen_.end()
                 : std::any_of(facts_.binds[legacy_].segments.begin(),
                               facts_.binds[legacy_].segments.end(),
                               [&](const BindSegment& s) { return s.segment == phase.segment; }));
        if (repeat && facts_.binds.size() >= kDetailedBinds) {
            legacy_ = kFolded;
            legacy_seen_.clear();
            ++facts_.folded.legacy_binds;
        }
        if (legacy_ == kFolded) {
            legacy_seen_.push_back(phase.segment);
            fold_segment(0, phase.segment, phase.dur_ns);
            return;
        }
        if (repeat) {
            legacy_ = facts_.binds.size();
            facts_.binds.push_back({});
            facts_.binds.back().legacy = true;
        }
        facts_.binds[legacy_].segments.push_back(
            {phase.segment, phase.start_ns, phase.dur_ns, phase.attrs});
    }
    void on_collector_skip(const CollectorSkip& skip) override {
        facts_.collector_skipped += skip.skipped;
    }

  private:
    /// The detailed bind of `(pid, inv)`, created while fewer than kDetailedBinds exist;
    /// nullptr once the log is past them (the invocation is folded).
    BindBreakdown* breakdown(std::uint64_t pid, std::uint64_t inv) {
        legacy_ = kNone;
        auto it = index_.find({pid, inv});
        if (it != index_.end()) return &facts_.binds[it->second];
        if (facts_.binds.size() >= kDetailedBinds) return nullptr;
        index_.emplace(std::pair(pid, inv), facts_.binds.size());
        BindBreakdown bind;
        bind.pid = pid;
        bind.inv = inv;
        facts_.binds.push_back(std::move(bind));
        return &facts_.binds.back();
    }

    /// A segment (or, with an empty `segment`, the `chip.run.bind` span) of a folded invocation.
    void fold(std::uint64_t pid, std::uint64_t inv, std::string_view segment, std::int64_t dur) {
        FoldedHostLog& folded = facts_.folded;
        // Spans of one invocation are consecutive in practice; a new (pid, inv) is a new bind.
        if (!last_folded_ || *last_folded_ != std::pair(pid, inv)) {
            last_folded_ = std::pair(pid, inv);
            ++folded.binds;
        }
        if (segment.empty()) {
            folded.bind_ns += dur;
            ++folded.binds_with_span;
            return;
        }
        fold_segment(pid, segment, dur);
    }

    void fold_segment(std::uint64_t pid, std::string_view segment, std::int64_t dur) {
        std::vector<FoldedSegment>& segments = facts_.folded.segments;
        auto it = std::find_if(segments.begin(), segments.end(), [&](const FoldedSegment& s) {
            return s.pid == pid && s.segment == segment;
        });
        if (it == segments.end()) {
            segments.push_back({pid, std::string(segment), 0, 0, 0});
            it = segments.end() - 1;
        }
        ++it->count;
        it->total_ns += dur;
        it->max_ns = std::max(it->max_ns, dur);
    }

    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    static constexpr std::size_t kFolded = kNone - 1;  ///< the legacy bind being folded
    HostLogFacts& facts_;
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::size_t> index_;  ///< (pid, inv)
    std::size_t legacy_ = kNone;            ///< the legacy bind being filled
    std::vector<std::string> legacy_seen_;  ///< segments of the folded legacy bind so far
    std::optional<std::pair<std::uint64_t, std::uint64_t>> last_folded_;
};

std::string micros(std::int64_t ns) {
    return fmt::format("{:.1f}", static_cast<double>(ns) / 1000.0);
}

std::string share(std::int64_t part, std::int64_t whole) {
    return whole > 0 ? fmt::format("{:.1f}%",
                                   100.0 * static_cast<double>(part) / static_cast<double>(whole))
                     : "-";
}

/// The quantity attrs of a segment, `k=v` joined (clk and identity keys left out).
std::string quantities(const BindSegment& segment) {
    std::string out;
    for (const auto& [key, value] : segment.attrs) {
        if (!out.empty()) out += ' ';
        out += key + "=" + value;
    }
    return out;
}

/// The bind a segment's share is of: the `chip.run.bind` span, else the segments' sum (they
/// partition it).
std::int64_t bind_whole(const BindBreakdown& bind) {
    std::int64_t whole = bind.bind_dur_ns.value_or(0);
    if (!bind.bind_dur_ns)
        for (const BindSegment& segment : bind.segments) whole += segment.dur_ns;
    return whole;
}

/// One pass's host_orch time and bind (the `chip.run.bind` span of the same invocation when a
/// host log has it, else the sum of its bind segments).
std::pair<std::int64_t, std::int64_t> pass_host_orch_and_bind(const PhasePass& pass,
                                                              const HostFacts& facts) {
    std::int64_t host_orch = 0, bind = 0;
    for (const PhaseRecord& record : pass.records) {
        if (!is_bind_segment(record.phase)) continue;
        bind += record.end_ns - record.start_ns;
        if (record.phase == "host_orch") host_orch += record.end_ns - record.start_ns;
    }
    for (const HostLogFacts& log : facts.logs) {
        for (const BindBreakdown& candidate : log.binds) {
            if (!candidate.legacy && candidate.pid == pass.pid && candidate.inv == pass.inv &&
                candidate.bind_dur_ns)
                bind = *candidate.bind_dur_ns;
        }
    }
    return {host_orch, bind};
}

/// part / whole as a fraction, null when whole is not positive.
nlohmann::json fraction(std::int64_t part, std::int64_t whole) {
    if (whole <= 0) return nullptr;
    return static_cast<double>(part) / static_cast<double>(whole);
}

/// The bind the folded segments of `pid` are shares of: the summed `chip.run.bind` spans when
/// every folded invocation had one (spans, not legacy lines: pid ≠ 0), else the segments' sum.
std::int64_t folded_whole(const FoldedHostLog& folded, std::uint64_t pid) {
    if (pid != 0 && folded.binds_with_span > 0 && folded.binds_with_span == folded.binds)
        return folded.bind_ns;
    std::int64_t whole = 0;
    for (const FoldedSegment& segment : folded.segments)
        if (segment.pid == pid) whole += segment.total_ns;
    return whole;
}

nlohmann::json host_orch_json(const HostOrchPhase& phase) {
    return {{"kind", phase.kind},
            {"total_ns", phase.total_ns},
            {"count", phase.count},
            {"detail_sum",
             phase.detail_sum ? nlohmann::json(*phase.detail_sum) : nlohmann::json(nullptr)},
            {"dropped", phase.dropped},
            {"line", phase.line}};
}

nlohmann::json folded_json(const FoldedHostLog& folded) {
    nlohmann::json segments = nlohmann::json::array();
    for (const FoldedSegment& s : folded.segments)
        segments.push_back({{"pid", s.pid},
                            {"segment", s.segment},
                            {"count", s.count},
                            {"total_ns", s.total_ns},
                            {"max_ns", s.max_ns},
                            {"share_of_bind", fraction(s.total_ns, folded_whole(folded, s.pid))}});
    nlohmann::json folded_orch = nlohmann::json::array();
    for (const HostOrchPhase& phase : folded.host_orch) {
        folded_orch.push_back(host_orch_json(phase));
        folded_orch.back().erase("line");
    }
    return {{"binds", folded.binds},
            {"legacy_binds", folded.legacy_binds},
            {"bind_ns",
             folded.binds_with_span > 0 ? nlohmann::json(folded.bind_ns) : nlohmann::json(nullptr)},
            {"segments", std::move(segments)},
            {"host_orch_lines", folded.host_orch_lines},
            {"host_orch", std::move(folded_orch)}};
}

nlohmann::json log_json(const HostLogFacts& log) {
    nlohmann::json drops = nlohmann::json::array();
    for (const HostLogDrops& d : log.drops)
        drops.push_back(
            {{"pid", d.pid},
             {"total", d.total},
             {"queue_full", d.queue_full},
             {"claim_exhausted", d.claim_exhausted},
             {"output_failed", d.output_failed},
             {"not_admitted", d.not_admitted},
             {"dominant_reason", d.total > 0 ? nlohmann::json(std::string(d.dominant_reason()))
                                             : nlohmann::json(nullptr)},
             {"line", d.line}});
    nlohmann::json binds = nlohmann::json::array();
    for (const BindBreakdown& bind : log.binds) {
        std::int64_t whole = bind_whole(bind);
        nlohmann::json segments = nlohmann::json::array();
        for (const BindSegment& segment : bind.segments)
            segments.push_back({{"segment", segment.segment},
                                {"start_ns", segment.start_ns},
                                {"dur_ns", segment.dur_ns},
                                {"share_of_bind", fraction(segment.dur_ns, whole)},
                                {"attrs", segment.attrs}});
        binds.push_back({{"pid", bind.legacy ? nlohmann::json(nullptr) : nlohmann::json(bind.pid)},
                         {"inv", bind.legacy ? nlohmann::json(nullptr) : nlohmann::json(bind.inv)},
                         {"legacy", bind.legacy},
                         {"bind_ns", bind.bind_dur_ns ? nlohmann::json(*bind.bind_dur_ns)
                                                      : nlohmann::json(nullptr)},
                         {"segments", std::move(segments)}});
    }
    nlohmann::json orch = nlohmann::json::array();
    for (const HostOrchPhase& phase : log.host_orch) orch.push_back(host_orch_json(phase));
    const HostLogStats& st = log.stats;
    return {{"file", log.source},
            {"lines", st.lines},
            {"records", st.records},
            {"spans", st.spans},
            {"torn_spans", st.torn_spans},
            {"cut_records", st.cut_records},
            {"cut_attrs", st.cut_attrs},
            {"shared_lines", st.shared_lines},
            {"malformed_payloads", st.malformed_payloads},
            {"swimlane_empty_slots_skipped", log.collector_skipped},
            {"drops", std::move(drops)},
            {"binds", std::move(binds)},
            {"host_orch", std::move(orch)},
            {"folded", folded_json(log.folded)}};
}

void add_file(const fs::path& path, HostFacts& facts, Diagnostics& diagnostics) {
    std::string name = path.filename().string();
    auto input = io::open_input(path.string());
    if (!input) {
        diagnostics.warn(path.string(), 0, input.error().message);
        return;
    }
    if (name == kPhaseRecordsName) {
        facts.phase_records.push_back(
            {path.string(), parse_phase_records(input->stream(), path.string(), diagnostics)});
        return;
    }
    HostLogFacts log = read_host_log_facts(input->stream(), path.string());
    HostLog losses;
    losses.stats = log.stats;
    losses.drops = log.drops;
    report_losses(losses, path.string(), diagnostics);
    facts.logs.push_back(std::move(log));
}

}  // namespace

std::vector<std::string> HostFacts::inputs() const {
    std::vector<std::string> out;
    for (const HostLogFacts& log : logs) out.push_back(log.source);
    for (const PhaseRecordsFacts& records : phase_records) out.push_back(records.source);
    return out;
}

bool is_host_log_name(std::string_view name) {
    if (!name.ends_with(".log")) return false;
    std::string_view middle;
    if (name.starts_with("host.")) {
        middle = name.substr(5, name.size() - 9);
    } else if (name.starts_with("host-strace.")) {
        middle = name.substr(12, name.size() - 16);
    } else {
        return false;
    }
    return !middle.empty() &&
           std::all_of(middle.begin(), middle.end(), [](char c) { return c >= '0' && c <= '9'; });
}

HostLogFacts read_host_log_facts(std::istream& in, const std::string& source) {
    HostLogFacts facts;
    facts.source = source;
    FactsVisitor visitor(facts);
    facts.stats = read_host_log(in, visitor);
    return facts;
}

HostFacts collect_host_facts(const std::vector<std::string>& inputs, Diagnostics& diagnostics) {
    HostFacts facts;
    auto wanted = [](const fs::path& path) {
        std::string name = path.filename().string();
        return is_host_log_name(name) || name == kPhaseRecordsName;
    };
    // A file named twice (a directory and a file in it, as advise's --log can) is read once.
    std::set<fs::path> seen;
    auto add_once = [&](const fs::path& path) {
        std::error_code error;
        fs::path key = fs::weakly_canonical(path, error);
        if (seen.insert(error ? path : key).second) add_file(path, facts, diagnostics);
    };
    for (const std::string& argument : inputs) {
        // bench inputs may be `LABEL=PATH`.
        std::string path = argument;
        std::error_code error;
        if (!fs::exists(path, error) && argument.find('=') != std::string::npos)
            path = argument.substr(argument.find('=') + 1);
        if (path == io::kStdinName) continue;
        if (!fs::is_directory(path, error)) {
            if (wanted(path)) add_once(path);
            continue;
        }
        std::vector<fs::path> files;
        for (auto it = fs::recursive_directory_iterator(
                 path, fs::directory_options::skip_permission_denied, error);
             !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
            // A FIFO or device there is taken too: add_file() names it in a warning, never
            // opening it (skipping it said nothing).
            if (wanted(it->path()) && (io::is_file(it->path()) || io::is_special_file(it->path())))
                files.push_back(it->path());
        }
        std::sort(files.begin(), files.end());
        for (const fs::path& file : files) add_once(file);
    }
    return facts;
}

void publish(const HostFacts& facts, rules::MetricStore& store) {
    if (facts.empty()) return;
    rules::Subject& run = store.run();
    double dropped = 0, cut = 0, torn = 0, pass_dropped = 0;
    std::uint64_t worst = 0;
    std::string pids;
    for (const HostLogFacts& log : facts.logs) {
        cut += static_cast<double>(log.stats.cut_records);
        torn += static_cast<double>(log.stats.torn_spans);
        for (const HostLogDrops& drops : log.drops) {
            dropped += static_cast<double>(drops.total);
            pids += (pids.empty() ? "" : ", ") + std::to_string(drops.pid);
            if (drops.total > worst) {
                worst = drops.total;
                run.labels["host.drop_reason"] = std::string(drops.dominant_reason());
            }
            run.locations.push_back({log.source, drops.line, 0});
        }
    }
    for (const PhaseRecordsFacts& records : facts.phase_records) {
        for (const PhasePass& pass : records.passes) {
            pass_dropped += static_cast<double>(pass.dropped);
            if (pass.dropped > 0) run.locations.push_back({records.source, pass.line, 0});
        }
    }
    if (!pids.empty()) run.labels["host.drop_pids"] = pids;
    run.metrics["host.log_dropped_records"] = dropped;
    run.metrics["host.log_cut_records"] = cut;
    run.metrics["host.log_torn_spans"] = torn;
    run.metrics["host.phase_passes_dropped"] = pass_dropped;
}

namespace {

void add_host_loss_table(const HostFacts& facts, std::vector<render::Table>& tables) {
    if (!facts.logs.empty()) {
        render::Table losses;
        losses.title = "Host logs";
        losses.columns = {
            "file", "spans", "torn", "cut '~'", "dropped", "reason", "empty slots skipped"};
        losses.align = {render::Align::Left,  render::Align::Right, render::Align::Right,
                        render::Align::Right, render::Align::Right, render::Align::Left,
                        render::Align::Right};
        for (const HostLogFacts& log : facts.logs) {
            std::uint64_t total = 0;
            std::string reason = "-";
            for (const HostLogDrops& drops : log.drops) {
                total += drops.total;
                reason = std::string(drops.dominant_reason());
            }
            losses.rows.push_back(
                {fs::path(log.source).filename().string(), std::to_string(log.stats.spans),
                 std::to_string(log.stats.torn_spans), std::to_string(log.stats.cut_records),
                 std::to_string(total), total > 0 ? reason : "-",
                 std::to_string(log.collector_skipped)});
        }
        tables.push_back(std::move(losses));
    }
}

void add_bind_segment_table(const HostFacts& facts, std::vector<render::Table>& tables) {
    render::Table binds;
    binds.title = "Bind segments (chip.run.bind.<segment>)";
    binds.columns = {"file", "pid", "inv", "segment", "us", "% of bind", "quantities"};
    binds.align = {render::Align::Left, render::Align::Right, render::Align::Right,
                   render::Align::Left, render::Align::Right, render::Align::Right,
                   render::Align::Left};
    for (const HostLogFacts& log : facts.logs) {
        std::string file = fs::path(log.source).filename().string();
        for (const BindBreakdown& bind : log.binds) {
            std::int64_t whole = bind_whole(bind);
            for (const BindSegment& segment : bind.segments) {
                binds.rows.push_back({file, bind.legacy ? "-" : std::to_string(bind.pid),
                                      bind.legacy ? "(bind phase=)" : std::to_string(bind.inv),
                                      segment.segment, micros(segment.dur_ns),
                                      share(segment.dur_ns, whole), quantities(segment)});
            }
        }
        // Invocations past the detailed ones: one row per segment, the mean of the rest.
        for (const FoldedSegment& s : log.folded.segments) {
            std::size_t folded = s.pid == 0 ? log.folded.legacy_binds : log.folded.binds;
            binds.rows.push_back(
                {file, s.pid == 0 ? "-" : std::to_string(s.pid), fmt::format("+{} more", folded),
                 s.segment,
                 micros(s.total_ns / static_cast<std::int64_t>(std::max<std::size_t>(s.count, 1))),
                 share(s.total_ns, folded_whole(log.folded, s.pid)),
                 fmt::format("mean of {}, max {} us", s.count, micros(s.max_ns))});
        }
    }
    if (!binds.rows.empty()) tables.push_back(std::move(binds));
}

void add_host_orch_table(const HostFacts& facts, std::vector<render::Table>& tables) {
    render::Table orch;
    orch.title = "Host orchestration cost shares (host-orch; kinds nest, not intervals)";
    orch.columns = {"file", "kind", "total us", "count", "detail_sum", "dropped"};
    orch.align = {render::Align::Left,  render::Align::Left,  render::Align::Right,
                  render::Align::Right, render::Align::Right, render::Align::Right};
    for (const HostLogFacts& log : facts.logs) {
        std::string file = fs::path(log.source).filename().string();
        for (const HostOrchPhase& phase : log.host_orch) {
            orch.rows.push_back({file, phase.kind, micros(phase.total_ns),
                                 std::to_string(phase.count),
                                 phase.detail_sum ? std::to_string(*phase.detail_sum) : "-",
                                 std::to_string(phase.dropped)});
        }
        for (const HostOrchPhase& phase : log.folded.host_orch) {
            orch.rows.push_back({file,
                                 fmt::format("{} (sum of the {} later lines)", phase.kind,
                                             log.folded.host_orch_lines),
                                 micros(phase.total_ns), std::to_string(phase.count),
                                 phase.detail_sum ? std::to_string(*phase.detail_sum) : "-",
                                 std::to_string(phase.dropped)});
        }
    }
    if (!orch.rows.empty()) tables.push_back(std::move(orch));
}

void add_phase_record_tables(const HostFacts& facts, std::vector<render::Table>& tables) {
    for (const PhaseRecordsFacts& records : facts.phase_records) {
        std::string file = fs::path(records.source).filename().string();
        render::Table kinds;
        kinds.title = fmt::format("Host phases ({}: {} pass(es); kinds nest, never sum them)", file,
                                  records.passes.size());
        kinds.columns = {"phase", "kind", "count", "total us", "p50 us", "max us"};
        kinds.align = {render::Align::Left,  render::Align::Left,  render::Align::Right,
                       render::Align::Right, render::Align::Right, render::Align::Right};
        for (const PhaseKindSummary& kind : summarize_phase_kinds(records.passes)) {
            kinds.rows.push_back({kind.phase,
                                  is_bind_segment(kind.phase) ? "bind segment" : "orchestrator op",
                                  std::to_string(kind.count), micros(kind.total_ns),
                                  micros(kind.p50_ns), micros(kind.max_ns)});
        }
        tables.push_back(std::move(kinds));

        render::Table passes;
        passes.title = fmt::format("Host prepare passes ({})", file);
        passes.columns = {"pid",    "inv", "records", "host_orch us", "bind us", "host_orch share",
                          "dropped"};
        passes.align = {render::Align::Right, render::Align::Right, render::Align::Right,
                        render::Align::Right, render::Align::Right, render::Align::Right,
                        render::Align::Right};
        for (const PhasePass& pass : records.passes) {
            auto [host_orch, bind] = pass_host_orch_and_bind(pass, facts);
            passes.rows.push_back(
                {std::to_string(pass.pid), std::to_string(pass.inv),
                 std::to_string(pass.records.size()), micros(host_orch), micros(bind),
                 share(host_orch, bind),
                 pass.dropped > 0 ? std::to_string(pass.dropped) + " (incomplete)" : "0"});
        }
        tables.push_back(std::move(passes));
    }
}

}  // namespace

std::vector<render::Table> host_tables(const HostFacts& facts) {
    std::vector<render::Table> tables;
    add_host_loss_table(facts, tables);
    add_bind_segment_table(facts, tables);
    add_host_orch_table(facts, tables);
    add_phase_record_tables(facts, tables);
    return tables;
}

nlohmann::json host_json(const HostFacts& facts) {
    nlohmann::json logs = nlohmann::json::array();
    for (const HostLogFacts& log : facts.logs) logs.push_back(log_json(log));
    nlohmann::json phase_records = nlohmann::json::array();
    for (const PhaseRecordsFacts& records : facts.phase_records) {
        nlohmann::json kinds = nlohmann::json::array();
        for (const PhaseKindSummary& kind : summarize_phase_kinds(records.passes))
            kinds.push_back(
                {{"phase", kind.phase},
                 {"kind", is_bind_segment(kind.phase) ? "bind_segment" : "orchestrator_op"},
                 {"count", kind.count},
                 {"total_ns", kind.total_ns},
                 {"p50_ns", kind.p50_ns},
                 {"max_ns", kind.max_ns}});
        nlohmann::json passes = nlohmann::json::array();
        for (const PhasePass& pass : records.passes) {
            auto [host_orch, bind] = pass_host_orch_and_bind(pass, facts);
            passes.push_back({{"pid", pass.pid},
                              {"inv", pass.inv},
                              {"records", pass.records.size()},
                              {"host_orch_ns", host_orch},
                              {"bind_ns", bind},
                              {"host_orch_share", fraction(host_orch, bind)},
                              {"dropped", pass.dropped},
                              {"line", pass.line}});
        }
        phase_records.push_back(
            {{"file", records.source}, {"kinds", std::move(kinds)}, {"passes", std::move(passes)}});
    }
    return {{"schema", 1}, {"logs", std::move(logs)}, {"phase_records", std::move(phase_records)}};
}

}  // namespace ptune::host
