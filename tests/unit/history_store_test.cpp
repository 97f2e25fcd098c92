// The SQLite history store: round trip, idempotent and refused re-adds, immutability, and the
// bad databases of issue #21 (damaged, foreign, newer schema, locked) — each a clear error
// that leaves the file as it was. tests/e2e/history_postgres.sh runs the PostgreSQL backend.

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "history_test_db.hpp"
#include "ptune/history/pipeline.hpp"
#include "ptune/history/store.hpp"

namespace history_store_test {

using namespace ptune;
using namespace ptune::history;
namespace fs = std::filesystem;

namespace {

using test::TempDb;

NewRun make_run(const std::string& commit, double value, std::int64_t serial = 0) {
    NewRun run;
    run.info.commit = commit;
    run.info.toolchain = "cann-8.1";
    run.info.device = "a2a3";
    run.info.time = "2026-09-01T00:00:00Z";
    run.info.run_key = "key-" + commit + "-" + std::to_string(serial);
    run.info.content_digest = "digest-" + std::to_string(value);
    run.info.labels = {{"ci", "nightly"}};
    CaseValue a;
    a.name = "prefill";
    a.value_us = value;
    a.rounds = 3;
    a.min_us = value - 1;
    a.median_us = value;
    a.max_us = value + 1;
    a.samples = {value - 1, value, value + 1};
    a.origin = "report";
    a.source = "run.log:3";
    CaseValue b;
    b.name = "decode";
    b.value_us = value / 2;
    b.origin = "results.tsv";
    run.cases = {a, b};
    return run;
}

std::unique_ptr<Store> open(const std::string& path, bool create = true, double timeout = 5) {
    OpenOptions options;
    options.create = create;
    options.lock_timeout_s = timeout;
    auto store = Store::open(path, options);
    if (!store) FAIL(store.error().to_string());
    return std::move(*store);
}

void sql(const std::string& path, const std::string& statement) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    char* message = nullptr;
    const int rc = sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &message);
    std::string text = message ? message : "";
    sqlite3_free(message);
    sqlite3_close(db);
    if (rc != SQLITE_OK) throw std::runtime_error(text);
}

std::size_t run_count(const std::string& path) {
    auto store = open(path, false);
    auto runs = store->runs();
    REQUIRE(runs);
    return runs->size();
}

}  // namespace

TEST_CASE("a run is stored and read back whole", "[history][store]") {
    TempDb db("roundtrip");
    auto store = open(db.path);
    auto outcome = store->add(make_run("c1", 100.0));
    REQUIRE(outcome);
    CHECK(outcome->added);
    CHECK(outcome->run == 1);
    auto runs = store->runs();
    REQUIRE(runs);
    REQUIRE(runs->size() == 1);
    CHECK((*runs)[0].commit == "c1");
    CHECK((*runs)[0].cases == 2);
    CHECK((*runs)[0].labels.at("ci") == "nightly");
    std::vector<std::pair<RunInfo, std::vector<CaseValue>>> seen;
    REQUIRE(store->for_each_run([&](const RunInfo& run, std::vector<CaseValue>&& values) {
        seen.emplace_back(run, std::move(values));
        return ok_status();
    }));
    REQUIRE(seen.size() == 1);
    const auto& values = seen[0].second;
    REQUIRE(values.size() == 2);
    CHECK(values[0].name == "decode");  // by name
    CHECK_FALSE(values[0].min_us);
    CHECK(values[1].samples == std::vector<double>{99.0, 100.0, 101.0});
    CHECK(*values[1].median_us == 100.0);
    // The file is WAL and carries the application id.
    std::string mode;
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(db.path.c_str(), &raw) == SQLITE_OK);
    sqlite3_exec(
        raw, "PRAGMA journal_mode",
        [](void* out, int, char** values, char**) {
            *static_cast<std::string*>(out) = values[0];
            return 0;
        },
        &mode, nullptr);
    sqlite3_close(raw);
    CHECK(mode == "wal");
}

