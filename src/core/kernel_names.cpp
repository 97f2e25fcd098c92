// The one kernel-name reader (see kernel_names.hpp): name maps through the streaming JSON
// tokenizer of the swimlane readers (the same parse errors with lines, UTF-8 checks and byte
// order mark handling as every other capture file), kernel_config.py as lines of text.

#include "ptune/core/kernel_names.hpp"

#include <algorithm>
#include <optional>
#include <system_error>

#include <fmt/format.h>

#include "ptune/core/found_files.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/json_walk.hpp"
#include "ptune/core/text.hpp"

namespace ptune {

namespace fs = std::filesystem;

const KernelInfo* KernelNames::find(std::int64_t func_id) const {
    if (func_id < 0 || func_id > UINT32_MAX) return nullptr;
    auto it = entries_.find(static_cast<Id>(func_id));
    return it == entries_.end() ? nullptr : &it->second;
}

std::string KernelNames::display_name(std::int64_t func_id) const {
    if (const KernelInfo* info = find(func_id)) return info->name;
    return fmt::format("func_{}", func_id);
}

namespace {

/// A decimal func_id in upstream's range.
std::optional<KernelNames::Id> parse_id(std::string_view text) {
    auto id = text::parse_uint(text);
    if (!id || *id > UINT32_MAX) return std::nullopt;
    return static_cast<KernelNames::Id>(*id);
}

using json_stream::Scalar;

class NameMapWalker final : public json_stream::JsonWalker {
  public:
    NameMapWalker(KernelNames& names, std::string_view source, Diagnostics& diagnostics)
        : names_(names), source_(source), diagnostics_(diagnostics) {}
    bool saw_names = false;

  protected:
    void on_open(std::size_t level, bool is_object) override {
        if (level == 1 && key_at(1) == "callable_id_to_name" && is_object) saw_names = true;
        if (level == 2 && key_at(1) == "callable_id_to_name") skip(key_at(2));
    }
    void on_close(std::size_t, bool) override {}
    void on_scalar(const Scalar& v) override {
        if (depth() == 1 && key_at(1) == "orchestrator_name") {
            if (v.type == Scalar::Type::String) names_.orchestrator_name = std::string(v.text);
        } else if (depth() == 2 && key_at(1) == "callable_id_to_name") {
            auto id = parse_id(key_at(2));
            if (!id || v.type != Scalar::Type::String)
                skip(key_at(2));
            else
                names_.add(*id, KernelInfo{std::string(v.text), ""});
        }
    }

