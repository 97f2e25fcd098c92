// The shared parts of the io translation units (io_internal.hpp).

#include "io_internal.hpp"

#include <cstring>

#include <fmt/format.h>

namespace ptune::io::detail {

std::string errno_text(int error) {
    return std::strerror(error);
}

Error input_error(const std::string& path, std::string message) {
    return Error{std::move(message), path, 0, ExitCode::InputError};
}

std::string_view file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

Ledger& ledger() {
    static Ledger instance;
    return instance;
}

Error collision_error(const std::string& output, const std::string& input) {
    return Error{fmt::format("refusing to write the output over the input '{}'", input), output, 0,
                 ExitCode::InputError};
}

Status note_read(const std::string& path, const struct stat& info) {
    FileId id{info.st_dev, info.st_ino};
    auto& book = ledger();
    std::lock_guard<std::mutex> lock(book.mutex);
    if (!book.armed) return ok_status();
    book.read.emplace(id, path);  // also when refused: that output may not be opened later
    for (const auto& [output_id, output] : book.outputs) {
        if (output_id == id) return collision_error(output, path);
    }
    return ok_status();
}

}  // namespace ptune::io::detail
