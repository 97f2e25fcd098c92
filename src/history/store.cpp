// The one Store implementation, over either backend's sql::Connection: migrations, the
// transactional add, and the streaming reads the commands and the analysis use.

#include "ptune/history/store.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <initializer_list>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/json_document.hpp"
#include "ptune/core/text.hpp"
#include "ptune/core/version.hpp"
#include "schema.hpp"
#include "sql.hpp"

namespace ptune::history {

namespace {

using sql::Dialect;
using sql::Failure;
using sql::Row;
using sql::Value;

constexpr const char* kRunColumnsV1 =
    "r.id, r.run_key, r.content_digest, r.run_time, r.added_at, r.commit_sha, r.branch, "
    "r.toolchain, r.device, r.source_digest, r.labels, r.inputs";
// Columns of run_columns(); the queries' own columns follow.
constexpr std::size_t kRunColumnCount = 15;

RunInfo run_from_row(const Row& row) {
    RunInfo run;
    run.id = row.integer(0);
    run.run_key = row.text(1);
    run.content_digest = row.text(2);
    run.time = row.text(3);
    run.added_at = row.text(4);
    run.commit = row.text(5);
    run.branch = row.text(6);
    run.toolchain = row.text(7);
    run.device = row.text(8);
    run.source_digest = row.text(9);
    // Written by add() as JSON; a damaged value shows as no labels rather than failing a read.
    auto labels = nlohmann::json::parse(row.text(10), nullptr, false);
    if (labels.is_object()) {
        for (const auto& [key, value] : labels.items())
            if (value.is_string()) run.labels[key] = value.get<std::string>();
    }
    auto inputs = nlohmann::json::parse(row.text(11), nullptr, false);
    if (inputs.is_array()) {
        for (const auto& input : inputs)
            if (input.is_string()) run.inputs.push_back(input.get<std::string>());
    }
    run.lane = row.text(12);
    run.contract = row.text(13);
    run.lineage = row.text(14);
    return run;
}

std::optional<double> optional_real(const Row& row, std::size_t i) {
    if (row.null(i)) return std::nullopt;
    return row.real(i);
}

Value optional_value(const std::optional<double>& value) {
    if (!value) return std::monostate{};
    return *value;
}

std::string samples_text(const std::vector<double>& samples) {
    std::string text;
    for (double sample : samples) {
        if (!text.empty()) text += ' ';
        text += fmt::format("{}", sample);
    }
    return text;
}

std::vector<double> parse_samples(std::string_view text) {
    std::vector<double> samples;
    for (auto token : ptune::text::split_ws(text))
        if (auto value = ptune::text::parse_double(token)) samples.push_back(*value);
    return samples;
}

std::string now_utc() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buffer;
}

std::string change_points_json(const std::vector<ChangePoint>& points) {
    nlohmann::json array = nlohmann::json::array();
    for (const auto& point : points) array.push_back({point.index, point.p_value, point.statistic});
    return json_document::dump(array);
}

std::vector<ChangePoint> parse_change_points(const std::string& text) {
    std::vector<ChangePoint> points;
    auto array = nlohmann::json::parse(text, nullptr, false);
    if (!array.is_array()) return points;
    for (const auto& item : array) {
        if (!item.is_array() || item.size() != 3 || !item[0].is_number_unsigned()) return {};
        points.push_back(
            {item[0].get<std::size_t>(), item[1].get<double>(), item[2].get<double>()});
    }
    return points;
}

// Why a stored result cannot be a measurement (values changed outside ptune: NaN, a time <= 0,
// negative rounds), empty when it can. Such a row is damage, never a number to print.
std::string result_damage(double value_us, std::int64_t rounds,
                          std::initializer_list<std::optional<double>> summary) {
    const auto bad = [](double v) { return !(v > 0.0) || !std::isfinite(v); };
    if (bad(value_us)) return fmt::format("value_us {} is not a positive time", value_us);
    if (rounds < 0) return fmt::format("rounds {} is negative", rounds);
    for (const auto& v : summary)
        if (v && bad(*v)) return fmt::format("a summary value {} is not a positive time", *v);
    return {};
}

class SqlStore : public Store {
  public:
    SqlStore(std::unique_ptr<sql::Connection> connection, std::string location)
        : db_(std::move(connection)), location_(std::move(location)) {}

