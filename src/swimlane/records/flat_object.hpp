#pragma once
// Strict readers of the small flat JSON containers that make up most of a records file, read
// without the general tokenizer's per-token callbacks (RecordsWalker::take_container): a phase
// object, `{"key": value, ...}` whose values are plain integers, plain strings or arrays of
// plain integers, and a task row, an array of plain integers; each on one line. Anything else
// (escapes, non-ASCII text, fractions, literals, nesting, a newline, the end of the buffer) is
// refused, and the tokenizer reads the container as usual: so whatever is taken is valid JSON
// and reads as the tokenizer reads it.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "ptune/core/json_walk.hpp"
#include "ptune/core/text.hpp"

namespace ptune::swimlane::records {

/// The bytes from a member's opening quote to its value (`"kind": `) as the last object read
/// wrote them: a file writes every record alike, so the next object's member at the same place
/// is recognised by one comparison instead of read (flat::member_key).
struct MemberShape {
    std::array<std::uint64_t, 4> bytes{}, mask{};  ///< up to 32 bytes, the rest masked off
    std::uint8_t size = 0;                         ///< 0: none learnt
    std::uint8_t key_size = 0;
};

/// A phase object as read_flat_object reads it.
struct FlatObject {
    static constexpr std::size_t kMaxMembers = 24, kMaxElements = 8;
    struct Member {
        std::string_view key;
        json_stream::Scalar value;  ///< an integer or a string, unless `is_array`
        bool is_array = false;
        std::size_t elements = 0;
        std::array<std::int64_t, kMaxElements> element{};
    };
    std::array<Member, kMaxMembers> members;
    std::size_t size = 0;
    std::array<MemberShape, kMaxMembers> shapes;  ///< of the last object read
};

namespace flat {

/// The reading position in one container's text; every step is false at the end of the text or
/// at anything the readers refuse.
struct Cursor {
    const char* p;
    const char* end;

