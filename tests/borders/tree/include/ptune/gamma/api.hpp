#pragma once
// gamma public header.
