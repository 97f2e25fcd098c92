// The streaming JSON tokenizer (see ptune/core/json_walk.hpp): one pass over a contiguous text or a
// chunked stream, numbers parsed in place, strings handed out as views unless they hold escapes.

#include "ptune/core/json_walk.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "ptune/core/text.hpp"

namespace ptune::json_stream {

bool Scalar::as_id(std::uint64_t& out) const {
    if (type == Type::Int) {
        if (integer < 0) return false;
        out = static_cast<std::uint64_t>(integer);
        return true;
    }
    if (type == Type::String) {
        auto parsed = text::parse_uint(text);
        if (!parsed) return false;
        out = *parsed;
        return true;
    }
    return false;
}

std::string JsonWalker::error_message() const {
    return fmt::format("parse error at line {}, column {}: {}", error_line_, error_column_,
                       error_what_);
}

namespace {

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_number_char(char c) {
    return is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}
/// Bytes a string scan passes over without a second look: printable ASCII but `"` and `\`.
constexpr std::array<bool, 256> kPlainStringByte = [] {
    std::array<bool, 256> plain{};
    for (int c = 0x20; c < 0x80; ++c) plain[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
    return plain;
}();

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

}  // namespace

/// The tokenizer. Over a string_view the whole text is the buffer; over a stream the buffer
/// holds a window that `ensure` compacts and refills, never cutting the token being read.
class JsonScanner {
  public:
    JsonScanner(std::string_view text, JsonWalker& walker)
        : data_(text.data()), end_(text.size()), walker_(walker) {
        walker_.line_ = &line_;
    }
    JsonScanner(std::istream& in, JsonWalker& walker)
        : in_(&in), buffer_(kChunk), data_(buffer_.data()), walker_(walker) {
        walker_.line_ = &line_;
    }
    ~JsonScanner() { walker_.line_ = nullptr; }
    JsonScanner(const JsonScanner&) = delete;
    JsonScanner& operator=(const JsonScanner&) = delete;

    bool run() {
        // A UTF-8 byte order mark (Windows editors write one) is not part of the JSON text.
        if (ensure(3) >= 3 && std::string_view(data_ + pos_, 3) == "\xEF\xBB\xBF") {
            pos_ += 3;
            line_start_ = base_ + pos_;
        }
        if (!value()) return false;
        for (;;) {
            if (walker_.levels_.empty()) {
                if (skip_space()) return fail("unexpected content after the top-level value");
                return true;
            }
            if (!skip_space()) return fail(expected_close());
            char c = data_[pos_];
            bool in_object = walker_.levels_.back().is_object;
            if (c == ',') {
                ++pos_;
                if (in_object && !member_key()) return false;
                if (!value()) return false;
            } else if (c == (in_object ? '}' : ']')) {
                ++pos_;
                walker_.close();
            } else {
                return fail(fmt::format("unexpected '{}'; {}", printable(c), expected_close()));
            }
        }
    }

  private:
    static constexpr std::size_t kChunk = 1u << 16;

    /// Makes at least `n` bytes available from pos_ unless the input ends first; returns how
    /// many are available.
    std::size_t ensure(std::size_t n) {
        std::size_t have = end_ - pos_;
        if (have >= n || !in_ || eof_) return have;
        if (pos_ > 0) {
            std::memmove(buffer_.data(), buffer_.data() + pos_, have);
            base_ += pos_;
            pos_ = 0;
        }
        if (buffer_.size() < n) buffer_.resize(std::max(n, 2 * buffer_.size()));
        while (have < n && !eof_) {
            in_->read(buffer_.data() + have, static_cast<std::streamsize>(buffer_.size() - have));
            auto got = static_cast<std::size_t>(in_->gcount());
            if (got == 0) eof_ = true;
            have += got;
        }
        data_ = buffer_.data();
        end_ = have;
        return have;
    }

