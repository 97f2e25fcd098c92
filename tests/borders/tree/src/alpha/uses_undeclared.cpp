// A source of domain alpha including the public header of gamma, which alpha does not declare.
#include <string>

#include "ptune/alpha/api.hpp"
#include "ptune/gamma/api.hpp"
