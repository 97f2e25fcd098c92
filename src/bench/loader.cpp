// load_bench_inputs: logs (report lines and [STRACE] markers, framed into cases by CI groups),
// directories, daily-CI results.tsv and bench-summary JSON, all streamed or small.

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "device_log.hpp"
#include "ptune/bench/model.hpp"
#include "ptune/bench/summary.hpp"
#include "ptune/core/found_files.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/json_document.hpp"
#include "ptune/core/text.hpp"
#include "report_parser.hpp"
#include "strace.hpp"
#include "text_util.hpp"

namespace ptune::bench {

namespace {

namespace fs = std::filesystem;

/// One case being read: its report parser and, once markers appear, its marker collector.
struct CaseState {
    BenchCase bench_case;
    std::unique_ptr<ReportParser> report;
    std::unique_ptr<StraceCollector> strace;
    std::unique_ptr<DeviceLogCollector> device_log;
};

/// Reads one log, splitting it into cases at `::group::` / `##[group]` lines.
class LogScanner {
  public:
    LogScanner(std::string source, std::string default_case, const LoadOptions& options,
               Diagnostics& diagnostics, const CaseSink& sink)
        : source_(std::move(source)),
          default_case_(std::move(default_case)),
          options_(options),
          diagnostics_(diagnostics),
          sink_(sink) {}

    /// Reads the log, handing each case to the sink as it ends; returns how many it handed.
    std::size_t scan(std::istream& in) {
        start_case(default_case_, 1);
        if (!read_stream(in)) return 0;
        finish_case();
        release_probed();
        return handed_;
    }

    /// Reads several logs of one run (the host logs of its ranks) as one case.
    std::size_t scan_run(const std::vector<std::string>& paths) {
        start_case(default_case_, 1);
        for (const std::string& path : paths) {
            auto input = io::open_input(path);
            if (!input) {
                diagnostics_.warn(path, 0, input.error().message + "; skipped");
                continue;
            }
            switch_source(path);
            if (!read_stream(input->stream())) {
                binary_ = false;
                diagnostics_.warn(path, 0, "binary file, no benchmark lines; skipped");
                if (!current_) start_case(default_case_, 1);
            }
        }
        finish_case();
        release_probed();
        return handed_;
    }

    /// True when the file looked binary (NUL bytes near its start); nothing was read.
    bool binary() const { return binary_; }

  private:
    /// Reads one stream into the open case; false when it is binary (nothing was read).
    bool read_stream(std::istream& in) {
        binary_probe_open_ = true;
        io::LineReader reader(in);
        std::string scratch;
        std::string_view raw_line;
        std::size_t total = progress_total();
        // A large file (total is 0 for stdin): its next MiB is read while this one is parsed.
        if (total >= kReadAheadBytes) reader.read_ahead();
        std::size_t next_progress = kProgressStep;
        // Every line of the binary probe is looked at (for NUL bytes); after it, only the
        // lines the prefilter picks.
        auto next_line = [&] {
            return reader.bytes_read() < kBinaryProbeBytes
                       ? reader.next(raw_line)
                       : reader.next_interesting(raw_line, find_log_interest);
        };
        while (next_line()) {
            if (options_.progress && reader.bytes_read() >= next_progress) {
                options_.progress(source_, reader.bytes_read(), total);
                next_progress = reader.bytes_read() + kProgressStep;
            }
            std::size_t number = reader.line_number();
            if (reader.truncated()) diagnostics_.warn(source_, number, "line too long, cut");
            // Where this line starts in the file: a NUL within the probe is binary even when
            // its line is longer than the probe (64 KiB of NUL bytes).
            std::size_t line_start = reader.line_offset();
            if (line_start < kBinaryProbeBytes) {
                std::size_t nul = raw_line.find('\0');
                if (nul != std::string_view::npos && line_start + nul < kBinaryProbeBytes) {
                    binary_ = true;
                    probed_.clear();
                    return false;
                }
            } else {
                release_probed();  // no line of the probe had a NUL: the log is text
            }
            std::string_view line = strip_actions_timestamp(raw_line);
            // Nothing before the prefilter's first hit is of interest (no tag, no ESC).
            std::size_t skipped = raw_line.size() - line.size();
            std::size_t interest = reader.interest_offset();
            interest = interest > skipped ? interest - skipped : 0;
            if (text::starts_with(line, "::")) {
                if (text::starts_with(line, "::group::")) {
                    begin_group(line.substr(9), number);
                } else if (text::starts_with(line, "::endgroup::")) {
                    end_group(number);
                }
                continue;
            }
            LineTags tags = find_tags(line, interest);
            if (tags.ansi) {
                scratch = text::strip_ansi(line);
                line = scratch;
                tags = find_tags(line, 0);
            }
            if (std::string_view sentinel = seed_sentinel(line, tags); !sentinel.empty())
                current_->bench_case.sentinels.emplace_back(sentinel);
            if (text::starts_with(line, "##[group]")) {
                begin_group(line.substr(9), number);
            } else if (text::starts_with(line, "##[endgroup]")) {
                end_group(number);
            } else if (tags.run || tags.strace) {
                feed(line, tags, number);
            } else if (mentions_device_timing(line)) {
                if (!current_->device_log) {
                    current_->device_log =
                        std::make_unique<DeviceLogCollector>(source_, diagnostics_);
                }
                current_->device_log->feed(line, number);
            }
        }
        if (options_.progress) options_.progress(source_, reader.bytes_read(), reader.bytes_read());
        return true;
    }

