// The PostgreSQL backend of the history store (libpq). Parameters are sent as text, rows come
// back as text and are typed by their column's type OID, so the store's code is the same as
// for SQLite.
//
// libpq is loaded when a PostgreSQL database is first opened, not linked: it pulls in some
// twenty libraries (OpenSSL, GnuTLS, Kerberos, LDAP) whose loading and relocation cost every
// other command ~5 MB of RSS and a few ms at start (docs/PERFORMANCE.md, "Start-up").

#include <dlfcn.h>
#include <libpq-fe.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "sql.hpp"

namespace ptune::history::sql {

namespace {

/// The libpq functions the backend calls, resolved from the library loaded at run time. Each
/// member has the name and type of the function it points to.
struct LibPq {
#define PTUNE_LIBPQ_FUNCTIONS(X) \
    X(PQclear)                   \
    X(PQcmdStatus)               \
    X(PQconnectdb)               \
    X(PQconninfoFree)            \
    X(PQconninfoParse)           \
    X(PQerrorMessage)            \
    X(PQexec)                    \
    X(PQfinish)                  \
    X(PQfreemem)                 \
    X(PQftype)                   \
    X(PQgetResult)               \
    X(PQgetisnull)               \
    X(PQgetvalue)                \
    X(PQnfields)                 \
    X(PQresultErrorField)        \
    X(PQresultErrorMessage)      \
    X(PQresultStatus)            \
    X(PQsendQueryParams)         \
    X(PQsetSingleRowMode)        \
    X(PQstatus)
#define PTUNE_LIBPQ_MEMBER(name) decltype(&::name) name = nullptr;
    PTUNE_LIBPQ_FUNCTIONS(PTUNE_LIBPQ_MEMBER)
#undef PTUNE_LIBPQ_MEMBER
};

/// libpq, loaded once per process: `$PTUNE_LIBPQ` when set (a libpq outside the loader's path),
/// else `libpq.so.5`. The library stays loaded; an error says what could not be loaded.
Result<const LibPq*> libpq() {
    static const Result<const LibPq*> loaded = []() -> Result<const LibPq*> {
        const char* from_env = std::getenv("PTUNE_LIBPQ");
        const std::string path = from_env && *from_env ? from_env : "libpq.so.5";
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* why = dlerror();
            return Error{fmt::format("a PostgreSQL history needs libpq (the libpq5 package): "
                                     "cannot load {}: {}",
                                     path, why ? why : "unknown error"),
                         "", 0, ExitCode::InputError};
        }
        static LibPq functions;
#define PTUNE_LIBPQ_RESOLVE(name)                                                               \
    functions.name = reinterpret_cast<decltype(functions.name)>(dlsym(handle, #name));          \
    if (!functions.name)                                                                        \
        return Error{fmt::format("{} is not a usable libpq: it has no {}", path, #name), "", 0, \
                     ExitCode::InputError};
        PTUNE_LIBPQ_FUNCTIONS(PTUNE_LIBPQ_RESOLVE)
#undef PTUNE_LIBPQ_RESOLVE
        return &functions;
    }();
    return loaded;
}
#undef PTUNE_LIBPQ_FUNCTIONS

// Type OIDs (pg_type.h is a server header; these values are fixed by PostgreSQL).
constexpr Oid kInt8 = 20, kInt2 = 21, kInt4 = 23, kFloat4 = 700, kFloat8 = 701, kNumeric = 1700;

// `?` placeholders → `$1`, `$2`... (the store's SQL has no `?` inside literals).
std::string number_placeholders(std::string_view statement) {
    std::string out;
    out.reserve(statement.size() + 16);
    int next = 1;
    for (char c : statement) {
        if (c == '?')
            out += fmt::format("${}", next++);
        else
            out += c;
    }
    return out;
}

Failure classify(const char* sqlstate) {
    if (!sqlstate) return Failure::Other;
    const std::string_view state(sqlstate);
    if (state.starts_with("23")) return Failure::Constraint;
    if (state == "55P03" || state == "40P01" || state == "57014") return Failure::Busy;
    if (state == "25006" || state.starts_with("42501")) return Failure::ReadOnly;
    return Failure::Other;
}

class PostgresConnection : public Connection {
  public:
    PostgresConnection(const LibPq& pq, PGconn* conn, std::string location)
        : pq(pq), conn_(conn), location_(std::move(location)) {}
    ~PostgresConnection() override { pq.PQfinish(conn_); }

    Dialect dialect() const override { return Dialect::Postgres; }

    Status exec(std::string_view statement) override {
        const std::string text(statement);
        PGresult* result = pq.PQexec(conn_, text.c_str());
        auto status = check(result);
        // A COMMIT of a transaction that failed earlier answers ROLLBACK without an error.
        if (status && text == "COMMIT" && std::strcmp(pq.PQcmdStatus(result), "ROLLBACK") == 0) {
            failure_ = Failure::Other;
            status = Error{"the transaction was rolled back", location_, 0, ExitCode::InputError};
        }
        pq.PQclear(result);
        return status;
    }

    Status query(std::string_view statement, const std::vector<Value>& params,
                 const std::function<void(const Row&)>& on_row) override {
        const std::string text = number_placeholders(statement);
        std::vector<std::string> storage(params.size());
        std::vector<const char*> values(params.size(), nullptr);
        for (std::size_t i = 0; i < params.size(); ++i) {
            const auto& value = params[i];
            if (const auto* v = std::get_if<std::int64_t>(&value)) {
                storage[i] = std::to_string(*v);
            } else if (const auto* d = std::get_if<double>(&value)) {
                storage[i] = fmt::format("{}", *d);  // shortest text that reads back exactly
            } else if (const auto* s = std::get_if<std::string>(&value)) {
                storage[i] = *s;
            } else {
                continue;  // NULL
            }
            values[i] = storage[i].c_str();
        }
        // Single-row mode: rows are handed out as they arrive, so a whole-history read does not
        // hold its result in the client.
        if (!pq.PQsendQueryParams(conn_, text.c_str(), static_cast<int>(params.size()), nullptr,
                                  values.data(), nullptr, nullptr, 0)) {
            failure_ = Failure::Other;
            return Error{pq.PQerrorMessage(conn_), location_, 0, ExitCode::InputError};
        }
        pq.PQsetSingleRowMode(conn_);
        Status status = ok_status();
        Row row;
        while (PGresult* result = pq.PQgetResult(conn_)) {
            const auto state = pq.PQresultStatus(result);
            if (state == PGRES_SINGLE_TUPLE) {
                if (status && on_row) {
                    read_row(result, row);
                    on_row(row);
                }
            } else if (status) {
                status = check(result);  // the final TUPLES_OK / COMMAND_OK, or the error
            }
            pq.PQclear(result);
        }
        return status;
    }

    Status begin_write() override { return exec("BEGIN"); }

    // The one row of a single-row result, typed by its columns' type OIDs.
    void read_row(const PGresult* result, Row& row) const {
        const int columns = pq.PQnfields(result);
        row.values.resize(static_cast<std::size_t>(columns));
        for (int c = 0; c < columns; ++c) {
            auto& cell = row.values[static_cast<std::size_t>(c)];
            if (pq.PQgetisnull(result, 0, c)) {
                cell = std::monostate{};
                continue;
            }
            const char* raw = pq.PQgetvalue(result, 0, c);
            switch (pq.PQftype(result, c)) {
                case kInt8:
                case kInt2:
                case kInt4:
                    cell = std::int64_t{std::strtoll(raw, nullptr, 10)};
                    break;
                case kFloat4:
                case kFloat8:
                case kNumeric:
                    cell = std::strtod(raw, nullptr);
                    break;
                default:
                    cell = std::string(raw);
            }
        }
    }

    Failure last_failure() const override { return failure_; }

    bool read_only() const override { return false; }

  private:
    Status check(PGresult* result) {
        const auto state = pq.PQresultStatus(result);
        if (state == PGRES_COMMAND_OK || state == PGRES_TUPLES_OK) {
            failure_ = Failure::None;
            return ok_status();
        }
        failure_ = classify(result ? pq.PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr);
        std::string message = result ? pq.PQresultErrorMessage(result) : pq.PQerrorMessage(conn_);
        while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
            message.pop_back();
        return Error{message, location_, 0, ExitCode::InputError};
    }

    const LibPq& pq;
    PGconn* conn_;
    std::string location_;
    Failure failure_ = Failure::None;
};

}  // namespace

namespace {

// `message` with the connection string's password (as libpq parses it) masked wherever it
// appears, and any `password=` in it redacted: libpq quotes pieces of a bad connection string.
std::string without_password(const LibPq& pq, std::string message, const std::string& conninfo) {
    char* error = nullptr;
    if (PQconninfoOption* options = pq.PQconninfoParse(conninfo.c_str(), &error)) {
        for (auto* option = options; option->keyword != nullptr; ++option) {
            if (std::string_view(option->keyword) != "password" || option->val == nullptr ||
                *option->val == '\0')
                continue;
            const std::string secret = option->val;
            for (std::size_t pos = 0; (pos = message.find(secret, pos)) != std::string::npos;)
                message.replace(pos, secret.size(), "***");
        }
        pq.PQconninfoFree(options);
    }
    if (error != nullptr) pq.PQfreemem(error);
    return redact(message);
}

}  // namespace

std::string redact(const std::string& conninfo) {
    std::string out = conninfo;
    const auto scheme = out.find("://");
    const auto at = out.find('@');
    if (scheme != std::string::npos && at != std::string::npos && at > scheme) {
        const auto colon = out.find(':', scheme + 3);
        if (colon != std::string::npos && colon < at)
            out = out.substr(0, colon + 1) + "***" + out.substr(at);
    }
    constexpr std::string_view kKey = "password";
    for (std::size_t pos = 0; (pos = out.find(kKey, pos)) != std::string::npos;) {
        const bool starts = pos == 0 || out[pos - 1] == ' ' || out[pos - 1] == '\t' ||
                            out[pos - 1] == '?' || out[pos - 1] == '&';
        std::size_t eq = pos + kKey.size();
        while (eq < out.size() && (out[eq] == ' ' || out[eq] == '\t')) ++eq;
        if (!starts || eq >= out.size() || out[eq] != '=') {
            pos += kKey.size();
            continue;
        }
        std::size_t value = eq + 1;
        while (value < out.size() && (out[value] == ' ' || out[value] == '\t')) ++value;
        std::size_t end = value;
        if (end < out.size() && out[end] == '\'') {  // a quoted value, \' and \\ escaped
            for (++end; end < out.size() && out[end] != '\''; ++end)
                if (out[end] == '\\') ++end;
            end = std::min(end + 1, out.size());
        } else {
            while (end < out.size() && out[end] != ' ' && out[end] != '\t' && out[end] != '&')
                ++end;
        }
        out.replace(value, end - value, "***");
        pos = value + 3;
    }
    return out;
}

Result<std::unique_ptr<Connection>> open_postgres(const std::string& conninfo,
                                                  double lock_timeout_s) {
    const std::string location = redact(conninfo);
    auto loaded = libpq();
    if (!loaded) {
        Error error = loaded.error();
        error.file = location;
        return error;
    }
    const LibPq& pq = **loaded;
    PGconn* conn = pq.PQconnectdb(conninfo.c_str());
    if (!conn || pq.PQstatus(conn) != CONNECTION_OK) {
        std::string message = conn ? pq.PQerrorMessage(conn) : "out of memory";
        while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
            message.pop_back();
        message = without_password(pq, message, conninfo);
        pq.PQfinish(conn);
        return Error{fmt::format("cannot connect to the history database: {}", message), location,
                     0, ExitCode::InputError};
    }
    auto connection = std::make_unique<PostgresConnection>(pq, conn, location);
    // Waiting for another writer's lock is bounded as for SQLite; notices stay off stderr.
    // lock_timeout 0 would mean "wait forever" in PostgreSQL.
    const auto timeout_ms =
        std::max(1LL, static_cast<long long>(std::llround(lock_timeout_s * 1000.0)));
    if (auto status = connection->exec(fmt::format("SET lock_timeout = {}", timeout_ms)); !status) {
        return status.error();
    }
    (void)connection->exec("SET client_min_messages = warning");
    return std::unique_ptr<Connection>(std::move(connection));
}

}  // namespace ptune::history::sql