    /// Past spaces, tabs and carriage returns (not newlines); false at the end of the text.
    bool skip_space() {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
        return p < end;
    }
    /// A string without escapes or bytes outside printable ASCII; p on its opening quote.
    bool string(std::string_view& value) {
        const char* first = ++p;
        // Eight bytes at a time up to the next byte to look at.
        while (end - p >= 8) {
            const std::uint64_t stops = text::json_string_stops(text::load_word(p));
            if (stops == 0) {
                p += 8;
                continue;
            }
            p += std::countr_zero(stops) / 8;
            break;
        }
        for (; p < end; ++p) {
            const auto c = static_cast<unsigned char>(*p);
            if (c == '"') {
                value = std::string_view(first, static_cast<std::size_t>(p - first));
                ++p;
                return true;
            }
            if (c < 0x20 || c >= 0x80 || c == '\\') return false;
        }
        return false;
    }
    static bool starts_number(char c) { return c == '-' || (c >= '0' && c <= '9'); }
    /// An integer of at most 18 digits (int64 either sign) that is not the start of a fraction
    /// or an exponent: the tokenizer's fast form.
    bool integer(std::int64_t& value) {
        const bool negative = *p == '-';
        if (negative) ++p;
        const char* digits = p;
        std::uint64_t magnitude = 0;
        // Eight digits at a time while they last (timestamps have 13 or more), as the
        // tokenizer reads them.
        for (std::uint64_t eight; end - p >= 8 && p - digits <= 10 && text::eight_digits(p, eight);
             p += 8)
            magnitude = magnitude * 100000000 + eight;
        while (p < end && *p >= '0' && *p <= '9' && p - digits < 18)
            magnitude = magnitude * 10 + static_cast<std::uint64_t>(*p++ - '0');
        if (p == digits || p == end) return false;
        const char next = *p;
        if ((next >= '0' && next <= '9') || next == '.' || next == 'e' || next == 'E' ||
            next == '+' || next == '-')
            return false;
        if (*digits == '0' && p - digits > 1) return false;  // a leading zero: invalid JSON
        value =
            negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
        return true;
    }
    /// `[i, j, …]` of at most `limit` integers into `out`; p on the '[', then past the ']'.
    bool integers(std::int64_t* out, std::size_t limit, std::size_t& count) {
        count = 0;
        ++p;
        if (!skip_space()) return false;
        if (*p == ']') {
            ++p;
            return true;
        }
        for (;;) {
            if (count == limit || !starts_number(*p) || !integer(out[count++]) || !skip_space())
                return false;
            if (*p == ']') {
                ++p;
                return true;
            }
            if (*p != ',') return false;
            ++p;
            if (!skip_space()) return false;
        }
    }
};

/// Whether the 32 bytes at `p` begin with `shape`'s bytes.
inline bool same_shape(const char* p, const MemberShape& shape) {
    std::uint64_t differ = 0;
    for (std::size_t w = 0; w < 4; ++w)
        differ |= (text::load_word(p + 8 * w) ^ shape.bytes[w]) & shape.mask[w];
    return differ == 0;
}

/// A member's key and what follows it up to its value (`"key" : `), `at` on the key's quote:
/// taken through `shape` when the bytes there are the ones it learnt (read and checked then),
/// else read and, when they fit, learnt. False where the reader refuses the text.
inline bool member_key(Cursor& at, MemberShape& shape, std::string_view& key) {
    if (shape.size != 0 && at.end - at.p >= 32 && same_shape(at.p, shape)) {
        key = std::string_view(at.p + 1, shape.key_size);
        at.p += shape.size;
        return at.skip_space();  // (a blank more than the last object had)
    }
    const char* const from = at.p;
    if (!at.string(key) || !at.skip_space() || *at.p != ':') return false;
    ++at.p;
    if (!at.skip_space()) return false;
    const auto size = static_cast<std::size_t>(at.p - from);
    shape.size = 0;
    if (size > 32) return true;
    shape.bytes = {};
    shape.mask = {};
    std::memcpy(shape.bytes.data(), from, size);
    std::memset(shape.mask.data(), 0xFF, size);
    shape.size = static_cast<std::uint8_t>(size);
    shape.key_size = static_cast<std::uint8_t>(key.size());
    return true;
}

}  // namespace flat

/// Reads the object at the start of `text` into `out`; its length through the closing '}', or 0
/// when it is not one that FlatObject holds (see above).
inline std::size_t read_flat_object(std::string_view text, FlatObject& out) {
    flat::Cursor at{text.data(), text.data() + text.size()};
    auto length = [&] { return static_cast<std::size_t>(at.p + 1 - text.data()); };
    out.size = 0;
    if (text.empty() || *at.p != '{') return 0;
    ++at.p;
    if (!at.skip_space()) return 0;
    if (*at.p == '}') return length();
    for (;;) {
        if (*at.p != '"' || out.size == FlatObject::kMaxMembers) return 0;
        MemberShape& shape = out.shapes[out.size];
        FlatObject::Member& member = out.members[out.size++];
        member.is_array = false;
        if (!flat::member_key(at, shape, member.key)) return 0;
        json_stream::Scalar& value = member.value;
        value = {};
        if (*at.p == '"') {
            value.type = json_stream::Scalar::Type::String;
            if (!at.string(value.text)) return 0;
        } else if (flat::Cursor::starts_number(*at.p)) {
            value.type = json_stream::Scalar::Type::Int;
            if (!at.integer(value.integer)) return 0;
            value.number = static_cast<double>(value.integer);
        } else if (*at.p == '[') {
            member.is_array = true;
            if (!at.integers(member.element.data(), FlatObject::kMaxElements, member.elements))
                return 0;
        } else {
            return 0;
        }
        if (!at.skip_space()) return 0;
        if (*at.p == '}') return length();
        if (*at.p != ',') return 0;
        ++at.p;
        if (!at.skip_space()) return 0;
    }
}

/// Reads the array of at most `limit` integers at the start of `text` into `out` (`count` of
/// them); its length through the closing ']', or 0 when it is not such an array.
inline std::size_t read_flat_integers(std::string_view text, std::int64_t* out, std::size_t limit,
                                      std::size_t& count) {
    flat::Cursor at{text.data(), text.data() + text.size()};
    if (text.empty() || *at.p != '[' || !at.integers(out, limit, count)) return 0;
    return static_cast<std::size_t>(at.p - text.data());
}

}  // namespace ptune::swimlane::records
