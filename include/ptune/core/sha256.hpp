#pragma once
/// @file sha256.hpp
/// SHA-256 (FIPS 180-4) of a byte string, for the digests upstream writes as identity keys
/// (the operator suite's `case_contract`, upstream-2026-12.md §2.6).

#include <string>
#include <string_view>

namespace ptune::sha256 {

/// The digest of `bytes` as 64 lowercase hex digits (Python's `hashlib.sha256(b).hexdigest()`).
std::string hex(std::string_view bytes);

}  // namespace ptune::sha256
