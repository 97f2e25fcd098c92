#pragma once
// A public header reaching a sibling domain's public header by a relative path.
#include "../gamma/api.hpp"
