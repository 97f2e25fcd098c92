#pragma once
/// @file trace_events.hpp
/// A streamed reader of Chrome trace event lists (`{"traceEvents": [...]}` or a top-level
/// array), as the core swimlane traces (upstream-2026-12.md §4) and the serving trace (§5)
/// write them: a SAX parser over the stream, one event at a time, with the line each event
/// starts on; never a DOM of the file. Only the scalar fields a reader needs are kept, plus
/// `args.name` (process and thread names).

#include <cstddef>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <utility>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"

namespace ptune::pipetrace {

/// One scalar field of an event: absent, a string, a number, or another JSON type.
struct TraceValue {
    enum class Kind { Absent, String, Number, Other };
    Kind kind = Kind::Absent;
    std::string text;   ///< the string (Kind::String)
    double number = 0;  ///< the number (Kind::Number)

    bool is_string() const { return kind == Kind::String; }
    bool is_number() const { return kind == Kind::Number; }
    /// The value as a key: the string, or the number's JSON spelling; "" when absent.
    std::string key() const;
};

/// One event of the list.
struct TraceEvent {
    std::size_t line = 0;  ///< 1-based line of its opening brace
    TraceValue name, ph, cat, pid, tid, ts, dur, id;
    std::string args_name;  ///< `args.name` when it is a string
};

/// The `(ts, dur)` of a complete (`X`) event, a missing `dur` being 0 (§4.5, §5.4). nullopt,
/// with `why` set, when `ts` or `dur` is not a number, `dur` is negative, or the end is not a
/// finite time.
std::optional<std::pair<double, double>> span_of(const TraceEvent& event, std::string& why);

/// How the list ended.
struct TraceEventsEnd {
    std::size_t events = 0;   ///< objects delivered
    bool found_list = false;  ///< a `traceEvents` array or a top-level array was seen
    /// The JSON broke off (truncated, or not JSON) after some events: the line and the parser's
    /// message; what came before was delivered.
    std::optional<std::size_t> syntax_error_line;
    std::string syntax_error;
};

/// Calls `on_event` for every object of the event list, in order. An element that is not an
/// object is a warning (file:line) and skipped. Errors: a top-level value that is neither an
/// object nor an array, and text that is not JSON before any event was read.
Result<TraceEventsEnd> read_trace_events(std::istream& in, const std::string& source,
                                         Diagnostics& diagnostics,
                                         const std::function<void(const TraceEvent&)>& on_event);

}  // namespace ptune::pipetrace
