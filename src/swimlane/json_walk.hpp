#pragma once
// Shared plumbing of the swimlane SAX readers: a base handler that tracks nesting depth and the
// key each container was opened under, a scalar value type, and error-position → line mapping.
// The readers derive from JsonWalker and only see scalars and container boundaries with their
// depth, so no DOM of a capture is ever built.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptune::swimlane::detail {

/// A JSON scalar as the readers need it.
struct Scalar {
    enum class Type { Int, Float, String, Bool, Null } type = Type::Null;
    std::int64_t integer = 0;  ///< Int (unsigned values above INT64_MAX become Float)
    double number = 0;         ///< Float (and Int, converted)
    std::string_view text;     ///< String; valid only during the callback

    bool is_int() const { return type == Type::Int; }
    bool is_number() const { return type == Type::Int || type == Type::Float; }
    /// Integers, and strings holding an integer (deps.json writes uint64 ids as strings).
    bool as_id(std::uint64_t& out) const;
};

/// SAX base: depth 1 is the top-level object's members. `key_at(d)` is the key under which the
/// value at depth d was written ("" inside arrays); `index_at(d)` the element index inside an
/// array at depth d.
class JsonWalker : public nlohmann::json_sax<nlohmann::json> {
  public:
    using json = nlohmann::json;

    bool null() final { return emit_scalar(Scalar{}); }
    bool boolean(bool value) final {
        Scalar s;
        s.type = Scalar::Type::Bool;
        s.integer = value ? 1 : 0;
        return emit_scalar(s);
    }
    bool number_integer(json::number_integer_t value) final {
        Scalar s;
        s.type = Scalar::Type::Int;
        s.integer = value;
        s.number = static_cast<double>(value);
        return emit_scalar(s);
    }
    bool number_unsigned(json::number_unsigned_t value) final {
        Scalar s;
        if (value <= static_cast<std::uint64_t>(INT64_MAX)) {
            s.type = Scalar::Type::Int;
            s.integer = static_cast<std::int64_t>(value);
        } else {
            s.type = Scalar::Type::Float;
        }
        s.number = static_cast<double>(value);
        return emit_scalar(s);
    }
    bool number_float(json::number_float_t value, const json::string_t&) final {
        Scalar s;
        s.type = Scalar::Type::Float;
        s.number = value;
        return emit_scalar(s);
    }
    bool string(json::string_t& value) final {
        Scalar s;
        s.type = Scalar::Type::String;
        s.text = value;
        return emit_scalar(s);
    }
    bool binary(json::binary_t&) final { return true; }
    bool start_object(std::size_t) final { return open(true); }
    bool end_object() final { return close(); }
    bool start_array(std::size_t) final { return open(false); }
    bool end_array() final { return close(); }
    bool key(json::string_t& value) final {
        levels_.back().key = value;
        return true;
    }
    bool parse_error(std::size_t position, const std::string&,
                     const nlohmann::detail::exception& e) final {
        error_position_ = position;
        error_message_ = e.what();
        failed_ = true;
        return false;
    }

    bool failed() const { return failed_; }
    std::size_t error_position() const { return error_position_; }
    /// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
    std::string error_message() const;

  protected:
    /// Depth of the value being delivered / container being opened (top-level object = 0).
    std::size_t depth() const { return levels_.size(); }
    /// Key of the member at `level` (1-based; level 1 = top-level member).
    const std::string& key_at(std::size_t level) const { return levels_[level - 1].key; }
    /// True if the container at `level` (1-based) is an object.
    bool object_at(std::size_t level) const { return levels_[level - 1].is_object; }
    /// Index of the current element in the array at `level` (1-based).
    std::size_t index_at(std::size_t level) const { return levels_[level - 1].index; }

    /// A scalar at depth() (inside the container at that level).
    virtual void on_scalar(const Scalar& value) = 0;
    /// A container opened at depth `level` (its members will be at level + 1).
    virtual void on_open(std::size_t level, bool is_object) = 0;
    /// The container at depth `level` closed.
    virtual void on_close(std::size_t level, bool is_object) = 0;

  private:
    struct Level {
        bool is_object = false;
        std::size_t index = 0;
        std::string key;
    };
    bool emit_scalar(const Scalar& value) {
        if (!levels_.empty()) {
            on_scalar(value);
            advance();
        }
        return true;
    }
    void advance() {
        if (!levels_.back().is_object) ++levels_.back().index;
    }
    bool open(bool is_object) {
        on_open(levels_.size(), is_object);
        levels_.push_back(Level{is_object, 0, {}});
        return true;
    }
    bool close() {
        bool is_object = levels_.back().is_object;
        levels_.pop_back();
        on_close(levels_.size(), is_object);
        if (!levels_.empty()) advance();
        return true;
    }

    std::vector<Level> levels_;
    bool failed_ = false;
    std::size_t error_position_ = 0;
    std::string error_message_;
};

/// 1-based line of a byte offset in text.
std::size_t line_of_offset(std::string_view text, std::size_t offset);

/// Runs the walker over text; true when the whole text parsed.
bool walk(std::string_view text, JsonWalker& walker);

}  // namespace ptune::swimlane::detail
