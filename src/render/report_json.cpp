// The JSON view of a report: the envelope, findings as JSON, and JSON with large arrays written
// element by element.
#include <algorithm>

#include <fmt/format.h>

#include "ptune/core/json_document.hpp"
#include "ptune/core/version.hpp"
#include "ptune/render/json_stream.hpp"
#include "ptune/render/pretty_json.hpp"
#include "ptune/render/report.hpp"
#include "report_internal.hpp"

namespace ptune::render {

namespace {

class JsonRenderer : public Renderer {
  public:
    void render(const Report& report, std::ostream& out, const RenderOptions&) const override {
        write_report_json(report, {}, out);
    }
};

}  // namespace

std::unique_ptr<Renderer> make_json_renderer() {
    return std::make_unique<JsonRenderer>();
}

nlohmann::json finding_to_json(const rules::Finding& finding) {
    nlohmann::json locations = nlohmann::json::array();
    for (const auto& location : finding.locations) {
        nlohmann::json entry = {{"file", location.file}};
        if (location.line) entry["line"] = location.line;
        if (location.column) entry["col"] = location.column;
        locations.push_back(std::move(entry));
    }
    nlohmann::json evidence = nlohmann::json::object();
    for (const auto& [name, value] : finding.evidence) evidence[name] = value;
    return {
        {"rule", finding.rule},
        {"catalogue",
         finding.catalogue.empty() ? nlohmann::json() : nlohmann::json(finding.catalogue)},
        {"severity", std::string(rules::to_string(finding.severity))},
        {"title", finding.title},
        {"message", finding.message},
        {"advice", finding.advice},
        {"guide", finding.guide},
        {"tier", finding.tier},
        {"subject", {{"kind", finding.subject.kind}, {"name", finding.subject.name}}},
        {"evidence", std::move(evidence)},
        {"locations", std::move(locations)},
        {"impact", finding.impact ? nlohmann::json(*finding.impact) : nlohmann::json()},
    };
}

void write_finding_json(const rules::Finding& finding, std::size_t indent, std::string& out) {
    // finding_to_json's members in the order its object lists them (by key).
    PrettyJson json(out, indent);
    json.begin_object();
    json.key("advice");
    json.string(finding.advice);
    json.key("catalogue");
    if (finding.catalogue.empty())
        json.null();
    else
        json.string(finding.catalogue);
    json.key("evidence");
    json.begin_object();
    for (const auto& [name, value] : finding.evidence) {
        json.key(name);
        json.number(value);
    }
    json.end_object();
    json.key("guide");
    json.string(finding.guide);
    json.key("impact");
    if (finding.impact)
        json.number(*finding.impact);
    else
        json.null();
    json.key("locations");
    json.begin_array();
    for (const auto& location : finding.locations) {
        json.element();
        json.begin_object();
        if (location.column) {
            json.key("col");
            json.number(static_cast<std::uint64_t>(location.column));
        }
        json.key("file");
        json.string(location.file);
        if (location.line) {
            json.key("line");
            json.number(static_cast<std::uint64_t>(location.line));
        }
        json.end_object();
    }
    json.end_array();
    json.key("message");
    json.string(finding.message);
    json.key("rule");
    json.string(finding.rule);
    json.key("severity");
    json.string(rules::to_string(finding.severity));
    json.key("subject");
    json.begin_object();
    json.key("kind");
    json.string(finding.subject.kind);
    json.key("name");
    json.string(finding.subject.name);
    json.end_object();
    json.key("tier");
    json.string(finding.tier);
    json.key("title");
    json.string(finding.title);
    json.end_object();
}

namespace {

/// to_json() without the findings.
nlohmann::json envelope_json(const Report& report) {
    nlohmann::json out = nlohmann::json::object();
    out["tool"] = "ptune";
    out["schema_version"] = kSchemaVersion;
    out["version"] = std::string(version());
    out["command"] = report.command;
    for (const auto& [key, value] : report.data.items()) out[key] = value;
    return out;
}

}  // namespace

nlohmann::json to_json(const Report& report) {
    nlohmann::json out = envelope_json(report);
    if (report.include_findings_in_json) {
        nlohmann::json findings = nlohmann::json::array();
        for (const auto& finding : report.findings) findings.push_back(finding_to_json(finding));
        out["findings"] = std::move(findings);
    }
    return out;
}

void write_report_json(const Report& report, std::vector<LazyArray> arrays, std::ostream& out) {
    if (report.include_findings_in_json)
        arrays.push_back({"findings", report.findings.size(), nullptr,
                          [&](std::size_t i, std::size_t indent, std::string& text) {
                              write_finding_json(report.findings[i], indent, text);
                          }});
    write_json_with_arrays(envelope_json(report), arrays, out);
}

void write_json_with_arrays(nlohmann::json value, const std::vector<LazyArray>& arrays,
                            std::ostream& out) {
    // Placeholders no input can produce (control characters are escaped in JSON strings),
    // replaced by the arrays written element by element.
    for (std::size_t a = 0; a < arrays.size(); ++a) {
        const std::string& key = arrays[a].key;
        nlohmann::json& slot =
            key.rfind('/', 0) == 0 ? value[nlohmann::json::json_pointer(key)] : value[key];
        slot = fmt::format(
            "\x01"
            "array{}\x01",  // split: "\x01a" would be one escape
            a);
    }
    const std::string text = json_document::dump(value, 2);
    // (position in text, array) in text order.
    std::vector<std::pair<std::size_t, std::size_t>> at;
    for (std::size_t a = 0; a < arrays.size(); ++a) {
        std::size_t pos = text.find(fmt::format("\"\\u0001array{}\\u0001\"", a));
        if (pos != std::string::npos) at.emplace_back(pos, a);
    }
    std::sort(at.begin(), at.end());
    std::size_t written = 0;
    for (const auto& [pos, a] : at) {
        const LazyArray& array = arrays[a];
        out.write(text.data() + written, static_cast<std::streamsize>(pos - written));
        written = pos + fmt::format("\"\\u0001array{}\\u0001\"", a).size();
        if (array.count == 0) {
            out << "[]";
            continue;
        }
        // The array's indentation: its key's line.
        const std::size_t line_start = text.rfind('\n', pos) + 1;
        const std::string indent(text.find_first_not_of(' ', line_start) - line_start, ' ');
        const std::string inner = indent + "  ";
        out << '[';
        std::string written_text;
        for (std::size_t i = 0; i < array.count; ++i) {
            out << (i == 0 ? "\n" : ",\n") << inner;
            if (array.write) {
                written_text.clear();
                array.write(i, inner.size(), written_text);
                out.write(written_text.data(), static_cast<std::streamsize>(written_text.size()));
                continue;
            }
            const std::string item = json_document::dump(array.element(i), 2);
            // Line by line, each continuation indented (a put() per byte dominated the time).
            std::size_t from = 0;
            for (std::size_t eol; (eol = item.find('\n', from)) != std::string::npos;
                 from = eol + 1) {
                out.write(item.data() + from, static_cast<std::streamsize>(eol + 1 - from));
                out << inner;
            }
            out.write(item.data() + from, static_cast<std::streamsize>(item.size() - from));
        }
        out << '\n' << indent << ']';
    }
    out.write(text.data() + written, static_cast<std::streamsize>(text.size() - written));
    out << '\n';
}

void write_json(const nlohmann::json& value, std::ostream& out, bool pretty) {
    // Replace invalid UTF-8 from hostile inputs instead of throwing.
    out << json_document::dump(value, pretty ? 2 : -1) << '\n';
}

}  // namespace ptune::render
