// Host-side facts for bench-summary and advise (upstream-2026-09.md §2.3, §2.7, §2.8).

#include "ptune/host/facts.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

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
        BindBreakdown& bind = breakdown(span.pid, span.inv);
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
    void on_host_orch(const HostOrchPhase& phase) override { facts_.host_orch.push_back(phase); }
    void on_legacy_bind(const LegacyBindPhase& phase) override {
        // A new bind starts when a segment repeats.
        bool repeat = legacy_ == kNone ||
                      std::any_of(facts_.binds[legacy_].segments.begin(),
                                  facts_.binds[legacy_].segments.end(),
                                  [&](const BindSegment& s) { return s.segment == phase.segment; });
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
    BindBreakdown& breakdown(std::uint64_t pid, std::uint64_t inv) {
        auto [it, inserted] = index_.try_emplace({pid, inv}, facts_.binds.size());
        if (inserted) {
            BindBreakdown bind;
            bind.pid = pid;
            bind.inv = inv;
            facts_.binds.push_back(std::move(bind));
        }
        legacy_ = kNone;
        return facts_.binds[it->second];
    }

    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    HostLogFacts& facts_;
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::size_t> index_;  ///< (pid, inv)
    std::size_t legacy_ = kNone;  ///< the legacy bind being filled
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
            if (it->is_regular_file(error) && wanted(it->path())) files.push_back(it->path());
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

std::vector<render::Table> host_tables(const HostFacts& facts) {
    std::vector<render::Table> tables;
    if (!facts.logs.empty()) {
        render::Table losses;
        losses.title = "Host logs";
        losses.columns = {
            "file", "spans", "torn", "cut '~'", "dropped", "reason", "swimlane slots lost"};
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

    render::Table binds;
    binds.title = "Bind segments (chip.run.bind.<segment>)";
    binds.columns = {"file", "pid", "inv", "segment", "us", "% of bind", "quantities"};
    binds.align = {render::Align::Left, render::Align::Right, render::Align::Right,
                   render::Align::Left, render::Align::Right, render::Align::Right,
                   render::Align::Left};
    for (const HostLogFacts& log : facts.logs) {
        std::string file = fs::path(log.source).filename().string();
        for (const BindBreakdown& bind : log.binds) {
            std::int64_t whole = bind.bind_dur_ns.value_or(0);
            if (!bind.bind_dur_ns) {
                // Segments partition chip.run.bind: their sum is the bind when the span is absent.
                for (const BindSegment& segment : bind.segments) whole += segment.dur_ns;
            }
            for (const BindSegment& segment : bind.segments) {
                binds.rows.push_back({file, bind.legacy ? "-" : std::to_string(bind.pid),
                                      bind.legacy ? "(bind phase=)" : std::to_string(bind.inv),
                                      segment.segment, micros(segment.dur_ns),
                                      share(segment.dur_ns, whole), quantities(segment)});
            }
        }
    }
    if (!binds.rows.empty()) tables.push_back(std::move(binds));

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
    }
    if (!orch.rows.empty()) tables.push_back(std::move(orch));

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
            std::int64_t host_orch = 0, bind = 0;
            for (const PhaseRecord& record : pass.records) {
                if (!is_bind_segment(record.phase)) continue;
                bind += record.end_ns - record.start_ns;
                if (record.phase == "host_orch") host_orch += record.end_ns - record.start_ns;
            }
            // The chip.run.bind span of the same invocation, when a host log has it.
            for (const HostLogFacts& log : facts.logs) {
                for (const BindBreakdown& candidate : log.binds) {
                    if (!candidate.legacy && candidate.pid == pass.pid &&
                        candidate.inv == pass.inv && candidate.bind_dur_ns)
                        bind = *candidate.bind_dur_ns;
                }
            }
            passes.rows.push_back(
                {std::to_string(pass.pid), std::to_string(pass.inv),
                 std::to_string(pass.records.size()), micros(host_orch), micros(bind),
                 share(host_orch, bind),
                 pass.dropped > 0 ? std::to_string(pass.dropped) + " (incomplete)" : "0"});
        }
        tables.push_back(std::move(passes));
    }
    return tables;
}

}  // namespace ptune::host
