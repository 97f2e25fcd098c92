// Streamed Chrome trace event lists (trace_events.hpp): nlohmann's SAX parser over an input
// iterator that counts the newlines it consumes, so every event and every syntax error has
// its line without the file ever being a DOM.

#include "ptune/pipetrace/trace_events.hpp"

#include <cmath>
#include <iterator>
#include <streambuf>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/json_document.hpp"

namespace ptune::pipetrace {

std::string TraceValue::key() const {
    switch (kind) {
        case Kind::String:
            return text;
        case Kind::Number:
            // Integral pids and tids read as written (`4`, not `4.0`).
            if (std::floor(number) == number && std::fabs(number) < 1e18)
                return fmt::format("{}", static_cast<long long>(number));
            return json_document::dump(nlohmann::json(number));
        default:
            return "";
    }
}

std::optional<std::pair<double, double>> span_of(const TraceEvent& event, std::string& why) {
    if (!event.ts.is_number()) {
        why = "no numeric \"ts\"";
        return std::nullopt;
    }
    double dur = 0;
    if (event.dur.kind != TraceValue::Kind::Absent) {
        if (!event.dur.is_number()) {
            why = "\"dur\" is not a number";
            return std::nullopt;
        }
        dur = event.dur.number;
    }
    if (dur < 0) {
        why = fmt::format("negative \"dur\" {}", dur);
        return std::nullopt;
    }
    if (!std::isfinite(event.ts.number + dur)) {
        why = "\"ts\" + \"dur\" is not a finite time";
        return std::nullopt;
    }
    return std::pair{event.ts.number, dur};
}

namespace {

// An input iterator over a streambuf that counts the newlines it has stepped over.
class LineCountingIterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = char;

    LineCountingIterator() = default;
    LineCountingIterator(std::streambuf* buffer, std::size_t* line)
        : buffer_(buffer), line_(line) {}

    char operator*() const { return std::char_traits<char>::to_char_type(buffer_->sgetc()); }
    LineCountingIterator& operator++() {
        if (buffer_->sbumpc() == '\n') ++*line_;
        return *this;
    }
    LineCountingIterator operator++(int) {
        LineCountingIterator before = *this;
        ++*this;
        return before;
    }
    bool operator==(const LineCountingIterator& other) const { return at_end() == other.at_end(); }

  private:
    bool at_end() const {
        return buffer_ == nullptr ||
               std::char_traits<char>::eq_int_type(buffer_->sgetc(), std::char_traits<char>::eof());
    }
    std::streambuf* buffer_ = nullptr;
    std::size_t* line_ = nullptr;
};

// The SAX handler: tracks the depth of the event list, of the current event and of its args.
class EventHandler {
  public:
    EventHandler(const std::string& source, Diagnostics& diagnostics, const std::size_t& line,
                 const std::function<void(const TraceEvent&)>& on_event)
        : source_(source), diagnostics_(diagnostics), line_(line), on_event_(on_event) {}

    bool null() { return value({TraceValue::Kind::Other, "", 0}); }
    bool boolean(bool) { return value({TraceValue::Kind::Other, "", 0}); }
    bool number_integer(std::int64_t v) {
        return value({TraceValue::Kind::Number, "", static_cast<double>(v)});
    }
    bool number_unsigned(std::uint64_t v) {
        return value({TraceValue::Kind::Number, "", static_cast<double>(v)});
    }
    bool number_float(double v, const std::string&) {
        return value({TraceValue::Kind::Number, "", v});
    }
    bool string(std::string& v) { return value({TraceValue::Kind::String, std::move(v), 0}); }
    bool binary(nlohmann::json::binary_t&) { return value({TraceValue::Kind::Other, "", 0}); }

