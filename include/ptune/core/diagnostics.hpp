#pragma once
/// @file diagnostics.hpp
/// Warnings and notes collected while parsing or analysing, reported on stderr by the CLI.
/// Parsers keep going after a bad line: they record it here and return what parsed.

#include <cstddef>
#include <string>
#include <vector>

namespace ptune {

enum class Severity { Note, Warning, Error };

/// One message about an input, with its place when known.
struct Diagnostic {
    Severity severity = Severity::Warning;
    std::string file;
    std::size_t line = 0;  ///< 1-based; 0 when the message is about the whole file
    std::string message;

    /// `file:line: warning: message` (the parts that are known).
    std::string to_string() const;
};

/// An ordered collection of diagnostics.
class Diagnostics {
public:
    void add(Severity severity, std::string file, std::size_t line, std::string message);
    void warn(std::string file, std::size_t line, std::string message) {
        add(Severity::Warning, std::move(file), line, std::move(message));
    }
    void note(std::string file, std::size_t line, std::string message) {
        add(Severity::Note, std::move(file), line, std::move(message));
    }
    void error(std::string file, std::size_t line, std::string message) {
        add(Severity::Error, std::move(file), line, std::move(message));
    }

    const std::vector<Diagnostic>& items() const { return items_; }
    std::size_t count(Severity severity) const;
    bool empty() const { return items_.empty(); }
    void append(const Diagnostics& other);
    void clear() { items_.clear(); }

private:
    std::vector<Diagnostic> items_;
};

}  // namespace ptune
