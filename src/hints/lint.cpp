// perf_hints.log as lint: merging, column bases, compile segmentation, catalogue advice,
// fingerprints, inline suppressions and kernel attribution (perf-hints.md §1, §7;
// conventions.md §3.5).

#include "ptune/hints/lint.hpp"
#include "ptune/rules/subject_rules.hpp"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "ptune/core/discover.hpp"
#include "ptune/core/found_files.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"
#include "ptune/hints/parser.hpp"

namespace ptune::hints {

namespace fs = std::filesystem;

namespace {

/// pypto #2299: columns count from 1 from this day (perf-hints.md §7.4).
constexpr std::string_view kOneBasedColumnsSince = "20260806";

std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = 14695981039346656037ull) {
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    return hash;
}

// Identity of an entry as printed: two entries with the same key are the same hint.
std::string entry_key(const Entry& entry) {
    std::string key = entry.code;
    key += '\x1f';
    key += entry.rule;
    key += '\x1f';
    key += entry.message;
    if (entry.span) {
        key += fmt::format("\x1f{}\x1f{}\x1f{}", entry.span->file, entry.span->line,
                           entry.span->column);
    }
    return key;
}

// Emission phase of a code within one compile (perf-hints.md §1): AutoTileMatmulL0, then
// MemoryReuse, then AllocateMemoryAddr, then PH001 at post-pipeline. -1: no known place.
int phase(std::string_view code) {
    if (code.rfind("PH-AT-", 0) == 0) return 0;
    if (code == "PH-MR-001") return 1;
    if (code == "PH-DSA-001") return 2;
    if (code == "PH001") return 3;
    return -1;
}

// Finds where one compile ends and the next begins in an append-mode log. Within a compile the
// phases never go back, and deduplicated PH001 (templates 2 and 3) come invalid spans first,
// then sites in (file, line, col, op) order, each exactly once.
class CompileTracker {
  public:
    // True when `entry` starts a new compile.
    bool starts_compile(const Entry& entry, std::uint64_t key) {
        int entry_phase = phase(entry.code);
        bool boundary = entry_phase >= 0 && entry_phase < last_phase_;
        if (!boundary && entry.ph001_template >= 2) {
            if (ph001_keys_.count(key)) {
                boundary = true;  // an identical site twice: upstream dedups per compile
            } else if (last_site_) {
                // Invalid spans come first, then sites in ascending order.
                boundary = !entry.span || site_of(entry) < *last_site_;
            }
        }
        if (boundary) {
            ph001_keys_.clear();
            last_site_.reset();
        }
        if (entry_phase >= 0) last_phase_ = entry_phase;
        if (entry.ph001_template >= 2) {
            ph001_keys_.insert(key);
            if (entry.span) last_site_ = site_of(entry);
        }
        return boundary;
    }