TEST_CASE("the same run twice is idempotent; the same key with other results is refused",
          "[history][store]") {
    TempDb db("idempotent");
    auto store = open(db.path);
    REQUIRE(store->add(make_run("c1", 100.0)));
    auto again = store->add(make_run("c1", 100.0));
    REQUIRE(again);
    CHECK_FALSE(again->added);
    CHECK(again->run == 1);
    auto other = make_run("c1", 100.0);
    other.info.content_digest = "something else";
    auto refused = store->add(other);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ExitCode::InputError);
    CHECK_THAT(refused.error().message, Catch::Contains("immutable"));
    CHECK(run_count(db.path) == 1);
}

TEST_CASE("recorded results cannot be changed or deleted", "[history][store]") {
    TempDb db("immutable");
    REQUIRE(open(db.path)->add(make_run("c1", 100.0)));
    CHECK_THROWS_WITH(sql(db.path, "UPDATE ptune_results SET value_us = 1"),
                      Catch::Contains("immutable"));
    CHECK_THROWS_WITH(sql(db.path, "DELETE FROM ptune_runs"), Catch::Contains("immutable"));
    CHECK_THROWS_WITH(sql(db.path, "UPDATE ptune_samples SET samples = ''"),
                      Catch::Contains("immutable"));
    CHECK(run_count(db.path) == 1);
}

TEST_CASE("bad databases are clear errors that change nothing", "[history][store]") {
    TempDb db("bad");
    SECTION("missing file for a reader") {
        auto store = Store::open(db.path, OpenOptions{});
        REQUIRE_FALSE(store);
        CHECK_THAT(store.error().message, Catch::Contains("no history database"));
        CHECK_FALSE(fs::exists(db.path));
    }
    SECTION("damaged file") {
        std::ofstream(db.path) << "this is not a database, just text that is long enough "
                                  "to fill a header of one hundred bytes or so..........";
        const auto size = fs::file_size(db.path);
        auto store = Store::open(db.path, {true, 1});
        REQUIRE_FALSE(store);
        CHECK(store.error().code == ExitCode::InputError);
        CHECK_THAT(store.error().message, Catch::Contains("damaged or not SQLite"));
        CHECK(fs::file_size(db.path) == size);
    }
    SECTION("another program's SQLite file") {
        sql(db.path, "CREATE TABLE accounts (id INTEGER); INSERT INTO accounts VALUES (1)");
        auto store = Store::open(db.path, {true, 1});
        REQUIRE_FALSE(store);
        CHECK_THAT(store.error().message, Catch::Contains("another program"));
        sql(db.path, "SELECT * FROM accounts");  // untouched
        CHECK_THROWS(sql(db.path, "SELECT * FROM ptune_runs"));
    }
    SECTION("a newer schema") {
        REQUIRE(open(db.path)->add(make_run("c1", 100.0)));
        sql(db.path, "UPDATE ptune_meta SET value = '99' WHERE key = 'schema_version'");
        auto store = Store::open(db.path, {true, 1});
        REQUIRE_FALSE(store);
        CHECK_THAT(store.error().message, Catch::Contains("schema version 99, newer"));
    }
    SECTION("a database locked by another writer") {
        REQUIRE(open(db.path)->add(make_run("c1", 100.0)));
        sqlite3* holder = nullptr;
        REQUIRE(sqlite3_open(db.path.c_str(), &holder) == SQLITE_OK);
        REQUIRE(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) == SQLITE_OK);
        auto store = open(db.path, false, 0.2);
        auto outcome = store->add(make_run("c2", 110.0));
        REQUIRE_FALSE(outcome);
        CHECK(outcome.error().code == ExitCode::InputError);
        CHECK_THAT(outcome.error().message, Catch::Contains("locked by another process"));
        sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
        sqlite3_close(holder);
        store.reset();
        CHECK(run_count(db.path) == 1);
        REQUIRE(open(db.path)->add(make_run("c2", 110.0)));  // the lock is gone: it works
        CHECK(run_count(db.path) == 2);
    }
}

