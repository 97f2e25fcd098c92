// Fuzz target: September host logs (upstream-2026-09.md §2): the record splitter and span
// grammar (host::parse_host_log, both from text and streamed), the bench/advise facts and
// their tables; with the first option byte's low bit set the text is read as
// host_phase_records.jsonl (§2.8) instead.

#include <cstdint>
#include <sstream>

#include "fuzz_support.hpp"
#include "ptune/host/facts.hpp"
#include "ptune/host/log.hpp"
#include "ptune/host/phase_records.hpp"

namespace host_log_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 1);
    ptune::Diagnostics diagnostics;
    ptune::host::HostFacts facts;
    if (input.option(0) & 1) {
        std::istringstream in{std::string(input.text())};
        facts.phase_records.push_back(
            {"host_phase_records.jsonl",
             ptune::host::parse_phase_records(in, "host_phase_records.jsonl", diagnostics)});
        (void)ptune::host::summarize_phase_kinds(facts.phase_records.back().passes);
    } else {
        ptune::host::HostLog log = ptune::host::parse_host_log(input.text());
        ptune::host::report_losses(log, "host.1.log", diagnostics);
        for (const auto& span : log.spans) {
            (void)span.identity();
            (void)ptune::host::classify_span(span.name);
            (void)ptune::host::percent_decode(span.name);
        }
        std::istringstream in{std::string(input.text())};
        facts.logs.push_back(ptune::host::read_host_log_facts(in, "host.1.log"));
    }
    ptune::rules::MetricStore store;
    ptune::host::publish(facts, store);
    (void)ptune::host::host_tables(facts);
    return 0;
}

}  // namespace host_log_fuzz
