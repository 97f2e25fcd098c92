// Stand-in for libFuzzer's driver in builds without it (g++): runs the target once on every
// file named on the command line (directories are read entirely), so the seed corpus and the
// regression inputs are checked by every build, not only by the fuzzing one.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int run_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
        return 1;
    }
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    LLVMFuzzerInitialize(&argc, &argv);  // as libFuzzer's driver does: picks the target
    int failures = 0;
    std::size_t inputs = 0;
    for (int i = 1; i < argc; ++i) {
        std::filesystem::path argument(argv[i]);
        if (std::filesystem::is_directory(argument)) {
            std::vector<std::filesystem::path> files;
            for (const auto& entry : std::filesystem::recursive_directory_iterator(argument)) {
                if (entry.is_regular_file()) files.push_back(entry.path());
            }
            std::sort(files.begin(), files.end());
            for (const auto& file : files) {
                failures += run_file(file);
                ++inputs;
            }
        } else {
            failures += run_file(argument);
            ++inputs;
        }
    }
    std::string_view target = ptune::fuzz::find_fuzz_target(argv[0])->name;
    std::printf("replay: %.*s: %zu inputs, %d unreadable\n", static_cast<int>(target.size()),
                target.data(), inputs, failures);
    return failures == 0 ? 0 : 1;
}
