// hints-lint output forms: JSON view, GCC-style, SARIF 2.1.0, GitHub annotations.

#include "ptune/hints/render.hpp"
#include "ptune/core/text.hpp"
#include "ptune/render/json_stream.hpp"
#include "ptune/render/pretty_json.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "ptune/core/terminal.hpp"
#include "ptune/core/version.hpp"

namespace ptune::hints {

namespace {

using nlohmann::json;

std::string_view first_line(std::string_view text) {
    return text.substr(0, text.find('\n'));
}

// How each output form names a severity: GCC's `note:`, SARIF's `note` level, GitHub's
// `::notice`.
enum class Levels { Gcc, Sarif, Github };

std::string_view level_word(rules::RuleSeverity severity, Levels form) {
    //                                                  Info      Warning    Error
    static constexpr std::string_view kWords[3][3] = {{"note", "warning", "error"},     // Gcc
                                                      {"note", "warning", "error"},     // Sarif
                                                      {"notice", "warning", "error"}};  // Github
    auto index = static_cast<std::size_t>(severity);
    return index < 3 ? kWords[static_cast<std::size_t>(form)][index] : "warning";
}

std::string_view disposition_word(Disposition disposition) {
    switch (disposition) {
        case Disposition::Reported:
            return "reported";
        case Disposition::Suppressed:
            return "suppressed";
        case Disposition::Baselined:
            return "baselined";
    }
    return "reported";
}

json or_null(const std::string& text) {
    return text.empty() ? json(nullptr) : json(text);
}
json or_null(std::size_t number) {
    return number == 0 ? json(nullptr) : json(number);
}

json diagnostic_to_json(const LintDiagnostic& d) {
    const Entry& entry = d.entry;
    json log = {{"file", d.log_path}, {"line", entry.log_line}};
    json item = {{"code", entry.code},
                 {"rule", entry.rule},
                 {"rule_id", d.rule_id},
                 {"rules", d.rule_ids},
                 {"catalogue", or_null(d.catalogue)},
                 {"severity", std::string(rules::to_string(d.severity))},
                 {"message", entry.message},
                 {"file", or_null(d.file)},
                 {"line", or_null(d.line)},
                 {"col", or_null(d.column)},
                 {"raw_file", entry.span ? json(entry.span->file) : json(nullptr)},
                 {"raw_col", entry.span ? json(entry.span->column) : json(nullptr)},
                 {"fields", entry.fields.json()},
                 {"advice_summary", d.advice_summary},
                 {"advice", d.advice},
                 {"fingerprint", d.fingerprint},
                 {"count", d.count},
                 {"weight", d.weight},
                 {"kernel", or_null(d.kernel)},
                 {"log", std::move(log)}};
    if (entry.ph001_template) item["template"] = entry.ph001_template;
    if (d.disposition != Disposition::Reported) {
        item["status"] = disposition_word(d.disposition);
        item["suppressed_by"] = d.suppressed_by;
    }
    return item;
}

// diagnostic_to_json(d).dump(2) written directly (the same bytes; render/pretty_json.hpp):
// `--format json` of 200,000 hints built and freed ~40 JSON nodes per hint.
void write_diagnostic_json(const LintDiagnostic& d, std::size_t indent, std::string& text) {
    const Entry& entry = d.entry;
    render::PrettyJson out(text, indent);
    auto string_or_null = [&](std::string_view value) {
        value.empty() ? out.null() : out.string(value);
    };
    auto number_or_null = [&](std::uint64_t value) { value ? out.number(value) : out.null(); };
    out.begin_object();
    out.key("advice");
    out.string(d.advice);
    out.key("advice_summary");
    out.string(d.advice_summary);
    out.key("catalogue");
    string_or_null(d.catalogue);
    out.key("code");
    out.string(entry.code);
    out.key("col");
    number_or_null(d.column);
    out.key("count");
    out.number(std::uint64_t{d.count});
    out.key("fields");
    out.begin_object();
    entry.fields.for_each([&](std::string_view name, const json& value) {
        out.key(name);
        out.value(value);
    });
    out.end_object();
    out.key("file");
    string_or_null(d.file);
    out.key("fingerprint");
    out.string(d.fingerprint);
    out.key("kernel");
    string_or_null(d.kernel);
    out.key("line");
    number_or_null(d.line);
    out.key("log");
    out.begin_object();
    out.key("file");
    out.string(d.log_path);
    out.key("line");
    out.number(std::uint64_t{entry.log_line});
    out.end_object();
    out.key("message");
    out.string(entry.message);
    out.key("raw_col");
    entry.span ? out.number(std::int64_t{entry.span->column}) : out.null();
    out.key("raw_file");
    entry.span ? out.string(entry.span->file) : out.null();
    out.key("rule");
    out.string(entry.rule);
    out.key("rule_id");
    out.string(d.rule_id);
    out.key("rules");
    out.begin_array();
    for (const auto& rule : d.rule_ids) {
        out.element();
        out.string(rule);
    }
    out.end_array();
    out.key("severity");
    out.string(rules::to_string(d.severity));
    if (d.disposition != Disposition::Reported) {
        out.key("status");
        out.string(disposition_word(d.disposition));
        out.key("suppressed_by");
        out.string(d.suppressed_by);
    }
    if (entry.ph001_template) {
        out.key("template");
        out.number(std::int64_t{entry.ph001_template});
    }
    out.key("weight");
    out.number(d.weight);
    out.end_object();
}

std::vector<const LintDiagnostic*> reported(const LintResult& result) {
    std::vector<const LintDiagnostic*> out;
    for (const auto& d : result.diagnostics) {
        if (d.disposition == Disposition::Reported) out.push_back(&d);
    }
    return out;
}

// `file:line:col` as far as known; hints without a location point at their log line.
std::string gcc_location(const LintDiagnostic& d) {
    if (d.line == 0) return fmt::format("{}:{}", d.log_path, d.entry.log_line);
    if (d.column == 0) return fmt::format("{}:{}", d.file, d.line);
    return fmt::format("{}:{}:{}", d.file, d.line, d.column);
}

std::string display_code(const LintDiagnostic& d) {
    return d.entry.code.empty() ? d.entry.rule : d.entry.code;
}

// SGR colour of a severity word, as GCC and clang paint them.
std::string_view severity_style(rules::RuleSeverity severity) {
    switch (severity) {
        case rules::RuleSeverity::Error:
            return "1;31";
        case rules::RuleSeverity::Warning:
            return "1;35";
        case rules::RuleSeverity::Info:
            return "1;36";
    }
    return "1";
}

// One diagnostic in GCC's one-line form (editors and CI problem matchers parse it, so it is
// never wrapped), painted like GCC's when `color`.
void write_gcc(const LintDiagnostic& d, std::ostream& out, bool color = false) {
    std::string where = term::paint(gcc_location(d), "1", color);
    out << fmt::format("{}: {} {} [{}]\n", where,
                       term::paint(fmt::format("{}:", level_word(d.severity, Levels::Gcc)),
                                   severity_style(d.severity), color),
                       first_line(d.entry.message), term::paint(display_code(d), "1", color));
    std::string repeats =
        d.count > 1 ? fmt::format(" ({} identical entries in the log)", d.count) : "";
    out << fmt::format("{}: {} {}{}\n", where, term::paint("note:", "1;36", color),
                       d.advice_summary, repeats);
}

class GccRenderer : public render::Renderer {
  public:
    explicit GccRenderer(const LintResult& result) : result_(result) {}
    void render(const render::Report&, std::ostream& out,
                const render::RenderOptions& options) const override {
        for (const auto* d : reported(result_)) write_gcc(*d, out, options.color);
    }

