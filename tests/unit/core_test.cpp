#include <unistd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "ptune/core/discover.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"

namespace core_test {

using namespace ptune;
namespace fs = std::filesystem;

TEST_CASE("fsum is exactly rounded where naive summation is not", "[stats]") {
    std::vector<double> values = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
    CHECK(stats::fsum(values) == 1.0);
    double naive = 0;
    for (double v : values) naive += v;
    CHECK(naive != 1.0);
    std::vector<double> cancel = {1e100, 1.0, -1e100, 1e-100};
    CHECK(stats::fsum(cancel) == 1.0 + 1e-100);
    std::vector<double> empty;
    CHECK(stats::fsum(empty) == 0.0);
    CHECK_FALSE(stats::mean(empty).has_value());
}

TEST_CASE("format_fixed rounds the exact binary value half to even", "[stats]") {
    CHECK(stats::format_fixed(0.25, 1) == "0.2");    // exact tie -> even
    CHECK(stats::format_fixed(0.35, 1) == "0.3");    // 0.35 is 0.34999... in binary
    CHECK(stats::format_fixed(2.675, 2) == "2.67");  // 2.67499999...
    CHECK(stats::format_fixed(1.45, 1) == "1.4");    // 1.4499999...
    CHECK(stats::format_fixed(539.95, 1) == "540.0");
}

TEST_CASE("format_fixed writes what printf's %.*f writes", "[stats]") {
    auto printf_fixed = [](double value, int precision) {
        char buffer[512];
        int n = std::snprintf(buffer, sizeof buffer, "%.*f", precision, value);
        return std::string(buffer, static_cast<std::size_t>(n));
    };
    std::vector<double> values = {0.0,  -0.0,   0.05,   0.15,  0.25,     2.5,    -1.25,
                                  1e15, 1e21,   1e60,   1e300, -1e300,   5e-324, 123456789.125,
                                  1e-7, 0.0005, 0.0015, 99.95, 999999.95};
    values.push_back(std::numeric_limits<double>::infinity());
    values.push_back(-std::numeric_limits<double>::infinity());
    values.push_back(std::numeric_limits<double>::max());
    std::uint64_t state = 42;
    for (int i = 0; i < 5000; ++i) {  // random magnitudes, and ties at 1 and 3 decimals
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        double value = static_cast<double>(state >> 11) / 9007199254740992.0 * 1e6;
        values.push_back(value);
        values.push_back(std::round(value * 20.0) / 20.0);
        values.push_back(std::round(value * 2000.0) / 2000.0);
        values.push_back(-value / 1e3);
    }
    for (double value : values) {
        for (int precision : {0, 1, 2, 3, 6}) {
            INFO(value << " " << precision);
            CHECK(stats::format_fixed(value, precision) == printf_fixed(value, precision));
        }
        CHECK(stats::format_fixed(value, -1) == printf_fixed(value, 6));
    }
    CHECK(stats::format_fixed(std::nan(""), 1) == printf_fixed(std::nan(""), 1));
}

TEST_CASE("median and quantile follow numpy/statistics conventions", "[stats]") {
    CHECK(*stats::median({3, 1, 2}) == 2);
    CHECK(*stats::median({4, 1, 2, 3}) == 2.5);
    CHECK(*stats::quantile({1, 2, 3, 4, 5}, 0.95) == Approx(4.8));
    CHECK(*stats::mad({1, 1, 2, 2, 4, 6, 9}) == 1);
    CHECK_FALSE(stats::geomean(std::vector<double>{1.0, -1.0}).has_value());
    CHECK(*stats::geomean(std::vector<double>{2.0, 8.0}) == Approx(4.0));
}

TEST_CASE("median and quantile pick exactly the values a full sort would", "[stats]") {
    // They select in linear time; the reference sorts. Many ties, both parities, every q
    // position between two values and at the ends.
    std::uint64_t seed = 11;
    auto random = [&seed] { return seed = seed * 6364136223846793005u + 1442695040888963407u; };
    for (std::size_t n : {1u, 2u, 3u, 4u, 5u, 10u, 11u, 100u, 101u, 1000u, 4097u}) {
        std::vector<double> values(n);
        for (double& v : values) v = static_cast<double>(random() >> 59) * 0.37;  // 32 levels
        std::vector<double> sorted = values;
        std::sort(sorted.begin(), sorted.end());
        const double middle =
            n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
        INFO("n = " << n);
        CHECK(*stats::median(values) == middle);
        for (double q : {0.0, 0.1, 0.25, 0.5, 0.9, 0.95, 0.999, 1.0}) {
            const double position = q * static_cast<double>(n - 1);
            const auto lower = static_cast<std::size_t>(std::floor(position));
            const std::size_t upper = std::min(lower + 1, n - 1);
            const double expected =
                sorted[lower] + (sorted[upper] - sorted[lower]) * (position - std::floor(position));
            INFO("q = " << q);
            CHECK(*stats::quantile(values, q) == expected);
        }
    }
}

TEST_CASE("stdev is the sample standard deviation (n - 1), as statistics.stdev", "[stats]") {
    // statistics.stdev([118.6, 14.1, 11.6, 11.1]) = 53.18286064764349
    CHECK(*stats::stdev(std::vector<double>{118.6, 14.1, 11.6, 11.1}) == Approx(53.18286064764349));
    CHECK(*stats::stdev(std::vector<double>{2.0, 2.0, 2.0}) == 0.0);
    CHECK_FALSE(stats::stdev(std::vector<double>{1.0}).has_value());
}

TEST_CASE("number parsing rejects garbage instead of guessing", "[text]") {
    CHECK(*text::parse_double(" 520.1 ") == 520.1);
    CHECK_FALSE(text::parse_double("520.1x").has_value());
    CHECK_FALSE(text::parse_double("nan").has_value());
    CHECK_FALSE(text::parse_double("").has_value());
    CHECK(*text::parse_int("-42") == -42);
    CHECK_FALSE(text::parse_int("99999999999999999999").has_value());
    CHECK(*text::parse_hex("0x1f") == 31);
    CHECK(text::strip_ansi("\x1b[32m[RUN]\x1b[0m ok") == "[RUN] ok");
    CHECK(text::edit_distance("bench-sumary", "bench-summary") == 1);
    CHECK(text::csv_escape("a,b") == "\"a,b\"");
    CHECK(text::sanitize_utf8("a\xff") == "a\xEF\xBF\xBD");
    CHECK_FALSE(text::is_valid_utf8("\xc0\xaf"));
}

TEST_CASE("parse_double gives from_chars' double, bit for bit, for short decimals too", "[text]") {
    // Plain decimals of up to 15 digits take a fast path (one exact division); every other
    // form goes to from_chars. Both must give the same bits, the sign of zero included.
    auto from_chars_bits = [](const std::string& s) {
        double value = 0;
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
        const bool whole = ec == std::errc() && end == s.data() + s.size();
        return whole ? std::bit_cast<std::uint64_t>(value) : ~std::uint64_t{0};  // ~0: no double
    };
    std::uint64_t seed = 11;
    auto random = [&seed] {
        return (seed = seed * 6364136223846793005u + 1442695040888963407u) >> 33;
    };
    std::size_t parsed_all = 0;
    std::string first_difference;
    for (int n = 0; n < 200000; ++n) {
        const std::size_t whole = 1 + random() % 15, fraction = random() % (16 - whole);
        std::string s = random() % 4 == 0 ? "-" : "";
        for (std::size_t i = 0; i < whole + fraction; ++i) {
            if (i == whole) s += '.';
            s += static_cast<char>('0' + random() % (n % 3 == 0 ? 2 : 10));  // zeros and ones often
        }
        auto parsed = text::parse_double(s);
        parsed_all += parsed.has_value();
        if (first_difference.empty() &&
            (!parsed || std::bit_cast<std::uint64_t>(*parsed) != from_chars_bits(s)))
            first_difference = s;
    }
    CHECK(parsed_all == 200000);
    CHECK(first_difference == "");
    for (std::string s : {"0.1", "0.3", "-0", "-0.0", "0.000000000000001", "999999999999999",
                          "99999999999999.9", "1234567890123456", "0.1234567890123456", "1e5",
                          "1.5E-3", "00000000000000001.5", "4503599627370497.5", "1."}) {
        INFO(s);
        auto parsed = text::parse_double(s);
        REQUIRE(parsed.has_value());
        CHECK(std::bit_cast<std::uint64_t>(*parsed) == from_chars_bits(s));
    }
    for (const char* bad : {"-", ".", "-.", "1.2.3", "1-2", "--1", "0x10", "1 2"})
        CHECK_FALSE(text::parse_double(bad).has_value());
}

TEST_CASE("text::starts_with compares the whole literal and nothing past the text", "[text]") {
    CHECK(text::starts_with("[RUN] compile", "[RUN]"));
    CHECK(text::starts_with("[RUN]", "[RUN]"));
    CHECK_FALSE(text::starts_with("[RUN", "[RUN]"));  // shorter than the prefix
    CHECK_FALSE(text::starts_with("[RUX] x", "[RUN]"));
    CHECK_FALSE(text::starts_with("x[RUN]", "[RUN]"));
    CHECK(text::starts_with("anything", ""));
    CHECK(text::starts_with("", ""));
    std::string_view cut = std::string_view("effective_us ").substr(0, 12);  // no NUL behind it
    CHECK_FALSE(text::starts_with(cut, "effective_us "));
    CHECK(text::starts_with(cut, "effective_us"));
}

TEST_CASE("write_decimal writes what std::to_chars writes, at every width", "[text]") {
    auto check = [](std::uint64_t value) {
        char expected[24], written[24];
        const char* expected_end = std::to_chars(expected, expected + 24, value).ptr;
        const auto width = static_cast<unsigned>(expected_end - expected);
        INFO(value);
        REQUIRE(text::decimal_width(value) == width);
        std::memset(written, 'x', sizeof written);
        char* end = text::write_decimal(written, value, width);
        CHECK(std::string_view(written, static_cast<std::size_t>(end - written)) ==
              std::string_view(expected, width));
        CHECK(*end == 'x');  // nothing past the digits
    };
    // Both sides of every power of ten and of every power of two: where widths change.
    for (std::uint64_t power = 1;; power *= 10) {
        check(power - 1);
        check(power);
        check(power + 1);
        if (power > std::numeric_limits<std::uint64_t>::max() / 10) break;
    }
    for (unsigned bit = 0; bit < 64; ++bit) {
        const std::uint64_t power = std::uint64_t{1} << bit;
        check(power - 1);
        check(power);
        check(power + 1);
    }
    check(std::numeric_limits<std::uint64_t>::max());
    std::uint64_t state = 0x9E3779B97F4A7C15u;
    for (int k = 0; k < 100000; ++k) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        check(state >> (state % 64));  // every magnitude
    }
}

