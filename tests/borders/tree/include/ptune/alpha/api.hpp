#pragma once
// alpha public header.