    // Brings the schema to kSchemaVersion. The version is read first without a lock, so a
    // read on an up-to-date database never waits for a writer.
    Status migrate(bool create, double lock_timeout_s) {
        if (db_->dialect() == Dialect::Sqlite) {
            if (auto status = sqlite_preflight(); !status) return status;
        }
        auto version = schema_version();
        if (!version) return version.error();
        if (*version > kSchemaVersion) return newer_schema(*version);
        if (db_->dialect() == Dialect::Sqlite && !db_->read_only() && (*version > 0 || create)) {
            // WAL: readers never wait for a writer. Persistent, so usually already set; set
            // only once the file is known to be ours, so a refused file is left as it was.
            // Switching a new file to WAL takes an exclusive lock, and SQLite answers BUSY at
            // once, without the busy handler, while another process holds the file open (two
            // first adds at once): retry until the lock timeout.
            auto status = db_->exec("PRAGMA journal_mode = WAL");
            const auto deadline =
                std::chrono::steady_clock::now() + std::chrono::duration<double>(lock_timeout_s);
            while (!status && db_->last_failure() == Failure::Busy &&
                   std::chrono::steady_clock::now() < deadline) {
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
                status = db_->exec("PRAGMA journal_mode = WAL");
            }
            if (!status && db_->last_failure() == Failure::Busy) return explain(status, "open it");
        }
        if (*version == kSchemaVersion) {
            version_ = *version;
            return ok_status();
        }
        if (*version == 0 && !create) {
            return fail("holds no ptune history yet (record a run with `ptune history add`)");
        }
        version_ = *version;
        // An older schema opened read-only is read as it is (the parts it lacks are empty).
        if (*version > 0 && db_->read_only()) return ok_status();
        sql::Transaction transaction(*db_);
        if (auto status = transaction.begin(); !status) return explain(status, "migrate");
        if (db_->dialect() == Dialect::Postgres) {
            // Two first adds at once: one creates the tables, the other waits and sees them.
            if (auto status = db_->exec("SELECT pg_advisory_xact_lock(7074756)"); !status)
                return explain(status, "migrate");
        }
        version = schema_version();
        if (!version) return version.error();
        if (*version > kSchemaVersion) return newer_schema(*version);
        for (int next = *version + 1; next <= kSchemaVersion; ++next) {
            for (const auto& statement : schema::migration(next, db_->dialect())) {
                if (auto status = db_->exec(statement); !status) return explain(status, "migrate");
            }
            if (auto status = set_meta("schema_version", std::to_string(next)); !status)
                return explain(status, "migrate");
        }
        if (*version == 0) {
            if (auto status = set_meta("application", "ptune-history"); !status) return status;
            if (auto status = set_meta("created_by", fmt::format("ptune {}", ptune::version()));
                !status) {
                return status;
            }
            if (db_->dialect() == Dialect::Sqlite) {
                (void)db_->exec(fmt::format("PRAGMA application_id = {}", schema::kApplicationId));
            }
        }
        if (auto status = transaction.commit(); !status) return explain(status, "migrate");
        version_ = kSchemaVersion;
        return ok_status();
    }

    // The identity columns of schema 2; a schema-1 database opened read-only (it cannot be
    // migrated) reads them as empty parts.
    std::string run_columns() const {
        return fmt::format("{}, {}", kRunColumnsV1,
                           version_ >= 2 ? "r.lane, r.contract, r.lineage" : "'', '', ''");
    }
    // A result's series contract: its own, else its run's.
    const char* contract_column() const {
        return version_ >= 2 ? "CASE WHEN x.contract <> '' THEN x.contract ELSE r.contract END"
                             : "''";
    }

