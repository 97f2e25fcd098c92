#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "ptune/render/report.hpp"
#include "ptune/rules/engine.hpp"
#include "ptune/rules/subject_rules.hpp"

namespace rules_test {

using namespace ptune;
using namespace ptune::rules;

namespace {
Catalogue catalogue_from(const char* json) {
    Catalogue catalogue;
    auto status = catalogue.merge_json(json, "test.json");
    INFO((status.ok() ? "" : status.error().to_string()));
    REQUIRE(status.ok());
    return catalogue;
}
}  // namespace

TEST_CASE("expressions use three-valued logic over metrics", "[rules]") {
    Subject subject;
    subject.metrics["mem.Mat.usage_pct"] = 104.0;
    subject.metrics["pmu.ratio.mte2"] = 0.8;
    subject.labels["pmu.bottleneck"] = "mte2";
    std::map<std::string, double> params{{"limit", 100}};
    auto eval = [&](const char* text) {
        auto compiled = compile_expression(text);
        INFO(text);
        REQUIRE(compiled.ok());
        return evaluate_expression(**compiled, subject, params);
    };
    CHECK(*eval("mem.Mat.usage_pct > $limit") == 1);
    CHECK_FALSE(eval("mem.Vec.usage_pct > $limit").has_value());
    CHECK(*eval("mem.Vec.usage_pct > 1 || mem.Mat.usage_pct > 1") == 1);
    CHECK(*eval("mem.Vec.usage_pct > 1 && mem.Mat.usage_pct < 1") == 0);
    CHECK(*eval("has(mem.Vec.usage_pct)") == 0);
    CHECK(*eval("max(pmu.ratio.mte2, 0.9) * 2") == Approx(1.8));
    CHECK(*eval("label(\"pmu.bottleneck\") == \"mte2\"") == 1);
    CHECK(*eval("!(1 > 2) && -1 < 0") == 1);
    CHECK_FALSE(eval("1 / 0").has_value());
    CHECK_FALSE(compile_expression("a >").ok());
    CHECK_FALSE(compile_expression("nosuch(1)").ok());
}

TEST_CASE("every operator, text comparisons and unknowns evaluate as specified", "[rules]") {
    // Numbers go without the text-or-number value since evaluation runs once per rule and
    // case of a sweep; what each operator gives, for text and for missing operands, stays.
    Subject subject;
    subject.metrics["m.two"] = 2.0;
    subject.metrics["m.zero"] = 0.0;
    subject.labels["l.kind"] = "mte2";
    std::map<std::string, double> params{{"three", 3}};
    auto eval = [&](const char* text) {
        auto compiled = compile_expression(text);
        INFO(text);
        REQUIRE(compiled.ok());
        return evaluate_expression(**compiled, subject, params);
    };
    const std::vector<std::pair<const char*, std::optional<double>>> expected = {
        {"m.two < $three", 1},
        {"m.two <= 2", 1},
        {"m.two > 2", 0},
        {"m.two >= 2", 1},
        {"m.two == 2", 1},
        {"m.two != 2", 0},
        {"m.two + $three", 5},
        {"m.two - $three", -1},
        {"m.two * $three", 6},
        {"$three / m.two", 1.5},
        {"m.two / m.zero", std::nullopt},
        {"-m.two", -2},
        {"!m.zero", 1},
        {"!m.two", 0},
        {"abs(0 - m.two)", 2},
        {"min(m.two, $three)", 2},
        {"max(m.two, $three)", 3},
        {"has(m.two)", 1},
        {"has(m.none)", 0},
        {"m.none", std::nullopt},
        {"$none + 1", std::nullopt},
        {"-m.none", std::nullopt},
        {"abs(m.none)", std::nullopt},
        {"min(m.none, 1)", std::nullopt},
        {"max(1, m.none)", std::nullopt},
        // Kleene logic: a decided side wins over an unknown one, on either side.
        {"m.none > 1 && m.zero > 1", 0},
        {"m.zero > 1 && m.none > 1", 0},
        {"m.none > 1 || m.two > 1", 1},
        {"m.two > 1 || m.none > 1", 1},
        {"m.none > 1 && m.two > 1", std::nullopt},
        {"m.zero > 1 || m.none > 1", std::nullopt},
        {"m.two > 1 && $three > 1", 1},
        {"m.zero > 1 || m.zero < 0", 0},
        // Text compares by == and != only; text against a number is unequal; a missing label
        // is unknown; text is no number.
        {"label(\"l.kind\") == \"mte2\"", 1},
        {"label(\"l.kind\") != \"mte2\"", 0},
        {"\"mte2\" == label(\"l.kind\")", 1},
        {"label(\"l.kind\") == 2", 0},
        {"label(\"l.kind\") != 2", 1},
        {"label(\"l.none\") == \"x\"", std::nullopt},
        {"label(\"l.none\") != \"x\"", std::nullopt},
        {"label(\"l.kind\") < \"z\"", std::nullopt},
        {"label(\"l.kind\") + 1", std::nullopt},
        {"label(\"l.kind\")", std::nullopt},
        {"\"x\"", std::nullopt},
        {"!label(\"l.kind\")", std::nullopt},
        {"label(\"l.kind\") == \"mte2\" && m.two > 1", 1},
        {"(label(\"l.kind\") == \"x\") + 1", 1},
    };
    for (const auto& [text, value] : expected) {
        INFO(text);
        CHECK(eval(text) == value);
    }
}

TEST_CASE("findings sort by severity, impact, rule and subject, ties in input order", "[rules]") {
    auto finding = [](RuleSeverity severity, std::optional<double> impact, std::string rule,
                      std::string subject, std::string message) {
        Finding f;
        f.severity = severity;
        f.impact = impact;
        f.rule = std::move(rule);
        f.subject = {"case", std::move(subject)};
        f.message = std::move(message);
        return f;
    };
    std::vector<Finding> findings = {
        finding(RuleSeverity::Info, std::nullopt, "b.x", "s1", "1"),
        finding(RuleSeverity::Warning, std::nullopt, "b.y", "s2", "2"),
        finding(RuleSeverity::Warning, 0.5, "b.z", "s1", "3"),
        finding(RuleSeverity::Warning, std::nullopt, "b.y", "s1", "4"),
        finding(RuleSeverity::Error, std::nullopt, "b.a", "s9", "5"),
        finding(RuleSeverity::Warning, std::nullopt, "b.y", "s1", "6"),
        finding(RuleSeverity::Warning, std::nullopt, "b.x", "s3", "7"),
        // Seen last, first by name: rules rank by their ids, not by where they first come.
        finding(RuleSeverity::Warning, std::nullopt, "b.w", "s1", "8"),
    };
    sort_findings(findings);
    std::string order;
    for (const Finding& f : findings) order += f.message;
    CHECK(order == "53874621");
    sort_findings(findings);  // already sorted: unchanged
    order.clear();
    for (const Finding& f : findings) order += f.message;
    CHECK(order == "53874621");
}

TEST_CASE("catalogue merges overrides and evaluates per subject", "[rules]") {
    Catalogue catalogue = catalogue_from(R"({"rules":[
      {"id":"mem.over-limit","catalogue":"M1","severity":"error","subject":"function",
       "condition":"mem.Mat.usage_pct > $limit_pct","params":{"limit_pct":100},
       "message":"{subject}: Mat at {mem.Mat.usage_pct:.1f}% of {$limit_pct}%","advice":"shrink"}]})");
    MetricStore store;
    store.set("function", "qk", "mem.Mat.usage_pct", 104.25);
    store.set("function", "sv", "mem.Mat.usage_pct", 60);
    store.set("kernel", "qk", "mem.Mat.usage_pct", 200);  // other kind: not evaluated
    auto findings = evaluate(catalogue, store);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].rule == "mem.over-limit");
    CHECK(findings[0].subject.name == "qk");
    CHECK(findings[0].message == "qk: Mat at 104.2% of 100%");
    CHECK(findings[0].evidence.at("mem.Mat.usage_pct") == 104.25);

    REQUIRE(catalogue
                .merge_json(R"({"rules":[{"id":"mem.over-limit","params":{"limit_pct":50}}]})",
                            "user.json")
                .ok());
    CHECK(evaluate(catalogue, store).size() == 2);
    REQUIRE(
        catalogue.merge_json(R"({"rules":[{"id":"mem.over-limit","enabled":false}]})", "user.json")
            .ok());
    CHECK(evaluate(catalogue, store).empty());
}

