#pragma once
/// @file version.hpp
/// The ptune version and the schema version every JSON output carries.

#include <string_view>

namespace ptune {

/// The ptune release, e.g. "0.1.0" (from the CMake project version).
std::string_view version();

/// Version of the JSON output schemas; bumped when a field changes meaning or disappears.
inline constexpr int kSchemaVersion = 1;

}  // namespace ptune
