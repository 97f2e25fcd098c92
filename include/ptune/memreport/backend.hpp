#pragma once
/// @file backend.hpp
/// On-chip capacities per backend (mem-report.md §5, tile-model.md §1) and how a report's
/// backend is recognised: the `Backend:` token, or the printed limits.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ptune::memreport {

/// The two architectures ptune knows: a2a3 (Ascend910B/C, `Backend: 910B`) and a5 (Ascend950).
enum class Backend { A2A3, A5 };
std::string_view to_string(Backend backend);
/// Parses `a2a3` or `a5` (the --backend option).
std::optional<Backend> parse_backend_name(std::string_view name);
/// Maps a report `Backend:` token: 910B, 910B_PTO, 910B_CCE → a2a3; 950 → a5. nullopt for N/A
/// and anything unknown.
std::optional<Backend> backend_from_token(std::string_view token);

/// Vec safe cap since 2026-06-18 (pypto #1804): the top ~8 KB of UB corrupts data.
std::uint64_t vec_safe_cap(Backend backend);
/// Vec limit printed by reports from before 2026-06-18 (the physical UB size).
std::uint64_t vec_legacy_limit(Backend backend);
/// Capacity of a reported space (Vec = the safe cap); nullopt for a space the report never
/// prints.
std::optional<std::uint64_t> capacity(Backend backend, std::string_view space);

/// Infers the backend from one printed limit: Acc 128 KB → a2a3, 256 KB → a5; Vec 184/192 KB →
/// a2a3, 240/248 KB → a5. nullopt when that limit does not tell.
std::optional<Backend> backend_from_limit(std::string_view space, std::uint64_t limit_bytes);

}  // namespace ptune::memreport
