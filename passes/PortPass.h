//===- passes/PortPass.h - What porting passes are written in --*- C++ -*-===//
///
/// \file
/// The porting passes are written against lib/Port's interface (a PortPass
/// reporting through PortDiagnostics); this brings its names into
/// forge::passes, where the passes live.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_PORTPASS_H
#define FORGE_PASSES_PORTPASS_H

#include "forge/Port/PortDiagnostics.h"
#include "forge/Port/PortPass.h"

namespace forge::passes {
using port::Finding;
using port::ParseError;
using port::PassContext;
using port::PassInfo;
using port::PortDiagnostics;
using port::PortPass;
using port::Severity;
} // namespace forge::passes

#endif