TEST_CASE("messages print their fields as fmt would, ties and signs included", "[rules]") {
    // `.Nf` takes a fast path; every number must come out as fmt's `{:.Nf}` (printf's exact
    // rounding, ties to even), percentages as `{:.Nf}%` of the value times 100.
    Catalogue catalogue = catalogue_from(R"({"rules":[
      {"id":"x.any","severity":"info","subject":"case","condition":"x == x",
       "message":"{subject}: {x:.1f} {x:.3f} {x:.0f} {r:.1%} {x:.2e} {x} {label:kind} {nope} {$p:.2f} {open"
       ,"params":{"p":2.345}}]})");
    const Rule& rule = *catalogue.find("x.any");
    for (double x : {0.05, 0.25, 2.5, 3.5, 1234.45, -0.0, -0.04, 0.125, 1e17, 123456789.125, 7.0,
                     -2.675, 1.0 / 3.0, 999.95, 0.0005}) {
        Subject subject;
        subject.key = {"case", "c"};
        subject.metrics["x"] = x;
        subject.metrics["r"] = x / 7;
        subject.labels["kind"] = "decode";
        const std::string whole = x == std::floor(x) && std::fabs(x) < 1e15
                                      ? fmt::format("{}", static_cast<long long>(x))
                                      : fmt::format("{:.4g}", x);
        INFO("x = " << x);
        CHECK(render_message(rule, subject) ==
              fmt::format("c: {:.1f} {:.3f} {:.0f} {:.1f}% {:.2e} {} decode ? 2.35 {{open", x, x, x,
                          x / 7 * 100.0, x, whole));
    }
}

