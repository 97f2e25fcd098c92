#pragma once
/// @file pass_dump.hpp
/// Rebuilds the memory table from a pass dump, `passes_dump/NN_after_AllocateMemoryAddr.py`,
/// for builds made after pypto stopped writing the text report (2026-07-28). Both syntaxes:
/// the newer `pl.MemRef(<base>, <offset>, <size>), pl.Mem.<Space>` (mem-report.md §11) and the
/// older `pl.MemRef(pl.MemorySpace.<Space>, <addr>, <size>, <id>)` with `pl.block.alloc(...)`
/// (upstream-2026-09.md §5). The result is the same Report the text parser gives, so the
/// analyzer, the `mem.*` rules, the tile model and advise read it unchanged. The dump is read
/// line by line (one binding per line, as pypto prints it), never held whole.

#include <istream>
#include <string>
#include <string_view>

#include "ptune/core/diagnostics.hpp"
#include "ptune/memreport/backend.hpp"
#include "ptune/memreport/model.hpp"

namespace ptune::memreport {

/// True when `first_line` (the first non-blank line of an input) starts a pass dump
/// (`# pypto.program:`, `import pypto...`, `@pl.program`) rather than a text report.
bool looks_like_pass_dump(std::string_view first_line);

/// Parses a pass dump: per compute function (`@pl.function(type=pl.FunctionType.InCore|AIC|
/// AIV)`) and space, Used = max(offset + size), MemRefs (old syntax: distinct ids; newer: tile
/// bindings), and one Buffer per base allocation with its live range = the first and last dump
/// line that uses a tile of it. Limits are left `N/A` until apply_dump_backend(). Damage (an
/// unparsable MemRef, a dump that stops inside a function) is reported with the dump's line;
/// what parsed is kept. A dump written before address assignment sets Report::refusal.
Report parse_pass_dump(std::istream& in, const std::string& source, Diagnostics& diagnostics);
/// Parses a pass dump held in memory.
Report parse_pass_dump(std::string_view text, const std::string& source, Diagnostics& diagnostics);

/// Fills the limits of a dump's table from `backend` (March-2026 old-syntax dumps get the Vec
/// limit of their era, 192 KB / 248 KB) and records how the backend was chosen (`how`: option,
/// ptoas, compiled_meta, assumed). Buffers that end past their space's limit are reported with
/// the dump line; the table is kept (usage above 100 % then fires the over-limit rules).
void apply_dump_backend(Report& report, Backend backend, const std::string& how,
                        Diagnostics& diagnostics);

}  // namespace ptune::memreport
