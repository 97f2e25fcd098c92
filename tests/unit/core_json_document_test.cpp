// json_document::parse(): every way nlohmann rejects a document is an input error at its line.

#include <string>

#include <catch2/catch.hpp>

#include "ptune/core/json_document.hpp"
#include "ptune/core/text.hpp"

namespace core_json_document_test {

using namespace ptune;

TEST_CASE("json_document: a valid document parses", "[core][json]") {
    auto document = json_document::parse("{\"a\": [1, 2.5, \"x\"]}\n", "x.json");
    REQUIRE(document);
    CHECK((*document)["a"][1] == 2.5);
}

TEST_CASE("json_document: a syntax error names its line and the reason alone", "[core][json]") {
    auto error = json_document::parse("{\n  \"a\": 1,\n  \"b\": x\n}", "x.json");
    REQUIRE_FALSE(error);
    CHECK(error.error().code == ExitCode::InputError);
    CHECK(error.error().file == "x.json");
    CHECK(error.error().line == 3);
    // nlohmann's "[json.exception.parse_error.101] parse error at line 3, column 9: " is dropped
    CHECK(error.error().message ==
          "not valid JSON: syntax error while parsing value - invalid literal; last read: "
          "'\"b\": x'");
}

TEST_CASE("json_document: a raw newline in a string is reported on the string's line",
          "[core][json]") {
    // nlohmann counts the newline itself as read: the line it ends, not the next one
    auto error = json_document::parse("{\"a\": \"b\nc\"}", "x.json");
    REQUIRE_FALSE(error);
    CHECK(error.error().line == 1);
    CHECK(error.error().message.find("control character U+000A") != std::string::npos);
}

TEST_CASE("json_document: a document cut short names its last written line", "[core][json]") {
    auto error = json_document::parse("{\"a\": 1,\n \"b\": 2,\n\n", "x.json");
    REQUIRE_FALSE(error);
    CHECK(error.error().line == 2);  // not line 4, past the end
    CHECK(error.error().message.find("unexpected end of input") != std::string::npos);
    auto empty = json_document::parse("", "x.json");
    REQUIRE_FALSE(empty);
    CHECK(empty.error().line == 1);
}

TEST_CASE("json_document: a number beyond double is an input error at the number's line",
          "[core][json]") {
    auto error =
        json_document::parse("{\"note\": \"1e999\",\n \"x\": 1e99,\n \"y\": -1e999}", "x.json");
    REQUIRE_FALSE(error);
    CHECK(error.error().code == ExitCode::InputError);
    CHECK(error.error().line == 3);  // not the string on line 1, nor the part of -1e999 in 1e99
    CHECK(error.error().message == "not valid JSON: number overflow parsing '-1e999'");
}

TEST_CASE("json_document: a long reason is cut, and stays valid UTF-8", "[core][json]") {
    const std::string digits(5000, '7');
    auto number = json_document::parse("[\n" + digits + "e999]", "x.json");
    REQUIRE_FALSE(number);
    CHECK(number.error().line == 2);
    CHECK(number.error().message.size() ==
          std::string_view("not valid JSON: ").size() + json_document::kReasonShown + 3);
    CHECK(number.error().message.ends_with("777..."));
    // An unclosed string of two-byte characters: the reason quotes it, and one of the two
    // alignments puts the cut inside a character.
    std::string accents;
    for (int i = 0; i < 100; ++i) accents += "\xC3\xA9";
    for (const std::string& pad : {std::string(), std::string("a")}) {
        auto string = json_document::parse("{\"a\": \"" + pad + accents, "x.json");
        REQUIRE_FALSE(string);
        CHECK(string.error().message.ends_with("..."));
        CHECK(text::is_valid_utf8(string.error().message));
    }
}

TEST_CASE("json_document: dump writes invalid UTF-8 as U+FFFD instead of throwing",
          "[core][json]") {
    nlohmann::json value = {{"path", "/data/run_\xff/records.json"}, {"n", 1}};
    CHECK_THROWS(value.dump());  // why the helper exists
    CHECK(json_document::dump(value) ==
          "{\"n\":1,\"path\":\"/data/run_\xEF\xBF\xBD/records.json\"}");
    CHECK(json_document::dump(value, 2) ==
          "{\n  \"n\": 1,\n  \"path\": \"/data/run_\xEF\xBF\xBD/records.json\"\n}");
}

}  // namespace core_json_document_test