TEST_CASE("bad rules files are rejected with the file named", "[rules]") {
    Catalogue catalogue;
    auto bad_json = catalogue.merge_json("{", "bad.json");
    REQUIRE_FALSE(bad_json.ok());
    CHECK(bad_json.error().file == "bad.json");
    auto missing_param =
        catalogue.merge_json(R"({"rules":[{"id":"x.y","condition":"a > $t"}]})", "p.json");
    REQUIRE_FALSE(missing_param.ok());
    CHECK(missing_param.error().message.find("$t") != std::string::npos);
    auto bad_severity = catalogue.merge_json(
        R"({"rules":[{"id":"x.y","condition":"a > 1","severity":"fatal"}]})", "s.json");
    REQUIRE_FALSE(bad_severity.ok());
}

TEST_CASE("the built-in catalogue compiles", "[rules]") {
    auto builtin = Catalogue::builtin();
    INFO((builtin.ok() ? "" : builtin.error().to_string()));
    REQUIRE(builtin.ok());
    for (const auto& rule : builtin->rules()) {
        CHECK(rule.id.find('.') != std::string::npos);
        CHECK_FALSE(rule.advice.empty());
        CHECK_FALSE(rule.title.empty());
    }
}

TEST_CASE("JSON output carries the envelope and findings", "[render]") {
    render::Report report;
    report.command = "demo";
    report.data["value"] = 3;
    Finding finding;
    finding.rule = "mem.over-limit";
    finding.message = "m";
    report.findings.push_back(finding);
    auto json = render::to_json(report);
    CHECK(json["tool"] == "ptune");
    CHECK(json["schema_version"] == 1);
    CHECK(json["command"] == "demo");
    CHECK(json["value"] == 3);
    CHECK(json["findings"][0]["rule"] == "mem.over-limit");
}

