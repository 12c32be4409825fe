// Shared by the reductions of this library.
#pragma once

constexpr int kWarpSize = 32;
constexpr int kReduceBlock = 256;