TEST_CASE("series are per case and epoch, in time order", "[history][store]") {
    TempDb db("series");
    auto store = open(db.path);
    for (int i = 0; i < 6; ++i) {
        auto run = make_run("c" + std::to_string(i), 100.0 + i, i);
        run.info.time = "2026-09-0" + std::to_string(6 - i) + "T00:00:00Z";  // newest first
        if (i == 5) run.info.toolchain = "cann-9.0";
        REQUIRE(store->add(run));
    }
    std::vector<Series> all;
    REQUIRE(store->for_each_series("", [&](Series&& s) {
        all.push_back(std::move(s));
        return ok_status();
    }));
    REQUIRE(all.size() == 4);  // decode and prefill, in two toolchains each
    CHECK(all[0].name == "decode");
    CHECK(all[2].name == "prefill");
    CHECK(all[2].epoch.toolchain == "cann-8.1");
    REQUIRE(all[2].points.size() == 5);
    CHECK(all[2].points.front().commit == "c4");  // the oldest time first
    CHECK(all[3].epoch.label() == "cann-9.0/a2a3");
}

TEST_CASE("cached change points are reused and extended", "[history][store]") {
    TempDb db("cache");
    auto store = open(db.path);
    for (int i = 0; i < 30; ++i) {
        auto run = make_run("c" + std::to_string(i), i < 15 ? 100.0 + (i % 3) : 120.0 + (i % 3), i);
        run.info.time = fmt::format("2026-09-01T00:{:02d}:00Z", i);
        REQUIRE(store->add(run));
    }
    Diagnostics diagnostics;
    const auto changes_of = [&](bool cache) {
        std::vector<std::size_t> indices;
        AnalyseOptions options;
        options.use_cache = cache;
        REQUIRE(analyse(
            *store, {"prefill"}, options,
            [&](Analysis&& a) {
                for (const auto& point : a.change_points) indices.push_back(point.index);
                return ok_status();
            },
            diagnostics));
        return indices;
    };
    CHECK(changes_of(true) == std::vector<std::size_t>{15});
    auto cached = store->cached_analyses(DetectOptions{}.key());
    REQUIRE(cached);
    REQUIRE(cached->size() == 1);
    CHECK(cached->begin()->second.analysed == 30);
    // A planted cache entry shows that the cache is read, not recomputed...
    auto planted = *cached;
    planted.begin()->second.change_points = {{7, 0.005, 1.0}};
    REQUIRE(store->save_analyses(planted));
    CHECK(changes_of(true) == std::vector<std::size_t>{7});
    CHECK(changes_of(false) == std::vector<std::size_t>{15});  // --recompute
    // ...and a new run keeps the earlier change points and searches only after the last one.
    REQUIRE(store->save_analyses(planted));
    auto run = make_run("c30", 121.0, 30);
    run.info.time = "2026-09-01T00:30:00Z";
    REQUIRE(store->add(run));
    CHECK(changes_of(true) == std::vector<std::size_t>{7, 15});
    // A run inserted before the analysed ones invalidates the cache: all is searched again.
    run = make_run("early", 100.0, 31);
    run.info.time = "2026-08-01T00:00:00Z";
    REQUIRE(store->add(run));
    CHECK(changes_of(true) == std::vector<std::size_t>{16});
}

TEST_CASE("locations that keep nothing and impossible lock timeouts are refused (issue 36)",
          "[history][store]") {
    for (const std::string location : {"", ":memory:", "file::memory:", "file:x?mode=memory"}) {
        OpenOptions options;
        options.create = true;
        auto store = Store::open(location, options);
        REQUIRE_FALSE(store);
        CHECK(store.error().code == ExitCode::InputError);
        CHECK_FALSE(Store::check(location, options));
    }
    TempDb db("timeout");
    for (double timeout : {-1.0, std::nan(""), 2147483.648, 1e300}) {
        OpenOptions options;
        options.create = true;
        options.lock_timeout_s = timeout;
        auto store = Store::open(db.path, options);
        REQUIRE_FALSE(store);
        CHECK(store.error().message.find("--lock-timeout") != std::string::npos);
    }
    CHECK_FALSE(fs::exists(db.path));  // refused before anything was created
}

