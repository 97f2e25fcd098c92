// history_synth: writes a synthetic performance history as CI-style logs, one file per run
// (DIR/run-00001.log ...), for `ptune history` tests and the scale benchmark.
//
//   history_synth --runs N [--from R] [--to T] [--out DIR] [--current FILE] [--rounds R] [--seed S]
//   [--no-raw]
//                 [--cases K] [--base US] [--noise PCT] [--step-fraction F]
//                 [--case NAME]... [--noise-of NAME=PCT]... [--step NAME=RUN:PCT]...
//                 [--extra NAME=PCT]...
//
// Cases are the --case names, else `case-0000`.. `case-<K-1>` (base effective_us `--base *
// (1 + k % 7 / 10)`); --step-fraction F gives that share of the generic cases a +5 % step at a
// run of their own. Every case has run-to-run noise uniform in ±--noise % (--noise-of for one
// case). --current FILE writes run N+1, where a case named by --extra is exactly PCT % above
// its level (no run noise) and the others are at their level. --from R --to T write only runs R..T
// (a long history in slices). Same arguments, same bytes.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "history_synth.hpp"
#include "ptune/core/text.hpp"

namespace {

int usage(const std::string& problem) {
    std::cerr << "history_synth: " << problem
              << "\nusage: history_synth --runs N [--from R] [--to T] [--out DIR] [--current FILE] "
                 "[--rounds R] "
                 "[--seed S] [--no-raw] [--cases K] [--base US] [--noise PCT] "
                 "[--step-fraction F] [--case NAME]... [--noise-of NAME=PCT]... "
                 "[--step NAME=RUN:PCT]... [--extra NAME=PCT]...\n";
    return 2;
}

bool split(const std::string& text, std::string& name, std::string& value) {
    const auto eq = text.rfind('=');
    if (eq == std::string::npos || eq == 0) return false;
    name = text.substr(0, eq);
    value = text.substr(eq + 1);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    using ptune::text::parse_double;
    std::size_t runs = 0, rounds = 20, count = 0, from = 1, to = 0;
    std::uint64_t seed = 1;
    double base = 500.0, noise = 0.5, step_fraction = 0.0;
    bool raw = true;
    std::string out_dir, current;
    std::vector<std::string> names;
    std::map<std::string, double> noise_of, extra;
    std::map<std::string, std::pair<std::size_t, double>> steps;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--no-raw") {
            raw = false;
            continue;
        }
        if (i + 1 >= argc) return usage("missing value after " + arg);
        const std::string value = argv[++i];
        std::string name, rest;
        const auto number = parse_double(value);
        if (arg == "--out") {
            out_dir = value;
        } else if (arg == "--current") {
            current = value;
        } else if (arg == "--case") {
            names.push_back(value);
        } else if (arg == "--from" || arg == "--to") {
            if (!number || *number < 1) return usage("expected a run number after " + arg);
            (arg == "--from" ? from : to) = static_cast<std::size_t>(*number);
        } else if (arg == "--runs" || arg == "--rounds" || arg == "--cases" || arg == "--seed") {
            if (!number || *number < 0) return usage("expected a count after " + arg);
            const auto n = static_cast<std::size_t>(*number);
            if (arg == "--seed")
                seed = n;
            else
                (arg == "--runs" ? runs : arg == "--rounds" ? rounds : count) = n;
        } else if (arg == "--base" || arg == "--noise" || arg == "--step-fraction") {
            if (!number) return usage("expected a number after " + arg);
            (arg == "--base" ? base : arg == "--noise" ? noise : step_fraction) = *number;
        } else if (arg == "--noise-of" || arg == "--extra") {
            auto parsed = split(value, name, rest) ? parse_double(rest) : std::nullopt;
            if (!parsed) return usage("expected NAME=PCT after " + arg);
            (arg == "--noise-of" ? noise_of : extra)[name] = *parsed;
        } else if (arg == "--step") {
            const auto colon = value.rfind(':');
            if (!split(value.substr(0, colon == std::string::npos ? 0 : colon), name, rest) ||
                colon == std::string::npos)
                return usage("expected NAME=RUN:PCT after --step");
            auto run = parse_double(rest);
            auto pct = parse_double(value.substr(colon + 1));
            if (!run || !pct || *run < 1) return usage("expected NAME=RUN:PCT after --step");
            steps[name] = {static_cast<std::size_t>(*run), *pct};
        } else {
            return usage("unknown argument " + arg);
        }
    }
    if (runs == 0 || (out_dir.empty() && current.empty()))
        return usage("--runs and --out or --current are required");
    if (names.empty()) {
        for (std::size_t k = 0; k < count; ++k) names.push_back(fmt::format("case-{:04d}", k));
    }
    if (names.empty()) return usage("no case: give --cases or --case");
    std::vector<ptune::history::synth::CaseSpec> cases;
    std::vector<double> extras;
    for (std::size_t k = 0; k < names.size(); ++k) {
        ptune::history::synth::CaseSpec c;
        c.name = names[k];
        c.base_us = base * (1.0 + static_cast<double>(k % 7) / 10.0);
        c.noise_pct = noise_of.count(c.name) ? noise_of[c.name] : noise;
        if (auto it = steps.find(c.name); it != steps.end()) {
            c.step_run = it->second.first;
            c.step_pct = it->second.second;
        } else if (step_fraction > 0 && static_cast<double>(k % 1000) < step_fraction * 1000.0) {
            c.step_run = 1 + (k * 7919) % runs;
            c.step_pct = 5.0;
        }
        cases.push_back(c);
        extras.push_back(extra.count(c.name) ? extra[c.name] : 0.0);
    }
    if (!out_dir.empty()) {
        std::filesystem::create_directories(out_dir);
        for (std::size_t run = from; run <= (to == 0 ? runs : std::min(to, runs)); ++run) {
            std::ofstream file(fmt::format("{}/run-{:05d}.log", out_dir, run));
            ptune::history::synth::write_run(file, cases, run, rounds, seed, raw);
            if (!file) return usage("cannot write to " + out_dir);
        }
    }
    if (!current.empty()) {
        std::ofstream file(current);
        ptune::history::synth::write_run(file, cases, runs + 1, rounds, seed, raw, extras);
        if (!file) return usage("cannot write " + current);
    }
    return 0;
}