TEST_CASE("LineReader streams lines, strips CR and cuts over-long lines", "[io]") {
    std::string text = "one\r\ntwo\n\nthree";
    std::istringstream in(text);
    io::LineReader reader(in);
    std::vector<std::string> lines;
    std::string_view line;
    while (reader.next(line)) lines.emplace_back(line);
    CHECK(lines == std::vector<std::string>{"one", "two", "", "three"});
    CHECK(reader.line_number() == 4);

    io::LineReader view_reader(std::string_view("a\nb\n"));
    lines.clear();
    while (view_reader.next(line)) lines.emplace_back(line);
    CHECK(lines == std::vector<std::string>{"a", "b"});

    std::string long_line(5000, 'x');
    std::istringstream long_in(long_line + "\nafter\n");
    io::LineReader limited(long_in, 100);
    REQUIRE(limited.next(line));
    CHECK(line.size() == 100);
    CHECK(limited.truncated());
    REQUIRE(limited.next(line));
    CHECK(line == "after");
    CHECK_FALSE(limited.truncated());
    CHECK(limited.line_number() == 2);
}

TEST_CASE("LineReader handles lines spanning its internal chunks", "[io]") {
    std::string text;
    for (int i = 0; i < 300000; ++i) text += std::to_string(i) + "\n";
    std::istringstream in(text);
    io::LineReader reader(in);
    std::string_view line;
    int expected = 0;
    while (reader.next(line)) {
        REQUIRE(line == std::to_string(expected));
        ++expected;
    }
    CHECK(expected == 300000);
}