  private:
    using Site = std::tuple<std::string, std::size_t, long, std::string>;
    static Site site_of(const Entry& entry) {
        std::string op = entry.fields.string("op").value_or("");
        return {entry.span->file, entry.span->line, entry.span->column, op};
    }
    int last_phase_ = -1;
    std::unordered_set<std::uint64_t> ph001_keys_;  // hashes of entry keys: memory stays small
    std::optional<Site> last_site_;
};

// Column base from the entries (perf-hints.md §7.4 `auto`, refined by template dating).
ColumnBase column_base_from_entries(const std::deque<Entry>& entries) {
    bool v3 = false, v1 = false, zero = false;
    for (const auto& entry : entries) {
        v3 = v3 || entry.ph001_template == 3;
        v1 = v1 || entry.ph001_template == 1;
        zero = zero || (entry.span && entry.span->column == 0);
    }
    if (v3) return {1, "PH001 'moves' clause: pypto >= 2026-08-13, 1-based columns"};
    if (v1) return {0, "PH001 template without tuple clause: pypto < 2026-06-04, 0-based columns"};
    if (zero) return {0, "a column 0 occurs: 0-based columns"};
    return {1, "no dating marker: 1-based columns (pypto >= 2026-08-06)"};
}

bool is_pseudo_file(std::string_view file) {
    return !file.empty() && file.front() == '<';
}

std::string display_path(const std::string& file, const fs::path& root) {
    fs::path path(file);
    if (root.empty() || !path.is_absolute()) return file;
    fs::path relative = path.lexically_normal().lexically_relative(root);
    if (relative.empty() || *relative.begin() == "..") return file;
    return relative.generic_string();
}

std::string on_disk_path(const std::string& file, const fs::path& root) {
    fs::path path(file);
    if (path.is_absolute() || root.empty()) return file;
    return (root / path).string();
}

// The run directory a log's relative hint paths resolve against (perf-hints.md):
// `<run>/report/perf_hints.log` -> `<run>`, any other log its own directory; none for stdin.
fs::path run_dir_of_log(const std::string& log_path) {
    if (log_path == "-") return {};
    fs::path dir = fs::path(log_path).parent_path();
    if (dir.filename() == "report") dir = dir.parent_path();
    return dir.empty() ? fs::path(".") : dir;
}

// Where a hint's file is read and how it is cited: under --root as display_path/on_disk_path
// say; without it, a relative path missing from the working directory but present under the
// log's run directory gets the run directory prefixed (one base for every path of a report, as
// advise's rebase_locations()); with --absolute-paths, printed absolute.
std::pair<std::string, std::string> cited_and_read_path(const std::string& file,
                                                        const fs::path& run_dir,
                                                        const LintOptions& options) {
    std::string shown = display_path(file, options.root);
    std::string read = on_disk_path(file, options.root);
    fs::path path(file);
    std::error_code error;
    if (options.root.empty() && path.is_relative() && !run_dir.empty() &&
        !fs::exists(path, error) && fs::exists(run_dir / path, error)) {
        read = (run_dir / path).lexically_normal().string();
        shown = read;
    }
    if (options.absolute_paths) shown = fs::absolute(read, error).lexically_normal().string();
    return {shown, read};
}

// An inline `# ptune: ignore[CODE, …]` comment (bare `# ptune: ignore` covers every code).
struct Suppression {
    std::size_t line = 0;
    std::vector<std::string> codes;  // empty: every code
    std::vector<bool> used;
    bool used_all = false;
    bool own_line = false;  // a comment-only line: it also covers the line below
};

std::vector<Suppression> find_suppressions(const std::vector<std::string>& lines) {
    constexpr std::string_view kMarker = "# ptune: ignore";
    std::vector<Suppression> found;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        std::string_view line = lines[i];
        std::size_t at = line.find(kMarker);
        if (at == std::string_view::npos) continue;
        std::string_view rest = line.substr(at + kMarker.size());
        Suppression suppression;
        suppression.line = i + 1;
        suppression.own_line = text::trim_left(line).rfind('#', 0) == 0;
        if (!rest.empty() && rest.front() == '[') {
            std::size_t close = rest.find(']');
            for (auto code :
                 text::split(rest.substr(1, close == std::string_view::npos ? std::string_view::npos
                                                                            : close - 1),
                             ',')) {
                code = text::trim(code);
                if (!code.empty()) suppression.codes.emplace_back(code);
            }
        } else if (!rest.empty() && !std::isspace(static_cast<unsigned char>(rest.front()))) {
            continue;  // `# ptune: ignored…` is prose, not a marker
        }
        suppression.used.assign(suppression.codes.size(), false);
        found.push_back(std::move(suppression));
    }
    return found;
}

std::size_t indentation(std::string_view line) {
    std::size_t width = 0;
    while (width < line.size() && (line[width] == ' ' || line[width] == '\t')) ++width;
    return width;
}

