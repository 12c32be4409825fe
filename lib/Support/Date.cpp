//===- Date.cpp - Dates for reports and databases -------------------------===//
#include "forge/Support/Date.h"
#include <ctime>

static std::string nowFormatted(const char *Format) {
  std::time_t T = std::time(nullptr);
  std::tm Utc;
  gmtime_r(&T, &Utc);
  char Buf[32];
  std::strftime(Buf, sizeof Buf, Format, &Utc);
  return Buf;
}

std::string forge::todayUtc() { return nowFormatted("%Y-%m-%d"); }

std::string forge::nowUtc() { return nowFormatted("%Y-%m-%dT%H:%M:%SZ"); }
