#pragma once
// A history database in its own temporary folder, removed afterwards (the history unit tests).

#include <unistd.h>

#include <filesystem>
#include <string>

namespace ptune::test {

struct TempDb {
    std::filesystem::path dir;
    std::string path;  ///< dir/history.db
    explicit TempDb(const std::string& name) {
        dir = std::filesystem::temp_directory_path() /
              ("ptune-history-" + std::to_string(::getpid()) + "-" + name);
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        path = (dir / "history.db").string();
    }
    ~TempDb() { std::filesystem::remove_all(dir); }
};

}  // namespace ptune::test