    bool start_object(std::size_t) {
        if (depth_ == 0) {
            root_object_ = true;
        } else if (depth_ == list_depth_) {
            event_depth_ = depth_ + 1;
            event_ = TraceEvent{};
            event_.line = line_;
        } else if (depth_ == event_depth_ && event_key_ == "args") {
            args_depth_ = depth_ + 1;
            args_key_.clear();
        } else if (depth_ == 1 && root_object_ && root_key_ == "traceEvents") {
            not_a_list();
        }
        ++depth_;
        return true;
    }
    bool end_object() {
        --depth_;
        if (depth_ + 1 == args_depth_) args_depth_ = -1;
        if (depth_ + 1 == event_depth_) {
            event_depth_ = -1;
            ++end_.events;
            on_event_(event_);
        }
        return true;
    }
    bool start_array(std::size_t) {
        if (depth_ == 0) {
            list_depth_ = 1;
            end_.found_list = true;
        } else if (depth_ == 1 && root_object_ && root_key_ == "traceEvents") {
            list_depth_ = 2;
            end_.found_list = true;
        } else if (depth_ == list_depth_) {
            not_an_object();
        }
        ++depth_;
        return true;
    }
    bool end_array() {
        --depth_;
        if (depth_ + 1 == list_depth_) list_depth_ = -1;
        return true;
    }
    bool key(std::string& k) {
        if (depth_ == event_depth_) {
            event_key_ = std::move(k);
        } else if (depth_ == args_depth_) {
            args_key_ = std::move(k);
        } else if (depth_ == 1 && root_object_) {
            root_key_ = std::move(k);
        }
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) {
        std::string message = ex.what();
        if (auto bracket = message.find("] ");
            message.rfind("[json.", 0) == 0 && bracket != std::string::npos)
            message.erase(0, bracket + 2);
        error_line_ = line_;
        error_ = std::move(message);
        return false;
    }

    TraceEventsEnd& end() { return end_; }
    std::optional<std::size_t> error_line() const { return error_line_; }
    const std::string& error() const { return error_; }
    bool scalar_root() const { return scalar_root_; }

  private:
    bool value(TraceValue v) {
        if (depth_ == 0) {
            scalar_root_ = true;
            return false;
        }
        if (depth_ == event_depth_) {
            assign(std::move(v));
        } else if (depth_ == args_depth_) {
            if (args_key_ == "name" && v.is_string()) event_.args_name = std::move(v.text);
        } else if (depth_ == list_depth_) {
            not_an_object();
        } else if (depth_ == 1 && root_object_ && root_key_ == "traceEvents") {
            not_a_list();
        }
        return true;
    }
    void assign(TraceValue v) {
        static const std::pair<std::string_view, TraceValue TraceEvent::*> kFields[] = {
            {"name", &TraceEvent::name}, {"ph", &TraceEvent::ph},   {"cat", &TraceEvent::cat},
            {"pid", &TraceEvent::pid},   {"tid", &TraceEvent::tid}, {"ts", &TraceEvent::ts},
            {"dur", &TraceEvent::dur},   {"id", &TraceEvent::id}};
        for (const auto& [name, field] : kFields) {
            if (event_key_ == name) {
                event_.*field = std::move(v);
                return;
            }
        }
    }
    void not_an_object() {
        diagnostics_.warn(source_, line_, "trace event is not a JSON object; skipped");
    }
    void not_a_list() {
        diagnostics_.warn(source_, line_, "\"traceEvents\" is not an array; no events read");
    }

    const std::string& source_;
    Diagnostics& diagnostics_;
    const std::size_t& line_;
    const std::function<void(const TraceEvent&)>& on_event_;
    int depth_ = 0;
    int list_depth_ = -1;
    int event_depth_ = -1;
    int args_depth_ = -1;
    bool root_object_ = false;
    bool scalar_root_ = false;
    std::string root_key_, event_key_, args_key_;
    TraceEvent event_;
    TraceEventsEnd end_;
    std::optional<std::size_t> error_line_;
    std::string error_;
};

}  // namespace

Result<TraceEventsEnd> read_trace_events(std::istream& in, const std::string& source,
                                         Diagnostics& diagnostics,
                                         const std::function<void(const TraceEvent&)>& on_event) {
    std::size_t line = 1;
    EventHandler handler(source, diagnostics, line, on_event);
    LineCountingIterator first(in.rdbuf(), &line);
    LineCountingIterator last;
    bool complete = nlohmann::json::sax_parse(first, last, &handler);
    if (handler.scalar_root())
        return Error{"not a trace: the top level is neither an object nor an array of events",
                     source, 0};
    TraceEventsEnd end = handler.end();
    if (!complete) {
        std::string message = handler.error().empty() ? "the JSON stops here" : handler.error();
        if (end.events == 0)
            return Error{fmt::format("not a trace: {}", message), source,
                         handler.error_line().value_or(line)};
        end.syntax_error_line = handler.error_line().value_or(line);
        end.syntax_error = std::move(message);
    }
    return end;
}

}  // namespace ptune::pipetrace
