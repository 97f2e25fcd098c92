#pragma once
/// @file error.hpp
/// Errors as values at module edges: `Result<T>` carries either a value or an `Error`.

#include <cstddef>
#include <string>
#include <utility>
#include <variant>

namespace ptune {

/// Process exit codes, documented in `ptune --help` and the README.
enum class ExitCode : int {
    Ok = 0,             ///< success, nothing to report
    Findings = 1,       ///< lint findings or a benchmark regression
    InputError = 2,     ///< usage error, unreadable or unusable input
    InternalError = 3,  ///< a bug in ptune
};

/// A failure with the place in the input it refers to (file and 1-based line, 0 if unknown).
struct Error {
    std::string message;
    std::string file;
    std::size_t line = 0;
    ExitCode code = ExitCode::InputError;

    /// `file:line: message`, `file: message` or just `message`.
    std::string to_string() const;
};

/// Either a value or an Error. Modules return this instead of throwing across their edge.
template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : state_(std::move(value)) {}  // NOLINT: implicit by design
    Result(Error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

    bool ok() const { return state_.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(state_); }
    const T& value() const& { return std::get<0>(state_); }
    T&& value() && { return std::get<0>(std::move(state_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    const Error& error() const { return std::get<1>(state_); }

private:
    std::variant<T, Error> state_;
};

/// Result of an operation with no value.
struct Unit {};
using Status = Result<Unit>;

/// The successful Status.
inline Status ok_status() { return Unit{}; }

}  // namespace ptune
