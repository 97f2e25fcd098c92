// The bench pipeline shared by bench-summary, bench-gate and advise (pipeline.hpp).

#include "ptune/bench/pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "case_facts.hpp"
#include "ptune/bench/summary.hpp"
#include "ptune/core/chunked_vector.hpp"
#include "ptune/core/handoff.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/render/json_stream.hpp"

namespace ptune::bench {

namespace {

class RunRenderer : public render::Renderer {
  public:
    explicit RunRenderer(const std::vector<BenchCase>& cases) : cases_(cases) {}

    void render(const render::Report&, std::ostream& out,
                const render::RenderOptions&) const override {
        // A single case prints exactly what upstream prints, so it can be diffed with a log.
        for (const BenchCase& bench_case : cases_) {
            if (cases_.size() > 1) out << "# case: " << bench_case.name << '\n';
            for (const BenchBlock& block : bench_case.blocks) {
                for (const std::string& line : format_run_lines(block, true)) out << line << '\n';
            }
        }
    }

  private:
    const std::vector<BenchCase>& cases_;
};

// The JSON view of a large sweep costs several times the memory of the cases themselves: the
// cases are written one chunk at a time, never as one document.
class StreamingJsonRenderer : public render::Renderer {
  public:
    explicit StreamingJsonRenderer(const std::vector<BenchCase>& cases) : cases_(cases) {}

    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions&) const override {
        std::ostringstream written;  // "{\n  \"command\": ...}\n"
        render::write_report_json(report, {}, written);
        std::string envelope = std::move(written).str();
        envelope.pop_back();
        // "cases" sorts first among the envelope's keys.
        out << "{\n  \"cases\": ";
        if (cases_.empty()) {
            out << "[]";
        } else {
            out << "[\n";
            write_cases(out);
            out << "  ]";
        }
        out << ',' << std::string_view(envelope).substr(1) << '\n';
    }

  private:
    static constexpr std::size_t kChunkCases = 32;

    /// Appends case `i` as an element of the "cases" array: two levels deeper than a document
    /// of its own.
    void append_case(std::size_t i, std::string& text) const {
        text += "    ";
        write_case_json(cases_[i], 4, text);
        text += i + 1 < cases_.size() ? ",\n" : "\n";
    }

    void render_chunk(std::size_t chunk, std::string& text) const {
        text.clear();
        const std::size_t end = std::min(cases_.size(), (chunk + 1) * kChunkCases);
        for (std::size_t i = chunk * kChunkCases; i < end; ++i) append_case(i, text);
    }

    /// Each case's document and its dump are most of a JSON report's time: every other chunk
    /// of cases is rendered on a second thread (core/handoff.hpp), and the chunks are written
    /// in order; a few chunks ahead at most, so memory stays bounded.
    void write_cases(std::ostream& out) const {
        const std::size_t chunks = (cases_.size() + kChunkCases - 1) / kChunkCases;
        std::string text;
        if (chunks < 4) {  // not worth a thread
            for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
                render_chunk(chunk, text);
                out << text;
            }
            return;
        }
        std::size_t even = 0;  // the chunk the second thread hands over next
        produce_alongside<std::string>(
            [&](const std::function<void(std::string &&)>& emit) {
                for (std::size_t chunk = 0; chunk < chunks; chunk += 2) {
                    std::string rendered;
                    render_chunk(chunk, rendered);
                    emit(std::move(rendered));
                }
            },
            [&](std::string&& rendered) {
                out << rendered;
                if (even + 1 < chunks) {
                    render_chunk(even + 1, text);
                    out << text;
                }
                even += 2;
            },
            HandoffLimits{.batch = 1, .batches = 2});
    }

    const std::vector<BenchCase>& cases_;
};

