// Typed fields of each hint code, read by the message templates of perf-hints.md §3–§6.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "ptune/core/text.hpp"
#include "ptune/hints/model.hpp"
#include "ptune/hints/parser.hpp"

namespace ptune::hints {

namespace {

using nlohmann::json;

// A cursor over a message: each step consumes text on success and leaves `ok_` false on the
// first mismatch, so a template reads as a straight sequence of steps.
class Scanner {
  public:
    explicit Scanner(std::string_view text) : rest_(text) {}

    bool ok() const { return ok_; }
    bool done() const { return ok_ && rest_.empty(); }
    std::string_view rest() const { return rest_; }

    // Consumes `literal` if the text continues with it (never fails the scan).
    bool accept(std::string_view literal) {
        if (!ok_ || rest_.substr(0, literal.size()) != literal) return false;
        rest_.remove_prefix(literal.size());
        return true;
    }
    void expect(std::string_view literal) {
        if (!accept(literal)) ok_ = false;
    }
    std::int64_t number() {
        if (!ok_) return 0;
        std::size_t length = rest_.size() > 0 && rest_[0] == '-' ? 1 : 0;
        while (length < rest_.size() && std::isdigit(static_cast<unsigned char>(rest_[length]))) {
            ++length;
        }
        auto value = text::parse_int(rest_.substr(0, length));
        if (!value) {
            ok_ = false;
            return 0;
        }
        rest_.remove_prefix(length);
        return *value;
    }
    // The text up to (not including) `stop`, which must follow; empty text fails.
    std::string until(std::string_view stop) {
        if (!ok_) return {};
        std::size_t at = rest_.find(stop);
        if (at == std::string_view::npos || at == 0) {
            ok_ = false;
            return {};
        }
        std::string value(rest_.substr(0, at));
        rest_.remove_prefix(at);
        return value;
    }
    // A run of non-space characters (the em dash the templates write between clauses).
    void skip_word() {
        std::size_t length = 0;
        while (length < rest_.size() && rest_[length] != ' ') ++length;
        if (length == 0) ok_ = false;
        rest_.remove_prefix(length);
    }

