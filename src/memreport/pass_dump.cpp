#include "ptune/memreport/pass_dump.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"

namespace ptune::memreport {

std::string_view to_string(DumpSyntax syntax) {
    switch (syntax) {
        case DumpSyntax::New:
            return "new";
        case DumpSyntax::Old:
            return "old";
        case DumpSyntax::Unknown:
            break;
    }
    return "unknown";
}

bool looks_like_pass_dump(std::string_view first_line) {
    first_line = text::trim(first_line);
    return first_line.starts_with("# pypto.program:") || first_line.starts_with("import pypto") ||
           first_line.starts_with("@pl.program") || first_line.starts_with("from pypto");
}

namespace {

bool is_ident_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_ident_char(char c) {
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

// The arguments of a call whose '(' is just before `text`, split at top-level commas, and the
// offset just past the closing ')'. nullopt when the line ends before the call closes.
struct Call {
    std::vector<std::string_view> args;
    std::size_t end = 0;
};
std::optional<Call> read_call(std::string_view text) {
    Call call;
    int depth = 0;
    char quote = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (quote) {
            if (c == quote) quote = 0;
            continue;
        }
        if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ']' || c == '}') {
            --depth;
        } else if (c == ')') {
            if (depth == 0) {
                call.args.push_back(text::trim(text.substr(start, i - start)));
                call.end = i + 1;
                return call;
            }
            --depth;
        } else if (c == ',' && depth == 0) {
            call.args.push_back(text::trim(text.substr(start, i - start)));
            start = i + 1;
        }
    }
    return std::nullopt;
}

std::optional<std::int64_t> read_int_literal(std::string_view text);

// `4096`, `-1` or `pl.const(4096, pl.INT64)`: the forms the printer uses for a constant. Nested
// `pl.const(pl.const(…), …)` is read in one pass: the outer call must close, and the innermost
// first argument is the value (a call re-read per level was quadratic: 32k levels took 11 s).
std::optional<std::int64_t> read_int(std::string_view text) {
    text = text::trim(text);
    constexpr std::string_view kConst = "pl.const(";
    if (!text.starts_with(kConst)) return read_int_literal(text);
    if (!read_call(text.substr(kConst.size()))) return std::nullopt;
    while (text.starts_with(kConst)) text = text::trim(text.substr(kConst.size()));
    auto end = text.find_first_of(",)");
    if (end == std::string_view::npos) return std::nullopt;
    return read_int_literal(text.substr(0, end));
}

std::optional<std::int64_t> read_int_literal(std::string_view text) {
    text = text::trim(text);
    bool negative = text.starts_with('-');
    std::string_view digits = negative ? text.substr(1) : text;
    if (digits.empty() ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return std::nullopt;
    }
    auto value = text::parse_uint(digits);
    if (!value || *value > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
    return negative ? -static_cast<std::int64_t>(*value) : static_cast<std::int64_t>(*value);
}

// One MemRef as written: its space, base (newer syntax: the base name; older: the id), offset
// (nullopt when not a constant) and size.
struct MemRef {
    std::string space;
    std::string base;
    std::optional<std::int64_t> offset;
    std::uint64_t size = 0;
    DumpSyntax syntax = DumpSyntax::Unknown;
};

struct Tile {
    std::string space, base;
    std::size_t first = 0, last = 0;
};

struct BufferAcc {
    std::string name;  // base name (newer) or mem_<space>_<id> (older)
    std::optional<std::uint64_t> begin, end;
    std::uint64_t size = 0;
    std::size_t line = 0;                       // first mention
    std::size_t live_first = 0, live_last = 0;  // from the tiles; 0 = no tile yet
};

struct SpaceAcc {
    std::uint64_t used = 0;
    std::size_t line = 0;
    std::size_t tile_bindings = 0;
    std::map<std::string, BufferAcc, std::less<>> buffers;  // by base
    bool any_nonzero_offset = false;
    std::size_t nonzero_size_bases = 0;
};

class DumpParser {
  public:
    DumpParser(const std::string& source, Diagnostics& diagnostics) : diagnostics_(diagnostics) {
        report_.source = source;
        report_.origin = Origin::PassDump;
    }

    void line(std::string_view raw, std::size_t number) {
        line_ = number;
        std::string_view line = text::trim_right(raw);
        std::string_view body = text::trim_left(line);
        if (body.empty()) return;
        std::size_t indent = line.size() - body.size();
        if (in_function_ && indent <= def_indent_) close_function();
        if (body.starts_with("# pypto.program:")) {
            report_.program = std::string(text::trim(body.substr(16)));
            return;
        }
        if (body.starts_with("@pl.function(")) {
            pending_type_ = function_type(body);
            return;
        }
        if (body.starts_with("@")) {
            pending_type_.clear();  // a function group or another decorator: no compute function
            return;
        }
        if (body.starts_with("def ")) return open_function(body, indent);
        if (!in_function_ || !compute_) return;
        if (body.starts_with("return")) saw_return_ = true;
        mark_uses(body);
        binding(body);
    }

    Report finish() {
        if (in_function_) {
            if (compute_ && !saw_return_) {
                warn(fmt::format(
                    "the dump ends inside function '{}' (started at line {}): the rest of its "
                    "body is missing, so its table may be incomplete",
                    function_.name, function_.line));
            }
            close_function();
        }
        return std::move(report_);
    }

  private:
    void warn(std::string message, std::size_t line = 0) {
        diagnostics_.warn(report_.source, line ? line : line_, std::move(message));
    }

    static std::string function_type(std::string_view decorator) {
        static constexpr std::string_view kKey = "type=pl.FunctionType.";
        auto at = decorator.find(kKey);
        if (at == std::string_view::npos) return "?";
        std::string_view rest = decorator.substr(at + kKey.size());
        std::size_t end = 0;
        while (end < rest.size() && is_ident_char(rest[end])) ++end;
        return std::string(rest.substr(0, end));
    }

    void open_function(std::string_view body, std::size_t indent) {
        std::string type = std::move(pending_type_);
        pending_type_.clear();
        in_function_ = true;
        def_indent_ = indent;
        saw_return_ = false;
        compute_ = type == "InCore" || type == "AIC" || type == "AIV";
        function_ = Function{};
        spaces_.clear();
        tiles_.clear();
        std::string_view rest = body.substr(4);
        std::size_t end = 0;
        while (end < rest.size() && is_ident_char(rest[end])) ++end;
        function_.name = std::string(rest.substr(0, end));
        function_.line = line_;
        if (!compute_) {
            if (!type.empty() && type != "?") skipped_.push_back(function_.name);
            return;
        }
        // Tile-typed parameters hold caller memory for the whole body.
        if (end < rest.size() && rest[end] == '(') {
            auto call = read_call(rest.substr(end + 1));
            if (!call) {
                warn(
                    fmt::format("the signature of '{}' does not close on its line; its "
                                "parameters are skipped",
                                function_.name));
                return;
            }
            for (auto param : call->args) {
                auto colon = param.find(':');
                if (colon == std::string_view::npos) continue;
                bind(text::trim(param.substr(0, colon)), param.substr(colon + 1), "");
            }
        }
    }

    // `name: ANNOTATION = value`: a binding whose annotation may carry MemRefs, or (older
    // syntax) `mem_vec_4: pl.MemRefType = pl.block.alloc(...)`.
    void binding(std::string_view body) {
        std::size_t end = 0;
        while (end < body.size() && is_ident_char(body[end])) ++end;
        if (end == 0 || !is_ident_start(body[0]) || end >= body.size() || body[end] != ':') {
            return;
        }
        std::string_view name = body.substr(0, end);
        std::string_view rest = body.substr(end + 1);
        // The annotation ends at the top-level " = ".
        int depth = 0;
        std::size_t eq = std::string_view::npos;
        for (std::size_t i = 0; i < rest.size(); ++i) {
            char c = rest[i];
            if (c == '(' || c == '[' || c == '{') ++depth;
            if (c == ')' || c == ']' || c == '}') --depth;
            if (c == '=' && depth == 0 && i > 0 && rest[i - 1] == ' ' && i + 1 < rest.size() &&
                rest[i + 1] == ' ') {
                eq = i;
                break;
            }
        }
        std::string_view annotation = rest.substr(0, eq);
        std::string_view value = eq == std::string_view::npos ? "" : rest.substr(eq + 1);
        bind(name, annotation, text::trim(value));
    }

    void bind(std::string_view name, std::string_view annotation, std::string_view value) {
        annotation = text::trim(annotation);
        if (annotation == "pl.MemRefType" && value.starts_with("pl.block.alloc(")) {
            if (auto memref = read_memref_args(value.substr(15), true)) {
                allocation(name, *memref);
            }
            return;
        }
        // Every MemRef of the annotation; a tile has one, a tuple of tiles several.
        bool tile = annotation.find("pl.Tile[") != std::string_view::npos;
        std::size_t at = 0;
        while ((at = annotation.find("pl.MemRef(", at)) != std::string_view::npos) {
            at += 10;
            auto memref = read_memref_args(annotation.substr(at), false);
            if (!memref) break;
            if (memref->space == "DDR") continue;
            // The newer syntax binds memory to tiles only (upstream memory_map); the older
            // keys every non-DDR MemRef of the function.
            if (memref->syntax == DumpSyntax::New && !tile) continue;
            use_memref(*memref);
            tile_binding(name, *memref);
        }
    }

    // The MemRef arguments just after `pl.MemRef(` or `pl.block.alloc(`; for the newer syntax
    // also the `pl.Mem.<Space>` after the call. Reports a MemRef it cannot read.
    std::optional<MemRef> read_memref_args(std::string_view text, bool alloc) {
        auto call = read_call(text);
        if (!call) {
            warn(
                fmt::format("a MemRef in '{}' does not close on its line (the line may be "
                            "cut); it is skipped",
                            function_.name));
            return std::nullopt;
        }
        MemRef memref;
        const auto& args = call->args;
        if (!args.empty() && args[0].starts_with("pl.MemorySpace.")) {
            memref.syntax = DumpSyntax::Old;
            memref.space = std::string(args[0].substr(15));
            if (args.size() != 4) return bad_memref(text, "expected (space, addr, size, id)");
            memref.offset = read_int(args[1]);
            memref.base = std::string(args[3]);
            if (!read_int(args[3])) return bad_memref(text, "an id that is not an integer");
        } else {
            if (alloc) return std::nullopt;
            memref.syntax = DumpSyntax::New;
            if (args.size() < 3) return bad_memref(text, "expected (base, offset, size)");
            memref.base = std::string(args[0]);
            if (memref.base.size() >= 2 &&
                (memref.base.front() == '"' || memref.base.front() == '\'')) {
                memref.base = memref.base.substr(1, memref.base.size() - 2);
            }
            memref.offset = read_int(args[1]);
            std::string_view after = text.substr(call->end);
            auto mem = after.find("pl.Mem.");
            if (mem == std::string_view::npos || text::trim(after.substr(0, mem)) != ",") {
                return bad_memref(text, "no pl.Mem.<Space> after it");
            }
            std::string_view space = after.substr(mem + 7);
            std::size_t end = 0;
            while (end < space.size() && is_ident_char(space[end])) ++end;
            memref.space = std::string(space.substr(0, end));
        }
        auto size = read_int(args[2]);
        if (!size || *size < 0) {
            return bad_memref(text, fmt::format("unparsable size '{}'", args[2]));
        }
        memref.size = static_cast<std::uint64_t>(*size);
        if (memref.offset && *memref.offset < 0 && memref.space != "DDR") {
            if (*memref.offset == -1) {
                refuse(
                    fmt::format("'{}' has a {} MemRef at address -1: the dump was written "
                                "before AllocateMemoryAddr assigned addresses",
                                function_.name, memref.space));
            }
            memref.offset.reset();
        }
        if (report_.dump_syntax == DumpSyntax::Unknown) {
            report_.dump_syntax = memref.syntax;
        } else if (report_.dump_syntax != memref.syntax && !warned_mixed_) {
            warned_mixed_ = true;
            warn("the dump mixes the older and the newer MemRef syntax");
        }
        return memref;
    }

    std::optional<MemRef> bad_memref(std::string_view text, const std::string& why) {
        std::string_view shown = text.substr(0, std::min<std::size_t>(text.size(), 60));
        warn(
            fmt::format("unreadable MemRef in '{}' ({}): '{}'; it is skipped, the rest of the "
                        "table is kept",
                        function_.name, why, shown));
        return std::nullopt;
    }

    void refuse(std::string why, std::size_t line = 0) {
        if (!report_.refusal.empty()) return;
        report_.refusal = std::move(why);
        report_.refusal_line = line ? line : line_;
    }

    SpaceAcc& space_of(const MemRef& memref) {
        auto& acc = spaces_[memref.space];
        if (acc.line == 0) acc.line = line_;
        return acc;
    }

    BufferAcc& buffer_of(SpaceAcc& acc, const MemRef& memref) {
        auto& buffer = acc.buffers[memref.base];
        if (buffer.line == 0) {
            buffer.line = line_;
            buffer.name = memref.syntax == DumpSyntax::Old
                              ? fmt::format("mem_{}_{}", lower(memref.space), memref.base)
                              : memref.base;
            if (memref.size > 0) ++acc.nonzero_size_bases;
        }
        buffer.size = std::max(buffer.size, memref.size);
        if (memref.offset) {
            auto begin = static_cast<std::uint64_t>(*memref.offset);
            buffer.begin = std::min(buffer.begin.value_or(begin), begin);
            buffer.end = std::max(buffer.end.value_or(0), begin + memref.size);
            if (begin != 0) acc.any_nonzero_offset = true;
        }
        return buffer;
    }

    static std::string lower(std::string_view text) {
        std::string out(text);
        for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return out;
    }

    void use_memref(const MemRef& memref) {
        SpaceAcc& acc = space_of(memref);
        buffer_of(acc, memref);
        // A non-constant offset is a lower bound: the size alone (mem-report.md §4).
        std::uint64_t top = memref.size + (memref.offset ? *memref.offset : 0);
        acc.used = std::max(acc.used, top);
    }

    void allocation(std::string_view name, const MemRef& memref) {
        if (memref.space == "DDR") return;
        use_memref(memref);
        auto& buffer = spaces_[memref.space].buffers[memref.base];
        if (buffer.name != name) {
            warn(
                fmt::format("allocation '{}' is named for another space or id ({}); the name "
                            "from its arguments, '{}', is used",
                            name, memref.space, buffer.name));
        }
    }

    void tile_binding(std::string_view name, const MemRef& memref) {
        SpaceAcc& acc = spaces_[memref.space];
        auto [it, inserted] = tiles_.try_emplace(std::string(name));
        Tile& tile = it->second;
        if (inserted) {
            tile = Tile{memref.space, memref.base, line_, line_};
            ++acc.tile_bindings;
        }
        // A name bound again (sibling if/else arms) keeps its first MemRef; one range covers
        // both bindings.
        tile.last = std::max(tile.last, line_);
        extend(acc.buffers[tile.base], tile.first, tile.last);
    }

    static void extend(BufferAcc& buffer, std::size_t first, std::size_t last) {
        buffer.live_first = buffer.live_first == 0 ? first : std::min(buffer.live_first, first);
        buffer.live_last = std::max(buffer.live_last, last);
    }

    // Every identifier of the line that names a tile bound earlier extends its live range
    // (and its buffer's) to this line.
    void mark_uses(std::string_view body) {
        if (tiles_.empty()) return;
        for (std::size_t i = 0; i < body.size();) {
            if (!is_ident_start(body[i]) || (i > 0 && is_ident_char(body[i - 1]))) {
                ++i;
                continue;
            }
            std::size_t end = i;
            while (end < body.size() && is_ident_char(body[end])) ++end;
            auto it = tiles_.find(std::string(body.substr(i, end - i)));
            if (it != tiles_.end() && it->second.last < line_) {
                it->second.last = line_;
                extend(spaces_[it->second.space].buffers[it->second.base], it->second.first, line_);
            }
            i = end;
        }
    }

    void close_function() {
        in_function_ = false;
        if (!compute_) return;
        // Only the spaces the report prints (mem-report.md §4); other non-DDR spaces (Bias,
        // LeftScale, RightScale, ScalarLocal) are never printed, so they are not tabled either.
        for (std::string_view space : kMemorySpaces) {
            auto it = spaces_.find(std::string(space));
            if (it == spaces_.end()) continue;
            SpaceAcc& acc = it->second;
            if (!acc.any_nonzero_offset && acc.nonzero_size_bases > 1) {
                refuse(fmt::format("every {} MemRef of '{}' sits at offset 0 with {} bases: the "
                                   "dump was written before address assignment (read "
                                   "NN_after_AllocateMemoryAddr.py)",
                                   space, function_.name, acc.nonzero_size_bases),
                       acc.line);
            }
            SpaceUsage usage;
            usage.space = std::string(space);
            usage.exact_used = acc.used;
            usage.used_text = format_size(acc.used);
            usage.limit_text = "N/A";
            usage.usage_text = "N/A";
            usage.memrefs =
                report_.dump_syntax == DumpSyntax::Old ? acc.buffers.size() : acc.tile_bindings;
            usage.line = acc.line;
            for (auto& [base, b] : acc.buffers) {
                Buffer buffer;
                buffer.name = b.name;
                buffer.size_bytes = b.size;
                buffer.size_exact = true;
                buffer.size_text = format_size(b.size);
                buffer.allocated = b.begin.has_value();
                buffer.addr_begin = b.begin.value_or(0);
                buffer.addr_end = b.end.value_or(0);
                // A buffer no tile uses (an older-syntax alloc only) lives on its own line.
                buffer.live_begin = b.live_first ? b.live_first : b.line;
                buffer.live_end = b.live_first ? b.live_last : b.line;
                buffer.line = b.line;
                usage.buffers.push_back(std::move(buffer));
            }
            // The report's order: begin address, then name (mem-report.md §4).
            std::sort(usage.buffers.begin(), usage.buffers.end(),
                      [](const Buffer& a, const Buffer& b) {
                          if (a.allocated != b.allocated) return a.allocated;
                          if (a.addr_begin != b.addr_begin) return a.addr_begin < b.addr_begin;
                          return a.name < b.name;
                      });
            function_.spaces.push_back(std::move(usage));
        }
        if (!function_.spaces.empty()) {
            report_.functions.push_back(std::move(function_));
        } else {
            skipped_.push_back(function_.name);
        }
        function_ = Function{};
    }

    Diagnostics& diagnostics_;
    Report report_;
    std::size_t line_ = 0;
    std::string pending_type_;
    bool in_function_ = false;
    bool compute_ = false;
    bool saw_return_ = false;
    bool warned_mixed_ = false;
    std::size_t def_indent_ = 0;
    Function function_;
    std::map<std::string, SpaceAcc, std::less<>> spaces_;
    std::unordered_map<std::string, Tile> tiles_;
    std::vector<std::string> skipped_;
};

Report parse_dump_lines(io::LineReader& reader, const std::string& source,
                        Diagnostics& diagnostics) {
    DumpParser parser(source, diagnostics);
    std::string_view line;
    while (reader.next(line)) parser.line(line, reader.line_number());
    return parser.finish();
}

}  // namespace

Report parse_pass_dump(std::istream& in, const std::string& source, Diagnostics& diagnostics) {
    io::LineReader reader(in);
    return parse_dump_lines(reader, source, diagnostics);
}

Report parse_pass_dump(std::string_view text, const std::string& source, Diagnostics& diagnostics) {
    io::LineReader reader(text);
    return parse_dump_lines(reader, source, diagnostics);
}

void apply_dump_backend(Report& report, Backend backend, const std::string& how,
                        Diagnostics& diagnostics) {
    report.dump_backend = backend;
    report.dump_backend_source = how;
    for (auto& function : report.functions) {
        for (auto& usage : function.spaces) {
            auto limit = capacity(backend, usage.space);
            if (!limit) continue;
            // March-2026 dumps come from before the 2026-06-18 Vec safe cap.
            if (usage.space == "Vec" && report.dump_syntax == DumpSyntax::Old)
                limit = vec_legacy_limit(backend);
            usage.limit_text = format_size(*limit);
            std::uint64_t used = usage.exact_used.value_or(0);
            usage.usage_text =
                format_percent(100.0 * static_cast<double>(used) / static_cast<double>(*limit));
            for (const auto& buffer : usage.buffers) {
                if (buffer.allocated && buffer.addr_end > *limit) {
                    diagnostics.warn(
                        report.source, buffer.line,
                        fmt::format("'{}' {}: {} ends at {} B, past the {} limit of {} ({})",
                                    function.name, usage.space, buffer.name, buffer.addr_end,
                                    usage.space, format_size(*limit), to_string(backend)));
                }
            }
        }
    }
}

}  // namespace ptune::memreport
