// ptune bench-summary LOG|DIR|results.tsv|summary.json ...: effective_us per case, rank and
// slot, from [RUN] report lines or recomputed from [STRACE] markers (spec: bench-log.md).

#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "cli/commands/commands.hpp"
#include "ptune/bench/model.hpp"
#include "ptune/bench/summary.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/terminal.hpp"

namespace ptune::cli {

namespace {

std::string fixed1(double value) {
    return stats::format_fixed(value, 1);
}

std::string source_text(const bench::SourceRef& source) {
    return source.line > 0 ? fmt::format("{}:{}", source.file, source.line) : source.file;
}

/// `--format run`: the upstream harness's `[RUN]` lines, block after block.
class RunRenderer : public render::Renderer {
  public:
    explicit RunRenderer(const std::vector<bench::BenchCase>& cases) : cases_(cases) {}

    void render(const render::Report&, std::ostream& out,
                const render::RenderOptions&) const override {
        // Several cases get a `# case:` separator; a single case prints exactly what upstream
        // prints, so the output can be diffed against a real log.
        for (const bench::BenchCase& bench_case : cases_) {
            if (cases_.size() > 1) out << "# case: " << bench_case.name << '\n';
            for (const bench::BenchBlock& block : bench_case.blocks) {
                for (const std::string& line : bench::format_run_lines(block, true))
                    out << line << '\n';
            }
        }
    }

  private:
    const std::vector<bench::BenchCase>& cases_;
};

/// `--format json`, written case by case: the JSON view of a large sweep costs several times
/// the memory of the cases themselves, so no document of all cases is built. The bytes are
/// those of the standard JSON renderer ("cases" sorts first among the envelope's keys).
class StreamingJsonRenderer : public render::Renderer {
  public:
    explicit StreamingJsonRenderer(const std::vector<bench::BenchCase>& cases) : cases_(cases) {}

    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions&) const override {
        std::string envelope = dump(render::to_json(report));  // "{\n  \"command\": ..."
        out << "{\n  \"cases\": ";
        if (cases_.empty()) {
            out << "[]";
        } else {
            out << "[\n";
            std::string indented;
            for (std::size_t i = 0; i < cases_.size(); ++i) {
                // Two levels deeper than a document of its own. JSON strings hold no raw
                // newline, so every newline starts a line.
                std::string element = dump(bench::case_to_json(cases_[i]));
                indented.assign("    ");
                for (char c : element) {
                    indented += c;
                    if (c == '\n') indented += "    ";
                }
                out << indented << (i + 1 < cases_.size() ? ",\n" : "\n");
            }
            out << "  ]";
        }
        out << ',' << std::string_view(envelope).substr(1) << '\n';
    }

  private:
    static std::string dump(const nlohmann::json& value) {
        return value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    const std::vector<bench::BenchCase>& cases_;
};

class BenchSummaryCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.add_option(
               "inputs", inputs_,
               "Logs, directories, results.tsv or bench-summary JSON; NAME=PATH names the case")
            ->required();
        app.add_option("--case", options_.case_name,
                       "Case name for unlabelled inputs (default: the file name)");
        app.add_option("--warmup", options_.strace.warmup,
                       "[STRACE] and device-log recomputation: warmup launches dropped (default 5)")
            ->check(CLI::NonNegativeNumber);
        app.add_option("--rounds", options_.strace.rounds,
                       "[STRACE] recomputation: measured rounds (default 100)")
            ->check(CLI::PositiveNumber);
        app.add_flag("--distributed", options_.strace.distributed,
                     "[STRACE] recomputation: L3 multi-card run");
        app.add_flag("--resident", options_.strace.resident,
                     "[STRACE] recomputation: L3 resident path (implies --distributed)");
        app.add_option("--kernel", options_.strace.kernel,
                       "[STRACE] recomputation: kernel name for the L3 context line");
        app.add_flag("--raw", options_.strace.raw,
                     "[STRACE] recomputation: also list raw samples (PYPTO_BENCH_RAW)");
    }

    int run(Context& context) override {
        if (options_.strace.resident) options_.strace.distributed = true;
        for (const std::string& input : inputs_) {
            std::size_t eq = input.find('=');
            // `name=path` labels: protect both readings from being overwritten by -o.
            context.add_inputs({input});
            if (eq != std::string::npos && eq > 0) context.add_inputs({input.substr(eq + 1)});
        }
        // One progress line per large log, on a terminal only (term::Progress decides).
        std::unique_ptr<term::Progress> progress;
        std::string progress_path;
        options_.progress = [&](const std::string& path, std::size_t done, std::size_t total) {
            if (path != progress_path) {
                progress_path = path;
                progress = std::make_unique<term::Progress>(fmt::format("reading {}", path), total,
                                                            context.options.quiet);
            }
            if (done >= total) {
                progress->finish();
            } else {
                progress->update(done);
            }
        };
        auto loaded = bench::load_bench_inputs(inputs_, options_, context.diagnostics);
        progress.reset();
        if (!loaded) return context.fail(loaded.error());
        cases_ = std::move(*loaded);
        make_names_unique();

        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        rules::MetricStore store;
        bench::publish_metrics(cases_, store);

        render::Report report;
        report.command = "bench-summary";
        report.findings = rules::evaluate(**catalogue, store, {"bench."});
        if (context.options.format != "json" && context.options.format != "run")
            build_tables(report);

        std::map<std::string, std::shared_ptr<render::Renderer>> custom = {
            {"run", std::make_shared<RunRenderer>(cases_)},
            {"json", std::make_shared<StreamingJsonRenderer>(cases_)}};
        int code = context.emit(report, custom);
        if (code != 0) return code;
        for (const auto& finding : report.findings) {
            if (finding.severity == rules::RuleSeverity::Error)
                return static_cast<int>(ExitCode::Findings);
        }
        return 0;
    }

