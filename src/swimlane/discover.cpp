// Finding the records, deps and names of a capture (swimlane.md §1): a file, a dfx_outputs/
// directory, a build_output/<Program>_<ts>/ run (newest by name, never by mtime) or an L3 tree
// rank{r}/d{k}/.

#include "ptune/swimlane/discover.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "ptune/core/discover.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/kernel_names.hpp"
#include "ptune/core/text.hpp"

namespace ptune::swimlane {

namespace fs = std::filesystem;

namespace {

using io::is_dir;
using io::is_file;

/// Records file names, newest generation first; "*" entries are timestamped prefixes.
constexpr std::string_view kRecordNames[] = {"chip_swimlane_records.json",
                                             "l2_swimlane_records.json", "l2_perf_records.json"};
constexpr std::string_view kRecordPrefixes[] = {"l2_perf_records_", "perf_swimlane_"};

/// The records file directly in `dir` (fixed names first, then the newest timestamped one by name).
std::optional<fs::path> records_in(const fs::path& dir) {
    // A fixed name of any kind but a directory: a FIFO or device there is then named by the
    // reader (exit 2), not taken for "no records here".
    for (auto name : kRecordNames)
        if (std::error_code ec; fs::exists(dir / name, ec) && !is_dir(dir / name))
            return dir / name;
    std::vector<fs::path> stamped;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (!name.ends_with(".json") || !it->is_regular_file(ec)) continue;
        for (auto prefix : kRecordPrefixes)
            if (name.starts_with(prefix)) stamped.push_back(it->path());
    }
    if (stamped.empty()) return std::nullopt;
    std::sort(stamped.begin(), stamped.end());
    return stamped.back();
}

/// Number after a one-letter-word prefix: "rank3" → 3, "d12" → 12.
std::optional<int> numbered(const std::string& name, std::string_view prefix) {
    if (!name.starts_with(prefix) || name.size() == prefix.size()) return std::nullopt;
    auto n = text::parse_int(std::string_view(name).substr(prefix.size()));
    if (!n || *n < 0 || *n > std::numeric_limits<int>::max() || name[prefix.size()] == '+' ||
        name[prefix.size()] == '-')
        return std::nullopt;
    return static_cast<int>(*n);
}

/// Fills deps and the kernel-name files (the core lookup) for a records file; notes go to `notes`.
CaptureFiles siblings_of(const fs::path& records, std::vector<std::string>& notes) {
    CaptureFiles files;
    files.records = records;
    fs::path dir = records.parent_path();
    // Any kind of file: a FIFO or device there is then named by the reader ("no usable deps.json
    // (is a FIFO …)"), not reported as missing.
    if (std::error_code ec; fs::exists((dir.empty() ? fs::path(".") : dir) / "deps.json", ec))
        files.deps = dir / "deps.json";
    KernelNameFiles names = find_kernel_names_near(records);
    files.name_map = std::move(names.name_map);
    files.kernel_config = std::move(names.kernel_config);
    notes.insert(notes.end(), names.notes.begin(), names.notes.end());
    return files;
}

/// The number of a `prefix<N>` directory entry. A name that looks meant as one but is not
/// (`rank-1`, `rank99999999999999999999`) gets a note rather than a silent skip.
std::optional<int> numbered_dir(const fs::directory_entry& entry, std::string_view prefix,
                                std::vector<std::string>& notes) {
    std::error_code ec;
    if (!entry.is_directory(ec)) return std::nullopt;
    const std::string name = entry.path().filename().string();
    auto number = numbered(name, prefix);
    if (number || !name.starts_with(prefix) || name.size() == prefix.size()) return number;
    char next = name[prefix.size()];
    if ((next >= '0' && next <= '9') || next == '-' || next == '+') {
        notes.push_back(
            fmt::format("{}: not a {}<N> directory (N a whole number below 2^31), "
                        "skipped",
                        entry.path().string(), prefix));
    }
    return std::nullopt;
}

/// rank{r}/d{k}/ captures under `dir`, in (rank, dispatch) order.
std::vector<CaptureFiles> l3_captures(const fs::path& dir, std::vector<std::string>& notes) {
    std::vector<CaptureFiles> captures;
    std::error_code ec;
    for (fs::directory_iterator rank_it(dir, ec), end; !ec && rank_it != end;
         rank_it.increment(ec)) {
        auto rank = numbered_dir(*rank_it, "rank", notes);
        if (!rank) continue;
        std::error_code ec2;
        fs::directory_iterator d_it(rank_it->path(), ec2);
        if (ec2) {  // said, not skipped as if it held no dispatch (issue #24)
            notes.push_back(fmt::format("{}: cannot read the directory ({}), skipped",
                                        rank_it->path().string(), ec2.message()));
            continue;
        }
        for (; !ec2 && d_it != end; d_it.increment(ec2)) {
            auto dispatch = numbered_dir(*d_it, "d", notes);
            if (!dispatch) continue;
            auto records = records_in(d_it->path());
            if (!records) {
                notes.push_back(fmt::format("{}: no records file, skipped", d_it->path().string()));
                continue;
            }
            CaptureFiles files = siblings_of(*records, notes);
            files.rank = *rank;
            files.dispatch = *dispatch;
            files.label = fmt::format("rank{}/d{}", *rank, *dispatch);
            captures.push_back(std::move(files));
        }
    }
    std::sort(captures.begin(), captures.end(), [](const CaptureFiles& a, const CaptureFiles& b) {
        return std::pair(a.rank, a.dispatch) < std::pair(b.rank, b.dispatch);
    });
    return captures;
}

/// Looks for a capture in `dir` itself, then its dfx_outputs/, each also as an L3 tree. A
/// directory that cannot be listed (no read permission) is added to `unreadable`, never taken
/// for an empty one.
std::optional<Discovery> search(const fs::path& dir, std::vector<std::string>& unreadable) {
    for (const fs::path& candidate : {dir, dir / "dfx_outputs"}) {
        if (!is_dir(candidate)) continue;
        std::error_code listing;
        fs::directory_iterator probe(candidate, listing);
        if (listing) {
            unreadable.push_back(fmt::format("{} ({})", candidate.string(), listing.message()));
            continue;
        }
        Discovery found;
        if (auto records = records_in(candidate)) {
            found.captures.push_back(siblings_of(*records, found.notes));
            return found;
        }
        found.captures = l3_captures(candidate, found.notes);
        if (!found.captures.empty()) return found;
    }
    return std::nullopt;
}

}  // namespace

