#pragma once
/// A streaming JSON tokenizer for large machine-written files (swimlane records and deps.json,
/// name maps, Chrome traces): captures are tens to hundreds of MB of integer rows, where a
/// general-purpose SAX lexer spends most of the time. It drives a handler that tracks nesting
/// depth and the key each container was opened under; a reader derives from JsonWalker and only
/// sees scalars and container boundaries with their depth, so no DOM is ever built; with an
/// istream the text is read in fixed chunks, so the whole file is never held either.

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace ptune::json_stream {

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

class JsonScanner;

/// Handler base: depth 1 is the top-level object's members. `key_at(d)` is the key under which
/// the value at depth d was written ("" inside arrays); `index_at(d)` the element index inside an
/// array at depth d.
class JsonWalker {
  public:
    virtual ~JsonWalker() = default;

    /// True when the walk stopped at a syntax error or the end of the input came early.
    bool failed() const { return failed_; }
    /// 1-based line of the error.
    std::size_t error_line() const { return error_line_; }
    /// "parse error at line L, column C: what".
    std::string error_message() const;

    /// Bytes from a container's '{' or '[' on that the scanner offers take_container when the
    /// input has them.
    static constexpr std::size_t kContainerWindow = 1024;

  protected:
    /// Depth of the value being delivered / container being opened (top-level object = 0).
    std::size_t depth() const { return levels_.size(); }
    /// Key of the member at `level` (1-based; level 1 = top-level member). A view, so that
    /// comparing it with a literal checks the length before any bytes.
    std::string_view key_at(std::size_t level) const { return levels_[level - 1].key; }
    /// True if the container at `level` (1-based) is an object.
    bool object_at(std::size_t level) const { return levels_[level - 1].is_object; }
    /// Index of the current element in the array at `level` (1-based).
    std::size_t index_at(std::size_t level) const { return levels_[level - 1].index; }
    /// 1-based line the scanner is on (the line of the token being delivered), 0 outside a walk.
    std::size_t current_line() const { return line_ ? *line_ : 0; }
    /// Byte offset in the input (from its first byte) of the container take_container is
    /// offered.
    std::size_t container_offset() const { return container_offset_; }

    /// A scalar at depth() (inside the container at that level).
    virtual void on_scalar(const Scalar& value) = 0;
    /// A container opened at depth `level` (its members will be at level + 1).
    virtual void on_open(std::size_t level, bool is_object) = 0;
    /// The container at depth `level` closed.
    virtual void on_close(std::size_t level, bool is_object) = 0;

    /// A shortcut for the many small flat containers of a capture (phase objects, task rows):
    /// called at the '{' or '[' of a container opening at depth `level` (≥ 1), with `text` from
    /// the bracket on as far as it is buffered (at least kContainerWindow bytes unless the input
    /// ends first). A walker that reads the whole container itself, to the same effect as the
    /// callbacks it would otherwise get, returns its length through the closing bracket; 0 (the
    /// default) has it walked as usual. A container is taken only when it is valid JSON and
    /// holds no newline (the scanner counts lines and reports errors).
    virtual std::size_t take_container(std::size_t /*level*/, std::string_view /*text*/) {
        return 0;
    }

  private:
    friend class JsonScanner;
    struct Level {
        bool is_object = false;
        std::size_t index = 0;
        std::string key;
    };
    void scalar(const Scalar& value) {
        if (!levels_.empty()) {
            on_scalar(value);
            advance();
        }
    }
    void key(std::string_view value) { levels_.back().key.assign(value); }
    void advance() {
        if (!levels_.back().is_object) ++levels_.back().index;
    }
    void open(bool is_object) {
        on_open(levels_.size(), is_object);
        levels_.push_back(Level{is_object, 0, {}});
    }
    void close() {
        bool is_object = levels_.back().is_object;
        levels_.pop_back();
        on_close(levels_.size(), is_object);
        if (!levels_.empty()) advance();
    }

    std::vector<Level> levels_;
    const std::size_t* line_ = nullptr;  ///< the scanner's line counter during a walk
    std::size_t container_offset_ = 0;
    bool failed_ = false;
    std::size_t error_line_ = 0, error_column_ = 0;
    std::string error_what_;
};

/// Runs the walker over text; true when the whole text parsed.
bool walk(std::string_view text, JsonWalker& walker);
/// Runs the walker over a stream, read in fixed-size chunks; true when the whole text parsed.
bool walk(std::istream& in, JsonWalker& walker);

}  // namespace ptune::json_stream
