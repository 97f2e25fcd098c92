#pragma once
/// @file pretty_json.hpp
/// JSON text written directly, laid out as nlohmann's `dump(2)` lays it out (the standard JSON
/// renderer's form), for the elements of very large arrays (LazyArray::write): no DOM is built
/// and freed per element. The caller writes members in nlohmann's key order (sorted).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptune::render {

/// Appends pretty JSON to a string: `{}` / `[]` when empty, else one member per line two
/// spaces deeper than its container, `"key": value`; every line after the first is indented
/// `indent` more spaces (the element's place in the document).
class PrettyJson {
  public:
    PrettyJson(std::string& out, std::size_t indent) : out_(out), indent_(indent) {}

    void begin_object() { open('{'); }
    void end_object() { close('}'); }
    void begin_array() { open('['); }
    void end_array() { close(']'); }
    /// The next member's key; its value follows.
    void key(std::string_view name);
    /// The next array element; its value follows.
    void element() { next(); }

    /// A string, escaped exactly as the JSON renderer escapes it (invalid UTF-8 replaced).
    void string(std::string_view text);
    void number(std::uint64_t value);
    void number(std::int64_t value);
    /// A double in nlohmann's form (`2.0`, `0.1`, `1e+20`).
    void number(double value);
    /// A double as number(), or null when there is none.
    void number_or_null(const std::optional<double>& value) { value ? number(*value) : null(); }
    void boolean(bool value) { out_ += value ? "true" : "false"; }
    void null() { out_ += "null"; }
    /// Any JSON value (objects and arrays laid out as above).
    void value(const nlohmann::json& value);

  private:
    void open(char bracket);
    void close(char bracket);
    void next();

    std::string& out_;
    std::size_t indent_;
    std::vector<bool> empty_;  // per open container: nothing written in it yet
};

}  // namespace ptune::render
