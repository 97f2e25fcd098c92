#pragma once
/// @file store.hpp
/// Where the history lives: one interface, two backends sharing one schema and its migrations
/// (src/history/schema.cpp): an embedded SQLite file (the default, WAL mode, nothing to run)
/// and PostgreSQL over libpq (`postgresql://…` or `postgres://…`) for CI on many machines.
/// Recorded runs and their results are immutable (triggers refuse UPDATE and DELETE); a run is
/// written in one transaction, so a failure leaves nothing half-written.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ptune/core/error.hpp"
#include "ptune/history/model.hpp"

namespace ptune::history {

/// The schema version this build writes and reads; a database with a newer one is refused.
inline constexpr int kSchemaVersion = 2;

/// The default database of `--db`.
inline constexpr const char* kDefaultDatabase = ".ptune/history.db";

/// How to open a store.
struct OpenOptions {
    /// Create the database (and its folder) when it does not exist; read commands leave this
    /// off so that a mistyped path is an error, not a new empty history.
    bool create = false;
    /// How long to wait for another writer's lock before giving up (exit 2).
    double lock_timeout_s = 30.0;
};

/// What add() did.
struct AddOutcome {
    std::int64_t run = 0;
    bool added = false;  ///< false: the same run (same key, same results) was already there
};

/// Cached change points of one series (derived data, not immutable): `analysed` points whose run
/// ids hash to `prefix_digest` gave `change_points` (JSON array of ChangePoint).
struct CachedAnalysis {
    std::size_t analysed = 0;
    std::string prefix_digest;
    std::vector<ChangePoint> change_points;
};

/// Key of a cached analysis: case, epoch and the detection parameters.
struct AnalysisKey {
    std::string name;
    Epoch epoch;
    std::string params;
    friend auto operator<=>(const AnalysisKey&, const AnalysisKey&) = default;
};

/// A history database.
class Store {
  public:
    virtual ~Store() = default;

    /// Opens `location`: a `postgresql://` / `postgres://` URI or `host=... dbname=...`
    /// keyword string goes to PostgreSQL, anything else is an SQLite file. Applies pending
    /// migrations. Errors (exit 2) name the location: missing file, damaged or foreign file,
    /// a schema newer than kSchemaVersion, a lock held past the timeout, a server refusing.
    static Result<std::unique_ptr<Store>> open(const std::string& location,
                                               const OpenOptions& options);

    /// A usage error (exit 2) for a location that cannot hold a history (`''`, SQLite's
    /// `:memory:` / `file::memory:` / `mode=memory`, which keep nothing) or a lock timeout no
    /// backend can wait (negative, NaN, over 2147483 s); open() checks it first.
    static Status check(const std::string& location, const OpenOptions& options);

    /// True for a location open() sends to PostgreSQL.
    static bool is_postgres(const std::string& location);

    /// Records a run in one transaction. The same run key with the same content digest is
    /// idempotent (added = false); the same key with other results is refused (exit 2).
    virtual Result<AddOutcome> add(const NewRun& run) = 0;

    /// Every run, oldest first (time, then id), with its number of cases.
    virtual Result<std::vector<RunInfo>> runs() = 0;

    /// Every series, ordered by case name, epoch, run time and run id, handed out one at a
    /// time (memory holds one series). `only` restricts to one case when not empty.
    virtual Status for_each_series(const std::string& only,
                                   const std::function<Status(Series&&)>& visit) = 0;

    /// Every run with its case values (samples included), oldest first, one run at a time.
    virtual Status for_each_run(
        const std::function<Status(const RunInfo&, std::vector<CaseValue>&&)>& visit) = 0;

    /// The cached analyses (every key with `params`).
    virtual Result<std::map<AnalysisKey, CachedAnalysis>> cached_analyses(
        const std::string& params) = 0;
    /// Stores analyses in one transaction. Fails quietly on a read-only file (the caller
    /// treats a failed cache write as a note, not an error).
    virtual Status save_analyses(const std::map<AnalysisKey, CachedAnalysis>& analyses) = 0;

    /// False for a database opened read-only: analyses are then not cached.
    virtual bool writable() const = 0;

    /// The location as given (for messages).
    virtual const std::string& location() const = 0;
};

}  // namespace ptune::history
