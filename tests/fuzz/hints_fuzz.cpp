// Fuzz target: perf_hints.log (hints::read_log, streamed) linted against the built-in catalogue
// and rendered in every hints-lint format; with the first byte's low bit set the text is read
// as a baseline file instead (hints::parse_baseline). The second byte forces the column base.

#include <cstdint>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "ptune/hints/lint.hpp"
#include "ptune/hints/render.hpp"
#include "ptune/render/report.hpp"

namespace hints_fuzz {

namespace {

const ptune::rules::Catalogue& builtin_catalogue() {
    static const ptune::rules::Catalogue catalogue = [] {
        auto builtin = ptune::rules::Catalogue::builtin();
        if (!builtin) std::abort();  // the embedded catalogue is part of the build
        return std::move(*builtin);
    }();
    return catalogue;
}

void render_all(const ptune::hints::LintResult& result) {
    ptune::render::Report report;
    report.command = "hints-lint";
    report.data = ptune::hints::to_json(result);
    std::ostringstream sink;
    ptune::render::RenderOptions options;
    ptune::hints::make_gcc_renderer(result)->render(report, sink, options);
    ptune::hints::make_sarif_renderer(result, builtin_catalogue(), true)
        ->render(report, sink, options);
    ptune::hints::make_github_renderer(result)->render(report, sink, options);
    (void)report.data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    (void)ptune::hints::baseline_json(result);
}

}  // namespace

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 2);
    ptune::Diagnostics diagnostics;
    if (input.option(0) & 1) {
        auto baseline = ptune::hints::parse_baseline(input.text(), ".ptune-hints-baseline.json");
        (void)baseline;
        return 0;
    }
    std::optional<int> column_base;
    if (input.option(1) % 3 != 2) column_base = input.option(1) % 3;
    std::istringstream in{std::string(input.text())};
    std::vector<ptune::hints::ParsedLog> logs;
    logs.push_back(
        ptune::hints::read_log(in, "perf_hints.log", diagnostics, column_base, std::nullopt));
    ptune::hints::LintOptions options;
    // Sources are looked up under the root: keep the fuzzer off the real file system.
    options.root = "/nonexistent/ptune-fuzz-root";
    auto result = ptune::hints::lint(std::move(logs), builtin_catalogue(), options, diagnostics);
    ptune::rules::MetricStore store;
    ptune::hints::publish_kernel_metrics(result, store);
    render_all(result);
    return 0;
}

}  // namespace hints_fuzz