    void switch_source(const std::string& path) {
        source_ = path;
        if (!current_) return;
        current_->report->set_source(path);
        if (current_->strace) current_->strace->set_source(path);
        if (current_->device_log) current_->device_log->set_source(path);
    }

    /// NUL bytes this early mean a binary file, not a log with a damaged line.
    static constexpr std::size_t kBinaryProbeBytes = 8192;
    static constexpr std::size_t kProgressStep = 16u << 20;
    static constexpr std::size_t kReadAheadBytes = 4u << 20;

    std::size_t progress_total() const {
        std::error_code error;
        auto size = source_ == io::kStdinName ? 0 : fs::file_size(source_, error);
        return error ? 0 : static_cast<std::size_t>(size);
    }

    void begin_group(std::string_view name, std::size_t number) {
        finish_case();
        start_case(std::string(text::trim(name)), number);
    }

    void end_group(std::size_t number) {
        finish_case();
        start_case(default_case_, number + 1);
    }

    void start_case(std::string name, std::size_t line) {
        if (spare_) {
            // The last case's state, its case handed on: a log of 100,000 small cases makes
            // one state and one parser, not one per case.
            current_ = std::move(spare_);
            // A new case, its block list's storage kept (a block is 808 bytes).
            BenchCase& bench_case = current_->bench_case;
            bench_case.status.reset();
            bench_case.blocks.clear();
            bench_case.notes.clear();
            bench_case.sentinels.clear();
            bench_case.named_from_file = false;
            current_->report->reset(source_);
        } else {
            current_ = std::make_unique<CaseState>();
            current_->report =
                std::make_unique<ReportParser>(current_->bench_case, source_, diagnostics_);
        }
        current_->bench_case.name = std::move(name);
        current_->bench_case.source = {source_, line};
    }

    /// What a line holds, from one pass over its '[' bytes (most lines of a large log have
    /// none or one): the tags we read and, from the `ESC [` of colour codes, whether ANSI codes
    /// must be stripped first.
    struct LineTags {
        bool run = false;
        bool strace = false;
        bool ansi = false;
        std::size_t first_strace = 0;  ///< where the first marker or sentinel starts
    };

    /// `from`: where to start looking; the bytes before it hold no tag and no ESC.
    static LineTags find_tags(std::string_view line, std::size_t from) {
        // A line may hold both kinds: a report note quoting "[STRACE] markers", or a marker with
        // a [RUN] line glued after it; each parser takes what is its own.
        LineTags tags;
        tags.ansi = line.starts_with('\x1b');
        for (std::size_t at = line.find('[', from); at != std::string_view::npos;
             at = line.find('[', at + 1)) {
            std::string_view rest = line.substr(at);
            if (at > 0 && line[at - 1] == '\x1b') {
                tags.ansi = true;
            } else if (text::starts_with(rest, "[RUN]")) {
                tags.run = true;
            } else if (!tags.strace && (text::starts_with(rest, "[STRACE]") ||
                                        text::starts_with(rest, "[pypto] l3_swimlane_pass=") ||
                                        text::starts_with(rest, "[chip_process "))) {
                tags.strace = true;
                tags.first_strace = at;
            }
        }
        return tags;
    }

