#pragma once
/// @file error.hpp
/// Errors as values at module edges: `Result<T>` carries either a value or an `Error`.

#include <cstddef>
#include <optional>
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
    Result(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
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
inline Status ok_status() {
    return Unit{};
}

/// The verdict of one step of a command's sequence, instead of a sentinel int: `Flow::next()`
/// goes on with the next step, `Flow::stop(code)` ends the command now with exit code `code`
/// (the step has already reported why).
class [[nodiscard]] Flow {
  public:
    /// Continue with the next step.
    static Flow next() { return Flow(std::nullopt); }
    /// Stop the command with `exit_code`.
    static Flow stop(int exit_code) { return Flow(exit_code); }
    /// True when the command must stop.
    bool stopped() const { return code_.has_value(); }
    /// The exit code to stop with (only when stopped()).
    int exit_code() const { return code_.value_or(0); }

  private:
    explicit Flow(std::optional<int> code) : code_(code) {}
    std::optional<int> code_;
};

}  // namespace ptune
