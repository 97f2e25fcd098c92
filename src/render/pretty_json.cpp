// Direct pretty JSON text (pretty_json.hpp).

#include "ptune/render/pretty_json.hpp"

#include <array>
#include <cmath>

#include <fmt/format.h>

#include "ptune/core/json_document.hpp"

namespace ptune::render {

void PrettyJson::key(std::string_view name) {
    next();
    string(name);
    out_ += ": ";
}

void PrettyJson::string(std::string_view text) {
    bool plain = true;
    for (char c : text) {
        auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte >= 0x80 || c == '"' || c == '\\') {
            plain = false;
            break;
        }
    }
    if (plain) {
        out_ += '"';
        out_ += text;
        out_ += '"';
        return;
    }
    // Escapes and invalid UTF-8 exactly as the JSON renderer writes them (the rare case).
    out_ += json_document::dump(nlohmann::json(std::string(text)));
}

void PrettyJson::number(std::uint64_t value) {
    fmt::format_to(std::back_inserter(out_), "{}", value);
}

void PrettyJson::number(std::int64_t value) {
    fmt::format_to(std::back_inserter(out_), "{}", value);
}

void PrettyJson::number(double value) {
    // nlohmann's dump_float without a json value and a string per number (a fifth of
    // bench-summary --format json): null for NaN and infinities, else its shortest round-trip
    // digits (Grisu2, `.0` on integral values) in its 64-byte buffer.
    if (!std::isfinite(value)) {
        out_ += "null";
        return;
    }
    std::array<char, 64> digits;
    const char* end =
        nlohmann::detail::to_chars(digits.data(), digits.data() + digits.size(), value);
    out_.append(digits.data(), static_cast<std::size_t>(end - digits.data()));
}

void PrettyJson::value(const nlohmann::json& value) {
    switch (value.type()) {
        case nlohmann::json::value_t::object:
            begin_object();
            for (const auto& [name, member] : value.items()) {
                key(name);
                this->value(member);
            }
            end_object();
            return;
        case nlohmann::json::value_t::array:
            begin_array();
            for (const auto& item : value) {
                element();
                this->value(item);
            }
            end_array();
            return;
        case nlohmann::json::value_t::string:
            string(value.get_ref<const std::string&>());
            return;
        case nlohmann::json::value_t::number_unsigned:
            number(value.get<std::uint64_t>());
            return;
        case nlohmann::json::value_t::number_integer:
            number(value.get<std::int64_t>());
            return;
        default:  // null, booleans, doubles, binary: rare, nlohmann's own text
            out_ += json_document::dump(value);
            return;
    }
}

void PrettyJson::open(char bracket) {
    out_ += bracket;
    empty_.push_back(true);
}

void PrettyJson::close(char bracket) {
    bool empty = empty_.back();
    empty_.pop_back();
    if (!empty) {
        out_ += '\n';
        out_.append(indent_ + 2 * empty_.size(), ' ');
    }
    out_ += bracket;
}

void PrettyJson::next() {
    out_ += empty_.back() ? "\n" : ",\n";
    empty_.back() = false;
    out_.append(indent_ + 2 * empty_.size(), ' ');
}

}  // namespace ptune::render
