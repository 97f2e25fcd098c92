// Inputs (io.hpp): whole-file reads, streamed inputs and the checks that keep FIFOs, devices
// and the command's own outputs from being read. Line reading: line_reader.cpp; outputs and
// their signal handlers: io_output.cpp.

#include "ptune/core/io.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "io_internal.hpp"

namespace ptune::io {

namespace fs = std::filesystem;
using namespace detail;

namespace {

// Checks that `path` names a regular file we may read (not a FIFO that would block, nor a
// device that never ends), within `max_bytes`, and not one of the command's outputs.
Status check_readable(const std::string& path, std::size_t max_bytes) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        return input_error(path, errno == ENOENT ? "no such file or directory" : errno_text(errno));
    }
    if (S_ISDIR(info.st_mode)) return input_error(path, "is a directory, expected a file");
    if (auto status = check_regular_file(path); !status) return status;
    if (static_cast<std::uintmax_t>(info.st_size) > max_bytes) {
        return input_error(path, fmt::format("file larger than {} bytes", max_bytes));
    }
    return note_read(path, info);
}

// Standard input must be something that ends: a file, a pipe, a terminal or /dev/null. A
// directory, a closed descriptor or an endless device is an error, not an empty input.
Status check_stdin() {
    struct stat info {};
    if (::fstat(STDIN_FILENO, &info) != 0) {
        return input_error(std::string(kStdinName),
                           errno == EBADF ? "standard input is closed" : errno_text(errno));
    }
    if (S_ISDIR(info.st_mode)) {
        return input_error(std::string(kStdinName), "standard input is a directory");
    }
    if (S_ISCHR(info.st_mode) && !::isatty(STDIN_FILENO)) {
        struct stat null_info {};
        bool is_null = ::stat("/dev/null", &null_info) == 0 && null_info.st_rdev == info.st_rdev;
        if (!is_null) {
            return input_error(std::string(kStdinName),
                               "standard input is a character device, expected a file or a pipe");
        }
    }
    if (S_ISREG(info.st_mode)) return note_read(std::string(kStdinName), info);
    return ok_status();
}

// Text that starts with a UTF-16 byte order mark: Windows PowerShell's `>` writes a command's
// output so. Every reader expects UTF-8 and would call it binary or not its format.
bool is_utf16(std::string_view head) {
    return head.starts_with("\xFF\xFE") || head.starts_with("\xFE\xFF");
}

Error utf16_error(const std::string& path) {
    Error error = input_error(path,
                              "UTF-16 text (Windows PowerShell's `>` writes it); ptune reads "
                              "UTF-8: convert it with `iconv -f UTF-16 -t UTF-8`");
    error.line = 1;
    return error;
}

}  // namespace

Status check_regular_file(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        return input_error(path, errno == ENOENT ? "no such file or directory" : errno_text(errno));
    }
    if (!S_ISREG(info.st_mode)) {
        return input_error(path,
                           fmt::format("is {}, expected a regular file", file_kind(info.st_mode)));
    }
    return ok_status();
}

Result<std::string> read_file(const std::string& path, std::size_t max_bytes) {
    if (path == kStdinName) {
        if (auto status = check_stdin(); !status) return status.error();
        std::string data;
        std::array<char, 1 << 16> chunk{};
        while (std::cin.read(chunk.data(), chunk.size()) || std::cin.gcount() > 0) {
            data.append(chunk.data(), static_cast<std::size_t>(std::cin.gcount()));
            if (data.size() > max_bytes) {
                return input_error(path, fmt::format("input larger than {} bytes", max_bytes));
            }
        }
        if (std::cin.bad()) return input_error(path, "read error on standard input");
        if (is_utf16(data)) return utf16_error(path);
        if (data.starts_with(kUtf8Bom)) data.erase(0, kUtf8Bom.size());
        return data;
    }
    if (auto status = check_readable(path, max_bytes); !status) return status.error();
    std::ifstream in(path, std::ios::binary);
    if (!in) return input_error(path, fmt::format("cannot open: {}", errno_text(errno)));
    std::string data;
    std::array<char, 1 << 16> chunk{};
    while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
        data.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
        if (data.size() > max_bytes) {
            return input_error(path, fmt::format("file larger than {} bytes", max_bytes));
        }
    }
    if (in.bad()) return input_error(path, fmt::format("read error: {}", errno_text(errno)));
    if (is_utf16(data)) return utf16_error(path);
    if (data.starts_with(kUtf8Bom)) data.erase(0, kUtf8Bom.size());
    return data;
}

InputStream::InputStream(InputStream&&) noexcept = default;
InputStream& InputStream::operator=(InputStream&&) noexcept = default;
InputStream::~InputStream() = default;

std::istream& InputStream::stream() {
    return *stream_;
}

Result<InputStream> open_input(const std::string& path) {
    InputStream input;
    input.path_ = path;
    if (path == kStdinName) {
        if (auto status = check_stdin(); !status) return status.error();
        input.stream_ = &std::cin;
        return input;
    }
    if (auto status = check_readable(path, kMaxStreamedBytes); !status) return status.error();
    auto file = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*file) return input_error(path, fmt::format("cannot open: {}", errno_text(errno)));
    std::array<char, 2> head{};
    file->read(head.data(), head.size());
    if (is_utf16(std::string_view(head.data(), static_cast<std::size_t>(file->gcount()))))
        return utf16_error(path);
    file->clear();
    file->seekg(0);
    input.stream_ = file.get();
    input.owned_ = std::move(file);
    return input;
}

bool is_dir(const fs::path& path) {
    std::error_code ec;
    return fs::is_directory(path, ec);
}

bool is_file(const fs::path& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

bool is_special(const fs::path& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode);
}

bool same_file(const fs::path& a, const fs::path& b) {
    struct stat sa {
    }, sb{};
    if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace ptune::io
