// Loading CI results (inputs.hpp load_daily(), load_suite()): the files of a daily-CI run or an
// operator suite read, parsed by daily.hpp / suite.hpp / operator.hpp, checked against each
// other (report.md against raw-result.json or suite-result.json, rows against the manifest).

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "input_paths.hpp"
#include "ptune/ciresult/inputs.hpp"
#include "ptune/ciresult/operator.hpp"
#include "ptune/core/found_files.hpp"
#include "ptune/core/io.hpp"

namespace ptune::ciresult {

namespace fs = std::filesystem;
using namespace detail;

namespace {

std::atomic<std::size_t> g_loads{0};  // load_count()

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

std::size_t load_count() {
    return g_loads.load();
}

Result<DailyRun> load_daily(const std::string& path, Diagnostics& diagnostics) {
    ++g_loads;
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

// The published folder's submission.json and history-selection.json (§2.9) beside the suite's
// files: a file that is not usable or does not parse is a warning (parse_submission()), the
// suite stands without it.
void read_run_files(const fs::path& dir, SuiteResult& suite, Diagnostics& diagnostics) {
    const auto read_side = [&](const char* name, const auto& parse, auto& into) {
        const fs::path file = dir / name;
        if (!io::usable_side_file(file, diagnostics, "the suite is read without it")) return;
        auto text = io::read_file(file.string());
        if (!text) {
            diagnostics.warn(text.error().file, text.error().line,
                             text.error().message + "; the suite is read without it");
            return;
        }
        into = parse(*text, file.string(), diagnostics);
    };
    read_side(kSubmission, parse_submission, suite.submission);
    read_side(kHistorySelection, parse_history_selection, suite.history_selection);
}

Result<OperatorReport> load_operator_report(const std::string& path, Diagnostics& diagnostics) {
    auto text = io::read_file(path);
    if (!text) return text.error();
    return parse_operator_report(*text, path, diagnostics);
}

}  // namespace

Result<SuiteResult> load_suite(const std::string& path, Diagnostics& diagnostics) {
    ++g_loads;
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
            SuiteResult suite = suite_of_report(*report);
            read_run_files(folder_of(file), suite, diagnostics);
            return suite;
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
    read_run_files(folder_of(p), *suite, diagnostics);
    return suite;
}

}  // namespace ptune::ciresult
