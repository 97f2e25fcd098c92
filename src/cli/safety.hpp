#pragma once
// Checks every command gets from the CLI layer before it runs (docs/RELIABILITY.md): numeric
// options must be finite, and the command's outputs must not be its inputs.

#include <CLI/CLI.hpp>

#include "cli/command.hpp"
#include "ptune/core/error.hpp"

namespace ptune::cli {

/// Adds a finite-number check to every floating-point option of `app` (CLI11 parses "nan" and
/// "inf" as doubles and its range validators let NaN through), and a sign check to every
/// unsigned one (strtoull reads "-1" as 2^64-1).
void add_number_checks(CLI::App& app);

/// A finite number >= 0 (CLI11's NonNegativeNumber prints its range up to DBL_MAX in full when
/// given -inf); --help shows NONNEGATIVE as before.
const CLI::Validator& non_negative_number();
/// A finite number > 0; --help shows POSITIVE.
const CLI::Validator& positive_number();

/// The output-safety rule, before anything is read: the outputs of the parsed subcommand (-o,
/// --save-baseline, --write-baseline) never share a file and are never a file named by another
/// argument (NAME=PATH labels included); then those outputs are protected so that a file found
/// inside an input directory is not read when it is an output (io::protect_outputs).
Status check_output_safety(const CLI::App& sub, const CommonOptions& options);

}  // namespace ptune::cli