// Why a case has no number, fallbacks, repeated blocks and its notes: each text goes to
// `note` (the report prefixes the case's name).
template <class Note>
void for_each_case_note(const BenchCase& bench_case, const BenchBlock* block, const Note& note) {
    if (block == nullptr) {
        note(bench_case.status ? fmt::format("{}, no effective_us", *bench_case.status)
                               : "no effective_us headline");
    } else {
        if (!block->effective_us)
            note(fmt::format("effective_us unavailable: {}", block->unavailable.value_or("?")));
        if ((block->context && block->context->fallback_flattened) ||
            (block->raw && block->raw->fallback_flattened)) {
            note("fallback_flattened: pooled per-dispatch samples, indicative only");
        }
        if (bench_case.blocks.size() > 1) {
            note(fmt::format("{} bench blocks; the last headline is the CI number",
                             bench_case.blocks.size()));
        }
        for (const std::string& text : block->notes) note(text);
    }
    for (const std::string& text : bench_case.notes) note(text);
}

void add_case_notes(const BenchCase& bench_case, const BenchBlock* block,
                    std::vector<std::string>& notes) {
    for_each_case_note(bench_case, block, [&](const std::string& text) {
        notes.push_back(fmt::format("{}: {}", bench_case.name, text));
    });
}

// The spread next to the mean (issue 34: hyperfine's mean ± σ, with n): the sample standard
// deviation (n − 1) of the round samples a line summarises. Upstream's lines print n, min,
// median, mean and max only, so σ exists where the block carries the samples (--raw, or a log
// printed with PYPTO_BENCH_RAW=1) and they give the line's n and mean back; "-" elsewhere.
std::string sigma_cell(const std::vector<double>* samples, const Summary& summary) {
    if (samples == nullptr) return "-";
    std::vector<double> positive;
    for (double value : *samples)
        if (value > 0) positive.push_back(value);
    if (positive.size() < 2 || (summary.rounds > 0 && positive.size() != summary.rounds))
        return "-";
    double mean = stats::fsum(positive) / static_cast<double>(positive.size());
    if (std::abs(mean - summary.mean) > 0.05 + 1e-9 * std::abs(summary.mean)) return "-";
    return stats::format_fixed(*stats::stdev(positive), 1);
}

// The samples of one rank's line, or of the headline when the block has one rank.
const std::vector<double>* rank_samples(const BenchBlock& block, std::optional<std::uint64_t> pid) {
    if (!block.raw || block.raw->fallback_flattened) return nullptr;
    const auto& per_rank = block.raw->per_rank;
    if (!pid) return per_rank.size() == 1 ? &per_rank.begin()->second : nullptr;
    auto it = per_rank.find(*pid);
    return it == per_rank.end() ? nullptr : &it->second;
}

constexpr std::string_view kSigmaNote =
    "σ: the round samples' standard deviation, only where the log carries them (--raw, or a log "
    "printed with PYPTO_BENCH_RAW=1): upstream's lines give n (rounds), min, median, mean and max";

render::Table rank_table(const BenchCase& bench_case, const BenchBlock& block) {
    render::Table ranks;
    ranks.title = fmt::format("{}: ranks (rank = worker pid)", bench_case.name);
    ranks.columns = {"rank", "slot", "rounds", "min", "median", "mean", "σ", "max"};
    ranks.units = {"", "", "", "µs", "µs", "µs", "µs", "µs"};
    ranks.align = {render::Align::Left, render::Align::Left};
    ranks.align.resize(ranks.columns.size(), render::Align::Right);
    auto add = [&](std::string rank, std::string slot, const std::optional<Summary>& s,
                   const std::vector<double>* samples) {
        if (s) {
            ranks.rows.push_back({std::move(rank), std::move(slot),
                                  s->rounds > 0 ? std::to_string(s->rounds) : "-",
                                  stats::format_fixed(s->min, 1), stats::format_fixed(s->median, 1),
                                  stats::format_fixed(s->mean, 1), sigma_cell(samples, *s),
                                  stats::format_fixed(s->max, 1)});
        } else {
            ranks.rows.push_back(
                {std::move(rank), std::move(slot), "-", "-", "-", "-", "-", "no timing"});
        }
    };
    for (const Rank& rank : block.ranks) {
        add(std::to_string(rank.rank), "", rank.eff_us, rank_samples(block, rank.rank));
        for (const Slot& slot : rank.slots) {
            add("",
                slot.name.empty() ? std::to_string(slot.slot)
                                  : fmt::format("{} ({})", slot.slot, slot.name),
                slot.eff_us, nullptr);
        }
    }
    return ranks;
}

}  // namespace

