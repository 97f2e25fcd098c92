// Baseline of accepted hints: fingerprints (not line numbers, conventions.md §3.5), so entries
// survive code moving; entries that no longer occur are reported as fixed.

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/json_document.hpp"
#include "ptune/core/version.hpp"
#include "ptune/hints/lint.hpp"

namespace ptune::hints {

namespace {
constexpr std::string_view kBaselineKind = "ptune-hints-baseline";
}

Result<Baseline> parse_baseline(std::string_view text, const std::string& source) {
    auto fail = [&](std::string message) {
        return Error{std::move(message), source, 0, ExitCode::InputError};
    };
    auto parsed = json_document::parse(text, source);
    if (!parsed) {
        Error error = parsed.error();
        error.message.insert(0, "not a baseline: ");
        return error;
    }
    nlohmann::json& document = *parsed;
    if (!document.is_object() || document.value("kind", "") != kBaselineKind ||
        !document.contains("entries") || !document["entries"].is_array()) {
        return fail(fmt::format(
            "not a baseline: expected {{\"kind\": \"{}\", \"entries\": [...]}} (write one with "
            "--write-baseline)",
            kBaselineKind));
    }
    Baseline baseline;
    std::size_t index = 0;
    for (const auto& item : document["entries"]) {
        ++index;
        if (!item.is_object() || !item.contains("fingerprint") ||
            !item["fingerprint"].is_string()) {
            return fail(fmt::format("baseline entry {} has no string \"fingerprint\"", index));
        }
        FixedEntry entry;
        entry.fingerprint = item["fingerprint"].get<std::string>();
        auto text_of = [&](const char* key) {
            auto it = item.find(key);
            return it != item.end() && it->is_string() ? it->get<std::string>() : std::string();
        };
        entry.code = text_of("code");
        entry.file = text_of("file");
        entry.message = text_of("message");
        baseline.entries.push_back(std::move(entry));
    }
    return baseline;
}

std::string baseline_json(const LintResult& result) {
    std::vector<const LintDiagnostic*> accepted;
    for (const auto& diagnostic : result.diagnostics) {
        if (diagnostic.disposition != Disposition::Suppressed) accepted.push_back(&diagnostic);
    }
    // Sorted by file, code and fingerprint so that the file diffs well under version control.
    std::sort(accepted.begin(), accepted.end(), [](const auto* a, const auto* b) {
        return std::tie(a->file, a->entry.code, a->fingerprint) <
               std::tie(b->file, b->entry.code, b->fingerprint);
    });
    nlohmann::json entries = nlohmann::json::array();
    for (const auto* diagnostic : accepted) {
        entries.push_back({{"fingerprint", diagnostic->fingerprint},
                           {"code", diagnostic->entry.code},
                           {"file", diagnostic->file},
                           {"message", diagnostic->entry.message}});
    }
    nlohmann::json document = {{"tool", "ptune"},
                               {"kind", kBaselineKind},
                               {"schema_version", kSchemaVersion},
                               {"entries", std::move(entries)}};
    return json_document::dump(document, 2) + "\n";
}

void apply_baseline(LintResult& result, const Baseline& baseline) {
    std::set<std::string> accepted;
    for (const auto& entry : baseline.entries) accepted.insert(entry.fingerprint);
    std::set<std::string> present;
    for (auto& diagnostic : result.diagnostics) {
        present.insert(diagnostic.fingerprint);
        if (diagnostic.disposition == Disposition::Reported &&
            accepted.count(diagnostic.fingerprint)) {
            diagnostic.disposition = Disposition::Baselined;
            diagnostic.suppressed_by = "baseline";
        }
    }
    for (const auto& entry : baseline.entries) {
        if (!present.count(entry.fingerprint)) result.fixed.push_back(entry);
    }
}

}  // namespace ptune::hints