  private:
    const LintResult& result_;
};

class SarifRenderer : public render::Renderer {
  public:
    SarifRenderer(const LintResult& result, const rules::Catalogue& catalogue, bool with_baseline)
        : result_(result), catalogue_(catalogue), with_baseline_(with_baseline) {}

    // 200,000 results are written one at a time (a DOM of them passed 1 GB): the rule list,
    // which comes after them in key order, is made first from the codes alone.
    void render(const render::Report&, std::ostream& out,
                const render::RenderOptions&) const override {
        json rules_json = json::array();
        std::map<std::string, std::size_t> rule_index;
        const std::vector<const LintDiagnostic*> results = reported(result_);
        for (const auto* d : results) {
            if (rule_index.try_emplace(display_code(*d), rule_index.size()).second)
                rules_json.push_back(rule_metadata(*d));
        }
        json driver = {{"name", "ptune"},
                       {"version", std::string(version())},
                       {"informationUri", "https://example.invalid/ptune"},
                       {"rules", std::move(rules_json)}};
        json run = {{"tool", {{"driver", std::move(driver)}}},
                    {"invocations", json::array({{{"executionSuccessful", true}}})},
                    {"results", json::array()}};
        json document = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                         {"version", "2.1.0"},
                         {"runs", json::array({std::move(run)})}};
        render::write_json_with_arrays(
            std::move(document),
            {render::LazyArray{"/runs/0/results", results.size(),
                               [&](std::size_t i) {
                                   const LintDiagnostic& d = *results[i];
                                   return result_json(d, rule_index.at(display_code(d)));
                               }}},
            out);
    }