namespace {
const char* find_bang(const char* begin, const char* end, std::size_t& newlines) {
    const char* hit = std::find(begin, end, '!');
    newlines += static_cast<std::size_t>(std::count(begin, hit, '\n'));
    return hit;
}
}  // namespace

TEST_CASE("LineReader::next_interesting skips dull lines but keeps their count", "[io]") {
    // Interesting lines around the reader's 1 MiB chunk boundaries, a CRLF one, and a last
    // line without a newline; everything else is filler.
    std::string text;
    std::vector<std::pair<std::size_t, std::size_t>> expected;  // line number, offset
    std::size_t line_number = 0;
    auto add = [&](const std::string& line) {
        ++line_number;
        if (line.find('!') != std::string::npos) expected.emplace_back(line_number, text.size());
        text += line;
    };
    for (int i = 0; text.size() < (3u << 20); ++i) {
        bool marked = i % 9973 == 0 || (text.size() % (1u << 20)) > (1u << 20) - 64;
        add(marked ? fmt::format("hit{}!\r\n", i) : fmt::format("filler line {}\n", i));
    }
    add("last!");

    auto check = [&](io::LineReader& reader) {
        std::string_view line;
        std::size_t seen = 0;
        while (reader.next_interesting(line, find_bang)) {
            if (line.find('!') == std::string_view::npos) continue;  // allowed extra lines
            REQUIRE(seen < expected.size());
            CHECK(reader.line_number() == expected[seen].first);
            CHECK(reader.line_offset() == expected[seen].second);
            CHECK(line.back() == '!');  // CR stripped
            ++seen;
        }
        CHECK(seen == expected.size());
        CHECK(reader.line_number() == line_number);
    };
    std::istringstream in(text);
    io::LineReader streamed(in);
    check(streamed);
    io::LineReader viewed{std::string_view(text)};
    check(viewed);
}