    /// Skips whitespace, counting lines; false at the end of the input.
    bool skip_space() {
        for (;;) {
            while (pos_ < end_) {
                char c = data_[pos_];
                if (c == '\n') {
                    ++line_;
                    line_start_ = base_ + pos_ + 1;
                } else if (c != ' ' && c != '\t' && c != '\r') {
                    return true;
                }
                ++pos_;
            }
            if (ensure(1) == 0) return false;
        }
    }

    bool fail(std::string what) {
        walker_.failed_ = true;
        walker_.error_line_ = line_;
        walker_.error_column_ = base_ + pos_ - line_start_ + 1;
        walker_.error_what_ = std::move(what);
        return false;
    }

    static std::string printable(char c) {
        auto u = static_cast<unsigned char>(c);
        return u >= 0x20 && u < 0x7F ? std::string(1, c) : fmt::format("\\x{:02x}", u);
    }

    std::string expected_close() const {
        if (walker_.levels_.empty()) return "unexpected end of input";
        return walker_.levels_.back().is_object ? "expected ',' or '}'" : "expected ',' or ']'";
    }

    /// `"key" :` after '{' or ','.
    bool member_key() {
        if (!skip_space()) return fail("unexpected end of input; expected a member name");
        if (data_[pos_] != '"')
            return fail(
                fmt::format("unexpected '{}'; expected a member name", printable(data_[pos_])));
        std::string_view name;
        if (!string_token(name)) return false;
        walker_.key(name);
        if (!skip_space()) return fail("unexpected end of input; expected ':'");
        if (data_[pos_] != ':')
            return fail(fmt::format("unexpected '{}'; expected ':'", printable(data_[pos_])));
        ++pos_;
        return true;
    }

    /// One value: a scalar, or the opening of a container (and its first member / element when
    /// it is not empty; the rest is driven by run()).
    bool value() {
        for (;;) {
            if (!skip_space())
                return fail("unexpected end of input; expected '[', '{', or a literal");
            char c = data_[pos_];
            if (c != '{' && c != '[') return scalar();
            if (!walker_.levels_.empty()) {
                if (end_ - pos_ < JsonWalker::kContainerWindow)
                    ensure(JsonWalker::kContainerWindow);
                walker_.container_offset_ = base_ + pos_;
                if (std::size_t taken = walker_.take_container(
                        walker_.levels_.size(), std::string_view(data_ + pos_, end_ - pos_))) {
                    pos_ += taken;
                    walker_.advance();
                    return true;
                }
            }
            ++pos_;
            bool is_object = c == '{';
            walker_.open(is_object);
            if (!skip_space())
                return fail(is_object ? "unexpected end of input; expected a member name"
                                      : "unexpected end of input; expected ']'");
            if (data_[pos_] == (is_object ? '}' : ']')) {
                ++pos_;
                walker_.close();
                return true;
            }
            if (is_object && !member_key()) return false;
        }
    }

    bool scalar() {
        char c = data_[pos_];
        Scalar s;
        if (c == '"') {
            if (!string_token(s.text)) return false;
            s.type = Scalar::Type::String;
        } else if (c == '-' || is_digit(c)) {
            if (!number_token(s)) return false;
        } else if (c == 't' || c == 'f' || c == 'n') {
            std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
            if (ensure(word.size()) < word.size() ||
                std::string_view(data_ + pos_, word.size()) != word)
                return fail(fmt::format("invalid literal; expected '{}'", word));
            pos_ += word.size();
            s.type = c == 'n' ? Scalar::Type::Null : Scalar::Type::Bool;
            s.integer = c == 't' ? 1 : 0;
        } else {
            return fail(
                fmt::format("unexpected '{}'; expected '[', '{{', or a literal", printable(c)));
        }
        walker_.scalar(s);
        return true;
    }

