#pragma once
/// @file json_stream.hpp
/// JSON with large arrays written one element at a time: `mem-report --format json` streams
/// both its findings and its functions, bench-gate its cases, and every JSON report its
/// findings (write_report_json).

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptune::render {

struct Report;

/// An array made element by element: `count` elements, `element(i)` makes the i-th.
struct LazyArray {
    std::string
        key;  ///< a top-level key, or a JSON pointer (`/runs/0/results`) when it starts with '/'
    std::size_t count = 0;
    std::function<nlohmann::json(std::size_t)> element;
    /// When set, used instead of `element`: appends the i-th element's pretty text (dump(2)) to
    /// `text` with every line after the first indented `indent` more spaces, for callers that
    /// write large arrays without a DOM per element.
    std::function<void(std::size_t i, std::size_t indent, std::string& text)> write = {};
};

/// Writes `value` as write_json(pretty) would with `value[array.key]` set to each array's
/// elements, made one at a time: no array exists as a DOM.
void write_json_with_arrays(nlohmann::json value, const std::vector<LazyArray>& arrays,
                            std::ostream& out);

/// Writes to_json(report) as write_json(pretty) would, with `arrays` as write_json_with_arrays
/// does and the report's findings (when it includes them) written one at a time
/// (write_finding_json): no DOM of its findings either.
void write_report_json(const Report& report, std::vector<LazyArray> arrays, std::ostream& out);

}  // namespace ptune::render
