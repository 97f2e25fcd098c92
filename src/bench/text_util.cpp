// Line normalisation for captured logs and short excerpts for messages.

#include "text_util.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace ptune::bench {

namespace {

/// Length of a leading `YYYY-MM-DDTHH:MM:SS(.fff)Z ` prefix, 0 if there is none.
std::size_t actions_timestamp_length(std::string_view line) {
    constexpr std::string_view shape = "dddd-dd-ddTdd:dd:dd";
    if (line.size() < shape.size() + 2) return 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 'd' ? !is_digit(line[i]) : line[i] != shape[i]) return 0;
    }
    std::size_t at = shape.size();
    if (line[at] == '.') {
        ++at;
        std::size_t digits = at;
        while (at < line.size() && is_digit(line[at])) ++at;
        if (at == digits) return 0;
    }
    if (at < line.size() && line[at] == 'Z') {
        ++at;
        if (at < line.size() && line[at] == ' ') return at + 1;
        if (at == line.size()) return at;
    }
    return 0;
}

// find_log_interest()'s test at `at` (bytes at or past `end` read as 0), one byte at a time:
// for the last bytes of a range and as the tests' reference.
bool interest_at(const char* at, const char* end) {
    auto byte = [&](std::size_t i) -> unsigned char { return at + i < end ? at[i] : 0; };
    const unsigned char a = byte(0), b = byte(1), c = byte(2);
    switch (a) {
        case 0x1b:
            return true;
        case '[':
            return (b >= 'P' && b <= 'S') || b == 'V' || c == 'y' || (b == 'c' && c == 'h');
        case ':':
            return b == ':' && (c == 'g' || c == 'e');
        case '#':
            return b == '#' && c == '[';
        case '_':
            return b == 's' && c == 't';
        default:
            return false;
    }
}