namespace {

// make_case_names_unique() over the `count` names `name_of(i)` gives (views); a repeated name
// is replaced by `rename(i, new_name)`, every rename after every name was read.
template <class NameOf, class Rename>
void unique_names(std::size_t count, const NameOf& name_of, const Rename& rename) {
    // Sweeps: 100,000 long, similar names, nearly always distinct. First a flat open-addressing
    // table of case indices (no node per name) answers "does any name repeat?"; only then are
    // the names counted and renamed (the renaming applied at the end: it changes the strings
    // the views look at).
    std::size_t capacity = 16;
    while (capacity < 2 * count) capacity *= 2;
    constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
    std::vector<std::uint32_t> slots(count < kEmpty ? capacity : 0, kEmpty);
    bool repeated = slots.empty();  // (four billion cases: the slow path below)
    const std::hash<std::string_view> hash;
    for (std::size_t i = 0; i < count && !repeated; ++i) {
        const std::string_view name = name_of(i);
        for (std::size_t at = hash(name) & (capacity - 1);; at = (at + 1) & (capacity - 1)) {
            if (slots[at] == kEmpty) {
                slots[at] = static_cast<std::uint32_t>(i);
                break;
            }
            if (name_of(slots[at]) == name) {
                repeated = true;
                break;
            }
        }
    }
    if (!repeated) return;
    std::unordered_map<std::string_view, std::size_t> seen;
    seen.reserve(count);
    for (std::size_t i = 0; i < count; ++i) ++seen[name_of(i)];
    std::unordered_map<std::string_view, int> used;
    std::vector<std::pair<std::size_t, std::string>> renamed;
    for (std::size_t i = 0; i < count; ++i) {
        const std::string_view name = name_of(i);
        if (seen[name] < 2) continue;
        renamed.emplace_back(i, fmt::format("{} #{}", name, ++used[name]));
    }
    for (auto& [i, name] : renamed) rename(i, std::move(name));
}

}  // namespace

void make_case_names_unique(std::vector<BenchCase>& cases) {
    unique_names(
        cases.size(), [&](std::size_t i) -> std::string_view { return cases[i].name; },
        [&](std::size_t i, std::string name) { cases[i].name = std::move(name); });
}

Result<std::vector<BenchCase>> load_run(const std::vector<std::string>& inputs,
                                        const LoadOptions& options, Diagnostics& diagnostics) {
    auto cases = load_bench_inputs(inputs, options, diagnostics);
    if (cases) make_case_names_unique(*cases);
    return cases;
}

