// write_trace: builds the layout once and renders it as JSON, gzip-compressed JSON or protobuf.

#include "ptune/swimlane/trace.hpp"

#include <streambuf>

#include "background_buf.hpp"
#include "ptune/core/gzip_writer.hpp"
#include "trace_model.hpp"
#include "trace_overhead.hpp"

namespace ptune::swimlane {

namespace {

/// Renders into `out` through a BackgroundBuf (a failed write shows in `out`'s state).
template <class Render>
void render_in_background(std::ostream& out, Render&& render) {
    detail::BackgroundBuf buf(out);
    std::ostream staged(&buf);
    render(staged);
    buf.finish();
}

}  // namespace

TraceOptions trace_options(std::string_view format, std::string_view output, std::string_view align,
                           std::string_view flows, bool overhead) {
    TraceOptions options;
    if (format == "proto")
        options.format = TraceFormat::Proto;
    else if (output.ends_with(".gz"))
        options.format = TraceFormat::JsonGzip;
    options.align = align == "absolute" ? TimeAlign::Absolute : TimeAlign::Start;
    options.overhead = overhead;
    options.flows = flows == "block"  ? FlowMode::Block
                    : flows == "none" ? FlowMode::None
                                      : FlowMode::Instance;
    return options;
}

Status write_trace(std::span<const TraceSource> sources, const TraceOptions& options,
                   std::ostream& out, TraceCounts& counts) {
    auto model =
        detail::build_trace_model(sources, options.align, options.flows, options.multi_rank);
    if (!model) return model.error();
    if (options.overhead) detail::add_overhead_counters(*model);
    switch (options.format) {
        case TraceFormat::Json:
            // Two threads render the events and make the write system calls, in order
            // (trace_json.cpp), so no BackgroundBuf.
            detail::write_json(*model, out);
            break;
        case TraceFormat::JsonGzip: {
            // Rendered straight into the gzip writer's blocks, which its workers compress on
            // every core while rendering goes on, spliced into one gzip member
            // (core/gzip_writer.hpp). No BackgroundBuf: its copy and thread would only add CPU
            // to a run that compression already keeps both cores busy for.
            io::ParallelGzipBuf buf(out);
            std::ostream gz(&buf);
            detail::write_json(*model, gz, {.two_threads = false});
            if (!buf.finish())
                return Error{"gzip compression failed", "", 0, ExitCode::InternalError};
            break;
        }
        case TraceFormat::Proto:
            render_in_background(
                out, [&](std::ostream& staged) { detail::write_proto(*model, staged); });
            break;
    }
    counts = model->counts;
    if (!out.good()) return Error{"write error", "", 0, ExitCode::InputError};
    return ok_status();
}

}  // namespace ptune::swimlane
