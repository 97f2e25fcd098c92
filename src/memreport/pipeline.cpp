#include "ptune/memreport/pipeline.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/discover.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/json_document.hpp"
#include "ptune/core/text.hpp"
#include "ptune/memreport/parser.hpp"
#include "ptune/memreport/pass_dump.hpp"

namespace ptune::memreport {

namespace fs = std::filesystem;

namespace {

// The timestamp of the nearest `<Program>_<YYYYMMDD_HHMMSS>` directory holding `path`.
std::string run_timestamp(const fs::path& path) {
    for (fs::path dir = path.parent_path(); !dir.empty() && dir != dir.parent_path();
         dir = dir.parent_path()) {
        if (auto run = discover::parse_run_dir_name(dir)) return run->timestamp;
    }
    return "";
}

}  // namespace

bool is_pass_dump_path(const fs::path& path) {
    return path.extension() == ".py";
}

std::vector<fs::path> find_reports(const fs::path& dir) {
    // (run timestamp, rank within the run, path): rank 0 = kReportName, 1 = other text
    // reports, 2 + (big - NN) = pass dumps, the highest NN first.
    struct Keyed {
        std::string run;
        std::uint64_t rank;
        fs::path path;
    };
    std::vector<Keyed> keyed;
    for (auto& path : discover::find_files(dir, {"*"})) {
        std::string name = path.filename().string();
        if (name.starts_with("memory_after_") && path.extension() == ".txt") {
            std::uint64_t rank = name == kReportName ? 0 : 1;
            keyed.push_back({run_timestamp(path), rank, std::move(path)});
        } else if (name.ends_with(kDumpSuffix) && path.parent_path().filename() == "passes_dump") {
            auto nn = text::parse_uint(name.substr(0, name.size() - kDumpSuffix.size()));
            if (!nn || *nn > 1000000) continue;
            keyed.push_back({run_timestamp(path), 2 + (1000000 - *nn), std::move(path)});
        }
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
        if (a.run != b.run) return a.run > b.run;
        return a.rank < b.rank;
    });
    std::vector<fs::path> found;
    for (auto& entry : keyed) found.push_back(std::move(entry.path));
    return found;
}

Source choose_report(const std::vector<fs::path>& reports, const fs::path& searched,
                     Diagnostics& diagnostics) {
    Source source{"", searched.string(), ""};
    if (reports.empty()) return source;
    // The newest run's text report, else its dump; the dump of that run cross-checks the report.
    std::string run = run_timestamp(reports.front());
    for (const auto& path : reports) {
        if (run_timestamp(path) != run) break;
        if (!is_pass_dump_path(path) && source.file.empty()) source.file = path.string();
        if (is_pass_dump_path(path) && source.cross_check.empty())
            source.cross_check = path.string();
    }
    if (source.file.empty()) std::swap(source.file, source.cross_check);
    for (const auto& path : reports) {
        if (path.string() == source.file || path.string() == source.cross_check) continue;
        diagnostics.note(path.string(), 0,
                         fmt::format("not read (reading {}); name it to read it", source.file));
    }
    return source;
}

Result<Source> locate_report(const std::string& input, Diagnostics& diagnostics) {
    std::error_code error;
    if (input == io::kStdinName || !fs::is_directory(input, error)) return Source{input, "", ""};
    fs::path base = discover::runs_root(input);
    std::string note;
    auto run_dir = discover::resolve_run(base, "", 1, &note);
    if (!run_dir) return run_dir.error();
    if (!note.empty()) diagnostics.note(base.string(), 0, note);
    Source source = choose_report(find_reports(*run_dir), *run_dir, diagnostics);
    // The newest run may come from a current pypto while an older one has a report.
    if (!source.found() && *run_dir != base) {
        if (auto older = find_reports(base); !older.empty()) {
            diagnostics.note(older.front().string(), 0,
                             "an older run has a memory report; name it to read it");
        }
    }
    return source;
}

