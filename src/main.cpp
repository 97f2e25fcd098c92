// ptune: a thin main over ptune::core. Everything else lives in the library and src/cli/.

#include <exception>
#include <iostream>

#include "cli/command.hpp"

int main(int argc, char** argv) {
    try {
        return ptune::cli::run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "ptune: internal error: " << e.what() << '\n';
    } catch (...) {
        std::cerr << "ptune: internal error\n";
    }
    return static_cast<int>(ptune::ExitCode::InternalError);
}