  private:
    // A path as a URI reference: percent-encoded except for unreserved characters and '/', so
    // that spaces, '%', '<', ':' and non-ASCII bytes stay valid; absolute paths become file URIs.
    static std::string uri(const std::string& path) {
        std::string encoded;
        for (unsigned char c : path) {
            bool keep =
                std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
            if (keep && c < 0x80)
                encoded += static_cast<char>(c);
            else
                encoded += fmt::format("%{:02X}", c);
        }
        return !path.empty() && path.front() == '/' ? "file://" + encoded : encoded;
    }

    static json artifact_location(const std::string& path) {
        json artifact = {{"uri", uri(path)}};
        if (!path.empty() && path.front() != '/') artifact["uriBaseId"] = "%SRCROOT%";
        return artifact;
    }

    // The source position when the hint has one, else the log line it was read from.
    static json physical_location(const LintDiagnostic& d) {
        if (d.line) {
            json region = {{"startLine", d.line}};
            if (d.column) region["startColumn"] = d.column;
            return {{"physicalLocation",
                     {{"artifactLocation", artifact_location(d.file)}, {"region", region}}}};
        }
        std::string log = d.log_path == "-" || d.log_path.empty() ? "<stdin>" : d.log_path;
        return {{"physicalLocation",
                 {{"artifactLocation", artifact_location(log)},
                  {"region", {{"startLine", std::max<std::size_t>(1, d.entry.log_line)}}}}}};
    }

    json result_json(const LintDiagnostic& d, std::size_t rule_index) const {
        json result = {
            {"ruleId", display_code(d)},
            {"ruleIndex", rule_index},
            {"level", level_word(d.severity, Levels::Sarif)},
            {"message", {{"text", fmt::format("{}\n{}", d.entry.message, d.advice_summary)}}},
            {"partialFingerprints", {{"primaryLocationLineHash", d.fingerprint}}},
            {"properties",
             {{"ptuneRule", d.rule_id}, {"fields", d.entry.fields.json()}, {"count", d.count}}}};
        result["locations"] = json::array({physical_location(d)});
        if (d.line == 0) {
            // No source file to point at (no span, or a pseudo-file such as `<string>`): the
            // result points at its own log line, because GitHub code scanning rejects a result
            // without a location. The compiler's position is kept as a property.
            if (d.entry.span) {
                result["properties"]["originalLocation"] = fmt::format(
                    "{}:{}:{}", d.entry.span->file, d.entry.span->line, d.entry.span->column);
            }
        }
        if (with_baseline_) result["baselineState"] = "new";
        return result;
    }