    Result<AddOutcome> add(const NewRun& run) override {
        if (version_ < kSchemaVersion) {
            return fail(fmt::format(
                "cannot add the run: the database is read-only and has schema version {}, which "
                "only a writable open migrates to {}; nothing was written",
                version_, kSchemaVersion));
        }
        case_ids_.clear();  // ids seen in an earlier, rolled-back transaction may not exist
        sql::Transaction transaction(*db_);
        if (auto status = transaction.begin(); !status) return explain(status, "add the run");
        AddOutcome outcome;
        // The run key already recorded: the same results again are nothing to do (adding is
        // idempotent), other results are refused.
        auto recorded = [&]() -> std::optional<Result<AddOutcome>> {
            auto existing = find_run(run.info.run_key);
            if (!existing) return explain(existing.error(), "add the run");
            if (!*existing) return std::nullopt;
            if ((*existing)->second != run.info.content_digest) {
                return fail(fmt::format(
                    "run '{}' is already recorded (run {}) with other results; recorded runs "
                    "are immutable, nothing was added (give this run another --run-id)",
                    run.info.run_key, (*existing)->first));
            }
            return AddOutcome{(*existing)->first, false};
        };
        if (auto done = recorded()) return std::move(*done);
        nlohmann::json labels(run.info.labels);
        nlohmann::json inputs(run.info.inputs);
        std::optional<std::int64_t> id;
        auto status = db_->query(
            "INSERT INTO ptune_runs (run_key, content_digest, run_time, added_at, commit_sha, "
            "branch, toolchain, device, source_digest, labels, inputs, lane, contract, lineage) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_key) DO NOTHING "
            "RETURNING id",
            {run.info.run_key, run.info.content_digest, run.info.time, now_utc(), run.info.commit,
             run.info.branch, run.info.toolchain, run.info.device, run.info.source_digest,
             json_document::dump(labels), json_document::dump(inputs), run.info.lane,
             run.info.contract, run.info.lineage},
            [&](const Row& row) { id = row.integer(0); });
        if (!status) return explain(status, "add the run");
        if (!id) {
            // Another process inserted the same key since our look (PostgreSQL waits for its
            // commit before DO NOTHING): read committed, this statement sees its row.
            if (auto done = recorded()) return std::move(*done);
            return fail("another process recorded the same run key at the same time");
        }
        outcome.run = *id;
        outcome.added = true;
        for (const auto& value : run.cases) {
            auto case_id = case_id_for(value.name);
            if (!case_id) return explain(case_id.error(), "add the run");
            status = db_->query(
                "INSERT INTO ptune_results (run_id, case_id, value_us, rounds, min_us, "
                "median_us, max_us, origin, source, contract) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?)",
                {*id, *case_id, value.value_us, static_cast<std::int64_t>(value.rounds),
                 optional_value(value.min_us), optional_value(value.median_us),
                 optional_value(value.max_us), value.origin, value.source, value.contract});
            if (!status) return explain(status, "add the run");
            if (value.samples.empty()) continue;
            status =
                db_->query("INSERT INTO ptune_samples (run_id, case_id, samples) VALUES (?, ?, ?)",
                           {*id, *case_id, samples_text(value.samples)});
            if (!status) return explain(status, "add the run");
        }
        if (auto committed = transaction.commit(); !committed)
            return explain(committed, "add the run");
        return outcome;
    }

    Result<std::vector<RunInfo>> runs() override {
        std::vector<RunInfo> runs;
        auto status = db_->query(
            fmt::format("SELECT {}, (SELECT count(*) FROM ptune_results x WHERE x.run_id = r.id) "
                        "FROM ptune_runs r ORDER BY r.run_time, r.id",
                        run_columns()),
            {}, [&](const Row& row) {
                runs.push_back(run_from_row(row));
                runs.back().cases = static_cast<std::size_t>(row.integer(kRunColumnCount));
            });
        if (!status) return explain(status, "read the runs");
        return runs;
    }

