// Schema versions 1 and 2. One text for both backends: `{id}` and `{real}` are the only words that
// differ, and the immutability triggers (SQLite's RAISE, PostgreSQL's plpgsql function).
// A later version appends a `case` to migration(): never edit a released version.

#include "schema.hpp"

namespace ptune::history::schema {

namespace {

std::string in_dialect(std::string text, sql::Dialect dialect) {
    const bool pg = dialect == sql::Dialect::Postgres;
    const auto replace = [&](const std::string& token, const std::string& with) {
        for (auto at = text.find(token); at != std::string::npos; at = text.find(token, at))
            text.replace(at, token.size(), with);
    };
    replace("{id}", pg ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY");
    replace("{real}", pg ? "DOUBLE PRECISION" : "REAL");
    return text;
}

// Tables whose rows are results: written once, never changed or deleted.
const char* const kImmutable[] = {"ptune_runs", "ptune_cases", "ptune_results", "ptune_samples"};

std::vector<std::string> version_1(sql::Dialect dialect) {
    std::vector<std::string> statements = {
        "CREATE TABLE ptune_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        // One row per recorded run; run_key is `--run-id` or the content digest.
        "CREATE TABLE ptune_runs (id {id}, run_key TEXT NOT NULL UNIQUE, "
        "content_digest TEXT NOT NULL, run_time TEXT NOT NULL, added_at TEXT NOT NULL, "
        "commit_sha TEXT NOT NULL, branch TEXT NOT NULL, toolchain TEXT NOT NULL, "
        "device TEXT NOT NULL, source_digest TEXT NOT NULL, labels TEXT NOT NULL, "
        "inputs TEXT NOT NULL)",
        "CREATE INDEX ptune_runs_order ON ptune_runs (run_time, id)",
        "CREATE TABLE ptune_cases (id {id}, name TEXT NOT NULL UNIQUE)",
        // The headline statistic per case and run, with the summary when the input had it.
        "CREATE TABLE ptune_results (run_id BIGINT NOT NULL REFERENCES ptune_runs (id), "
        "case_id BIGINT NOT NULL REFERENCES ptune_cases (id), value_us {real} NOT NULL, "
        "rounds INTEGER NOT NULL, min_us {real}, median_us {real}, max_us {real}, "
        "origin TEXT NOT NULL, source TEXT NOT NULL, PRIMARY KEY (run_id, case_id))",
        "CREATE INDEX ptune_results_case ON ptune_results (case_id, run_id)",
        // Raw per-round samples when the log printed them: one space-separated list per result.
        "CREATE TABLE ptune_samples (run_id BIGINT NOT NULL, case_id BIGINT NOT NULL, "
        "samples TEXT NOT NULL, PRIMARY KEY (run_id, case_id), FOREIGN KEY (run_id, case_id) "
        "REFERENCES ptune_results (run_id, case_id))",
        // Derived data: cached change points per series (may be rewritten or dropped).
        "CREATE TABLE ptune_analysis (case_name TEXT NOT NULL, toolchain TEXT NOT NULL, "
        "device TEXT NOT NULL, params TEXT NOT NULL, analysed INTEGER NOT NULL, "
        "prefix_digest TEXT NOT NULL, change_points TEXT NOT NULL, "
        "PRIMARY KEY (case_name, toolchain, device, params))",
    };
    if (dialect == sql::Dialect::Postgres) {
        statements.push_back(
            "CREATE FUNCTION ptune_immutable() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "RAISE EXCEPTION 'ptune history: recorded runs are immutable (% on %)', TG_OP, "
            "TG_TABLE_NAME; END $$");
    }
    for (const char* table : kImmutable) {
        const std::string name(table);
        if (dialect == sql::Dialect::Postgres) {
            statements.push_back("CREATE TRIGGER " + name +
                                 "_immutable BEFORE UPDATE OR DELETE ON " + name +
                                 " FOR EACH ROW EXECUTE FUNCTION ptune_immutable()");
        } else {
            for (const char* op : {"UPDATE", "DELETE"}) {
                statements.push_back("CREATE TRIGGER " + name + "_no_" + op + " BEFORE " + op +
                                     " ON " + name +
                                     " BEGIN SELECT RAISE(ABORT, 'ptune history: recorded runs "
                                     "are immutable'); END");
            }
        }
    }
    for (auto& statement : statements) statement = in_dialect(std::move(statement), dialect);
    return statements;
}

// Version 2: the six-part performance identity (docs/HISTORY.md "Identity"). Runs gain lane,
// contract and lineage generation (toolchain, device and source_digest are the epochs and the
// tree), a result its own case contract; runs recorded before keep empty parts. The analysis
// cache is derived data: it is rebuilt with the series key of all five keyed parts.
std::vector<std::string> version_2(sql::Dialect dialect) {
    std::vector<std::string> statements = {
        "ALTER TABLE ptune_runs ADD COLUMN lane TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE ptune_runs ADD COLUMN contract TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE ptune_runs ADD COLUMN lineage TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE ptune_results ADD COLUMN contract TEXT NOT NULL DEFAULT ''",
        "DROP TABLE ptune_analysis",
        "CREATE TABLE ptune_analysis (case_name TEXT NOT NULL, toolchain TEXT NOT NULL, "
        "device TEXT NOT NULL, lane TEXT NOT NULL, contract TEXT NOT NULL, lineage TEXT NOT "
        "NULL, params TEXT NOT NULL, analysed INTEGER NOT NULL, prefix_digest TEXT NOT NULL, "
        "change_points TEXT NOT NULL, PRIMARY KEY (case_name, toolchain, device, lane, "
        "contract, lineage, params))",
    };
    for (auto& statement : statements) statement = in_dialect(std::move(statement), dialect);
    return statements;
}

}  // namespace

std::vector<std::string> migration(int version, sql::Dialect dialect) {
    switch (version) {
        case 1:
            return version_1(dialect);
        case 2:
            return version_2(dialect);
        default:
            return {};
    }
}

}  // namespace ptune::history::schema
