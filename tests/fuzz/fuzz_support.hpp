#pragma once
// Helpers shared by the fuzz targets: reading option bits off the front of an input, and a
// private scratch file for the parsers that are only reachable through a path (the bench
// loader picks its parser by file extension).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ptune::fuzz {

/// The fuzz input as text, with a few leading bytes available as option bits so that one
/// target explores a parser's options too. Inputs shorter than the option prefix keep their
/// bytes as text and use all-zero options.
class FuzzInput {
  public:
    FuzzInput(const std::uint8_t* data, std::size_t size, std::size_t option_bytes);

    /// Option byte `index` (0 when the input was too short to carry options).
    std::uint8_t option(std::size_t index) const;
    std::string_view text() const { return text_; }

  private:
    std::string_view options_;
    std::string_view text_;
};

/// Writes `bytes` to a file named `name` (the extension matters to the bench loader) in a
/// directory private to this process, removed at exit. `name` may hold `/`: the folders are
/// created (a directory tree as a reader expects it, e.g. `rank0/d0/`). Returns the file's
/// path. Aborts when the file cannot be written: a fuzz run without its input would silently
/// test nothing.
const std::string& write_scratch_file(std::string_view name, std::string_view bytes);

/// Removes the scratch file `name` if it is there, so an input that supplies fewer files than
/// the one before is not read together with the leftovers (runs must not depend on history).
void remove_scratch_file(std::string_view name);

/// The private scratch directory itself (the root of the files written above).
const std::string& scratch_root();

/// An input's `a/b/c` path made safe to create under the scratch root: components keep
/// [A-Za-z0-9._-] (at most 64 bytes each), empty, `.` and `..` components are dropped, and at
/// most `max_depth` components are kept.
std::string safe_relative_path(std::string_view path, std::size_t max_depth);

}  // namespace ptune::fuzz
