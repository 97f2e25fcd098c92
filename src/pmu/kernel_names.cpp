#include "ptune/pmu/kernel_names.hpp"

#include <algorithm>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"

namespace ptune::pmu {

namespace fs = std::filesystem;

const KernelInfo* KernelNames::find(std::uint32_t func_id) const {
    auto it = entries_.find(func_id);
    return it == entries_.end() ? nullptr : &it->second;
}

std::string KernelNames::display_name(std::uint32_t func_id) const {
    if (const KernelInfo* info = find(func_id)) return info->name;
    return fmt::format("func_{}", func_id);
}

namespace {

// A tiny cursor over one line of Python dict text: `"key": value` pairs, no escapes in names
// (kernel names are C identifiers).
struct Cursor {
    std::string_view text;
    std::size_t pos = 0;

    void skip_spaces() {
        while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    }
    bool literal(std::string_view expected) {
        skip_spaces();
        if (text.substr(pos, expected.size()) != expected) return false;
        pos += expected.size();
        return true;
    }
    std::optional<std::string_view> quoted() {
        skip_spaces();
        if (pos >= text.size() || text[pos] != '"') return std::nullopt;
        std::size_t close = text.find('"', pos + 1);
        if (close == std::string_view::npos) return std::nullopt;
        std::string_view value = text.substr(pos + 1, close - pos - 1);
        pos = close + 1;
        return value;
    }
    std::optional<std::string_view> digits() {
        skip_spaces();
        std::size_t start = pos;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
        if (pos == start) return std::nullopt;
        return text.substr(start, pos - start);
    }
};

// `"func_id": <int>, "name": "<kernel>"` as upstream's _generate_config_file writes it.
std::optional<std::pair<std::uint32_t, std::string>> match_entry(std::string_view line) {
    std::size_t at = line.find("\"func_id\"");
    if (at == std::string_view::npos) return std::nullopt;
    Cursor cursor{line, at + 9};
    if (!cursor.literal(":")) return std::nullopt;
    auto id_text = cursor.digits();
    if (!id_text) return std::nullopt;
    auto id = text::parse_uint(*id_text);
    if (!id || *id > UINT32_MAX) return std::nullopt;
    if (!cursor.literal(",") || !cursor.literal("\"name\"") || !cursor.literal(":"))
        return std::nullopt;
    auto name = cursor.quoted();
    if (!name || name->empty()) return std::nullopt;
    return std::pair{static_cast<std::uint32_t>(*id), std::string(*name)};
}

std::string match_core_type(std::string_view line) {
    std::size_t at = line.find("\"core_type\"");
    if (at == std::string_view::npos) return "";
    Cursor cursor{line, at + 11};
    if (!cursor.literal(":")) return "";
    auto value = cursor.quoted();
    return value ? std::string(*value) : "";
}

}  // namespace

Result<KernelNames> parse_kernel_config(std::string_view text, const std::string& source,
                                        Diagnostics& diagnostics) {
    KernelNames names;
    names.source = source;
    io::LineReader reader(text);
    std::string_view line;
    while (reader.next(line)) {
        std::string_view trimmed = text::trim(line);
        if (trimmed.empty() || trimmed.front() == '#') continue;
        if (trimmed.find("\"func_id\"") == std::string_view::npos) continue;
        auto entry = match_entry(trimmed);
        if (!entry) {
            diagnostics.warn(
                source, reader.line_number(),
                "KERNELS entry without a readable \"func_id\": <int>, \"name\": \"...\"; "
                "skipped");
            continue;
        }
        if (names.find(entry->first)) {
            diagnostics.warn(
                source, reader.line_number(),
                fmt::format("func_id {} listed twice; the later name wins", entry->first));
        }
        names.add(entry->first, KernelInfo{std::move(entry->second), match_core_type(trimmed)});
    }
    if (names.empty()) {
        return Error{"no KERNELS entries (\"func_id\": N, \"name\": \"...\") found", source, 0,
                     ExitCode::InputError};
    }
    return names;
}

Result<KernelNames> parse_name_map_json(std::string_view text, const std::string& source,
                                        Diagnostics& diagnostics) {
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // parse errors, number overflow
        return Error{fmt::format("not valid JSON: {}", e.what()), source, 0, ExitCode::InputError};
    }
    auto map = document.is_object() ? document.find("callable_id_to_name") : document.end();
    if (!document.is_object() || map == document.end() || !map->is_object()) {
        return Error{"expected a name map with a \"callable_id_to_name\" object", source, 0,
                     ExitCode::InputError};
    }
    KernelNames names;
    names.source = source;
    for (const auto& [key, value] : map->items()) {
        auto id = text::parse_uint(key);
        if (!id || *id > UINT32_MAX || !value.is_string()) {
            diagnostics.warn(
                source, 0,
                fmt::format("callable_id_to_name entry \"{}\" is not id → name; skipped",
                            text::sanitize_utf8(key)));
            continue;
        }
        names.add(static_cast<std::uint32_t>(*id), KernelInfo{value.get<std::string>(), ""});
    }
    return names;
}

Result<KernelNames> load_kernel_names(const fs::path& path, Diagnostics& diagnostics) {
    auto text = io::read_file(path.string(), 64u << 20);
    if (!text) return text.error();
    std::string_view content = text::trim_left(*text);
    if (!content.empty() && content.front() == '{') {
        return parse_name_map_json(*text, path.string(), diagnostics);
    }
    return parse_kernel_config(*text, path.string(), diagnostics);
}

std::optional<fs::path> find_kernel_names(const fs::path& artifact) {
    std::error_code error;
    fs::path folder = fs::is_directory(artifact, error) ? artifact : artifact.parent_path();
    if (folder.empty()) folder = ".";
    std::vector<fs::path> name_maps;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
        std::string name = it->path().filename().string();
        if (name.rfind("name_map", 0) == 0 && it->path().extension() == ".json") {
            name_maps.push_back(it->path());
        }
    }
    if (!name_maps.empty()) return *std::min_element(name_maps.begin(), name_maps.end());
    for (const fs::path& candidate :
         {folder / "kernel_config.py", folder.parent_path() / "kernel_config.py"}) {
        if (fs::is_regular_file(candidate, error)) return candidate;
    }
    return std::nullopt;
}

}  // namespace ptune::pmu
