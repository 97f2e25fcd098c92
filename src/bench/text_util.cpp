// Line normalisation for captured logs and short excerpts for messages.

#include "text_util.hpp"

#include <bit>
#include <cstdint>
#include <cstring>

#include "ptune/core/text.hpp"

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

bool interesting_at(const char* at, const char* end) {
    auto next = [&](std::size_t i) { return at + i < end ? at[i] : '\0'; };
    switch (*at) {
        case '\x1b':
            return true;
        case '[':
            return next(1) == 'R' || next(1) == 'S' || next(2) == 'y' ||
                   (next(1) == 'c' && next(2) == 'h') || (next(1) == 'P' && next(2) == 'E') ||
                   (next(1) == 'V' && next(2) == 'A');
        case ':':
            return next(1) == ':' && (next(2) == 'g' || next(2) == 'e');
        case '#':
            return next(1) == '#' && next(2) == '[';
        case '_':
            return next(1) == 's' && next(2) == 't';
        default:
            return false;
    }
}

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

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
// One build for every x86-64 machine, AVX2 where the CPU has it (chosen at load time).
#define PTUNE_WIDE_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define PTUNE_WIDE_CLONES
#endif

PTUNE_WIDE_CLONES const char* find_log_interest(const char* begin, const char* end) {
    const char* at = begin;
#if defined(__GNUC__)
    // 64 positions per step with portable vector extensions (two 32-byte vectors whose hits
    // are or-ed before the one test); the first hit byte comes from the compare mask. Three
    // overlapping loads see a tag's first three bytes. For `[` the test is looser than
    // interesting_at() (`[R`, `[S`, `[?y`, `[ch`, `[PE`, `[VA`): fewer operations, and a rare
    // extra line costs less. `[P`, `[Q`, `[R`, `[S` are one test (0x50..0x53 = b & 0xFC):
    // the sentinels' `[PE` cost one operation more than `[R`/`[S` did, not five.
    constexpr std::ptrdiff_t kWidth = 32;
    using Bytes = unsigned char __attribute__((vector_size(kWidth)));
    // Out-parameter, not a return value: a returned vector would change the ABI per clone.
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
        if (interesting_at(at, end)) return at;
    }
    return end;
}

std::string_view strip_actions_timestamp(std::string_view line) {
    if (line.empty() || !is_digit(line.front())) return line;  // most lines: one comparison
    return line.substr(actions_timestamp_length(line));
}

}  // namespace ptune::bench
