#pragma once
/// @file terminal.hpp
/// Terminal hygiene in one place: colour decisions (NO_COLOR, CLICOLOR_FORCE, FORCE_COLOR, TTY,
/// TERM=dumb) and a progress line that only ever appears on an interactive stderr.

#include <cstddef>
#include <string>
#include <string_view>

namespace ptune::term {

enum class ColorMode { Auto, Always, Never };

/// Parses "auto" / "always" / "never".
bool parse_color_mode(std::string_view text, ColorMode& mode);

/// Decides whether output to `fd` gets ANSI colour under `mode` and the environment.
bool use_color(ColorMode mode, int fd);

/// Wraps text in an SGR colour when `enabled` (e.g. code "31" red, "33" yellow, "1" bold).
std::string paint(std::string_view text, std::string_view sgr_code, bool enabled);

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