  private:
    std::string_view rest_;
    bool ok_ = true;
};

// The leading op of PH-AT messages: `tile.matmul: …`. nullopt when the message starts otherwise
// (`chained-matmul [M, N] …`).
std::optional<std::string> leading_op(std::string_view message) {
    if (message.substr(0, 5) != "tile.") return std::nullopt;
    std::size_t end = message.find_first_of(": ");
    return std::string(message.substr(0, end));
}

json op_or_null(std::string_view message) {
    auto op = leading_op(message);
    return op ? json(*op) : json(nullptr);
}

// PH001, all three template generations (perf-hints.md §4).
bool read_ph001(std::string_view message, Entry& entry, json& f) {
    Scanner s(message);
    f["op"] = s.until(" has innermost dim = ");
    s.expect(" has innermost dim = ");
    f["innermost_bytes"] = s.number();
    s.expect("B");
    int generation = 1;
    if (s.accept(" (tile ")) {
        generation = 2;
        f["dtype"] = s.until("[");
        s.expect("[");
        f["innermost_elems"] = s.number();
        s.expect("], target_memory=");
        f["target_memory"] = s.until(")");
        s.expect(")");
    }
    if (s.accept("; moves ")) {
        generation = 3;
        f["transfer_bytes"] = s.number();
        s.expect("B as ");
        f["rows"] = s.number();
        s.expect(" x ");
        f["row_bytes"] = s.number();
        s.expect("B rows");
    }
    s.expect("; recommended >= ");
    f["recommended_bytes"] = s.number();
    s.expect("B for backend ");
    f["arch"] = s.until(" ");
    s.expect(" (L2 cache line = ");
    f["l2_line_bytes"] = s.number();
    s.expect("B). Consider increasing tile shape on the innermost axis.");
    if (generation >= 2) f["occurrences"] = 1;  // printed only when > 1
    if (s.accept(" (")) {
        f["occurrences"] = s.number();
        s.expect(" occurrences at this source location)");
    }
    entry.ph001_template = generation;
    return s.done();
}

// PH-MR-001 (perf-hints.md §5): slot-bound or space-pressure branch.
bool read_memory_reuse(std::string_view message, json& f) {
    Scanner s(message);
    s.expect("software pipelining requested depth ");
    f["requested_depth"] = s.number();
    s.expect(" for pipeline group ");
    f["pipeline_group"] = s.number();
    s.expect(" in ");
    f["space"] = s.until(",");
    s.expect(", but only ");
    f["achieved_depth"] = s.number();
    s.expect(" of ");
    s.number();
    s.expect(" buffers fit (");
    f["aligned_slot_bytes"] = s.number();
    s.expect(" B per stage, ");
    f["free_bytes"] = s.number();
    s.expect(" B free");
    f["reserved_bytes"] = nullptr;
    if (s.accept(" after ")) {
        f["reserved_bytes"] = s.number();
        s.expect(" B reserved");
    }
    s.expect(") ");
    s.skip_word();
    s.expect(" stages ");
    s.number();
    s.expect(" apart share storage and serialize. ");
    f["max_per_stage_bytes"] = nullptr;
    if (s.accept("This operand alone needs ")) {
        f["cause"] = "slot_bound";
        s.number();
        s.expect(" B for depth ");
        s.number();
        s.expect("; shrink the per-stage tile to <= ");
        f["max_per_stage_bytes"] = s.number();
        s.expect(" B, or reduce the pipeline depth (e.g. `pl.pipeline(stage=)`) to ");
        s.number();
        s.expect(".");
    } else {
        f["cause"] = "space_pressure";
        s.expect("The operand would fit depth ");
        s.number();
        s.expect(
            " on its own, but co-resident buffers / other pipeline groups over-subscribe the "
            "space; relieve the co-residents (smaller or fewer co-live tiles) or reduce the "
            "pipeline depth to ");
        s.number();
        s.expect(".");
    }
    return s.done();
}

bool read_dsa(std::string_view message, json& f) {
    Scanner s(message);
    s.expect(
        "DSA-RP's bounded strict search did not retain all software-pipeline buffer separations "
        "for '");
    f["function"] = s.until("'");
    s.expect("'; ");
    f["overlapping_pairs"] = s.number();
    s.expect(" of ");
    f["relaxed_pairs"] = s.number();
    s.expect(" relaxed pair(s) reuse physical storage. Pipeline overlap may be reduced.");
    return s.done();
}

// `chained-matmul [M, N]` prefix of PH-AT-006/009/010.
bool read_chained_shape(Scanner& s, json& f) {
    s.expect("chained-matmul [");
    f["M"] = s.number();
    s.expect(", ");
    f["N"] = s.number();
    s.expect("] ");
    return s.ok();
}

bool read_auto_tile(std::string_view code, std::string_view message, const Entry& entry, json& f) {
    if (code == "PH-AT-006" && message.substr(0, 15) == "chained-matmul ") {
        Scanner s(message);
        f["op"] = nullptr;
        read_chained_shape(s, f);
        s.expect("Mat scratch (");
        f["scratch_bytes"] = s.number();
        s.expect(" bytes) exceeds Mat capacity (");
        f["mat_capacity_bytes"] = s.number();
        s.expect(" bytes)");
        return s.ok();
    }
    if (code == "PH-AT-009" || code == "PH-AT-010") {
        Scanner s(message);
        f["op"] = nullptr;
        read_chained_shape(s, f);
        s.expect(code == "PH-AT-009" ? "intermediate is " : "cast to ");
        std::string dtype = s.until(code == "PH-AT-009" ? ";" : " ");
        f["dtype"] = dtype;
        return s.ok();
    }
    f["op"] = op_or_null(message);
    if (code == "PH-AT-007") {
        Scanner s(message);
        s.until(": ");
        s.expect(": K=");
        f["K"] = s.number();
        s.expect(" is not a multiple of the cube fractal ");
        f["fractal"] = s.number();
        // The older (2026-05-06) wording is kept with the op alone (parsed generically).
        if (!s.ok()) {
            f.erase("K");
            f.erase("fractal");
        }
        return true;
    }
    if (code == "PH-AT-008") {
        Scanner s(message);
        s.until(": ");
        s.expect(": ChooseL0Tile fallback. Matmul shape (M=");
        f["M"] = s.number();
        s.expect(", N=");
        f["N"] = s.number();
        s.expect(", K=");
        f["K"] = s.number();
        s.expect(") is below the cube minimum tile dimension ");
        f["min_dim"] = s.number();
        s.expect("; tile shape padded up to (");
        json tile = json::array();
        tile.push_back(s.number());
        s.expect(", ");
        tile.push_back(s.number());
        s.expect(", ");
        tile.push_back(s.number());
        s.expect(")");
        f["tile"] = std::move(tile);
        return s.ok();
    }
    if (code == "PH-AT-005") f["multiline"] = entry.physical_lines > 1;
    // 003, 005, 011 and the other 006 variants carry no numbers worth typing; the op must lead.
    return !f["op"].is_null() || code == "PH-AT-006";
}

}  // namespace

bool is_known_code(std::string_view code) {
    static constexpr std::array<std::string_view, 11> kCodes = {
        "PH001",     "PH-MR-001", "PH-DSA-001", "PH-AT-003", "PH-AT-005", "PH-AT-006",
        "PH-AT-007", "PH-AT-008", "PH-AT-009",  "PH-AT-010", "PH-AT-011"};
    for (auto known : kCodes) {
        if (known == code) return true;
    }
    return false;
}

std::optional<int> dtype_bits(std::string_view dtype) {
    struct Width {
        std::string_view name;
        int bits;
    };
    static constexpr std::array<Width, 21> kWidths = {{
        {"bool", 1},   {"int4", 4},    {"uint4", 4},     {"fp4", 4},     {"hf4", 4},
        {"int8", 8},   {"uint8", 8},   {"fp8e4m3fn", 8}, {"fp8e5m2", 8}, {"fp8e8m0", 8},
        {"hf8", 8},    {"int16", 16},  {"uint16", 16},   {"fp16", 16},   {"bfloat16", 16},
        {"int32", 32}, {"uint32", 32}, {"fp32", 32},     {"int64", 64},  {"uint64", 64},
        {"index", 64},
    }};
    for (const auto& width : kWidths) {
        if (width.name == dtype) return width.bits;
    }
    return std::nullopt;
}

void extract_fields(Entry& entry) {
    // Built as JSON (the templates' natural form), then packed: the entry keeps only the bytes.
    json f = json::object();
    entry.ph001_template = 0;
    bool matched = true;
    const std::string& code = entry.code;
    if (code == "PH001") {
        matched = read_ph001(entry.message, entry, f);
    } else if (code == "PH-MR-001") {
        matched = read_memory_reuse(entry.message, f);
    } else if (code == "PH-DSA-001") {
        matched = read_dsa(entry.message, f);
    } else if (code.rfind("PH-AT-", 0) == 0 && is_known_code(code)) {
        matched = read_auto_tile(code, entry.message, entry, f);
    } else {
        // Codes added after the spec: keep the op when it leads, as PH-AT messages do.
        if (auto op = leading_op(entry.message)) f["op"] = *op;
        entry.fields = Fields(f);
        return;
    }
    if (!matched) {
        // Drop what a half-read template left behind; keep only what is read generically.
        f = json::object();
        entry.ph001_template = 0;
        if (auto op = leading_op(entry.message)) f["op"] = *op;
        entry.template_matched = false;
    }
    entry.fields = Fields(f);
}

}  // namespace ptune::hints