    /// Most numbers of a capture are plain integers: read them in one pass, and leave every
    /// other form (fraction, exponent, 19+ digits, a number at the very end) to the full parser.
    bool number_token(Scalar& s) {
        constexpr std::size_t kFastDigits = 18;  // below 10^18: fits int64 either sign
        if (end_ - pos_ < kFastDigits + 2) ensure(kFastDigits + 2);
        const char* begin = data_ + pos_;
        const char* end = data_ + end_;
        bool negative = *begin == '-';
        const char* digits = begin + (negative ? 1 : 0);
        const char* p = digits;
        std::uint64_t magnitude = 0;
        // Eight digits at a time while they last (timestamps have 13–20), then one at a time.
        for (std::uint64_t eight;
             end - p >= 8 && p - digits <= static_cast<std::ptrdiff_t>(kFastDigits - 8) &&
             text::eight_digits(p, eight);
             p += 8)
            magnitude = magnitude * 100000000 + eight;
        while (p < end && is_digit(*p) && p - digits < static_cast<std::ptrdiff_t>(kFastDigits))
            magnitude = magnitude * 10 + static_cast<std::uint64_t>(*p++ - '0');
        if (p > digits && p < end && !is_number_char(*p) && (*digits != '0' || p - digits == 1)) {
            s.type = Scalar::Type::Int;
            s.integer = negative ? -static_cast<std::int64_t>(magnitude)
                                 : static_cast<std::int64_t>(magnitude);
            s.number = static_cast<double>(s.integer);
            pos_ = static_cast<std::size_t>(p - data_);
            return true;
        }
        return full_number_token(s);
    }