// `def NAME(` / `async def NAME(` at the start of a (trimmed) line.
std::optional<std::string> def_name(std::string_view line) {
    line = text::trim(line);
    if (line.rfind("async ", 0) == 0) line = text::trim_left(line.substr(6));
    if (line.rfind("def ", 0) != 0) return std::nullopt;
    line = text::trim_left(line.substr(4));
    std::size_t end = 0;
    while (end < line.size() &&
           (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) {
        ++end;
    }
    if (end == 0) return std::nullopt;
    return std::string(line.substr(0, end));
}

// The Python function whose body holds `line` (1-based): the line itself when it is the `def`
// (PH-MR-001 points at the function span) or a decorator above it, else the nearest enclosing
// `def` by indentation.
std::optional<std::string> enclosing_function(const std::vector<std::string>& lines,
                                              std::size_t line) {
    if (line == 0 || line > lines.size()) return std::nullopt;
    std::string_view here = lines[line - 1];
    if (auto name = def_name(here)) return name;
    if (text::trim(here).rfind("@", 0) == 0) {
        for (std::size_t i = line; i < lines.size() && i < line + 8; ++i) {
            if (auto name = def_name(lines[i])) return name;
        }
        return std::nullopt;
    }
    std::size_t scope = indentation(here);
    for (std::size_t i = line - 1; i-- > 0 && scope > 0;) {
        std::string_view candidate = lines[i];
        std::string_view trimmed = text::trim(candidate);
        if (trimmed.empty() || trimmed.front() == '#') continue;
        std::size_t indent = indentation(candidate);
        if (indent >= scope) continue;
        if (auto name = def_name(candidate)) return name;
        scope = indent;
    }
    return std::nullopt;
}

// The kernel sources hints point at, read once each for enclosing functions and `# ptune:
// ignore` comments. A source that cannot be read is named once: its hints keep their place but
// lose their kernel and their suppressions, which the user should know.
class SourceCache {
  public:
    explicit SourceCache(Diagnostics& diagnostics) : diagnostics_(diagnostics) {}

    const std::vector<std::string>* lines(const std::string& path) {
        auto [it, inserted] = files_.try_emplace(path);
        if (inserted && !path.empty()) {
            it->second.lines = read_lines(path);
            if (it->second.lines) it->second.suppressions = find_suppressions(*it->second.lines);
        }
        return it->second.lines ? &*it->second.lines : nullptr;
    }
    std::vector<Suppression>* suppressions(const std::string& path) {
        if (!lines(path)) return nullptr;
        return &files_[path].suppressions;
    }
    template <class F>
    void for_each_suppression(F&& visit) {
        std::vector<std::string> paths;
        for (const auto& [path, file] : files_) paths.push_back(path);
        std::sort(paths.begin(), paths.end());
        for (const auto& path : paths) {
            for (auto& suppression : files_[path].suppressions) visit(path, suppression);
        }
    }

  private:
    struct File {
        std::optional<std::vector<std::string>> lines;
        std::vector<Suppression> suppressions;
    };

    std::optional<std::vector<std::string>> read_lines(const std::string& path) {
        static constexpr std::string_view kLost =
            "the hints in it get no kernel and its `# ptune: ignore` comments are not applied";
        // A missing source (the log came from another machine) is common and stays silent.
        if (!io::usable_side_file(path, diagnostics_, kLost)) return std::nullopt;
        auto text = io::read_file(path, 64u << 20);
        if (!text) {
            diagnostics_.warn(path, 0, text.error().message + "; " + std::string(kLost));
            return std::nullopt;
        }
        std::vector<std::string> lines;
        io::LineReader reader(*text);
        std::string_view line;
        while (reader.next(line)) lines.emplace_back(line);
        return lines;
    }

    Diagnostics& diagnostics_;
    std::unordered_map<std::string, File> files_;
};

// Marks the diagnostic suppressed when a comment on its line, or a comment line right above it,
// lists its code.
bool apply_suppression(LintDiagnostic& diagnostic, SourceCache& sources,
                       const std::map<std::string, std::string>& display_of) {
    if (diagnostic.line == 0 || diagnostic.source_path.empty()) return false;
    auto* suppressions = sources.suppressions(diagnostic.source_path);
    if (!suppressions) return false;
    for (auto& suppression : *suppressions) {
        bool covers = suppression.line == diagnostic.line ||
                      (suppression.own_line && suppression.line + 1 == diagnostic.line);
        if (!covers) continue;
        bool matched = suppression.codes.empty();
        if (matched) suppression.used_all = true;
        for (std::size_t i = 0; i < suppression.codes.size(); ++i) {
            if (suppression.codes[i] == diagnostic.entry.code) {
                suppression.used[i] = true;
                matched = true;
            }
        }
        if (matched) {
            auto display = display_of.find(diagnostic.source_path);
            diagnostic.disposition = Disposition::Suppressed;
            diagnostic.suppressed_by = fmt::format(
                "{}:{}", display == display_of.end() ? diagnostic.file.str() : display->second,
                suppression.line);
            return true;
        }
    }
    return false;
}

// Labels and metrics of one hint for the `hints.*` rules.
void describe_entry(const LintDiagnostic& diagnostic, rules::Subject& subject) {
    const Entry& entry = diagnostic.entry;
    subject.labels["hints.code"] = entry.code;
    subject.labels["hints.rule"] = entry.rule;
    if (!is_known_code(entry.code)) subject.metrics["hints.unknown_code"] = 1;
    entry.fields.for_each([&](std::string_view name, const nlohmann::json& value) {
        std::string key = "hints.";
        key += name;
        if (value.is_string())
            subject.labels[key] = value.get<std::string>();
        else if (value.is_boolean())
            subject.metrics[key] = value.get<bool>() ? 1 : 0;
        else if (value.is_number())
            subject.metrics[key] = value.get<double>();
    });
    subject.metrics["hints.count"] = static_cast<double>(diagnostic.count);
    auto recommended_bytes = entry.fields.number("recommended_bytes");
    if (entry.code == "PH001" && recommended_bytes) {
        auto recommended = static_cast<std::int64_t>(*recommended_bytes);
        std::string width = fmt::format("{} B", recommended);
        if (auto dtype = entry.fields.string("dtype")) {
            if (auto bits = dtype_bits(*dtype)) {
                std::int64_t elements = (recommended * 8 + *bits - 1) / *bits;
                subject.metrics["hints.needed_elems"] = static_cast<double>(elements);
                width = fmt::format("{} {} elements ({} B)", elements, *dtype, recommended);
            }
        }
        subject.labels["hints.target_width"] = width;
    }
    if (diagnostic.line) {
        subject.locations.push_back({diagnostic.file, diagnostic.line, diagnostic.column});
    }
}

double ranking_weight(const LintDiagnostic& diagnostic) {
    const auto& fields = diagnostic.entry.fields;
    double occurrences = fields.number("occurrences")
                             .value_or(diagnostic.entry.ph001_template == 1
                                           ? static_cast<double>(diagnostic.count)  // v1 repeats
                                           : 1.0);
    if (auto transfer_bytes = fields.number("transfer_bytes")) return *transfer_bytes * occurrences;
    return occurrences;
}

void apply_rules(LintResult& result, const std::vector<ParsedLog>& logs,
                 const rules::Catalogue& catalogue) {
    rules::MetricStore store;  // the run only: entries are evaluated one at a time below
    std::size_t compiles = 0;
    bool identical = true;
    for (const auto& log : logs) {
        if (log.compile_starts.size() > compiles) compiles = log.compile_starts.size();
        if (log.compile_starts.size() > 1) identical = identical && log.identical_compiles;
    }
    store.run().metrics["hints.compiles"] = static_cast<double>(compiles);
    store.run().metrics["hints.identical_compiles"] = compiles > 1 && identical ? 1 : 0;
    for (auto& finding : rules::evaluate(catalogue, store, {"hints."}))
        result.log_findings.push_back(std::move(finding));

    std::map<std::string, std::size_t> rule_order;
    for (std::size_t i = 0; i < catalogue.rules().size(); ++i)
        rule_order[catalogue.rules()[i].id] = i;
    // Each hint's subject is made, evaluated and dropped: 200,000 hints never hold a metric
    // map and a list of findings each at once.
    const rules::SubjectRules entry_rules(catalogue, "entry", {"hints."});
    TextPool texts;  // rule metadata, advice and most summaries repeat from hint to hint
    std::vector<rules::Finding> findings;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < result.diagnostics.size(); ++i) {
        rules::Subject subject;
        subject.key = {"entry", fmt::format("{:08}", i)};
        describe_entry(result.diagnostics[i], subject);
        findings.clear();
        entry_rules.evaluate(subject, findings);
        if (findings.empty()) {
            ++result.disabled;  // every rule for it is disabled (--rules)
            continue;
        }
        std::stable_sort(findings.begin(), findings.end(), [&](const auto& a, const auto& b) {
            if (a.severity != b.severity) return a.severity > b.severity;
            return rule_order[a.rule] < rule_order[b.rule];
        });
        LintDiagnostic& diagnostic = result.diagnostics[i];
        const rules::Finding& primary = findings.front();
        diagnostic.rule_id = texts.get(primary.rule);
        diagnostic.catalogue = texts.get(primary.catalogue);
        diagnostic.severity = primary.severity;
        diagnostic.title = texts.get(primary.title);
        std::vector<std::string> summaries, advices;
        diagnostic.rule_ids.reserve(findings.size());
        for (const auto& finding : findings) {
            diagnostic.rule_ids.push_back(texts.get(finding.rule));
            summaries.push_back(finding.message);
            if (!finding.advice.empty()) advices.push_back(finding.advice);
        }
        diagnostic.advice_summary = texts.get(fmt::format("{}", fmt::join(summaries, "; ")));
        diagnostic.advice = texts.get(fmt::format("{}", fmt::join(advices, " ")));
        if (kept != i) result.diagnostics[kept] = std::move(diagnostic);
        ++kept;
    }
    result.diagnostics.erase(result.diagnostics.begin() + static_cast<std::ptrdiff_t>(kept),
                             result.diagnostics.end());
}

