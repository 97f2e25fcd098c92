#pragma once
// The SQL both backends speak: one connection interface under the one Store implementation
// (store.cpp), so schema, migrations and queries are written once. Statements use `?`
// placeholders; the PostgreSQL connection numbers them ($1, $2, ...).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ptune/core/error.hpp"

namespace ptune::history::sql {

enum class Dialect { Sqlite, Postgres };

/// A parameter or column value.
using Value = std::variant<std::monostate, std::int64_t, double, std::string>;

/// One result row (valid during the row callback).
struct Row {
    std::vector<Value> values;
    bool null(std::size_t i) const { return std::holds_alternative<std::monostate>(values[i]); }
    std::int64_t integer(std::size_t i) const;
    double real(std::size_t i) const;
    std::string text(std::size_t i) const;
};

/// Why a statement failed, so the store can word its message.
enum class Failure { None, Busy, NotADatabase, Constraint, ReadOnly, Other };

/// A connection to one database.
class Connection {
  public:
    virtual ~Connection() = default;
    virtual Dialect dialect() const = 0;
    /// Runs a statement without parameters and ignores its rows.
    virtual Status exec(std::string_view statement) = 0;
    /// Runs one statement with `params`, calling `on_row` for every row.
    virtual Status query(std::string_view statement, const std::vector<Value>& params,
                         const std::function<void(const Row&)>& on_row = {}) = 0;
    /// Starts a write transaction that holds the write lock from its start (SQLite BEGIN
    /// IMMEDIATE), so two writers queue instead of failing halfway.
    virtual Status begin_write() = 0;
    /// The kind of the last failure.
    virtual Failure last_failure() const = 0;
    /// True when the database was opened read-only (a read-only file or `file:...?mode=ro`).
    virtual bool read_only() const = 0;
};

/// A connection string or URI without its password, for messages: `user:***@` in a URI, and
/// the value of a `password=` keyword (quoted or not) or `?password=` / `&password=` query
/// parameter as `***`.
std::string redact(const std::string& conninfo);

/// Opens an SQLite file (or an SQLite `file:` URI, e.g. `file:h.db?mode=ro` for a read-only
/// snapshot). `create` allows a new file; the busy timeout waits for other writers.
Result<std::unique_ptr<Connection>> open_sqlite(const std::string& path, bool create,
                                                double lock_timeout_s);
/// Connects to PostgreSQL (`conninfo` is a URI or keyword string).
Result<std::unique_ptr<Connection>> open_postgres(const std::string& conninfo,
                                                  double lock_timeout_s);

/// Rolls back unless committed: a failed add leaves nothing behind.
class Transaction {
  public:
    explicit Transaction(Connection& connection) : connection_(connection) {}
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    ~Transaction() {
        if (open_) (void)connection_.exec("ROLLBACK");
    }
    Status begin() {
        auto status = connection_.begin_write();
        open_ = status.ok();
        return status;
    }
    Status commit() {
        auto status = connection_.exec("COMMIT");
        if (status) open_ = false;
        return status;
    }

  private:
    Connection& connection_;
    bool open_ = false;
};

}  // namespace ptune::history::sql