TEST_CASE("count_newlines agrees with std::count at every length and alignment", "[io]") {
    std::string text;
    for (int i = 0; i < 9000; ++i) text += (i * 7919) % 5 == 0 ? '\n' : char('a' + i % 26);
    for (std::size_t begin = 0; begin < 40; ++begin) {
        for (std::size_t end : {begin, begin + 1, begin + 15, begin + 16, begin + 33,
                                std::size_t{4096 + 17}, text.size()}) {
            const char* first = text.data() + begin;
            const char* last = text.data() + end;
            REQUIRE(io::count_newlines(first, last) ==
                    static_cast<std::size_t>(std::count(first, last, '\n')));
        }
    }
}

namespace {
fs::path temp_dir() {
    fs::path dir = fs::temp_directory_path() / ("ptune-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir;
}
}  // namespace

TEST_CASE("AtomicOutput writes whole files and never over an input", "[io]") {
    fs::path dir = temp_dir();
    fs::path target = dir / "out.txt";
    {
        auto out = io::AtomicOutput::open(target.string());
        REQUIRE(out.ok());
        (*out)->stream() << "partial";
        // destroyed without commit: nothing appears
    }
    CHECK_FALSE(fs::exists(target));
    {
        auto out = io::AtomicOutput::open(target.string());
        REQUIRE(out.ok());
        (*out)->stream() << "whole";
        REQUIRE((*out)->commit().ok());
    }
    CHECK(*io::read_file(target.string()) == "whole");
    auto refused = io::AtomicOutput::open(target.string(), {target.string()});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("refusing") != std::string::npos);
    CHECK(*io::read_file(target.string()) == "whole");
    for (const auto& entry : fs::directory_iterator(dir)) {
        CHECK(entry.path().filename().string().find("ptune-tmp") == std::string::npos);
    }
    fs::remove_all(dir);
}

TEST_CASE("read_file names the missing path", "[io]") {
    auto missing = io::read_file("/nonexistent/ptune/file.log");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().file == "/nonexistent/ptune/file.log");
    CHECK(missing.error().code == ExitCode::InputError);
}