// The message without PH001's occurrence count: unrolling a loop differently changes the count,
// not the problem at the site.
std::string_view fingerprint_text(std::string_view message) {
    constexpr std::string_view kCount = " occurrences at this source location)";
    if (message.size() < kCount.size() ||
        message.substr(message.size() - kCount.size()) != kCount) {
        return message;
    }
    std::size_t open = message.rfind(" (");
    return open == std::string_view::npos ? message : message.substr(0, open);
}

// Fingerprint = hash(code, display file, message) plus the rank among identical hints of the
// file in line order, so it survives lines moving but tells two identical statements apart.
void assign_fingerprints(std::deque<LintDiagnostic>& diagnostics) {
    std::vector<std::size_t> order(diagnostics.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::tie(diagnostics[a].line, diagnostics[a].column) <
               std::tie(diagnostics[b].line, diagnostics[b].column);
    });
    std::unordered_map<std::uint64_t, std::size_t> seen;
    for (std::size_t index : order) {
        auto& diagnostic = diagnostics[index];
        std::uint64_t hash = fnv1a(diagnostic.entry.code);
        hash = fnv1a(std::string_view("\0", 1), hash);
        hash = fnv1a(diagnostic.file.str(), hash);
        hash = fnv1a(std::string_view("\0", 1), hash);
        hash = fnv1a(fingerprint_text(diagnostic.entry.message), hash);
        diagnostic.fingerprint = fmt::format("{:016x}:{}", hash, seen[hash]++);
    }
}

}  // namespace

