// The renderer factory and the helpers the report renderers share (report_internal.hpp).
#include "ptune/render/report.hpp"

#include <fmt/format.h>

#include "ptune/core/text.hpp"
#include "report_internal.hpp"

namespace ptune::render {

std::unique_ptr<Renderer> make_standard_renderer(const std::string& format) {
    if (format == "text") return make_text_renderer();
    if (format == "json") return make_json_renderer();
    if (format == "markdown") return make_markdown_renderer();
    if (format == "csv") return make_csv_renderer();
    return nullptr;
}

std::string header_text(const Table& table, std::size_t column) {
    const std::string& name = table.columns[column];
    if (column >= table.units.size() || table.units[column].empty()) return name;
    return fmt::format("{} ({})", name, table.units[column]);
}

std::string valid_utf8(std::string_view s) {
    return text::is_valid_utf8(s) ? std::string(s) : text::sanitize_utf8(s);
}

std::string subject_text(const rules::SubjectKey& subject) {
    if (subject.kind == "run") return "";
    return fmt::format("{} {}", subject.kind, subject.name);
}

}  // namespace ptune::render