// find_log_interest() without AVX2 (and without the newline count).
const char* find_interest_portable(const char* begin, const char* end) {
    const char* at = begin;
#if defined(__GNUC__)
    // 64 positions per step with portable vector extensions (two 32-byte vectors whose hits
    // are or-ed before the one test); the first hit byte comes from the compare mask. Three
    // overlapping loads see a tag's first three bytes. `[P`, `[Q`, `[R`, `[S` are one test
    // (0x50..0x53 = b & 0xFC).
    constexpr std::ptrdiff_t kWidth = 32;
    using Bytes = unsigned char __attribute__((vector_size(kWidth)));
    // Out-parameter, not a return value: returning a 32-byte vector without AVX changes the ABI
    // (GCC's -Wpsabi).
    auto hits_at = [](const char* p, Bytes& hits) {
        Bytes a, b, c;
        std::memcpy(&a, p, kWidth);
        std::memcpy(&b, p + 1, kWidth);
        std::memcpy(&c, p + 2, kWidth);
        hits = reinterpret_cast<Bytes>((a == 0x1b) |
                                       ((a == '[') & (((b & 0xFC) == 0x50) | (b == 'V') |
                                                      (c == 'y') | ((b == 'c') & (c == 'h')))) |
                                       ((a == ':') & (b == ':') & ((c == 'g') | (c == 'e'))) |
                                       ((a == '#') & (b == '#') & (c == '[')) |
                                       ((a == '_') & (b == 's') & (c == 't')));
    };
    auto first_hit = [](const Bytes& hits) -> std::ptrdiff_t {  // -1 when none
        std::uint64_t words[kWidth / 8];
        std::memcpy(words, &hits, kWidth);
        for (std::size_t i = 0; i < kWidth / 8; ++i) {  // hit bytes are 0xFF, others 0
            if (words[i] == 0) continue;
            int bit = std::endian::native == std::endian::little ? std::countr_zero(words[i])
                                                                 : std::countl_zero(words[i]);
            return static_cast<std::ptrdiff_t>(8 * i) + bit / 8;
        }
        return -1;
    };
    while (end - at >= 2 * kWidth + 2) {
        Bytes low, high;
        hits_at(at, low);
        hits_at(at + kWidth, high);
        Bytes either = low | high;
        std::uint64_t words[kWidth / 8];
        std::memcpy(words, &either, kWidth);
        if ((words[0] | words[1] | words[2] | words[3]) == 0) {  // most steps
            at += 2 * kWidth;
            continue;
        }
        std::ptrdiff_t hit = first_hit(low);
        return hit >= 0 ? at + hit : at + kWidth + first_hit(high);
    }
#endif
    for (; at < end; ++at) {
        if (interest_at(at, end)) return at;
    }
    return end;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PTUNE_INTEREST_AVX2 1
// The test as one table lookup per byte and position (the "Teddy" scheme of Hyperscan): each
// byte's low and high nibble index two 16-byte tables whose AND gives, per pattern, a bit for
// "this byte may be the pattern's first (second, third) byte"; a position is a hit when the
// bits of its three bytes share one. Seven patterns, one bit each: ESC; `[` then P-S or V; `[`,
// any, `y`; `[ch`; `::g` or `::e`; `##[`; `_st`. Every byte set of a pattern is one high nibble
// with some low nibbles, so the nibble AND is exact. Half the operations of comparing each
// position with each byte: 64 bytes in ~55 instructions instead of ~100.
struct InterestTables {
    std::array<unsigned char, 16> first_low{}, first_high{}, second_low{}, second_high{},
        third_low{}, third_high{};
};

constexpr InterestTables make_interest_tables() {
    InterestTables t;
    auto add = [](std::array<unsigned char, 16>& low, std::array<unsigned char, 16>& high,
                  unsigned char byte, unsigned char bit) {
        low[byte & 0x0F] |= bit;
        high[byte >> 4] |= bit;
    };
    auto any = [](std::array<unsigned char, 16>& low, std::array<unsigned char, 16>& high,
                  unsigned char bits) {
        for (std::size_t i = 0; i < 16; ++i) {
            low[i] |= bits;
            high[i] |= bits;
        }
    };
    enum : unsigned char {
        kEsc = 1,
        kTagPS = 2,
        kTagY = 4,
        kTagCh = 8,
        kColons = 16,
        kHashes = 32,
        kStart = 64
    };
    add(t.first_low, t.first_high, 0x1b, kEsc);
    add(t.first_low, t.first_high, '[', kTagPS | kTagY | kTagCh);
    add(t.first_low, t.first_high, ':', kColons);
    add(t.first_low, t.first_high, '#', kHashes);
    add(t.first_low, t.first_high, '_', kStart);
    any(t.second_low, t.second_high, kEsc | kTagY);
    for (unsigned char b : {'P', 'Q', 'R', 'S', 'V'}) add(t.second_low, t.second_high, b, kTagPS);
    add(t.second_low, t.second_high, 'c', kTagCh);
    add(t.second_low, t.second_high, ':', kColons);
    add(t.second_low, t.second_high, '#', kHashes);
    add(t.second_low, t.second_high, 's', kStart);
    any(t.third_low, t.third_high, kEsc | kTagPS);
    add(t.third_low, t.third_high, 'y', kTagY);
    add(t.third_low, t.third_high, 'h', kTagCh);
    add(t.third_low, t.third_high, 'g', kColons);
    add(t.third_low, t.third_high, 'e', kColons);
    add(t.third_low, t.third_high, '[', kHashes);
    add(t.third_low, t.third_high, 't', kStart);
    return t;
}
constexpr InterestTables kInterestTables = make_interest_tables();

__attribute__((target("avx2"))) __m256i table_of(const std::array<unsigned char, 16>& table) {
    return _mm256_broadcastsi128_si256(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(table.data())));
}

// The pattern bits the 32 bytes at `p` may start (continue, end): one lookup per nibble.
__attribute__((target("avx2"), always_inline)) inline __m256i nibble_bits(const char* p,
                                                                          __m256i low_table,
                                                                          __m256i high_table) {
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i low = _mm256_and_si256(bytes, nibble);
    const __m256i high = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), nibble);
    return _mm256_and_si256(_mm256_shuffle_epi8(low_table, low),
                            _mm256_shuffle_epi8(high_table, high));
}

