// libFuzzer's two entry points for the one program holding every target: the target is chosen
// once, from the name the program was started by, before libFuzzer reads its flags.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_targets.hpp"

namespace {

const ptune::fuzz::FuzzTarget* selected_target = nullptr;

}  // namespace

namespace ptune::fuzz {

const FuzzTarget* find_fuzz_target(std::string_view program) {
    std::string_view file = program.substr(program.find_last_of('/') + 1);
    constexpr std::string_view kPrefix = "ptune_fuzz_";
    if (!file.starts_with(kPrefix)) return nullptr;
    file.remove_prefix(kPrefix.size());
    for (const FuzzTarget& target : fuzz_targets()) {
        if (target.name == file) return &target;
    }
    return nullptr;
}

}  // namespace ptune::fuzz

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** argv) {
    const char* program = (*argv)[0];
    selected_target = ptune::fuzz::find_fuzz_target(program);
    if (selected_target != nullptr) return 0;
    std::string names;
    for (const auto& target : ptune::fuzz::fuzz_targets()) {
        names += names.empty() ? "" : ", ";
        names += target.name;
    }
    std::fprintf(stderr,
                 "%s: start this program through a link named ptune_fuzz_<target> (the build "
                 "makes one per target); targets: %s\n",
                 program, names.c_str());
    std::exit(2);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return selected_target->fuzz_one_input(data, size);
}