    bool full_number_token(Scalar& s) {
        std::size_t len = 0;
        for (;;) {
            while (pos_ + len < end_ && is_number_char(data_[pos_ + len])) ++len;
            if (pos_ + len < end_ || ensure(len + 1) <= len) break;
        }
        const char* begin = data_ + pos_;
        const char* p = begin;
        const char* e = begin + len;
        bool negative = *p == '-';
        if (negative) ++p;
        if (p == e || !is_digit(*p) || (*p == '0' && p + 1 < e && is_digit(p[1])))
            return fail("invalid number");
        std::uint64_t magnitude = 0;
        bool overflow = false;
        for (; p < e && is_digit(*p); ++p) {
            auto digit = static_cast<std::uint64_t>(*p - '0');
            if (magnitude > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
                overflow = true;
            else
                magnitude = magnitude * 10 + digit;
        }
        bool fraction = false;
        if (p < e && *p == '.') {
            ++p;
            if (p == e || !is_digit(*p)) return fail("invalid number: no digits after '.'");
            while (p < e && is_digit(*p)) ++p;
            fraction = true;
        }
        if (p < e && (*p == 'e' || *p == 'E')) {
            ++p;
            if (p < e && (*p == '+' || *p == '-')) ++p;
            if (p == e || !is_digit(*p)) return fail("invalid number: no exponent digits");
            while (p < e && is_digit(*p)) ++p;
            fraction = true;
        }
        if (p != e) return fail("invalid number");
        constexpr auto kMaxInt =
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        if (!fraction && !overflow && magnitude <= kMaxInt + (negative ? 1 : 0)) {
            s.type = Scalar::Type::Int;
            s.integer = negative ? static_cast<std::int64_t>(0 - magnitude)
                                 : static_cast<std::int64_t>(magnitude);
            s.number = static_cast<double>(s.integer);
        } else if (!fraction && !overflow && !negative) {
            s.type = Scalar::Type::Float;  // above INT64_MAX, as the readers expect
            s.number = static_cast<double>(magnitude);
        } else {
            s.type = Scalar::Type::Float;
            auto [end, ec] = std::from_chars(begin, e, s.number);
            if (ec != std::errc() || end != e) return fail("number out of range");
        }
        pos_ += len;
        return true;
    }

    /// A string starting at the quote under pos_; `out` is a view into the buffer (or into
    /// scratch_ when escapes were decoded), valid until the next token.
    bool string_token(std::string_view& out) {
        std::size_t i = 1;
        bool escaped = false, high = false;
        for (;;) {
            while (pos_ + i < end_) {
                // Eight bytes at a time up to the next byte to look at (little-endian words).
                if (std::endian::native == std::endian::little && end_ - (pos_ + i) >= 8) {
                    const std::uint64_t stops =
                        text::json_string_stops(text::load_word(data_ + pos_ + i));
                    if (stops == 0) {
                        i += 8;
                        continue;
                    }
                    i += static_cast<std::size_t>(std::countr_zero(stops)) / 8;
                }
                auto c = static_cast<unsigned char>(data_[pos_ + i]);
                if (kPlainStringByte[c]) {
                    ++i;
                    continue;
                }
                if (c == '"') {
                    std::string_view raw(data_ + pos_ + 1, i - 1);
                    // JSON text is UTF-8 (RFC 8259 §8.1); a name with broken bytes would end
                    // up in every output, so the string is refused like any syntax error.
                    if (high && !text::is_valid_utf8(raw)) {
                        pos_ += 1;
                        return fail("invalid UTF-8 in a string");
                    }
                    if (escaped) {
                        if (!unescape(raw)) return false;
                        out = scratch_;
                    } else {
                        out = raw;
                    }
                    pos_ += i + 1;
                    return true;
                }
                if (c == '\\') {
                    escaped = true;
                    i += 2;
                    continue;
                }
                if (c < 0x20) {
                    pos_ += i;
                    return fail("control character in a string");
                }
                high |= c >= 0x80;
                ++i;
            }
            if (ensure(i + 1) <= i) {
                pos_ = end_;
                return fail("unexpected end of input in a string");
            }
        }
    }

    bool unescape(std::string_view raw) {
        scratch_.clear();
        for (std::size_t i = 0; i < raw.size(); ++i) {
            char c = raw[i];
            if (c != '\\') {
                scratch_ += c;
                continue;
            }
            char e = raw[++i];
            switch (e) {
                case '"':
                case '\\':
                case '/':
                    scratch_ += e;
                    break;
                case 'b':
                    scratch_ += '\b';
                    break;
                case 'f':
                    scratch_ += '\f';
                    break;
                case 'n':
                    scratch_ += '\n';
                    break;
                case 'r':
                    scratch_ += '\r';
                    break;
                case 't':
                    scratch_ += '\t';
                    break;
                case 'u': {
                    std::uint32_t cp = 0;
                    if (!hex4(raw, i + 1, cp)) return fail("invalid \\u escape in a string");
                    i += 4;
                    if (cp >= 0xD800 && cp < 0xDC00) {
                        std::uint32_t low = 0;
                        if (i + 2 >= raw.size() || raw[i + 1] != '\\' || raw[i + 2] != 'u' ||
                            !hex4(raw, i + 3, low) || low < 0xDC00 || low > 0xDFFF)
                            return fail("unpaired surrogate in a string");
                        i += 6;
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                        return fail("unpaired surrogate in a string");
                    }
                    append_utf8(scratch_, cp);
                    break;
                }
                default:
                    return fail("invalid escape in a string");
            }
        }
        return true;
    }

    static bool hex4(std::string_view raw, std::size_t at, std::uint32_t& out) {
        if (at + 4 > raw.size()) return false;
        out = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            int h = hex_value(raw[at + k]);
            if (h < 0) return false;
            out = out * 16 + static_cast<std::uint32_t>(h);
        }
        return true;
    }

    std::istream* in_ = nullptr;
    std::vector<char> buffer_;
    const char* data_ = nullptr;
    std::size_t pos_ = 0, end_ = 0;
    std::size_t base_ = 0;  ///< absolute offset of data_[0] (stream mode)
    bool eof_ = false;
    std::size_t line_ = 1, line_start_ = 0;
    std::string scratch_;
    JsonWalker& walker_;
};

bool walk(std::string_view text, JsonWalker& walker) {
    return JsonScanner(text, walker).run();
}

bool walk(std::istream& in, JsonWalker& walker) {
    return JsonScanner(in, walker).run();
}

}  // namespace ptune::json_stream
