#include "cli/loop_options.hpp"

#include "cli/safety.hpp"

namespace ptune::cli {

void LoopOptions::add_to(CLI::App& app) {
    warmup_option_ = app.add_option("--warmup", warmup_,
                                    "[STRACE] and device-log recomputation: warmup launches "
                                    "dropped (default: from the log, else inferred, else 5)")
                         ->check(non_negative_number());
    rounds_option_ = app.add_option("--rounds", rounds_,
                                    "[STRACE] recomputation: measured rounds (default: from "
                                    "the log, else inferred, else 100)")
                         ->check(positive_number());
    app.add_flag("--distributed", distributed_,
                 "[STRACE] recomputation: L3 multi-card run (default: detected)");
    app.add_flag("--resident", resident_,
                 "[STRACE] recomputation: L3 resident path (implies --distributed)");
    kernel_option_ = app.add_option("--kernel", kernel_,
                                    "[STRACE] recomputation: kernel name for the L3 context line");
}

void LoopOptions::apply(bench::StraceOptions& strace) const {
    if (warmup_option_->count() > 0) strace.warmup = warmup_;
    if (rounds_option_->count() > 0) strace.rounds = rounds_;
    if (distributed_ || resident_) strace.distributed = true;
    if (resident_) strace.resident = true;
    if (kernel_option_->count() > 0) strace.kernel = kernel_;
}

}  // namespace ptune::cli