    /// The line, trimmed, when it is a seed or validation sentinel (§1.7; the prefilter lets
    /// `[PE`, `[VA` and `[RUN]` lines through); else empty.
    static std::string_view seed_sentinel(std::string_view line, const LineTags& tags) {
        std::string_view trimmed = text::trim(line);
        if (trimmed.size() < 2 || trimmed[0] != '[') return {};
        const bool is = tags.run ? text::starts_with(trimmed, "[RUN] fixture seed=")
                                 : text::starts_with(trimmed, "[PERF] deterministic_seed ") ||
                                       text::starts_with(trimmed, "[VALIDATION] mode=");
        return is ? trimmed : std::string_view();
    }

    void feed(std::string_view line, LineTags tags, std::size_t number) {
        if (tags.strace) {
            if (!current_->strace && spare_strace_) {
                // The collector of an earlier case: a log of many small cases makes one.
                current_->strace = std::move(spare_strace_);
                current_->strace->reset(source_);
            } else if (!current_->strace) {
                current_->strace = std::make_unique<StraceCollector>(source_, diagnostics_);
            }
            current_->strace->feed(line.substr(tags.first_strace), number);
        }
        if (tags.run) current_->report->feed(line, number);
    }

    void finish_case() {
        if (!current_) return;
        CaseState& state = *current_;
        state.report->finish();
        bool markers = state.strace && state.strace->saw_markers();
        bool recompute = !state.report->saw_report_lines() && options_.recompute_from_strace;
        if (markers && recompute) {
            auto block = state.strace->compute(options_.strace, state.report->loop_hints());
            // What the capture itself lacks (a log cut inside an invocation) belongs in the report.
            const std::vector<std::string>& capture = state.strace->capture_notes();
            state.bench_case.notes.insert(state.bench_case.notes.end(), capture.begin(),
                                          capture.end());
            if (block) {
                // A capture upstream rejects prints only a note: it explains the missing number.
                if (!block->has_headline())
                    state.bench_case.notes.insert(state.bench_case.notes.end(),
                                                  block->notes.begin(), block->notes.end());
                state.bench_case.blocks.push_back(std::move(*block));
            }
        } else if (recompute && state.device_log && state.device_log->saw_lines()) {
            if (auto block = state.device_log->compute(options_.strace))
                state.bench_case.blocks.push_back(std::move(*block));
        }
        if (!state.bench_case.blocks.empty() || !state.bench_case.notes.empty()) {
            if (binary_probe_open_) {
                probed_.push_back(std::move(state.bench_case));
            } else {
                ++handed_;
                sink_(std::move(state.bench_case));
            }
        }
        if (state.strace) spare_strace_ = std::move(state.strace);
        state.device_log.reset();
        spare_ = std::move(current_);
    }

    /// Hands over the cases that ended within the binary probe, once it is over.
    void release_probed() {
        if (!binary_probe_open_) return;
        binary_probe_open_ = false;
        handed_ += probed_.size();
        for (BenchCase& bench_case : probed_) sink_(std::move(bench_case));
        probed_.clear();
    }

