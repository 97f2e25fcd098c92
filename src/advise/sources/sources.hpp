#pragma once
// The makers of the sources in the table (source_table.cpp), one per file of this folder.

#include <memory>

#include "ptune/advise/source.hpp"

namespace ptune::advise {

std::unique_ptr<Source> make_bench_source();
std::unique_ptr<Source> make_swimlane_source();
std::unique_ptr<Source> make_memory_source();
std::unique_ptr<Source> make_pmu_source();
std::unique_ptr<Source> make_hints_source();
std::unique_ptr<Source> make_host_source();
std::unique_ptr<Source> make_scope_source();
std::unique_ptr<Source> make_pipetrace_source();
std::unique_ptr<Source> make_serving_source();
std::unique_ptr<Source> make_build_source();

}  // namespace ptune::advise
