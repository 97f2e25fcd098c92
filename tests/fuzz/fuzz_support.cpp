#include "fuzz_support.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

namespace ptune::fuzz {

FuzzInput::FuzzInput(const std::uint8_t* data, std::size_t size, std::size_t option_bytes) {
    std::string_view all(reinterpret_cast<const char*>(data), size);
    if (size > option_bytes) {
        options_ = all.substr(0, option_bytes);
        text_ = all.substr(option_bytes);
    } else {
        text_ = all;
    }
}

std::uint8_t FuzzInput::option(std::size_t index) const {
    return index < options_.size() ? static_cast<std::uint8_t>(options_[index]) : 0;
}

namespace {

const std::filesystem::path& scratch_directory() {
    // Never destroyed: the exit handler that removes the directory runs after static destructors.
    static const std::filesystem::path& directory = *new std::filesystem::path([] {
        // tmpfs when there is one: the fuzzer rewrites the scratch file on every run.
        std::filesystem::path base = std::filesystem::exists("/dev/shm")
                                         ? std::filesystem::path("/dev/shm")
                                         : std::filesystem::temp_directory_path();
        std::string pattern = (base / "ptune-fuzz-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            std::perror("ptune fuzz: cannot create a scratch directory");
            std::abort();
        }
        std::atexit([] {
            std::error_code ignored;
            std::filesystem::remove_all(scratch_directory(), ignored);
        });
        return pattern;
    }());
    return directory;
}

}  // namespace

const std::string& write_scratch_file(std::string_view name, std::string_view bytes) {
    static std::map<std::string, std::string, std::less<>> paths;
    auto found = paths.find(name);
    if (found == paths.end()) {
        const std::filesystem::path path = scratch_directory() / name;
        std::error_code ignored;  // a failure shows when the file is written below
        std::filesystem::create_directories(path.parent_path(), ignored);
        found = paths.emplace(std::string(name), path.string()).first;
    }
    std::ofstream out(found->second, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
        std::perror("ptune fuzz: cannot write the scratch file");
        std::abort();
    }
    return found->second;
}

void remove_scratch_file(std::string_view name) {
    std::error_code ignored;  // absent is what was wanted
    std::filesystem::remove(scratch_directory() / name, ignored);
}

const std::string& scratch_root() {
    static const std::string root = scratch_directory().string();
    return root;
}

std::string safe_relative_path(std::string_view path, std::size_t max_depth) {
    std::string out;
    std::size_t depth = 0;
    std::size_t from = 0;
    while (from <= path.size() && depth < max_depth) {
        std::size_t slash = path.find('/', from);
        if (slash == std::string_view::npos) slash = path.size();
        std::string part;
        for (char c : path.substr(from, std::min<std::size_t>(slash - from, 64))) {
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '_' || c == '-')
                part += c;
        }
        if (!part.empty() && part != "." && part != "..") {
            if (!out.empty()) out += '/';
            out += part;
            ++depth;
        }
        from = slash + 1;
    }
    return out;
}

}  // namespace ptune::fuzz
