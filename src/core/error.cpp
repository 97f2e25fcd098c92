#include "ptune/core/error.hpp"

#include <fmt/format.h>

namespace ptune {

std::string Error::to_string() const {
    if (file.empty()) return message;
    if (line == 0) return fmt::format("{}: {}", file, message);
    return fmt::format("{}:{}: {}", file, line, message);
}

}  // namespace ptune
