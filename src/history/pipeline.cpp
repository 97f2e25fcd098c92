// From bench inputs to recorded runs, and from recorded runs to change points and gate
// baselines (pipeline.hpp).

#include "ptune/history/pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <set>

#include <fmt/format.h>

#include "ptune/bench/observation.hpp"
#include "ptune/bench/pipeline.hpp"
#include "ptune/ciresult/lane.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"
#include "ptune/history/export.hpp"
#include "ptune/history/report.hpp"

namespace ptune::history {

std::string Epoch::label() const {
    std::string label =
        fmt::format("{}/{}", toolchain.empty() ? "-" : toolchain, device.empty() ? "-" : device);
    if (!lane.empty()) label += " lane=" + lane;
    if (!contract.empty()) {
        // A SHA-256 (a lane's spec_hash) is shown by its first 12 digits, as git shows commits.
        const bool digest = contract.size() == 64 &&
                            contract.find_first_not_of("0123456789abcdef") == std::string::npos;
        label += " contract=" + (digest ? contract.substr(0, 12) : contract);
    }
    if (!lineage.empty()) label += " gen=" + lineage;
    return label;
}

std::vector<std::string> Epoch::differences(const Epoch& other) const {
    std::vector<std::string> out;
    const auto part = [&](const char* what, const std::string& mine, const std::string& theirs) {
        if (mine == theirs) return;
        out.push_back(fmt::format("{} changed ({} -> {})", what, mine.empty() ? "-" : mine,
                                  theirs.empty() ? "-" : theirs));
    };
    part("lane", lane, other.lane);
    part("contract", contract, other.contract);
    part("toolchain epoch", toolchain, other.toolchain);
    part("device epoch", device, other.device);
    part("lineage generation", lineage, other.lineage);
    return out;
}

std::string Bridge::text() const {
    return fmt::format("bridge: {}", fmt::join(differences, "; "));
}

void BridgeFinder::add(const Series& series) {
    if (series.points.empty()) return;
    if (series.name != name_) flush();
    name_ = series.name;
    const auto& first = series.points.front();
    heads_.push_back({first.time, first.run, first.commit, series.epoch});
}

void BridgeFinder::flush() {
    std::sort(heads_.begin(), heads_.end(), [](const Head& a, const Head& b) {
        return std::tie(a.time, a.run) < std::tie(b.time, b.run);
    });
    for (std::size_t i = 1; i < heads_.size(); ++i) {
        Bridge bridge;
        bridge.name = name_;
        bridge.from = heads_[i - 1].epoch;
        bridge.to = heads_[i].epoch;
        bridge.run = heads_[i].run;
        bridge.commit = heads_[i].commit;
        bridge.differences = bridge.from.differences(bridge.to);
        bridges_.push_back(std::move(bridge));
    }
    heads_.clear();
}

std::vector<Bridge> BridgeFinder::finish() {
    flush();
    return std::move(bridges_);
}

Epoch epoch_of(const RunInfo& run, const std::string& case_contract) {
    return {run.toolchain, run.device, run.lane,
            case_contract.empty() ? run.contract : case_contract, run.lineage};
}

namespace {

// Two FNV-1a passes with different bases: a 128-bit content digest (identity, not security).
class Digest {
  public:
    void add(std::string_view text) {
        for (unsigned char c : text) {
            a_ = (a_ ^ c) * 1099511628211ull;
            b_ = (b_ ^ c) * 1099511628211ull;
        }
        a_ = (a_ ^ 0xff) * 1099511628211ull;  // field separator
        b_ = (b_ ^ 0xfe) * 1099511628211ull;
    }
    std::string hex() const { return fmt::format("{:016x}{:016x}", a_, b_); }

