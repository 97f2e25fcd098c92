#pragma once
/// @file io_internal.hpp
/// What the io translation units share, not a public header: the wording of input errors and
/// the output-safety ledger (docs/RELIABILITY.md "Output safety").

#include <sys/stat.h>

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ptune/core/error.hpp"

namespace ptune::io::detail {

std::string errno_text(int error);

Error input_error(const std::string& path, std::string message);

/// What a file is, for messages about inputs that are not regular files.
std::string_view file_kind(mode_t mode);

/// Identity of a file: device and inode (hard links and symlinks resolve to the same one).
struct FileId {
    dev_t device = 0;
    ino_t inode = 0;
    bool operator<(const FileId& other) const {
        return device != other.device ? device < other.device : inode < other.inode;
    }
    bool operator==(const FileId& other) const {
        return device == other.device && inode == other.inode;
    }
};

/// The output-safety ledger: the outputs the command will write, and every file it opened for
/// reading. A read of a protected output is refused, and an output that resolves to a file read
/// (or refused) is refused in turn, so a command never writes over an input, even one it found
/// by itself in a directory.
struct Ledger {
    std::mutex mutex;
    bool armed = false;  // set by protect_outputs(): library users (tests) are not tracked
    std::vector<std::pair<FileId, std::string>> outputs;  // existing regular files only
    std::map<FileId, std::string> read;  // files opened for reading, or refused as an output
};

Ledger& ledger();

Error collision_error(const std::string& output, const std::string& input);

/// Records a file about to be read; refuses it when it is one of the command's outputs.
Status note_read(const std::string& path, const struct stat& info);

}  // namespace ptune::io::detail
