// Compact hint storage (compact.hpp): packed fields give back the exact JSON object (the same
// dump, so every output format stays byte-identical), shared texts share.

#include <catch2/catch.hpp>

#include "ptune/core/diagnostics.hpp"
#include "ptune/hints/compact.hpp"
#include "ptune/hints/parser.hpp"

namespace hints_compact_test {

using namespace ptune;
using namespace ptune::hints;
using nlohmann::json;

TEST_CASE("packed fields round-trip every JSON type byte for byte", "[hints][compact]") {
    json object = {{"op", "tile.load"},
                   {"innermost_bytes", 128},
                   {"negative", -5},
                   {"big", std::numeric_limits<std::int64_t>::min()},
                   {"unsigned", std::numeric_limits<std::uint64_t>::max()},
                   {"ratio", 0.1},
                   {"whole", 2.0},
                   {"multiline", true},
                   {"no", false},
                   {"reserved_bytes", nullptr},
                   {"tile", json::array({16, 16, 32})},
                   {"nested", {{"a", "b"}}},
                   {"an unknown name that is long", "é \"quoted\"\n"}};
    Fields fields(object);
    CHECK(fields.json() == object);
    CHECK(fields.json().dump() == object.dump());
    CHECK(fields.json()["unsigned"].is_number_unsigned());
    CHECK(fields.json()["whole"].is_number_float());
    CHECK(fields.contains("tile"));
    CHECK_FALSE(fields.contains("rows"));
    CHECK(fields.number("innermost_bytes") == 128);
    CHECK(fields.number("negative") == -5);
    CHECK(fields.number("ratio") == 0.1);
    CHECK_FALSE(fields.number("op"));
    CHECK(fields.string("op") == "tile.load");
    CHECK_FALSE(fields.string("innermost_bytes"));
    CHECK_FALSE(fields.string("absent"));
    std::vector<std::string> keys;
    fields.for_each([&](std::string_view key, const json&) { keys.emplace_back(key); });
    CHECK(keys.size() == object.size());
    CHECK(std::is_sorted(keys.begin(), keys.end()));
    CHECK(Fields().json() == json::object());
    CHECK(Fields(json::array({1})).empty());
}

TEST_CASE("a parsed PH001 keeps its twelve fields packed", "[hints][compact]") {
    Diagnostics diagnostics;
    auto entries = parse_log_text(
        "[perf_hint PH001] TileInnermostDimGranularity: tile.load has innermost dim = 128B (tile "
        "bfloat16[64], target_memory=Vec); moves 2048B as 16 x 128B rows; recommended >= 512B for "
        "backend a2a3 (L2 cache line = 512B). Consider increasing tile shape on the innermost "
        "axis. (2 occurrences at this source location) at /repo/k.py:20:9\n",
        "perf_hints.log", diagnostics);
    REQUIRE(entries.size() == 1);
    json object = entries[0].fields.json();
    CHECK(object.size() == 12);
    CHECK(object["transfer_bytes"] == 2048);
    CHECK(Fields(object) == entries[0].fields);
    CHECK(object.dump() == entries[0].fields.json().dump());
}

TEST_CASE("a text pool hands out one shared copy per value", "[hints][compact]") {
    TextPool pool;
    SharedText a = pool.get("hints.PH001");
    SharedText b = pool.get(std::string("hints.PH001"));
    CHECK(&a.str() == &b.str());
    CHECK(a == "hints.PH001");
    CHECK(pool.get("other") != a);
    CHECK(SharedText().empty());
    CHECK(SharedText("x").size() == 1);
    CHECK(fmt::format("[{}]", a) == "[hints.PH001]");
}

}  // namespace hints_compact_test
