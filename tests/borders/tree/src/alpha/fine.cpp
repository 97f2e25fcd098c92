// Includes that respect the borders: alpha's own private and public headers.
#include "own_private.hpp"
#include "ptune/alpha/api.hpp"