    Status for_each_series(const std::string& only,
                           const std::function<Status(Series&&)>& visit) override {
        Series series;
        Status result = ok_status();
        bool have = false;
        const auto flush = [&]() {
            if (have && result) result = visit(std::move(series));
            series = Series{};
            have = false;
        };
        std::vector<Value> params;
        std::string where;
        if (!only.empty()) {
            where = "WHERE c.name = ? ";
            params.emplace_back(only);
        }
        auto status = db_->query(
            fmt::format("SELECT c.name, r.toolchain, r.device, r.id, r.run_time, r.commit_sha, "
                        "x.value_us, x.rounds, x.min_us, x.median_us, x.max_us, {3}, {0}, "
                        "{4} FROM ptune_results x JOIN ptune_runs r ON r.id = x.run_id "
                        "JOIN ptune_cases c ON c.id = x.case_id {1}ORDER BY c.name {2}, "
                        "r.toolchain {2}, r.device {2}, {3} {2}, {0} {2}, {4} {2}, "
                        "r.run_time, r.id",
                        contract_column(), where, binary(), version_ >= 2 ? "r.lane" : "''",
                        version_ >= 2 ? "r.lineage" : "''"),
            params, [&](const Row& row) {
                if (!result) return;
                Epoch epoch{row.text(1), row.text(2), row.text(11), row.text(12), row.text(13)};
                std::string name = row.text(0);
                if (have && (name != series.name || !(epoch == series.epoch))) flush();
                if (!have) {
                    series.name = std::move(name);
                    series.epoch = std::move(epoch);
                    have = true;
                }
                if (auto damage = result_damage(
                        row.real(6), row.integer(7),
                        {optional_real(row, 8), optional_real(row, 9), optional_real(row, 10)});
                    !damage.empty()) {
                    result = damaged_row(row.integer(3), row.text(0), damage);
                    return;
                }
                series.points.push_back({row.integer(3), row.text(4), row.text(5), row.real(6),
                                         static_cast<std::size_t>(row.integer(7)),
                                         optional_real(row, 8), optional_real(row, 9),
                                         optional_real(row, 10)});
            });
        if (!status) return explain(status, "read the results");
        flush();
        return result;
    }

    Status for_each_run(
        const std::function<Status(const RunInfo&, std::vector<CaseValue>&&)>& visit) override {
        RunInfo run;
        std::vector<CaseValue> values;
        Status result = ok_status();
        const auto flush = [&]() {
            if (run.id != 0 && result) result = visit(run, std::move(values));
            values.clear();
        };
        auto status = db_->query(
            fmt::format("SELECT {}, c.name, x.value_us, x.rounds, x.min_us, x.median_us, "
                        "x.max_us, x.origin, x.source, s.samples, {} FROM ptune_runs r JOIN "
                        "ptune_results x ON x.run_id = r.id JOIN ptune_cases c ON c.id = "
                        "x.case_id LEFT JOIN ptune_samples s ON s.run_id = x.run_id AND "
                        "s.case_id = x.case_id ORDER BY r.run_time, r.id, c.name {}",
                        run_columns(), version_ >= 2 ? "x.contract" : "''", binary()),
            {}, [&](const Row& row) {
                if (!result) return;
                if (row.integer(0) != run.id) {
                    flush();
                    run = run_from_row(row);
                }
                constexpr std::size_t k = kRunColumnCount;
                if (auto damage =
                        result_damage(row.real(k + 1), row.integer(k + 2),
                                      {optional_real(row, k + 3), optional_real(row, k + 4),
                                       optional_real(row, k + 5)});
                    !damage.empty()) {
                    result = damaged_row(run.id, row.text(k), damage);
                    return;
                }
                CaseValue value;
                value.name = row.text(k);
                value.value_us = row.real(k + 1);
                value.rounds = static_cast<std::size_t>(row.integer(k + 2));
                value.min_us = optional_real(row, k + 3);
                value.median_us = optional_real(row, k + 4);
                value.max_us = optional_real(row, k + 5);
                value.origin = row.text(k + 6);
                value.source = row.text(k + 7);
                if (!row.null(k + 8)) value.samples = parse_samples(row.text(k + 8));
                value.contract = row.text(k + 9);
                values.push_back(std::move(value));
                run.cases = values.size();
            });
        if (!status) return explain(status, "read the runs");
        flush();
        return result;
    }

