// The streaming JSON tokenizer (ptune/core/json_walk.hpp): numbers of every length, as the
// integer fast path (eight digits at a time) and the full parser read them.

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "ptune/core/json_walk.hpp"

namespace json_walk_test {

using namespace ptune::json_stream;

namespace {

struct Numbers : JsonWalker {
    std::vector<std::string> seen;
    void on_scalar(const Scalar& value) override {
        if (value.type == Scalar::Type::Int)
            seen.push_back("i" + std::to_string(value.integer));
        else if (value.type == Scalar::Type::Float)
            seen.push_back("f" + std::to_string(value.number));
        else
            seen.push_back("?");
    }
    void on_open(std::size_t, bool) override {}
    void on_close(std::size_t, bool) override {}
};

/// What the walker reads from `text`, over a string and over a stream (both must agree).
std::vector<std::string> numbers(const std::string& text, bool& ok) {
    Numbers direct, streamed;
    ok = walk(text, direct);
    std::istringstream in(text);
    bool ok_streamed = walk(in, streamed);
    CHECK(ok == ok_streamed);
    CHECK(direct.seen == streamed.seen);
    return direct.seen;
}

}  // namespace

TEST_CASE("json_walk reads integers of 1 to 20 digits exactly", "[json_walk]") {
    std::string digits = "12345678901234567890";
    for (std::size_t n = 1; n <= 19; ++n) {
        std::string number = digits.substr(0, n);
        auto value = std::stoll(number);
        for (const std::string& text :
             {"[" + number + "]", "[" + number + ",1]", "[-" + number + "]", "[" + number + " ]"}) {
            INFO(text);
            bool ok = false;
            auto seen = numbers(text, ok);
            REQUIRE(ok);
            REQUIRE(!seen.empty());
            CHECK(seen[0] == "i" + std::to_string(text[1] == '-' ? -value : value));
        }
    }
    bool ok = false;
    // 20 digits: above INT64_MAX, a Float as the readers expect.
    CHECK(numbers("[12345678901234567890]", ok) ==
          std::vector<std::string>{"f" + std::to_string(12345678901234567890.0)});
    CHECK(ok);
    // Timestamps as captures write them, and digit runs cut by a non-digit inside the first eight.
    CHECK(numbers("[4320000000085,4320000001523,10]", ok) ==
          std::vector<std::string>{"i4320000000085", "i4320000001523", "i10"});
    CHECK(numbers("[1234567.5,12345678.25,1234567e2,99999999]", ok) ==
          std::vector<std::string>{"f" + std::to_string(1234567.5),
                                   "f" + std::to_string(12345678.25),
                                   "f" + std::to_string(123456700.0), "i99999999"});
    CHECK(ok);
    CHECK(numbers("[00000000]", ok).empty());
    CHECK_FALSE(ok);
    CHECK(numbers("[0123456789]", ok).empty());
    CHECK_FALSE(ok);
    CHECK(numbers("[1234567:]", ok).size() == 1);
    CHECK_FALSE(ok);
}

namespace {

struct Strings : JsonWalker {
    std::vector<std::string> seen;
    void on_scalar(const Scalar& value) override {
        seen.push_back(std::string(key_at(depth())) + "=" +
                       (value.type == Scalar::Type::String ? std::string(value.text) : "?"));
    }
    void on_open(std::size_t, bool) override {}
    void on_close(std::size_t, bool) override {}
};

/// The strings read from `text` over a string and over a stream, which must agree; `error` gets
/// the error message, if any.
std::vector<std::string> strings(const std::string& text, std::string& error) {
    Strings direct, streamed;
    const bool ok = walk(text, direct);
    std::istringstream in(text);
    CHECK(walk(in, streamed) == ok);
    CHECK(direct.seen == streamed.seen);
    CHECK(direct.error_message() == streamed.error_message());
    error = ok ? "" : direct.error_message();
    return direct.seen;
}

}  // namespace

TEST_CASE("json_walk stops a string at each special byte wherever it falls in a word",
          "[json_walk]") {
    // Strings are scanned eight bytes at a time up to the next byte that needs a look: a quote,
    // a backslash, a control byte or a byte of a multi-byte character, at any of the eight
    // places of a word, in keys and in values, and across the stream's 64 KiB window.
    struct Special {
        std::string written, read;
    };
    const std::vector<Special> specials = {
        {"\\\"", "\""},          {"\\\\", "\\"},           {"\\n", "\n"},
        {"\\u00e9", "\xC3\xA9"}, {"\xC3\xA9", "\xC3\xA9"}, {"\xE2\x82\xAC", "\xE2\x82\xAC"},
        {"\x7F", "\x7F"}};
    for (std::size_t length = 0; length <= 20; ++length) {
        for (std::size_t at = 0; at <= length; ++at) {
            const std::string before(at, 'a'), after(length - at, 'b');
            for (const Special& special : specials) {
                const std::string key = "k" + before + special.written + after;
                const std::string text =
                    "{\"" + key + "\": \"" + before + special.written + after + "\", \"n\": 1}";
                INFO(text);
                std::string error;
                const std::string read = before + special.read + after;
                CHECK(strings(text, error) ==
                      std::vector<std::string>{"k" + read + "=" + read, "n=?"});
                CHECK(error.empty());
            }
            // Refused: a raw control byte, a byte that is no UTF-8.
            for (const std::string& bad : {std::string("\x01"), std::string("\x1F"),
                                           std::string("\xFF"), std::string("\xC3")}) {
                const std::string text = "[\"" + before + bad + after + "\"]";
                INFO(text);
                std::string error;
                CHECK(strings(text, error).empty());
                CHECK((error.find("control character in a string") != std::string::npos ||
                       error.find("invalid UTF-8 in a string") != std::string::npos));
                if (bad[0] < 0x20 && bad[0] >= 0)
                    CHECK(error.find(fmt::format("column {}:", 3 + at)) != std::string::npos);
            }
        }
    }
    // A long string whose escapes sit about the end of the stream's first 64 KiB window.
    std::string filler(65536 - 20, 'x');
    for (std::size_t shift = 0; shift < 16; ++shift) {
        const std::string written = std::string(shift, 'y') + filler + "\\\"ab\\u00e9" + filler;
        const std::string read = std::string(shift, 'y') + filler + "\"ab\xC3\xA9" + filler;
        std::string error;
        CHECK(strings("[\"" + written + "\"]", error) == std::vector<std::string>{"=" + read});
        CHECK(error.empty());
    }
}

namespace {

/// Takes every container whose text starts with `{"take"` or `["take"`, noting what it was
/// offered; the rest (and every scalar with its array index) go through the callbacks.
struct Taker : JsonWalker {
    std::vector<std::string> seen;
    std::vector<std::size_t> offered;  ///< the length of text offered at each container
    std::size_t take_container(std::size_t level, std::string_view text) override {
        offered.push_back(text.size());
        if (!text.substr(1).starts_with("\"take\"")) return 0;
        const std::size_t length = text.find(text[0] == '{' ? '}' : ']') + 1;
        seen.push_back(fmt::format("took {} at {}", text.substr(0, length), level));
        return length;
    }
    void on_scalar(const Scalar& value) override {
        seen.push_back(fmt::format("{}[{}]={}", key_at(depth()), index_at(depth()),
                                   value.is_int() ? std::to_string(value.integer) : "?"));
    }
    void on_open(std::size_t level, bool is_object) override {
        seen.push_back(fmt::format("open {}{}", level, is_object ? "{" : "["));
    }
    void on_close(std::size_t level, bool is_object) override {
        seen.push_back(fmt::format("close {}{}", level, is_object ? "}" : "]"));
    }
};

}  // namespace

TEST_CASE("json_walk lets a walker take a whole container at once", "[json_walk]") {
    // A taken container gets no callbacks, counts as one element of its array and is skipped
    // whole; one not taken is walked as usual; the top-level value is never offered.
    const std::string text =
        R"({"rows": [{"take": 1}, {"a": 2}, 3, {"take":[4]}, ["take", 5], [6], 7]})";
    Taker direct;
    REQUIRE(walk(text, direct));
    const std::vector<std::string> expected = {"open 0{",
                                               "open 1[",
                                               R"(took {"take": 1} at 2)",
                                               "open 2{",
                                               "a[0]=2",
                                               "close 2}",
                                               "[2]=3",
                                               R"(took {"take":[4]} at 2)",
                                               R"(took ["take", 5] at 2)",
                                               "open 2[",
                                               "[0]=6",
                                               "close 2]",
                                               "[6]=7",
                                               "close 1]",
                                               "close 0}"};
    CHECK(direct.seen == expected);
    std::istringstream in(text);
    Taker streamed;
    REQUIRE(walk(in, streamed));
    CHECK(streamed.seen == expected);
}

TEST_CASE("json_walk offers a container its window even across the stream's chunks",
          "[json_walk]") {
    // Objects start at every offset around the 64 KiB chunk boundary: each is offered with at
    // least kContainerWindow bytes (or all that is left), so a small object is never cut.
    const std::string object = R"({"take": 12345})";
    for (std::size_t pad = 65536 - 40; pad < 65536 + 8; ++pad) {
        std::string text = "[\"" + std::string(pad, 'x') + "\"";
        for (int k = 0; k < 3; ++k) text += "," + object;
        text += "]";
        std::istringstream in(text);
        Taker streamed;
        REQUIRE(walk(in, streamed));
        REQUIRE(streamed.offered.size() == 3);
        INFO("pad " << pad);
        CHECK(streamed.offered[0] >= std::min(JsonWalker::kContainerWindow, 2 * object.size() + 3));
        CHECK(std::count_if(streamed.seen.begin(), streamed.seen.end(),
                            [](const std::string& s) { return s.starts_with("took"); }) == 3);
    }
}

}  // namespace json_walk_test
