#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/pmu/analyzer.hpp"
#include "ptune/pmu/parser.hpp"
#include "ptune/pmu/report.hpp"
#include "ptune/rules/engine.hpp"

namespace pmu_analyzer_test {

using namespace ptune;
using namespace ptune::pmu;
using nlohmann::json;

namespace {

std::string data(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/" + name;
}

struct Loaded {
    PmuTable table;
    Analysis analysis;
    Diagnostics diagnostics;
};

Loaded load(const std::string& csv, bool named = true, AnalyzeOptions options = {}) {
    Loaded loaded;
    auto text = io::read_file(data("pmu/" + csv));
    REQUIRE(text.ok());
    auto table = parse_pmu_csv(std::string_view(*text), csv, loaded.diagnostics);
    REQUIRE(table.ok());
    loaded.table = std::move(*table);
    KernelNames names;
    if (named) {
        auto read = load_kernel_names(
            data("kernel-map/composed__kernel_config_KERNELS_excerpt.txt"), loaded.diagnostics);
        REQUIRE(read.ok());
        names = std::move(*read);
    }
    loaded.analysis = analyze(loaded.table, names, options, loaded.diagnostics);
    return loaded;
}

json expected(const std::string& name) {
    auto text = io::read_file(data("pmu/" + name));
    REQUIRE(text.ok());
    return json::parse(*text);
}

const KernelSummary& kernel(const Analysis& analysis, std::uint32_t func_id) {
    for (const auto& k : analysis.kernels) {
        if (k.func_id == func_id) return k;
    }
    FAIL("no kernel " << func_id);
    return analysis.kernels.front();
}

std::vector<std::string> fired(const Loaded& loaded, const std::string& subject) {
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    rules::MetricStore store;
    publish_metrics(loaded.table, loaded.analysis, store);
    std::vector<std::string> ids;
    for (const auto& finding : rules::evaluate(*catalogue, store, {"pmu."})) {
        if (finding.subject.name == subject) ids.push_back(finding.rule);
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

}  // namespace

TEST_CASE("a2a3 PIPE fixture: every row matches the expected metrics", "[pmu][analyzer]") {
    Loaded loaded = load("composed__a2a3_event2_pipe_utilization.pmu.csv");
    json want = expected("composed__a2a3_event2_pipe_utilization.expected.json");
    render::Report report = build_report(loaded.table, loaded.analysis, {}, {});
    json got = report.data;
    got["rows"] = rows_json(loaded.table, loaded.analysis);
    CHECK(got["arch"] == want["arch"]);
    CHECK(got["event_type"] == want["event_type"]);
    REQUIRE(got["rows"].size() == want["rows"].size());
    for (std::size_t i = 0; i < want["rows"].size(); ++i) {
        const json& w = want["rows"][i];
        const json& g = got["rows"][i];
        INFO("row " << i);
        for (const char* key :
             {"thread_id", "core_id", "task_id", "ring_id", "local_id", "func_id", "func_name",
              "core_type", "total_cycles", "bottleneck_pipe", "icache_miss_rate"}) {
            INFO(key);
            CHECK(g[key] == w[key]);
        }
        CHECK(g["ratios"] == w["ratio"]);
        CHECK(g["bound_ratio"] == w["seed_bound_ratio"]);
        CHECK(g["bound_formula"] == w["seed_bound_formula"]);
        if (w.contains("seed_bound_ratio_with_mte3")) {
            CHECK(g["bound_ratio_with_mte3"] == w["seed_bound_ratio_with_mte3"]);
        } else {
            CHECK_FALSE(g.contains("bound_ratio_with_mte3"));
        }
    }
    REQUIRE(got["kernels"].size() == want["per_func"].size());
    for (const json& k : got["kernels"]) {
        const json& w = want["per_func"][std::to_string(k["func_id"].get<int>())];
        INFO("func " << k["func_id"]);
        CHECK(k["name"] == w["func_name"]);
        CHECK(k["core_type"] == w["core_type"]);
        CHECK(k["rows"] == w["rows"]);
        CHECK(k["tasks"] == w["distinct_task_ids"]);
        CHECK(k["total_cycles"] == w["sum_total_cycles"]);
        CHECK(k["mean_total_cycles"] == w["mean_total_cycles_per_row"]);
        CHECK(k["ratios"] == w["weighted_ratio"]);
        CHECK(k["bound_ratio"] == w["weighted_seed_bound_ratio"]);
    }
}

TEST_CASE("a2a3 PIPE fixture: SPMD spread, mixed tasks and order", "[pmu][analyzer]") {
    Loaded loaded = load("composed__a2a3_event2_pipe_utilization.pmu.csv");
    const Analysis& a = loaded.analysis;
    CHECK(loaded.diagnostics.empty());
    CHECK(a.tasks == 4);
    CHECK(a.cores == 8);
    CHECK(a.mixed_tasks == 2);
    CHECK(a.total_cycles == 368384);
    CHECK_FALSE(a.all_zero);
    // Largest Σtotal first.
    CHECK(a.kernels[0].name == "qkv_proj_aic");
    CHECK(a.kernels[1].name == "rope_aiv");
    const KernelSummary& rms = kernel(a, 0);  // 2-block SPMD
    REQUIRE(rms.bound_spread);
    CHECK(rms.bound_spread->min == Approx(18022.0 / 20480));
    CHECK(rms.bound_spread->max == Approx(18500.0 / 20992));
    CHECK(rms.bound_spread->median == Approx((18022.0 / 20480 + 18500.0 / 20992) / 2));
    CHECK(rms.cores == 2);
    CHECK(rms.mixed_with.empty());
    const KernelSummary& aiv = kernel(a, 2);
    REQUIRE(aiv.mixed_with == std::vector<std::uint32_t>{1});
    CHECK(kernel(a, 1).mixed_with == std::vector<std::uint32_t>{2});
    REQUIRE(aiv.partner_bound_ratio);
    CHECK(*aiv.partner_bound_ratio == Approx(141680.0 / 182272));
    CHECK(aiv.weighted.bottleneck == Pipe::Mte3);
    CHECK(*aiv.weighted.bound_ratio_with_mte3 == Approx(24578.0 / 62208));
    CHECK_FALSE(aiv.weighted.ratio_of(Pipe::Fixpipe).has_value());  // a2a3 has no fixpipe counter
}

TEST_CASE("a2a3 PIPE fixture: classification by the pmu rules", "[pmu][rules]") {
    Loaded loaded = load("composed__a2a3_event2_pipe_utilization.pmu.csv");
    // qkv_proj_aic: mte2 77.8 % is the argmax and >= 0.7, B 0.777 < 0.8 but mte2 >= 0.7 (no P4).
    CHECK(fired(loaded, "qkv_proj_aic") == std::vector<std::string>{"pmu.mte2-bound"});
    CHECK(fired(loaded, "rms_norm_aiv") == std::vector<std::string>{"pmu.mte2-bound"});
    CHECK(fired(loaded, "rope_aiv") == std::vector<std::string>{"pmu.compute-bound"});
    // The AIV half of the mixed task: mte3 exceeds mte2 and vec; its AIC partner is below 0.8
    // too, so the pair is latency-bound (P8 → P4) rather than an expected wait.
    CHECK(fired(loaded, "qkv_proj_aiv") ==
          std::vector<std::string>{"pmu.latency-bound", "pmu.store-bound"});
}

TEST_CASE("a5 PIPE: fixpipe, mte1, scalar and icache rules", "[pmu][rules]") {
    Loaded loaded = load("composed__a5_event2_pipe_utilization.pmu.csv", false);
    const Analysis& a = loaded.analysis;
    const KernelSummary& matmul = kernel(a, 0);
    CHECK(matmul.name == "func_0");
    CHECK(*matmul.weighted.ratio_of(Pipe::Cube) == Approx(188000.0 / 200000));
    CHECK(*matmul.weighted.ratio_of(Pipe::Fixpipe) == Approx(71000.0 / 200000));
    CHECK(*matmul.weighted.icache_miss_rate == Approx(22.0 / 2000));  // icache_req is first on a5
    CHECK(matmul.weighted.bottleneck == Pipe::Cube);
    // func_0 holds 69 % of the cycles in one (2-block) task: also the long-tail proxy.
    CHECK(fired(loaded, "func_0") ==
          std::vector<std::string>{"pmu.compute-bound", "pmu.fixpipe-drain", "pmu.long-tail"});
    CHECK(fired(loaded, "func_1") ==
          std::vector<std::string>{"pmu.icache-pressure", "pmu.latency-bound", "pmu.scalar-heavy"});
    CHECK(fired(loaded, "func_2") == std::vector<std::string>{"pmu.mte1-bound"});
}

TEST_CASE("a clock gives microseconds per task and rule P9", "[pmu][rules]") {
    AnalyzeOptions options;
    options.aicore_mhz = 1800;
    Loaded loaded = load("composed__a2a3_event2_pipe_utilization.pmu.csv", true, options);
    CHECK(*kernel(loaded.analysis, 1).median_task_us == Approx(91136.0 / 1800));
    // 91136 cycles at 1800 MHz = 50.6 us: not small; rms_norm 20736 cycles = 11.5 us: small.
    auto aic = fired(loaded, "qkv_proj_aic");
    CHECK(std::find(aic.begin(), aic.end(), "pmu.small-kernels") == aic.end());
    auto rms = fired(loaded, "rms_norm_aiv");
    CHECK(std::find(rms.begin(), rms.end(), "pmu.small-kernels") != rms.end());
}

TEST_CASE("all-zero simulator files give undefined ratios, never 0 %", "[pmu][analyzer]") {
    Loaded loaded = load("composed__a5sim_all_zero.pmu.csv", false);
    const Analysis& a = loaded.analysis;
    CHECK(a.all_zero);
    for (std::size_t i = 0; i < loaded.table.rows.size(); ++i) {
        PipeMetrics row = row_metrics(loaded.table, i);
        CHECK_FALSE(row.bound_ratio.has_value());
        CHECK_FALSE(row.bottleneck.has_value());
        CHECK_FALSE(row.ratio_of(Pipe::Cube).has_value());
        CHECK_FALSE(row.icache_miss_rate.has_value());
    }
    CHECK_FALSE(a.kernels[0].weighted.bound_ratio.has_value());
    CHECK_FALSE(a.kernels[0].bound_spread.has_value());
    CHECK(fired(loaded, "run") == std::vector<std::string>{"pmu.no-data"});
    CHECK(fired(loaded, "func_0").empty());
    json rows = rows_json(loaded.table, loaded.analysis);
    CHECK(rows[0]["bound_ratio"].is_null());
    CHECK(rows[0]["ratios"]["cube"].is_null());
}

TEST_CASE("busy cycles above the total are clamped and flagged", "[pmu][analyzer]") {
    Diagnostics diagnostics;
    auto text = io::read_file(data("pmu/composed__a2a3_bad_rows.pmu.csv"));
    REQUIRE(text.ok());
    auto table = parse_pmu_csv(std::string_view(*text), "bad.csv", diagnostics);
    REQUIRE(table.ok());
    Diagnostics analysis_diagnostics;
    Analysis a = analyze(*table, KernelNames{}, {}, analysis_diagnostics);
    REQUIRE(table->rows.size() == 2);
    PipeMetrics clamped = row_metrics(*table, 1);
    CHECK(clamped.clamped);
    CHECK(*clamped.ratio_of(Pipe::Mte2) == 1.0);
    CHECK(*clamped.bound_ratio == 1.0);
    CHECK_FALSE(row_metrics(*table, 0).clamped);
    REQUIRE(analysis_diagnostics.items().size() == 1);
    CHECK(analysis_diagnostics.items()[0].line == 7);
    // The kernel sum caps the bad row's busy at its total: (18022 + 10000) / (20480 + 10000).
    CHECK(*a.kernels[0].weighted.ratio_of(Pipe::Mte2) == Approx(28022.0 / 30480));
}

TEST_CASE("MEMORY group: raw counters, no bound ratio", "[pmu][analyzer]") {
    Loaded loaded = load("composed__a2a3_event4_memory.pmu.csv");
    json want = expected("composed__a2a3_event4_memory.expected.json");
    render::Report report = build_report(loaded.table, loaded.analysis, {}, {});
    json got = report.data;
    got["rows"] = rows_json(loaded.table, loaded.analysis);
    CHECK(got["event_type"] == 4);
    CHECK(got["event_name"] == "MEMORY");
    REQUIRE(got["rows"].size() == 1);
    const json& w = want["rows"][0];
    const json& g = got["rows"][0];
    for (const auto& [key, value] : w.items()) {
        INFO(key);
        if (key == "core_type")
            CHECK(g["core_type"] == (value == 1 ? "AIV" : "AIC"));
        else if (key == "pmu_total_cycles")
            CHECK(g["total_cycles"] == value);
        else if (g.contains(key))
            CHECK(g[key] == value);
        else
            CHECK(g["counters"][key] == value);
    }
    CHECK(g["bound_ratio"].is_null());
    CHECK(g["bottleneck_pipe"].is_null());
    CHECK(g["ratios"].empty());
    CHECK(got["kernels"][0]["counters"]["ub_read_req"] == 1536);
    CHECK(fired(loaded, "rms_norm_aiv").empty());
}

TEST_CASE("the AIV half of a mixed task is judged by its AIC partner (P8, not P4)",
          "[pmu][rules]") {
    Loaded loaded;
    auto table = parse_pmu_csv(
        std::string_view(
            "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,vec_busy_cycles,"
            "cube_busy_cycles,scalar_busy_cycles,mte1_busy_cycles,mte2_busy_cycles,"
            "mte3_busy_cycles,icache_miss,icache_req,event_type\n"
            "0,0,0x0000000100000001,1,0,100000,0,90000,1000,20000,50000,0,1,100,2\n"
            "0,24,0x0000000100000001,2,1,50000,10000,0,1000,0,5000,5000,1,100,2\n"),
        "mixed.csv", loaded.diagnostics);
    REQUIRE(table.ok());
    loaded.table = std::move(*table);
    loaded.analysis = analyze(loaded.table, KernelNames{}, {}, loaded.diagnostics);
    CHECK(loaded.analysis.mixed_tasks == 1);
    CHECK(*kernel(loaded.analysis, 2).partner_bound_ratio == Approx(0.9));
    CHECK(fired(loaded, "func_2") == std::vector<std::string>{"pmu.mixed-aiv-wait"});
    CHECK(fired(loaded, "func_1") ==
          std::vector<std::string>{"pmu.compute-bound", "pmu.long-tail"});
}

}  // namespace pmu_analyzer_test
