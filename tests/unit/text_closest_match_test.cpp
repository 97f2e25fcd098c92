// text::closest_match: the one "did you mean" of ptune (unknown subcommand, unknown option,
// unknown rule id). The golden CLI cases core/typo, core/flag-typo and
// core/explain-did-you-mean check the messages built on it.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ptune/core/text_match.hpp"

namespace text_closest_match_test {

using ptune::text::closest_match;

TEST_CASE("closest_match suggests the nearest candidate within a typo's distance", "[text]") {
    std::vector<std::string> commands = {"help", "bench-summary", "bench", "bench-gate", "rules"};
    CHECK(closest_match("bench-sumary", commands) == "bench-summary");
    CHECK(closest_match("rulse", commands) == "rules");
    // max(2, |word| / 3) edits at most: a short word gets 2, a 12-letter word 4.
    CHECK(closest_match("hlp", commands) == "help");
    CHECK(closest_match("xyz", commands).empty());
    CHECK(closest_match("bnch-smmry", commands) == "bench-summary");  // 3 edits, limit 3
    CHECK(closest_match("bnch-smmr", commands).empty());              // 4 edits, limit 3
    CHECK(closest_match("anything", {}).empty());
}

TEST_CASE("closest_match keeps the first of equally near candidates", "[text]") {
    CHECK(closest_match("ab", {"ax", "ay"}) == "ax");
    CHECK(closest_match("ab", {"ay", "ax"}) == "ay");
}

TEST_CASE("closest_match compares case-blind only when asked, answering the candidate's spelling",
          "[text]") {
    std::vector<std::string> ids = {"PH001", "mem.over-limit", "P2"};
    CHECK(closest_match("ph0001", ids, {.ignore_case = true}) == "PH001");
    // Case-sensitive, `ph0001` is 3 edits from `PH001` (limit 2).
    CHECK(closest_match("ph0001", ids).empty());
    CHECK(closest_match("MEM.OVER-LIMT", ids, {.ignore_case = true}) == "mem.over-limit");
}

TEST_CASE("closest_match counts a prefix of 3 or more characters as close when asked", "[text]") {
    std::vector<std::string> commands = {"bench-gate", "swimlane-analyze", "swimlane-merge"};
    // `swim` is 10 edits from swimlane-merge: far without the prefix rule, the first prefix
    // match with it.
    CHECK(closest_match("swim", commands).empty());
    CHECK(closest_match("swim", commands, {.prefix_is_close = true}) == "swimlane-analyze");
    // Two characters are no prefix worth suggesting from.
    CHECK(closest_match("sw", {"swimlane-merge"}, {.prefix_is_close = true}).empty());
    // Still the nearer candidate wins over a prefix (distance 0 beats 1).
    CHECK(closest_match("bench", {"bench-gate", "bench"}, {.prefix_is_close = true}) == "bench");
}

}  // namespace text_closest_match_test
