// The SQLite backend of the history store: one file, WAL mode, writers queued by the busy
// timeout and BEGIN IMMEDIATE. Prepared statements are cached by their text, since an add
// runs the same few statements once per case.

#include <sqlite3.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <unordered_map>

#include <fmt/format.h>

#include "ptune/core/io.hpp"
#include "sql.hpp"

namespace ptune::history::sql {

// A database file can be damaged or written by another tool: a column may hold text where a
// number belongs. Such a value reads as 0 (integer) or NaN (real), as NULL does; never throws.
std::int64_t Row::integer(std::size_t i) const {
    if (const auto* v = std::get_if<std::int64_t>(&values[i])) return *v;
    if (const auto* d = std::get_if<double>(&values[i])) {
        // Out of range (or NaN) a conversion would be undefined.
        constexpr double kLimit = 9.2e18;
        return std::isfinite(*d) && std::fabs(*d) < kLimit ? static_cast<std::int64_t>(*d) : 0;
    }
    if (const auto* s = std::get_if<std::string>(&values[i])) {
        std::int64_t value = 0;
        const auto [end, error] = std::from_chars(s->data(), s->data() + s->size(), value);
        return error == std::errc() && end == s->data() + s->size() ? value : 0;
    }
    return 0;
}

double Row::real(std::size_t i) const {
    if (const auto* d = std::get_if<double>(&values[i])) return *d;
    if (const auto* v = std::get_if<std::int64_t>(&values[i])) return static_cast<double>(*v);
    if (const auto* s = std::get_if<std::string>(&values[i])) {
        double value = 0.0;
        const auto [end, error] = std::from_chars(s->data(), s->data() + s->size(), value);
        return error == std::errc() && end == s->data() + s->size() ? value : std::nan("");
    }
    return std::nan("");
}

std::string Row::text(std::size_t i) const {
    if (const auto* s = std::get_if<std::string>(&values[i])) return *s;
    if (const auto* v = std::get_if<std::int64_t>(&values[i])) return std::to_string(*v);
    if (const auto* d = std::get_if<double>(&values[i])) return fmt::format("{}", *d);
    return {};
}

namespace {

Failure classify(int code) {
    switch (code & 0xff) {
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            return Failure::Busy;
        case SQLITE_NOTADB:
        case SQLITE_CORRUPT:
            return Failure::NotADatabase;
        case SQLITE_CONSTRAINT:
            return Failure::Constraint;
        case SQLITE_READONLY:
        case SQLITE_CANTOPEN:
        case SQLITE_PERM:
            return Failure::ReadOnly;
        default:
            return Failure::Other;
    }
}

class SqliteConnection : public Connection {
  public:
    SqliteConnection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
    ~SqliteConnection() override {
        for (auto& [text, statement] : statements_) sqlite3_finalize(statement);
        sqlite3_close_v2(db_);
    }

    Dialect dialect() const override { return Dialect::Sqlite; }

    Status exec(std::string_view statement) override {
        const std::string text(statement);
        char* message = nullptr;
        const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
        std::string detail = message ? message : sqlite3_errstr(rc);
        sqlite3_free(message);
        return check(rc, detail);
    }

    Status query(std::string_view statement, const std::vector<Value>& params,
                 const std::function<void(const Row&)>& on_row) override {
        auto prepared = prepare(statement);
        if (!prepared) return prepared.error();
        sqlite3_stmt* stmt = *prepared;
        sqlite3_reset(stmt);
        sqlite3_clear_bindings(stmt);
        for (std::size_t i = 0; i < params.size(); ++i) {
            const int index = static_cast<int>(i) + 1;
            const auto& value = params[i];
            if (const auto* v = std::get_if<std::int64_t>(&value)) {
                sqlite3_bind_int64(stmt, index, *v);
            } else if (const auto* d = std::get_if<double>(&value)) {
                sqlite3_bind_double(stmt, index, *d);
            } else if (const auto* s = std::get_if<std::string>(&value)) {
                sqlite3_bind_text(stmt, index, s->data(), static_cast<int>(s->size()),
                                  SQLITE_TRANSIENT);
            } else {
                sqlite3_bind_null(stmt, index);
            }
        }
        Row row;
        const int columns = sqlite3_column_count(stmt);
        row.values.resize(static_cast<std::size_t>(columns));
        for (;;) {
            const int rc = sqlite3_step(stmt);
            if (rc == SQLITE_DONE) break;
            if (rc != SQLITE_ROW) {
                auto status = check(rc, sqlite3_errmsg(db_));
                sqlite3_reset(stmt);
                return status;
            }
            if (!on_row) continue;
            for (int c = 0; c < columns; ++c) {
                auto& cell = row.values[static_cast<std::size_t>(c)];
                switch (sqlite3_column_type(stmt, c)) {
                    case SQLITE_INTEGER:
                        cell = std::int64_t{sqlite3_column_int64(stmt, c)};
                        break;
                    case SQLITE_FLOAT:
                        cell = sqlite3_column_double(stmt, c);
                        break;
                    case SQLITE_NULL:
                        cell = std::monostate{};
                        break;
                    default: {
                        const auto* text =
                            reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
                        cell = std::string(text ? text : "",
                                           static_cast<std::size_t>(sqlite3_column_bytes(stmt, c)));
                    }
                }
            }
            on_row(row);
        }
        sqlite3_reset(stmt);
        failure_ = Failure::None;
        return ok_status();
    }

