// Host-log reader (upstream-2026-09.md §2): envelopes, bare span lines, cut and torn records,
// drops, anchors and the §2.7 line families, on the composed September fixtures.

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "ptune/host/facts.hpp"
#include "ptune/host/log.hpp"

namespace host_log_test {

using namespace ptune;
using namespace ptune::host;

namespace {

HostLog load(const std::string& name) {
    std::ifstream in(std::string(PTUNE_TEST_DATA) + "/host/" + name, std::ios::binary);
    REQUIRE(in);
    return parse_host_log(in);
}

const Span* find_span(const HostLog& log, std::string_view name, std::uint64_t inv = 1) {
    for (const Span& span : log.spans) {
        if (span.name == name && span.inv == inv) return &span;
    }
    return nullptr;
}

}  // namespace

TEST_CASE("host.<pid>.log: spans, anchor, host-orch, cut record and drops", "[host]") {
    HostLog log = load("host.3810442.log");
    CHECK(log.stats.lines == 30);
    CHECK(log.stats.spans == 18);
    CHECK(log.stats.torn_spans == 0);
    CHECK(log.stats.cut_records == 1);  // the 511-character check_buffer_aliasing record
    REQUIRE(log.anchors.size() == 1);
    CHECK(log.anchors[0].pid == 3810442);
    CHECK(log.anchors[0].mono_ns == 7230954848999980);
    CHECK(log.anchors[0].wall_ns == 1789026867076015257);

    const Span* root = find_span(log, "chip.run");
    REQUIRE(root != nullptr);
    CHECK(root->depth == 0);
    CHECK(root->ts == 7230954940000000);
    CHECK(root->dur == 140000);
    CHECK(root->end() == 7230954940140000);
    CHECK(root->clock == ClockDomain::Host);
    CHECK(root->emitted_mono_ns == 7230954940140300);
    CHECK(root->hid == "9c41e07a2b6d5f13");
    CHECK(root->attr_int("run_epoch") == 5);
    REQUIRE(root->identity());
    CHECK(*root->identity() == DispatchIdentity{1, 1, 0, 1});
    CHECK(classify_span(root->name) == SpanFamily::Root);

    const Span* wall = find_span(log, "chip.run.runner_run.device_wall");
    REQUIRE(wall != nullptr);
    CHECK(wall->clock == ClockDomain::Device);
    CHECK(wall->dur == 12000);
    std::string_view suffix;
    CHECK(classify_span("chip.run.runner_run.device_wall.sched", &suffix) ==
          SpanFamily::DevicePhase);
    CHECK(suffix == "sched");

    const Span* host_orch = find_span(log, "chip.run.bind.host_orch");
    REQUIRE(host_orch != nullptr);
    CHECK(classify_span(host_orch->name, &suffix) == SpanFamily::BindSegment);
    CHECK(suffix == "host_orch");
    CHECK(host_orch->attr_int("minflt") == 88);
    CHECK(host_orch->attr("absent") == nullptr);
    // A record without attrs ends in a space: no attrs, not cut.
    const Span* close = find_span(log, "chip.run.bind.host_view_close");
    REQUIRE(close != nullptr);
    CHECK(close->attrs.empty());
    CHECK_FALSE(close->attrs_cut);
    CHECK_FALSE(close->identity());

    REQUIRE(log.host_orch.size() == 8);
    CHECK(log.host_orch[0].kind == "submit_task");
    CHECK(log.host_orch[0].total_ns == 14900);
    CHECK(log.host_orch[0].count == 3);
    CHECK(log.host_orch[3].kind == "build_definition");
    CHECK(log.host_orch[3].detail_sum == 3);

    REQUIRE(log.collector_skips.size() == 1);
    CHECK(log.collector_skips[0].core == 2);
    CHECK(log.collector_skips[0].skipped == 1023);

    REQUIRE(log.drops.size() == 1);
    CHECK(log.drops[0].total == 37);
    CHECK(log.drops[0].queue_full == 37);
    CHECK(log.drops[0].dominant_reason() == "queue_full");
    CHECK(log.final_drops().size() == 1);

    Diagnostics diagnostics;
    report_losses(log, "host.3810442.log", diagnostics);
    REQUIRE(diagnostics.items().size() == 2);
    CHECK(diagnostics.items()[0].message.find("1 record(s) cut") != std::string::npos);
    CHECK(diagnostics.items()[1].message ==
          "pid 3810442 dropped 37 host-log record(s) before they reached the destination "
          "(queue_full=37 claim_exhausted=0 output_failed=0 not_admitted=0); the timing below "
          "is computed from an incomplete log");
}

TEST_CASE("host-strace and alignment logs: bare [STRACE] lines", "[host]") {
    HostLog strace = load("host-strace.2091377.log");
    CHECK(strace.stats.spans == 20);
    CHECK(strace.anchors.empty());
    const Span* second = find_span(strace, "chip.run", 2);
    REQUIRE(second != nullptr);
    CHECK_FALSE(second->emitted_mono_ns);
    CHECK(*second->identity() == DispatchIdentity{7, 2, 1, 1});

    HostLog alignment = load("host_clock_alignment.3810442.log");
    CHECK(alignment.stats.spans == 6);
    const Span* launch = find_span(alignment, "chip.run.runner_run.aicpu_launch");
    REQUIRE(launch != nullptr);
    CHECK(classify_span(launch->name) == SpanFamily::AicpuLaunch);
    CHECK(launch->dur == 0);
    CHECK(launch->ts == 7230954940077000);
}

TEST_CASE("L3 parent console: ready lines, scheduler spans, two records on one line", "[host]") {
    HostLog log = load("l3_parent_console.log");
    CHECK(log.anchors.size() == 3);
    REQUIRE(log.chip_ready.size() == 2);
    CHECK(log.chip_ready[1].pid == 2091389);
    CHECK(log.chip_ready[1].device == 1);
    CHECK(log.stats.shared_lines == 1);
    REQUIRE(log.spans.size() == 10);
    // The mashed line: the first record's attrs stop where the second envelope starts.
    const Span& loop = log.spans[8];
    CHECK(loop.name == "node.scheduler_loop");
    CHECK(loop.attr_int("spins") == 57);
    CHECK(loop.attrs.size() == 5);
    CHECK(classify_span(loop.name) == SpanFamily::Scheduler);
    CHECK(log.spans[9].name == "node.graph_build");
    CHECK(log.spans[9].emitted_mono_ns == 7230954942500010);
    CHECK(classify_span(log.spans[0].name) == SpanFamily::Setup);
}

TEST_CASE("legacy bind phase lines become intervals", "[host]") {
    HostLog log = load("legacy_bind_phase_lines.log");
    REQUIRE(log.legacy_bind.size() == 4);
    CHECK(log.legacy_bind[0].segment == "args");
    CHECK(log.legacy_bind[0].start_ns == 7230954940006000);
    CHECK(log.legacy_bind[0].dur_ns == 2400);
    CHECK(log.legacy_bind[0].attrs.at("bytes") == "262144");
    CHECK(log.legacy_bind[3].attrs.at("heap_used") == "786432");
}

TEST_CASE("damaged host-log records are counted, never misparsed", "[host]") {
    std::string text =
        // torn span (no dur)
        "[mono_ns=1][T0x1][TIMING] emit_host_span: [STRACE] v=1 pid=1 tid=1 inv=1 hid=0 depth=0 "
        "name=chip.run ts=5\n"
        // a cut host-orch line must not yield a phase
        "[mono_ns=2][T0x1][TIMING] f: [x.cpp:1] host-orch phase=submit_task total_ns=14~\n"
        // a cut drops line must not yield a total
        "[mono_ns=3][T0x1][ERROR] host_log_drops: [HOSTLOG_DROPS] v=1 pid=9 new=3 tot~\n"
        // malformed drops (reason missing)
        "[mono_ns=4][T0x1][ERROR] host_log_drops: [HOSTLOG_DROPS] v=1 pid=9 new=3 total=3\n"
        // span whose attr hit its cap
        "[STRACE] v=1 pid=1 tid=1 inv=2 hid=AB depth=0 name=chip.run ts=5 dur=6 note=abc~\n"
        // bare head glued after a span
        "[STRACE] v=1 pid=1 tid=1 inv=3 hid=0 depth=1 name=a ts=1 dur=1 [STRACE] v=1 pid=1 "
        "tid=1 inv=3 hid=0 depth=1 name=b ts=2 dur=-1\n"
        // a quoted tag is not a record head
        "[mono_ns=5][T0x1][WARN] f: [y.cpp:2] no [STRACE] markers captured\r\n"
        "plain text line\n";
    HostLog log = parse_host_log(text);
    CHECK(log.stats.span_heads == 4);
    CHECK(log.stats.torn_spans == 2);
    CHECK(log.stats.cut_records == 2);
    CHECK(log.stats.malformed_payloads == 1);
    CHECK(log.host_orch.empty());
    CHECK(log.drops.empty());
    REQUIRE(log.spans.size() == 2);
    CHECK(log.spans[0].attrs_cut);
    CHECK(log.spans[0].attrs.at("note") == "abc");
    CHECK(log.spans[0].hid == "ab");
    CHECK(log.spans[1].name == "a");
    CHECK(log.spans[1].attrs.empty());
    Diagnostics diagnostics;
    report_losses(log, "x.log", diagnostics);
    CHECK(diagnostics.items().front().message ==
          "2 of 4 [STRACE] records are incomplete and are excluded from the timing");
}

TEST_CASE("percent_decode", "[host]") {
    CHECK(percent_decode("a%20b%5Bc%5d") == "a b[c]");
    CHECK(percent_decode("100%") == "100%");
    CHECK(percent_decode("%zz") == "%zz");
}

TEST_CASE("host facts: drops, bind segments, host-orch, phase records", "[host]") {
    Diagnostics diagnostics;
    const std::string dir = std::string(PTUNE_TEST_DATA) + "/host";
    HostFacts facts = collect_host_facts({dir}, diagnostics);
    REQUIRE(facts.logs.size() == 2);  // host-strace.2091377.log, host.3810442.log
    REQUIRE(facts.phase_records.size() == 1);
    const HostLogFacts& log = facts.logs[1];
    CHECK(log.source.ends_with("host.3810442.log"));
    REQUIRE(log.drops.size() == 1);
    CHECK(log.drops[0].total == 37);
    CHECK(log.collector_skipped == 1023);
    CHECK(log.host_orch.size() == 8);
    REQUIRE(log.binds.size() == 1);
    CHECK(log.binds[0].bind_dur_ns == 60400);
    REQUIRE(log.binds[0].segments.size() == 10);
    CHECK(log.binds[0].segments[6].segment == "host_orch");
    CHECK(log.binds[0].segments[6].dur_ns == 24200);
    CHECK(facts.logs[0].binds.size() == 2);  // two invocations of the strace sink
    // A file named again beside its directory is read once.
    Diagnostics again;
    CHECK(collect_host_facts({dir, dir + "/host.3810442.log"}, again).logs.size() == 2);

    const auto& passes = facts.phase_records[0].passes;
    REQUIRE(passes.size() == 2);
    CHECK(passes[0].records.size() == 21);
    CHECK(passes[0].records[0].tid == 3810442u);
    bool truncated_note = false;
    for (const auto& item : diagnostics.items()) {
        if (item.severity == Severity::Note && item.line == 3 &&
            item.message.starts_with("truncated last line skipped"))
            truncated_note = true;
    }
    CHECK(truncated_note);

    auto kinds = summarize_phase_kinds(passes);
    auto host_orch = std::find_if(kinds.begin(), kinds.end(),
                                  [](const PhaseKindSummary& k) { return k.phase == "host_orch"; });
    REQUIRE(host_orch != kinds.end());
    CHECK(host_orch->count == 2);

    rules::MetricStore store;
    publish(facts, store);
    CHECK(store.run().metric("host.log_dropped_records") == 37.0);
    CHECK(store.run().metric("host.log_cut_records") == 1.0);
    CHECK(store.run().labels.at("host.drop_reason") == "queue_full");

    auto tables = host_tables(facts);
    REQUIRE(tables.size() == 5);    // losses, bind segments, host-orch, phase kinds, passes
    CHECK(tables[1].rows[6 + 4] ==  // after the strace sink's four segments
          std::vector<std::string>{"host.3810442.log", "3810442", "1", "host_orch", "24.2", "40.1%",
                                   "minflt=88 nvcsw=3 spilled=0"});
    // Pass 1's host_orch share is of the chip.run.bind span the host log holds (60.4 us).
    CHECK(tables[4].rows[0][5] == "40.1%");
}

TEST_CASE("legacy bind phase lines become one bind breakdown", "[host]") {
    std::ifstream in(std::string(PTUNE_TEST_DATA) + "/host/legacy_bind_phase_lines.log");
    HostLogFacts facts = read_host_log_facts(in, "legacy.log");
    REQUIRE(facts.binds.size() == 1);
    CHECK(facts.binds[0].legacy);
    CHECK(facts.binds[0].segments.size() == 4);
    CHECK(is_host_log_name("host.123.log"));
    CHECK(is_host_log_name("host-strace.9.log"));
    CHECK_FALSE(is_host_log_name("host.log"));
    CHECK_FALSE(is_host_log_name("host_clock_alignment.3.log"));
}

}  // namespace host_log_test
