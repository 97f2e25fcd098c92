// The lib-main-attention lane (lane.hpp; upstream-2026-12.md §3.5, §3.7): its journal, its
// suite-result.json, finalization and the identity parts history records.

#include "ptune/ciresult/lane.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "json_util.hpp"
#include "ptune/core/io.hpp"

namespace ptune::ciresult {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string text_of(const json& object, const char* key) {
    if (!object.is_object()) return {};
    auto it = object.find(key);
    if (it == object.end()) return {};
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number_integer()) return std::to_string(it->get<long long>());
    return {};
}

std::optional<double> finite(const json& object, const char* key) {
    if (!object.is_object()) return std::nullopt;
    auto it = object.find(key);
    if (it == object.end() || !it->is_number() || it->is_boolean()) return std::nullopt;
    const double value = it->get<double>();
    if (!std::isfinite(value)) return std::nullopt;
    return value;
}

std::optional<bench::Summary> metric_summary(const json& metric) {
    if (!metric.is_object()) return std::nullopt;
    const auto min = finite(metric, "minimum"), median = finite(metric, "median");
    const auto mean = finite(metric, "mean"), max = finite(metric, "maximum");
    const auto count = finite(metric, "sample_count");
    if (!min || !median || !mean || !max || !(*min > 0.0) || *min > *median || *median > *max ||
        *mean < *min || *mean > *max)
        return std::nullopt;
    bench::Summary s;
    s.min = *min;
    s.median = *median;
    s.mean = *mean;
    s.max = *max;
    s.rounds = count && *count >= 0.0 && *count < 1e12 ? static_cast<std::size_t>(*count) : 0;
    return s;
}

}  // namespace

bool CaseResult::valid_success() const {
    return status == "pass" && metric_us && *metric_us > 0.0 &&
           (validation_status.empty() || validation_status == "pass");
}

std::string CaseResult::failure_reason() const {
    if (valid_success()) return {};
    std::string reason = fmt::format("status {}", status);
    if (!validation_error.empty()) return reason + ": " + validation_error;
    if (status == "pass" && !metric_us) return reason + " without metric_us (no value)";
    if (status == "pass") return reason + ": validation " + validation_status;
    if (process_rc && *process_rc != 0)
        return fmt::format("{}: process_rc {}", reason, *process_rc);
    return reason;
}

std::optional<CaseResult> read_case_result(const json& object, const std::string& source,
                                           std::size_t line) {
    if (!object.is_object()) return std::nullopt;
    auto id = object.find("case_id");
    auto status = object.find("status");
    if (id == object.end() || !id->is_string() || id->get<std::string>().empty() ||
        status == object.end() || !status->is_string())
        return std::nullopt;
    CaseResult r;
    r.case_id = id->get<std::string>();
    r.status = status->get<std::string>();
    r.contract_id = text_of(object, "contract_id");
    r.entrypoint = text_of(object, "entrypoint");
    if (auto rc = object.find("process_rc"); rc != object.end() && rc->is_number_integer())
        r.process_rc = rc->get<long long>();
    r.metric_us = finite(object, "metric_us");
    if (r.metric_us && !(*r.metric_us > 0.0)) r.metric_us.reset();
    if (auto metric = object.find("metric"); metric != object.end())
        r.metric = metric_summary(*metric);
    if (auto validation = object.find("validation"); validation != object.end()) {
        r.validation_status = text_of(*validation, "status");
        r.validation_error = text_of(*validation, "error");
    }
    if (auto ranks = object.find("rank_diagnostics");
        ranks != object.end() && ranks->is_array() && !ranks->empty()) {
        const json& rank = ranks->front();
        r.device_id = text_of(rank, "device_id");
        if (auto samples = rank.is_object() ? rank.find("samples_us") : rank.end();
            rank.is_object() && samples != rank.end() && samples->is_array()) {
            for (const json& v : *samples) {
                if (!v.is_number() || v.is_boolean()) continue;
                const double value = v.get<double>();
                if (std::isfinite(value) && value > 0.0) r.samples_us.push_back(value);
            }
        }
    }
    r.source = source;
    r.line = line;
    return r;
}