namespace {

// `pto.target_arch = "a2a3"` in one ptoas/*.pto (upstream memory_map's source); nullopt when
// the file names none. Opened as every input is (io::open_input): a FIFO, a device or the
// command's own output is refused, never read.
Result<std::optional<Backend>> target_arch_of(const fs::path& pto, Diagnostics& diagnostics) {
    auto input = io::open_input(pto.string());
    if (!input) return input.error();
    io::LineReader reader(input->stream());
    std::string_view line;
    while (reader.next(line)) {
        auto at = line.find("target_arch");
        if (at == std::string_view::npos) continue;
        auto open = line.find('"', at);
        auto close = open == std::string_view::npos ? open : line.find('"', open + 1);
        if (close == std::string_view::npos) continue;
        std::string_view arch = line.substr(open + 1, close - open - 1);
        if (auto backend = parse_backend_name(arch)) return std::optional<Backend>(*backend);
        diagnostics.warn(pto.string(), reader.line_number(),
                         fmt::format("unknown target_arch '{}' (a2a3, a5); ignored", arch));
    }
    return std::optional<Backend>();
}

// `"backend_type": "Ascend910B" | "Ascend950"` of compiled_meta.json (pypto >= 2026-08-14).
Result<std::optional<Backend>> backend_type_of(const fs::path& meta, Diagnostics& diagnostics) {
    constexpr std::size_t kMaxMetaBytes = 16u << 20;
    auto text = io::read_file(meta.string(), kMaxMetaBytes);
    if (!text) return text.error();
    auto parsed = json_document::parse(*text, meta.string());
    if (!parsed) {
        diagnostics.warn(meta.string(), parsed.error().line,
                         parsed.error().message + "; a2a3 is assumed");
        return std::optional<Backend>();
    }
    nlohmann::json& document = *parsed;
    if (!document.is_object() || !document.contains("backend_type") ||
        !document["backend_type"].is_string()) {
        return std::optional<Backend>();
    }
    std::string type = document["backend_type"].get<std::string>();
    if (type.find("950") != std::string::npos) return std::optional<Backend>(Backend::A5);
    if (type.find("910") != std::string::npos) return std::optional<Backend>(Backend::A2A3);
    diagnostics.warn(meta.string(), 0,
                     fmt::format("unknown backend_type '{}'; a2a3 is assumed", type));
    return std::optional<Backend>();
}

}  // namespace

Result<std::pair<Backend, std::string>> resolve_dump_backend(const std::string& dump,
                                                             std::optional<Backend> forced,
                                                             Diagnostics& diagnostics) {
    using Choice = std::pair<Backend, std::string>;
    if (forced) return Choice{*forced, "option"};
    if (dump == io::kStdinName) return Choice{Backend::A2A3, "assumed"};
    fs::path run = fs::path(dump).parent_path();
    if (run.filename() == "passes_dump") run = run.parent_path();
    std::error_code error;
    std::vector<fs::path> ptos;
    for (fs::directory_iterator it(run / "ptoas", error), end; !error && it != end;
         it.increment(error)) {
        if (it->path().extension() == ".pto") ptos.push_back(it->path());
    }
    std::sort(ptos.begin(), ptos.end());
    for (const auto& pto : ptos) {
        auto arch = target_arch_of(pto, diagnostics);
        if (!arch) return arch.error();
        if (*arch) return Choice{**arch, "ptoas"};
    }
    fs::path meta = run / "compiled_meta.json";
    if (fs::exists(fs::symlink_status(meta, error))) {
        auto type = backend_type_of(meta, diagnostics);
        if (!type) return type.error();
        if (*type) return Choice{**type, "compiled_meta"};
    }
    return Choice{Backend::A2A3, "assumed"};
}

std::vector<std::string> compare_tables(const Report& text, const Report& dump) {
    std::vector<std::string> out;
    std::map<std::string, const Function*, std::less<>> in_dump;
    for (const auto& function : dump.functions) in_dump.emplace(function.name, &function);
    std::set<std::string, std::less<>> in_text;
    for (const auto& function : text.functions) {
        in_text.insert(function.name);
        auto it = in_dump.find(function.name);
        if (it == in_dump.end()) {
            out.push_back(fmt::format("'{}' is in the text report only", function.name));
            continue;
        }
        const Function& other = *it->second;
        for (std::string_view space : kMemorySpaces) {
            const SpaceUsage* a = function.find(space);
            const SpaceUsage* b = other.find(space);
            if (!a && !b) continue;
            if (!a || !b) {
                out.push_back(fmt::format("'{}' {}: only in the {}", function.name, space,
                                          a ? "text report" : "pass dump"));
                continue;
            }
            // A printed KB/MB size is exact only to ±0.05 of its unit: compare it as printed.
            bool used_equal = a->used_exact
                                  ? a->used_bytes == b->used_bytes
                                  : format_size(a->used_bytes) == format_size(b->used_bytes);
            if (!used_equal) {
                out.push_back(fmt::format("'{}' {}: Used {} in the text report, {} in the dump",
                                          function.name, space, format_size(a->used_bytes),
                                          format_size(b->used_bytes)));
            }
            if (a->limit_bytes != b->limit_bytes) {
                auto shown = [](const std::optional<std::uint64_t>& v) {
                    return v ? format_size(*v) : std::string("N/A");
                };
                out.push_back(fmt::format("'{}' {}: Limit {} in the text report, {} in the dump",
                                          function.name, space, shown(a->limit_bytes),
                                          shown(b->limit_bytes)));
            }
            if (a->memrefs != b->memrefs) {
                out.push_back(fmt::format("'{}' {}: MemRefs {} in the text report, {} in the dump",
                                          function.name, space, a->memrefs, b->memrefs));
            }
            if (a->buffers.empty()) continue;  // v1/v2: no Buffers block to compare
            auto layout = [](const SpaceUsage& usage) {
                std::set<std::tuple<std::string, std::uint64_t, std::uint64_t>> rows;
                for (const auto& buffer : usage.buffers)
                    rows.emplace(buffer.name, buffer.addr_begin, buffer.addr_end);
                return rows;
            };
            auto la = layout(*a);
            auto lb = layout(*b);
            for (const auto& [name, begin, end] : la) {
                if (!lb.count({name, begin, end}))
                    out.push_back(fmt::format("'{}' {}: buffer {} [{}, {}) is not in the dump",
                                              function.name, space, name, begin, end));
            }
            for (const auto& [name, begin, end] : lb) {
                if (!la.count({name, begin, end}))
                    out.push_back(fmt::format(
                        "'{}' {}: the dump's buffer {} [{}, {}) is not in the text report",
                        function.name, space, name, begin, end));
            }
        }
    }
    for (const auto& function : dump.functions) {
        if (!in_text.count(function.name))
            out.push_back(fmt::format("'{}' is in the pass dump only", function.name));
    }
    return out;
}

