// beta declares alpha: allowed.
#include "private.hpp"
#include "ptune/alpha/api.hpp"
#include "ptune/beta/api.hpp"
