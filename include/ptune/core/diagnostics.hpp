#pragma once
/// @file diagnostics.hpp
/// Warnings and notes collected while parsing or analysing, reported on stderr by the CLI.
/// Parsers keep going after a bad line: they record it here and return what parsed.

#include <cstddef>
#include <map>
#include <string>
#include <utility>
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

/// An ordered collection of diagnostics. Hostile input can cause one per line (20 M bad rows),
/// so only the first kKeptPerKind of each file and severity are kept; the rest are counted
/// (dropped()) and count() includes them.
class Diagnostics {
  public:
    /// Diagnostics kept per file and severity; more are only counted.
    static constexpr std::size_t kKeptPerKind = 1000;

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
    void clear() {
        items_.clear();
        kept_.clear();
        dropped_.clear();
    }
    /// Diagnostics counted but not kept, per (file, severity).
    const std::map<std::pair<std::string, Severity>, std::size_t>& dropped() const {
        return dropped_;
    }

  private:
    std::vector<Diagnostic> items_;
    std::map<std::pair<std::string, Severity>, std::size_t> kept_;
    std::map<std::pair<std::string, Severity>, std::size_t> dropped_;
};

}  // namespace ptune