  private:
    /// Cases of the same name from different inputs stay apart in metrics and tables.
    void make_names_unique() {
        std::unordered_map<std::string, int> seen;  // sweeps: thousands of long, similar names
        for (const auto& bench_case : cases_) ++seen[bench_case.name];
        std::unordered_map<std::string, int> used;
        for (auto& bench_case : cases_) {
            if (seen[bench_case.name] < 2) continue;
            int n = ++used[bench_case.name];
            bench_case.name = fmt::format("{} #{}", bench_case.name, n);
        }
    }

    void build_tables(render::Report& report) const {
        render::Table summary;
        summary.columns = {"case", "origin", "rounds", "min",       "median",
                           "mean", "max",    "ranks",  "imbalance", "source"};
        summary.align = {render::Align::Left,  render::Align::Left,  render::Align::Right,
                         render::Align::Right, render::Align::Right, render::Align::Right,
                         render::Align::Right, render::Align::Right, render::Align::Right,
                         render::Align::Left};
        for (const bench::BenchCase& bench_case : cases_) {
            const bench::BenchBlock* block = bench_case.ci_block();
            std::vector<std::string> row = {bench_case.name};
            if (block == nullptr) {
                std::string why = bench_case.status
                                      ? fmt::format("{}, no effective_us", *bench_case.status)
                                      : "no effective_us headline";
                row.insert(row.end(), {"-", "-", "-", "-", "-", "-", "-", "-",
                                       source_text(bench_case.source)});
                report.notes.push_back(fmt::format("{}: {}", bench_case.name, why));
            } else {
                row.push_back(bench::to_string(block->origin));
                const auto& s = block->effective_us;
                if (s && !s->mean_only) {
                    row.insert(row.end(), {std::to_string(s->rounds), fixed1(s->min),
                                           fixed1(s->median), fixed1(s->mean), fixed1(s->max)});
                } else if (s) {
                    row.insert(row.end(), {"-", "-", "-", fixed1(s->mean), "-"});
                } else {
                    row.insert(row.end(), {"-", "-", "-", "-", "-"});
                    report.notes.push_back(fmt::format("{}: effective_us unavailable: {}",
                                                       bench_case.name,
                                                       block->unavailable.value_or("?")));
                }
                auto imbalance = bench::rank_imbalance(*block);
                row.push_back(block->ranks.empty() ? "-" : std::to_string(block->ranks.size()));
                row.push_back(imbalance ? stats::format_fixed(*imbalance, 3) : "-");
                row.push_back(source_text(block->source));
                bool fallback = (block->context && block->context->fallback_flattened) ||
                                (block->raw && block->raw->fallback_flattened);
                if (fallback) {
                    report.notes.push_back(fmt::format(
                        "{}: fallback_flattened: pooled per-dispatch samples, indicative only",
                        bench_case.name));
                }
                if (bench_case.blocks.size() > 1) {
                    report.notes.push_back(
                        fmt::format("{}: {} bench blocks; the last headline is the CI number",
                                    bench_case.name, bench_case.blocks.size()));
                }
                for (const std::string& note : block->notes) {
                    report.notes.push_back(fmt::format("{}: {}", bench_case.name, note));
                }
            }
            for (const std::string& note : bench_case.notes) {
                report.notes.push_back(fmt::format("{}: {}", bench_case.name, note));
            }
            summary.rows.push_back(std::move(row));
        }
        report.tables.push_back(std::move(summary));

        for (const bench::BenchCase& bench_case : cases_) {
            const bench::BenchBlock* block = bench_case.ci_block();
            if (block == nullptr || block->ranks.empty()) continue;
            render::Table ranks;
            ranks.title = fmt::format("{}: ranks (rank = worker pid)", bench_case.name);
            ranks.columns = {"rank", "slot", "rounds", "min", "median", "mean", "max"};
            ranks.align = {render::Align::Left,  render::Align::Left,  render::Align::Right,
                           render::Align::Right, render::Align::Right, render::Align::Right,
                           render::Align::Right};
            auto add = [&](std::string rank, std::string slot,
                           const std::optional<bench::Summary>& s) {
                if (s) {
                    ranks.rows.push_back({std::move(rank), std::move(slot),
                                          s->rounds > 0 ? std::to_string(s->rounds) : "-",
                                          fixed1(s->min), fixed1(s->median), fixed1(s->mean),
                                          fixed1(s->max)});
                } else {
                    ranks.rows.push_back(
                        {std::move(rank), std::move(slot), "-", "-", "-", "-", "no timing"});
                }
            };
            for (const bench::Rank& rank : block->ranks) {
                add(std::to_string(rank.rank), "", rank.eff_us);
                for (const bench::Slot& slot : rank.slots) {
                    add("",
                        slot.name.empty() ? std::to_string(slot.slot)
                                          : fmt::format("{} ({})", slot.slot, slot.name),
                        slot.eff_us);
                }
            }
            report.tables.push_back(std::move(ranks));
        }
    }

    std::vector<std::string> inputs_;
    bench::LoadOptions options_;
    std::vector<bench::BenchCase> cases_;
};

}  // namespace

std::unique_ptr<Command> make_bench_summary() {
    return std::make_unique<BenchSummaryCommand>();
}

}  // namespace ptune::cli
