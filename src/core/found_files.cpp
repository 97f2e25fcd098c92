// Found files that are no regular files (found_files.hpp): named, never opened.

#include "ptune/core/found_files.hpp"

#include <sys/stat.h>

#include <string>

#include "ptune/core/io.hpp"

namespace ptune::io {

bool is_special_file(const std::filesystem::path& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode);
}

bool usable_side_file(const std::filesystem::path& path, Diagnostics& diagnostics,
                      std::string_view consequence) {
    if (!is_special_file(path)) return is_file(path);
    // check_regular_file() words it as every named input's refusal does.
    Status status = check_regular_file(path.string());
    std::string why = status ? std::string("not a regular file") : status.error().message;
    diagnostics.warn(path.string(), 0, why + "; " + std::string(consequence));
    return false;
}

}  // namespace ptune::io
