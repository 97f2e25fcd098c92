// A source of domain alpha reaching into beta's private header.
#include "../beta/private.hpp"
