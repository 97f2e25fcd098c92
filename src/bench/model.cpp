// The small behaviours of the bench model: origin names and the CI block of a case.

#include "ptune/bench/model.hpp"

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
    }
    return "report";
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

}  // namespace ptune::bench
