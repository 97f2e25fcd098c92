#pragma once
// Parser of the pypto-lib `[RUN]` bench report lines (bench-log.md §1.1-§1.12) into bench
// blocks of one case. Lines arrive one at a time, already normalised (no `\r`, ANSI codes or
// Actions timestamps); text glued before `[RUN]` is ignored.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "ptune/bench/model.hpp"
#include "ptune/bench/task_slots.hpp"
#include "ptune/core/diagnostics.hpp"
#include "strace.hpp"

namespace ptune::bench {

/// Builds the blocks of one case from its `[RUN]` lines.
class ReportParser {
  public:
    ReportParser(BenchCase& target, std::string source, Diagnostics& diagnostics)
        : case_(target),
          source_(std::move(source)),
          diagnostics_(diagnostics),
          task_slots_(
              [this](std::size_t line, std::string message) { warn(line, std::move(message)); }) {}
    /// Lines fed from now on come from `source` (a case read from several files).
    void set_source(std::string source) { source_ = std::move(source); }
    /// Starts over as if just made for `source` (the target stays): a log of 100,000 small
    /// cases reuses one parser instead of making one per case.
    void reset(const std::string& source);

    /// Feeds one line that contains `[RUN]`. Returns true if it was a bench line.
    bool feed(std::string_view line, std::size_t line_number);
    /// Ends the case: notes that never reached a headline form a block of their own (and are
    /// also the case's notes).
    void finish();
    /// True once any bench report line (headline, rank, raw, context) was seen.
    bool saw_report_lines() const { return saw_report_; }
    /// Loop facts the harness printed (env-knob warnings, a `benchmark ...` stage line).
    const HarnessLoopHints& loop_hints() const { return hints_; }

  private:
    BenchBlock& open_block(std::size_t line_number);
    void close_block() { block_open_ = false; }
    void warn(std::size_t line_number, std::string message);
    bool parse_headline(std::string_view body, bool fast, std::size_t line_number);
    bool parse_rank(std::string_view body, std::size_t line_number);
    /// `rank P raw n=N eff_us=[...]` (`text` from ` raw n=`, `rest` the whole line body).
    bool parse_raw_samples(std::uint64_t pid, std::string_view text, std::string_view rest,
                           std::size_t line_number);
    bool parse_slot(std::string_view body, std::size_t line_number);
    bool parse_raw_header(std::string_view body, std::size_t line_number);
    bool parse_context(std::string_view body, std::size_t line_number);
    void add_note(std::string note, std::size_t line_number);
    void note_loop_hint(std::string_view body);

    BenchCase& case_;
    std::string source_;
    Diagnostics& diagnostics_;
    bool block_open_ = false;
    bool saw_report_ = false;
    /// A rank line repeated within one block was ignored: so are the slot lines under it.
    bool skipping_repeated_rank_ = false;
    std::vector<std::string> pending_notes_;
    std::size_t pending_line_ = 0;
    HarnessLoopHints hints_;
    TaskSlotReader task_slots_;
    /// The last line fed to task_slots_ was one of its forms (it may have left state behind):
    /// lines that cannot be one then still go through it, else they skip it.
    bool task_slot_line_ = false;
    /// Where task slot lines outside a bench block go (they are left out, with a warning).
    TaskSlots outside_slots_;
};

/// Parses `min=a median=b mean=c max=d` (fields separated by any whitespace, in this order);
/// `rest` receives what follows. nullopt on any garbled number.
std::optional<Summary> parse_summary_fields(std::string_view text, std::string_view* rest);

}  // namespace ptune::bench
