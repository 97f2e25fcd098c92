#pragma once
/// @file text.hpp
/// Small, allocation-free text helpers shared by the parsers.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptune::text {

/// Whether `text` begins with the literal `prefix`. Always inlined: a per-line parser checks
/// dozens of prefixes, and GCC leaves string_view::starts_with(const char*) out of line in a
/// large function, where it measures the literal with strlen on every call.
template <std::size_t N>
[[gnu::always_inline]] inline bool starts_with(std::string_view text, const char (&prefix)[N]) {
    return text.size() >= N - 1 && std::memcmp(text.data(), prefix, N - 1) == 0;
}

/// The eight bytes at `p` as one word (any alignment), for scans of a word at a time.
[[gnu::always_inline]] inline std::uint64_t load_word(const char* p) {
    std::uint64_t word;
    std::memcpy(&word, p, sizeof word);
    return word;
}
/// Whether a word of text is all ASCII (no byte of 0x80 or above).
[[gnu::always_inline]] inline bool ascii_word(std::uint64_t word) {
    return (word & 0x8080808080808080ULL) == 0;
}
/// Nonzero when a byte of a word of text is not plain ASCII, one column wide: 0x80 or above,
/// or ESC (which starts a colour code). ESC is a zero byte of word ^ ESC, and (x - 1) & ~x has
/// a high bit set when x has a zero byte.
[[gnu::always_inline]] inline std::uint64_t non_plain_bytes(std::uint64_t word) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
    const std::uint64_t esc = word ^ (kOnes * 0x1b);
    return (word & kHigh) | ((esc - kOnes) & ~esc & kHigh);
}

/// The value of the eight ASCII digits at `p`; false (out untouched) when one is not a digit.
/// SWAR: the digits are checked and combined pairwise inside one 64-bit word (little-endian
/// only; elsewhere always false, and callers read digit by digit).
[[gnu::always_inline]] inline bool eight_digits(const char* p, std::uint64_t& out) {
    if constexpr (std::endian::native != std::endian::little) return false;
    std::uint64_t word = load_word(p);  // the first digit in the lowest byte
    // Every byte 0x30..0x39: high nibble 3, and adding 6 keeps it 3.
    if (((word & 0xF0F0F0F0F0F0F0F0u) |
         (((word + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) != 0x3333333333333333u)
        return false;
    word = (word & 0x0F0F0F0F0F0F0F0Fu) * 2561 >> 8;      // pairs of digits
    word = (word & 0x00FF00FF00FF00FFu) * 6553601 >> 16;  // groups of four
    out = static_cast<std::uint32_t>((word & 0x0000FFFF0000FFFFu) * 42949672960001u >> 32);
    return true;
}

/// Bit 7 of each byte of `word` that a JSON string scan must look at (a control byte, `"`, `\`
/// or a byte of a multi-byte character), possibly also of bytes after the first such byte: only
/// the lowest flagged byte is exact (a borrow runs upwards only), and it is the only one read.
[[gnu::always_inline]] inline std::uint64_t json_string_stops(std::uint64_t word) {
    constexpr std::uint64_t kOnes = 0x0101010101010101u, kHigh = 0x8080808080808080u;
    const auto zero_byte = [](std::uint64_t w) { return (w - kOnes) & ~w & kHigh; };
    const std::uint64_t control = (word - kOnes * 0x20) & ~word & kHigh;
    return control | zero_byte(word ^ (kOnes * '"')) | zero_byte(word ^ (kOnes * '\\')) |
           (word & kHigh);
}

/// The number of decimal digits of `value` (1 for 0), without a loop: the bit width gives the
/// digit count to within one, a table of powers of ten settles it.
[[gnu::always_inline]] inline unsigned decimal_width(std::uint64_t value) {
    static constexpr auto kPowers = [] {
        std::array<std::uint64_t, 20> powers{1};
        for (std::size_t i = 1; i < powers.size(); ++i) powers[i] = powers[i - 1] * 10;
        return powers;
    }();
    // bit_width · log10(2) rounded down: 1233 / 4096 ≈ 0.30103.
    // (`value | 1`: 0 has one digit; no other value changes its count by it.)
    const unsigned guess = (static_cast<unsigned>(std::bit_width(value | 1)) * 1233) >> 12;
    return guess + ((value | 1) >= kPowers[guess] ? 1 : 0);
}

/// "00" to "99", two bytes each: the digits of write_decimal and write_three_digits.
inline constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/// Writes `value` in decimal into the `width` (decimal_width(value)) bytes at `out` and returns
/// their end: what std::to_chars writes, inline, for writers whose every event holds numbers.
[[gnu::always_inline]] inline char* write_decimal(char* out, std::uint64_t value, unsigned width) {
    char* const end = out + width;
    char* at = end;
    while (value >= 100) {
        const auto pair = static_cast<unsigned>(value % 100);
        value /= 100;
        at -= 2;
        std::memcpy(at, kDigitPairs + 2 * pair, 2);
    }
    if (value >= 10) {
        std::memcpy(at - 2, kDigitPairs + 2 * value, 2);
    } else {
        at[-1] = static_cast<char>('0' + value);
    }
    return end;
}

/// Writes `value` (below 1000) as exactly three digits, zeros first, and returns their end.
[[gnu::always_inline]] inline char* write_three_digits(char* out, unsigned value) {
    out[0] = static_cast<char>('0' + value / 100);
    std::memcpy(out + 1, kDigitPairs + 2 * (value % 100), 2);
    return out + 3;
}

std::string_view trim(std::string_view s);
std::string_view trim_left(std::string_view s);
std::string_view trim_right(std::string_view s);

/// Splits on one character; empty fields are kept.
std::vector<std::string_view> split(std::string_view s, char separator);
/// Splits on runs of spaces and tabs; no empty fields.
std::vector<std::string_view> split_ws(std::string_view s);

/// Locale-independent, exact number parsing of the whole (trimmed) field; nullopt on any garbage,
/// overflow, NaN or infinity.
std::optional<double> parse_double(std::string_view s);
std::optional<std::int64_t> parse_int(std::string_view s);
std::optional<std::uint64_t> parse_uint(std::string_view s);
/// Parses `0x1f` / `1f` hexadecimal.
std::optional<std::uint64_t> parse_hex(std::string_view s);

/// Removes ANSI escape sequences (colour codes in captured CI logs).
std::string strip_ansi(std::string_view s);
bool has_ansi(std::string_view s);

/// ASCII lower case (bytes outside A-Z unchanged, independent of the locale).
std::string to_lower(std::string_view s);

/// Levenshtein distance (for "did you mean" suggestions).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// JSON/shell-free escaping of a string for CSV (RFC 4180 quoting when needed).
std::string csv_escape(std::string_view s);
/// Escapes `|` and newlines for a Markdown table cell.
std::string markdown_escape(std::string_view s);

/// Escapes text for a GitHub Actions workflow command (`::warning file=...::message`): `%`, CR
/// and LF always; `:` and `,` too when `property` (a `key=value` property rather than the message).
std::string github_escape(std::string_view text, bool property);

/// True if the bytes are valid UTF-8.
bool is_valid_utf8(std::string_view s);
/// Replaces invalid UTF-8 sequences with U+FFFD so the text can go into JSON.
std::string sanitize_utf8(std::string_view s);

}  // namespace ptune::text