std::optional<ColumnBase> column_base_from_run_date(const fs::path& log_path) {
    if (log_path.empty() || log_path == io::kStdinName) return std::nullopt;
    std::error_code ec;
    fs::path dir = fs::absolute(log_path, ec);
    if (ec) dir = log_path;
    // `<Program>_<YYYYMMDD_HHMMSS>/report/perf_hints.log`: the run folder is a few levels up.
    for (int level = 0; level < 4 && dir.has_parent_path() && dir != dir.parent_path(); ++level) {
        dir = dir.parent_path();
        auto run = discover::parse_run_dir_name(dir);
        if (!run) continue;
        // A run made before the change was made with a pypto before it; a later run proves
        // nothing (an older pypto may still be installed), so the other markers decide.
        if (run->timestamp.substr(0, 8) >= kOneBasedColumnsSince) return std::nullopt;
        return ColumnBase{0, fmt::format("run folder {} dated {}-{}-{}, before 2026-08-06: "
                                         "pypto < 2026-08-06, 0-based columns",
                                         dir.filename().string(), run->timestamp.substr(0, 4),
                                         run->timestamp.substr(4, 2), run->timestamp.substr(6, 2))};
    }
    return std::nullopt;
}

std::optional<ColumnBase> column_base_from_build(const fs::path& log_path) {
    if (log_path.empty() || log_path == io::kStdinName) return std::nullopt;
    std::error_code ec;
    fs::path report = log_path.parent_path();
    if (report.empty()) report = ".";
    for (const auto& dir : {report, report.parent_path()}) {
        if (!dir.empty() && fs::exists(dir / "compiled_meta.json", ec)) {
            // Its presence decides the column base: read through io like any input, so that an
            // output may not replace it (the output-safety ledger records what was read).
            (void)io::read_file((dir / "compiled_meta.json").string(), 1 << 20);
            return ColumnBase{1,
                              "compiled_meta.json beside the report: pypto >= 2026-08-14, "
                              "1-based columns"};
        }
    }
    if (fs::exists(report / "memory_after_AllocateMemoryAddr.txt", ec)) {
        return ColumnBase{0, "memory report beside the log: pypto <= 2026-07-28, 0-based columns"};
    }
    return column_base_from_run_date(log_path);
}