    // Rule metadata of a code: the catalogue rule `hints.<CODE>` when there is one, else the
    // rule that produced this diagnostic.
    json rule_metadata(const LintDiagnostic& d) const {
        std::string code = display_code(d);
        const rules::Rule* rule = catalogue_.find("hints." + code);
        if (!rule) rule = catalogue_.find(d.rule_id);
        std::string title = rule ? rule->title : d.title.str();
        std::string advice = rule ? rule->advice : d.advice.str();
        rules::RuleSeverity severity = rule ? rule->severity : d.severity;
        json metadata = {{"id", code},
                         {"name", d.entry.rule},
                         {"shortDescription", {{"text", title}}},
                         {"fullDescription", {{"text", advice}}},
                         {"help", {{"text", advice}, {"markdown", advice}}},
                         {"defaultConfiguration", {{"level", level_word(severity, Levels::Sarif)}}},
                         {"properties",
                          {{"ptuneRule", rule ? rule->id : d.rule_id.str()},
                           {"catalogue", rule ? rule->catalogue : d.catalogue.str()}}}};
        return metadata;
    }

    const LintResult& result_;
    const rules::Catalogue& catalogue_;
    bool with_baseline_;
};

class GithubRenderer : public render::Renderer {
  public:
    GithubRenderer(const LintResult& result, std::size_t cap) : result_(result), cap_(cap) {}

    void render(const render::Report&, std::ostream& out,
                const render::RenderOptions&) const override {
        auto all = reported(result_);
        // The most important first: severity, then traffic weight; log order breaks ties.
        auto ranked = all;
        std::stable_sort(ranked.begin(), ranked.end(), [](const auto* a, const auto* b) {
            if (a->severity != b->severity) return a->severity > b->severity;
            return a->weight > b->weight;
        });
        std::map<rules::RuleSeverity, std::size_t> per_level;
        for (const auto* d : ranked) ++per_level[d->severity];
        // The summary notice takes one notice slot when anything is left out.
        bool overflow = std::any_of(per_level.begin(), per_level.end(),
                                    [&](const auto& level) { return level.second > cap_; });
        std::map<rules::RuleSeverity, std::size_t> shown;
        std::size_t dropped = 0;
        for (const auto* d : ranked) {
            std::size_t cap = cap_;
            if (overflow && d->severity == rules::RuleSeverity::Info && cap > 0) --cap;
            if (shown[d->severity] >= cap) {
                ++dropped;
                continue;
            }
            ++shown[d->severity];
            write_annotation(*d, out);
        }
        if (dropped == 0) return;
        out << fmt::format(
            "::notice title=ptune hints-lint::{}\n",
            ptune::text::github_escape(
                fmt::format("{} more perf hint(s) not annotated (GitHub shows {} per "
                            "level and step); the full list is in the log group "
                            "below, or use --format sarif",
                            dropped, cap_),
                false));
        out << fmt::format("::group::ptune hints-lint: all {} hints\n", all.size());
        for (const auto* d : all) write_gcc(*d, out);
        out << "::endgroup::\n";
    }

  private:
    static void write_annotation(const LintDiagnostic& d, std::ostream& out) {
        std::vector<std::string> properties;
        if (d.line) {
            properties.push_back("file=" + ptune::text::github_escape(d.file, true));
            properties.push_back(fmt::format("line={}", d.line));
            if (d.column) properties.push_back(fmt::format("col={}", d.column));
        }
        properties.push_back(
            "title=" +
            ptune::text::github_escape(fmt::format("{} {}", display_code(d), d.entry.rule), true));
        std::string message = fmt::format("{}\n{}", d.entry.message, d.advice_summary);
        out << fmt::format("::{} {}::{}\n", level_word(d.severity, Levels::Github),
                           fmt::join(properties, ","), ptune::text::github_escape(message, false));
    }

    const LintResult& result_;
    std::size_t cap_;
};

}  // namespace

