// Synthetic histories (history_synth.hpp).

#include "history_synth.hpp"

#include "gate_synth.hpp"

namespace ptune::history::synth {

namespace {

std::uint64_t mix(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double step_factor(const CaseSpec& c, std::size_t run) {
    return c.step_run != 0 && run >= c.step_run ? 1.0 + c.step_pct / 100.0 : 1.0;
}

}  // namespace

double run_factor(const CaseSpec& c, std::size_t k, std::size_t run, std::uint64_t seed) {
    const std::uint64_t bits = mix(seed ^ mix(k * 0x100000001b3ULL ^ mix(run)));
    const double uniform = static_cast<double>(bits >> 11) * 0x1.0p-53;  // [0, 1)
    return step_factor(c, run) * (1.0 + c.noise_pct / 100.0 * (2.0 * uniform - 1.0));
}

std::vector<double> series(const CaseSpec& c, std::size_t k, std::size_t runs, std::uint64_t seed) {
    std::vector<double> values;
    for (std::size_t run = 1; run <= runs; ++run)
        values.push_back(c.base_us * run_factor(c, k, run, seed));
    return values;
}

void write_run(std::ostream& out, const std::vector<CaseSpec>& cases, std::size_t run,
               std::size_t rounds, std::uint64_t seed, bool raw,
               const std::vector<double>& extra_pct) {
    std::vector<gate::SynthCase> synth;
    for (std::size_t k = 0; k < cases.size(); ++k) {
        const auto& c = cases[k];
        const double factor = k < extra_pct.size()
                                  ? step_factor(c, run) * (1.0 + extra_pct[k] / 100.0)
                                  : run_factor(c, k, run, seed);
        gate::SynthCase s;
        s.name = c.name;
        s.base_us = c.base_us;
        s.sigma = 0.005;
        s.shift_pct = (factor - 1.0) * 100.0;
        synth.push_back(s);
    }
    gate::write_synth_log(out, synth, rounds, seed * 1000003ULL + run, raw);
}

}  // namespace ptune::history::synth
