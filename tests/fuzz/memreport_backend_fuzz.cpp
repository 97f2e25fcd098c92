// Fuzz target: mem-report's backend probes. resolve_dump_backend() over a scratch run directory
// whose `ptoas/k.pto` and `compiled_meta.json` are the text cut at the first NUL byte (either
// may be left out by the option bits), and the pure probes (backend_from_token,
// parse_backend_name, backend_from_limit, capacity) over the text and numbers read from it.

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "ptune/memreport/backend.hpp"
#include "ptune/memreport/pipeline.hpp"

namespace memreport_backend_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    using namespace ptune::memreport;
    ptune::fuzz::FuzzInput input(data, size, 1);
    std::uint8_t options = input.option(0);
    std::string_view text = input.text();
    std::size_t cut = text.find('\0');
    std::string_view pto = text.substr(0, cut);
    std::string_view meta =
        cut == std::string_view::npos ? std::string_view() : text.substr(cut + 1);

    // Files: bit 0 writes the .pto, bit 1 compiled_meta.json; absent ones are removed, so a run
    // never reads the previous input's file.
    if (options & 1)
        ptune::fuzz::write_scratch_file("run/ptoas/k.pto", pto);
    else
        ptune::fuzz::remove_scratch_file("run/ptoas/k.pto");
    if (options & 2)
        ptune::fuzz::write_scratch_file("run/compiled_meta.json", meta);
    else
        ptune::fuzz::remove_scratch_file("run/compiled_meta.json");
    std::optional<Backend> forced;
    if ((options >> 2) % 4 == 1) forced = Backend::A2A3;
    if ((options >> 2) % 4 == 2) forced = Backend::A5;
    ptune::Diagnostics diagnostics;
    std::string dump = ptune::fuzz::scratch_root() + "/run/passes_dump/memory.txt";
    auto resolved = resolve_dump_backend(dump, forced, diagnostics);
    // Scratch files are regular files: the probes refuse one only as UTF-16 text (io.cpp).
    auto utf16 = [](std::string_view file) {
        return file.starts_with("\xFF\xFE") || file.starts_with("\xFE\xFF");
    };
    if (!resolved) {
        if (!((options & 1) && utf16(pto)) && !((options & 2) && utf16(meta))) __builtin_trap();
        return 0;
    }
    auto [backend, how] = *resolved;
    if (forced && backend != *forced) __builtin_trap();  // the option always wins
    if (how.empty()) __builtin_trap();

    // The pure probes over the text and a number made of its first bytes.
    (void)backend_from_token(pto);
    (void)parse_backend_name(pto);
    std::uint64_t limit = 0;
    std::memcpy(&limit, text.data(), std::min(sizeof limit, text.size()));
    for (std::string_view space :
         std::initializer_list<std::string_view>{"Vec", "Mat", "Left", "Right", "Acc", pto}) {
        if (auto found = backend_from_limit(space, limit)) {
            // A limit that names a backend is that backend's capacity (or Vec's legacy limit).
            auto cap = capacity(*found, space);
            if (!cap || (*cap != limit && limit != vec_legacy_limit(*found))) __builtin_trap();
        }
        for (Backend b : {Backend::A2A3, Backend::A5}) (void)capacity(b, space);
    }
    for (Backend b : {Backend::A2A3, Backend::A5}) {
        if (parse_backend_name(to_string(b)) != b) __builtin_trap();
    }
    return 0;
}

}  // namespace memreport_backend_fuzz