// The positions of the 32 at `p` that are hits: nonzero bytes.
__attribute__((target("avx2"), always_inline)) inline __m256i hits_at(const char* p,
                                                                      const __m256i (&tables)[6]) {
    return _mm256_and_si256(_mm256_and_si256(nibble_bits(p, tables[0], tables[1]),
                                             nibble_bits(p + 1, tables[2], tables[3])),
                            nibble_bits(p + 2, tables[4], tables[5]));
}

// Bit i set when the i-th of the 32 bytes at `p` is a newline.
__attribute__((target("avx2"), always_inline)) inline std::uint32_t newline_mask(const char* p) {
    const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return static_cast<std::uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('\n'))));
}

// The newlines among the first `n` of the 32 bytes whose newline mask is `mask`.
inline std::size_t newlines_below(std::uint32_t mask, int n) {
    return static_cast<std::size_t>(std::popcount(n < 32 ? mask & ((1u << n) - 1) : mask));
}

__attribute__((target("avx2"))) const char* find_log_interest_avx2(const char* begin,
                                                                   const char* end,
                                                                   std::size_t& newlines) {
    const InterestTables& t = kInterestTables;
    const __m256i tables[6] = {table_of(t.first_low),  table_of(t.first_high),
                               table_of(t.second_low), table_of(t.second_high),
                               table_of(t.third_low),  table_of(t.third_high)};
    const char* at = begin;
    std::size_t count = 0;
    while (end - at >= 64 + 2) {  // the third byte of the last position is read: +2
        const __m256i low = hits_at(at, tables), high = hits_at(at + 32, tables);
        const __m256i either = _mm256_or_si256(low, high);
        const std::uint32_t low_newlines = newline_mask(at), high_newlines = newline_mask(at + 32);
        if (_mm256_testz_si256(either, either)) {  // most steps
            count += static_cast<std::size_t>(std::popcount(low_newlines) +
                                              std::popcount(high_newlines));
            at += 64;
            continue;
        }
        const __m256i zero = _mm256_setzero_si256();
        const auto low_hits =
            ~static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(low, zero)));
        if (low_hits != 0) {
            const int hit = std::countr_zero(low_hits);
            newlines += count + newlines_below(low_newlines, hit);
            return at + hit;
        }
        const auto high_hits =
            ~static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(high, zero)));
        const int hit = std::countr_zero(high_hits);
        newlines += count + static_cast<std::size_t>(std::popcount(low_newlines)) +
                    newlines_below(high_newlines, hit);
        return at + 32 + hit;
    }
    newlines += count;
    for (; at < end; ++at) {
        if (interest_at(at, end)) return at;
        newlines += *at == '\n' ? 1 : 0;
    }
    return end;
}
#endif

}  // namespace

std::optional<std::uint64_t> take_uint(std::string_view& text) {
    std::size_t n = 0;
    while (n < text.size() && text[n] >= '0' && text[n] <= '9') ++n;
    if (n == 0) return std::nullopt;
    auto value = text::parse_uint(text.substr(0, n));
    text.remove_prefix(n);
    return value;
}

std::string clip_for_message(std::string_view text, std::size_t limit) {
    bool cut = text.size() > limit;
    std::string clipped = text::sanitize_utf8(text.substr(0, limit));
    if (cut) clipped += "...";
    return clipped;
}

const char* find_log_interest_portable(const char* begin, const char* end, std::size_t& newlines) {
    const char* hit = find_interest_portable(begin, end);
    newlines += io::count_newlines(begin, hit);
    return hit;
}

const char* find_log_interest(const char* begin, const char* end, std::size_t& newlines) {
#ifdef PTUNE_INTEREST_AVX2
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) return find_log_interest_avx2(begin, end, newlines);
#endif
    return find_log_interest_portable(begin, end, newlines);
}

std::string_view strip_actions_timestamp(std::string_view line) {
    if (line.empty() || !is_digit(line.front())) return line;  // most lines: one comparison
    return line.substr(actions_timestamp_length(line));
}

}  // namespace ptune::bench
