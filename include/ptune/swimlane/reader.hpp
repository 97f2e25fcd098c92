#pragma once
/// @file reader.hpp
/// Readers for the swimlane capture files: records (every generation) and deps.json (kernel names:
/// ptune/core/kernel_names.hpp). They take text or a stream plus a source name (never a path), walk
/// the JSON once with a streaming tokenizer (no DOM of the capture), report bad input to
/// Diagnostics with file and line, and keep what parsed before any damage.

#include <cstdint>
#include <functional>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/core/kernel_names.hpp"
#include "ptune/swimlane/containment.hpp"
#include "ptune/swimlane/model.hpp"

namespace ptune::swimlane {

namespace records {
class PhaseReadAhead;
}

/// The phase objects of a records file read ahead on a second thread while read_capture streams
/// the same file, which then takes a record read ahead wherever its bytes are the ones it reads
/// (the record is the same) and reads the rest itself. `run()` on the second thread; read_capture
/// calls `finish()` when its walk ends. For a file that stays put: a file that changes meanwhile
/// is only read more slowly.
class RecordsReadAhead {
  public:
    /// Reads up to `n` bytes at `offset` of the records file into `into`; how many it read.
    using ReadAt = std::function<std::size_t(std::uint64_t offset, char* into, std::size_t n)>;
    /// `size`: the file's.
    RecordsReadAhead(ReadAt read_at, std::uint64_t size);
    ~RecordsReadAhead();
    RecordsReadAhead(const RecordsReadAhead&) = delete;
    RecordsReadAhead& operator=(const RecordsReadAhead&) = delete;

    /// Reads ahead of the walk until finish() or the end of the file (the second thread).
    void run();
    /// Stops run() (waiting for it to return) and frees its memory; idempotent.
    void finish();
    /// (read_capture) The walk's side.
    records::PhaseReadAhead& walk_side() { return *impl_; }

  private:
    std::unique_ptr<records::PhaseReadAhead> impl_;
};

/// How to read a records file.
struct ReadOptions {
    std::string source_name;  ///< file name used in messages and provenance
    /// Clock frequency for files that lack `metadata.clock_freq_hz` (never overrides the file).
    std::optional<std::uint64_t> fallback_freq_hz;
    /// Host logs and sidecar for clock alignment by span containment (upstream-2026-09.md
    /// §1.12); null when the caller found none: a capture that needs an alignment then gets
    /// `unavailable` ("no Host log available") unless it has a valid saved record.
    const HostAlignmentInput* host_alignment = nullptr;
    /// When set, receives the capture's extent and whether it is a host_build_graph host
    /// capture (multi-rank pairing, upstream-2026-09.md §1.14).
    CaptureAlignmentFacts* alignment_facts = nullptr;
    /// Phase objects read ahead on a second thread (streamed reads only); finished by the read.
    RecordsReadAhead* read_ahead = nullptr;
};

/// Reads a records file of any generation (swimlane.md §2, §2.8, §2.9), recognised by shape:
/// `tasks[]` µs files, raw `aicore_tasks` with 5/6/7 columns joined with `aicpu_tasks` or
/// `scheduler_tasks` on (run_epoch, core_id, reg_task_id), scheduler phases (per-thread arrays or
/// `scheduler_records` streams), orchestrator phases. Unknown sections are ignored.
/// Fails only when nothing usable remains (not JSON at all, no task rows and no phases, or a raw
/// capture without a clock frequency); a truncated file yields what parsed before the damage with
/// `Capture::truncated` set. Dropped rows are counted in `Capture::dropped` and summarised in
/// `diagnostics`.
Result<Capture> read_capture(std::string_view records_json, const ReadOptions& options,
                             Diagnostics& diagnostics);
/// The same, streaming the records from `records_json` in fixed-size chunks, so the text of a
/// large capture is never held in memory.
Result<Capture> read_capture(std::istream& records_json, const ReadOptions& options,
                             Diagnostics& diagnostics);

/// Reads deps.json in one pass: kernel ids, block_num and the deduplicated edge list. Ids may be
/// strings (current writer) or numbers. A truncated file keeps the tasks and edges before the
/// damage (with a warning); fails when the text is not a deps file at all (no `edges` list).
Result<Deps> read_deps(std::string_view deps_json, std::string_view source_name,
                       Diagnostics& diagnostics);
/// The same, streaming deps.json from `deps_json` in fixed-size chunks.
Result<Deps> read_deps(std::istream& deps_json, std::string_view source_name,
                       Diagnostics& diagnostics);

/// Applies deps.json to the rows as the converter does (§6.3 step 2): a row with func_id < 0 gets
/// `kernel_ids[0]` on an AIC core, else the first active of `kernel_ids[1..2]`; block_num is
/// copied. Rows whose task id is not in deps keep func_id −1 and block_num 0. Returns how many
/// distinct task ids with rows were missing from deps.
std::size_t apply_deps(Capture& capture, const Deps& deps);

/// The converter's kernel label without the task suffix: the known name, `func_<n>_<letters>`
/// (bijective base-26 of n) or "task" for func_id < 0 (swimlane.md §5.3).
std::string kernel_base_name(std::int32_t func_id, const KernelNames* names);

}  // namespace ptune::swimlane
