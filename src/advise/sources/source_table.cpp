// The one table of artifact sources (source.hpp): advise loops over it in this order.

#include "sources.hpp"

namespace ptune::advise {

namespace {

// clang-format off
const SourceRow kSources[] = {
    // benchmark logs (--log): effective_us per case; with --baseline, bench-gate's comparison
    {"bench", &make_bench_source},
    // swimlane records, deps.json, names: the schedule (L3 trees: every rank)
    {"swimlane", [] { return l3_fan_out(make_swimlane_source(), l3::Source::Swimlane); }},
    // the on-chip memory report, else the pass dump
    {"mem", &make_memory_source},
    // pmu.csv: each kernel's bottleneck pipe (L3 trees: every rank)
    {"pmu", [] { return l3_fan_out(make_pmu_source(), l3::Source::Pmu); }},
    // perf_hints.log, summarised per hint code
    {"hints", &make_hints_source},
    // host logs, host-strace, host_phase_records.jsonl and the host spans of --log
    {"host", &make_host_source},
    // scope_stats.jsonl: ring pressure per scope
    {"scope", &make_scope_source},
    // core swimlane traces: per-pipe busy time and exposed load of one kernel
    {"pipe-trace", &make_pipetrace_source},
    // serving-strace-swimlane.json: tasks per worker process, device lanes
    {"serving", &make_serving_source},
    // distributed_meta.json, dispatch_program.json, binary_context.json: what ran where (L3)
    {"build", &make_build_source},
};
// clang-format on

}  // namespace

std::span<const SourceRow> source_table() {
    return kSources;
}

}  // namespace ptune::advise