ParsedLog read_log(std::istream& in, const std::string& path, Diagnostics& diagnostics,
                   std::optional<int> override_base, std::optional<ColumnBase> build) {
    ParsedLog log;
    log.path = path;
    CompileTracker tracker;
    // Entries by the hash of their key; a hash match is confirmed on the key, so a collision
    // only costs a comparison. (Keys themselves, ~400 bytes a hint, are not kept.)
    std::unordered_multimap<std::uint64_t, std::size_t> index_of;
    TextPool texts;  // rule names and source files repeat
    // Per compile: a hash of its entry sequence and its size, to tell identical re-appends.
    std::vector<std::pair<std::uint64_t, std::size_t>> compiles;
    parse_log(in, path, diagnostics, [&](Entry&& entry) {
        std::string key = entry_key(entry);
        std::uint64_t key_hash = fnv1a(key);
        if (tracker.starts_compile(entry, key_hash) || compiles.empty()) {
            log.compile_starts.push_back(entry.log_line);
            compiles.emplace_back(14695981039346656037ull, 0);
        }
        compiles.back().first = (compiles.back().first ^ key_hash) * 1099511628211ull;
        ++compiles.back().second;
        ++log.total_entries;
        auto [first, last] = index_of.equal_range(key_hash);
        for (auto it = first; it != last; ++it) {
            if (entry_key(log.entries[it->second]) == key) {
                ++log.counts[it->second];
                return;
            }
        }
        index_of.emplace(key_hash, log.entries.size());
        entry.code = texts.get(entry.code);
        entry.rule = texts.get(entry.rule);
        entry.message.shrink_to_fit();  // built line by line: drop the growth slack
        if (entry.span) entry.span->file = texts.get(entry.span->file);
        log.entries.push_back(std::move(entry));
        log.counts.push_back(1);
    });
    log.identical_compiles =
        compiles.size() > 1 && std::all_of(compiles.begin(), compiles.end(),
                                           [&](const auto& c) { return c == compiles.front(); });
    if (override_base) {
        log.column_base = {*override_base, fmt::format("--column-base {}", *override_base)};
    } else if (build) {
        log.column_base = *build;
    } else {
        log.column_base = column_base_from_entries(log.entries);
    }
    return log;
}

