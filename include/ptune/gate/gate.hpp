#pragma once
/// @file gate.hpp
/// The decision core of `ptune bench-gate`: per case, compare the current run with one or
/// more baseline runs and give a verdict, saying which test decided (spec: conventions.md
/// §1.8). The inputs are plain numbers here (bench::Observation); input.hpp pairs them by case.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/bench/observation.hpp"
#include "ptune/core/error.hpp"
#include "ptune/gate/stats.hpp"

namespace ptune::gate {

using bench::Metric;
using bench::Observation;
using bench::parse_metric;
using bench::to_string;

/// One case: every baseline run that has it (a history when there are several) and the
/// current run.
struct CaseInput {
    std::string name;
    std::vector<Observation> baseline;
    std::optional<Observation> current;
};

/// When a change counts: both the relative and the absolute tolerance must be exceeded.
struct Tolerance {
    double threshold_pct = 5.0;
    double min_delta_us = 0.5;
};

/// A per-case override from the config file; unset fields keep the defaults.
struct ToleranceOverride {
    std::optional<double> threshold_pct;
    std::optional<double> min_delta_us;
};

/// The config file: defaults, per-case overrides and cases to leave out.
struct Config {
    std::optional<double> threshold_pct;
    std::optional<double> min_delta_us;
    std::map<std::string, ToleranceOverride> cases;
    std::vector<std::string> ignore;         ///< exact names or shell patterns (`models/qwen3/*`)
    std::vector<std::string> allow_missing;  ///< cases that may lack a current result
};

/// Parses the JSON config file:
/// `{"threshold_pct": 5, "min_delta_us": 0.5, "ignore": ["models/x/*"], "allow_missing": [...],
///   "cases": {"models/a.py": {"threshold_pct": 10, "min_delta_us": 20}}}`.
/// Unknown keys and wrong types are errors naming `source` and the line.
Result<Config> parse_config(std::string_view text, const std::string& source);

/// Everything that shapes the decision.
struct Options {
    Metric metric = Metric::Mean;
    Tolerance tolerance;  ///< default for every case
    std::map<std::string, ToleranceOverride> overrides;
    std::vector<std::string> ignore;
    double alpha = 0.05;          ///< family-wise error rate (Holm) for p-value tests
    std::size_t min_history = 5;  ///< baseline runs needed for the noise fence
    FenceMethod fence = FenceMethod::Mad;
    double fence_k = 3.0;
    /// Suite geomean change that fails the gate on its own; nullopt = report only.
    std::optional<double> geomean_threshold_pct;
    /// A slowdown above this percent fails the gate when the data cannot show significance
    /// (verdict `underpowered`): a huge regression never passes for lack of samples. Raw samples
    /// or a history that call it `noisy` have shown it is noise, and keep their verdict.
    double hard_threshold_pct = 25.0;
    /// Every baseline case needs a valid current result: one without fails the gate (verdict
    /// `missing`) unless `allow_missing` names it (exact names or shell patterns).
    bool require_all = true;
    std::vector<std::string> allow_missing;
};

enum class Verdict : std::uint8_t {
    Regressed,
    Improved,
    Unchanged,
    Noisy,         ///< beyond the tolerances, not significant although the data could show it
    Underpowered,  ///< beyond the tolerances, and the data available cannot show significance
    New,
    Missing,
    Incomparable
};
/// "regressed", "improved", "unchanged", "noisy", "underpowered", "new", "missing",
/// "incomparable".
std::string_view to_string(Verdict verdict);

/// What decided a verdict.
enum class Test : std::uint8_t {
    None,       ///< nothing to test (new, missing, incomparable)
    UTest,      ///< one-sided Mann–Whitney U on raw samples (Holm-adjusted)
    Bounds,     ///< Mann–Whitney U bounded by the summaries (n, min, median, max) only
    Fence,      ///< between-run noise fence on log-ratios from a history of baseline runs
    Threshold,  ///< tolerances only: no samples, no spread, no history (a results.tsv mean)
};
/// "-", "utest", "bounds", "fence", "threshold".
std::string_view to_string(Test test);

/// An optional number in 8 bytes (std::optional<double> takes 16; a 200,000-case gate keeps
/// eleven per case): "no value" is one quiet-NaN bit pattern, which no arithmetic makes (a NaN
/// it makes has the default payload) and no input holds (the readers refuse NaN). Reads like
/// std::optional<double> and converts to it.
class OptionalNumber {
  public:
    constexpr OptionalNumber() = default;
    constexpr OptionalNumber(std::nullopt_t) {}
    constexpr OptionalNumber(double value) : value_(value) {}
    constexpr OptionalNumber(const std::optional<double>& value) : value_(value.value_or(kNone)) {}

