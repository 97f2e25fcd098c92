#pragma once
/// @file found_files.hpp
/// Files that discovery finds by itself (a side file beside a capture, a log in a directory)
/// may be FIFOs, devices or sockets: they are never opened (a FIFO blocks the open, /dev/zero
/// never ends) and never taken for missing either. docs/RELIABILITY.md, "Every path each
/// command opens", says per command which found files are an error and which a warning.

#include <filesystem>
#include <string_view>

#include "ptune/core/diagnostics.hpp"

namespace ptune::io {

/// Whether `path` exists (symlinks followed) and is neither a regular file nor a directory: a
/// FIFO, a character or block device, a socket. False for a missing path, never throws.
bool is_special_file(const std::filesystem::path& path);

/// Discovery's check of an optional side file: true when `path` is a regular file to read.
/// A special file (is_special_file) is named in a warning, `path: warning: is a FIFO (named
/// pipe), expected a regular file; <consequence>`, and false is returned; a missing path or a
/// directory is false in silence.
bool usable_side_file(const std::filesystem::path& path, Diagnostics& diagnostics,
                      std::string_view consequence);

}  // namespace ptune::io
