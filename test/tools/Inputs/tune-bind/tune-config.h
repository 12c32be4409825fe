// The project's tuning constants, in a header of its own.
#pragma once
#define SUM_BLOCK 256
constexpr int kSumItems = 4;
