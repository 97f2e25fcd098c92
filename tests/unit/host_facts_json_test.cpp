// Host facts as data (bench-summary --format json, key `host`) and the folding that keeps a
// long host log's memory flat: past kDetailedBinds invocations / kDetailedHostOrch host-orch
// lines, segments and kinds are summed (docs/bench-summary.md "JSON: host").

#include <sstream>
#include <string>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ptune/host/facts.hpp"

namespace host_facts_json_test {

using namespace ptune;
using namespace ptune::host;

namespace {

/// The eight host-orch kinds a bind reports.
constexpr const char* kKinds[] = {"submit_task",      "alloc_tensors",        "graph_submit",
                                  "build_definition", "record_in_graph_task", "graph_begin",
                                  "recording_wait",   "graph_commit"};

/// `count` invocations of pid 7, each with two bind segments (args 1000 + inv ns, host_orch
/// 2000 ns), its chip.run.bind span (3000 + inv ns) and eight host-orch lines.
std::string many_invocations(std::size_t count) {
    std::string text;
    for (std::size_t inv = 1; inv <= count; ++inv) {
        auto span = [&](int depth, const char* name, std::int64_t dur, const char* attrs) {
            text += fmt::format(
                "[mono_ns=1][T0x1][TIMING] emit_host_span: [STRACE] v=1 pid=7 tid=7 inv={} "
                "hid=ab depth={} name={} ts={} dur={} {}\n",
                inv, depth, name, 1000000 * inv, dur, attrs);
        };
        span(2, "chip.run.bind.args", 1000 + static_cast<std::int64_t>(inv), "bytes=64");
        span(2, "chip.run.bind.host_orch", 2000, "");
        for (const char* kind : kKinds)
            text += fmt::format(
                "[mono_ns=2][T0x1][TIMING] report: [host_phase_trace.cpp:212] host-orch "
                "phase={} total_ns=100 count=1 detail_sum=2 dropped=0\n",
                kind);
        span(1, "chip.run.bind", 3000 + static_cast<std::int64_t>(inv), "");
    }
    return text;
}

}  // namespace

TEST_CASE("host facts: a long log keeps the first invocations and folds the rest",
          "[host][host-json]") {
    const std::size_t n = kDetailedBinds + 72;
    std::istringstream in(many_invocations(n));
    HostLogFacts log = read_host_log_facts(in, "host.7.log");
    REQUIRE(log.binds.size() == kDetailedBinds);
    CHECK(log.binds.back().inv == kDetailedBinds);
    CHECK(log.binds.back().segments.size() == 2);
    // 8 host-orch lines per invocation: the first kDetailedHostOrch kept, the rest folded.
    const std::size_t lines = 8 * n;
    REQUIRE(lines > kDetailedHostOrch);
    CHECK(log.host_orch.size() == kDetailedHostOrch);
    CHECK(log.folded.host_orch_lines == lines - kDetailedHostOrch);
    REQUIRE(log.folded.host_orch.size() == 8);
    const auto per_kind = static_cast<std::int64_t>((lines - kDetailedHostOrch) / 8);
    CHECK(log.folded.host_orch[0].kind == "submit_task");
    CHECK(log.folded.host_orch[0].total_ns == 100 * per_kind);
    CHECK(log.folded.host_orch[0].count == static_cast<std::uint64_t>(per_kind));
    CHECK(log.folded.host_orch[0].detail_sum == 2 * per_kind);

    CHECK(log.folded.binds == 72);
    CHECK(log.folded.binds_with_span == 72);
    std::int64_t bind_ns = 0, args_ns = 0;
    for (std::size_t inv = kDetailedBinds + 1; inv <= n; ++inv) {
        bind_ns += 3000 + static_cast<std::int64_t>(inv);
        args_ns += 1000 + static_cast<std::int64_t>(inv);
    }
    CHECK(log.folded.bind_ns == bind_ns);
    REQUIRE(log.folded.segments.size() == 2);
    CHECK(log.folded.segments[0].segment == "args");
    CHECK(log.folded.segments[0].pid == 7);
    CHECK(log.folded.segments[0].count == 72);
    CHECK(log.folded.segments[0].total_ns == args_ns);
    CHECK(log.folded.segments[0].max_ns == 1000 + static_cast<std::int64_t>(n));

    HostFacts facts;
    facts.logs.push_back(log);
    auto tables = host_tables(facts);
    REQUIRE(tables.size() == 3);  // losses, bind segments, host-orch
    const auto& folded_row = tables[1].rows[2 * kDetailedBinds];
    CHECK(folded_row[2] == "+72 more");
    CHECK(folded_row[3] == "args");
    CHECK(folded_row[6] == fmt::format("mean of 72, max {:.1f} us", (1000.0 + n) / 1000.0));
    CHECK(tables[2].rows.back()[1] ==
          fmt::format("graph_commit (sum of the {} later lines)", lines - kDetailedHostOrch));

    nlohmann::json json = host_json(facts);
    CHECK(json["schema"] == 1);
    const auto& folded = json["logs"][0]["folded"];
    CHECK(folded["binds"] == 72);
    CHECK(folded["legacy_binds"] == 0);
    CHECK(folded["bind_ns"] == bind_ns);
    CHECK(folded["segments"][0]["total_ns"] == args_ns);
    CHECK(folded["segments"][0]["share_of_bind"].get<double>() ==
          Approx(static_cast<double>(args_ns) / static_cast<double>(bind_ns)));
    CHECK_FALSE(folded["host_orch"][0].contains("line"));
}

TEST_CASE("host facts as JSON: every table of the text output, in ns", "[host][host-json]") {
    Diagnostics diagnostics;
    HostFacts facts = collect_host_facts({std::string(PTUNE_TEST_DATA) + "/host"}, diagnostics);
    nlohmann::json json = host_json(facts);
    REQUIRE(json["logs"].size() == 2);
    const auto& log = json["logs"][1];
    CHECK(log["file"].get<std::string>().ends_with("host.3810442.log"));
    CHECK(log["cut_records"] == 1);
    CHECK(log["swimlane_empty_slots_skipped"] == 1023);
    REQUIRE(log["drops"].size() == 1);
    CHECK(log["drops"][0]["total"] == 37);
    CHECK(log["drops"][0]["dominant_reason"] == "queue_full");
    REQUIRE(log["binds"].size() == 1);
    CHECK(log["binds"][0]["bind_ns"] == 60400);
    const auto& host_orch = log["binds"][0]["segments"][6];
    CHECK(host_orch["segment"] == "host_orch");
    CHECK(host_orch["dur_ns"] == 24200);
    CHECK(host_orch["share_of_bind"].get<double>() == Approx(24200.0 / 60400.0));
    CHECK(host_orch["attrs"]["minflt"] == "88");
    CHECK(log["host_orch"].size() == 8);
    CHECK(log["host_orch"][3]["detail_sum"] == 3);
    CHECK(log["folded"]["binds"] == 0);
    CHECK(log["folded"]["bind_ns"].is_null());
    // The strace sink has no drops: an empty list, never a missing key.
    CHECK(json["logs"][0]["drops"].empty());

    REQUIRE(json["phase_records"].size() == 1);
    const auto& passes = json["phase_records"][0]["passes"];
    REQUIRE(passes.size() == 2);
    CHECK(passes[0]["bind_ns"] == 60400);  // the host log's chip.run.bind span
    CHECK(passes[0]["host_orch_ns"] == 24200);
    CHECK(passes[0]["host_orch_share"].get<double>() == Approx(24200.0 / 60400.0));
    CHECK(json["phase_records"][0]["kinds"][0]["kind"] == "bind_segment");
}

}  // namespace host_facts_json_test