namespace {

render::Table empty_summary_table() {
    render::Table summary;
    summary.columns = {"case", "origin", "rounds", "min",       "median", "mean",
                       "σ",    "max",    "ranks",  "imbalance", "source"};
    summary.units = {"", "", "", "µs", "µs", "µs", "µs", "µs"};
    summary.align = {render::Align::Left, render::Align::Left};
    summary.align.resize(summary.columns.size() - 1, render::Align::Right);
    summary.align.push_back(render::Align::Left);
    return summary;
}

// A case's summary row after its name (row[0]); `without_sigma` is set when a σ cell is "-"
// where the line had rounds to give one.
void add_summary_cells(const BenchCase& bench_case, const BenchBlock* block,
                       std::vector<std::string>& row, bool& without_sigma) {
    if (block == nullptr) {
        row.insert(row.end(), 9, "-");
        row.push_back(to_string(bench_case.source));
        return;
    }
    row.emplace_back(to_string(block->origin));
    const auto& s = block->effective_us;
    // Each cell made in its place (an initializer list would copy every one).
    if (s && !s->mean_only) {
        row.push_back(std::to_string(s->rounds));
        row.push_back(stats::format_fixed(s->min, 1));
        row.push_back(stats::format_fixed(s->median, 1));
        row.push_back(stats::format_fixed(s->mean, 1));
        row.push_back(sigma_cell(rank_samples(*block, std::nullopt), *s));
        without_sigma = without_sigma || (row.back() == "-" && s->rounds != 1);
        row.push_back(stats::format_fixed(s->max, 1));
    } else {
        row.insert(row.end(), 3, "-");
        row.push_back(s ? stats::format_fixed(s->mean, 1) : "-");
        row.insert(row.end(), 2, "-");
    }
    auto imbalance = rank_imbalance(*block);
    row.push_back(block->ranks.empty() ? "-" : std::to_string(block->ranks.size()));
    row.push_back(imbalance ? stats::format_fixed(*imbalance, 3) : "-");
    row.push_back(to_string(block->source));
}

// True when the case's CI block has a rank or a task-slot table.
bool has_case_tables(const BenchBlock* block) {
    return block != nullptr && (!block->ranks.empty() || !block->task_slots.slots.empty());
}

// The rank and task-slot tables of a case whose CI block has them.
void add_case_tables(const BenchCase& bench_case, std::vector<render::Table>& tables) {
    const BenchBlock* block = bench_case.ci_block();
    if (block != nullptr && !block->ranks.empty()) tables.push_back(rank_table(bench_case, *block));
    if (block != nullptr && !block->task_slots.slots.empty())
        tables.push_back(
            task_slot_table(fmt::format("{}: task slots (rank = worker pid)", bench_case.name),
                            {{bench_case.name, &block->task_slots}}, false));
}

// The cases' seed and validation sentinels (upstream-2026-12.md §1.7), a row each, as a daily-CI
// folder's run.log context table (ciresult) lists them.
render::Table sentinel_table() {
    render::Table t;
    t.title = "run context (seed and validation sentinels)";
    t.columns = {"case", "sentinel"};
    return t;
}

}  // namespace

render::Table summary_table(const std::vector<BenchCase>& cases, std::vector<std::string>& notes) {
    render::Table summary = empty_summary_table();
    bool without_sigma = false;
    summary.rows.reserve(cases.size());
    for (const BenchCase& bench_case : cases) {
        const BenchBlock* block = bench_case.ci_block();
        add_case_notes(bench_case, block, notes);
        std::vector<std::string>& row = summary.rows.emplace_back();
        row.reserve(summary.columns.size());
        row.push_back(bench_case.name);
        add_summary_cells(bench_case, block, row, without_sigma);
    }
    if (without_sigma) notes.emplace_back(kSigmaNote);
    return summary;
}

render::Report build_summary_report(const std::vector<BenchCase>& cases,
                                    std::vector<rules::Finding> findings, bool tables) {
    render::Report report;
    report.command = "bench-summary";
    report.findings = std::move(findings);
    if (!tables) return report;
    report.tables.push_back(summary_table(cases, report.notes));
    for (const BenchCase& bench_case : cases) add_case_tables(bench_case, report.tables);
    render::Table sentinels = sentinel_table();
    for (const BenchCase& bench_case : cases) {
        for (const std::string& sentinel : bench_case.sentinels)
            sentinels.rows.push_back({bench_case.name, sentinel});
    }
    if (!sentinels.rows.empty()) report.tables.push_back(std::move(sentinels));
    return report;
}