TEST_CASE("run directories are chosen by the timestamp in their name", "[discover]") {
    fs::path dir = temp_dir() / "build_output";
    fs::create_directories(dir / "Qwen_20260701_120000");
    fs::create_directories(dir / "Qwen_20260630_235959");
    fs::create_directories(dir / "Other_20260702_000000");
    fs::create_directories(dir / "not_a_run");
    // Make the older run the most recently modified: mtime must not matter.
    fs::last_write_time(dir / "Qwen_20260630_235959", fs::file_time_type::clock::now());
    std::string note;
    auto newest = discover::resolve_run(dir, "", 1, &note);
    REQUIRE(newest.ok());
    CHECK(newest->filename() == "Other_20260702_000000");
    auto qwen = discover::resolve_run(dir, "Qwen", 1, &note);
    REQUIRE(qwen.ok());
    CHECK(qwen->filename() == "Qwen_20260701_120000");
    CHECK(note.find("timestamp") != std::string::npos);
    auto none = discover::resolve_run(dir, "Missing", 1, nullptr);
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().message.find("Qwen_20260701_120000") != std::string::npos);
    auto parsed = discover::parse_run_dir_name("My_Prog_20260101_010203");
    REQUIRE(parsed);
    CHECK(parsed->program == "My_Prog");
    CHECK(parsed->timestamp == "20260101_010203");
    fs::remove_all(dir.parent_path());
}

TEST_CASE("LineReader reading ahead on a second thread hands out the same lines", "[io]") {
    // Lines shorter than, around and far beyond the 64 KiB kept in front of each read-ahead
    // chunk and the 1 MiB chunk itself; CRLF, a byte order mark, an over-long line cut at the
    // limit and an unterminated last line; next() and next_interesting() alike.
    std::string text =
        "\xEF\xBB\xBF"
        "first\r\n";
    std::size_t seed = 7;
    auto random = [&seed] { return seed = seed * 6364136223846793005u + 1442695040888963407u; };
    for (int i = 0; i < 60000; ++i) {
        std::size_t length = random() >> 58;                             // 0..63
        if (i % 5000 == 17) length = 64u * 1024 - 3 + (random() >> 62);  // about the reserve
        if (i % 20000 == 9999) length = (3u << 20) + 5;                  // several chunks
        text += (i % 7 == 0 ? "[RUN] " : "chatter ") + std::string(length, 'a' + i % 26);
        text += i % 11 == 0 ? "\r\n" : "\n";
    }
    text += "unterminated [RUN] end";
    auto interest = [](const char* begin, const char* end, std::size_t& newlines) -> const char* {
        std::string_view rest(begin, static_cast<std::size_t>(end - begin));
        auto at = rest.find("[RUN]");
        const char* hit = at == std::string_view::npos ? end : begin + at;
        newlines += static_cast<std::size_t>(std::count(begin, hit, '\n'));
        return hit;
    };
    for (bool interesting : {false, true}) {
        for (std::size_t limit : {std::size_t{64} << 20, std::size_t{1} << 20}) {
            std::istringstream plain_in(text), ahead_in(text);
            io::LineReader plain(plain_in, limit), ahead(ahead_in, limit);
            ahead.read_ahead();
            std::string_view a, b;
            std::size_t lines = 0;
            for (;;) {
                bool got_a = interesting ? plain.next_interesting(a, interest) : plain.next(a);
                bool got_b = interesting ? ahead.next_interesting(b, interest) : ahead.next(b);
                REQUIRE(got_a == got_b);
                if (!got_a) break;
                ++lines;
                INFO("line " << plain.line_number() << ", interesting " << interesting);
                REQUIRE(a == b);
                REQUIRE(plain.line_number() == ahead.line_number());
                REQUIRE(plain.line_offset() == ahead.line_offset());
                REQUIRE(plain.bytes_read() == ahead.bytes_read());
                REQUIRE(plain.truncated() == ahead.truncated());
                REQUIRE(plain.unterminated() == ahead.unterminated());
                REQUIRE(plain.interest_offset() == ahead.interest_offset());
            }
            CHECK(lines > (interesting ? 8000u : 60000u));
        }
    }
    // Stopped early: the reading thread ends with the reader.
    std::istringstream early_in(text);
    {
        io::LineReader early(early_in);
        early.read_ahead();
        std::string_view line;
        REQUIRE(early.next(line));
        CHECK(line == "first");
    }
}

}  // namespace core_test
