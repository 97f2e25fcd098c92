// `mem-report --format json`'s functions written as text directly (write_function_json in
// findings.hpp): the bytes nlohmann's dump(2) gives for function_json(), without building and
// freeing a DOM of ~100 nodes per function (87,000 functions spent most of their 20 s of CPU
// in malloc and free).

#include <map>
#include <string_view>

#include "ptune/memreport/findings.hpp"
#include "ptune/render/pretty_json.hpp"

namespace ptune::memreport {

namespace {

using Pretty = render::PrettyJson;

// A buffer: buffer_json's keys (a peak's or an overlap's buffer) or, for a `buffers` row, the
// allocation as printed too; keys in sorted order.
enum class BufferForm { Live, Row };

void write_buffer(Pretty& json, const Buffer& buffer, BufferForm form = BufferForm::Live) {
    bool row = form == BufferForm::Row;
    json.begin_object();
    json.key("addr_begin");
    row && !buffer.allocated ? json.null() : json.number(buffer.addr_begin);
    json.key("addr_end");
    row && !buffer.allocated ? json.null() : json.number(buffer.addr_end);
    if (row) {
        json.key("allocated");
        json.boolean(buffer.allocated);
    }
    json.key("live_begin");
    json.number(buffer.live_begin);
    json.key("live_end");
    json.number(buffer.live_end);
    json.key("name");
    json.string(buffer.name);
    json.key("size_bytes");
    json.number(buffer.size_bytes);
    if (row) {
        json.key("size_text");
        json.string(buffer.size_text);
    }
    json.end_object();
}

void write_space(Pretty& json, const SpaceUsage& usage) {
    json.begin_object();
    json.key("limit_bytes");
    usage.limit_bytes ? json.number(*usage.limit_bytes) : json.null();
    json.key("limit_source");
    json.string(usage.limit_from_backend ? "backend" : "report");
    json.key("limit_text");
    json.string(usage.limit_text);
    json.key("memrefs");
    json.number(usage.memrefs);
    json.key("overlaps");
    json.begin_array();
    for (const auto& overlap : usage.overlaps) {
        json.element();
        json.begin_object();
        json.key("first");
        write_buffer(json, usage.buffers[overlap.first]);
        json.key("from");
        json.number(overlap.at);
        json.key("second");
        write_buffer(json, usage.buffers[overlap.second]);
        json.end_object();
    }
    json.end_array();
    json.key("peak");
    if (usage.peak) {
        json.begin_object();
        json.key("at");
        json.number(usage.peak->at);
        json.key("live");
        json.begin_array();
        for (std::size_t index : usage.peak->live) {
            json.element();
            write_buffer(json, usage.buffers[index]);
        }
        json.end_array();
        json.key("live_bytes");
        json.number(usage.peak->bytes);
        json.key("top_address");
        json.number(usage.peak->top);
        json.end_object();
    } else {
        json.null();
    }
    json.key("space");
    json.string(usage.space);
    json.key("usage_pct");
    json.number_or_null(usage.usage_pct);
    json.key("usage_text");
    json.string(usage.usage_text);
    json.key("used_bytes");
    json.number(usage.used_bytes);
    if (!usage.used_exact) {  // the bytes a rounded Used can be (see function_json)
        json.key("used_bytes_max");
        json.number(usage.used_max);
        json.key("used_bytes_min");
        json.number(usage.used_min);
    }
    json.key("used_exact");
    json.boolean(usage.used_exact);
    json.key("used_text");
    json.string(usage.used_text);
    json.end_object();
}

}  // namespace

void write_function_json(const Function& function, std::size_t indent, std::string& out) {
    Pretty json(out, indent);
    json.begin_object();
    json.key("buffers");
    // function_json assigns buffers[space] per space with rows: the last of a name wins, and
    // the object lists names in sorted order.
    std::map<std::string_view, const SpaceUsage*> with_rows;
    for (const auto& usage : function.spaces) {
        if (!usage.buffers.empty()) with_rows[usage.space] = &usage;
    }
    json.begin_object();
    for (const auto& [space, usage] : with_rows) {
        json.key(space);
        json.begin_array();
        for (const auto& buffer : usage->buffers) {
            json.element();
            write_buffer(json, buffer, BufferForm::Row);
        }
        json.end_array();
    }
    json.end_object();
    json.key("name");
    json.string(function.name);
    json.key("spaces");
    json.begin_array();
    for (const auto& usage : function.spaces) {
        json.element();
        write_space(json, usage);
    }
    json.end_array();
    json.end_object();
}

}  // namespace ptune::memreport