  private:
    std::uint64_t a_ = 14695981039346656037ull;
    std::uint64_t b_ = 0x84222325cbf29ce4ull;
};

std::string number(const std::optional<double>& value) {
    return value ? fmt::format("{}", *value) : std::string("-");
}

std::string content_digest(const NewRun& run) {
    Digest digest;
    const auto& info = run.info;
    for (const auto* field :
         {&info.commit, &info.branch, &info.toolchain, &info.device, &info.source_digest})
        digest.add(*field);
    // Parts added after schema 1 enter the digest only when set, so a run recorded before
    // keeps its digest (re-adding it stays idempotent).
    for (const auto& [key, value] :
         {std::pair{"lane", &info.lane}, std::pair{"contract", &info.contract},
          std::pair{"lineage", &info.lineage}})
        if (!value->empty()) digest.add(fmt::format("{}={}", key, *value));
    for (const auto& [key, value] : info.labels) digest.add(key + "=" + value);
    std::vector<const CaseValue*> cases;
    for (const auto& value : run.cases) cases.push_back(&value);
    std::sort(cases.begin(), cases.end(),
              [](const CaseValue* a, const CaseValue* b) { return a->name < b->name; });
    for (const auto* value : cases) {
        digest.add(value->name);
        digest.add(fmt::format("{} {} {} {} {}", value->value_us, value->rounds,
                               number(value->min_us), number(value->median_us),
                               number(value->max_us)));
        std::string samples;
        for (double sample : value->samples) samples += fmt::format("{} ", sample);
        digest.add(samples);
        if (!value->contract.empty()) digest.add("contract=" + value->contract);
    }
    return digest.hex();
}

std::string prefix_digest(const Series& series, std::size_t count) {
    Digest digest;
    for (std::size_t i = 0; i < count; ++i) digest.add(std::to_string(series.points[i].run));
    return digest.hex();
}

bool all_digits(std::string_view text) {
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::optional<std::string> normalise_time(std::string_view text) {
    text = ptune::text::trim(text);
    if (text.starts_with('@')) {
        auto seconds = ptune::text::parse_int(text.substr(1));
        // Up to 9999-12-31T23:59:59Z: the form has four digits of year.
        constexpr long long kLastSecond = 253402300799LL;
        if (!seconds || *seconds < 0 || *seconds > kLastSecond) return std::nullopt;
        const std::time_t t = static_cast<std::time_t>(*seconds);
        std::tm tm{};
        gmtime_r(&t, &tm);
        char buffer[32];
        std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
        return std::string(buffer);
    }
    if (text.ends_with('Z')) text.remove_suffix(1);
    if (text.ends_with("+00:00")) text.remove_suffix(6);
    std::string date(text.substr(0, 10)), clock = "00:00:00";
    if (text.size() > 10) {
        if (text[10] != 'T' && text[10] != ' ') return std::nullopt;
        clock = std::string(text.substr(11));
        if (clock.size() == 5) clock += ":00";
    }
    const auto parts = ptune::text::split(date, '-');
    const auto times = ptune::text::split(clock, ':');
    if (date.size() != 10 || parts.size() != 3 || parts[0].size() != 4 || parts[1].size() != 2 ||
        parts[2].size() != 2 || clock.size() != 8 || times.size() != 3)
        return std::nullopt;
    for (auto part : parts)
        if (!all_digits(part)) return std::nullopt;
    for (auto part : times)
        if (part.size() != 2 || !all_digits(part)) return std::nullopt;
    const int month = std::stoi(std::string(parts[1])), day = std::stoi(std::string(parts[2]));
    const int hour = std::stoi(std::string(times[0])), minute = std::stoi(std::string(times[1]));
    const int second = std::stoi(std::string(times[2]));
    if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60)
        return std::nullopt;
    const int year = std::stoi(std::string(parts[0]));
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (day > kDays[month - 1] + (month == 2 && leap ? 1 : 0)) return std::nullopt;  // 02-30
    return date + "T" + clock + "Z";
}

std::string now_time() {
    return *normalise_time(fmt::format("@{}", static_cast<long long>(std::time(nullptr))));
}

Result<NewRun> build_run(const std::vector<std::string>& inputs, const RunMeta& meta,
                         Diagnostics& diagnostics) {
    if (meta.commit.empty())
        return Error{"history add needs --commit SHA", "", 0, ExitCode::InputError};
    NewRun run;
    auto& info = run.info;
    info.commit = meta.commit;
    info.branch = meta.branch;
    info.toolchain = meta.toolchain;
    info.device = meta.device;
    info.source_digest = meta.source_digest;
    info.lane = meta.lane;
    info.contract = meta.contract;
    info.lineage = meta.lineage;
    info.labels = meta.labels;
    info.inputs = inputs;
    if (meta.time.empty()) {
        info.time = now_time();
    } else if (auto time = normalise_time(meta.time)) {
        info.time = *time;
    } else {
        return Error{fmt::format("--time '{}' is not a UTC time such as 2026-09-01T12:00:00Z or "
                                 "@SECONDS",
                                 meta.time),
                     "", 0, ExitCode::InputError};
    }

    bench::LoadOptions load;
    load.strace = meta.loop;
    auto cases = bench::load_run(inputs, load, diagnostics);
    if (!cases) return cases.error();
    // The identity parts a lane suite-result.json or journal carries; options win.
    auto identity = ciresult::identity_of_inputs(inputs, diagnostics);
    if (!identity) return identity.error();
    const auto take = [&](std::string& part, const std::string& from, const char* option) {
        if (from.empty()) return;
        if (part.empty()) {
            part = from;
        } else if (part != from) {
            diagnostics.warn("", 0,
                             fmt::format("{} '{}' given, the input says '{}': recorded as given",
                                         option, part, from));
        }
    };
    take(info.lane, identity->run.lane, "--lane");
    take(info.contract, identity->run.contract, "--contract");
    take(info.toolchain, identity->run.toolchain_epoch, "--toolchain");
    take(info.device, identity->run.device_epoch, "--device");
    take(info.source_digest, identity->run.source_tree, "--source-digest");

    std::set<std::string> platforms;
    for (const auto& bench_case : *cases) {
        const auto observation = bench::observe(bench_case, diagnostics);
        // Upstream's headline is tracked: a lane case's metric_us (the median, §3.2), a one-card
        // daily-CI case's median and the operator suite's metric_us; the mean otherwise.
        const bool median =
            identity->lane_cases.count(bench_case.name) > 0 || observation.headline_is_median;
        auto headline = observation.value(median ? bench::Metric::Median : bench::Metric::Mean);
        if (!headline) headline = observation.value(bench::Metric::Mean);
        if (!headline || !std::isfinite(*headline) || *headline <= 0.0) {
            diagnostics.warn(
                bench_case.source.file, bench_case.source.line,
                fmt::format("{}: not recorded: {}", bench_case.name,
                            observation.unavailable.empty() ? "no positive effective_us"
                                                            : observation.unavailable));
            continue;
        }
        CaseValue value;
        value.name = bench_case.name;
        value.value_us = *headline;
        value.rounds = observation.rounds;
        value.min_us = observation.min;
        value.median_us = observation.median;
        value.max_us = observation.max;
        value.samples = observation.samples;
        const auto* block = bench_case.ci_block();
        value.origin = block ? bench::to_string(block->origin) : "";
        value.source = observation.source;
        if (auto it = identity->case_contracts.find(value.name);
            it != identity->case_contracts.end() && meta.contract.empty())
            value.contract = it->second;
        if (!observation.platform.empty()) platforms.insert(observation.platform);
        run.cases.push_back(std::move(value));
    }
    if (run.cases.empty()) {
        return Error{"no case with an effective_us number in the inputs; nothing to record",
                     inputs.size() == 1 ? inputs.front() : "", 0, ExitCode::InputError};
    }
    if (info.device.empty() && platforms.size() == 1) info.device = *platforms.begin();
    info.content_digest = content_digest(run);
    info.run_key = meta.run_id.empty() ? "digest:" + info.content_digest : meta.run_id;
    return run;
}

Status analyse(Store& store, const std::vector<std::string>& only, const AnalyseOptions& options,
               const std::function<Status(Analysis&&)>& visit, Diagnostics& diagnostics) {
    const std::string params = options.detect.key();
    std::map<AnalysisKey, CachedAnalysis> cached, updated;
    if (options.use_cache) {
        auto loaded = store.cached_analyses(params);
        if (!loaded) return loaded.error();
        cached = std::move(*loaded);
    }
    const auto on_series = [&](Series&& series) -> Status {
        std::vector<double> values;
        values.reserve(series.points.size());
        for (const auto& point : series.points) values.push_back(std::log(point.value_us));
        AnalysisKey key{series.name, series.epoch, params};
        const std::vector<ChangePoint>* previous = nullptr;
        if (auto it = cached.find(key); it != cached.end()) {
            const auto& hit = it->second;
            if (hit.analysed <= values.size() &&
                prefix_digest(series, hit.analysed) == hit.prefix_digest) {
                if (hit.analysed == values.size())
                    return visit(Analysis{std::move(series), hit.change_points});
                previous = &hit.change_points;
            }
        }
        static const std::vector<ChangePoint> none;
        auto points = e_divisive_incremental(values, previous ? *previous : none, options.detect);
        updated[key] = {values.size(), prefix_digest(series, values.size()), points};
        return visit(Analysis{std::move(series), std::move(points)});
    };
    if (only.empty()) {
        if (auto status = store.for_each_series("", on_series); !status) return status;
    }
    for (const auto& name : only)
        if (auto status = store.for_each_series(name, on_series); !status) return status;
    if (!updated.empty() && store.writable()) {
        if (auto status = store.save_analyses(updated); !status) {
            diagnostics.note(store.location(), 0,
                             "change points not cached (" + status.error().message + ")");
        }
    }
    return ok_status();
}

namespace {

double segment_median(const Series& series, std::size_t begin, std::size_t end) {
    std::vector<double> values;
    for (std::size_t i = begin; i < end; ++i) values.push_back(series.points[i].value_us);
    return stats::median(std::move(values)).value_or(0.0);
}

}  // namespace

std::vector<Change> describe(const Analysis& analysis) {
    std::vector<Change> changes;
    const auto& series = analysis.series;
    const auto& points = analysis.change_points;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const std::size_t at = points[i].index;
        const std::size_t begin = i == 0 ? 0 : points[i - 1].index;
        const std::size_t end = i + 1 < points.size() ? points[i + 1].index : series.points.size();
        Change change;
        change.name = series.name;
        change.epoch = series.epoch;
        change.run = series.points[at].run;
        change.commit = series.points[at].commit;
        change.commit_before = series.points[at - 1].commit;
        change.before_us = segment_median(series, begin, at);
        change.after_us = segment_median(series, at, end);
        change.change_pct = (change.after_us - change.before_us) / change.before_us * 100.0;
        change.p_value = points[i].p_value;
        changes.push_back(std::move(change));
    }
    return changes;
}

std::vector<double> segment_medians(const Analysis& analysis) {
    const auto& series = analysis.series;
    std::vector<double> medians;
    medians.reserve(series.points.size());
    std::size_t begin = 0;
    for (std::size_t c = 0; c <= analysis.change_points.size(); ++c) {
        const std::size_t end = c < analysis.change_points.size() ? analysis.change_points[c].index
                                                                  : series.points.size();
        if (end <= begin) continue;  // never from analyse(); a hand-made analysis may have one
        medians.insert(medians.end(), end - begin, segment_median(series, begin, end));
        begin = end;
    }
    return medians;
}

std::size_t current_segment_start(const Analysis& analysis) {
    return analysis.change_points.empty() ? 0 : analysis.change_points.back().index;
}

Epoch GateIdentity::of(const std::string& name) const {
    Epoch key = run;
    if (auto it = case_contracts.find(name); it != case_contracts.end()) key.contract = it->second;
    return key;
}

Result<GateIdentity> gate_identity(const std::vector<std::string>& current_inputs,
                                   Diagnostics& diagnostics) {
    GateIdentity identity;
    auto read = ciresult::identity_of_inputs(current_inputs, diagnostics);
    if (!read) return read.error();
    if (!read->found) return identity;
    identity.known = true;
    identity.run = Epoch(read->run.toolchain_epoch, read->run.device_epoch, read->run.lane,
                         read->run.contract);
    identity.case_contracts = read->case_contracts;
    return identity;
}

namespace {

// One baseline run per history point of a case.
bench::BenchCase baseline_case(const std::string& location, const std::string& name,
                               const Point& point) {
    bench::BenchCase bench_case;
    bench_case.name = name;
    bench_case.source = {fmt::format("{} run {}", location, point.run), 0};
    bench::BenchBlock block;
    bench::Summary summary;
    summary.mean = point.value_us;
    summary.rounds = point.rounds;
    summary.mean_only = !(point.min_us && point.median_us && point.max_us);
    if (!summary.mean_only) {
        summary.min = *point.min_us;
        summary.median = *point.median_us;
        summary.max = *point.max_us;
    }
    block.effective_us = summary;
    block.origin = bench::Origin::Json;
    block.source = bench_case.source;
    bench_case.blocks.push_back(std::move(block));
    return bench_case;
}

bool newer_than(const Analysis& a, const Analysis& b) {
    if (b.series.points.empty()) return true;
    const auto& x = a.series.points.back();
    const auto& y = b.series.points.back();
    return std::tie(x.time, x.run) > std::tie(y.time, y.run);
}

}  // namespace

Result<GateBaseline> gate_baseline(Store& store, const std::vector<bench::BenchCase>& current,
                                   const GateIdentity& identity, const AnalyseOptions& options,
                                   Diagnostics& diagnostics) {
    std::vector<std::string> names;
    for (const auto& bench_case : current) names.push_back(bench_case.name);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    // Per case: the newest series of any identity, and the series of the current identity
    // (its lineage: the newest generation with the other four parts equal).
    std::map<std::string, Analysis> newest, same;
    auto status = analyse(
        store, names, options,
        [&](Analysis&& analysis) -> Status {
            const std::string name = analysis.series.name;
            if (identity.known) {
                Epoch key = identity.of(name);
                key.lineage = analysis.series.epoch.lineage;
                if (analysis.series.epoch == key) {
                    auto& slot = same[name];
                    if (newer_than(analysis, slot)) slot = analysis;
                }
            }
            auto& slot = newest[name];
            if (newer_than(analysis, slot)) slot = std::move(analysis);
            return ok_status();
        },
        diagnostics);
    if (!status) return status.error();
    GateBaseline out;
    std::map<std::pair<std::string, std::int64_t>, std::vector<bench::BenchCase>> by_run;
    for (const auto& name : names) {
        const Analysis* chosen = nullptr;
        if (!identity.known) {
            if (auto it = newest.find(name); it != newest.end()) chosen = &it->second;
        } else if (auto it = same.find(name); it != same.end()) {
            chosen = &it->second;
        }
        if (identity.known) {
            const std::size_t attempts = chosen ? chosen->series.points.size() : 0;
            if (attempts < kShadowAttempts) {
                std::string reason = fmt::format("shadow ({}/{})", attempts, kShadowAttempts);
                if (!chosen) {
                    if (auto other = newest.find(name); other != newest.end()) {
                        Epoch key = identity.of(name);
                        key.lineage = other->second.series.epoch.lineage;
                        Bridge bridge;
                        bridge.differences = other->second.series.epoch.differences(key);
                        reason +=
                            fmt::format("; N/A, no same-identity baseline: {}", bridge.text());
                    }
                }
                out.held.push_back({name, attempts, std::move(reason)});
                continue;
            }
        }
        if (!chosen) continue;  // the gate calls it new
        const auto& points = chosen->series.points;
        std::size_t begin = current_segment_start(*chosen);
        // An identity's series is judged on at least its newest ten attempts (§3.6 item 5),
        // even after a change point: the attempt-level median and MAD need them.
        if (identity.known) begin = std::min(begin, points.size() - kShadowAttempts);
        if (points.size() - begin > options.max_baseline_runs)
            begin = points.size() - options.max_baseline_runs;
        std::vector<double> values;
        for (std::size_t i = begin; i < points.size(); ++i) {
            values.push_back(points[i].value_us);
            by_run[{points[i].time, points[i].run}].push_back(
                baseline_case(store.location(), name, points[i]));
        }
        if (identity.known) {
            out.notes.push_back(fmt::format(
                "{}: baseline {} attempt(s) of {}: median {} µs, MAD {} µs; a case flagged over "
                "both thresholds is confirmed with ptune history confirm PARENT CANDIDATE "
                "CANDIDATE PARENT",
                name, values.size(), chosen->series.epoch.label(),
                stats::median(values).value_or(0.0), stats::mad(values).value_or(0.0)));
        }
    }
    for (auto& [key, cases] : by_run) out.runs.push_back(std::move(cases));
    return out;
}

Result<std::vector<std::vector<bench::BenchCase>>> gate_baseline(
    Store& store, const std::vector<bench::BenchCase>& current, const AnalyseOptions& options,
    Diagnostics& diagnostics) {
    auto baseline = gate_baseline(store, current, GateIdentity{}, options, diagnostics);
    if (!baseline) return baseline.error();
    return std::move(baseline->runs);
}

Status add_labels(const std::vector<std::string>& labels, RunMeta& meta) {
    for (const auto& label : labels) {
        const auto eq = label.find('=');
        if (eq == std::string::npos || eq == 0)
            return Error{fmt::format("--meta '{}' is not KEY=VALUE", label), "", 0,
                         ExitCode::InputError};
        meta.labels[label.substr(0, eq)] = label.substr(eq + 1);
    }
    return ok_status();
}

Result<render::Report> add_run(const std::string& location, OpenOptions open,
                               const std::vector<std::string>& inputs, const RunMeta& meta,
                               Diagnostics& diagnostics) {
    if (auto status = Store::check(location, open); !status) return status.error();
    auto run = build_run(inputs, meta, diagnostics);
    if (!run) return run.error();
    open.create = true;
    auto store = Store::open(location, open);
    if (!store) return store.error();
    auto outcome = (*store)->add(*run);
    if (!outcome) return outcome.error();
    return add_report(*run, *outcome);
}

Result<std::vector<Analysis>> collect_analyses(Store& store, const std::string& only,
                                               const AnalyseOptions& options,
                                               Diagnostics& diagnostics) {
    std::vector<Analysis> all;
    std::vector<std::string> names;
    if (!only.empty()) names.push_back(only);
    auto status = analyse(
        store, names, options,
        [&](Analysis&& analysis) -> Status {
            all.push_back(std::move(analysis));
            return ok_status();
        },
        diagnostics);
    if (!status) return status.error();
    return all;
}

Result<ChangeList> collect_changes(Store& store, const std::string& only,
                                   const AnalyseOptions& options, Diagnostics& diagnostics) {
    ChangeList list;
    BridgeFinder bridges;
    std::vector<std::string> names;
    if (!only.empty()) names.push_back(only);
    auto status = analyse(
        store, names, options,
        [&](Analysis&& analysis) -> Status {
            ++list.series;
            bridges.add(analysis.series);
            for (auto& change : describe(analysis)) list.changes.push_back(std::move(change));
            return ok_status();
        },
        diagnostics);
    if (!status) return status.error();
    list.bridges = bridges.finish();
    return list;
}

Status export_history(Store& store, const std::string& format, const AnalyseOptions& options,
                      std::ostream& out, Diagnostics& diagnostics) {
    if (format == "csv") return export_csv(store, out);
    if (format == "json") return export_json(store, out);
    return export_gab_json(store, options, out, diagnostics);
}

}  // namespace ptune::history
