#pragma once
// The byte level of the Chrome-trace JSON writer (trace_json.cpp): colours and flow names as
// upstream writes them, JSON string escaping, the Sink that renders straight into the blocks of
// an io::BlockBuf, and JsonArgs, the JSON sink of visit_slice_args (trace_args.hpp).

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/block_buf.hpp"
#include "ptune/core/text.hpp"
#include "ptune/core/version.hpp"
#include "ptune/swimlane/reader.hpp"
#include "trace_args.hpp"
#include "trace_model.hpp"

namespace ptune::swimlane::detail::json_out {

inline std::string_view phase_colour(PhaseKind kind) {
    switch (kind) {
        case PhaseKind::Complete:
            return "good";
        case PhaseKind::Dispatch:
            return "terrible";
        case PhaseKind::AsyncPoll:
            return "yellow";
        case PhaseKind::Release:
            return "olive";
        case PhaseKind::Dummy:
            return "grey";
        case PhaseKind::EarlyDispatch:
            return "rail_animation";
        case PhaseKind::Drain:
            return "cq_build_running";
        case PhaseKind::DrainPrepare:
            return "cq_build_attempt_runnable";
        case PhaseKind::DrainPublish:
            return "cq_build_attempt_passed";
        case PhaseKind::GraphPrepare:
            return "rail_animation";
        case PhaseKind::Resolve:
        case PhaseKind::ResolveStandalone:
            return "vsync_highlight_color";
        // September kinds (upstream-2026-09.md §1.6).
        case PhaseKind::Bootstrap:
            return "rail_animation";
        case PhaseKind::Fanin:
        case PhaseKind::StateProbe:
            return "cq_build_running";
        case PhaseKind::ReadyClaim:
            return "cq_build_attempt_runnable";
        case PhaseKind::ReadySteal:
        case PhaseKind::Worksteal:
            return "cq_build_attempt_failed";
        case PhaseKind::DirectRefill:
        case PhaseKind::Refill:
            return "cq_build_attempt_passed";
        case PhaseKind::Idle:
            return "grey";
        default:
            return "generic_work";
    }
}

inline std::string_view orch_colour(std::string_view phase) {
    if (phase == "orch_submit" || phase == "orch_fanin") return "rail_animation";
    if (phase == "orch_sync") return "thread_state_iowait";
    if (phase == "orch_alloc") return "terrible";
    if (phase == "orch_params") return "good";
    if (phase == "orch_lookup") return "thread_state_running";
    if (phase == "orch_insert") return "olive";
    return "generic_work";
}

inline std::string_view flow_name(FlowName name) {
    switch (name) {
        case FlowName::Dependency:
            return "dependency";
        case FlowName::HbViolation:
            return "hb_violation";
        case FlowName::Complete:
            return "complete";
        case FlowName::CompleteReady:
            return "complete\\u2192ready";
        case FlowName::Dispatch:
            return "dispatch";
        case FlowName::SubmitDispatch:
            return "submit\\u2192dispatch";
    }
    return "flow";
}

/// Appends a JSON string literal (quotes, escapes; invalid UTF-8 replaced).
inline void append_json_string(std::string& out, std::string_view text) {
    std::string sanitized;
    if (!text::is_valid_utf8(text)) {
        sanitized = text::sanitize_utf8(text);
        text = sanitized;
    }
    out += '"';
    for (char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20)
                    fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c));
                else
                    out += c;
        }
    }
    out += '"';
}

