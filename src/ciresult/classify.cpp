// Which CI result a path is (inputs.hpp classify()), from names and the first bytes of a file,
// and the path helpers loading shares (input_paths.hpp).

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "input_paths.hpp"
#include "ptune/ciresult/inputs.hpp"
#include "ptune/ciresult/operator.hpp"
#include "ptune/core/io.hpp"

namespace ptune::ciresult {

namespace fs = std::filesystem;

namespace detail {
bool file_at(const fs::path& path) {
    return io::is_file(path);
}

// A case folder of published/ or work/: a subfolder holding `file` (raw-result.json).
bool has_case_folders(const fs::path& dir, const char* file) {
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

fs::path folder_of(const fs::path& file) {
    fs::path parent = file.parent_path();
    return parent.empty() ? fs::path(".") : parent;
}

}  // namespace detail

using namespace detail;

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

}  // namespace ptune::ciresult
