#pragma once
// Hidden subcommands describing the CLI for the shell completion and the man pages
// (introspect.cpp): they read the same App and command table the help text comes from.

#include <cstddef>
#include <optional>
#include <string_view>

#include "cli/command.hpp"

namespace ptune::cli {

/// Answers `ptune __complete ...` and `ptune __man DIR` from the configured App; nullopt when
/// argv names no hidden command.
std::optional<int> run_hidden(CLI::App& app, int argc, char** argv);

/// True for the names run_hidden answers (they bypass the unknown-command check).
bool is_hidden_command(std::string_view word);

/// Columns a note or diagnostic on stderr wraps at (src/cli/app.cpp): term::output_width of
/// stderr when $COLUMNS is set or stderr is a terminal, else 0 (a file or pipe keeps each note
/// on one line for grep).
std::size_t stderr_note_width();

}  // namespace ptune::cli
