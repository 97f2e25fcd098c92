// ciresult: the operator suite's manifest and case_contract, the request checks, measurement.json
// and report.md (upstream-2026-12.md §2.2-§2.11).

#include <string>

#include <catch2/catch.hpp>

#include "ptune/ciresult/inputs.hpp"
#include "ptune/ciresult/operator.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/sha256.hpp"

namespace ciresult_operator_test {

using namespace ptune;
using namespace ptune::ciresult;
using nlohmann::json;

namespace {

std::string data(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/ciresult/" + name;
}

std::string read(const std::string& name) {
    auto text = io::read_file(data(name));
    REQUIRE(text);
    return *text;
}

bool warned(const Diagnostics& diagnostics, const std::string& needle) {
    for (const auto& item : diagnostics.items()) {
        if (item.message.find(needle) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("core: SHA-256 of the FIPS 180-4 examples", "[core]") {
    CHECK(sha256::hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256::hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // 56 bytes: the padding needs a second block.
    CHECK(sha256::hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(sha256::hex(std::string(1000, 'a')) ==
          "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

TEST_CASE("ciresult: python_json_dumps writes what Python's json.dumps writes", "[ciresult]") {
    // Each expectation is Python 3's json.dumps(value, sort_keys=True).
    CHECK(python_json_dumps(json::parse("[1e16, 1e15, 1e-05, 0.0001, 100.0, -0.0, 0.1]")) ==
          "[1e+16, 1000000000000000.0, 1e-05, 0.0001, 100.0, -0.0, 0.1]");
    CHECK(python_json_dumps(json::parse("[123456789012345678.0, 1.5e-7, 2.5e300]")) ==
          "[1.2345678901234568e+17, 1.5e-07, 2.5e+300]");
    CHECK(python_json_dumps(json::parse(R"({"b": [], "a": {}, "c": [true, null, -3]})")) ==
          R"({"a": {}, "b": [], "c": [true, null, -3]})");
    CHECK(python_json_dumps(json("\xc3\xa9\x7f\xf0\x9f\x98\x80\"\\\n\x01")) ==
          R"("\u00e9\u007f\ud83d\ude00\"\\\n\u0001")");
}

TEST_CASE("ciresult: case_contract of §2.11 and a changed case", "[ciresult]") {
    auto manifest = parse_operator_manifest(read("suite-v2-published/operator_perf_cases.json"),
                                            "operator_perf_cases.json");
    REQUIRE(manifest);
    REQUIRE(manifest->cases.size() == 3);
    const json& attention = manifest->cases[manifest->case_index.at("demo-attention-8k")];
    CHECK(case_contract(*manifest, attention) ==
          "51b619abd3e9120a0d3d86fb44ee4dbd263e9ae4497ad16da84693255ed650fb");
    json changed = attention;
    changed["run_config"]["ring_heap"] = 2147483648;
    CHECK(case_contract(*manifest, changed) != case_contract(*manifest, attention));

    // A repeated case_id is an error naming its second line.
    std::string text = read("suite-raw-request/operator_perf_cases.json");
    const auto cases = text.find("\"cases\": [");
    REQUIRE(cases != std::string::npos);
    const auto open = text.find('{', cases);
    const auto close = text.rfind(']');
    const std::string one = text.substr(open, text.rfind('}', close) - open + 1);
    text.insert(close, ", " + one);
    auto twice = parse_operator_manifest(text, "m.json");
    REQUIRE_FALSE(twice);
    CHECK(twice.error().message.find("appears twice") != std::string::npos);
    CHECK(twice.error().line > 1);
}

TEST_CASE("ciresult: the request checks of §2.4 in validate_result's order", "[ciresult]") {
    auto manifest =
        parse_operator_manifest(read("suite-raw-request/operator_perf_cases.json"), "m.json");
    REQUIRE(manifest);
    const json& request = manifest->cases.front();
    json raw = json::parse(read("suite-raw/demo-attention-8k/raw-result.json"));
    CHECK_FALSE(request_violation(raw, request));

    json other = raw;
    other["case_id"] = "demo-attention-128k";
    CHECK(*request_violation(other, request) == "case_id is not the requested demo-attention-8k");
    other = raw;
    other["sampling"]["rounds"] = 50;
    CHECK(*request_violation(other, request) ==
          "sampling is not the requested one (rounds 50, requested 100)");
    other = raw;
    other["run_config"].erase("ring_dep_pool");
    CHECK(*request_violation(other, request) ==
          "run_config is not the requested one (ring_dep_pool missing, requested 16384)");
    other = raw;
    other["specs"][0]["dtype"] = "torch.bfloat16";
    CHECK(request_violation(other, request)->starts_with("required spec x_out is not shape"));
    other = raw;
    other["specs"][0]["direction"] = "in";
    CHECK(*request_violation(other, request) == "required output x_out is not an out/inout spec");
    other = raw;
    other["specs"] = json::array();
    CHECK(*request_violation(other, request) == "required spec x_out missing");

    // validate_suite_raw: a request violation comes before the grid checks, and makes the case
    // fail with no number.
    other = raw;
    other["run_config"]["ring_heap"] = 1;
    auto c = validate_suite_raw(other.dump(), "raw-result.json", &request);
    REQUIRE(c);
    CHECK(c->status == "fail");
    CHECK_FALSE(c->metric_us);
    CHECK(c->error.starts_with("run_config is not the requested one"));
    // Without the manifest the same file passes.
    auto unchecked = validate_suite_raw(other.dump(), "raw-result.json");
    REQUIRE(unchecked);
    CHECK(unchecked->status == "pass");
}

TEST_CASE("ciresult: measurement.json alone and a work/ folder", "[ciresult]") {
    Diagnostics d;
    auto fault = load_suite(data("suite-work/work/demo-moe-8k/measurement.json"), d);
    REQUIRE(fault);
    REQUIRE(fault->cases.size() == 1);
    CHECK(fault->cases[0].status == "device_fault");
    CHECK(fault->cases[0].error == "run.log: rtStreamSynchronize failed: 507035");
    CHECK(warned(d, "safe_to_continue false"));
    CHECK(to_bench_cases(*fault).front().status == "fail");

    Diagnostics w;
    CHECK(classify(data("suite-work/work")) == InputKind::SuiteWork);
    CHECK(classify(data("suite-work")) == InputKind::SuiteWork);
    auto work = load_suite(data("suite-work"), w);
    REQUIRE(work);
    REQUIRE(work->cases.size() == 3);
    CHECK(work->cases[0].case_id == "demo-attention-8k");
    CHECK(work->cases[0].metric_us == 107.5);
    CHECK(work->cases[1].status == "interrupted");
    CHECK(work->cases[2].source.ends_with("demo-moe-8k/measurement.json"));
    const auto cases = to_bench_cases(*work);
    REQUIRE(cases.size() == 3);
    CHECK(cases[0].status == "pass");
    CHECK(cases[0].blocks.front().effective_us->median == 107.5);
    CHECK(cases[1].status == "fail");
}

TEST_CASE("ciresult: the operator report.md, alone and against its suite-result.json",
          "[ciresult]") {
    Diagnostics d;
    auto report = parse_operator_report(read("suite-v2-published/report.md"), "report.md", d);
    REQUIRE(report);
    CHECK(d.items().empty());
    CHECK(report->logical_date == "2026-12-04");
    CHECK(report->variant == "CI");
    CHECK(report->run_id == "20261204T020000Z-5e6f7a8b");
    CHECK(report->status == "incomplete");
    REQUIRE(report->rows.size() == 3);
    CHECK(report->rows[0].metric == "107.50");
    CHECK(report->rows[0].previous == "+2.38%");
    CHECK(report->rows[2].measurement == "shared: demo-moe-8k");
    CHECK(report->errors.at("demo-moe-8k") == "case wall limit 1800 s exceeded");
    CHECK_FALSE(report->errors.contains("suite"));  // a CI execution line, not a case

    const SuiteResult values = suite_of_report(*report);
    CHECK(values.v2);
    REQUIRE(values.cases.size() == 3);
    CHECK(values.cases[0].metric_us == 107.5);
    CHECK_FALSE(values.cases[1].metric_us);  // N/A is no number
    CHECK(values.cases[2].shared_measurement);
    const auto bench = to_bench_cases(values);
    REQUIRE(bench.size() == 2);  // the shared row is not an independent sample
    CHECK(bench[0].blocks.front().effective_us->mean_only);

    Diagnostics same;
    auto suite = load_suite(data("suite-v2-published"), same);
    REQUIRE(suite);
    CHECK(same.items().empty());  // report, manifest and suite agree
    CHECK(cross_check_operator_report(*report, *suite, same) == 0);

    Diagnostics drift;
    auto drifted = load_suite(data("suite-v2-drift"), drift);
    REQUIRE(drifted);
    CHECK(warned(drift, "us 107.99 here, 107.50 in"));
    CHECK(warned(drift, "us cell '1,5' is neither a decimal nor N/A"));
    CHECK(warned(drift, "case_contract 51b619abd3e9 is not"));

    Diagnostics none;
    CHECK_FALSE(parse_operator_report("Operator performance: 2026-12-04 (CI)\nno table\n",
                                      "report.md", none));
}

}  // namespace ciresult_operator_test
