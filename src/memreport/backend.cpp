#include "ptune/memreport/backend.hpp"

namespace ptune::memreport {

namespace {
constexpr std::uint64_t kKiB = 1024;
}

std::string_view to_string(Backend backend) {
    return backend == Backend::A5 ? "a5" : "a2a3";
}

std::optional<Backend> parse_backend_name(std::string_view name) {
    if (name == "a2a3") return Backend::A2A3;
    if (name == "a5") return Backend::A5;
    return std::nullopt;
}

std::optional<Backend> backend_from_token(std::string_view token) {
    if (token == "910B" || token == "910B_PTO" || token == "910B_CCE") return Backend::A2A3;
    if (token == "950") return Backend::A5;
    return std::nullopt;
}

std::uint64_t vec_safe_cap(Backend backend) {
    return (backend == Backend::A5 ? 240 : 184) * kKiB;
}

std::uint64_t vec_legacy_limit(Backend backend) {
    return (backend == Backend::A5 ? 248 : 192) * kKiB;
}

std::optional<std::uint64_t> capacity(Backend backend, std::string_view space) {
    if (space == "Vec") return vec_safe_cap(backend);
    if (space == "Mat") return 512 * kKiB;
    if (space == "Left" || space == "Right") return 64 * kKiB;
    if (space == "Acc") return (backend == Backend::A5 ? 256 : 128) * kKiB;
    return std::nullopt;
}

std::optional<Backend> backend_from_limit(std::string_view space, std::uint64_t limit_bytes) {
    for (Backend backend : {Backend::A2A3, Backend::A5}) {
        if (space == "Acc" && limit_bytes == *capacity(backend, "Acc")) return backend;
        if (space == "Vec" &&
            (limit_bytes == vec_safe_cap(backend) || limit_bytes == vec_legacy_limit(backend))) {
            return backend;
        }
    }
    return std::nullopt;
}

}  // namespace ptune::memreport
