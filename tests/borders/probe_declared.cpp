// The control: with the same include path, pmu's own and its dependencies' headers compile.
#include "ptune/pmu/analyzer.hpp"
#include "ptune/rules/engine.hpp"
