// The streaming JSON tokenizer (ptune/core/json_walk.hpp): numbers of every length, as the
// integer fast path (eight digits at a time) and the full parser read them.

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ptune/core/json_walk.hpp"

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
