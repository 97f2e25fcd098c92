// bench_gate_synth: writes one synthetic benchmark run as a CI-style log (`::group::<case>`
// sections with `[RUN]` headline and raw-sample lines) for bench-gate tests and benchmarks.
//
//   bench_gate_synth [--cases N] [--rounds R] [--seed S] [--sigma X] [--base US] [--no-raw]
//                    [--case NAME]... [--shift NAME=PCT]... [--outliers NAME=K]...
//
// Cases are the --case names, else `case-0000`.. `case-<N-1>`; case k has base effective_us
// `--base * (1 + k % 7 / 10)` so the suite spans several magnitudes. Same arguments, same bytes.

#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gate_synth.hpp"
#include "ptune/core/text.hpp"

namespace {

int usage(const std::string& problem) {
    std::cerr
        << "bench_gate_synth: " << problem
        << "\nusage: bench_gate_synth [--cases N] [--rounds R] [--seed S] [--sigma X] [--base US] "
           "[--no-raw] [--case NAME]... [--shift NAME=PCT]... [--outliers NAME=K]...\n";
    return 2;
}

bool split_assignment(const std::string& text, std::string& name, double& value) {
    const auto eq = text.rfind('=');
    if (eq == std::string::npos || eq == 0) return false;
    auto parsed = ptune::text::parse_double(std::string_view(text).substr(eq + 1));
    if (!parsed) return false;
    name = text.substr(0, eq);
    value = *parsed;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t count = 0, rounds = 100;
    std::uint64_t seed = 1;
    double sigma = 0.01, base = 500.0;
    bool raw = true;
    std::vector<std::string> names;
    std::map<std::string, double> shifts, outliers;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        const auto number = [&](double& out) {
            auto parsed = has_value ? ptune::text::parse_double(argv[++i]) : std::nullopt;
            if (!parsed) return false;
            out = *parsed;
            return true;
        };
        double value = 0.0;
        std::string name;
        if (arg == "--no-raw") {
            raw = false;
        } else if (arg == "--case" && has_value) {
            names.emplace_back(argv[++i]);
        } else if ((arg == "--shift" || arg == "--outliers") && has_value) {
            if (!split_assignment(argv[++i], name, value))
                return usage("expected NAME=NUMBER after " + arg);
            (arg == "--shift" ? shifts : outliers)[name] = value;
        } else if (arg == "--cases" || arg == "--rounds" || arg == "--seed") {
            if (!number(value) || value < 0)
                return usage("expected a non-negative number after " + arg);
            if (arg == "--seed")
                seed = static_cast<std::uint64_t>(value);
            else
                (arg == "--cases" ? count : rounds) = static_cast<std::size_t>(value);
        } else if (arg == "--sigma" || arg == "--base") {
            if (!number(arg == "--sigma" ? sigma : base))
                return usage("expected a number after " + arg);
        } else {
            return usage("unknown argument " + arg);
        }
    }
    if (names.empty()) {
        if (count == 0) count = 1;
        for (std::size_t k = 0; k < count; ++k) names.push_back(fmt::format("case-{:04}", k));
    }
    std::vector<ptune::gate::SynthCase> cases;
    for (std::size_t k = 0; k < names.size(); ++k) {
        ptune::gate::SynthCase c;
        c.name = names[k];
        c.base_us = base * (1.0 + static_cast<double>(k % 7) / 10.0);
        c.sigma = sigma;
        if (auto it = shifts.find(c.name); it != shifts.end()) c.shift_pct = it->second;
        if (auto it = outliers.find(c.name); it != outliers.end())
            c.outliers = static_cast<std::size_t>(it->second);
        cases.push_back(c);
    }
    std::ios::sync_with_stdio(false);
    ptune::gate::write_synth_log(std::cout, cases, rounds, seed, raw);
    return std::cout.good() ? 0 : 1;
}
