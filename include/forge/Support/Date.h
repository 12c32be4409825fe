//===- Support/Date.h - Dates for reports and databases ---------*- C++ -*-===//
#ifndef FORGE_SUPPORT_DATE_H
#define FORGE_SUPPORT_DATE_H

#include <string>

namespace forge {

/// Today's date in UTC, ISO style ("2026-11-29").
std::string todayUtc();

/// Now, UTC, to the second: "2026-12-01T10:20:30Z".
std::string nowUtc();

} // namespace forge

#endif
