// CI results as bench inputs (inputs.hpp): classification, loading, the bench::BenchCase view,
// ciresult's own tables and the reader registered with the bench loader.

#include "ptune/ciresult/inputs.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ptune/ciresult/lane.hpp"
#include "ptune/ciresult/operator.hpp"
#include "ptune/core/found_files.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/stats.hpp"

namespace ptune::ciresult {

namespace fs = std::filesystem;

namespace {

constexpr const char* kRawResult = "raw-result.json";
constexpr const char* kReport = "report.md";
constexpr const char* kManifest = "perf_cases.json";
constexpr const char* kSuite = "suite-result.json";
constexpr const char* kMeasurement = "measurement.json";

bool file_at(const fs::path& path) {
    return io::is_file(path);
}

// A case folder of published/ or work/: a subfolder holding `file` (raw-result.json).
bool has_case_folders(const fs::path& dir, const char* file = kRawResult) {
    std::error_code error;
    for (auto it = fs::directory_iterator(dir, error); !error && it != fs::directory_iterator();
         it.increment(error)) {
        if (it->is_directory(error) && file_at(it->path() / file)) return true;
    }
    return false;
}

// The folder of a daily run within `dir`: itself, or its published/ (an <OUT> folder).
fs::path daily_root(const fs::path& dir) {
    if (!file_at(dir / kReport) && !has_case_folders(dir)) {
        if (io::is_dir(dir / "published")) return dir / "published";
        if (io::is_dir(dir / "work")) return dir / "work";
    }
    return dir;
}

// The first `bytes` of a file (empty when it cannot be read): enough to tell kinds apart.
std::string head_of(const std::string& path, std::size_t bytes) {
    // A FIFO would block the open (and a device never end): only a regular file is peeked at;
    // the reader that opens it next names what it is.
    if (!io::is_file(path)) return {};
    std::ifstream in(path, std::ios::binary);
    std::string head(bytes, '\0');
    in.read(head.data(), static_cast<std::streamsize>(bytes));
    head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    return head;
}

bool is_daily_report(const std::string& text) {
    return text.find("| Case | Effective (us) |") != std::string::npos;
}

}  // namespace

InputKind classify(const std::string& path) {
    if (path == io::kStdinName) return InputKind::None;
    const fs::path p(path);
    if (io::is_dir(p)) {
        if (file_at(p / kSuite)) return InputKind::Suite;
        // The operator suite's work/ folder: its cases have measurement.json (and may have a
        // raw-result.json like a daily case folder).
        if (has_case_folders(p, kMeasurement)) return InputKind::SuiteWork;
        const fs::path root = daily_root(p);
        if (!file_at(root / kSuite) && file_at(root / kReport)) {
            const std::string head = head_of((root / kReport).string(), 1 << 16);
            if (is_daily_report(head)) return InputKind::DailyFolder;
            if (is_operator_report(head)) return InputKind::SuiteReport;
            return InputKind::None;
        }
        if (file_at(root / kSuite)) return InputKind::Suite;
        if (has_case_folders(root, kMeasurement)) return InputKind::SuiteWork;
        if (has_case_folders(root)) return InputKind::DailyFolder;
        return InputKind::None;
    }
    // A FIFO or device named like a result file is no result file: the ordinary reader refuses
    // it by name (exit 2).
    if (io::is_special(p)) return InputKind::None;
    const std::string name = p.filename().string();
    if (name == kSuite) return InputKind::Suite;
    if (name == kManifest) return InputKind::Manifest;
    if (name == kMeasurement) return InputKind::SuiteMeasurement;
    if (name == kRawResult) {
        // The operator suite's raw-result.json (with case_id/sampling) is not a daily one.
        const std::string head = head_of(path, 1 << 16);
        if (head.find("\"sampling\"") != std::string::npos &&
            head.find("\"case_id\"") != std::string::npos)
            return InputKind::SuiteRaw;
        return InputKind::RawResult;
    }
    if (name == kReport || p.extension() == ".md") {
        const std::string head = head_of(path, 1 << 16);
        if (is_daily_report(head)) return InputKind::DailyReport;
        if (is_operator_report(head)) return InputKind::SuiteReport;
    }
    return InputKind::None;
}

bool is_suite_kind(InputKind kind) {
    return kind == InputKind::Suite || kind == InputKind::SuiteRaw ||
           kind == InputKind::SuiteMeasurement || kind == InputKind::SuiteWork ||
           kind == InputKind::SuiteReport;
}

namespace {

Result<Manifest> read_manifest(const fs::path& path) {
    auto text = io::read_file(path.string());
    if (!text) return text.error();
    return parse_manifest(*text, path.string());
}

std::optional<fs::path> find_manifest(const fs::path& dir, Diagnostics& diagnostics) {
    for (const fs::path& candidate : {dir / kManifest, dir.parent_path() / kManifest}) {
        if (io::usable_side_file(candidate, diagnostics,
                                 "the cases are read without the manifest's loop sizes"))
            return candidate;
    }
    return std::nullopt;
}

// A data file of a folder that is a FIFO or device: named as a named one is (exit 2), never
// skipped as if it were not there.
Error special_data_file(const fs::path& file) {
    Status status = io::check_regular_file(file.string());
    return status ? Error{"not a regular file", file.string(), 0, ExitCode::InputError}
                  : status.error();
}

DailyCase& case_named(DailyRun& run, const std::string& case_id) {
    for (DailyCase& c : run.cases) {
        if (c.case_id == case_id) return c;
    }
    DailyCase& c = run.cases.emplace_back();
    c.case_id = case_id;
    return c;
}

std::optional<Expectation> expectation_for(const DailyRun& run, const std::string& case_id) {
    if (!run.manifest) return std::nullopt;
    const ManifestCase* c = run.manifest->find(case_id);
    if (c == nullptr) return std::nullopt;
    return Expectation{run.manifest->rounds, run.manifest->warmup, c->device_count};
}

void read_raw(DailyRun& run, DailyCase& c, const fs::path& file) {
    auto text = io::read_file(file.string());
    DailyResult result;
    if (!text) {
        result.source = file.string();
        result.reason = text.error().message;
        result.malformed = true;
    } else {
        result = evaluate_raw_result(*text, file.string(), expectation_for(run, c.case_id));
    }
    if (result.passed && !c.device_count) c.device_count = result.ranks.size();
    c.result = std::move(result);
}

// report.md against the recomputed headline (§1.8).
void cross_check(const DailyCase& c, Diagnostics& diagnostics) {
    if (!c.row || !c.result) return;
    const ReportRow& row = *c.row;
    const DailyResult& r = *c.result;
    if (row.kind == ReportRow::Kind::Value && r.passed &&
        std::fabs(*r.headline - row.value) > 0.005) {
        diagnostics.warn(
            c.report_source, row.line,
            fmt::format("{}: report.md says {} but raw-result.json gives {} ({})", c.case_id,
                        row.text, format_headline(*r.headline), describe(r.rule)));
    } else if (row.kind == ReportRow::Kind::Value && !r.passed) {
        diagnostics.warn(c.report_source, row.line,
                         fmt::format("{}: report.md says {} but raw-result.json is FAIL ({})",
                                     c.case_id, row.text, r.reason));
    } else if (row.kind != ReportRow::Kind::Value && r.passed) {
        diagnostics.warn(c.report_source, row.line,
                         fmt::format("{}: report.md says {} but raw-result.json gives {}",
                                     c.case_id, row.text, format_headline(*r.headline)));
    }
}

}  // namespace

Result<DailyRun> load_daily(const std::string& path, Diagnostics& diagnostics) {
    DailyRun run;
    const fs::path p(path);
    const InputKind kind = classify(path);
    const fs::path root = kind == InputKind::DailyFolder ? daily_root(p) : p.parent_path();
    run.root = kind == InputKind::DailyFolder ? root.string() : path;
    if (kind == InputKind::Manifest) {
        auto manifest = read_manifest(p);
        if (!manifest) return manifest.error();
        run.manifest = std::move(*manifest);
    } else if (auto found = find_manifest(kind == InputKind::RawResult ? root.parent_path() : root,
                                          diagnostics)) {
        auto manifest = read_manifest(*found);
        if (!manifest) return manifest.error();
        run.manifest = std::move(*manifest);
    }
    if (run.manifest) {
        for (const ManifestCase& m : run.manifest->cases) {
            DailyCase& c = case_named(run, m.case_id);
            c.in_manifest = true;
            c.device_count = m.device_count;
        }
    }
    if (kind == InputKind::RawResult) {
        // <OUT>/published/<case_id>/raw-result.json: the case is its folder's name.
        const std::string case_id =
            root.filename().empty() ? "raw-result" : root.filename().string();
        DailyCase& c = case_named(run, case_id);
        read_raw(run, c, p);
        // Only this case: the manifest's others are not part of this input.
        std::erase_if(run.cases,
                      [&](const DailyCase& other) { return &other != &c && !other.result; });
        return run;
    }
    if (kind == InputKind::DailyFolder || kind == InputKind::DailyReport) {
        const fs::path report = kind == InputKind::DailyReport ? p : root / kReport;
        if (io::is_special_file(report)) return special_data_file(report);
        if (file_at(report)) {
            auto text = io::read_file(report.string());
            if (!text) return text.error();
            auto rows = parse_daily_report(*text, report.string(), diagnostics);
            if (!rows) return rows.error();
            for (ReportRow& row : *rows) {
                DailyCase& c = case_named(run, row.case_id);
                if (c.row) {
                    diagnostics.warn(
                        report.string(), row.line,
                        fmt::format("{}: second report.md row; the first is kept", row.case_id));
                    continue;
                }
                c.report_source = report.string();
                c.row = std::move(row);
            }
        }
    }
    if (kind == InputKind::DailyFolder) {
        std::vector<fs::path> folders;
        std::error_code error;
        for (auto it = fs::directory_iterator(root, error);
             !error && it != fs::directory_iterator(); it.increment(error)) {
            if (!it->is_directory(error)) continue;
            // A case's raw-result.json is the run's data: a FIFO or device there is named, as
            // a named one is (exit 2), never skipped as if the case had no result.
            if (io::is_special_file(it->path() / kRawResult))
                return special_data_file(it->path() / kRawResult);
            if (file_at(it->path() / kRawResult)) folders.push_back(it->path());
        }
        std::sort(folders.begin(), folders.end());
        for (const fs::path& folder : folders) {
            DailyCase& c = case_named(run, folder.filename().string());
            read_raw(run, c, folder / kRawResult);
            if (io::usable_side_file(folder / "run.log", diagnostics,
                                     "its task slots and sentinels are not read")) {
                auto input = io::open_input((folder / "run.log").string());
                if (!input) return input.error();
                c.run_log =
                    parse_run_log(input->stream(), (folder / "run.log").string(), diagnostics);
            }
        }
    }
    for (const DailyCase& c : run.cases) {
        if (c.result && c.result->malformed) {
            diagnostics.warn(c.result->source, c.result->malformed_line,
                             fmt::format("{}: FAIL: {}", c.case_id, c.result->reason));
        }
        cross_check(c, diagnostics);
        if (c.result && c.result->nonpositive_values > 0) {
            diagnostics.warn(c.result->source, 0,
                             fmt::format("{}: {} dispatch value(s) <= 0 (upstream sums them "
                                         "silently)",
                                         c.case_id, c.result->nonpositive_values));
        }
        if (run.manifest && !c.in_manifest) {
            diagnostics.warn(c.row ? c.report_source : run.root, c.row ? c.row->line : 0,
                             fmt::format("{}: not in {}", c.case_id, run.manifest->source));
        }
    }
    return run;
}

namespace {

// The operator manifest in `dir` or the two folders above it (a published/<case>/ file finds
// the one beside published/); a manifest that does not parse is a warning, not an error: the
// results stand without it.
std::optional<OperatorManifest> find_operator_manifest(fs::path dir, Diagnostics& diagnostics) {
    for (int level = 0; level < 3 && !dir.empty(); ++level, dir = dir.parent_path()) {
        for (const char* name : kOperatorManifestNames) {
            const fs::path candidate = dir / name;
            if (!io::usable_side_file(candidate, diagnostics, "case contracts not checked"))
                continue;
            auto text = io::read_file(candidate.string());
            if (!text) {
                diagnostics.warn(text.error().file, text.error().line,
                                 text.error().message + "; case contracts not checked");
                return std::nullopt;
            }
            auto manifest = parse_operator_manifest(*text, candidate.string());
            if (!manifest) {
                diagnostics.warn(manifest.error().file, manifest.error().line,
                                 manifest.error().message + "; case contracts not checked");
                return std::nullopt;
            }
            return std::move(*manifest);
        }
        if (dir == dir.parent_path()) break;
    }
    return std::nullopt;
}

fs::path folder_of(const fs::path& file) {
    fs::path parent = file.parent_path();
    return parent.empty() ? fs::path(".") : parent;
}

Result<SuiteResult> load_suite_raw(const std::string& path, Diagnostics& diagnostics) {
    auto text = io::read_file(path);
    if (!text) return text.error();
    const auto manifest = find_operator_manifest(folder_of(path), diagnostics);
    const nlohmann::json* request = nullptr;
    if (manifest) {
        // The request is the manifest's case of the file's case_id (a case_id the manifest does
        // not have is a failed request check).
        const nlohmann::json document = nlohmann::json::parse(*text, nullptr, false);
        static const nlohmann::json kUnknown = {{"case_id", "(not in the manifest)"}};
        request = &kUnknown;
        if (document.is_object()) {
            auto id = document.find("case_id");
            if (id != document.end() && id->is_string()) {
                auto at = manifest->case_index.find(id->get<std::string>());
                if (at != manifest->case_index.end()) request = &manifest->cases[at->second];
            }
        }
    }
    auto validated = validate_suite_raw(*text, path, request);
    if (!validated) return validated.error();
    if (validated->status != "pass")
        diagnostics.warn(path, 0,
                         fmt::format("{}: fail: {}", validated->case_id, validated->error));
    SuiteResult suite;
    suite.source = path;
    suite.suite_id = "raw-result.json";
    suite.status = validated->status;
    suite.cases.push_back(std::move(*validated));
    return suite;
}

Result<SuiteResult> load_measurement(const std::string& path, Diagnostics& diagnostics) {
    auto text = io::read_file(path);
    if (!text) return text.error();
    return parse_measurement(*text, path, diagnostics);
}

// A work/ folder: every <case>/measurement.json in folder order, as the rows of one suite.
Result<SuiteResult> load_work(const fs::path& dir, Diagnostics& diagnostics) {
    std::vector<fs::path> files;
    std::error_code error;
    for (auto it = fs::directory_iterator(dir, error); !error && it != fs::directory_iterator();
         it.increment(error)) {
        if (it->is_directory(error) && file_at(it->path() / kMeasurement))
            files.push_back(it->path() / kMeasurement);
    }
    std::sort(files.begin(), files.end());
    SuiteResult suite;
    suite.source = dir.string();
    suite.suite_id = "work/";
    for (const fs::path& file : files) {
        auto one = load_measurement(file.string(), diagnostics);
        if (!one) return one.error();
        for (SuiteCase& c : one->cases) {
            c.source = file.string();
            suite.cases.push_back(std::move(c));
        }
    }
    return suite;
}

Result<OperatorReport> load_operator_report(const std::string& path, Diagnostics& diagnostics) {
    auto text = io::read_file(path);
    if (!text) return text.error();
    return parse_operator_report(*text, path, diagnostics);
}

}  // namespace

Result<SuiteResult> load_suite(const std::string& path, Diagnostics& diagnostics) {
    const InputKind kind = classify(path);
    fs::path p(path);
    switch (kind) {
        case InputKind::SuiteRaw:
            return load_suite_raw(path, diagnostics);
        case InputKind::SuiteMeasurement:
            return load_measurement(path, diagnostics);
        case InputKind::SuiteWork:
            return load_work(
                file_at(p / kSuite) || has_case_folders(p, kMeasurement) ? p : daily_root(p),
                diagnostics);
        case InputKind::SuiteReport: {
            // report.md beside the suite-result.json it was rendered from: the exact file is
            // read instead, and the report checked against it (below).
            const fs::path file = io::is_dir(p) ? daily_root(p) / kReport : p;
            if (file_at(folder_of(file) / kSuite)) break;
            auto report = load_operator_report(file.string(), diagnostics);
            if (!report) return report.error();
            return suite_of_report(*report);
        }
        default:
            break;
    }
    if (io::is_dir(p))
        p = file_at(p / kSuite) ? p / kSuite : daily_root(p) / kSuite;
    else if (kind == InputKind::SuiteReport)
        p = folder_of(p) / kSuite;
    auto text = io::read_file(p.string());
    if (!text) return text.error();
    auto suite = parse_suite_result(*text, p.string(), diagnostics);
    if (!suite) return suite;
    if (const fs::path report = folder_of(p) / kReport;
        io::usable_side_file(report, diagnostics, "not cross-checked")) {
        if (is_operator_report(head_of(report.string(), 64))) {
            if (auto parsed = load_operator_report(report.string(), diagnostics))
                cross_check_operator_report(*parsed, *suite, diagnostics);
        }
    }
    if (auto manifest = find_operator_manifest(folder_of(p), diagnostics))
        check_case_contracts(*suite, *manifest, diagnostics);
    return suite;
}

namespace {

// The summary of a rank's round totals (non-empty).
bench::Summary summary_of(const std::vector<double>& values) {
    bench::Summary s;
    s.rounds = values.size();
    s.min = *std::min_element(values.begin(), values.end());
    s.max = *std::max_element(values.begin(), values.end());
    s.median = stats::median(values).value_or(0.0);
    s.mean = stats::fsum(values) / static_cast<double>(values.size());
    return s;
}

bench::Summary summary_of(const RankTotals& rank) {
    bench::Summary s;
    s.rounds = rank.totals.size();
    s.min = rank.min;
    s.median = rank.median;
    s.mean = rank.mean;
    s.max = rank.max;
    return s;
}

std::uint64_t pid_number(const std::string& pid, std::uint64_t fallback) {
    std::uint64_t value = 0;
    for (char ch : pid) {
        if (ch < '0' || ch > '9') return fallback;
        value = value * 10 + static_cast<std::uint64_t>(ch - '0');
    }
    return pid.empty() ? fallback : value;
}

std::string rule_note(const DailyResult& r) {
    return fmt::format(
        "daily-CI headline {} = {} of rank {}; summary and raw samples are that "
        "rank's per-round sums",
        format_headline(*r.headline), describe(r.rule), r.ranks[r.headline_rank].pid);
}

}  // namespace

std::vector<bench::BenchCase> to_bench_cases(const DailyRun& run) {
    std::vector<bench::BenchCase> cases;
    for (const DailyCase& c : run.cases) {
        bench::BenchCase bc;
        bc.name = c.case_id;
        bench::BenchBlock block;
        block.origin = bench::Origin::CiResult;
        if (c.result) {
            const DailyResult& r = *c.result;
            bc.source = {r.source, 0};
            block.source = {r.source, 0};
            bc.status = r.passed ? "pass" : "fail";
            if (r.passed) {
                const RankTotals& head = r.ranks[r.headline_rank];
                block.effective_us = summary_of(head);
                block.declared_rounds = r.rounds;
                block.declared_warmup = r.warmup;
                bench::RawSamples raw;
                raw.ranks = 1;
                raw.rounds = r.rounds;
                raw.warmup = r.warmup;
                raw.per_rank[pid_number(head.pid, r.headline_rank)] = head.totals;
                block.raw = std::move(raw);
                if (r.ranks.size() > 1) {
                    for (std::size_t i = 0; i < r.ranks.size(); ++i) {
                        bench::Rank rank;
                        rank.rank = pid_number(r.ranks[i].pid, i);
                        rank.eff_us = summary_of(r.ranks[i]);
                        rank.source = block.source;
                        block.ranks.push_back(std::move(rank));
                    }
                }
                block.notes.push_back(rule_note(r));
                block.headline_is_median = r.rule == HeadlineRule::Median;
            } else {
                block.unavailable = "FAIL: " + r.reason;
            }
        } else if (c.row) {
            bc.source = {c.report_source, c.row->line};
            block.source = bc.source;
            if (c.row->kind == ReportRow::Kind::Value) {
                bc.status = "pass";
                bench::Summary s;
                s.mean = c.row->value;
                s.mean_only = true;
                block.effective_us = s;
                block.notes.push_back(
                    c.device_count == std::optional<std::size_t>(1)
                        ? "report.md value only (median of per-round sums, 1 card); no samples"
                    : c.device_count ? "report.md value only (smallest per-rank mean of "
                                       "per-round sums); no samples"
                                     : "report.md value only (headline rule unknown without "
                                       "perf_cases.json); no samples");
            } else if (c.row->kind == ReportRow::Kind::Fail) {
                bc.status = "fail";
                block.unavailable = "FAIL in report.md (no raw-result.json)";
            } else {
                block.unavailable = "not run (report.md '-')";
            }
        } else {
            bc.source = {run.manifest ? run.manifest->source : run.root, 0};
            block.source = bc.source;
            block.unavailable = "in perf_cases.json, no result";
        }
        bc.blocks.push_back(std::move(block));
        cases.push_back(std::move(bc));
    }
    return cases;
}

std::vector<bench::BenchCase> to_bench_cases(const SuiteResult& suite) {
    std::vector<bench::BenchCase> cases;
    for (const SuiteCase& c : suite.cases) {
        if (c.shared_measurement) continue;  // not an independent sample (§2.6)
        bench::BenchCase bc;
        bc.name = c.case_id;
        bc.source = {c.source.empty() ? suite.source : c.source, c.line};
        bench::BenchBlock block;
        block.origin = bench::Origin::CiResult;
        block.source = bc.source;
        bc.status = c.status == "pass" && c.valid ? "pass" : "fail";
        const SuiteRank* head = nullptr;
        for (const SuiteRank& rank : c.ranks) {
            if (!rank.samples_us.empty() && (head == nullptr || rank.median_us < head->median_us))
                head = &rank;
        }
        if (c.status != "pass" || !c.valid) {
            block.unavailable = fmt::format("status {}{}", c.status.empty() ? "?" : c.status,
                                            c.error.empty() ? "" : ": " + c.error);
        } else if (head == nullptr) {
            bench::Summary s;
            s.mean = *c.metric_us;
            s.mean_only = true;
            block.effective_us = s;
            block.notes.push_back(suite.suite_id == "report.md"
                                      ? "report.md value only (minimum rank median); no samples"
                                      : "metric_us only (no ranks[].samples_us)");
        } else {
            const auto& v = head->samples_us;
            block.effective_us = summary_of(v);
            block.headline_is_median = true;  // metric_us: the fastest rank's median
            block.declared_rounds = v.size();
            bench::RawSamples raw;
            raw.ranks = 1;
            raw.rounds = v.size();
            raw.per_rank[pid_number(head->trace_pid, 0)] = v;
            block.raw = std::move(raw);
            if (c.ranks.size() > 1) {
                for (std::size_t i = 0; i < c.ranks.size(); ++i) {
                    bench::Rank rank;
                    rank.rank = pid_number(c.ranks[i].trace_pid, i);
                    if (!c.ranks[i].samples_us.empty())
                        rank.eff_us = summary_of(c.ranks[i].samples_us);
                    rank.source = block.source;
                    block.ranks.push_back(std::move(rank));
                }
            }
            block.notes.push_back(fmt::format(
                "operator suite metric_us {} = minimum rank median (rank {}); compare with "
                "--metric median",
                stats::format_fixed(*c.metric_us, 2), head->trace_pid));
        }
        bc.blocks.push_back(std::move(block));
        cases.push_back(std::move(bc));
    }
    return cases;
}

namespace {

std::string fixed2(double v) {
    return stats::format_fixed(v, 2);
}

}  // namespace

std::vector<render::Table> daily_tables(const DailyRun& run) {
    render::Table t;
    t.title = fmt::format("daily CI ({})", run.root);
    t.columns = {"case", "devices", "rule", "headline", "report.md", "check", "reason"};
    t.units = {"", "", "", "µs", "µs"};
    t.align = {render::Align::Left,  render::Align::Right, render::Align::Left,
               render::Align::Right, render::Align::Right, render::Align::Left,
               render::Align::Left};
    // What upstream's headline hides: how far apart the ranks are, and the rounds' spread.
    render::Table hidden;
    hidden.title = "daily CI ranks and rounds (not in report.md)";
    hidden.columns = {"case", "ranks", "rank spread", "slowest rank", "slowest mean", "p10", "p90"};
    hidden.units = {"", "", "µs", "", "µs", "µs", "µs"};
    hidden.align = {render::Align::Left, render::Align::Right, render::Align::Right,
                    render::Align::Left, render::Align::Right, render::Align::Right,
                    render::Align::Right};
    for (const DailyCase& c : run.cases) {
        std::vector<std::string> row(t.columns.size(), "-");
        row[0] = c.case_id;
        if (c.device_count) row[1] = std::to_string(*c.device_count);
        if (c.row) row[4] = c.row->text;
        if (c.result) {
            const DailyResult& r = *c.result;
            if (r.passed) {
                row[2] = r.rule == HeadlineRule::Median ? "median" : "min-rank-mean";
                row[3] = format_headline(*r.headline);
                std::vector<std::string> more(hidden.columns.size(), "-");
                more[0] = c.case_id;
                more[1] = std::to_string(r.ranks.size());
                double lo = r.ranks[0].mean, hi = r.ranks[0].mean;
                std::size_t slowest = 0;
                for (std::size_t i = 0; i < r.ranks.size(); ++i) {
                    lo = std::min(lo, r.ranks[i].mean);
                    if (r.ranks[i].mean > hi) {
                        hi = r.ranks[i].mean;
                        slowest = i;
                    }
                }
                if (r.ranks.size() > 1) {
                    more[2] = fixed2(hi - lo);
                    more[3] = r.ranks[slowest].pid;
                    more[4] = fixed2(hi);
                }
                const auto& head = r.ranks[r.headline_rank].totals;
                more[5] = fixed2(stats::quantile(head, 0.1).value_or(0.0));
                more[6] = fixed2(stats::quantile(head, 0.9).value_or(0.0));
                hidden.rows.push_back(std::move(more));
            } else {
                row[3] = "FAIL";
                row[6] = r.reason;
            }
            if (c.row) {
                const bool agree = r.passed ? c.row->kind == ReportRow::Kind::Value &&
                                                  std::fabs(*r.headline - c.row->value) <= 0.005
                                            : c.row->kind == ReportRow::Kind::Fail;
                row[5] = agree ? "ok" : "differs";
            }
        } else if (c.row) {
            row[5] = "no raw";
            if (c.row->kind == ReportRow::Kind::NotRun) row[6] = "not run";
        } else {
            row[6] = "no result";
        }
        t.rows.push_back(std::move(row));
    }
    std::vector<render::Table> tables;
    tables.push_back(std::move(t));
    if (!hidden.rows.empty()) tables.push_back(std::move(hidden));
    // run.log's task-timing slots (§1.7): per rank and slot, medians as printed.
    std::vector<std::pair<std::string, const bench::TaskSlots*>> with_slots;
    render::Table context;
    context.title = "run.log context (seed and validation sentinels)";
    context.columns = {"case", "sentinel"};
    for (const DailyCase& c : run.cases) {
        if (!c.run_log) continue;
        with_slots.emplace_back(c.case_id, &c.run_log->task_slots);
        for (const std::string& sentinel : c.run_log->sentinels)
            context.rows.push_back({c.case_id, sentinel});
    }
    render::Table slots = bench::task_slot_table("task slots (run.log)", with_slots, true);
    if (!slots.rows.empty()) tables.push_back(std::move(slots));
    if (!context.rows.empty()) tables.push_back(std::move(context));
    return tables;
}

std::vector<render::Table> suite_tables(const SuiteResult& suite) {
    render::Table t;
    if (suite.suite_id == "raw-result.json") {
        t.title =
            fmt::format("operator suite raw-result.json ({}), validated as upstream", suite.source);
    } else if (suite.suite_id == "report.md") {
        t.title = fmt::format("operator suite report.md ({}): run {} ({}, status {}), values only",
                              suite.source, suite.run_id, suite.logical_date, suite.status);
    } else if (suite.run_id.empty()) {
        t.title =
            fmt::format("operator suite measurements ({}), no suite-result.json", suite.source);
    } else {
        t.title = fmt::format("operator suite {} run {} ({}, status {})", suite.suite_id,
                              suite.run_id, suite.logical_date, suite.status);
    }
    t.columns = {"case",   "status", "metric",      "max median",
                 "spread", "wall",   "measurement", "reason"};
    t.units = {"", "", "µs", "µs", "µs", "s"};
    t.align = {render::Align::Left,  render::Align::Left,  render::Align::Right,
               render::Align::Right, render::Align::Right, render::Align::Right,
               render::Align::Left,  render::Align::Left};
    const auto opt = [](const std::optional<double>& v, int precision) {
        return v ? stats::format_fixed(*v, precision) : std::string("-");
    };
    for (const SuiteCase& c : suite.cases) {
        const bool pass = c.status == "pass" && c.valid;
        t.rows.push_back({c.case_id, c.status.empty() ? "?" : c.status,
                          pass ? opt(c.metric_us, 2) : "-",
                          pass ? opt(c.max_rank_median_us, 2) : "-",
                          pass ? opt(c.rank_spread_us, 2) : "-", opt(c.wall_seconds, 1),
                          c.shared_measurement ? "shared: " + c.measurement_case : c.case_id,
                          pass ? "" : c.error});
    }
    std::vector<render::Table> tables;
    tables.push_back(std::move(t));
    // validate_suite_raw(): per rank its median round total and each slot's median.
    render::Table slots;
    slots.title = "ranks and dispatch slots";
    slots.columns = {"case", "rank", "rank median", "slot", "task", "slot median"};
    slots.units = {"", "", "µs", "", "", "µs"};
    slots.align = {render::Align::Left,  render::Align::Right, render::Align::Right,
                   render::Align::Right, render::Align::Left,  render::Align::Right};
    for (const SuiteCase& c : suite.cases) {
        for (const SuiteRank& rank : c.ranks) {
            for (std::size_t i = 0; i < rank.slots.size(); ++i) {
                slots.rows.push_back({c.case_id, rank.trace_pid, fixed2(rank.median_us),
                                      std::to_string(i), rank.slots[i].first,
                                      fixed2(rank.slots[i].second)});
            }
        }
    }
    if (!slots.rows.empty()) tables.push_back(std::move(slots));
    return tables;
}

render::Table suite_comparison_table(const SuiteResult& baseline, const SuiteResult& current,
                                     std::size_t& refusals) {
    render::Table t;
    t.title =
        fmt::format("upstream comparison (§2.7): {} against {}", current.run_id, baseline.run_id);
    t.columns = {"case", "baseline", "current", "delta_pct", "reason"};
    t.units = {"", "µs", "µs"};
    t.align = {render::Align::Left, render::Align::Right, render::Align::Right,
               render::Align::Right, render::Align::Left};
    const bool ci_stack = current.v2 || baseline.v2 || current.variant == "ci";
    refusals = 0;
    for (const SuiteCase& c : current.cases) {
        const SuiteCase* b = nullptr;
        for (const SuiteCase& candidate : baseline.cases) {
            if (candidate.case_id == c.case_id) b = &candidate;
        }
        Comparison comparison = compare_cases(c, b, ci_stack);
        std::string reason = comparison.reason;
        if (comparison.delta_pct && ci_stack) {
            reason = fmt::format(
                "changed components: {}",
                comparison.changed_components.empty()
                    ? std::string("none")
                    : fmt::format("{}", fmt::join(comparison.changed_components, ", ")));
        }
        if (!comparison.delta_pct && comparison.reason.starts_with("incomparable")) ++refusals;
        if (c.status != "pass" && !c.status.empty())
            reason = fmt::format("current {}{}", c.status, c.error.empty() ? "" : ": " + c.error);
        const auto metric = [](const SuiteCase* s) {
            return s && s->status == "pass" && s->metric_us ? fixed2(*s->metric_us)
                                                            : std::string("N/A");
        };
        if (c.shared_measurement) reason += fmt::format(" (shared: {})", c.measurement_case);
        t.rows.push_back({c.case_id, metric(b), metric(&c), format_change(comparison), reason});
    }
    return t;
}

std::vector<render::Table> tables_for_inputs(const std::vector<std::string>& inputs) {
    std::vector<render::Table> tables;
    for (const std::string& input : inputs) {
        Diagnostics ignored;
        const InputKind kind = classify(input);
        if (kind == InputKind::None) continue;
        if (is_suite_kind(kind)) {
            if (auto suite = load_suite(input, ignored)) {
                for (auto& table : suite_tables(*suite)) tables.push_back(std::move(table));
            }
        } else if (auto run = load_daily(input, ignored)) {
            for (auto& table : daily_tables(*run)) tables.push_back(std::move(table));
        }
    }
    return tables;
}

std::vector<std::string> headline_notes(const std::vector<std::string>& inputs) {
    std::vector<std::string> notes;
    for (const std::string& input : inputs) {
        if (auto note = lane_headline_note(input)) {  // the lane's files (lane.hpp)
            notes.push_back(std::move(*note));
            continue;
        }
        const InputKind kind = classify(input);
        if (kind == InputKind::None) continue;
        if (kind == InputKind::SuiteReport) {
            notes.push_back(fmt::format(
                "{}: operator suite report.md; values only (upstream's metric_us, the minimum "
                "rank median), no samples: a change beyond the tolerance is underpowered and "
                "the hard threshold decides",
                input));
            continue;
        }
        if (is_suite_kind(kind)) {
            notes.push_back(fmt::format(
                "{}: operator suite; upstream's metric_us = minimum rank median (gate it with "
                "--metric median); samples = the fastest rank's samples_us",
                input));
            continue;
        }
        Diagnostics ignored;  // the loader reported them
        auto run = load_daily(input, ignored);
        if (!run) continue;
        std::vector<std::string> rules;
        bool with_samples = false;
        for (const DailyCase& c : run->cases) {
            if (c.result && c.result->passed) {
                with_samples = true;
                rules.push_back(fmt::format("{} {}", c.case_id,
                                            c.result->rule == HeadlineRule::Median
                                                ? "median (1 card: --metric median)"
                                                : "smallest rank mean"));
            } else if (!c.result && c.row && c.row->kind == ReportRow::Kind::Value) {
                rules.push_back(fmt::format("{} report.md value, no samples", c.case_id));
            }
        }
        if (rules.empty()) continue;
        notes.push_back(fmt::format(
            "{}: daily-CI headline rule per case: {}{}", input, fmt::join(rules, ", "),
            with_samples ? "; samples = the headline rank's per-round sums"
                         : "; a change beyond the tolerance is underpowered and the hard "
                           "threshold decides"));
    }
    return notes;
}

std::size_t annotate_gate(const std::vector<std::string>& baseline_inputs,
                          const std::vector<std::string>& current_inputs, render::Report& report) {
    std::vector<std::string> all = baseline_inputs;
    all.insert(all.end(), current_inputs.begin(), current_inputs.end());
    for (std::string& note : headline_notes(all)) report.notes.push_back(std::move(note));
    if (baseline_inputs.size() != 1 || current_inputs.size() != 1 ||
        classify(baseline_inputs[0]) != InputKind::Suite ||
        classify(current_inputs[0]) != InputKind::Suite)
        return 0;
    Diagnostics ignored;  // the loader reported them
    auto baseline = load_suite(baseline_inputs[0], ignored);
    auto current = load_suite(current_inputs[0], ignored);
    if (!baseline || !current) return 0;
    std::size_t refused = 0;
    report.tables.push_back(suite_comparison_table(*baseline, *current, refused));
    report.data["upstream_comparison"] = nlohmann::json::array();
    for (const auto& row : report.tables.back().rows) {
        report.data["upstream_comparison"].push_back(
            {{"case", row[0]}, {"delta", row[3]}, {"reason", row[4]}});
    }
    if (refused > 0) {
        report.notes.push_back(fmt::format(
            "{} case(s) upstream refuses to compare (incomparable identity): no pass", refused));
    }
    return refused;
}

void install_bench_reader() {
    bench::register_input_reader(
        "ciresult",
        [](const std::string& path, Diagnostics& diagnostics,
           const bench::CaseSink& sink) -> std::optional<Status> {
            // The lane's journal and suite-result.json (§3.5) first: lane.hpp.
            if (auto lane = read_lane_input(path, diagnostics, sink)) return lane;
            const InputKind kind = classify(path);
            if (kind == InputKind::None) return std::nullopt;
            std::vector<bench::BenchCase> cases;
            if (is_suite_kind(kind)) {
                auto suite = load_suite(path, diagnostics);
                if (!suite) return Status(suite.error());
                cases = to_bench_cases(*suite);
            } else {
                auto run = load_daily(path, diagnostics);
                if (!run) return Status(run.error());
                cases = to_bench_cases(*run);
            }
            if (cases.empty()) {
                return Status(Error{"no case in this CI result", path, 0, ExitCode::InputError});
            }
            for (bench::BenchCase& bench_case : cases) sink(std::move(bench_case));
            return ok_status();
        });
}

}  // namespace ptune::ciresult
