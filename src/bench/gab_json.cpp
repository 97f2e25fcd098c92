// github-action-benchmark's customSmallerIsBetter array (gab_json.hpp).

#include "ptune/bench/gab_json.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/json_document.hpp"
#include "ptune/core/stats.hpp"

namespace ptune::bench {

void GabJsonWriter::add(const GabBench& bench) {
    const std::string baseline =
        bench.baseline_us ? stats::format_fixed(*bench.baseline_us, 1) : std::string("-");
    const std::string delta =
        bench.delta_pct ? stats::format_signed_percent(*bench.delta_pct) : std::string("-");
    const nlohmann::json entry = {{"name", bench.name},
                                  {"unit", "us"},
                                  {"value", bench.value_us},
                                  {"extra", fmt::format("verdict: {}; baseline: {}; delta: {}",
                                                        bench.verdict, baseline, delta)}};
    const std::string text = json_document::dump(entry, 2);
    out_ << (first_ ? "[\n  " : ",\n  ");
    first_ = false;
    std::size_t from = 0;
    for (std::size_t eol; (eol = text.find('\n', from)) != std::string::npos; from = eol + 1) {
        out_.write(text.data() + from, static_cast<std::streamsize>(eol + 1 - from));
        out_ << "  ";
    }
    out_.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

void GabJsonWriter::finish() {
    out_ << (first_ ? "[]\n" : "\n]\n");
}

}  // namespace ptune::bench