/// Writers into memory a caller has reserved (Sink::reserve): no room check and no member
/// updated on the way, so a bounded event (a flow, a ready-queue sample: most of a trace's
/// events) is written with its cursor in a register. Each returns the end of what it wrote.
namespace put {

/// A string literal: its length is a compile-time constant, so the copy is inlined.
template <std::size_t N>
[[gnu::always_inline]] inline char* lit(char* at, const char (&s)[N]) {
    std::memcpy(at, s, N - 1);
    return at + N - 1;
}
/// The first `size` bytes of `block`: all N are copied (a constant size) and the rest is
/// written over next; N bytes must be reserved.
template <std::size_t N>
[[gnu::always_inline]] inline char* prefix(char* at, const std::array<char, N>& block,
                                           std::size_t size) {
    std::memcpy(at, block.data(), N);
    return at + size;
}
/// `value` below 10^8 in decimal, with 8 bytes of room at `at` (what follows the digits is
/// written over next): all eight digits are made at once in one 64-bit word, a byte each
/// (two 4-digit halves, split into pairs, then into digits, by multiplying by reciprocals), and
/// the leading zeros shifted out. No loop and no branch on the width: a trace's numbers change
/// width from one to the next (a time of 6 digits, a duration of 2), which a loop per digit
/// pair mispredicted.
[[gnu::always_inline]] inline char* below_1e8(char* at, std::uint32_t value) {
    const std::uint64_t halves = (value / 10000) | (std::uint64_t{value % 10000} << 32);
    const std::uint64_t hundreds = ((halves * 10486) >> 20) & 0x0000007F0000007Fu;  // lane / 100
    const std::uint64_t pairs = hundreds | ((halves - hundreds * 100) << 16);
    const std::uint64_t tens = ((pairs * 103) >> 10) & 0x000F000F000F000Fu;  // lane / 10
    const std::uint64_t digits = tens | ((pairs - tens * 10) << 8);
    // Leading zero digits are the low zero bytes (the first digit is the lowest byte).
    const unsigned zeros = digits ? static_cast<unsigned>(std::countr_zero(digits)) / 8 : 7;
    const std::uint64_t ascii = (digits + 0x3030303030303030u) >> (8 * zeros);
    std::memcpy(at, &ascii, 8);
    return at + (8 - zeros);
}
/// At most 20 bytes, with at least 8 of room.
[[gnu::always_inline]] inline char* unsigned_integer(char* at, std::uint64_t value) {
    if (std::endian::native == std::endian::little && value < 100000000)  // (below_1e8's order)
        return below_1e8(at, static_cast<std::uint32_t>(value));
    return text::write_decimal(at, value, text::decimal_width(value));
}
/// At most 20 bytes.
template <class Int>
[[gnu::always_inline]] inline char* integer(char* at, Int value) {
    std::uint64_t magnitude = static_cast<std::uint64_t>(value);
    if constexpr (std::is_signed_v<Int>) {
        if (value < 0) {
            *at++ = '-';
            magnitude = 0 - magnitude;
        }
    }
    return unsigned_integer(at, magnitude);
}
/// Microseconds with exactly three decimals from integer ns (`-12.345`): at most 21 bytes.
[[gnu::always_inline]] inline char* us(char* at, std::int64_t ns) {
    std::uint64_t magnitude = static_cast<std::uint64_t>(ns);
    if (ns < 0) {
        *at++ = '-';
        magnitude = 0 - magnitude;
    }
    const std::uint64_t whole = magnitude / 1000;
    at = unsigned_integer(at, whole);
    *at++ = '.';
    return text::write_three_digits(at, static_cast<unsigned>(magnitude - whole * 1000));
}

}  // namespace put

/// The output buffer: blocks handed to the stream whole (a few hundred writes for a 100 MB
/// trace); numbers go in with to_chars, text with memcpy, no formatting engine. Over a BlockBuf
/// (BackgroundBuf, the gzip writer) the blocks are its own, so nothing is copied on the way out.
class Sink {
  public:
    explicit Sink(std::ostream& out)
        : out_(out), blocks_(dynamic_cast<io::BlockBuf*>(out.rdbuf())) {
        if (blocks_) {
            take_space();
        } else {
            own_.reset(new char[kOwnSize]);
            buf_ = own_.get();
            size_ = kOwnSize;
        }
    }
    Sink(const Sink&) = delete;
    Sink& operator=(const Sink&) = delete;

