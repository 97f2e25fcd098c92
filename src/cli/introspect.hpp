#pragma once
// Hidden subcommands describing the CLI for the shell completion and the man pages
// (introspect.cpp): they read the same App and command table the help text comes from.

#include <optional>
#include <string_view>

#include "cli/command.hpp"

namespace ptune::cli {

/// Answers `ptune __complete ...` and `ptune __man DIR` from the configured App; nullopt when
/// argv names no hidden command.
std::optional<int> run_hidden(CLI::App& app, int argc, char** argv);

/// True for the names run_hidden answers (they bypass the unknown-command check).
bool is_hidden_command(std::string_view word);

}  // namespace ptune::cli
