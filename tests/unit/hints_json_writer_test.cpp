// `hints-lint --format json` writes each diagnostic as text (render::PrettyJson): the bytes must
// be those of the standard JSON renderer over to_json(), on every fixture log, with suppressed
// and baselined hints; and PrettyJson must lay out any value as nlohmann's dump(2).

#include <filesystem>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "hints_test_data.hpp"
#include "ptune/core/io.hpp"
#include "ptune/hints/lint.hpp"
#include "ptune/hints/pipeline.hpp"
#include "ptune/hints/render.hpp"
#include "ptune/render/pretty_json.hpp"
#include "ptune/render/report.hpp"

namespace hints_json_writer_test {

using namespace ptune;
using nlohmann::json;

namespace {

std::string standard_json(const hints::LintResult& result) {
    render::Report report;
    report.command = "hints-lint";
    report.include_findings_in_json = false;
    report.data = hints::to_json(result);
    std::ostringstream out;
    render::make_standard_renderer("json")->render(report, out, {false, 100});
    return out.str();
}

std::string streamed_json(const hints::LintResult& result) {
    render::Report report;
    report.command = "hints-lint";
    report.include_findings_in_json = false;
    std::ostringstream out;
    hints::make_json_renderer(result)->render(report, out, {false, 100});
    return out.str();
}

}  // namespace

TEST_CASE("the streamed hints JSON equals the standard renderer on every fixture",
          "[hints][json]") {
    std::size_t logs = 0;
    for (const auto& entry : std::filesystem::directory_iterator(hints_test::data_path(""))) {
        if (entry.path().string().find(".perf_hints.log") == std::string::npos) continue;
        Diagnostics diagnostics;
        auto parsed = hints::read_logs({entry.path().string()}, {}, diagnostics);
        auto result = hints::lint(std::move(parsed), hints_test::catalogue(), {}, diagnostics);
        INFO(entry.path());
        CHECK(streamed_json(result) == standard_json(result));
        if (!result.diagnostics.empty()) {
            // Every disposition: one suppressed, the rest baselined.
            result.diagnostics.front().disposition = hints::Disposition::Suppressed;
            result.diagnostics.front().suppressed_by = "k.py:3";
            hints::adopt_as_baseline(result);
            CHECK(streamed_json(result) == standard_json(result));
        }
        ++logs;
    }
    CHECK(logs >= 5);
}

TEST_CASE("PrettyJson lays out any value as nlohmann's dump(2)", "[hints][json]") {
    json value = {{"empty_object", json::object()},
                  {"empty_array", json::array()},
                  {"nested", {{"a", json::array({1, -2, 3.5, "x\ty", nullptr, true})}}},
                  {"bad utf8", "caf\xc3\xa9 \xff"},
                  {"big", std::numeric_limits<std::uint64_t>::max()},
                  {"whole", 2.0}};
    for (std::size_t indent : {0, 6}) {
        std::string text;
        render::PrettyJson(text, indent).value(value);
        std::string expected;
        for (char c : value.dump(2, ' ', false, json::error_handler_t::replace)) {
            expected += c;
            if (c == '\n') expected.append(indent, ' ');
        }
        CHECK(text == expected);
    }
}

}  // namespace hints_json_writer_test