namespace {

// to_json without its two large arrays (empty here); `reported` and `suppressed` get the
// indices of the diagnostics that go into each.
json json_without_diagnostics(const LintResult& result, std::vector<std::size_t>& reported,
                              std::vector<std::size_t>& suppressed_at) {
    json inputs = json::array();
    for (const auto& log : result.logs) {
        inputs.push_back({{"path", log.path},
                          {"entries", log.total_entries},
                          {"compiles", log.compile_starts.size()},
                          {"compile_start_lines", log.compile_starts},
                          {"identical_compiles", log.identical_compiles},
                          {"column_base", log.column_base.base},
                          {"column_base_reason", log.column_base.reason}});
    }
    std::size_t counts[3] = {0, 0, 0};
    std::map<std::string, std::size_t> by_code;
    for (std::size_t i = 0; i < result.diagnostics.size(); ++i) {
        const auto& d = result.diagnostics[i];
        ++counts[static_cast<int>(d.disposition)];
        if (d.disposition == Disposition::Reported) {
            ++by_code[display_code(d)];
            reported.push_back(i);
        } else {
            suppressed_at.push_back(i);
        }
    }
    json unused = json::array();
    for (const auto& u : result.unused_suppressions) {
        unused.push_back({{"file", u.file}, {"line", u.line}, {"code", u.code}});
    }
    json fixed = json::array();
    for (const auto& f : result.fixed) {
        fixed.push_back({{"fingerprint", f.fingerprint},
                         {"code", f.code},
                         {"file", f.file},
                         {"message", f.message}});
    }
    json findings = json::array();
    for (const auto& finding : result.log_findings)
        findings.push_back(render::finding_to_json(finding));
    return {{"inputs", std::move(inputs)},
            {"summary",
             {{"hints", result.diagnostics.size()},
              {"reported", counts[0]},
              {"suppressed", counts[1]},
              {"baselined", counts[2]},
              {"disabled", result.disabled},
              {"fixed", result.fixed.size()},
              {"unused_suppressions", result.unused_suppressions.size()},
              {"by_code", by_code}}},
            {"diagnostics", json::array()},
            {"suppressed", json::array()},
            {"unused_suppressions", std::move(unused)},
            {"fixed", std::move(fixed)},
            {"kernels", result.kernels},
            {"log_findings", std::move(findings)}};
}

// `--format json` of 200,000 hints: the diagnostics are written one at a time, never a DOM.
class JsonRenderer : public render::Renderer {
  public:
    explicit JsonRenderer(const LintResult& result) : result_(result) {}

    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions&) const override {
        std::vector<std::size_t> reported, suppressed;
        render::Report header = report;
        header.data = json_without_diagnostics(result_, reported, suppressed);
        auto writer = [&](const std::vector<std::size_t>& indices) {
            return [&](std::size_t i, std::size_t indent, std::string& text) {
                write_diagnostic_json(result_.diagnostics[indices[i]], indent, text);
            };
        };
        render::write_json_with_arrays(
            render::to_json(header),
            {render::LazyArray{"diagnostics", reported.size(), nullptr, writer(reported)},
             render::LazyArray{"suppressed", suppressed.size(), nullptr, writer(suppressed)}},
            out);
    }

  private:
    const LintResult& result_;
};

}  // namespace

json to_json(const LintResult& result) {
    std::vector<std::size_t> reported, suppressed;
    json view = json_without_diagnostics(result, reported, suppressed);
    for (std::size_t i : reported)
        view["diagnostics"].push_back(diagnostic_to_json(result.diagnostics[i]));
    for (std::size_t i : suppressed)
        view["suppressed"].push_back(diagnostic_to_json(result.diagnostics[i]));
    return view;
}

std::unique_ptr<render::Renderer> make_json_renderer(const LintResult& result) {
    return std::make_unique<JsonRenderer>(result);
}

std::unique_ptr<render::Renderer> make_gcc_renderer(const LintResult& result) {
    return std::make_unique<GccRenderer>(result);
}

std::unique_ptr<render::Renderer> make_sarif_renderer(const LintResult& result,
                                                      const rules::Catalogue& catalogue,
                                                      bool with_baseline) {
    return std::make_unique<SarifRenderer>(result, catalogue, with_baseline);
}

std::unique_ptr<render::Renderer> make_github_renderer(const LintResult& result,
                                                       std::size_t cap_per_level) {
    return std::make_unique<GithubRenderer>(result, cap_per_level);
}

}  // namespace ptune::hints
