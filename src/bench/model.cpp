// The small behaviours of the bench model: origin names and the CI block of a case.

#include "ptune/bench/model.hpp"

#include <charconv>

#include <fmt/format.h>

#include <utility>

namespace ptune::bench {

const char* to_string(Origin origin) {
    switch (origin) {
        case Origin::Report:
            return "report";
        case Origin::Strace:
            return "strace";
        case Origin::ResultsTsv:
            return "results.tsv";
        case Origin::Json:
            return "json";
        case Origin::DeviceLog:
            return "device-log";
        case Origin::CiResult:
            return "ci-result";
    }
    return "report";
}

std::string to_string(const SourceRef& source) {
    if (source.line == 0) return source.file;
    // `file:line`, made once per case of a sweep: no format string to parse.
    char digits[24];
    const char* end = std::to_chars(digits, digits + sizeof digits, source.line).ptr;
    std::string text;
    text.reserve(source.file.size() + 1 + static_cast<std::size_t>(end - digits));
    text += source.file;
    text += ':';
    text.append(digits, static_cast<std::size_t>(end - digits));
    return text;
}

const char* to_string(FactSource source) {
    switch (source) {
        case FactSource::Flag:
            return "flag";
        case FactSource::Log:
            return "log";
        case FactSource::Inferred:
            return "inferred";
        case FactSource::Default:
            return "default";
        case FactSource::Assumed:
            return "assumed";
    }
    return "default";
}

namespace {

template <class T>
std::string describe_fact(std::string value, const LoopFact<T>& fact) {
    switch (fact.source) {
        case FactSource::Flag:
            return fmt::format("{} (flag{}{})", value, fact.why.empty() ? "" : "; ", fact.why);
        case FactSource::Log:
            return fmt::format("{} (from the log: {})", value, fact.why);
        case FactSource::Inferred:
            return fmt::format("{} (inferred: {})", value, fact.why);
        case FactSource::Default:
            return fmt::format("{} (ASSUMED default: {})", value, fact.why);
        case FactSource::Assumed:
            return fmt::format("{} (ASSUMED: {})", value, fact.why);
    }
    return value;
}

}  // namespace

std::string LoopFacts::describe() const {
    std::string text = describe_fact(distributed.value ? "L3" : "L2", distributed);
    if (distributed.value)
        text += ", " + describe_fact(resident.value ? "resident" : "not resident", resident);
    text += ", " + describe_fact(fmt::format("warmup {}", warmup.value), warmup);
    text += ", " + describe_fact(fmt::format("rounds {}", rounds.value), rounds);
    return text;
}

const BenchBlock* BenchCase::ci_block() const {
    // Daily CI greps the last `effective_us ... mean=` line of a case's output (bench-log.md
    // §5.1): an `unavailable` headline after a numeric one does not hide that number.
    const BenchBlock* last_unavailable = nullptr;
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
        if (it->effective_us) return &*it;
        if (it->unavailable && last_unavailable == nullptr) last_unavailable = &*it;
    }
    return last_unavailable;
}

std::optional<double> BenchCase::ci_mean() const {
    const BenchBlock* block = ci_block();
    if (block == nullptr || !block->effective_us) return std::nullopt;
    return block->effective_us->mean;
}

namespace {

std::vector<std::pair<std::string, InputReader>>& input_readers() {
    static std::vector<std::pair<std::string, InputReader>> readers;
    return readers;
}

}  // namespace

void register_input_reader(const std::string& name, InputReader reader) {
    for (auto& [known, existing] : input_readers()) {
        if (known == name) {
            existing = std::move(reader);
            return;
        }
    }
    input_readers().emplace_back(name, std::move(reader));
}

std::optional<Status> read_registered_input(const std::string& path, Diagnostics& diagnostics,
                                            const CaseSink& sink) {
    for (const auto& [name, reader] : input_readers()) {
        if (auto status = reader(path, diagnostics, sink)) return status;
    }
    return std::nullopt;
}

}  // namespace ptune::bench
