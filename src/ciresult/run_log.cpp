// run.log lines new since bench-log.md (upstream-2026-12.md §1.7): task-timing slots and the
// seed sentinels.

#include "ptune/ciresult/run_log.hpp"

#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"

namespace ptune::ciresult {

RunLogFacts parse_run_log(std::istream& in, const std::string& source, Diagnostics& diagnostics) {
    RunLogFacts facts;
    bench::TaskSlotReader slots([&](std::size_t line, std::string message) {
        diagnostics.warn(source, line, std::move(message));
    });
    io::LineReader reader(in);
    std::string_view raw_line;
    while (reader.next(raw_line)) {
        const std::string clean =
            text::has_ansi(raw_line) ? text::strip_ansi(raw_line) : std::string(raw_line);
        std::string_view line = text::trim(clean);
        for (std::string_view tag :
             {"[PERF] deterministic_seed ", "[RUN] fixture seed=", "[VALIDATION] mode="}) {
            if (line.starts_with(tag)) {
                facts.sentinels.emplace_back(line);
                break;
            }
        }
        // Any other line ends a slot's raw list.
        slots.feed(line.starts_with("[RUN]") ? text::trim(line.substr(5)) : std::string_view(),
                   reader.line_number(), facts.task_slots);
    }
    slots.check(facts.task_slots);
    return facts;
}

}  // namespace ptune::ciresult
