#pragma once
// alpha's own private header: allowed.
