#pragma once
// beta public header.