TEST_CASE("a PostgreSQL password is masked in every error (keyword and URI forms)",
          "[history][store]") {
    // No server at a socket directory that does not exist: libpq fails at once.
    for (const std::string location :
         {"host=/nonexistent/ptune dbname=x password=s3cret-1",
          "host=/nonexistent/ptune "
          "dbname=x password = 's3cret-1'",
          "postgresql://u:s3cret-1@/x?host=/nonexistent/ptune",
          "postgresql:///x?host=/nonexistent/ptune&password=s3cret-1"}) {
        auto store = Store::open(location, OpenOptions{});
        REQUIRE_FALSE(store);
        const std::string text = store.error().to_string();
        CHECK(text.find("s3cret") == std::string::npos);
        CHECK(text.find("***") != std::string::npos);
    }
}

TEST_CASE("values changed in the database are damage, not nan or 2^64-1 rounds (issue 36)",
          "[history][store]") {
    TempDb db("tampered");
    REQUIRE(open(db.path)->add(make_run("c1", 100.0)));
    sql(db.path, "DROP TRIGGER ptune_results_no_UPDATE");
    for (const std::string change :
         {"rounds = -1", "value_us = -3", "value_us = 0", "min_us = -1"}) {
        sql(db.path, "UPDATE ptune_results SET " + change +
                         " WHERE case_id = (SELECT id FROM "
                         "ptune_cases WHERE name = 'prefill')");
        auto store = open(db.path, false);
        const auto runs = store->for_each_run(
            [](const RunInfo&, std::vector<CaseValue>&&) -> Status { return ok_status(); });
        REQUIRE_FALSE(runs);
        CHECK(runs.error().code == ExitCode::InputError);
        CHECK(runs.error().message.find("damaged") != std::string::npos);
        const auto series =
            store->for_each_series({}, [](Series&&) -> Status { return ok_status(); });
        CHECK_FALSE(series);
        sql(db.path,
            "UPDATE ptune_results SET rounds = 3, value_us = 100, min_us = 99 WHERE "
            "case_id = (SELECT id FROM ptune_cases WHERE name = 'prefill')");
    }
}

TEST_CASE("four first adds at once on a database that does not exist yet all succeed (issue 36)",
          "[history][store]") {
    // The open's preflight read the application id and the tables apart: a first add
    // committing in between looked like a foreign file ("its application id is foreign").
    TempDb db("first-adds");
    for (int trial = 0; trial < 12; ++trial) {
        const std::string path = (db.dir / ("h" + std::to_string(trial) + ".db")).string();
        std::vector<std::string> errors(4);
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&, t]() {
                OpenOptions options;
                options.create = true;
                options.lock_timeout_s = 30;
                auto store = Store::open(path, options);
                if (!store) {
                    errors[t] = store.error().to_string();
                    return;
                }
                auto added = (*store)->add(make_run("c" + std::to_string(t), 100.0 + t, t));
                if (!added) errors[t] = added.error().to_string();
            });
        }
        for (auto& thread : threads) thread.join();
        for (const auto& error : errors) CHECK(error.empty());
        CHECK(run_count(path) == 4);
    }
}

TEST_CASE("which --db values are PostgreSQL", "[history][store]") {
    CHECK(Store::is_postgres("postgresql://ci@db/perf"));
    CHECK(Store::is_postgres("postgres://ci@db/perf?password=x"));
    CHECK(Store::is_postgres("dbname=perf user=ci"));
    // A socket directory holds '/': still a keyword/value string, not a file.
    CHECK(Store::is_postgres("host=/run/postgresql dbname=perf password=secret"));
    CHECK(Store::is_postgres("  host=db   port=5433 "));
    CHECK_FALSE(Store::is_postgres(".ptune/history.db"));
    CHECK_FALSE(Store::is_postgres("/tmp/dbname=x.db"));
    CHECK_FALSE(Store::is_postgres("runs/host=db.sqlite more"));
    CHECK_FALSE(Store::is_postgres("file:h.db?mode=ro"));
    CHECK_FALSE(Store::is_postgres(""));
}

}  // namespace history_store_test
