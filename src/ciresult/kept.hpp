#pragma once
// Private to ciresult: the store behind KeptResults (inputs.hpp), filled by the bench reader
// (reader.cpp) and emptied by tables_for_inputs() (tables.cpp).

#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ptune/ciresult/inputs.hpp"

namespace ptune::ciresult {

/// A daily-CI run or a suite result, as loaded.
using LoadedResult = std::variant<DailyRun, SuiteResult>;

struct KeptResults::Store {
    std::mutex mutex;
    std::vector<std::pair<std::string, LoadedResult>> results;  ///< by input path, load order
};

class KeptAccess {
  public:
    /// Puts `result` of `path` into the KeptResults collecting now (none: dropped).
    static void keep(const std::string& path, LoadedResult result);
    /// The first result kept for `path`, taken out of `kept`; nullopt when none is.
    static std::optional<LoadedResult> take(KeptResults& kept, const std::string& path);
};

}  // namespace ptune::ciresult
