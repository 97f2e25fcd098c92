#pragma once
/// @file terminal.hpp
/// Terminal hygiene in one place: colour decisions (NO_COLOR, CLICOLOR_FORCE, FORCE_COLOR, TTY,
/// TERM=dumb), the width text output must fit and the helpers that make it fit (wrapping,
/// left-elided paths), and a progress line that only ever appears on an interactive stderr.
///
/// Every text renderer lays its lines out with these helpers (see docs/DEVELOPING.md, "Text
/// output width"): no text line is wider than output_width() unless it is a single token that
/// cannot be broken.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ptune::term {

enum class ColorMode { Auto, Always, Never };

/// Parses "auto" / "always" / "never".
bool parse_color_mode(std::string_view text, ColorMode& mode);

/// Decides whether output to `fd` gets ANSI colour under `mode` and the environment.
bool use_color(ColorMode mode, int fd);

/// Wraps text in an SGR colour when `enabled` (e.g. code "31" red, "33" yellow, "1" bold).
std::string paint(std::string_view text, std::string_view sgr_code, bool enabled);

/// Width text output is laid out for when nothing says otherwise (not a terminal, no COLUMNS).
inline constexpr std::size_t kDefaultWidth = 100;

/// The width text written to `fd` must fit, as ninja's line printer decides it: $COLUMNS when it
/// is a positive number, else the terminal's width when `fd` is a TTY, else kDefaultWidth (also
/// for files: pass -1). Never less than 20.
std::size_t output_width(int fd);

/// Columns `text` takes on a terminal: UTF-8 code points, ANSI escape sequences not counted.
std::size_t display_width(std::string_view text);

/// `text` cut to at most `width` columns by dropping its beginning, the way a path is best
/// shortened: `…/tail/of/the/path` (cut at a '/' when the rest fits, else inside a component).
/// Returns `text` unchanged when it fits.
std::string elide_left(std::string_view text, std::size_t width);

/// Greedy word wrap of `text` to lines of at most `width` columns; '\n' in the text starts a new
/// line. A word longer than `width` stays whole on its own line: an id, a rule or a number is
/// never split (a table cell too narrow for it overflows instead).
std::vector<std::string> wrap(std::string_view text, std::size_t width);

/// `first` followed by `text` wrapped to `width` columns, continuation lines indented by `indent`
/// spaces: a hanging paragraph such as `    advice: ...` or a finding's message under its rule.
/// Returns the lines joined with '\n' and no trailing newline. `width` 0 means no limit.
std::string hang(std::string_view first, std::string_view text, std::size_t width,
                 std::size_t indent);

/// `line` broken at blanks into lines of at most `width` columns, keeping every blank inside a
/// piece (fixed-layout text such as the converter summary, where wrap() would collapse runs of
/// blanks). Continuation lines are indented by the line's own indentation plus `indent`. A token
/// longer than the room stays whole. Returns the pieces joined with '\n'; `width` 0: unchanged.
std::string fold_line(std::string_view line, std::size_t width, std::size_t indent);

/// The lines of a fixed-width table (columns aligned with blanks) folded to `width`: every line
/// is cut at the same column, the rightmost one within the room where each line has a blank (or
/// has ended), and continues on the next line indented by `indent`, its own blanks kept, so the
/// continued columns stay under their header. Without such a column each line is folded on its
/// own (fold_line). Returns one string per line, its pieces joined with '\n' (as fold_line).
std::vector<std::string> fold_table(const std::vector<std::string>& lines, std::size_t width,
                                    std::size_t indent);

/// A single overprinted progress line on stderr, shown only when stderr is a TTY, TERM is not
/// dumb, CI is unset and the user did not ask for quiet. Cheap to call often.
class Progress {
  public:
    Progress(std::string label, std::size_t total_bytes, bool quiet);
    ~Progress();
    void update(std::size_t done_bytes);
    void finish();

  private:
    std::string label_;
    std::size_t total_;
    bool enabled_;
    int last_percent_ = -1;
    double started_;
    bool shown_ = false;
};

}  // namespace ptune::term