    Status begin_write() override { return exec("BEGIN IMMEDIATE"); }

    Failure last_failure() const override { return failure_; }

    bool read_only() const override { return sqlite3_db_readonly(db_, "main") == 1; }

  private:
    Result<sqlite3_stmt*> prepare(std::string_view statement) {
        const std::string text(statement);
        if (auto it = statements_.find(text); it != statements_.end()) return it->second;
        sqlite3_stmt* stmt = nullptr;
        const int rc =
            sqlite3_prepare_v2(db_, text.c_str(), static_cast<int>(text.size()), &stmt, nullptr);
        if (rc != SQLITE_OK) {
            auto status = check(rc, sqlite3_errmsg(db_));
            return status.error();
        }
        statements_.emplace(text, stmt);
        return stmt;
    }

    Status check(int rc, const std::string& detail) {
        if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW) {
            failure_ = Failure::None;
            return ok_status();
        }
        failure_ = classify(rc);
        return Error{detail, path_, 0, ExitCode::InputError};
    }

    sqlite3* db_;
    std::string path_;
    std::unordered_map<std::string, sqlite3_stmt*> statements_;
    Failure failure_ = Failure::None;
};

}  // namespace

namespace {

/// `path` (a file name or a `file:` URI naming `file`) as a URI that opens it immutable.
std::string immutable_uri(const std::string& path, const std::string& file) {
    if (path.starts_with("file:"))
        return path + (path.find('?') == std::string::npos ? "?" : "&") + "immutable=1";
    std::string uri = "file:";
    for (char c : file) {
        if (c == '%' || c == '?' || c == '#')
            uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
        else
            uri += c;
    }
    return uri + "?immutable=1";
}

}  // namespace

Result<std::unique_ptr<Connection>> open_sqlite(const std::string& path, bool create,
                                                double lock_timeout_s) {
    std::error_code ec;
    const bool uri = path.starts_with("file:");
    const bool exists = uri || std::filesystem::exists(path, ec);
    if (!exists && !create) {
        return Error{"no history database here (record a run with `ptune history add` first)", path,
                     0, ExitCode::InputError};
    }
    if (!uri && std::filesystem::is_directory(path, ec)) {
        return Error{"is a directory, not a history database", path, 0, ExitCode::InputError};
    }
    // A FIFO or a device would block SQLite's open or read for ever.
    if (!uri && exists)
        if (auto regular = io::check_regular_file(path); !regular) return regular.error();
    // SQLite opens, and removes, its journal files beside the database: a FIFO there blocks it
    // or is deleted.
    if (!uri)
        for (const char* suffix : {"-journal", "-wal", "-shm"})
            if (const std::string side = path + suffix; io::is_special(side))
                if (auto regular = io::check_regular_file(side); !regular)
                    return Error{regular.error().message + " (the database's journal file)", side,
                                 0, ExitCode::InputError};
    if (!exists) {
        const auto parent = std::filesystem::path(path).parent_path();
        if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    }
    sqlite3* db = nullptr;
    const int flags = SQLITE_OPEN_READWRITE | (create && !uri ? SQLITE_OPEN_CREATE : 0) |
                      SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
    int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
    if (rc != SQLITE_OK && exists) {
        // A file we may read but not write still answers list/show/changes/export.
        sqlite3_close_v2(db);
        db = nullptr;
        rc = sqlite3_open_v2(path.c_str(), &db,
                             SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, nullptr);
    }
    if (rc != SQLITE_OK) {
        std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        sqlite3_close_v2(db);
        return Error{fmt::format("cannot open the history database: {}", message), path, 0,
                     ExitCode::InputError};
    }
    if (sqlite3_db_readonly(db, "main") == 1) {
        // Read-only (a 0444 file, another user's folder, `?mode=ro`): a WAL database would need
        // -wal/-shm files SQLite cannot create there, or leaves them behind where it can. With no
        // writer's journal beside the file there is nothing but the file to read: open it as
        // immutable, which creates nothing. A journal present (a writer, or one that crashed)
        // keeps the ordinary read-only open.
        const std::string file = sqlite3_db_filename(db, "main");
        if (!file.empty() && !std::filesystem::exists(file + "-wal", ec) &&
            !std::filesystem::exists(file + "-shm", ec)) {
            sqlite3* immutable = nullptr;
            if (sqlite3_open_v2(immutable_uri(path, file).c_str(), &immutable,
                                SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
                                nullptr) == SQLITE_OK) {
                sqlite3_close_v2(db);
                db = immutable;
            } else {
                sqlite3_close_v2(immutable);
            }
        }
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, static_cast<int>(std::lround(lock_timeout_s * 1000.0)));
    return std::unique_ptr<Connection>(std::make_unique<SqliteConnection>(db, path));
}

}  // namespace ptune::history::sql
