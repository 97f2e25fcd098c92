#include "ptune/rules/metrics.hpp"

namespace ptune::rules {

std::optional<double> Subject::metric(std::string_view name) const {
    auto it = metrics.find(name);
    if (it == metrics.end()) return std::nullopt;
    return it->second;
}

Subject& MetricStore::subject(std::string_view kind, std::string_view name) {
    SubjectKey key{std::string(kind), std::string(name)};
    auto it = subjects_.find(key);
    if (it == subjects_.end()) {
        it = subjects_.emplace(key, Subject{}).first;
        it->second.key = key;
    }
    return it->second;
}

void MetricStore::set(std::string_view kind, std::string_view name, std::string metric,
                      double value) {
    subject(kind, name).metrics[std::move(metric)] = value;
}

void MetricStore::merge(const MetricStore& other) {
    for (const auto& [key, source] : other.subjects_) {
        Subject& target = subject(key.kind, key.name);
        for (const auto& [name, value] : source.metrics) target.metrics[name] = value;
        for (const auto& [name, value] : source.labels) target.labels[name] = value;
        target.locations.insert(target.locations.end(), source.locations.begin(),
                                source.locations.end());
    }
}

}  // namespace ptune::rules
