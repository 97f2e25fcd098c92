#pragma once
// beta's private header.
