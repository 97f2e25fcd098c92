// The one table of artifact sources (source.hpp): advise loops over it in this order.

#include "sources.hpp"

namespace ptune::advise {

namespace {

const SourceRow kSources[] = {
    {"bench", "benchmark logs (--log): effective_us per case; with --baseline, bench-gate",
     &make_bench_source},
    {"swimlane", "swimlane records, deps.json, names: the schedule (L3 trees: every rank)",
     [] { return l3_fan_out(make_swimlane_source(), l3::Source::Swimlane); }},
    {"mem", "the on-chip memory report, else the pass dump", &make_memory_source},
    {"pmu", "pmu.csv: each kernel's bottleneck pipe (L3 trees: every rank)",
     [] { return l3_fan_out(make_pmu_source(), l3::Source::Pmu); }},
    {"hints", "perf_hints.log, summarised per hint code", &make_hints_source},
    {"host", "host logs, host-strace, host_phase_records.jsonl and --log host spans",
     &make_host_source},
    {"scope", "scope_stats.jsonl: ring pressure per scope", &make_scope_source},
    {"pipe-trace", "core swimlane traces: per-pipe busy time and exposed load of one kernel",
     &make_pipetrace_source},
    {"serving", "serving-strace-swimlane.json: tasks per worker process, device lanes",
     &make_serving_source},
};

}  // namespace

std::span<const SourceRow> source_table() {
    return kSources;
}

}  // namespace ptune::advise
