#pragma once
// Text helpers shared by the bench readers: line normalisation and message snippets.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ptune::bench {

/// An ASCII decimal digit (unlike std::isdigit, independent of the locale and of char's sign).
inline bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

/// Consumes a run of decimal digits; nullopt if there is none or it overflows 64 bits (the
/// digits are consumed either way).
std::optional<std::uint64_t> take_uint(std::string_view& text);

/// A short, printable excerpt of input text for a diagnostic (valid UTF-8, at most `limit`
/// bytes, "..." appended when cut).
std::string clip_for_message(std::string_view text, std::size_t limit);

/// First byte in [begin, end) that may start what a log scan reads, or `end`: an ESC (colour
/// codes), or the first three bytes of `[RUN]`, `[STRACE]`, `[pypto]`, `[chip_process`,
/// `::group::`, `::endgroup::`, `##[` and the `_start=` of legacy device-log timing lines. The
/// test, loose for `[` (fewer operations; a rare extra line costs less): ESC; `[` followed by
/// one of `PQRSV`, by `ch`, or by any byte and `y`; `::g`, `::e`; `##[`; `_st` (bytes at or past
/// `end` read as 0). Adds to `newlines` the newlines before the byte returned. An
/// io::LineReader::InterestFinder: lines without a hit are skipped unread. AVX2 where the CPU
/// has it.
const char* find_log_interest(const char* begin, const char* end, std::size_t& newlines);

/// find_log_interest() without AVX2, whatever the CPU (for tests on machines that have it).
const char* find_log_interest_portable(const char* begin, const char* end, std::size_t& newlines);

/// The line without a leading GitHub Actions timestamp (`2026-08-21T21:43:07.1234567Z `).
std::string_view strip_actions_timestamp(std::string_view line);

}  // namespace ptune::bench
