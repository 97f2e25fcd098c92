#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/introspect.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/terminal.hpp"

namespace ptune::cli {

void Context::add_inputs(const std::vector<std::string>& paths) {
    inputs_.insert(inputs_.end(), paths.begin(), paths.end());
}

void Context::add_labelled_inputs(const std::vector<std::string>& arguments) {
    for (const auto& argument : arguments) {
        inputs_.push_back(argument);
        if (auto eq = argument.find('='); eq != std::string::npos && eq > 0)
            inputs_.push_back(argument.substr(eq + 1));
    }
}

Result<const rules::Catalogue*> Context::catalogue() {
    if (!catalogue_) {
        auto builtin = rules::Catalogue::builtin();
        if (!builtin) return builtin.error();
        for (const auto& file : options.rules_files) {
            auto text = io::read_file(file);
            if (!text) return text.error();
            if (auto status = builtin->merge_json(*text, file); !status) return status.error();
        }
        catalogue_ = std::move(*builtin);
    }
    return &*catalogue_;
}

void Context::flush_diagnostics() {
    // Hostile inputs can produce a warning per line; show the first ones per file and a count.
    constexpr std::size_t kPerFile = 20;
    std::map<std::string, std::size_t> shown, hidden;
    for (const auto& diagnostic : diagnostics.items()) {
        if (options.quiet && diagnostic.severity != Severity::Error) continue;
        if (options.verbose == 0 && diagnostic.severity != Severity::Error &&
            shown[diagnostic.file]++ >= kPerFile) {
            ++hidden[diagnostic.file];
            continue;
        }
        std::size_t width = stderr_note_width();
        std::cerr << (width == 0 ? "ptune: " + diagnostic.to_string()
                                 : term::hang("ptune: ", diagnostic.to_string(), width, 4))
                  << '\n';
        if (diagnostic.severity == Severity::Error) {
            Error as_error{diagnostic.message, diagnostic.file, diagnostic.line};
            printed_errors_.push_back(as_error.to_string());
        }
    }
    // Past Diagnostics::kKeptPerKind a file's diagnostics were only counted.
    for (const auto& [key, count] : diagnostics.dropped()) {
        if (!options.quiet || key.second == Severity::Error) hidden[key.first] += count;
    }
    for (const auto& [file, count] : hidden) {
        std::cerr << fmt::format("ptune: {}: note: {} more diagnostic(s) not shown (use -v)\n",
                                 file.empty() ? "<input>" : file, count);
    }
    diagnostics.clear();
}

Result<std::unique_ptr<io::AtomicOutput>> Context::open_output(const std::string& path) {
    return io::AtomicOutput::open(path, inputs_);
}

int Context::emit(const render::Report& report,
                  const std::map<std::string, std::shared_ptr<render::Renderer>>& custom) {
    std::shared_ptr<render::Renderer> renderer;
    if (auto it = custom.find(options.format); it != custom.end())
        renderer = it->second;
    else
        renderer = render::make_standard_renderer(options.format);
    if (!renderer) {
        return fail(Error{fmt::format("unknown --format '{}'", options.format), "", 0,
                          ExitCode::InputError});
    }
    auto output = open_output(options.output);
    if (!output) return fail(output.error());
    render::RenderOptions render_options;
    render_options.color = (*output)->is_stdout() && color_stdout();
    render_options.width = term::output_width((*output)->is_stdout() ? STDOUT_FILENO : -1);
    renderer->render(report, (*output)->stream(), render_options);
    if (auto status = (*output)->commit(); !status) return fail(status.error());
    return 0;
}

namespace {

/// $GITHUB_STEP_SUMMARY must be a file GitHub reads back after the step: a regular file (or
/// none yet), a FIFO (written as -o writes one: exit 2 when nobody reads) or /dev/null, which
/// discards it on purpose. Any other device, a socket or a directory would swallow the
/// summary in silence (a link to /dev/zero did) or is no file at all: refused, exit 2.
Status check_step_summary(const char* path) {
    std::error_code error;
    const auto status = std::filesystem::status(path, error);
    if (error || status.type() == std::filesystem::file_type::not_found ||
        status.type() == std::filesystem::file_type::regular ||
        status.type() == std::filesystem::file_type::fifo || io::same_file(path, "/dev/null"))
        return ok_status();
    auto kind = io::check_regular_file(path);
    return Error{fmt::format("GITHUB_STEP_SUMMARY {} (or /dev/null to discard the summary): "
                             "not written",
                             kind ? "is not a regular file" : kind.error().message),
                 path, 0, ExitCode::InputError};
}

}  // namespace

int Context::append_step_summary(std::string_view title, const render::Report& report) {
    const char* path = std::getenv("GITHUB_STEP_SUMMARY");
    if (path == nullptr || *path == '\0') return 0;
    if (auto status = check_step_summary(path); !status) return fail(status.error());
    // The runner makes the file before the step and other steps' tools append to it: it is
    // appended to, never read (reading it made it an input, and a later write over it refused).
    // A blank line first keeps the heading a heading after text without a final newline.
    std::ostringstream section;
    std::error_code error;
    if (io::is_file(path) && std::filesystem::file_size(path, error) > 0 && !error) section << '\n';
    section << "## " << title << "\n\n";
    render::make_standard_renderer("markdown")->render(report, section, {});
    if (auto status = io::append_to_file(path, section.str(), inputs_); !status)
        return fail(status.error());
    return 0;
}

int Context::findings_exit(const std::vector<rules::Finding>& findings) const {
    return findings_exit(rules::worst_severity(findings));
}

int Context::findings_exit(std::optional<rules::RuleSeverity> worst) const {
    return static_cast<int>(rules::findings_exit_code(worst, options.fail_on));
}

int Context::fail(const Error& error) {
    flush_diagnostics();
    // An error already printed as a diagnostic (`FILE: error: no benchmark data`) is not
    // printed again as the reason the command stops.
    std::string text = error.to_string();
    if (std::find(printed_errors_.begin(), printed_errors_.end(), text) == printed_errors_.end())
        std::cerr << "ptune: " << text << '\n';
    return static_cast<int>(error.code);
}

bool Context::color_stdout() const {
    term::ColorMode mode = term::ColorMode::Auto;
    term::parse_color_mode(options.color, mode);
    return term::use_color(mode, STDOUT_FILENO);
}

bool Context::color_stderr() const {
    term::ColorMode mode = term::ColorMode::Auto;
    term::parse_color_mode(options.color, mode);
    return term::use_color(mode, STDERR_FILENO);
}

}  // namespace ptune::cli