// Named, not anonymous: SummaryBuilder::State (external linkage) holds it, and in a unity
// build GCC refuses an anonymous-namespace type inside it (-Wsubobject-linkage).
namespace summary_detail {

/// Text written once and kept where it is (views of it stay valid): blocks of 1 MiB, a longer
/// piece in a block of its own.
class TextArena {
  public:
    char* allocate(std::size_t n) {
        if (n > room_) {
            const std::size_t size = std::max(kBlock, n);
            blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
            at_ = blocks_.back().get();
            room_ = size;
        }
        char* piece = at_;
        at_ += n;
        room_ -= n;
        return piece;
    }
    std::string_view add(std::string_view text) {
        char* piece = allocate(text.size());
        if (!text.empty()) std::memcpy(piece, text.data(), text.size());
        return {piece, text.size()};
    }

  private:
    static constexpr std::size_t kBlock = 1u << 20;
    std::vector<std::unique_ptr<char[]>> blocks_;
    char* at_ = nullptr;
    std::size_t room_ = 0;
};

/// Whether any name repeats, answered while the cases come in (so the end need not hash every
/// name again): an open-addressing table of 32-bit hashes and entry numbers, grown by doubling.
/// Once a name repeats it is dropped: unique_names() then does the renaming.
class NameRepeats {
  public:
    /// Notes entry `i` of `name`; `name_of(j)` gives an earlier entry's name.
    template <class NameOf>
    void add(std::size_t i, std::string_view name, const NameOf& name_of) {
        if (repeated_) return;
        if (i >= kEmpty) return give_up();
        if (2 * (count_ + 1) > slots_.size()) grow();
        const std::size_t full = std::hash<std::string_view>{}(name);
        const auto hash = static_cast<std::uint32_t>(full ^ (full >> 32));
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
            Slot& slot = slots_[at];
            if (slot.entry == kEmpty) {
                slot = {hash, static_cast<std::uint32_t>(i)};
                ++count_;
                return;
            }
            if (slot.hash == hash && name_of(slot.entry) == name) return give_up();
        }
    }
    /// Whether a name came twice (or there were too many to tell).
    bool repeated() const { return repeated_; }

  private:
    static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
    struct Slot {
        std::uint32_t hash = 0, entry = kEmpty;
    };
    void give_up() {
        repeated_ = true;
        std::vector<Slot>().swap(slots_);
    }
    void grow() {
        std::vector<Slot> larger(std::max<std::size_t>(64, 2 * slots_.size()));
        const std::size_t mask = larger.size() - 1;
        for (const Slot& slot : slots_) {
            if (slot.entry == kEmpty) continue;
            std::size_t at = slot.hash & mask;
            while (larger[at].entry != kEmpty) at = (at + 1) & mask;
            larger[at] = slot;
        }
        slots_.swap(larger);
    }
    std::vector<Slot> slots_;
    std::size_t count_ = 0;
    bool repeated_ = false;
};

}  // namespace summary_detail

using summary_detail::NameRepeats;
using summary_detail::TextArena;

struct SummaryBuilder::State {
    /// A case as the report needs it.
    struct Entry {
        const char* row = nullptr;  ///< its summary row's cells in `text` (row_cells())
        std::uint32_t file = 0;     ///< the CI block's source: files[file], line
        std::size_t line = 0;
        std::uint32_t facts = 0;  ///< 1 + its place in `metrics`; 0 when the rules need none
    };
    /// A rank or task-slot table of a case, titled with the case's name as read.
    struct CaseTable {
        std::size_t entry;
        std::size_t name_size;  ///< the title's first name_size bytes are the name
        render::Table table;
    };
    render::Table summary = empty_summary_table();
    bool without_sigma = false;
    ChunkedVector<Entry, 12> entries;  ///< chunks of 4096: a log of 100,000 cases copies none
    /// What the case rules read of the cases with a CI block (screened: of those a rule holds
    /// for, in case a repeated name makes their findings be made again under the unique one).
    ChunkedVector<CaseMetrics, 10> metrics;
    std::unique_ptr<CaseRuleScreen> screen;  ///< set by screen_with()
    std::string screened_area;
    std::vector<rules::Finding> case_findings;  ///< the screen's, under the names as read
    NameRepeats repeats;
    /// The summary rows: per row its cell count, then each cell as its length and its bytes
    /// (32-bit lengths, unaligned); one piece of text per case instead of 11 strings.
    TextArena text;
    std::vector<std::string> cells;  ///< the row being made (its name cell left empty)
    std::unordered_map<std::size_t, std::string_view> renamed;  ///< row -> unique name, in `text`
    std::vector<std::pair<std::size_t, std::string>> notes;     ///< (entry, text without the name)
    std::vector<CaseTable> case_tables;
    std::vector<std::pair<std::size_t, std::string>> sentinels;  ///< (entry, sentinel)
    std::vector<std::string> files;  ///< the CI blocks' files, each once in a row