namespace {

// A pass dump read, refused when written before address assignment, limits from its backend.
Result<Report> read_dump(const std::string& file, std::istream& in, const Options& options,
                         Diagnostics& diagnostics) {
    Report report = parse_pass_dump(in, file, diagnostics);
    if (!report.refusal.empty())
        return Error{report.refusal, file, report.refusal_line, ExitCode::InputError};
    if (report.functions.empty() && report.program.empty() &&
        report.dump_syntax == DumpSyntax::Unknown) {
        return Error{
            "no memory-report table found (expected '--- function ---' blocks with Space | Used "
            "| Limit | Usage | MemRefs rows, or a pass dump NN_after_AllocateMemoryAddr.py)",
            file, 0, ExitCode::InputError};
    }
    if (report.functions.empty()) {
        return Error{
            "no compute function (@pl.function(type=pl.FunctionType.InCore|AIC|AIV)) with "
            "on-chip MemRefs in the pass dump",
            file, 0, ExitCode::InputError};
    }
    auto backend = resolve_dump_backend(file, options.backend, diagnostics);
    if (!backend) return backend.error();
    apply_dump_backend(report, backend->first, backend->second, diagnostics);
    return report;
}

// A dump on stdin is told from a text report by its first byte: `# pypto.program:`,
// `@pl.program` or `import pypto...`; a text report starts with `===`, `---` or blanks.
bool stream_is_dump(const std::string& file, std::istream& in) {
    if (is_pass_dump_path(file)) return true;
    if (file != io::kStdinName) return false;
    int first = in.peek();
    return first == '#' || first == '@' || first == 'i' || first == 'f';
}

// The text report against its run's pass dump: differences become warnings and notes.
void cross_check(Analysis& analysis, const Options& options, Diagnostics& diagnostics) {
    const std::string& file = analysis.source.cross_check;
    auto input = io::open_input(file);
    if (!input) {
        diagnostics.warn(file, 0, "not cross-checked: " + input.error().message);
        return;
    }
    Diagnostics dump_diagnostics;
    auto dump = read_dump(file, input->stream(), options, dump_diagnostics);
    diagnostics.append(dump_diagnostics);
    if (!dump) {
        diagnostics.warn(file, dump.error().line, "not cross-checked: " + dump.error().message);
        return;
    }
    Diagnostics quiet;  // the dump's own findings are not this report's
    analyze(*dump, analysis.choice.backend, quiet);
    analysis.differences = compare_tables(analysis.report, *dump);
    for (const auto& difference : analysis.differences) diagnostics.warn(file, 0, difference);
    if (analysis.differences.empty()) {
        diagnostics.note(
            file, 0, fmt::format("the pass dump gives the same table as {}", analysis.source.file));
    }
}

}  // namespace

Result<Analysis> load_and_analyze(const Source& source, const Options& options,
                                  Diagnostics& diagnostics) {
    Analysis analysis{source, {}, {}, {}};
    if (!source.found()) return analysis;
    auto input = io::open_input(source.file);
    if (!input) return input.error();
    if (stream_is_dump(source.file, input->stream())) {
        auto dump = read_dump(source.file, input->stream(), options, diagnostics);
        if (!dump) return dump.error();
        analysis.report = std::move(*dump);
        analysis.choice = analyze(analysis.report, options.backend, diagnostics);
        return analysis;
    }
    Diagnostics parse_diagnostics;
    analysis.report = parse_report(input->stream(), source.file, parse_diagnostics);
    const Report& report = analysis.report;
    if (report.functions.empty()) {
        bool has_header =
            !report.pass.empty() || !report.backend_token.empty() || report.functions_declared;
        if (has_header) diagnostics.append(parse_diagnostics);
        return Error{
            "no memory-report table found (expected '--- function ---' blocks with "
            "Space | Used | Limit | Usage | MemRefs rows)",
            source.file, 0, ExitCode::InputError};
    }
    diagnostics.append(parse_diagnostics);
    analysis.choice = analyze(analysis.report, options.backend, diagnostics);
    if (!source.cross_check.empty()) cross_check(analysis, options, diagnostics);
    return analysis;
}

void publish(const Analysis& analysis, rules::MetricStore& store) {
    if (analysis.found()) {
        publish_metrics(analysis.report, analysis.choice, store);
        return;
    }
    store.run().metrics["mem.report_found"] = 0;
    store.run().labels["mem.searched"] = analysis.source.searched;
}

}  // namespace ptune::memreport