TEST_CASE("one exit policy: findings at or above the command's fail-on severity mean exit 1",
          "[rules]") {
    using rules::RuleSeverity;
    rules::Finding info, warning, error;
    info.severity = RuleSeverity::Info;
    warning.severity = RuleSeverity::Warning;
    error.severity = RuleSeverity::Error;
    CHECK_FALSE(rules::worst_severity({}));
    CHECK(*rules::worst_severity({info, error, warning}) == RuleSeverity::Error);
    const auto code = [](std::vector<rules::Finding> findings,
                         std::optional<RuleSeverity> fail_on) {
        return rules::findings_exit_code(rules::worst_severity(findings), fail_on);
    };
    CHECK(code({info}, RuleSeverity::Warning) == ExitCode::Ok);
    CHECK(code({info, warning}, RuleSeverity::Warning) == ExitCode::Findings);
    CHECK(code({warning}, RuleSeverity::Error) == ExitCode::Ok);  // bench-summary's threshold
    CHECK(code({error}, RuleSeverity::Error) == ExitCode::Findings);
    CHECK(code({info}, RuleSeverity::Info) == ExitCode::Findings);
    CHECK(code({error}, std::nullopt) == ExitCode::Ok);  // a report: findings never fail
    CHECK(code({}, RuleSeverity::Info) == ExitCode::Ok);
}

TEST_CASE("a slotted expression evaluates as the expression on a subject of the same metrics",
          "[rules]") {
    // The bench case screen reads a case's metrics by position (SlottedExpression): for every
    // subset of the metrics present and any values, each expression must give what
    // evaluate_expression gives on a subject with those metrics and no labels — missing metrics,
    // has(), Kleene and/or, parameters, metrics outside the names, a label (always missing).
    const std::array<std::string_view, 4> names = {"m.a", "m.b", "m.c", "m.d"};
    const std::map<std::string, double> params{{"limit", 1.5}};
    const std::vector<const char*> texts = {"m.a > $limit",
                                            "m.b >= 0 && m.c < 2",
                                            "m.a > 1 || m.d > 1",
                                            "has(m.c) && !has(m.d)",
                                            "max(m.a, m.b) * 2 - m.c / m.d",
                                            "m.a == m.a && m.e > 1",
                                            "abs(m.b) != 1 || m.e < 0",
                                            "label(\"kind\") == \"x\" || m.d > 0",
                                            "m.c > $missing",
                                            "1 > 0"};
    const std::vector<double> samples = {-2.0, 0.0, 1.0, 1.5, 3.0, std::nan("")};
    std::size_t checked = 0, unknown = 0;
    for (const char* text : texts) {
        auto compiled = compile_expression(text);
        REQUIRE(compiled.ok());
        const SlottedExpression slotted(*compiled, names);
        for (unsigned present = 0; present < 16; ++present) {
            for (std::size_t pick = 0; pick < 40; ++pick) {
                Subject subject;
                std::array<std::optional<double>, 4> values;
                for (std::size_t k = 0; k < names.size(); ++k) {
                    if (!(present & (1u << k))) continue;
                    values[k] = samples[(pick * 7 + k * 3 + present) % samples.size()];
                    subject.metrics[std::string(names[k])] = *values[k];
                }
                const auto expected = evaluate_expression(**compiled, subject, params);
                const auto got = slotted.evaluate(values, params);
                INFO(text << " present " << present << " pick " << pick);
                REQUIRE(got.has_value() == expected.has_value());
                if (expected && !std::isnan(*expected)) CHECK(*got == *expected);
                ++checked;
                unknown += !expected.has_value();
            }
        }
    }
    CHECK(unknown > 0);
    CHECK(unknown < checked);
}

}  // namespace rules_test