    void text(std::string_view s) {
        while (s.size() > size_ - len_) {
            std::size_t part = size_ - len_;
            std::memcpy(buf_ + len_, s.data(), part);
            len_ += part;
            s.remove_prefix(part);
            flush();
        }
        std::memcpy(buf_ + len_, s.data(), s.size());
        len_ += s.size();
    }
    /// A string literal: its length is a compile-time constant, so the copy is inlined.
    template <std::size_t N>
    void lit(const char (&s)[N]) {
        room(N - 1);
        commit(put::lit(buf_ + len_, s));
    }
    /// The first `size` bytes of `block`: all N are copied (a constant size, so the copy is
    /// inlined as for `lit`) and the rest is written over next.
    template <std::size_t N>
    void prefix(const std::array<char, N>& block, std::size_t size) {
        room(N);
        commit(put::prefix(buf_ + len_, block, size));
    }
    void ch(char c) {
        if (len_ == size_) flush();
        buf_[len_++] = c;
    }
    template <class Int>
    void integer(Int value) {
        room(24);
        len_ = static_cast<std::size_t>(put::integer(buf_ + len_, value) - buf_);
    }
    /// Microseconds with exactly three decimals from integer ns (`-12.345`).
    void us(std::int64_t ns) {
        room(24);
        len_ = static_cast<std::size_t>(put::us(buf_ + len_, ns) - buf_);
    }
    /// The most reserve() holds.
    static constexpr std::size_t kMaxReserve = 4096;
    /// `n` bytes of room at the end of what was written, to be written with the `put` writers
    /// and ended by commit(the end written); `n` at most kMaxReserve.
    /// Inlined (an arg of a slice is a reservation, a few hundred thousand a trace); what is
    /// rare, a flush or a reservation too large, is a call.
    [[gnu::always_inline]] char* reserve(std::size_t n) {
        if (size_ - len_ < n) [[unlikely]]
            make_room(n);
        return buf_ + len_;
    }
    void commit(char* end) { len_ = static_cast<std::size_t>(end - buf_); }
    /// A JSON string literal: quotes, escapes, invalid UTF-8 replaced.
    void string(std::string_view s) {
        if (!plain_ascii(s)) {
            scratch_.clear();
            append_json_string(scratch_, s);
            text(scratch_);
            return;
        }
        quoted(s);
    }
    /// `"s"`, as it is (no escapes needed).
    void quoted(std::string_view s) {
        if (s.size() > kMaxReserve - 2) {
            ch('"');
            text(s);
            ch('"');
            return;
        }
        char* at = reserve(s.size() + 2);
        *at++ = '"';
        std::memcpy(at, s.data(), s.size());
        at += s.size();
        *at++ = '"';
        commit(at);
    }
    /// Whether `s` needs no escapes: printable ASCII without `"` or `\`; 8 bytes at a time.
    static bool plain_ascii(std::string_view s) {
        const char* p = s.data();
        std::size_t n = s.size();
        for (; n >= 8; p += 8, n -= 8)
            if (text::json_string_stops(text::load_word(p)) != 0) return false;
        for (; n > 0; ++p, --n) {
            const auto u = static_cast<unsigned char>(*p);
            if (u < 0x20 || u >= 0x80 || u == '"' || u == '\\') return false;
        }
        return true;
    }
    void flush() {
        if (blocks_) {
            blocks_->submit(len_);
            take_space();
        } else {
            out_.write(buf_, static_cast<std::streamsize>(len_));
        }
        len_ = 0;
    }

    /// Starts on the BlockBuf's put area again, after its owner reset it (what was rendered
    /// before is flushed and taken).
    void reopen() {
        len_ = 0;
        take_space();
    }

  private:
    static constexpr std::size_t kOwnSize = 256u << 10;
    void room(std::size_t n) {
        if (size_ - len_ < n) flush();
    }
    [[gnu::noinline]] void make_room(std::size_t n) {
        flush();
        if (size_ - len_ < n) throw std::logic_error("trace JSON writer: a reservation too large");
    }
    void take_space() {
        auto space = blocks_->space();
        buf_ = space.data();
        size_ = space.size();
    }

    std::ostream& out_;
    io::BlockBuf* blocks_;
    std::unique_ptr<char[]> own_;
    char* buf_ = nullptr;
    std::size_t size_ = 0;
    std::size_t len_ = 0;
    std::string scratch_;
};

