// The six-part performance identity in the history (upstream-2026-12.md §3, docs/HISTORY.md
// "Identity"): stored per run and case, schema-1 databases migrated with empty parts, series
// split at every keyed part with a bridge naming it, idempotent same-identity re-adds, the
// gate's shadow and N/A, and the ABBA confirmation of §3.7.

#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "history_test_db.hpp"
#include "ptune/ciresult/inputs.hpp"
#include "ptune/history/confirm.hpp"
#include "ptune/history/pipeline.hpp"
#include "ptune/history/store.hpp"

namespace history_identity_test {

using namespace ptune;
using namespace ptune::history;
namespace fs = std::filesystem;

namespace {

using test::TempDb;

std::string lane(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/ciresult/lane/" + name;
}

std::unique_ptr<Store> open_db(const std::string& path, bool create = true) {
    OpenOptions options;
    options.create = create;
    auto store = Store::open(path, options);
    REQUIRE(store);
    return std::move(*store);
}

NewRun run_of(const std::string& key, const std::string& time, double value) {
    NewRun run;
    run.info.run_key = key;
    run.info.content_digest = key;
    run.info.commit = key;
    run.info.time = time;
    run.info.toolchain = "cann-8.1";
    run.info.device = "dev-e1";
    run.info.lane = "lib-main-attention";
    run.info.contract = "spec";
    run.info.lineage = "1";
    CaseValue value_;
    value_.name = "attention-csa";
    value_.value_us = value;
    value_.contract = "v1:attention-csa";
    run.cases.push_back(value_);
    return run;
}

std::vector<Series> all_series(Store& store) {
    std::vector<Series> out;
    REQUIRE(store.for_each_series("", [&](Series&& s) {
        out.push_back(std::move(s));
        return ok_status();
    }));
    return out;
}

}  // namespace

TEST_CASE("identity: the parts are stored per run and case and key the series", "[history]") {
    TempDb db("identity-parts");
    auto store = open_db(db.path);
    REQUIRE(store->add(run_of("a", "2026-11-01T00:00:00Z", 540.0)));
    auto b = run_of("b", "2026-11-02T00:00:00Z", 541.0);
    b.info.lineage = "2";  // non-FF: a new lineage generation
    REQUIRE(store->add(b));
    auto c = run_of("c", "2026-11-03T00:00:00Z", 542.0);
    c.info.source_digest = "tree-2";  // the source tree is no series key
    REQUIRE(store->add(c));
    auto runs = store->runs();
    REQUIRE(runs);
    REQUIRE(runs->size() == 3);
    CHECK((*runs)[0].lane == "lib-main-attention");
    CHECK((*runs)[0].contract == "spec");
    CHECK((*runs)[1].lineage == "2");
    const auto series = all_series(*store);
    REQUIRE(series.size() == 2);
    CHECK(series[0].epoch.contract == "v1:attention-csa");  // the case's own contract
    CHECK(series[0].epoch.lineage == "1");
    CHECK(series[0].points.size() == 2);  // a and c: another tree, the same series
    CHECK(series[1].epoch.lineage == "2");
    bool read_contract = false;
    REQUIRE(store->for_each_run([&](const RunInfo&, std::vector<CaseValue>&& values) {
        read_contract = values.at(0).contract == "v1:attention-csa";
        return ok_status();
    }));
    CHECK(read_contract);
}

TEST_CASE("identity: bridges name the differing part", "[history]") {
    const Epoch a("cann-8.1", "dev-e1", "lib-main-attention", "c1", "1");
    Epoch b = a;
    b.toolchain = "cann-8.2";
    REQUIRE(a.differences(b) ==
            std::vector<std::string>{"toolchain epoch changed (cann-8.1 -> cann-8.2)"});
    Bridge bridge;
    bridge.differences = a.differences(b);
    CHECK(bridge.text() == "bridge: toolchain epoch changed (cann-8.1 -> cann-8.2)");
    b.lineage = "2";
    CHECK(a.differences(b).size() == 2);
    CHECK(a.differences(b)[1] == "lineage generation changed (1 -> 2)");
    CHECK(Epoch("t", "d").label() == "t/d");  // schema-1 series keep their label

    BridgeFinder finder;
    const auto point = [](std::int64_t run, const char* time, const char* commit) {
        Point p;
        p.run = run;
        p.time = time;
        p.commit = commit;
        p.value_us = 1.0;
        return p;
    };
    Series one{"x", a, {point(1, "2026-11-01T00:00:00Z", "c1")}};
    Series two{"x",
               Epoch("cann-8.2", "dev-e1", "lib-main-attention", "c1", "1"),
               {point(2, "2026-11-02T00:00:00Z", "c2")}};
    finder.add(two);  // series come in key order, not time order
    finder.add(one);
    const auto bridges = finder.finish();
    REQUIRE(bridges.size() == 1);
    CHECK(bridges[0].run == 2);
    CHECK(bridges[0].text() == "bridge: toolchain epoch changed (cann-8.1 -> cann-8.2)");
}

TEST_CASE("identity: a schema-1 database migrates and its runs keep empty parts", "[history]") {
    TempDb db("identity-migrate");
    fs::copy_file(std::string(PTUNE_TEST_DATA) + "/history/sixty.db", db.path);
    {
        // Read-only, it cannot be migrated: read as it is.
        auto readonly = open_db("file:" + db.path + "?mode=ro", false);
        auto runs = readonly->runs();
        REQUIRE(runs);
        CHECK(runs->size() == 60);
        CHECK(runs->front().lane.empty());
        auto refused = readonly->add(run_of("x", "2026-11-01T00:00:00Z", 1.0));
        REQUIRE_FALSE(refused);
        CHECK_THAT(refused.error().message, Catch::Contains("read-only"));
    }
    auto store = open_db(db.path, false);
    auto runs = store->runs();
    REQUIRE(runs);
    REQUIRE(runs->size() == 60);
    CHECK(runs->front().lane.empty());
    CHECK(runs->front().toolchain == "cann-8.1");
    REQUIRE(store->add(run_of("new", "2026-11-01T00:00:00Z", 540.0)));
    CHECK(all_series(*store).size() == 3);  // two old cases + the lane's
}

TEST_CASE("identity: same-identity re-adds are idempotent, another identity is a new run",
          "[history]") {
    ciresult::install_bench_reader();
    TempDb db("identity-idempotent");
    Diagnostics diagnostics;
    RunMeta meta;
    meta.commit = "c1";
    meta.time = "2026-11-01";
    auto first = add_run(db.path, {}, {lane("shadow/01")}, meta, diagnostics);
    REQUIRE(first);
    CHECK(first->data["added"] == true);
    CHECK(first->data["identity"]["lane"] == "lib-main-attention");
    CHECK(first->data["identity"]["source_tree"] == "4b825dc6");
    CHECK(first->data["identity"]["toolchain_epoch"] == "cann-8.1");
    auto again = add_run(db.path, {}, {lane("shadow/01")}, meta, diagnostics);
    REQUIRE(again);
    CHECK(again->data["added"] == false);
    meta.lineage = "2";
    auto other = add_run(db.path, {}, {lane("shadow/01")}, meta, diagnostics);
    REQUIRE(other);
    CHECK(other->data["added"] == true);
    auto store = open_db(db.path, false);
    auto runs = store->runs();
    REQUIRE(runs);
    REQUIRE(runs->size() == 2);
    // Taken from the lane suite-result.json: lane, contract, epochs, tree; metric_us tracked.
    CHECK((*runs)[0].lane == "lib-main-attention");
    CHECK((*runs)[0].toolchain == "cann-8.1");
    CHECK((*runs)[0].device == "dev-e1");
    CHECK((*runs)[0].source_digest == "4b825dc6");
    const auto series = all_series(*store);
    REQUIRE(series.size() == 2);
    CHECK(series[0].points[0].value_us == 540.0);  // metric_us; the mean is 540.3
    CHECK(series[0].epoch.contract == "dsv4-main-attention-v1:attention-csa");
}

TEST_CASE("identity: the gate holds a new series in shadow and never crosses an identity",
          "[history]") {
    ciresult::install_bench_reader();
    TempDb db("identity-gate");
    Diagnostics diagnostics;
    const auto add = [&](const std::string& input, int day) {
        RunMeta meta;
        meta.commit = fmt::format("c{:02}", day);
        meta.time = fmt::format("2026-11-{:02}", day);
        REQUIRE(add_run(db.path, {}, {input}, meta, diagnostics));
    };
    const auto gate = [&](const std::string& input) {
        auto identity = gate_identity({input}, diagnostics);
        REQUIRE(identity);
        REQUIRE(identity->known);
        auto current = bench::load_run({input}, {}, diagnostics);
        REQUIRE(current);
        auto store = open_db(db.path, false);
        auto baseline = gate_baseline(*store, *current, *identity, {}, diagnostics);
        REQUIRE(baseline);
        return std::move(*baseline);
    };
    for (int i = 1; i <= 9; ++i) add(lane(fmt::format("shadow/{:02}", i)), i);
    auto shadow = gate(lane("candidate"));
    REQUIRE(shadow.held.size() == 1);
    CHECK(shadow.held[0].reason == "shadow (9/10)");
    CHECK(shadow.runs.empty());

    add(lane("shadow/10"), 10);
    auto judged = gate(lane("candidate"));
    CHECK(judged.held.empty());
    CHECK(judged.runs.size() == 10);
    REQUIRE(judged.notes.size() == 1);
    CHECK_THAT(judged.notes[0], Catch::Contains("median 544.5 µs, MAD 2.5 µs"));

    auto other = gate(lane("toolchain-8.2"));
    REQUIRE(other.held.size() == 1);
    CHECK(other.held[0].reason ==
          "shadow (0/10); N/A, no same-identity baseline: bridge: toolchain epoch changed "
          "(cann-8.1 -> cann-8.2)");
    CHECK(other.runs.empty());
}

TEST_CASE("identity: the §3.7 confirmation under the proposal", "[history]") {
    // Parent/candidate/candidate/parent = 545.1/559.8/561.2/544.7 with +10 µs: confirmed.
    auto confirmed = decide("attention-csa", 545.1, 559.8, 561.2, 544.7, 10.0);
    CHECK(confirmed.confirmed);
    CHECK(confirmed.margin_us == Approx(14.7));
    auto not_confirmed = decide("attention-csa", 545.1, 559.8, 549.0, 544.7, 10.0);
    CHECK_FALSE(not_confirmed.confirmed);
    // Both candidates must clear both parents by more than the threshold, not on average.
    CHECK_FALSE(decide("x", 545.0, 570.0, 554.0, 545.0, 10.0).confirmed);

    ciresult::install_bench_reader();
    Diagnostics diagnostics;
    ConfirmRequest request;
    request.min_delta_us = 10.0;
    for (const char* role : {"1-parent", "2-candidate", "3-candidate", "4-parent"})
        request.runs.push_back(lane(std::string("abba-confirmed/") + role));
    auto result = confirm(request, diagnostics);
    REQUIRE(result);
    CHECK(result->confirmed());
    request.runs[3] = lane("abba-mixed-epoch/4-parent");
    auto refused = confirm(request, diagnostics);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ExitCode::InputError);
    CHECK_THAT(refused.error().message,
               Catch::Contains("not a confirmation") && Catch::Contains("device epoch"));
    request.runs.pop_back();
    CHECK_FALSE(confirm(request, diagnostics));  // three runs are no ABBA
}

TEST_CASE("identity: only lane cases track metric_us, a log beside them keeps the mean",
          "[history]") {
    ciresult::install_bench_reader();
    Diagnostics diagnostics;
    RunMeta meta;
    meta.commit = "c1";
    const std::string log = std::string(PTUNE_TEST_DATA) + "/history/stable10.log";
    auto run = build_run({lane("shadow/01"), log}, meta, diagnostics);
    REQUIRE(run);
    auto alone = build_run({log}, meta, diagnostics);
    REQUIRE(alone);
    for (const auto& value : run->cases) {
        if (value.name == "attention-csa") {
            CHECK(value.value_us == 540.0);  // the median; the mean is 540.3
            continue;
        }
        const auto it = std::find_if(alone->cases.begin(), alone->cases.end(),
                                     [&](const CaseValue& v) { return v.name == value.name; });
        REQUIRE(it != alone->cases.end());
        CHECK(value.value_us == it->value_us);
        CHECK(value.contract.empty());
    }
    CHECK(run->cases.size() == alone->cases.size() + 1);
}

}  // namespace history_identity_test
