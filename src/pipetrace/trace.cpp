// The core swimlane trace reader (upstream-2026-12.md §4.4 step 1, §4.5) and the analysis
// (§4.4 steps 2-5): unions of sorted intervals, overlaps by a two-pointer walk, O(n log n).

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "ptune/pipetrace/pipeline.hpp"
#include "ptune/pipetrace/trace_events.hpp"

namespace ptune::pipetrace {

std::optional<pmu::Pipe> pipe_of_lane(std::string_view tid) {
    if (auto hash = tid.find('#'); hash != std::string_view::npos) tid = tid.substr(0, hash);
    static const std::pair<std::string_view, pmu::Pipe> kLanes[] = {
        {"MTE1", pmu::Pipe::Mte1},  {"MTE2", pmu::Pipe::Mte2},    {"MTE3", pmu::Pipe::Mte3},
        {"CUBE", pmu::Pipe::Cube},  {"FIXP", pmu::Pipe::Fixpipe}, {"FIXPIPE", pmu::Pipe::Fixpipe},
        {"VECTOR", pmu::Pipe::Vec}, {"SCALAR", pmu::Pipe::Scalar}};
    for (const auto& [lane, pipe] : kLanes) {
        if (tid == lane) return pipe;
    }
    return std::nullopt;
}

bool is_non_pipeline_lane(std::string_view tid) {
    if (auto hash = tid.find('#'); hash != std::string_view::npos) tid = tid.substr(0, hash);
    return tid == "CACHEMISS" || tid == "FLOWCTRL" || tid == "ALL";
}

bool is_flag_name(std::string_view name) {
    return name == "SET_FLAG" || name == "WAIT_FLAG" || name.rfind("BAR", 0) == 0;
}

namespace {

// Builds the Trace from the events, keeping B/E flag pairs only as counts.
class TraceBuilder {
  public:
    TraceBuilder(Trace& trace, Diagnostics& diagnostics)
        : trace_(trace), diagnostics_(diagnostics) {}

    void add(const TraceEvent& event) {
        ++trace_.events;
        const std::string& ph = event.ph.text;
        bool timed = ph == "X" || ph == "B" || ph == "E";
        if (!timed) return;
        if (!event.pid.is_string() || event.pid.text.rfind("core", 0) != 0) {
            ++trace_.non_core;
            return;
        }
        std::string tid = event.tid.is_string() ? event.tid.text : event.tid.key();
        if (tid.find('#') != std::string::npos) trace_.perfetto = true;
        if (ph == "X") return instruction(event, tid);
        // B/E: flags matched by (pid, tid, id); an unmatched side is a zero-length flag.
        std::string key = event.pid.text + '\n' + tid + '\n' + event.id.key();
        if (ph == "B") {
            if (open_[key]++ > 0) ++trace_.unpaired_flags;  // a B overwritten by a later B
        } else if (auto it = open_.find(key); it != open_.end() && it->second > 0) {
            it->second = 0;
            ++trace_.flags;
        } else {
            ++trace_.unpaired_flags;
        }
    }

    void finish() {
        for (const auto& [key, count] : open_) trace_.unpaired_flags += count;
    }

  private:
    void instruction(const TraceEvent& event, const std::string& tid) {
        std::string why;
        auto span = span_of(event, why);
        if (!span) return skip(event, why);
        if (is_flag_name(event.name.text)) {
            ++trace_.flags;
            return;
        }
        if (is_non_pipeline_lane(tid)) return;
        SubCore& core = subcore(event.pid.text);
        auto pipe = pipe_of_lane(tid);
        if (!pipe) {
            ++core.other_lanes[tid];
            return;
        }
        core.pipes[static_cast<std::size_t>(*pipe)].push_back(
            {span->first, span->first + span->second});
        ++trace_.instructions;
        if (event.name.text == "MMAD") ++trace_.mmad;
        if (event.name.text == "FIX_L0C_TO_DST") ++trace_.fix_l0c;
    }
    void skip(const TraceEvent& event, const std::string& why) {
        ++trace_.skipped;
        diagnostics_.warn(trace_.source, event.line, why + "; event skipped");
    }
    SubCore& subcore(const std::string& name) {
        auto [it, fresh] = index_.try_emplace(name, trace_.subcores.size());
        if (fresh) trace_.subcores.push_back(SubCore{name, {}, {}});
        return trace_.subcores[it->second];
    }