Journal parse_journal(std::string_view text, const std::string& source, Diagnostics& diagnostics) {
    Journal journal;
    journal.source = source;
    std::size_t line = 0;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        const bool last_unterminated = end == text.size();
        std::string_view content = text.substr(at, end - at);
        if (content.ends_with('\r')) content.remove_suffix(1);
        at = end + 1;
        ++line;
        if (content.find_first_not_of(" \t") == std::string_view::npos) continue;
        auto object = json::parse(content.begin(), content.end(), nullptr, false);
        if (object.is_discarded() && last_unterminated) {
            // A file still being appended: its last record is not complete yet (§3.7).
            journal.truncated_tail = true;
            diagnostics.note(source, line,
                             "journal: the last line is incomplete (still being appended); "
                             "left out");
            break;
        }
        auto result = read_case_result(object, source, line);
        if (!result) {
            ++journal.skipped;
            diagnostics.warn(source, line,
                             object.is_object()
                                 ? "journal: a line without case_id or status; skipped"
                                 : "journal: a line that is not a JSON object; skipped");
            continue;
        }
        journal.attempts.push_back(std::move(*result));
    }
    if (journal.skipped > 0) {
        diagnostics.warn(
            source, 0,
            fmt::format("journal: {} line(s) skipped (not a case result)", journal.skipped));
    }
    return journal;
}

std::vector<CaseResult> finalize(const std::vector<CaseResult>& attempts,
                                 std::map<std::string, std::size_t>* attempts_per_case) {
    std::vector<CaseResult> out;
    std::map<std::string, std::size_t> index;  // case id -> place in out
    std::map<std::string, bool> settled;       // a valid success is chosen
    for (const CaseResult& attempt : attempts) {
        if (attempts_per_case) ++(*attempts_per_case)[attempt.case_id];
        auto [it, added] = index.emplace(attempt.case_id, out.size());
        if (added) {
            out.push_back(attempt);
            settled[attempt.case_id] = attempt.valid_success();
            continue;
        }
        if (settled[attempt.case_id]) continue;  // never replace a published value
        out[it->second] = attempt;
        settled[attempt.case_id] = attempt.valid_success();
    }
    return out;
}

SuiteShape suite_shape(const json& root) {
    if (root.is_object() && root.contains("lane_id")) return SuiteShape::Lane;
    if (root.is_object() && text_of(root, "variant") == "ci") return SuiteShape::OperatorV2;
    return SuiteShape::OperatorV1;
}

Result<LaneSuite> parse_lane_suite(std::string_view text, const std::string& source,
                                   Diagnostics& diagnostics) {
    auto document = parse_json_object(text, source, "suite-result.json");
    if (!document) return document.error();
    const json& root = *document;
    auto cases = suite_cases(root, text, source);
    if (!cases) return cases.error();
    LaneSuite suite;
    suite.source = source;
    suite.suite_id = text_of(root, "suite_id");
    suite.contract_id = text_of(root, "contract_id");
    suite.status = text_of(root, "status");
    auto& id = suite.identity;
    id.lane = text_of(root, "lane_id");
    if (auto contract = root.find("contract"); contract != root.end())
        id.contract = text_of(*contract, "spec_hash");
    if (id.contract.empty()) id.contract = suite.contract_id;
    if (auto toolchain = root.find("toolchain"); toolchain != root.end())
        id.toolchain_epoch = text_of(*toolchain, "epoch");
    if (auto device = root.find("device"); device != root.end())
        id.device_epoch = text_of(*device, "epoch");
    if (auto src = root.find("source"); src != root.end()) id.source_tree = text_of(*src, "tree");
    if (auto coverage = root.find("coverage"); coverage != root.end() && coverage->is_object()) {
        if (auto complete = coverage->find("complete");
            complete != coverage->end() && complete->is_boolean())
            suite.coverage_complete = complete->get<bool>();
    }
    std::map<std::string, std::size_t> seen;
    for (const json& row : **cases) {
        const std::string case_id = text_of(row, "case_id");
        const std::size_t line =
            case_id.empty() ? 0 : line_of_string(text, case_id, ++seen[case_id]);
        auto result = read_case_result(row, source, line);
        if (!result) {
            diagnostics.warn(source, line,
                             "suite-result.json: a cases[] row without case_id or status; left "
                             "out");
            continue;
        }
        suite.cases.push_back(std::move(*result));
    }
    if (!suite.coverage_complete) {
        diagnostics.warn(source, 0,
                         "suite-result.json: coverage incomplete: a failed collection (§3.6 "
                         "item 4); its cases are read, none is carried forward");
    }
    return suite;
}

