#pragma once
// The history schema and its migrations, shared by both backends (docs/HISTORY.md, "Schema").

#include <string>
#include <vector>

#include "sql.hpp"

namespace ptune::history::schema {

/// `PRAGMA application_id` of a ptune history SQLite file ("ptun").
inline constexpr long long kApplicationId = 0x7074756e;

/// The statements that take a database from `version - 1` to `version` (1 = create), in the
/// dialect of the connection. Empty for a version this build does not know.
std::vector<std::string> migration(int version, sql::Dialect dialect);

}  // namespace ptune::history::schema
