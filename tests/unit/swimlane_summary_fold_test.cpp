// fold_summary: swimlane-merge's converter summary at the output width (issue #23). Upstream's
// wording and numbers are kept; rule lines and the lines perf_guard parses stay whole.

#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "ptune/core/terminal.hpp"
#include "ptune/swimlane/summary.hpp"

namespace swimlane_summary_fold_test {

namespace {

// The shape of format_summary's text (default.stdout of the golden CLI case).
const std::string kSummary =
    std::string(140, '=') +
    "\nTask Statistics by Function\n"
    "  Source chip_swimlane_level: 4 (full collection with orchestrator phases; recorded in "
    "chip_swimlane_records.json)\n" +
    std::string(140, '=') +
    "\nFunc_ID  Func_Name    Count   Avg Exec(us)  Avg Latency(us)   Exec%   Avg Head OH(us)  "
    "Avg Tail OH(us)  Avg Prop(us)  Avg Local(us)\n" +
    std::string(140, '-') +
    "\n0        QK               2          10.00            11.20   89.3%              0.80    "
    "         0.40          0.60           0.20\n" +
    std::string(140, '-') +
    "\nTOTAL                    10          94.40           105.60\n\n"
    "Total Test Time: 60.90 us (from earliest dispatch to latest finish)\n";

std::string without_layout(const std::string& text) {
    std::string words;
    std::istringstream in(text);
    for (std::string word; in >> word;) words += word + ' ';
    return words;
}

}  // namespace

TEST_CASE("the converter summary folds to the width, keeping every word", "[swimlane]") {
    using ptune::swimlane::fold_summary;
    CHECK(fold_summary(kSummary, 0) == kSummary);
    CHECK(fold_summary(kSummary, 200) == kSummary);
    for (std::size_t width : {100u, 60u, 40u}) {
        CAPTURE(width);
        std::string folded = fold_summary(kSummary, width);
        CHECK(without_layout(folded) == without_layout(kSummary));
        std::istringstream in(folded);
        for (std::string line; std::getline(in, line);) {
            bool one_token = line.find(' ', line.find_first_not_of(' ')) == std::string::npos;
            bool parsed = line.rfind("TOTAL ", 0) == 0 || line.rfind("Total Test Time:", 0) == 0;
            CHECK((ptune::term::display_width(line) <= width || one_token || parsed));
        }
        // perf_guard's regexes read these lines whole.
        CHECK(folded.find("\nTOTAL                    10          94.40           105.60\n") !=
              std::string::npos);
        CHECK(folded.find("\nTotal Test Time: 60.90 us (from earliest dispatch to latest "
                          "finish)\n") != std::string::npos);
    }
    // The rule under the table header stays right under the header's lines.
    std::string folded = fold_summary(kSummary, 100);
    CHECK(folded.find("Avg Head OH(us)\n     Avg Tail OH(us)  Avg Prop(us)  Avg Local(us)\n---") !=
          std::string::npos);
}

}  // namespace swimlane_summary_fold_test