    /// Writes a row of `name` and cells[1..] to `text`; returns where it starts.
    const char* store_row(std::string_view name) {
        auto put = [](char*& at, std::uint32_t value) {
            std::memcpy(at, &value, sizeof value);
            at += sizeof value;
        };
        std::size_t size = sizeof(std::uint32_t) * (1 + cells.size()) + name.size();
        for (std::size_t c = 1; c < cells.size(); ++c) size += cells[c].size();
        char* const row = text.allocate(size);
        char* at = row;
        put(at, static_cast<std::uint32_t>(cells.size()));
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string_view cell = c == 0 ? name : std::string_view(cells[c]);
            put(at, static_cast<std::uint32_t>(cell.size()));
            if (!cell.empty()) std::memcpy(at, cell.data(), cell.size());
            at += cell.size();
        }
        return row;
    }
    /// Row i's cells (its unique name first).
    void row_cells(std::size_t i, std::vector<std::string_view>& out) const {
        const char* at = entries[i].row;
        auto take = [&at] {
            std::uint32_t value;
            std::memcpy(&value, at, sizeof value);
            at += sizeof value;
            return value;
        };
        const std::uint32_t count = take();
        for (std::uint32_t c = 0; c < count; ++c) {
            const std::uint32_t size = take();
            out.emplace_back(at, size);
            at += size;
        }
        if (!renamed.empty() && count > 0)
            if (auto it = renamed.find(i); it != renamed.end()) out.front() = it->second;
    }
    /// Row i's (unique) name.
    std::string_view name(std::size_t i) const {
        if (!renamed.empty())
            if (auto it = renamed.find(i); it != renamed.end()) return it->second;
        const char* at = entries[i].row + sizeof(std::uint32_t);  // past the cell count
        std::uint32_t size;
        std::memcpy(&size, at, sizeof size);
        return {at + sizeof size, size};
    }
};

SummaryBuilder::SummaryBuilder() : state_(std::make_unique<State>()) {}
SummaryBuilder::~SummaryBuilder() = default;

void SummaryBuilder::screen_with(const rules::Catalogue& catalogue, std::string_view area) {
    if (!state_->entries.empty())
        throw std::logic_error("SummaryBuilder: screen_with() after the first case");
    state_->screen = std::make_unique<CaseRuleScreen>(catalogue, area);
    state_->screened_area = std::string(area);
}

