#pragma once
// A strict reader of one small flat JSON object, `{"key": value, ...}` on one line, whose values
// are plain integers, plain strings or arrays of plain integers: the phase objects that make up
// most of a records file, read without the general tokenizer's per-token callbacks
// (RecordsWalker::take_object). Anything else (escapes, non-ASCII text, fractions, literals,
// nested objects, a newline, the end of the buffer) is refused, and the tokenizer reads the
// object as usual: so whatever is taken is valid JSON and reads as the tokenizer reads it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ptune/core/json_walk.hpp"

namespace ptune::swimlane::records {

struct FlatObject {
    static constexpr std::size_t kMaxMembers = 24, kMaxElements = 8;
    struct Member {
        std::string_view key;
        json_stream::Scalar value;  ///< an integer or a string, unless `elements` is set
        bool is_array = false;
        std::uint8_t elements = 0;
        std::array<std::int64_t, kMaxElements> element{};
    };
    std::array<Member, kMaxMembers> members;
    std::size_t size = 0;
};

/// Reads the object at the start of `text` into `out`; its length through the closing '}', or 0
/// when it is not one that FlatObject holds (see above).
inline std::size_t read_flat_object(std::string_view text, FlatObject& out) {
    const char* const begin = text.data();
    const char* const end = begin + text.size();
    const char* p = begin;
    auto skip_space = [&] {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
        return p < end;
    };
    // A string without escapes or bytes outside printable ASCII; p on its opening quote.
    auto read_string = [&](std::string_view& value) {
        const char* first = ++p;
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
    };
    // An integer of at most 18 digits (int64 either sign) that is not the start of a fraction
    // or an exponent: the tokenizer's fast form.
    auto read_integer = [&](std::int64_t& value) {
        const bool negative = *p == '-';
        if (negative) ++p;
        const char* digits = p;
        std::uint64_t magnitude = 0;
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
    };
    auto is_number_start = [](char c) { return c == '-' || (c >= '0' && c <= '9'); };

    out.size = 0;
    if (p == end || *p != '{') return 0;
    ++p;
    if (!skip_space()) return 0;
    if (*p == '}') return static_cast<std::size_t>(p + 1 - begin);
    for (;;) {
        if (*p != '"' || out.size == FlatObject::kMaxMembers) return 0;
        FlatObject::Member& member = out.members[out.size++];
        member.is_array = false;
        if (!read_string(member.key) || !skip_space() || *p != ':') return 0;
        ++p;
        if (!skip_space()) return 0;
        json_stream::Scalar& value = member.value;
        if (*p == '"') {
            value = {};
            value.type = json_stream::Scalar::Type::String;
            if (!read_string(value.text)) return 0;
        } else if (is_number_start(*p)) {
            value = {};
            value.type = json_stream::Scalar::Type::Int;
            if (!read_integer(value.integer)) return 0;
            value.number = static_cast<double>(value.integer);
        } else if (*p == '[') {
            member.is_array = true;
            member.elements = 0;
            ++p;
            if (!skip_space()) return 0;
            if (*p != ']') {
                for (;;) {
                    if (member.elements == FlatObject::kMaxElements || !is_number_start(*p) ||
                        !read_integer(member.element[member.elements++]) || !skip_space())
                        return 0;
                    if (*p == ']') break;
                    if (*p != ',') return 0;
                    ++p;
                    if (!skip_space()) return 0;
                }
            }
            ++p;
        } else {
            return 0;
        }
        if (!skip_space()) return 0;
        if (*p == '}') return static_cast<std::size_t>(p + 1 - begin);
        if (*p != ',') return 0;
        ++p;
        if (!skip_space()) return 0;
    }
}

}  // namespace ptune::swimlane::records