namespace {

// Every log's entries into one diagnostic per hint (file, line, column, code, message), the
// columns made 1-based per log, so the same hint from several logs or compiles merges.
void merge_hint_entries(std::vector<ParsedLog>& logs, const LintOptions& options,
                        LintResult& result, std::map<std::string, std::string>& display_of) {
    // Diagnostics by the hash of their merge key, confirmed on the key (as in read_log).
    std::unordered_multimap<std::uint64_t, std::size_t> index_of;
    TextPool texts;  // paths repeat from hint to hint
    for (auto& log : logs) {
        SharedText log_path = texts.get(log.path);
        const fs::path run_dir = run_dir_of_log(log.path);
        std::map<std::string, std::pair<SharedText, SharedText>, std::less<>> paths;  // per file
        while (!log.entries.empty()) {
            Entry& entry = log.entries.front();
            std::size_t count = log.counts.front();
            LintDiagnostic diagnostic;
            if (entry.span && !is_pseudo_file(entry.span->file)) {
                auto known = paths.find(entry.span->file);
                if (known == paths.end()) {
                    auto [shown, read] = cited_and_read_path(entry.span->file, run_dir, options);
                    known =
                        paths
                            .emplace(entry.span->file, std::pair{texts.get(shown), texts.get(read)})
                            .first;
                }
                diagnostic.file = known->second.first;
                diagnostic.source_path = known->second.second;
                display_of[diagnostic.source_path] = diagnostic.file;
                diagnostic.line = entry.span->line;
                if (entry.span->column >= 0) {
                    diagnostic.column = static_cast<std::size_t>(entry.span->column) +
                                        (log.column_base.base == 0 ? 1 : 0);
                }
            }
            // The same hint in several logs (or compiles) merges across column bases.
            auto merge_key = [](const Entry& e, const LintDiagnostic& d) {
                std::uint64_t hash = fnv1a(e.code);
                for (std::string_view part :
                     {std::string_view("\x1f"), std::string_view(e.message),
                      std::string_view("\x1f"), std::string_view(d.file.str())})
                    hash = fnv1a(part, hash);
                return fnv1a(fmt::format("\x1f{}\x1f{}", d.line, d.column), hash);
            };
            auto same = [](const Entry& e, const LintDiagnostic& d, const LintDiagnostic& other) {
                return e.code == other.entry.code && e.message == other.entry.message &&
                       d.file == other.file && d.line == other.line && d.column == other.column;
            };
            std::uint64_t hash = merge_key(entry, diagnostic);
            auto [first, last] = index_of.equal_range(hash);
            auto found = std::find_if(first, last, [&](const auto& indexed) {
                return same(entry, diagnostic, result.diagnostics[indexed.second]);
            });
            if (found != last) {
                result.diagnostics[found->second].count += count;
            } else {
                index_of.emplace(hash, result.diagnostics.size());
                diagnostic.count = count;
                diagnostic.log_path = log_path;
                diagnostic.entry = std::move(entry);
                result.diagnostics.push_back(std::move(diagnostic));
            }
            // Each entry is freed once moved: the deque gives its blocks back as it empties, so
            // the entries and the diagnostics are never both held in full.
            log.entries.pop_front();
            log.counts.pop_front();
        }
    }
}

// Ranking weight, enclosing kernel and inline suppressions of every diagnostic.
void attribute_hints(LintResult& result, const LintOptions& options, SourceCache& sources,
                     const std::map<std::string, std::string>& display_of) {
    TextPool kernels;
    for (auto& diagnostic : result.diagnostics) {
        diagnostic.weight = ranking_weight(diagnostic);
        auto function = diagnostic.entry.code == "PH-DSA-001"
                            ? diagnostic.entry.fields.string("function")
                            : std::nullopt;
        if (function) {
            diagnostic.kernel = kernels.get(*function);
        } else if (diagnostic.line && !diagnostic.source_path.empty()) {
            if (const auto* lines = sources.lines(diagnostic.source_path)) {
                diagnostic.kernel =
                    kernels.get(enclosing_function(*lines, diagnostic.line).value_or(""));
            }
        }
        if (options.inline_suppressions) apply_suppression(diagnostic, sources, display_of);
    }
}

// `# ptune: ignore` comments (or codes in them) that matched no hint.
void unused_hint_suppressions(LintResult& result, SourceCache& sources,
                              const std::map<std::string, std::string>& display_of) {
    sources.for_each_suppression([&](const std::string& path, const Suppression& suppression) {
        auto display = display_of.find(path);
        std::string file = display == display_of.end() ? path : display->second;
        if (suppression.codes.empty() && !suppression.used_all) {
            result.unused_suppressions.push_back({file, suppression.line, "*"});
        }
        for (std::size_t i = 0; i < suppression.codes.size(); ++i) {
            if (!suppression.used[i]) {
                result.unused_suppressions.push_back(
                    {file, suppression.line, suppression.codes[i]});
            }
        }
    });
}

// A log holding several compiles appended (a reused output directory) gets a note.
void note_appended_compiles(const std::vector<ParsedLog>& logs, Diagnostics& diagnostics) {
    for (const auto& log : logs) {
        if (log.compile_starts.size() < 2) continue;
        diagnostics.note(
            log.path, log.compile_starts[1],
            log.identical_compiles
                ? fmt::format("the log holds {} identical compiles appended (reused output "
                              "directory); their hints are reported once",
                              log.compile_starts.size())
                : fmt::format("the log holds {} compiles appended (reused output directory); "
                              "older ones may be stale, repeated hints are reported once",
                              log.compile_starts.size()));
    }
}

}  // namespace

