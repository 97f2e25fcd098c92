#pragma once
/// @file model.hpp
/// The typed model of pypto's compiler hint log `report/perf_hints.log`
/// (spec: perf-hints.md §2–§6): one Entry per `[perf_hint CODE] Rule: message[ at f:l:c]`.

#include <cstddef>
#include <optional>
#include <string>

#include "ptune/hints/compact.hpp"

namespace ptune::hints {

/// The ` at file:line:col` suffix of an entry, exactly as printed (the column base is not known
/// from one entry alone; see lint.hpp for the normalisation to 1-based columns).
struct SourceSpan {
    SharedText file;  ///< as stored by the compiler: absolute, relative or `<string>`, `<jit:…>`
    std::size_t line = 0;  ///< 1-based
    long column = -1;  ///< as printed: 0-based bytes before 2026-08-06, 1-based after; -1 unknown

    bool operator==(const SourceSpan&) const = default;
};

/// One hint. Fields are typed values extracted from the message template of the code (names as
/// in the fixtures' `*.expected.json`: `op`, `innermost_bytes`, `dtype`, `rows`, `cause`, …).
struct Entry {
    SharedText code;      ///< `PH001`, `PH-MR-001`, `PH-AT-005`, …; empty when the log omits it
    SharedText rule;      ///< `TileInnermostDimGranularity`, `MemoryReuse`, …
    std::string message;  ///< physical lines joined with `\n`, location suffix removed
    std::optional<SourceSpan> span;  ///< absent for invalid spans (no ` at …` suffix)
    Fields fields;                   ///< packed (compact.hpp): 200,000 hints each hold theirs
    /// PH001 template generation: 1 (no tuple clause), 2 (tuple), 3 (tuple + `moves` clause);
    /// 0 for other codes.
    int ph001_template = 0;
    /// False when the code is known but the message follows none of its templates (fields are
    /// then only what could be read generically).
    bool template_matched = true;
    std::size_t log_line = 0;        ///< 1-based line where the entry starts
    std::size_t physical_lines = 1;  ///< > 1 for multi-line entries (PH-AT-005)
};

/// True for the 10 codes live at pypto HEAD (perf-hints.md §3).
bool is_known_code(std::string_view code);

/// Bits per element of a dtype as the compiler prints it (`bfloat16` 16, `int4` 4, `bool` 1);
/// nullopt for `unknown`, `task_id` or an unlisted name.
std::optional<int> dtype_bits(std::string_view dtype);

}  // namespace ptune::hints