    Result<std::map<AnalysisKey, CachedAnalysis>> cached_analyses(
        const std::string& params) override {
        std::map<AnalysisKey, CachedAnalysis> cached;
        auto status = db_->query(
            version_ >= 2 ? "SELECT case_name, toolchain, device, lane, contract, lineage, "
                            "analysed, prefix_digest, change_points FROM ptune_analysis WHERE "
                            "params = ?"
                          : "SELECT case_name, toolchain, device, '', '', '', analysed, "
                            "prefix_digest, change_points FROM ptune_analysis WHERE params = ?",
            {params}, [&](const Row& row) {
                cached[{row.text(0),
                        {row.text(1), row.text(2), row.text(3), row.text(4), row.text(5)},
                        params}] = {static_cast<std::size_t>(row.integer(6)), row.text(7),
                                    parse_change_points(row.text(8))};
            });
        if (!status) return explain(status, "read the cached change points");
        return cached;
    }

    Status save_analyses(const std::map<AnalysisKey, CachedAnalysis>& analyses) override {
        if (analyses.empty()) return ok_status();
        sql::Transaction transaction(*db_);
        if (auto status = transaction.begin(); !status) return status;
        for (const auto& [key, analysis] : analyses) {
            auto status = db_->query(
                "INSERT INTO ptune_analysis (case_name, toolchain, device, lane, contract, "
                "lineage, params, analysed, prefix_digest, change_points) VALUES (?, ?, ?, ?, ?, "
                "?, ?, ?, ?, ?) ON CONFLICT (case_name, toolchain, device, lane, contract, "
                "lineage, params) DO UPDATE SET analysed = excluded.analysed, prefix_digest = "
                "excluded.prefix_digest, change_points = excluded.change_points",
                {key.name, key.epoch.toolchain, key.epoch.device, key.epoch.lane,
                 key.epoch.contract, key.epoch.lineage, key.params,
                 static_cast<std::int64_t>(analysis.analysed), analysis.prefix_digest,
                 change_points_json(analysis.change_points)});
            if (!status) return status;
        }
        return transaction.commit();
    }

    const std::string& location() const override { return location_; }

    bool writable() const override { return !db_->read_only(); }

  private:
    Error damaged_row(std::int64_t run, const std::string& name, const std::string& damage) const {
        return Error{fmt::format("run {}, case '{}': {}: the database is damaged (changed outside "
                                 "ptune)",
                                 run, name, damage),
                     location_, 0, ExitCode::InputError};
    }

    const char* binary() const {
        return db_->dialect() == Dialect::Postgres ? "COLLATE \"C\"" : "COLLATE BINARY";
    }

    Error fail(std::string message) const {
        return Error{std::move(message), location_, 0, ExitCode::InputError};
    }

    // The backend's message in the user's terms, by the kind of failure.
    Error explain(const Status& status, std::string_view doing) const {
        return explain(status.error(), doing);
    }
    Error explain(const Error& error, std::string_view doing) const {
        switch (db_->last_failure()) {
            case Failure::Busy:
                return fail(fmt::format(
                    "the history database is locked by another process; could not {} within "
                    "the lock timeout (--lock-timeout), nothing was written ({})",
                    doing, error.message));
            case Failure::NotADatabase:
                return fail(fmt::format(
                    "not a usable history database: the file is damaged or not SQLite ({}); "
                    "nothing was written",
                    error.message));
            case Failure::ReadOnly:
                return fail(
                    fmt::format("cannot {}: the database is read-only ({})", doing, error.message));
            default:
                return fail(fmt::format("cannot {}: {}", doing, error.message));
        }
    }