    Trace& trace_;
    Diagnostics& diagnostics_;
    std::unordered_map<std::string, std::size_t> index_;
    std::unordered_map<std::string, std::size_t> open_;
};

// The union of intervals, sorted and merged (O(n log n)).
std::vector<Interval> merged_intervals(std::vector<Interval> intervals) {
    std::sort(intervals.begin(), intervals.end(),
              [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
    std::vector<Interval> out;
    for (const Interval& one : intervals) {
        if (!out.empty() && one.begin <= out.back().end) {
            out.back().end = std::max(out.back().end, one.end);
        } else {
            out.push_back(one);
        }
    }
    return out;
}

double union_length(const std::vector<Interval>& unions) {
    double sum = 0;
    for (const Interval& one : unions) sum += one.length();
    return sum;
}

// |A ∩ B| of two merged unions, by a two-pointer walk.
double union_intersection(const std::vector<Interval>& a, const std::vector<Interval>& b) {
    double sum = 0;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        double lo = std::max(a[i].begin, b[j].begin);
        double hi = std::min(a[i].end, b[j].end);
        if (hi > lo) sum += hi - lo;
        (a[i].end < b[j].end) ? ++i : ++j;
    }
    return sum;
}

std::vector<Interval> union_of_two(const std::vector<Interval>& a, const std::vector<Interval>& b) {
    std::vector<Interval> both = a;
    both.insert(both.end(), b.begin(), b.end());
    return merged_intervals(std::move(both));
}

SelfCheck run_self_check(const Trace& trace, std::optional<std::size_t> n_blocks) {
    SelfCheck check{trace.mmad, trace.fix_l0c, n_blocks, true, false, ""};
    if (trace.syntax_error_line) {
        check.truncated = true;
        check.verdict =
            fmt::format("truncated export: no timing conclusion (the JSON breaks off at line {})",
                        *trace.syntax_error_line);
        return check;
    }
    if (check.mmad == 0 && check.fix_l0c == 0) {
        check.applicable = false;
        check.verdict = "no MMAD or FIX_L0C_TO_DST: the self-check does not apply (no cube work)";
        return check;
    }
    if (check.mmad != check.fix_l0c) {
        check.truncated = true;
        check.verdict = fmt::format(
            "truncated export: no timing conclusion (MMAD {} and FIX_L0C_TO_DST {} differ)",
            check.mmad, check.fix_l0c);
    } else if (n_blocks && check.mmad < *n_blocks) {
        check.truncated = true;
        check.verdict = fmt::format(
            "truncated export: no timing conclusion (MMAD = FIX_L0C_TO_DST = {}, fewer than "
            "n_blocks {})",
            check.mmad, *n_blocks);
    } else if (n_blocks && check.mmad > *n_blocks) {
        check.verdict = fmt::format(
            "MMAD = FIX_L0C_TO_DST = {}, more than n_blocks {}: is --n-blocks the loop trip "
            "count?",
            check.mmad, *n_blocks);
    } else if (n_blocks) {
        check.verdict =
            fmt::format("consistent: MMAD = FIX_L0C_TO_DST = n_blocks = {}", check.mmad);
    } else {
        check.verdict = fmt::format(
            "MMAD = FIX_L0C_TO_DST = {} (give --n-blocks to check them against the trip count)",
            check.mmad);
    }
    return check;
}

}  // namespace

Result<Trace> parse_trace(std::istream& in, const std::string& source, Diagnostics& diagnostics) {
    Trace trace;
    trace.source = source;
    TraceBuilder builder(trace, diagnostics);
    auto end = read_trace_events(in, source, diagnostics,
                                 [&](const TraceEvent& event) { builder.add(event); });
    if (!end) return end.error();
    builder.finish();
    trace.syntax_error_line = end->syntax_error_line;
    trace.syntax_error = end->syntax_error;
    return trace;
}

Analysis analyze(const Trace& trace, const AnalyzeOptions& options) {
    Analysis analysis;
    analysis.label = options.label;
    analysis.kernel = kernel_of_label(options.label);
    analysis.check = run_self_check(trace, options.n_blocks);
    bool any = false;
    for (const SubCore& core : trace.subcores) {
        SubCoreStats stats;
        stats.name = core.name;
        std::array<std::vector<Interval>, pmu::kPipeCount> unions;
        bool core_any = false;
        for (pmu::Pipe pipe : kPipeOrder) {
            const auto& intervals = core.pipes[static_cast<std::size_t>(pipe)];
            if (intervals.empty()) continue;
            auto& u = unions[static_cast<std::size_t>(pipe)] = merged_intervals(intervals);
            PipeStats row{pipe, intervals.size(), 0, union_length(u), 0};
            for (const Interval& one : intervals) row.instr_time += one.length();
            stats.begin = core_any ? std::min(stats.begin, u.front().begin) : u.front().begin;
            stats.end = core_any ? std::max(stats.end, u.back().end) : u.back().end;
            core_any = true;
            stats.pipes.push_back(row);
        }
        if (!core_any) continue;
        stats.span = stats.end - stats.begin;
        double busiest = -1;
        for (PipeStats& row : stats.pipes) {
            row.utilisation = stats.span > 0 ? row.busy / stats.span : 0;
            if (row.utilisation > busiest) {
                busiest = row.utilisation;
                stats.busiest = row.pipe;
            }
        }
        for (std::size_t i = 0; i < stats.pipes.size(); ++i) {
            for (std::size_t j = i + 1; j < stats.pipes.size(); ++j) {
                pmu::Pipe a = stats.pipes[i].pipe, b = stats.pipes[j].pipe;
                stats.overlaps.push_back({a, b,
                                          union_intersection(unions[static_cast<std::size_t>(a)],
                                                             unions[static_cast<std::size_t>(b)])});
            }
        }
        const auto& mte2 = unions[static_cast<std::size_t>(pmu::Pipe::Mte2)];
        stats.mte2_busy = union_length(mte2);
        stats.mte2_compute_overlap = union_intersection(
            mte2, union_of_two(unions[static_cast<std::size_t>(pmu::Pipe::Cube)],
                               unions[static_cast<std::size_t>(pmu::Pipe::Vec)]));
        stats.exposed_load = stats.mte2_busy - stats.mte2_compute_overlap;
        stats.exposed_share = stats.span > 0 ? stats.exposed_load / stats.span : 0;
        analysis.begin = any ? std::min(analysis.begin, stats.begin) : stats.begin;
        analysis.end = any ? std::max(analysis.end, stats.end) : stats.end;
        any = true;
        analysis.subcores.push_back(std::move(stats));
    }
    analysis.span = analysis.end - analysis.begin;
    for (const SubCoreStats& stats : analysis.subcores) {
        if (stats.exposed_load > 0 &&
            (analysis.exposed_subcore.empty() || stats.exposed_share > analysis.exposed_share)) {
            analysis.exposed_subcore = stats.name;
            analysis.exposed_load = stats.exposed_load;
            analysis.exposed_share = stats.exposed_share;
        }
        if (analysis.check.truncated) continue;
        for (const PipeStats& row : stats.pipes) {
            if (!analysis.bottleneck || row.utilisation > analysis.bottleneck_utilisation) {
                analysis.bottleneck = row.pipe;
                analysis.bottleneck_utilisation = row.utilisation;
                analysis.bottleneck_subcore = stats.name;
            }
        }
    }
    return analysis;
}

}  // namespace ptune::pipetrace
