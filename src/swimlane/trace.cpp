// write_trace: builds the layout once and renders it as JSON, gzip-compressed JSON or protobuf.

#include "ptune/swimlane/trace.hpp"

#include <zlib.h>

#include <streambuf>

#include "background_buf.hpp"
#include "trace_model.hpp"
#include "trace_overhead.hpp"

namespace ptune::swimlane {

namespace {

/// A streambuf that gzip-compresses everything written to it into another stream.
class GzipBuf : public std::streambuf {
  public:
    explicit GzipBuf(std::ostream& sink) : sink_(sink), in_(1u << 16), out_(1u << 16) {
        // windowBits 15 + 16 selects the gzip wrapper; level 6 is zlib's default trade-off.
        ok_ = deflateInit2(&z_, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
        setp(in_.data(), in_.data() + in_.size());
    }
    ~GzipBuf() override {
        if (ok_) deflateEnd(&z_);
    }
    GzipBuf(const GzipBuf&) = delete;
    GzipBuf& operator=(const GzipBuf&) = delete;

    /// Flushes the last block and the gzip trailer; false on a zlib or stream error.
    bool finish() {
        bool good = compress(Z_FINISH);
        sink_.flush();
        return good && sink_.good();
    }

  protected:
    int_type overflow(int_type ch) override {
        if (!compress(Z_NO_FLUSH)) return traits_type::eof();
        if (!traits_type::eq_int_type(ch, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(ch);
            pbump(1);
        }
        return traits_type::not_eof(ch);
    }
    int sync() override { return compress(Z_NO_FLUSH) ? 0 : -1; }

  private:
    bool compress(int flush) {
        if (!ok_) return false;
        z_.next_in = reinterpret_cast<Bytef*>(pbase());
        z_.avail_in = static_cast<uInt>(pptr() - pbase());
        int status = Z_OK;
        do {
            z_.next_out = reinterpret_cast<Bytef*>(out_.data());
            z_.avail_out = static_cast<uInt>(out_.size());
            status = deflate(&z_, flush);
            if (status == Z_STREAM_ERROR) return ok_ = false;
            sink_.write(out_.data(), static_cast<std::streamsize>(out_.size() - z_.avail_out));
        } while (z_.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END));
        setp(in_.data(), in_.data() + in_.size());
        return sink_.good();
    }

    std::ostream& sink_;
    std::vector<char> in_, out_;
    z_stream z_{};
    bool ok_ = false;
};

/// Renders into `out` through a BackgroundBuf (a failed write shows in `out`'s state).
template <class Render>
void render_in_background(std::ostream& out, Render&& render) {
    detail::BackgroundBuf buf(out);
    std::ostream staged(&buf);
    render(staged);
    buf.finish();
}

}  // namespace

Status write_trace(std::span<const TraceSource> sources, const TraceOptions& options,
                   std::ostream& out, TraceCounts& counts) {
    auto model = detail::build_trace_model(sources, options.align, options.flows);
    if (!model) return model.error();
    if (options.overhead) detail::add_overhead_counters(*model);
    auto json = [&](std::ostream& staged) { detail::write_json(*model, staged); };
    switch (options.format) {
        case TraceFormat::Json:
            render_in_background(out, json);
            break;
        case TraceFormat::JsonGzip: {
            GzipBuf buf(out);
            std::ostream gz(&buf);
            render_in_background(gz, json);
            gz.flush();
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