void SummaryBuilder::add(BenchCase&& bench_case) {
    State& state = *state_;
    const std::size_t i = state.entries.size();
    State::Entry& entry = state.entries.emplace_back();
    const BenchBlock* block = bench_case.ci_block();
    for_each_case_note(bench_case, block,
                       [&](const std::string& text) { state.notes.emplace_back(i, text); });
    std::vector<std::string>& row = state.cells;
    row.clear();
    row.emplace_back();  // the name: written from the case
    add_summary_cells(bench_case, block, row, state.without_sigma);
    entry.row = state.store_row(bench_case.name);
    state.repeats.add(i, bench_case.name, [&state](std::size_t j) { return state.name(j); });
    if (block != nullptr) {
        if (state.files.empty() || state.files.back() != block->source.file)
            state.files.push_back(block->source.file);
        entry.file = static_cast<std::uint32_t>(state.files.size() - 1);
        entry.line = block->source.line;
        CaseMetrics metrics = case_metrics(*block);
        if (!state.screen || state.screen->screen(bench_case.name, state.files.back(), entry.line,
                                                  metrics, state.case_findings)) {
            state.metrics.push_back(std::move(metrics));
            entry.facts = static_cast<std::uint32_t>(state.metrics.size());
        }
    }
    if (has_case_tables(block)) {
        std::vector<render::Table> tables;
        add_case_tables(bench_case, tables);
        for (render::Table& table : tables)
            state.case_tables.push_back({i, bench_case.name.size(), std::move(table)});
    }
    for (std::string& sentinel : bench_case.sentinels)
        state.sentinels.emplace_back(i, std::move(sentinel));
}

render::Report SummaryBuilder::finish(const rules::Catalogue& catalogue,
                                      const rules::MetricStore& store, std::string_view area) {
    State& state = *state_;
    if (state.screen && area != state.screened_area)
        throw std::logic_error("SummaryBuilder: finished for another rule area than it screened");
    const std::size_t count = state.entries.size();
    const bool repeated = state.repeats.repeated();
    if (repeated)
        unique_names(
            count, [&](std::size_t i) { return state.name(i); },
            [&](std::size_t i, std::string name) { state.renamed[i] = state.text.add(name); });
    render::Report report;
    report.command = "bench-summary";
    if (state.screen && !repeated) {
        report.findings = with_run_findings(std::move(state.case_findings), catalogue, store, area);
    } else {  // the findings made (again) under the unique names
        std::vector<CaseFactsView> facts;
        facts.reserve(state.metrics.size());
        for (std::size_t i = 0; i < count; ++i) {
            const State::Entry& entry = state.entries[i];
            if (entry.facts != 0)
                facts.push_back({state.name(i), &state.files[entry.file], entry.line,
                                 &state.metrics[entry.facts - 1]});
        }
        report.findings = findings_of_facts(facts, catalogue, store, area);
    }
    for (const auto& [i, text] : state.notes)
        report.notes.push_back(fmt::format("{}: {}", state.name(i), text));
    if (state.without_sigma) report.notes.emplace_back(kSigmaNote);
    render::Table& summary = report.tables.emplace_back(std::move(state.summary));
    summary.made_rows = count;
    summary.view_row = [&state](std::size_t i, std::vector<std::string_view>& cells) {
        state.row_cells(i, cells);
    };
    for (State::CaseTable& case_table : state.case_tables) {
        std::string& title = case_table.table.title;
        if (repeated && state.renamed.contains(case_table.entry))
            title = fmt::format("{}{}", state.name(case_table.entry),
                                std::string_view(title).substr(case_table.name_size));
        report.tables.push_back(std::move(case_table.table));
    }
    if (!state.sentinels.empty()) {
        render::Table& sentinels = report.tables.emplace_back(sentinel_table());
        for (auto& [i, sentinel] : state.sentinels)
            sentinels.rows.push_back({std::string(state.name(i)), std::move(sentinel)});
    }
    return report;
}

std::shared_ptr<render::Renderer> make_run_renderer(const std::vector<BenchCase>& cases) {
    return std::make_shared<RunRenderer>(cases);
}

std::shared_ptr<render::Renderer> make_cases_json_renderer(const std::vector<BenchCase>& cases) {
    return std::make_shared<StreamingJsonRenderer>(cases);
}

render::Report cases_document(const std::vector<BenchCase>& cases) {
    render::Report document;
    document.command = "bench-summary";
    document.include_findings_in_json = false;
    nlohmann::json listed = nlohmann::json::array();
    for (const auto& bench_case : cases) listed.push_back(case_to_json(bench_case));
    document.data["cases"] = std::move(listed);
    return document;
}

}  // namespace ptune::bench