std::vector<bench::BenchCase> to_bench_cases(const std::vector<CaseResult>& results) {
    std::vector<bench::BenchCase> cases;
    for (const CaseResult& r : results) {
        bench::BenchCase bc;
        bc.name = r.case_id;
        bc.source = {r.source, r.line};
        bench::BenchBlock block;
        block.origin = bench::Origin::CiResult;
        block.source = bc.source;
        bc.status = r.valid_success() ? "pass" : "fail";
        if (!r.valid_success()) {
            // A precision or contract failure is a test failure with no number (§3.6 item 7).
            block.unavailable = r.failure_reason();
        } else {
            bench::Summary s;
            if (r.metric) {
                s = *r.metric;
                s.median = *r.metric_us;  // the official value is metric_us (= the median)
            } else {
                s.mean = *r.metric_us;
                s.mean_only = true;
                block.notes.push_back("metric_us only (no metric summary)");
            }
            block.effective_us = s;
            if (!r.samples_us.empty()) {
                bench::RawSamples raw;
                raw.ranks = 1;
                raw.rounds = r.samples_us.size();
                raw.per_rank[0] = r.samples_us;
                block.raw = std::move(raw);
                block.declared_rounds = r.samples_us.size();
            }
        }
        // The contract and the selected rank's device stay visible (§3.6 item 6).
        if (!r.contract_id.empty() || !r.device_id.empty()) {
            block.notes.push_back(
                fmt::format("contract {}{}", r.contract_id.empty() ? "-" : r.contract_id,
                            r.device_id.empty() ? "" : "; rank 0 on device " + r.device_id));
        }
        bc.blocks.push_back(std::move(block));
        cases.push_back(std::move(bc));
    }
    return cases;
}

