// Shared SAX plumbing of the swimlane readers (see json_walk.hpp).

#include "json_walk.hpp"

#include <algorithm>

#include "ptune/core/text.hpp"

namespace ptune::swimlane::detail {

bool Scalar::as_id(std::uint64_t& out) const {
    if (type == Type::Int) {
        if (integer < 0) return false;
        out = static_cast<std::uint64_t>(integer);
        return true;
    }
    if (type == Type::String) {
        auto parsed = text::parse_uint(text);
        if (!parsed) return false;
        out = *parsed;
        return true;
    }
    return false;
}

std::string JsonWalker::error_message() const {
    std::string_view message = error_message_;
    if (auto bracket = message.find("] ");
        message.starts_with("[json.exception") && bracket != std::string_view::npos)
        message.remove_prefix(bracket + 2);
    return std::string(message);
}

std::size_t line_of_offset(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    return 1 + static_cast<std::size_t>(std::count(
                   text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

bool walk(std::string_view text, JsonWalker& walker) {
    return nlohmann::json::sax_parse(text.begin(), text.end(), &walker) && !walker.failed();
}

}  // namespace ptune::swimlane::detail
