#include "ptune/core/diagnostics.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ptune {

namespace {
std::string_view severity_word(Severity severity) {
    switch (severity) {
        case Severity::Note:
            return "note";
        case Severity::Warning:
            return "warning";
        case Severity::Error:
            return "error";
    }
    return "warning";
}
}  // namespace

std::string Diagnostic::to_string() const {
    if (file.empty()) return fmt::format("{}: {}", severity_word(severity), message);
    if (line == 0) return fmt::format("{}: {}: {}", file, severity_word(severity), message);
    return fmt::format("{}:{}: {}: {}", file, line, severity_word(severity), message);
}

void Diagnostics::add(Severity severity, std::string file, std::size_t line, std::string message) {
    auto key = std::make_pair(file, severity);
    if (kept_[key]++ >= kKeptPerKind) {
        ++dropped_[key];
        return;
    }
    items_.push_back({severity, std::move(file), line, std::move(message)});
}

std::size_t Diagnostics::count(Severity severity) const {
    auto kept = static_cast<std::size_t>(std::count_if(
        items_.begin(), items_.end(), [&](const Diagnostic& d) { return d.severity == severity; }));
    for (const auto& [key, number] : dropped_)
        if (key.second == severity) kept += number;
    return kept;
}

void Diagnostics::append(const Diagnostics& other) {
    for (const auto& item : other.items_) add(item.severity, item.file, item.line, item.message);
    for (const auto& [key, number] : other.dropped_) {
        dropped_[key] += number;
        kept_[key] += number;
    }
}

}  // namespace ptune