bool is_journal(const std::string& path) {
    const fs::path p(path);
    if (p.extension() != ".jsonl" || !io::is_file(p)) return false;
    std::ifstream in(path, std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    return head.find("\"case_id\"") != std::string::npos;
}

namespace {

// The suite-result.json a path names (itself, or the one in a folder); empty when none.
std::string suite_file(const std::string& path) {
    const fs::path p(path);
    if (io::is_dir(p)) {
        if (io::is_file(p / "suite-result.json")) return (p / "suite-result.json").string();
        return {};
    }
    if (p.filename() == "suite-result.json" && io::is_file(p)) return path;
    return {};
}

// suite_shape() == SuiteShape::Lane of `text` parsed (a valid JSON object with a top-level
// `lane_id`), found without building the document: an operator suite-result.json, which every
// suite-result.json input is first checked for, is then parsed once, by its own parser.
class LaneKeyScan : public nlohmann::json_sax<json> {
  public:
    static bool is_lane(std::string_view text) {
        LaneKeyScan scan;
        return json::sax_parse(text, &scan) && scan.lane_;
    }

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override {
        ++depth_;
        return true;
    }
    bool key(string_t& name) override {
        if (depth_ == 1 && name == "lane_id") lane_ = true;  // a key of the root object
        return true;
    }
    bool end_object() override {
        --depth_;
        return true;
    }
    bool start_array(std::size_t) override {
        ++depth_;
        return true;
    }
    bool end_array() override {
        --depth_;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        return false;
    }

  private:
    std::size_t depth_ = 0;
    bool lane_ = false;
};

// A lane input read: its finalized results and identity (found = false when not a lane input).
struct LaneInput {
    bool lane = false;
    std::vector<CaseResult> results;
    std::optional<LaneIdentity> identity;
};

Result<LaneInput> read_lane(const std::string& path, Diagnostics& diagnostics) {
    LaneInput input;
    if (is_journal(path)) {
        auto text = io::read_file(path);
        if (!text) return text.error();
        auto journal = parse_journal(*text, path, diagnostics);
        if (journal.attempts.empty()) {
            return Error{"journal: no case result in this file", path, 0, ExitCode::InputError};
        }
        input.lane = true;
        input.results = finalize(journal.attempts);
        return input;
    }
    const std::string file = suite_file(path);
    if (file.empty()) return input;
    auto text = io::read_file(file);
    if (!text) return text.error();
    // Only the lane's shape is ours; the operator suite's parser reads the other two.
    if (!LaneKeyScan::is_lane(*text)) return input;
    auto suite = parse_lane_suite(*text, file, diagnostics);
    if (!suite) return suite.error();
    input.lane = true;
    input.results = finalize(suite->cases);
    input.identity = suite->identity;
    return input;
}

}  // namespace

std::optional<Status> read_lane_input(const std::string& path, Diagnostics& diagnostics,
                                      const bench::CaseSink& sink) {
    if (path == io::kStdinName || (!io::is_dir(path) && io::is_special(fs::path(path))))
        return std::nullopt;
    auto input = read_lane(path, diagnostics);
    if (!input) return Status(input.error());
    if (!input->lane) return std::nullopt;
    if (input->results.empty())
        return Status(Error{"no case in this lane result", path, 0, ExitCode::InputError});
    for (auto& bench_case : to_bench_cases(input->results)) sink(std::move(bench_case));
    return ok_status();
}

std::optional<std::string> lane_headline_note(const std::string& path) {
    if (path == io::kStdinName || (!io::is_dir(path) && io::is_special(fs::path(path))))
        return std::nullopt;
    Diagnostics ignored;  // the loader reported them
    auto input = read_lane(path, ignored);
    if (!input || !input->lane) return std::nullopt;
    return fmt::format(
        "{}: lane result (§3.5); the official value is metric_us = the median of effective_us "
        "(gate it with --metric median); retries folded, a contract-valid success preferred",
        path);
}

Result<InputIdentity> identity_of_inputs(const std::vector<std::string>& inputs,
                                         Diagnostics& diagnostics) {
    InputIdentity identity;
    std::string first;  // the input the run's parts came from
    for (const std::string& labelled : inputs) {
        // `name=path` labels: the path is after the first '=' when that names a file.
        std::string path = labelled;
        if (auto eq = labelled.find('=');
            eq != std::string::npos && !io::is_file(labelled) && !io::is_dir(labelled))
            path = labelled.substr(eq + 1);
        if (path == io::kStdinName || (!io::is_dir(path) && io::is_special(fs::path(path))))
            continue;
        Diagnostics ignored;  // the loader reports this input's problems
        auto input = read_lane(path, ignored);
        if (!input || !input->lane) continue;
        identity.found = true;
        for (const CaseResult& r : input->results) {
            identity.lane_cases.insert(r.case_id);
            if (!r.contract_id.empty()) identity.case_contracts[r.case_id] = r.contract_id;
        }
        if (!input->identity) continue;
        if (first.empty()) {
            identity.run = *input->identity;
            first = path;
            continue;
        }
        const auto& a = identity.run;
        const auto& b = *input->identity;
        const auto differ = [&](const char* what, const std::string& x,
                                const std::string& y) -> std::optional<Error> {
            if (x == y) return std::nullopt;
            return Error{fmt::format("the inputs are not one run: {} '{}' in {}, '{}' here", what,
                                     x, first, y),
                         path, 0, ExitCode::InputError};
        };
        for (auto error :
             {differ("lane", a.lane, b.lane), differ("contract", a.contract, b.contract),
              differ("toolchain epoch", a.toolchain_epoch, b.toolchain_epoch),
              differ("device epoch", a.device_epoch, b.device_epoch)})
            if (error) return *error;
    }
    (void)diagnostics;
    return identity;
}

}  // namespace ptune::ciresult
