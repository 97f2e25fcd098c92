#pragma once
/// @file text_match.hpp
/// "Did you mean": the one nearest-name helper behind every suggestion ptune prints (unknown
/// subcommand, unknown option, unknown rule id). Part of the core text utilities (text.hpp).

#include <string>
#include <string_view>
#include <vector>

namespace ptune::text {

/// How closest_match() compares.
struct MatchOptions {
    bool ignore_case = false;  ///< compare ASCII-lowercased (rule ids: `ph001` finds `PH001`)
    /// A candidate that starts with `word` (of 3 characters or more) counts as distance 1: a
    /// command typed short (`bench-sum`) is close to its full name however much is missing.
    bool prefix_is_close = false;
};

/// "Did you mean": the candidate nearest to `word` by text::edit_distance, the first one on a tie,
/// returned as the candidate spells it; empty when the nearest is further than a typo
/// (max(2, |word| / 3) edits) or there are no candidates.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates,
                          MatchOptions options = {});

}  // namespace ptune::text
