#pragma once
/// @file compact.hpp
/// Compact storage for what 200,000 hints hold (issue #24: peak RSS within 3x the log):
/// `SharedText`, one immutable string shared by every hint that has the same value (paths, rule
/// ids, titles, advice), and `Fields`, a hint's typed fields packed into one byte string instead
/// of a JSON object of about a kilobyte.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ptune::hints {

/// An immutable string that copies share (16 bytes, no allocation per copy). Reads like a
/// `const std::string&`; compares and formats as its text.
class SharedText {
  public:
    SharedText() = default;
    SharedText(std::string text);  // NOLINT: implicit, so `d.file = "x"` keeps working
    SharedText(const char* text) : SharedText(std::string(text)) {}       // NOLINT
    SharedText(std::string_view text) : SharedText(std::string(text)) {}  // NOLINT

    const std::string& str() const { return text_ ? *text_ : empty_string(); }
    operator const std::string&() const { return str(); }  // NOLINT
    operator std::string_view() const { return str(); }    // NOLINT
    bool empty() const { return str().empty(); }
    std::size_t size() const { return str().size(); }
    const char* c_str() const { return str().c_str(); }
    std::size_t find(std::string_view part, std::size_t from = 0) const {
        return str().find(part, from);
    }

    friend bool operator==(const SharedText& a, const SharedText& b) { return a.str() == b.str(); }
    friend bool operator==(const SharedText& a, std::string_view b) { return a.str() == b; }
    friend bool operator==(const SharedText& a, const char* b) { return a.str() == b; }
    friend bool operator==(const SharedText& a, const std::string& b) { return a.str() == b; }
    friend auto operator<=>(const SharedText& a, const SharedText& b) {
        return a.str().compare(b.str()) <=> 0;
    }
    friend std::ostream& operator<<(std::ostream& out, const SharedText& text) {
        return out << text.str();
    }

  private:
    friend class TextPool;
    static const std::string& empty_string();
    std::shared_ptr<const std::string> text_;
};

/// Hands out one SharedText per distinct value while a result is built; the texts outlive the
/// pool (they are reference counted), so the pool is dropped once the hints are made.
class TextPool {
  public:
    SharedText get(std::string_view text);

  private:
    std::unordered_map<std::string_view, SharedText> texts_;  // views into the shared strings
};

inline void to_json(nlohmann::json& out, const SharedText& text) {
    out = text.str();
}

/// A hint's typed fields (names as in perf-hints.md: `op`, `innermost_bytes`, `dtype`, …): a JSON
/// object of scalars (and the odd array), packed into one string. Known field names take one
/// byte; integers are varints. Keys keep nlohmann's sorted order, so json() gives back exactly
/// the object it was made from (the same dump, byte for byte).
class Fields {
  public:
    Fields() = default;
    /// Packs a JSON object (anything else is kept as an empty object).
    explicit Fields(const nlohmann::json& object);

    /// The fields as the JSON object they were made from.
    nlohmann::json json() const;
    bool empty() const { return bytes_.empty(); }
    bool contains(std::string_view key) const;
    /// A number field (integer or not) as a double; nullopt when absent or not a number.
    std::optional<double> number(std::string_view key) const;
    /// A string field; nullopt when absent or not a string.
    std::optional<std::string> string(std::string_view key) const;
    /// Visits each field in key order with its name and its value as JSON.
    void for_each(const std::function<void(std::string_view, const nlohmann::json&)>& visit) const;

    bool operator==(const Fields&) const = default;

  private:
    std::string bytes_;
};

}  // namespace ptune::hints

template <>
struct fmt::formatter<ptune::hints::SharedText> : fmt::formatter<std::string_view> {
    template <class Context>
    auto format(const ptune::hints::SharedText& text, Context& context) const {
        return fmt::formatter<std::string_view>::format(std::string_view(text.str()), context);
    }
};