/// A key's JSON form, `"event-hint":`, made at compile time from its name.
struct QuotedKey {
    std::array<char, 40> text{};
    std::size_t size = 0;
};
inline constexpr auto kQuotedKeys = [] {
    std::array<QuotedKey, kArgKeyName.size()> keys{};
    for (std::size_t i = 0; i < keys.size(); ++i) {
        QuotedKey& key = keys[i];
        key.text[key.size++] = '"';
        for (char c : kArgKeyName[i]) key.text[key.size++] = c;  // (a longer name fails to compile)
        key.text[key.size++] = '"';
        key.text[key.size++] = ':';
    }
    return keys;
}();

/// The sink of visit_slice_args for the JSON output: each arg as a member of the `args` object,
/// `{` before the first (the caller closes it).
class JsonArgs {
  public:
    explicit JsonArgs(Sink& out) : out_(out) {}

    /// arg::Int and arg::Uint: the number as is.
    template <class Number>
    requires std::is_same_v<Number, arg::Int> || std::is_same_v<Number, arg::Uint>
    void operator()(ArgKey k, Number v) {
        char* at = out_.reserve(kMaxKey + 20);
        out_.commit(put::integer(key(at, k), v.value));
    }
    [[gnu::always_inline]] void operator()(ArgKey k, arg::Micros v) {
        char* at = out_.reserve(kMaxKey + 21);
        out_.commit(put::us(key(at, k), v.ns));
    }
    void operator()(ArgKey k, arg::Text v) {
        key(k);
        out_.string(v.value);
    }
    [[gnu::always_inline]] void operator()(ArgKey k, arg::PlainText v) {
        key(k);
        out_.quoted(v.value);
    }
    void operator()(ArgKey k, arg::Bool v) {
        key(k);
        if (v.value)
            out_.lit("true");
        else
            out_.lit("false");
    }
    void operator()(ArgKey k, arg::Depths v) {
        char* at = key(out_.reserve(kMaxKey + 2 + v.values.size() * 21), k);
        // Ready-queue depths are nearly always single digits: `[d,d,d]` at once.
        const auto a = static_cast<std::uint32_t>(v.values[0]),
                   b = static_cast<std::uint32_t>(v.values[1]),
                   c = static_cast<std::uint32_t>(v.values[2]);
        if (a < 10 && b < 10 && c < 10) {
            const char digits[7] = {
                '[', static_cast<char>('0' + a), ',', static_cast<char>('0' + b),
                ',', static_cast<char>('0' + c), ']'};
            std::memcpy(at, digits, sizeof digits);
            out_.commit(at + sizeof digits);
            return;
        }
        *at++ = '[';
        for (std::size_t i = 0; i < v.values.size(); ++i) {
            if (i) *at++ = ',';
            at = put::integer(at, v.values[i]);
        }
        *at++ = ']';
        out_.commit(at);
    }
    void operator()(ArgKey k, arg::TaskHint v) {
        char* at = key(out_.reserve(kMaxKey + 64 + kMaxTaskLabel), k);
        at = write_task_label(put::lit(at, "\"Task:"), v.row.task_id, v.labels);
        at = put::integer(put::lit(at, ", FuncId:"), v.row.func_id);
        at = put::integer(put::lit(at, ", CoreId:"), v.row.core_id);
        *at++ = '"';
        out_.commit(at);
    }

  private:
    // Inlined, as the small writers above: a worker slice writes seven args, and a call for
    // each showed in the profile (inlining the integer and string writers too cost more).
    [[gnu::always_inline]] void key(ArgKey k) { out_.commit(key(out_.reserve(kMaxKey), k)); }
    /// The separator and the quoted key at `at` (at most kMaxKey bytes); returns their end.
    [[gnu::always_inline]] char* key(char* at, ArgKey k) {
        *at++ = separator_;
        separator_ = ',';
        const QuotedKey& quoted = kQuotedKeys[static_cast<std::size_t>(k)];
        return put::prefix(at, quoted.text, quoted.size);
    }
    static constexpr std::size_t kMaxKey = 1 + sizeof(QuotedKey::text);

    Sink& out_;
    char separator_ = '{';
};

}  // namespace ptune::swimlane::detail::json_out
