// KeptResults (inputs.hpp): what the bench reader loaded, kept for the tables.

#include "kept.hpp"

#include <algorithm>
#include <atomic>

namespace ptune::ciresult {

namespace {

// The KeptResults collecting now. Set before the reading thread starts and reset after it was
// joined, so the reader sees it; the store's lock orders what the reader puts in.
std::atomic<KeptResults*> g_active{nullptr};

// What annotate_gate() and run_records_for_inputs() read of a result: all but the samples
// (and a daily-CI run's manifest and run.log facts, which only its tables show).
void drop_samples(LoadedResult& result) {
    if (auto* run = std::get_if<DailyRun>(&result)) {
        run->manifest.reset();
        for (DailyCase& c : run->cases) {
            c.run_log.reset();
            if (!c.result) continue;
            for (RankTotals& rank : c.result->ranks) std::vector<double>().swap(rank.totals);
        }
        return;
    }
    for (SuiteCase& c : std::get<SuiteResult>(result).cases) {
        for (SuiteRank& rank : c.ranks) std::vector<double>().swap(rank.samples_us);
    }
}

}  // namespace

KeptResults::KeptResults(Keep what) : store_(std::make_unique<Store>()), what_(what) {
    previous_ = g_active.exchange(this);
}

KeptResults::~KeptResults() {
    g_active.store(previous_);
}

void KeptAccess::keep(const std::string& path, LoadedResult result) {
    KeptResults* kept = g_active.load();
    if (kept == nullptr) return;
    if (kept->what_ == KeptResults::Keep::WithoutSamples) drop_samples(result);
    std::lock_guard<std::mutex> lock(kept->store_->mutex);
    kept->store_->results.emplace_back(path, std::move(result));
}

std::optional<LoadedResult> KeptAccess::take(KeptResults& kept, const std::string& path) {
    std::lock_guard<std::mutex> lock(kept.store_->mutex);
    auto& results = kept.store_->results;
    auto at = std::find_if(results.begin(), results.end(),
                           [&](const auto& entry) { return entry.first == path; });
    if (at == results.end()) return std::nullopt;
    LoadedResult result = std::move(at->second);
    results.erase(at);
    return result;
}

}  // namespace ptune::ciresult