    constexpr bool has_value() const { return std::bit_cast<std::uint64_t>(value_) != kNoneBits; }
    constexpr explicit operator bool() const { return has_value(); }
    constexpr const double& operator*() const { return value_; }
    constexpr double value_or(double fallback) const { return has_value() ? value_ : fallback; }
    constexpr operator std::optional<double>() const {
        return has_value() ? std::optional<double>(value_) : std::nullopt;
    }
    friend constexpr bool operator==(const OptionalNumber& a, const OptionalNumber& b) {
        return std::optional<double>(a) == std::optional<double>(b);
    }

  private:
    static constexpr std::uint64_t kNoneBits = 0x7ff8'4e4f'4e45'0000ULL;  // "NONE"
    static constexpr double kNone = std::bit_cast<double>(kNoneBits);
    double value_ = kNone;
};

/// An optional T kept on the heap: 8 bytes in a struct where most have none (a 200,000-case
/// gate keeps one per case). Copies copy the value; reads like std::optional<T>.
template <typename T>
class Boxed {
  public:
    Boxed() = default;
    Boxed(std::nullopt_t) {}
    Boxed(T value) : value_(std::make_unique<T>(std::move(value))) {}
    Boxed(const std::optional<T>& value) {
        if (value) value_ = std::make_unique<T>(*value);
    }
    Boxed(const Boxed& other)
        : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
    Boxed(Boxed&&) noexcept = default;
    Boxed& operator=(const Boxed& other) {
        if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
        return *this;
    }
    Boxed& operator=(Boxed&&) noexcept = default;
    ~Boxed() = default;

    bool has_value() const { return value_ != nullptr; }
    explicit operator bool() const { return has_value(); }
    const T& operator*() const { return *value_; }
    T& operator*() { return *value_; }
    const T* operator->() const { return value_.get(); }
    T* operator->() { return value_.get(); }

  private:
    std::unique_ptr<T> value_;
};

/// A string that takes 8 bytes while it is empty (most cases have no reason): reads like a
/// const std::string (empty when none), and is assigned and appended to like one.
class BoxedString {
  public:
    BoxedString() = default;
    BoxedString(std::string text) { *this = std::move(text); }
    BoxedString(const char* text) : BoxedString(std::string(text)) {}
    BoxedString& operator=(std::string text) {
        text_ = text.empty() ? Boxed<std::string>() : Boxed<std::string>(std::move(text));
        return *this;
    }
    BoxedString& operator=(const char* text) { return *this = std::string(text); }
    BoxedString& operator+=(std::string_view more) {
        if (more.empty()) return *this;
        if (!text_) text_ = std::string();
        text_->append(more);
        return *this;
    }

    const std::string& str() const;
    operator const std::string&() const { return str(); }
    bool empty() const { return !text_; }
    friend bool operator==(const BoxedString& a, std::string_view b) { return a.str() == b; }
    friend std::ostream& operator<<(std::ostream& out, const BoxedString& text);

  private:
    Boxed<std::string> text_;  // never an empty string
};

/// Strings back to back in 64 KiB blocks that never move: a name kept here takes its bytes
/// and a 16-byte view (a std::string takes 32 bytes and a heap block above 15 characters).
class NameStore {
  public:
    /// A copy of `name`, valid while the store lives.
    std::string_view keep(std::string_view name);