  private:
    void skip(std::string_view key) {
        diagnostics_.warn(std::string(source_), 0,
                          fmt::format("callable_id_to_name entry \"{}\" is not id → name; skipped",
                                      text::sanitize_utf8(key)));
    }
    KernelNames& names_;
    std::string_view source_;
    Diagnostics& diagnostics_;
};

/// Value of `"key": <value>` (or `'key'`) in a kernel_config.py dict line: a number or a quoted
/// string. nullopt when the key is absent or not followed by a value.
std::optional<std::string_view> dict_value(std::string_view line, std::string_view key) {
    for (char quote : {'"', '\''}) {
        std::string quoted = fmt::format("{0}{1}{0}", quote, key);
        std::size_t at = line.find(quoted);
        if (at == std::string_view::npos) continue;
        std::string_view rest = text::trim_left(line.substr(at + quoted.size()));
        if (!rest.starts_with(':')) return std::nullopt;
        rest = text::trim_left(rest.substr(1));
        if (rest.empty()) return std::nullopt;
        if (rest.front() == '"' || rest.front() == '\'') {
            std::size_t close = rest.find(rest.front(), 1);
            if (close == std::string_view::npos) return std::nullopt;
            return rest.substr(1, close - 1);
        }
        return text::trim(rest.substr(0, rest.find_first_of(",}")));
    }
    return std::nullopt;
}

bool mentions_key(std::string_view line, std::string_view key) {
    return line.find(fmt::format("\"{}\"", key)) != std::string_view::npos ||
           line.find(fmt::format("'{}'", key)) != std::string_view::npos;
}

std::string_view skip_byte_order_mark(std::string_view text) {
    return text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text;
}

}  // namespace

Result<KernelNames> parse_name_map(std::string_view json, std::string_view source,
                                   Diagnostics& diagnostics) {
    KernelNames names;
    names.source = std::string(source);
    NameMapWalker walker(names, source, diagnostics);
    if (!json_stream::walk(json, walker)) {
        return Error{fmt::format("not a usable name map: {}", walker.error_message()),
                     std::string(source), walker.error_line(), ExitCode::InputError};
    }
    if (!walker.saw_names) {
        return Error{"not a name map: no `callable_id_to_name` object", std::string(source), 0,
                     ExitCode::InputError};
    }
    return names;
}

Result<KernelNames> parse_kernel_config(std::string_view python_source, std::string_view source,
                                        Diagnostics& diagnostics) {
    KernelNames names;
    names.source = std::string(source);
    io::LineReader lines(python_source);
    std::string_view line;
    while (lines.next(line)) {
        std::string_view body = text::trim(line);
        if (body.starts_with('#') || !mentions_key(body, "func_id")) continue;
        std::optional<KernelNames::Id> id;
        if (auto id_text = dict_value(body, "func_id")) id = parse_id(*id_text);
        auto name = dict_value(body, "name");
        if (!id || !name || name->empty()) {
            diagnostics.warn(std::string(source), lines.line_number(),
                             "KERNELS entry without a usable \"func_id\": <int> and \"name\": "
                             "\"...\"; skipped");
            continue;
        }
        const KernelNames::Id func_id = *id;
        if (names.find(func_id))
            diagnostics.warn(std::string(source), lines.line_number(),
                             fmt::format("func_id {} listed twice; the later name wins", func_id));
        auto core_type = dict_value(body, "core_type");
        names.add(func_id, KernelInfo{std::string(*name), std::string(core_type.value_or(""))});
    }
    if (names.empty()) {
        return Error{"no KERNELS entries (\"func_id\": N, \"name\": \"...\") found",
                     std::string(source), 0, ExitCode::InputError};
    }
    return names;
}

Result<KernelNames> parse_kernel_names(std::string_view text, std::string_view source,
                                       Diagnostics& diagnostics) {
    std::string_view content = text::trim_left(skip_byte_order_mark(text));
    if (content.starts_with('{')) return parse_name_map(text, source, diagnostics);
    return parse_kernel_config(text, source, diagnostics);
}

Result<KernelNames> load_kernel_names(const fs::path& path, Diagnostics& diagnostics) {
    auto text = io::read_file(path.string(), 64u << 20);
    if (!text) return text.error();
    return parse_kernel_names(*text, path.string(), diagnostics);
}

KernelNameFiles find_kernel_names_near(const fs::path& artifact) {
    KernelNameFiles found;
    std::error_code error;
    fs::path folder = fs::is_directory(artifact, error) ? artifact : artifact.parent_path();
    std::vector<fs::path> name_maps;
    for (fs::directory_iterator it(folder.empty() ? fs::path(".") : folder, error), end;
         !error && it != end; it.increment(error)) {
        std::string name = it->path().filename().string();
        std::error_code type_error;
        // Any non-directory: a FIFO name map is reported when read (never opened: it would
        // block), not skipped in silence.
        if (name.starts_with("name_map") && name.ends_with(".json") &&
            !it->is_directory(type_error))
            name_maps.push_back(folder / it->path().filename());
    }
    std::sort(name_maps.begin(), name_maps.end());
    if (name_maps.size() == 1) {
        found.name_map = name_maps.front();
    } else if (name_maps.size() > 1) {
        found.notes.push_back(
            fmt::format("{} name_map*.json files in {}; using none (pass --names FILE)",
                        name_maps.size(), folder.empty() ? "." : folder.string()));
    }
    fs::path parent = folder.empty() ? fs::path("..") : folder.parent_path();
    for (const fs::path& candidate : {folder / "kernel_config.py", parent / "kernel_config.py"}) {
        // A FIFO or device too, as for the name map: reading it then names it in a warning
        // ("kernel names not used"), where skipping it said nothing.
        if (io::is_file(candidate) || io::is_special_file(candidate)) {
            found.kernel_config = candidate;
            break;
        }
    }
    return found;
}

Result<std::optional<KernelNames>> load_artifact_names(const fs::path& named, const fs::path& found,
                                                       bool named_required,
                                                       Diagnostics& diagnostics) {
    const fs::path& path = named.empty() ? found : named;
    if (path.empty()) return std::optional<KernelNames>();
    auto names = load_kernel_names(path, diagnostics);
    if (names) return std::optional<KernelNames>(std::move(*names));
    if (!named.empty() && (named_required || io::is_special(named))) return names.error();
    diagnostics.warn(names.error().file.empty() ? path.string() : names.error().file,
                     names.error().line, names.error().message + "; kernel names not used");
    return std::optional<KernelNames>();
}

}  // namespace ptune
