// ptune advise DIR: one build directory in, one ranked tuning report out.

#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cli/commands/commands.hpp"
#include "cli/safety.hpp"
#include "ptune/advise/advisor.hpp"
#include "ptune/core/found_files.hpp"
#include "ptune/core/io.hpp"

namespace ptune::cli {

namespace {

/// A `--log` / `--baseline` argument (`PATH` or `NAME=PATH`) that names a FIFO, a device or a
/// socket: the refusal every named input gets (`is a FIFO (named pipe), expected a regular
/// file`). Anything else is left to the bench reader.
Status named_bench_input_is_file(const std::string& argument) {
    std::string path = argument;
    std::error_code error;
    if (std::size_t eq = argument.find('=');
        !std::filesystem::exists(argument, error) && eq != std::string::npos && eq > 0)
        path = argument.substr(eq + 1);
    if (io::is_special_file(path)) return io::check_regular_file(path);
    return ok_status();
}

class AdviseCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.add_option("dir", dir_,
                       "A build_output/ directory, one <Program>_<ts>/ run, or a dfx_outputs/")
            ->required();
        app.add_option("--log", logs_,
                       "Console log of the run (benchmark lines); repeatable, name=path labels")
            ->allow_extra_args(false);
        app.add_option(
               "--baseline", baselines_,
               "Earlier run to compare effective_us with (log, dir, results.tsv or bench-summary "
               "JSON); repeatable, several form a history")
            ->allow_extra_args(false);
        app.add_option("--program", program_,
                       "Choose the newest run of this program in build_output/");
        app.add_option("--nth-latest", nth_latest_,
                       "1 = newest run (default), 2 = the one before, ...")
            ->check(positive_number());
        app.add_flag("--absolute-paths", absolute_paths_,
                     "Cite every file by its absolute path (default: paths openable from the "
                     "working directory)");
    }

    int run(Context& context) override {
        context.add_inputs({dir_});
        context.add_inputs(logs_);
        context.add_inputs(baselines_);
        // A FIFO or device named by --log / --baseline is exit 2 as every named input (it was
        // a warning, and the run went on without it); a directory is a bench input.
        for (const auto* arguments : {&logs_, &baselines_})
            for (const std::string& argument : *arguments)
                if (auto status = named_bench_input_is_file(argument); !status)
                    return context.fail(status.error());
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        auto inventory = advise::take_inventory(dir_, program_, nth_latest_, logs_);
        if (!inventory) return context.fail(inventory.error());
        if (!inventory->chosen_note.empty()) spdlog::info("{}", inventory->chosen_note);
        // Said on stderr as well as in the report's Artifacts (text) and `artifacts` (JSON).
        for (const auto& directory : inventory->unreadable) {
            context.diagnostics.warn(
                directory.path.string(), 0,
                fmt::format("cannot read the directory ({}): artifacts in it are not looked for, "
                            "and may show as missing",
                            directory.reason));
        }
        for (const auto& file : inventory->refused) {
            context.diagnostics.error(
                file.path.string(), 0,
                fmt::format("{} artifact {}: not read", advise::to_string(file.kind), file.reason));
        }
        // An output over an artifact found in the directory is refused here, once, before any
        // section reads it: the section would report the refused read and emit() the refused
        // output a second time.
        if (context.options.output != io::kStdinName) {
            std::vector<std::string> found;
            for (const auto& artifact : inventory->found) found.push_back(artifact.path.string());
            for (const auto& file : inventory->refused) found.push_back(file.path.string());
            if (auto status = io::check_outputs({context.options.output}, found); !status)
                return context.fail(status.error());
        }
        // A PyPTO run (`<Program>_<ts>/`) with nothing ptune reads is still a run to report on
        // (today's pypto writes no memory report: rule M10 says what to do instead); any other
        // empty directory is the wrong directory.
        // A September output directory (host logs, scope_stats.jsonl) is a run too.
        if (inventory->found.empty() && inventory->refused.empty() && inventory->program.empty()) {
            return context.fail(
                Error{"no PyPTO artifact found (memory report, perf_hints.log, swimlane "
                      "records, pmu.csv, kernel_config.py, host.<pid>.log, "
                      "host_phase_records.jsonl, scope_stats.jsonl)",
                      dir_, 0, ExitCode::InputError});
        }
        advise::AdviseOptions options;
        options.logs = logs_;
        options.baselines = baselines_;
        if (!baselines_.empty() && logs_.empty()) {
            return context.fail(
                Error{"--baseline compares the run's benchmark lines: give them with --log", "", 0,
                      ExitCode::InputError});
        }
        bool unread = !inventory->refused.empty() || !inventory->unreadable.empty();
        auto advice =
            advise::advise(std::move(*inventory), options, **catalogue, context.diagnostics);
        advise::rebase_locations(advice, absolute_paths_);
        auto report = advise::to_report(advice);
        int code = context.emit(
            report, {{"html", advise::make_html_renderer(advice)},
                     {"text", advise::make_text_renderer(advice, context.options.verbose > 0)}});
        // The report lists what was refused or could not be listed; the exit code says that part
        // of the input was not read (as swimlane-analyze does for an unreadable directory).
        if (code != 0) return code;
        if (unread) return static_cast<int>(ExitCode::InputError);
        // As `ptune help advise` says: 1 for an error finding or a regression.
        return advise::has_blocking_finding(advice) ? static_cast<int>(ExitCode::Findings) : 0;
    }

  private:
    std::string dir_;
    std::vector<std::string> logs_;
    std::vector<std::string> baselines_;
    std::string program_;
    int nth_latest_ = 1;
    bool absolute_paths_ = false;
};

}  // namespace

std::unique_ptr<Command> make_advise() {
    return std::make_unique<AdviseCommand>();
}

}  // namespace ptune::cli