  private:
    std::vector<std::unique_ptr<char[]>> blocks_;
    std::size_t size_ = 0;  // bytes in blocks_.back()
    std::size_t used_ = 0;  // of which used
};

/// The verdict of one case with the numbers behind it.
struct CaseResult {
    /// The case's name: evaluate() and Evaluation keep it in GateResult::names; a CaseResult
    /// made by hand points where its maker keeps the name.
    std::string_view name;
    Verdict verdict = Verdict::Unchanged;
    Test test = Test::None;
    /// This case fails the gate: regressed, underpowered above the hard threshold, missing
    /// under require_all, or incomparable because its numbers are damaged.
    bool fails = false;
    bool invalid_input = false;  ///< a summary that cannot be a set of positive rounds
    OptionalNumber baseline;     ///< baseline statistic (history median for the fence)
    OptionalNumber current;
    OptionalNumber delta_pct;  ///< (current − baseline) / baseline × 100
    OptionalNumber delta_us;
    OptionalNumber p_value;            ///< raw one-sided p (utest, bounds)
    OptionalNumber p_adjusted;         ///< Holm-adjusted across the cases that have a p
    OptionalNumber shift_us;           ///< Hodges–Lehmann shift (utest)
    Boxed<NoiseFence> fence;           ///< fence test: the band on log(current/reference)
    Tolerance tolerance;               ///< what applied to this case
    std::size_t baseline_runs = 0;     ///< comparable baseline runs used
    std::size_t baseline_samples = 0;  ///< pooled raw samples (utest) or rounds (bounds)
    std::size_t current_samples = 0;
    /// Sample standard deviation of each side's raw samples (utest), shown next to the centre.
    OptionalNumber baseline_sd, current_sd;
    BoxedString reason;  ///< why new / missing / incomparable / noisy / underpowered
    OptionalNumber current_mean, current_median;  ///< for the tail check
};

/// The suite view: geometric means over the cases compared on both sides.
struct Geomean {
    std::size_t cases = 0;
    std::optional<double> baseline, current, delta_pct;
    bool regressed = false;  ///< above Options::geomean_threshold_pct
};

/// The whole comparison.
struct GateResult {
    std::vector<CaseResult> cases;  ///< input order
    /// The cases' names (CaseResult::name); shared by copies, unmoved by a move.
    std::shared_ptr<NameStore> names = std::make_shared<NameStore>();
    Geomean geomean;
    std::vector<std::string> ignored;  ///< cases left out by the ignore list

    std::size_t count(Verdict verdict) const;
    /// True when a case fails (CaseResult::fails) or the geomean crossed its threshold.
    bool failed() const;
    /// Cases that were actually compared (not new, missing or incomparable). A gate that
    /// compared nothing has not checked anything and must not pass.
    std::size_t compared() const;
};

/// Compares every case. Never fails: unusable cases get `incomparable`, `new` or `missing`
/// with a reason. A summary that cannot be a set of rounds (no rounds, min > max, a median
/// outside [min, max], NaN or a value <= 0) makes its case `incomparable`, never a pass.
GateResult evaluate(const std::vector<CaseInput>& cases, const Options& options);

namespace detail {
struct PendingP;
}  // namespace detail

/// evaluate() one case at a time, so a caller can build each CaseInput when it is needed and
/// drop it afterwards (200,000 cases need not exist as inputs and results at once). The result
/// is final only after finish(): Holm and the geomean need every case.
class Evaluation {
  public:
    explicit Evaluation(const Options& options);
    ~Evaluation();
    Evaluation(const Evaluation&) = delete;
    Evaluation& operator=(const Evaluation&) = delete;

    /// Room for `cases` results (no doubling slack when the caller knows the count).
    void reserve(std::size_t cases);
    /// Compares one case (input order is the result order).
    void add(const CaseInput& input);
    /// The same, taking the input's name.
    void add(CaseInput&& input);
    /// Holm across the cases with a p-value, the final verdicts and the geomean.
    GateResult finish();

  private:
    void add_named(const CaseInput& input, std::string name);

    const Options options_;  // a copy: a temporary passed in must not dangle
    GateResult result_;
    std::vector<detail::PendingP> pending_;
};

/// True if `name` matches an ignore entry (exact, or a shell pattern with `*`, `?`, `[...]`).
bool is_ignored(std::string_view name, const std::vector<std::string>& patterns);

}  // namespace ptune::gate
