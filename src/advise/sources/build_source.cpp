// The build source: what an L3 build says of itself (upstream-2026-12.md §7.2-§7.4):
// distributed_meta.json (devices, platform, runtime; rank ↔ device), each dispatch's
// dispatch_program.json and each program's binary_context.json (runtime and PTO-ISA revisions).
// No metrics: the section tells the reader what ran where, the Artifacts table what was read.

#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ptune/core/io.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/l3/tree.hpp"
#include "ptune/swimlane/containment.hpp"
#include "source_util.hpp"
#include "sources.hpp"

namespace ptune::advise {

namespace {

// The rank of an artifact's `rank<N>/d<K>` scope, or −1.
int rank_of(const std::string& scope) {
    if (!scope.starts_with("rank")) return -1;
    int rank = 0;
    std::size_t i = 4;
    if (i >= scope.size() || !std::isdigit(static_cast<unsigned char>(scope[i]))) return -1;
    for (; i < scope.size() && std::isdigit(static_cast<unsigned char>(scope[i])); ++i)
        rank = rank * 10 + (scope[i] - '0');
    return rank;
}

class LoadedBuild : public LoadedSource {
  public:
    LoadedBuild(render::Table table, std::vector<std::pair<Artifact, std::string>> read)
        : table_(std::move(table)), read_(std::move(read)) {}

    void publish(rules::MetricStore&) override {}

    void contribute(Advice& advice, const rules::MetricStore&) override {
        for (auto& [artifact, text] : read_)
            note_read(advice.inventory, artifact.kind, artifact.path, text);
        if (table_.rows.empty()) return;  // every file unusable: said, and noted on each
        advice.sections.push_back({"build",
                                   "Build: devices, programs and binaries (L3)",
                                   std::move(table_),
                                   nlohmann::json::object(),
                                   {}});
    }

  private:
    render::Table table_;
    std::vector<std::pair<Artifact, std::string>> read_;
};

class BuildSource : public Source {
  public:
    std::vector<ArtifactKind> kinds() const override {
        return {ArtifactKind::DistributedMeta, ArtifactKind::DispatchProgram,
                ArtifactKind::BinaryContext};
    }

    std::unique_ptr<LoadedSource> load(SourceContext& context) const override {
        render::Table table;
        table.columns = {"what", "value", "from"};
        std::vector<std::pair<Artifact, std::string>> read;
        // Each file of `kind` read and parsed; `use` gets the parsed value. A file that cannot
        // be read or parsed is said and noted "unusable"; the rest of the run stands.
        const auto each = [&](ArtifactKind kind, auto parse, auto use) {
            for (const Artifact* artifact : context.inventory.of(kind)) {
                auto text = io::read_file(artifact->path.string(), 1 << 20);
                auto parsed = text ? parse(*text, artifact->path.string())
                                   : decltype(parse(*text, ""))(text.error());
                if (!parsed) {
                    const Error& error = parsed.error();
                    context.diagnostics.warn(error.file, error.line, error.message);
                    read.push_back({*artifact, "unusable: " + error.message});
                    continue;
                }
                read.push_back({*artifact, use(*artifact, *parsed)});
            }
        };

        std::set<int> ranks;
        for (const Artifact& artifact : context.inventory.found) {
            if (int rank = rank_of(artifact.scope); rank >= 0) ranks.insert(rank);
        }
        each(ArtifactKind::DistributedMeta, l3::parse_distributed_meta,
             [&](const Artifact& artifact, const l3::DistributedMeta& meta) {
                 const std::string from = artifact.path.filename().string();
                 table.rows.push_back({"devices",
                                       fmt::format("{} [{}]", meta.device_ids.size(),
                                                   fmt::join(meta.device_ids, ", ")),
                                       from});
                 std::string pairs =
                     l3::rank_devices(meta, std::vector<int>(ranks.begin(), ranks.end()));
                 if (!pairs.empty()) table.rows.push_back({"rank ↔ device", pairs, from});
                 table.rows.push_back({"platform",
                                       meta.backend.empty()
                                           ? meta.platform
                                           : fmt::format("{} ({})", meta.platform, meta.backend),
                                       from});
                 table.rows.push_back(
                     {"runtime",
                      fmt::format("{}, {} sub-worker(s), {} AICPU thread(s)", meta.runtime,
                                  meta.sub_workers, meta.aicpu_threads),
                      from});
                 return l3::describe(meta);
             });
        std::map<std::string, std::vector<std::string>> programs;  // program → dispatch scopes
        each(ArtifactKind::DispatchProgram, l3::parse_dispatch_program,
             [&](const Artifact& artifact, const std::string& program) {
                 programs[program].push_back(artifact.scope.empty() ? artifact.path.string()
                                                                    : artifact.scope);
                 return "program " + program;
             });
        // §7.5: per dispatch directory holding host logs, the invocations of its processes
        // (a chip child's host.<pid>.log sits in the first d<K> it wrote, §7.1).
        std::map<std::string, std::vector<const Artifact*>> host_logs;  // scope → logs
        for (const Artifact* log : context.inventory.of(ArtifactKind::HostLog)) {
            if (rank_of(log->scope) >= 0) host_logs[log->scope].push_back(log);
        }
        std::map<std::string, std::string> program_of;  // scope → program
        for (const auto& [program, scopes] : programs)
            for (const std::string& scope : scopes) program_of[scope] = program;
        for (const auto& [scope, logs] : host_logs) {
            std::vector<std::string> parts;
            for (const Artifact* log : logs) {
                auto in = io::open_input(log->path.string());
                if (!in) continue;  // the host source says why
                swimlane::HostSpanLog spans;
                swimlane::read_host_spans(in->stream(), spans);
                std::map<std::uint64_t, std::vector<double>> roots;  // pid → root span µs
                for (const swimlane::HostSpan& span : spans.spans) {
                    if (span.depth == 0 && span.name == "chip.run")
                        roots[span.pid].push_back(static_cast<double>(span.dur) / 1000.0);
                }
                for (const auto& [pid, times] : roots)
                    parts.push_back(
                        fmt::format("host pid {}: {} invocation(s), {} µs host time (chip.run)",
                                    pid, times.size(), stats::format_fixed(stats::fsum(times), 1)));
            }
            const auto slash = scope.find("/d");
            std::string value =
                fmt::format("rank {}, dispatch {}", rank_of(scope),
                            slash == std::string::npos ? "?" : scope.substr(slash + 2));
            if (auto it = program_of.find(scope); it != program_of.end())
                value += ", program " + it->second;
            for (const std::string& part : parts) value += "; " + part;
            table.rows.push_back({"dispatch " + scope, value, "host logs"});
        }
        for (const auto& [program, scopes] : programs)
            table.rows.push_back({"program " + program, fmt::format("{}", fmt::join(scopes, ", ")),
                                  "dispatch_program.json"});
        each(ArtifactKind::BinaryContext, l3::parse_binary_context,
             [&](const Artifact& artifact, const l3::BinaryContext& binary) {
                 // next_levels/<program>/cache/binary_context.json
                 const std::string program =
                     artifact.path.parent_path().parent_path().filename().string();
                 table.rows.push_back(
                     {"binaries of " + program, l3::describe(binary), "binary_context.json"});
                 return l3::describe(binary);
             });
        if (read.empty()) return nullptr;
        return std::make_unique<LoadedBuild>(std::move(table), std::move(read));
    }
};

}  // namespace

std::unique_ptr<Source> make_build_source() {
    return std::make_unique<BuildSource>();
}

}  // namespace ptune::advise