std::vector<std::string> capture_folder_inputs(const fs::path& dir) {
    std::vector<std::string> out;
    const fs::path folder = dir.empty() ? fs::path(".") : dir;
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        bool fixed = name == "deps.json" || name == "dispatch_identity.json" ||
                     name == "dispatch_program.json" || name == "host_phase_records.jsonl" ||
                     name == "kernel_config.py";
        for (auto records : kRecordNames) fixed = fixed || name == records;
        bool stamped = name.ends_with(".json") &&
                       (name.starts_with("name_map") || name.starts_with(kRecordPrefixes[0]) ||
                        name.starts_with(kRecordPrefixes[1]));
        bool host_log = name.ends_with(".log") &&
                        (name.starts_with("host_clock_alignment.") || name.starts_with("host."));
        if ((fixed || stamped || host_log) && !is_dir(it->path()))
            out.push_back((dir / it->path().filename()).string());
    }
    const fs::path parent_config =
        (dir.empty() ? fs::path("..") : dir.parent_path()) / "kernel_config.py";
    if (std::error_code exists; fs::exists(parent_config, exists))
        out.push_back(parent_config.string());
    std::sort(out.begin(), out.end());
    return out;
}

Result<Discovery> discover_captures(const fs::path& input) {
    if (input == io::kStdinName) {
        // Records on stdin: no siblings to look for; --deps and --names still apply.
        Discovery found;
        found.captures.push_back(CaptureFiles{input, {}, {}, {}, {}, -1, -1});
        return found;
    }
    if (is_file(input)) {
        Discovery found;
        found.captures.push_back(siblings_of(input, found.notes));
        return found;
    }
    if (!is_dir(input)) {
        // Missing, or there but no file to read (a FIFO, a device): say which.
        if (auto status = io::check_regular_file(input.string()); !status) return status.error();
        return Error{"no such file or directory", input.string(), 0};
    }
    std::vector<std::string> unreadable;
    if (auto found = search(input, unreadable)) return *found;
    // build_output/ (or any folder of <Program>_<ts>/ runs): the newest run by its name.
    std::string note;
    auto run = discover::resolve_run(input, "", 1, &note);
    if (run && *run != input) {
        if (auto found = search(*run, unreadable)) {
            found->notes.insert(found->notes.begin(), note);
            return *found;
        }
    }
    if (!unreadable.empty()) {
        // Not "no records": the records may well be in there (issue #24).
        return Error{fmt::format("cannot read the directory {}: no swimlane records could be "
                                 "looked for there",
                                 fmt::join(unreadable, ", ")),
                     input.string(), 0};
    }
    return Error{
        "no swimlane records here (looked for chip_swimlane_records.json, "
        "l2_swimlane_records.json, "
        "l2_perf_records*.json directly, in dfx_outputs/, in the newest <Program>_<ts>/ run and in "
        "rank*/d*/)",
        input.string(), 0};
}

}  // namespace ptune::swimlane