    Error newer_schema(int version) const {
        return fail(fmt::format(
            "the history database has schema version {}, newer than this ptune knows ({}); "
            "use a newer ptune (nothing was changed)",
            version, kSchemaVersion));
    }

    // Damaged, foreign or locked files are told apart before anything is written.
    Status sqlite_preflight() {
        std::int64_t application_id = 0, tables = 0, ours = 0;
        // One statement, so one snapshot: read apart, a first add committing in between (its
        // tables and its application id together) looked like a foreign file with our tables.
        auto status = db_->query(
            "SELECT (SELECT application_id FROM pragma_application_id()), count(*), sum(CASE "
            "WHEN name = 'ptune_meta' THEN 1 ELSE 0 END) FROM sqlite_master WHERE type = 'table'",
            {}, [&](const Row& row) {
                application_id = row.integer(0);
                tables = row.integer(1);
                ours = row.null(2) ? 0 : row.integer(2);
            });
        if (!status) return explain(status, "open the database");
        if (application_id != schema::kApplicationId && (tables > 0 || application_id != 0)) {
            return fail(
                ours ? "not a ptune history database (its application id is foreign); nothing "
                       "was written"
                     : fmt::format("is an SQLite database of another program ({} tables, none of "
                                   "ptune history); nothing was written",
                                   tables));
        }
        (void)db_->exec("PRAGMA foreign_keys = ON");
        return ok_status();
    }

    Result<int> schema_version() {
        std::int64_t tables = 0;
        const char* exists =
            db_->dialect() == Dialect::Postgres
                ? "SELECT count(*) FROM information_schema.tables WHERE table_name = "
                  "'ptune_meta' AND table_schema = current_schema()"
                : "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = "
                  "'ptune_meta'";
        auto status = db_->query(exists, {}, [&](const Row& row) { tables = row.integer(0); });
        if (!status) return explain(status, "read the schema version");
        if (tables == 0) return 0;
        std::string text;
        status = db_->query("SELECT value FROM ptune_meta WHERE key = 'schema_version'", {},
                            [&](const Row& row) { text = row.text(0); });
        if (!status) return explain(status, "read the schema version");
        int version = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
        if (ec != std::errc() || end != text.data() + text.size() || version < 1) {
            return fail(fmt::format("damaged history database: schema_version '{}'", text));
        }
        return version;
    }

    Status set_meta(const std::string& key, const std::string& value) {
        return db_->query(
            "INSERT INTO ptune_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET "
            "value = excluded.value",
            {key, value});
    }

    Result<std::optional<std::pair<std::int64_t, std::string>>> find_run(const std::string& key) {
        std::optional<std::pair<std::int64_t, std::string>> found;
        auto status =
            db_->query("SELECT id, content_digest FROM ptune_runs WHERE run_key = ?", {key},
                       [&](const Row& row) { found.emplace(row.integer(0), row.text(1)); });
        if (!status) return status.error();
        return found;
    }

    Result<std::int64_t> case_id_for(const std::string& name) {
        if (auto it = case_ids_.find(name); it != case_ids_.end()) return it->second;
        auto status = db_->query(
            "INSERT INTO ptune_cases (name) VALUES (?) ON CONFLICT (name) DO NOTHING", {name});
        if (!status) return status.error();
        std::optional<std::int64_t> id;
        status = db_->query("SELECT id FROM ptune_cases WHERE name = ?", {name},
                            [&](const Row& row) { id = row.integer(0); });
        if (!status) return status.error();
        if (!id) return fail("case '" + name + "' vanished while the run was added");
        return *id;
    }