LintResult lint(std::vector<ParsedLog> logs, const rules::Catalogue& catalogue,
                const LintOptions& options, Diagnostics& diagnostics) {
    LintResult result;
    SourceCache sources(diagnostics);
    std::map<std::string, std::string> display_of;  // on-disk path -> display path
    merge_hint_entries(logs, options, result, display_of);
    apply_rules(result, logs, catalogue);
    assign_fingerprints(result.diagnostics);
    attribute_hints(result, options, sources, display_of);
    if (options.inline_suppressions) unused_hint_suppressions(result, sources, display_of);
    note_appended_compiles(logs, diagnostics);
    result.logs = std::move(logs);
    return result;
}

void publish_kernel_metrics(LintResult& result, rules::MetricStore& store) {
    result.kernels.clear();
    for (const auto& diagnostic : result.diagnostics) {
        if (diagnostic.kernel.empty()) continue;
        auto& metrics = result.kernels[diagnostic.kernel];
        const std::string& code =
            diagnostic.entry.code.empty() ? diagnostic.entry.rule : diagnostic.entry.code;
        metrics["hints.count"] += 1;
        metrics[fmt::format("hints.{}.count", code)] += 1;
        const auto& fields = diagnostic.entry.fields;
        if (code == "PH001") {
            if (fields.contains("transfer_bytes"))
                metrics["hints.PH001.traffic_bytes"] += diagnostic.weight;
            auto rows = fields.number("rows");
            if (fields.string("target_memory") == "Mat" && rows) {
                double& max_rows = metrics["hints.PH001.mat_max_rows"];
                max_rows = std::max(max_rows, *rows);
            }
        }
    }
    for (const auto& [kernel, metrics] : result.kernels) {
        for (const auto& [name, value] : metrics) store.set("kernel", kernel, name, value);
    }
}

}  // namespace ptune::hints
