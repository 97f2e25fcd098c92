// PrettyJson (render/pretty_json.hpp) writes numbers as nlohmann's dump does: the direct
// writers (mem-report, hints-lint, bench-summary --format json) are byte-compared with DOMs on
// their fixtures, which hold few kinds of double; here every kind.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "ptune/render/pretty_json.hpp"

namespace render_pretty_json_test {

using ptune::render::PrettyJson;

namespace {

std::string written(double value) {
    std::string out;
    PrettyJson json(out, 0);
    json.number(value);
    return out;
}

}  // namespace

TEST_CASE("PrettyJson writes doubles as nlohmann's dump does", "[render][json]") {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const double special[] = {0.0,
                              -0.0,
                              1.0,
                              -1.0,
                              2.0,
                              0.1,
                              1e-7,
                              1e21,
                              1e22,
                              123456789012345680.0,
                              1.5e300,
                              -2.5e-300,
                              std::numeric_limits<double>::min(),
                              std::numeric_limits<double>::denorm_min(),
                              std::numeric_limits<double>::max(),
                              std::numeric_limits<double>::lowest(),
                              std::numeric_limits<double>::quiet_NaN(),
                              kInf,
                              -kInf};
    for (double value : special) {
        INFO(value);
        CHECK(written(value) == nlohmann::json(value).dump());
    }
    CHECK(written(std::nan("")) == "null");
    // Any bit pattern, and the values a report prints (tenths, microseconds).
    std::mt19937_64 random(20261207);
    for (int i = 0; i < 20000; ++i) {
        std::uint64_t bits = random();
        double value = 0;
        std::memcpy(&value, &bits, sizeof value);
        const double tenth = static_cast<double>(random() % 10000000) / 10.0;
        INFO(bits);
        REQUIRE(written(value) == nlohmann::json(value).dump());
        REQUIRE(written(tenth) == nlohmann::json(tenth).dump());
    }
}

TEST_CASE("PrettyJson writes an optional double as the number or null", "[render][json]") {
    std::string out;
    PrettyJson json(out, 0);
    json.begin_array();
    for (std::optional<double> value : {std::optional<double>(2.5), std::optional<double>()}) {
        json.element();
        json.number_or_null(value);
    }
    json.end_array();
    CHECK(out == "[\n  2.5,\n  null\n]");
}

}  // namespace render_pretty_json_test
