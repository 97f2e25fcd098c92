#pragma once
// What the tests of the direct JSON writers share (write_function_json, write_finding_json,
// write_case_json): a writer must write the text nlohmann's dump(2) gives for the DOM of the
// same value, at the indentation of its place in a document.

#include <cstddef>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace json_writer_check {

/// `value.dump(2)` (invalid UTF-8 replaced) with every line after the first indented `indent`
/// more spaces.
inline std::string indented_dump(const nlohmann::json& value, std::size_t indent) {
    std::string dumped = value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string out;
    for (char c : dumped) {
        out += c;
        if (c == '\n') out.append(indent, ' ');
    }
    return out;
}

/// Checks `write(indent, text)` against indented_dump(dom, indent) at indents 0 and 4.
template <class Write>
void check_writes_dump(const nlohmann::json& dom, Write write) {
    for (std::size_t indent : {0, 4}) {
        std::string written;
        write(indent, written);
        INFO("indent " << indent);
        CHECK(written == indented_dump(dom, indent));
    }
}

}  // namespace json_writer_check
