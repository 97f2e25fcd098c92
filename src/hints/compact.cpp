// Compact storage of hints: shared texts and packed fields (see compact.hpp).

#include "ptune/hints/compact.hpp"

#include <array>
#include <cstring>

#include "ptune/core/json_document.hpp"

namespace ptune::hints {

SharedText::SharedText(std::string text)
    : text_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}

const std::string& SharedText::empty_string() {
    static const std::string empty;
    return empty;
}

SharedText TextPool::get(std::string_view text) {
    auto found = texts_.find(text);
    if (found != texts_.end()) return found->second;
    SharedText shared{std::string(text)};
    texts_.emplace(std::string_view(shared.str()), shared);
    return shared;
}

namespace {

using nlohmann::json;

// Every field name the templates give (fields.cpp), each stored as its index + 1; other names
// are stored in full after a 0.
constexpr std::array<std::string_view, 33> kKnownKeys = {"K",
                                                         "M",
                                                         "N",
                                                         "achieved_depth",
                                                         "aligned_slot_bytes",
                                                         "arch",
                                                         "cause",
                                                         "dtype",
                                                         "fractal",
                                                         "free_bytes",
                                                         "function",
                                                         "innermost_bytes",
                                                         "innermost_elems",
                                                         "l2_line_bytes",
                                                         "mat_capacity_bytes",
                                                         "max_per_stage_bytes",
                                                         "min_dim",
                                                         "multiline",
                                                         "occurrences",
                                                         "op",
                                                         "overlapping_pairs",
                                                         "pipeline_group",
                                                         "recommended_bytes",
                                                         "relaxed_pairs",
                                                         "requested_depth",
                                                         "reserved_bytes",
                                                         "row_bytes",
                                                         "rows",
                                                         "scratch_bytes",
                                                         "space",
                                                         "target_memory",
                                                         "tile",
                                                         "transfer_bytes"};

enum Type : unsigned char { Null, False, True, Int, Unsigned, Float, String, Other };

void put_varint(std::string& out, std::uint64_t value) {
    while (value >= 0x80) {
        out += static_cast<char>((value & 0x7f) | 0x80);
        value >>= 7;
    }
    out += static_cast<char>(value);
}

void put_text(std::string& out, std::string_view text) {
    put_varint(out, text.size());
    out += text;
}

// Walks the packed records in order.
class Reader {
  public:
    explicit Reader(std::string_view bytes) : bytes_(bytes) {}
    bool done() const { return at_ >= bytes_.size(); }

    // The next record's key; its value follows (value() or skip()).
    std::string_view key() {
        auto known = static_cast<unsigned char>(bytes_[at_++]);
        if (known != 0) return kKnownKeys[known - 1];
        return text();
    }
    json value() {
        switch (static_cast<Type>(bytes_[at_++])) {
            case Null:
                return nullptr;
            case False:
                return false;
            case True:
                return true;
            case Int: {
                std::uint64_t zigzag = varint();
                return static_cast<std::int64_t>((zigzag >> 1) ^ (~(zigzag & 1) + 1));
            }
            case Unsigned:
                return varint();
            case Float: {
                double value = 0;
                std::memcpy(&value, bytes_.data() + at_, sizeof value);
                at_ += sizeof value;
                return value;
            }
            case String:
                return std::string(text());
            case Other:
                return json::parse(text());
        }
        return nullptr;
    }

  private:
    std::uint64_t varint() {
        std::uint64_t value = 0;
        for (int shift = 0;; shift += 7) {
            auto byte = static_cast<unsigned char>(bytes_[at_++]);
            value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
            if ((byte & 0x80) == 0) return value;
        }
    }
    std::string_view text() {
        auto size = static_cast<std::size_t>(varint());
        std::string_view text = bytes_.substr(at_, size);
        at_ += size;
        return text;
    }

    std::string_view bytes_;
    std::size_t at_ = 0;
};

}  // namespace

Fields::Fields(const nlohmann::json& object) {
    if (!object.is_object()) return;
    for (const auto& [key, value] : object.items()) {
        std::size_t known = 0;
        while (known < kKnownKeys.size() && kKnownKeys[known] != key) ++known;
        if (known < kKnownKeys.size()) {
            bytes_ += static_cast<char>(known + 1);
        } else {
            bytes_ += '\0';
            put_text(bytes_, key);
        }
        switch (value.type()) {
            case nlohmann::json::value_t::null:
                bytes_ += static_cast<char>(Null);
                break;
            case nlohmann::json::value_t::boolean:
                bytes_ += static_cast<char>(value.get<bool>() ? True : False);
                break;
            case nlohmann::json::value_t::number_integer: {
                auto number = value.get<std::int64_t>();
                bytes_ += static_cast<char>(Int);
                put_varint(bytes_, (static_cast<std::uint64_t>(number) << 1) ^
                                       static_cast<std::uint64_t>(number >> 63));
                break;
            }
            case nlohmann::json::value_t::number_unsigned:
                bytes_ += static_cast<char>(Unsigned);
                put_varint(bytes_, value.get<std::uint64_t>());
                break;
            case nlohmann::json::value_t::number_float: {
                double number = value.get<double>();
                bytes_ += static_cast<char>(Float);
                bytes_.append(reinterpret_cast<const char*>(&number), sizeof number);
                break;
            }
            case nlohmann::json::value_t::string:
                bytes_ += static_cast<char>(String);
                put_text(bytes_, value.get_ref<const std::string&>());
                break;
            default:
                bytes_ += static_cast<char>(Other);
                put_text(bytes_, json_document::dump(value));
                break;
        }
    }
    bytes_.shrink_to_fit();
}

nlohmann::json Fields::json() const {
    nlohmann::json object = nlohmann::json::object();
    Reader reader(bytes_);
    while (!reader.done()) {
        std::string key(reader.key());
        object[key] = reader.value();
    }
    return object;
}

void Fields::for_each(
    const std::function<void(std::string_view, const nlohmann::json&)>& visit) const {
    Reader reader(bytes_);
    while (!reader.done()) {
        std::string_view key = reader.key();
        visit(key, reader.value());
    }
}

bool Fields::contains(std::string_view key) const {
    Reader reader(bytes_);
    while (!reader.done()) {
        bool match = reader.key() == key;
        reader.value();
        if (match) return true;
    }
    return false;
}

std::optional<double> Fields::number(std::string_view key) const {
    Reader reader(bytes_);
    while (!reader.done()) {
        bool match = reader.key() == key;
        nlohmann::json value = reader.value();
        if (match) return value.is_number() ? std::optional(value.get<double>()) : std::nullopt;
    }
    return std::nullopt;
}

std::optional<std::string> Fields::string(std::string_view key) const {
    Reader reader(bytes_);
    while (!reader.done()) {
        bool match = reader.key() == key;
        nlohmann::json value = reader.value();
        if (match && value.is_string()) return value.get<std::string>();
        if (match) return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace ptune::hints
