//===- Date.cpp - Dates for reports and databases -------------------------===//
#include "forge/Support/Date.h"
#include <ctime>

std::string forge::todayUtc() {
  std::time_t T = std::time(nullptr);
  std::tm Utc;
  gmtime_r(&T, &Utc);
  char Buf[32];
  std::strftime(Buf, sizeof Buf, "%Y-%m-%d", &Utc);
  return Buf;
}