    std::string source_;
    std::string default_case_;
    const LoadOptions& options_;
    Diagnostics& diagnostics_;
    const CaseSink& sink_;
    std::unique_ptr<CaseState> current_;
    std::unique_ptr<CaseState> spare_;               ///< a finished case's state, for the next case
    std::unique_ptr<StraceCollector> spare_strace_;  ///< a finished case's collector
    // Cases are streamed to the sink, except those that end before the binary probe is over: a
    // NUL byte later in the probe makes the whole file binary, and none of them count.
    std::vector<BenchCase> probed_;
    bool binary_probe_open_ = true;
    std::size_t handed_ = 0;
    bool binary_ = false;
};

/// Daily-CI results.tsv: `<case>\t<pass|fail>[\t<perf|->]` (bench-log.md §5.1).
std::size_t read_results_tsv(std::istream& in, const std::string& source, Diagnostics& diagnostics,
                             const CaseSink& sink) {
    std::size_t handed = 0;
    io::LineReader reader(in);
    std::string_view line;
    while (reader.next(line)) {
        std::size_t number = reader.line_number();
        // Blank and `#` comment lines (headers people add by hand) are not rows.
        if (text::trim(line).empty() || text::trim(line).front() == '#') continue;
        auto fields = text::split(line, '\t');
        std::string_view status = fields.size() > 1 ? text::trim(fields[1]) : std::string_view();
        if (fields.size() < 2 || text::trim(fields[0]).empty() ||
            (status != "pass" && status != "fail")) {
            diagnostics.warn(source, number,
                             fmt::format("not a results.tsv row (<case> TAB pass|fail TAB perf), "
                                         "ignored: {}",
                                         clip_for_message(line, 120)));
            continue;
        }
        BenchCase bench_case;
        bench_case.name = std::string(text::trim(fields[0]));
        bench_case.source = {source, number};
        bench_case.status = std::string(status);
        std::string_view perf = fields.size() > 2 ? text::trim(fields[2]) : std::string_view();
        if (perf.empty() || perf == "-") {
            bench_case.notes.emplace_back("no effective_us recorded (perf '-')");
        } else if (auto mean = text::parse_double(perf); !mean || *mean < 0.0) {
            diagnostics.warn(source, number,
                             fmt::format("garbled perf value '{}' for case {}, treated as '-'",
                                         clip_for_message(perf, 40), bench_case.name));
            bench_case.notes.emplace_back("garbled perf value");
        } else {
            BenchBlock& block = bench_case.blocks.emplace_back();
            block.origin = Origin::ResultsTsv;
            block.source = bench_case.source;
            Summary& summary = block.effective_us.emplace();
            summary.mean = *mean;
            summary.mean_only = true;
        }
        ++handed;
        sink(std::move(bench_case));
    }
    return handed;
}

/// A `ptune bench-summary --format json` output.
Result<std::vector<BenchCase>> read_summary_json(const std::string& path,
                                                 Diagnostics& diagnostics) {
    auto text = io::read_file(path);
    if (!text) return text.error();
    auto parsed = json_document::parse(*text, path);
    if (!parsed) return parsed.error();
    const nlohmann::json& document = *parsed;
    if (!document.is_object() || !document.contains("cases") || !document["cases"].is_array()) {
        return Error{"not a bench-summary JSON output (no \"cases\" array)", path, 0,
                     ExitCode::InputError};
    }
    std::vector<BenchCase> cases;
    for (const auto& value : document["cases"]) {
        auto bench_case = case_from_json(value, path);
        if (!bench_case) {
            diagnostics.warn(path, 0, bench_case.error().message + ", case skipped");
            continue;
        }
        cases.push_back(std::move(*bench_case));
    }
    return cases;
}

bool is_results_tsv(const fs::path& path) {
    return path.extension() == ".tsv";
}
bool is_json(const fs::path& path) {
    return path.extension() == ".json";
}

/// Loads one file, handing its cases to `sink`. False when the file held nothing usable, with
/// the reason in `unusable` (the caller decides whether it is the error or one of several).
Result<bool> load_file(const std::string& path, const std::string& case_name,
                       const LoadOptions& options, Diagnostics& diagnostics, const CaseSink& sink,
                       std::string& unusable) {
    fs::path fs_path(path);
    std::size_t handed = 0;
    if (path != io::kStdinName && is_json(fs_path)) {
        auto loaded = read_summary_json(path, diagnostics);  // a DOM: small files only
        if (!loaded) return loaded.error();
        handed = loaded->size();
        for (BenchCase& bench_case : *loaded) sink(std::move(bench_case));
    } else {
        auto input = io::open_input(path);
        if (!input) return input.error();
        if (path != io::kStdinName && is_results_tsv(fs_path)) {
            handed = read_results_tsv(input->stream(), path, diagnostics, sink);
        } else {
            LogScanner scanner(path, case_name, options, diagnostics, sink);
            handed = scanner.scan(input->stream());
            if (handed == 0) {
                unusable = scanner.binary() ? "binary file, no benchmark lines"
                                            : "no benchmark lines ([RUN] effective_us report, "
                                              "[STRACE] markers or device-log orch/sched timing "
                                              "lines)";
                return false;
            }
        }
    }
    if (handed == 0) {
        unusable = "no benchmark data";
        return false;
    }
    return true;
}

std::string case_name_for(const fs::path& path, const LoadOptions& options) {
    if (!options.case_name.empty()) return options.case_name;
    if (path == io::kStdinName) return "stdin";
    std::string name = path.filename().string();
    // `decode_fwd.log` -> `decode_fwd`; keep names without a log-like extension whole.
    for (std::string_view extension : {".log", ".txt", ".out"}) {
        if (name.size() > extension.size() &&
            name.substr(name.size() - extension.size()) == extension) {
            return name.substr(0, name.size() - extension.size());
        }
    }
    return name;
}

/// The files of a directory bench inputs may come from, sorted by path.
std::vector<std::string> files_under(const fs::path& dir) {
    std::vector<std::string> files;
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(
             dir, fs::directory_options::skip_permission_denied, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        // A FIFO or device of a bench extension is kept: the caller names it (exit 2), as a
        // named one; skipping it left the directory looking complete.
        if (!io::is_file(it->path()) && !io::is_special_file(it->path())) continue;
        // A capture's alignment log repeats spans of its host.<pid>.log (upstream-2026-09.md
        // §2.5): reading both would count the invocation twice.
        if (it->path().filename().string().starts_with("host_clock_alignment.")) continue;
        std::string extension = it->path().extension().string();
        if (extension == ".log" || extension == ".txt" || extension == ".tsv" ||
            extension == ".json") {
            files.push_back(it->path().string());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

/// `host.<pid>.log`: one process's host log (upstream-2026-09.md §2.1).
bool is_process_host_log(const fs::path& path) {
    std::string name = path.filename().string();
    if (!text::starts_with(name, "host.") || !name.ends_with(".log") || name.size() <= 9)
        return false;
    std::string_view pid = std::string_view(name).substr(5, name.size() - 9);
    return std::all_of(pid.begin(), pid.end(), [](char c) { return is_digit(c); });
}

/// `prefix<digits>`.
bool numbered(const std::string& name, std::string_view prefix) {
    return name.size() > prefix.size() && name.starts_with(prefix) &&
           std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                       [](char c) { return is_digit(c); });
}

/// The host logs of one run, which are one case: every `host.<pid>.log` of a directory (the
/// chip children of an L3 run, upstream-2026-09.md §2.1) and every one in the
/// `rank<N>/d<K>/` dispatch directories of one `dfx_outputs` (upstream-2026-12.md §7.1), keyed
/// by that directory. Runs of one log stay files of their own.
std::map<std::string, std::vector<std::string>> run_host_logs(
    const std::vector<std::string>& files) {
    std::map<std::string, std::vector<std::string>> runs;
    for (const std::string& file : files) {
        fs::path path(file);
        if (!is_process_host_log(path)) continue;
        fs::path dir = path.parent_path();
        if (numbered(dir.filename().string(), "d") &&
            numbered(dir.parent_path().filename().string(), "rank"))
            dir = dir.parent_path().parent_path();
        runs[dir.string()].push_back(file);
    }
    std::erase_if(runs, [](const auto& run) { return run.second.size() < 2; });
    return runs;
}

/// The case name of a run's host logs: its directory's name.
std::string run_case_name(const std::string& dir, const LoadOptions& options) {
    if (!options.case_name.empty()) return options.case_name;
    std::string name = fs::path(dir).filename().string();
    return name.empty() ? dir : name;
}

}  // namespace

Status for_each_bench_case(const std::vector<std::string>& paths_or_labels,
                           const LoadOptions& options, Diagnostics& diagnostics,
                           const CaseSink& sink) {
    std::size_t usable_files = 0;
    std::vector<Error> unusable;  // named files without benchmark data, with the reason
    std::vector<Error> skipped;   // files of a directory without benchmark data
    std::string reason;
    for (const std::string& argument : paths_or_labels) {
        std::string path = argument;
        std::string label;
        std::error_code error;
        std::size_t eq = argument.find('=');
        if (argument != io::kStdinName && !fs::exists(argument, error) && eq != std::string::npos &&
            eq > 0) {
            label = argument.substr(0, eq);
            path = argument.substr(eq + 1);
        }
        // Inputs another domain reads (daily-CI / operator-suite results): model.hpp.
        if (auto handled = read_registered_input(path, diagnostics, sink)) {
            if (!*handled) return handled->error();
            ++usable_files;
            continue;
        }
        if (path != io::kStdinName && fs::is_directory(path, error)) {
            std::vector<std::string> files = files_under(path);
            if (files.empty()) {
                diagnostics.warn(path, 0, "directory holds no *.log, *.txt, *.tsv or *.json file");
                continue;
            }
            for (const std::string& file : files)
                if (io::is_special_file(file)) return io::check_regular_file(file).error();
            // The host logs of one run are one case (its ranks side by side), as if catted.
            std::set<std::string> in_runs;
            for (const auto& [dir, logs] : run_host_logs(files)) {
                LogScanner scanner(logs.front(), run_case_name(dir, options), options, diagnostics,
                                   sink);
                if (scanner.scan_run(logs) > 0) {
                    ++usable_files;
                    in_runs.insert(logs.begin(), logs.end());
                }
            }
            for (const std::string& file : files) {
                if (in_runs.count(file) != 0) continue;
                if (is_json(file)) {
                    // Other JSON files (baselines, traces) may sit next to the logs: skip them.
                    auto loaded = read_summary_json(file, diagnostics);
                    if (!loaded) continue;
                    for (BenchCase& bench_case : *loaded) sink(std::move(bench_case));
                    ++usable_files;
                    continue;
                }
                auto loaded = load_file(file, case_name_for(file, options), options, diagnostics,
                                        sink, reason);
                if (!loaded) return loaded.error();
                if (*loaded)
                    ++usable_files;
                else
                    skipped.push_back(Error{reason, file, 0, ExitCode::InputError});
            }
            continue;
        }
        const std::string default_name = case_name_for(path, options);
        const bool unlabelled = label.empty() && options.case_name.empty();
        const CaseSink named = [&](BenchCase&& bench_case) {
            bench_case.named_from_file = unlabelled && bench_case.name == default_name;
            sink(std::move(bench_case));
        };
        auto loaded = load_file(path, label.empty() ? default_name : label, options, diagnostics,
                                named, reason);
        if (!loaded) return loaded.error();
        if (!*loaded) unusable.push_back(Error{reason, path, 0, ExitCode::InputError});
        if (*loaded) ++usable_files;
    }
    // One unusable input is the error itself. With nothing usable at all, every reason is an
    // error (and the exit 2 follows); beside usable data, a named input without any is a
    // warning and a file of a directory without any (a README, a trace) a note.
    if (usable_files == 0 && unusable.size() == 1 && skipped.empty() && paths_or_labels.size() == 1)
        return unusable.front();
    for (const Error& error : unusable) {
        if (usable_files == 0)
            diagnostics.error(error.file, error.line, error.message);
        else
            diagnostics.warn(error.file, error.line, error.message + "; skipped");
    }
    for (const Error& error : skipped) {
        if (usable_files == 0)
            diagnostics.error(error.file, error.line, error.message);
        else
            diagnostics.note(error.file, error.line, error.message + "; skipped");
    }
    if (usable_files == 0) {
        return Error{paths_or_labels.size() == 1
                         ? fmt::format("{}: no benchmark data", paths_or_labels.front())
                         : "no benchmark data in any input",
                     "", 0, ExitCode::InputError};
    }
    return ok_status();
}

Result<std::vector<BenchCase>> load_bench_inputs(const std::vector<std::string>& paths_or_labels,
                                                 const LoadOptions& options,
                                                 Diagnostics& diagnostics) {
    std::vector<BenchCase> cases;
    auto status = for_each_bench_case(
        paths_or_labels, options, diagnostics,
        [&](BenchCase&& bench_case) { cases.push_back(std::move(bench_case)); });
    if (!status) return status.error();
    return cases;
}

}  // namespace ptune::bench
