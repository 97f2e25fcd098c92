#pragma once
// Private to ciresult's input files: the names upstream gives its result files and the path
// helpers classification (classify.cpp) and loading (load.cpp) share.

#include <cstddef>
#include <filesystem>
#include <string>

namespace ptune::ciresult::detail {

inline constexpr const char* kRawResult = "raw-result.json";
inline constexpr const char* kReport = "report.md";
inline constexpr const char* kManifest = "perf_cases.json";
inline constexpr const char* kSuite = "suite-result.json";
inline constexpr const char* kMeasurement = "measurement.json";
inline constexpr const char* kSubmission = "submission.json";
inline constexpr const char* kHistorySelection = "history-selection.json";

/// A regular file (a FIFO or device is not: it is never peeked at or opened here).
bool file_at(const std::filesystem::path& path);

/// Whether `dir` has a case folder: a subfolder holding `file`.
bool has_case_folders(const std::filesystem::path& dir, const char* file = kRawResult);

/// The folder of a daily run within `dir`: itself, or its published/ or work/ (an <OUT>).
std::filesystem::path daily_root(const std::filesystem::path& dir);

/// The first `bytes` of a regular file (empty when it cannot be read or is not regular).
std::string head_of(const std::string& path, std::size_t bytes);

/// Whether `text` holds the daily-CI report.md table.
bool is_daily_report(const std::string& text);

/// The folder of `file` (`.` for a bare name).
std::filesystem::path folder_of(const std::filesystem::path& file);

}  // namespace ptune::ciresult::detail