    std::unique_ptr<sql::Connection> db_;
    std::string location_;
    std::map<std::string, std::int64_t> case_ids_;  // only within one add (one transaction)
    int version_ = 0;                               // the schema version of the open database
};

}  // namespace

bool Store::is_postgres(const std::string& location) {
    if (location.starts_with("postgresql://") || location.starts_with("postgres://")) return true;
    // A libpq keyword/value string (`host=/run/postgresql dbname=perf user=ci`): every word is
    // KEY=VALUE with a libpq connection keyword (a socket directory may hold '/', so the slash
    // no longer says "file").
    static constexpr std::string_view kKeywords[] = {"host",
                                                     "hostaddr",
                                                     "port",
                                                     "dbname",
                                                     "user",
                                                     "password",
                                                     "passfile",
                                                     "sslmode",
                                                     "connect_timeout",
                                                     "application_name",
                                                     "options",
                                                     "service",
                                                     "target_session_attrs",
                                                     "sslrootcert",
                                                     "sslcert",
                                                     "sslkey",
                                                     "gssencmode",
                                                     "channel_binding"};
    std::size_t words = 0;
    for (std::string_view rest = location; !rest.empty();) {
        const std::size_t start = rest.find_first_not_of(" \t");
        if (start == std::string_view::npos) break;
        rest.remove_prefix(start);
        const std::size_t end = std::min(rest.find_first_of(" \t"), rest.size());
        const std::string_view word = rest.substr(0, end);
        rest.remove_prefix(end);
        const std::size_t eq = word.find('=');
        if (eq == std::string_view::npos || std::find(std::begin(kKeywords), std::end(kKeywords),
                                                      word.substr(0, eq)) == std::end(kKeywords))
            return false;
        ++words;
    }
    return words > 0;
}

Status Store::check(const std::string& location, const OpenOptions& options) {
    const auto usage = [](std::string message) {
        return Error{std::move(message), "", 0, ExitCode::InputError};
    };
    if (location.empty())
        return usage("--db '' names no history database (an SQLite file or a postgresql:// URI)");
    // SQLite's in-memory databases vanish when ptune exits: `recorded run 1` would be a lie.
    const bool memory =
        location == ":memory:" || location.starts_with("file::memory:") ||
        (location.starts_with("file:") && location.find("mode=memory") != std::string::npos);
    if (memory) {
        return usage(
            fmt::format("--db '{}' is an in-memory database, which keeps nothing after "
                        "ptune exits; name a file",
                        location));
    }
    // SQLite's busy timeout is an int of milliseconds (about 24.8 days at most).
    constexpr double kMaxLockTimeout = 2147483.0;
    if (!(options.lock_timeout_s >= 0.0) || options.lock_timeout_s > kMaxLockTimeout) {
        return usage(fmt::format("--lock-timeout {} is not a wait of 0 to {} seconds",
                                 options.lock_timeout_s, kMaxLockTimeout));
    }
    return ok_status();
}

Result<std::unique_ptr<Store>> Store::open(const std::string& location,
                                           const OpenOptions& options) {
    if (auto status = check(location, options); !status) return status.error();
    auto connection = is_postgres(location)
                          ? sql::open_postgres(location, options.lock_timeout_s)
                          : sql::open_sqlite(location, options.create, options.lock_timeout_s);
    if (!connection) {
        // Whichever backend failed, the message names the location without its password.
        Error error = connection.error();
        error.file = sql::redact(error.file);
        error.message = sql::redact(error.message);
        return error;
    }
    // Messages name the database without its password.
    auto store = std::make_unique<SqlStore>(std::move(*connection), sql::redact(location));
    if (auto status = store->migrate(options.create, options.lock_timeout_s); !status)
        return status.error();
    return std::unique_ptr<Store>(std::move(store));
}

}  // namespace ptune::history
