// The operator suite's manifest, case_contract, request checks, measurement.json and report.md
// (operator.hpp; upstream-2026-12.md §2.2-§2.9).

#include "ptune/ciresult/operator.hpp"

#include <charconv>
#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "json_util.hpp"
#include "ptune/core/json_document.hpp"
#include "ptune/core/sha256.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"

namespace ptune::ciresult {

using nlohmann::json;

namespace {

// Python's float repr: the shortest digits that round-trip, in fixed notation when the decimal
// point falls within 16 digits before or 4 zeros after the first digit, else `d.ddde±XX`.
void append_python_float(std::string& out, double value) {
    if (!std::isfinite(value)) throw std::domain_error("NaN or infinity is not JSON");
    if (value == 0.0) {
        out += std::signbit(value) ? "-0.0" : "0.0";
        return;
    }
    char buffer[64];
    auto [end, error] =
        std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    (void)error;
    std::string_view text(buffer, static_cast<std::size_t>(end - buffer));
    bool negative = false;
    if (text.front() == '-') {
        negative = true;
        text.remove_prefix(1);
    }
    const std::size_t e = text.find('e');
    std::string digits;
    for (char c : text.substr(0, e)) {
        if (c != '.') digits.push_back(c);
    }
    int exponent = 0;
    std::from_chars(text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0), text.data() + text.size(),
                    exponent);
    const int point = exponent + 1;  // digits before the decimal point
    if (negative) out.push_back('-');
    if (point > -4 && point <= 16) {
        if (point <= 0) {
            out += "0.";
            out.append(static_cast<std::size_t>(-point), '0');
            out += digits;
        } else if (static_cast<std::size_t>(point) >= digits.size()) {
            out += digits;
            out.append(static_cast<std::size_t>(point) - digits.size(), '0');
            out += ".0";
        } else {
            out.append(digits, 0, static_cast<std::size_t>(point));
            out.push_back('.');
            out.append(digits, static_cast<std::size_t>(point));
        }
        return;
    }
    out.push_back(digits[0]);
    if (digits.size() > 1) {
        out.push_back('.');
        out.append(digits, 1);
    }
    out += fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', std::abs(exponent));
}

// A string as json.dumps writes it with ensure_ascii: every code point outside ' '..'~' as
// \uXXXX (lowercase hex, UTF-16 surrogate pairs above U+FFFF), except the short escapes.
void append_python_string(std::string& out, const std::string& value) {
    out.push_back('"');
    const auto escape = [&out](unsigned code) { out += fmt::format("\\u{:04x}", code); };
    for (std::size_t i = 0; i < value.size();) {
        const auto byte = static_cast<unsigned char>(value[i]);
        if (byte < 0x80) {
            switch (byte) {
                case '"':
                    out += "\\\"";
                    break;
                case '\\':
                    out += "\\\\";
                    break;
                case '\n':
                    out += "\\n";
                    break;
                case '\r':
                    out += "\\r";
                    break;
                case '\t':
                    out += "\\t";
                    break;
                case '\b':
                    out += "\\b";
                    break;
                case '\f':
                    out += "\\f";
                    break;
                default:
                    if (byte < 0x20 || byte == 0x7f)
                        escape(byte);
                    else
                        out.push_back(static_cast<char>(byte));
            }
            ++i;
            continue;
        }
        // nlohmann has validated the UTF-8 of every parsed string.
        const std::size_t length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
        unsigned code = byte & (length == 4 ? 0x07u : length == 3 ? 0x0fu : 0x1fu);
        for (std::size_t k = 1; k < length && i + k < value.size(); ++k)
            code = (code << 6) | (static_cast<unsigned char>(value[i + k]) & 0x3fu);
        if (code > 0xffff) {
            code -= 0x10000;
            escape(0xd800 + (code >> 10));
            escape(0xdc00 + (code & 0x3ff));
        } else {
            escape(code);
        }
        i += length;
    }
    out.push_back('"');
}

void append_python_json(std::string& out, const json& value) {
    switch (value.type()) {
        case json::value_t::null:
            out += "null";
            break;
        case json::value_t::boolean:
            out += value.get<bool>() ? "true" : "false";
            break;
        case json::value_t::number_integer:
            out += std::to_string(value.get<std::int64_t>());
            break;
        case json::value_t::number_unsigned:
            out += std::to_string(value.get<std::uint64_t>());
            break;
        case json::value_t::number_float:
            append_python_float(out, value.get<double>());
            break;
        case json::value_t::string:
            append_python_string(out, value.get_ref<const std::string&>());
            break;
        case json::value_t::array: {
            out.push_back('[');
            bool first = true;
            for (const json& item : value) {
                if (!first) out += ", ";
                first = false;
                append_python_json(out, item);
            }
            out.push_back(']');
            break;
        }
        case json::value_t::object: {
            // nlohmann's object is a std::map: keys in byte order, which for UTF-8 is the code
            // point order Python's sort_keys uses.
            out.push_back('{');
            bool first = true;
            for (const auto& [key, item] : value.items()) {
                if (!first) out += ", ";
                first = false;
                append_python_string(out, key);
                out += ": ";
                append_python_json(out, item);
            }
            out.push_back('}');
            break;
        }
        default:
            throw std::domain_error("binary or discarded JSON value");
    }
}

const json* member(const json& object, const char* key) {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

// `what is not the requested one (key x here, y requested)` naming the first differing key of
// two objects, or the whole values when they are not both objects.
std::string not_requested(const char* what, const json& got, const json& want) {
    if (got.is_object() && want.is_object()) {
        for (const json* side : {&want, &got}) {
            for (const auto& [key, value] : side->items()) {
                const json* a = member(got, key.c_str());
                const json* b = member(want, key.c_str());
                if (a != nullptr && b != nullptr && *a == *b) continue;
                return fmt::format("{} is not the requested one ({} {}, requested {})", what, key,
                                   a ? a->dump() : "missing", b ? b->dump() : "missing");
            }
        }
    }
    return fmt::format("{} is not the requested one ({}, requested {})", what,
                       json_document::dump(got), json_document::dump(want));
}

}  // namespace

bool looks_like_operator_manifest(std::string_view head) {
    return head.find("\"contract_id\"") != std::string_view::npos &&
           head.find("\"required_specs\"") != std::string_view::npos &&
           head.find("\"benchmark\"") == std::string_view::npos;
}

Result<OperatorManifest> parse_operator_manifest(std::string_view text, const std::string& source) {
    auto document = parse_json_object(text, source, "operator manifest");
    if (!document) return document.error();
    const json& root = *document;
    const json* cases = member(root, "cases");
    if (cases == nullptr || !cases->is_array()) {
        return Error{"operator manifest: cases is not a list", source,
                     std::max<std::size_t>(1, line_of_string(text, "cases")), ExitCode::InputError};
    }
    OperatorManifest manifest;
    manifest.source = source;
    manifest.suite_id = string_member(root, "suite_id");
    manifest.contract_id = string_member(root, "contract_id");
    if (const json* metric = member(root, "metric")) manifest.metric = *metric;
    std::map<std::string, std::size_t> seen;
    for (const json& c : *cases) {
        const std::string id = c.is_object() ? string_member(c, "case_id") : std::string();
        if (id.empty()) {
            return Error{"operator manifest: a case without a string case_id", source, 0,
                         ExitCode::InputError};
        }
        const std::size_t occurrence = ++seen[id];
        const std::size_t line = line_of_string(text, id, occurrence);
        if (occurrence > 1) {
            return Error{fmt::format("operator manifest: case_id {} appears twice", id), source,
                         line, ExitCode::InputError};
        }
        manifest.case_index[id] = manifest.cases.size();
        manifest.case_lines[id] = line;
        manifest.cases.push_back(c);
    }
    return manifest;
}

std::string python_json_dumps(const json& value) {
    std::string out;
    append_python_json(out, value);
    return out;
}

const json& operator_sampling() {
    static const json sampling = {{"seed", 1807}, {"rounds", 100}, {"warmup", 5}, {"raw", true}};
    return sampling;
}

std::string case_contract(const OperatorManifest& manifest, const json& case_object) {
    const json payload = json::array(
        {case_object, manifest.metric, operator_sampling(), json(manifest.contract_id)});
    return sha256::hex(python_json_dumps(payload));
}

std::optional<std::string> request_violation(const json& raw_result, const json& request) {
    const std::string requested = string_member(request, "case_id");
    if (string_member(raw_result, "case_id") != requested)
        return fmt::format("case_id is not the requested {}", requested);
    const json empty = json::object();
    const json* sampling = member(raw_result, "sampling");
    if (sampling == nullptr || *sampling != operator_sampling())
        return not_requested("sampling", sampling ? *sampling : json(), operator_sampling());
    const json* run_config = member(raw_result, "run_config");
    const json* requested_config = member(request, "run_config");
    const json& got = run_config ? *run_config : empty;
    const json& want = requested_config ? *requested_config : empty;
    if (got != want) return not_requested("run_config", got, want);
    std::map<std::string, const json*> specs;
    if (const json* list = member(raw_result, "specs"); list && list->is_array()) {
        for (const json& spec : *list) {
            if (spec.is_object()) specs.emplace(string_member(spec, "name"), &spec);
        }
    }
    if (const json* required = member(request, "required_specs");
        required && required->is_object()) {
        for (const auto& [name, want] : required->items()) {
            auto it = specs.find(name);
            if (it == specs.end()) return fmt::format("required spec {} missing", name);
            const json* shape = member(*it->second, "shape");
            const json* dtype = member(*it->second, "dtype");
            if (!want.is_object() || shape == nullptr || dtype == nullptr ||
                !want.contains("shape") || !want.contains("dtype") || *shape != want["shape"] ||
                *dtype != want["dtype"]) {
                return fmt::format(
                    "required spec {} is not shape {} dtype {}", name,
                    want.is_object() && want.contains("shape") ? json_document::dump(want["shape"])
                                                               : "?",
                    want.is_object() && want.contains("dtype") ? json_document::dump(want["dtype"])
                                                               : "?");
            }
        }
    }
    if (const json* outputs = member(request, "required_outputs"); outputs && outputs->is_array()) {
        for (const json& name : *outputs) {
            if (!name.is_string()) continue;
            auto it = specs.find(name.get<std::string>());
            const std::string direction =
                it == specs.end() ? std::string() : string_member(*it->second, "direction");
            if (direction != "out" && direction != "inout")
                return fmt::format("required output {} is not an out/inout spec",
                                   name.get<std::string>());
        }
    }
    return std::nullopt;
}

std::size_t check_case_contracts(const SuiteResult& suite, const OperatorManifest& manifest,
                                 Diagnostics& diagnostics) {
    std::size_t differing = 0;
    for (const SuiteCase& c : suite.cases) {
        auto at = manifest.case_index.find(c.case_id);
        if (at == manifest.case_index.end()) {
            diagnostics.warn(suite.source, c.line,
                             fmt::format("{}: not in {}", c.case_id, manifest.source));
            ++differing;
            continue;
        }
        const std::string recorded = string_member(c.record, "case_contract");
        if (recorded.empty()) continue;  // a raw-result.json or report row carries none
        const std::string expected = case_contract(manifest, manifest.cases[at->second]);
        if (recorded == expected) continue;
        ++differing;
        diagnostics.warn(suite.source, c.line,
                         fmt::format("{}: case_contract {} is not {} recomputed from {}: the case, "
                                     "metric, sampling or contract id changed since this run",
                                     c.case_id, recorded.substr(0, 12), expected.substr(0, 12),
                                     manifest.source));
    }
    return differing;
}

Result<SuiteResult> parse_measurement(std::string_view text, const std::string& source,
                                      Diagnostics& diagnostics) {
    auto document = parse_json_object(text, source, "measurement.json");
    if (!document) return document.error();
    SuiteResult suite;
    suite.source = source;
    suite.suite_id = "measurement.json";
    suite.cases.push_back(parse_suite_case(*document, text, source, diagnostics));
    SuiteCase& c = suite.cases.back();
    if (c.line == 0) c.line = 1;
    suite.status = c.status;
    if (const json* safe = member(*document, "safe_to_continue");
        safe && safe->is_boolean() && !safe->get<bool>()) {
        diagnostics.warn(source, c.line,
                         fmt::format("{}: safe_to_continue false: the devices were not shown "
                                     "healthy and idle after this measurement",
                                     c.case_id));
    }
    if (c.status != "pass" && c.status != "interrupted" && !c.status.empty()) {
        diagnostics.warn(
            source, c.line,
            fmt::format("{}: {}{}", c.case_id, c.status, c.error.empty() ? "" : ": " + c.error));
    }
    return suite;
}

bool is_operator_report(std::string_view head) {
    return head.starts_with("Operator performance: ");
}

namespace {

std::vector<std::string> table_cells(std::string_view line) {
    std::vector<std::string> cells;
    line = text::trim(line);
    if (!line.starts_with('|')) return cells;
    line.remove_prefix(1);
    if (line.ends_with('|')) line.remove_suffix(1);
    std::size_t start = 0;
    while (true) {
        const std::size_t bar = line.find('|', start);
        cells.emplace_back(text::trim(line.substr(start, bar - start)));
        if (bar == std::string_view::npos) break;
        start = bar + 1;
    }
    return cells;
}

bool is_decimal(std::string_view cell) {
    if (cell.empty()) return false;
    double value = 0.0;
    auto [end, error] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
    return error == std::errc() && end == cell.data() + cell.size() && std::isfinite(value);
}

// The text between `open` and `close` after `prefix` in `line` (empty when absent).
std::string between(std::string_view line, std::string_view open, std::string_view close) {
    const std::size_t a = line.find(open);
    if (a == std::string_view::npos) return {};
    const std::size_t b = line.find(close, a + open.size());
    if (b == std::string_view::npos) return {};
    return std::string(line.substr(a + open.size(), b - a - open.size()));
}

std::optional<double> parse_decimal(const std::string& cell) {
    if (!is_decimal(cell)) return std::nullopt;
    double value = 0.0;
    std::from_chars(cell.data(), cell.data() + cell.size(), value);
    return value;
}

}  // namespace

Result<OperatorReport> parse_operator_report(std::string_view document, const std::string& source,
                                             Diagnostics& diagnostics) {
    OperatorReport report;
    report.source = source;
    std::vector<std::string> columns;
    std::size_t number = 0;
    bool in_table = false;
    bool in_execution = false;  // `- <phase>: <error>` lines follow `CI execution:`
    for (std::string_view line : text::split(document, '\n')) {
        ++number;
        if (line.ends_with('\r')) line.remove_suffix(1);
        if (number == 1 && is_operator_report(line)) {
            const std::string_view rest =
                line.substr(std::string_view("Operator performance: ").size());
            const std::size_t paren = rest.find(" (");
            report.logical_date = std::string(rest.substr(0, paren));
            if (paren != std::string_view::npos) report.variant = between(rest, "(", ")");
            continue;
        }
        if (line.starts_with("Run: `")) {
            report.run_id = between(line, "`", "`");
            report.status = between(line, "**", "**");
            continue;
        }
        if (line.starts_with("CI execution:") || line.starts_with("History selection:"))
            in_execution = true;
        std::vector<std::string> cells = table_cells(line);
        if (cells.empty()) {
            in_table = false;
            if (line.starts_with("- ") && !columns.empty() && !in_execution) {
                const std::string_view entry = line.substr(2);
                const std::size_t colon = entry.find(": ");
                if (colon == std::string_view::npos) continue;
                const std::string id(entry.substr(0, colon));
                // `- <case> queue: …` and `- <case> previous: …` are other lines (§2.9).
                if (id.find(' ') == std::string::npos && !report.errors.contains(id))
                    report.errors[id] = std::string(entry.substr(colon + 2));
            }
            continue;
        }
        if (!in_table) {
            if (cells.size() >= 4 && cells[0] == "Case" && cells[1] == "Devices" &&
                cells[2] == "Status" && cells[3] == "us") {
                columns = cells;
                in_table = true;
            }
            continue;
        }
        if (cells[0].starts_with("---")) continue;
        const auto cell = [&](std::string_view name) {
            for (std::size_t i = 0; i < columns.size() && i < cells.size(); ++i) {
                if (columns[i] == name) return cells[i];
            }
            return std::string();
        };
        OperatorReportRow row{
            cell("Case"),           cell("Devices"), cell("Status"),      cell("us"),
            cell("Rank spread us"), cell("Wall s"),  cell("Measurement"), cell("Previous change"),
            cell("Week change"),    number};
        if (row.metric != "N/A" && !is_decimal(row.metric)) {
            diagnostics.warn(source, number,
                             fmt::format("{}: us cell '{}' is neither a decimal nor N/A; no "
                                         "number taken",
                                         row.case_id, row.metric));
            row.metric = "N/A";
        }
        report.rows.push_back(std::move(row));
    }
    if (columns.empty()) {
        return Error{"operator report.md: no '| Case | Devices | Status | us |' table", source, 0,
                     ExitCode::InputError};
    }
    return report;
}

SuiteResult suite_of_report(const OperatorReport& report) {
    SuiteResult suite;
    suite.source = report.source;
    suite.suite_id = "report.md";
    suite.run_id = report.run_id;
    suite.logical_date = report.logical_date;
    suite.variant = report.variant;
    suite.status = report.status;
    suite.v2 = text::to_lower(report.variant) == "ci";
    for (const OperatorReportRow& row : report.rows) {
        SuiteCase c;
        c.case_id = row.case_id;
        c.status = row.status;
        c.line = row.line;
        if (auto it = report.errors.find(row.case_id); it != report.errors.end())
            c.error = it->second;
        if (row.measurement.starts_with("shared: ")) {
            c.shared_measurement = true;
            c.measurement_case = row.measurement.substr(8);
        }
        c.metric_us = parse_decimal(row.metric);
        c.rank_spread_us = parse_decimal(row.spread);
        c.wall_seconds = parse_decimal(row.wall);
        // report.md prints `N/A` for a pass without a number: not a pass (§2.10).
        c.valid = c.status != "pass" || (c.metric_us && *c.metric_us > 0.0);
        if (!c.valid) c.error = "report.md gives no number for a pass";
        suite.cases.push_back(std::move(c));
    }
    return suite;
}

std::size_t cross_check_operator_report(const OperatorReport& report, const SuiteResult& suite,
                                        Diagnostics& diagnostics) {
    std::size_t differing = 0;
    const auto warn = [&](std::size_t line, const std::string& message) {
        ++differing;
        diagnostics.warn(report.source, line, message);
    };
    std::set<std::string> in_report;
    for (const OperatorReportRow& row : report.rows) {
        in_report.insert(row.case_id);
        const SuiteCase* record = nullptr;
        for (const SuiteCase& c : suite.cases) {
            if (c.case_id == row.case_id) record = &c;
        }
        if (record == nullptr) {
            warn(row.line, fmt::format("{}: not in {}", row.case_id, suite.source));
            continue;
        }
        if (row.status != record->status) {
            warn(row.line, fmt::format("{}: status {} here, {} in {}", row.case_id, row.status,
                                       record->status, suite.source));
            continue;
        }
        const std::string metric = record->metric_us && record->status == "pass"
                                       ? stats::format_fixed(*record->metric_us, 2)
                                       : std::string("N/A");
        if (row.metric != metric) {
            warn(row.line, fmt::format("{}: us {} here, {} in {}", row.case_id, row.metric, metric,
                                       suite.source));
        }
        for (const auto& [column, key] :
             {std::pair{&row.previous, "previous"}, std::pair{&row.week, "week"}}) {
            if (column->empty()) continue;
            const json* comparison = member(record->record, key);
            Comparison recorded;
            if (comparison && comparison->is_object()) {
                const json* delta = member(*comparison, "delta_pct");
                if (delta && delta->is_number() && std::isfinite(delta->get<double>()))
                    recorded.delta_pct = delta->get<double>();
            }
            const std::string expected = format_change(recorded);
            if (*column != expected) {
                warn(row.line, fmt::format("{}: {} change {} here, {} in {}", row.case_id, key,
                                           *column, expected, suite.source));
            }
        }
    }
    for (const SuiteCase& c : suite.cases) {
        if (!in_report.contains(c.case_id))
            warn(0, fmt::format("{}: in {}, not in this report", c.case_id, suite.source));
    }
    return differing;
}

}  // namespace ptune::ciresult
