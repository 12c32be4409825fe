//===- fuzz/LaunchSpecFuzzer.cpp - Launch specs and IntExpr ---------------===//
///
/// \file
/// An input that starts with '{' is a launch spec: it is parsed
/// (parseJson, parseLaunchSpec), every expression in it is evaluated with
/// the spec's own environment (geometry, constraints, buffer sizes,
/// scalars), and the spec written back (toJson) must parse again. Any
/// other input is one IntExpr, parsed and evaluated over a few bound names,
/// so that the expression language gets mutations of its own.
///
//===----------------------------------------------------------------------===//
#include "forge/Measure/IntExpr.h"
#include "forge/Measure/LaunchSpec.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace forge;
using namespace forge::measure;

static void fuzzExpr(llvm::StringRef Text) {
  auto E = IntExpr::parse(Text);
  if (!E) {
    llvm::consumeError(E.takeError());
    return;
  }
  (void)E->identifiers();
  ValueMap Env = {{"N", 1 << 20}, {"M", 7}, {"BLOCK", 256}, {"ZERO", 0},
                  {"NEG", -3},    {"BIG", INT64_MAX}, {"SMALL", INT64_MIN}};
  auto V = E->evaluate(Env);
  if (!V)
    llvm::consumeError(V.takeError());
}

static void fuzzSpec(llvm::StringRef Text) {
  auto J = parseJson(Text, "spec.json");
  if (!J) {
    llvm::consumeError(J.takeError());
    return;
  }
  auto S = parseLaunchSpec(*J, "spec.json");
  if (!S) {
    llvm::consumeError(S.takeError());
    return;
  }
  auto Env = S->environment();
  if (!Env) {
    llvm::consumeError(Env.takeError());
  } else {
    if (auto G = S->geometry(*Env); !G)
      llvm::consumeError(G.takeError());
    if (auto C = S->satisfiesConstraints(*Env); !C)
      llvm::consumeError(C.takeError());
    for (const Buffer &B : S->Buffers)
      if (auto N = S->bufferBytes(B, *Env); !N)
        llvm::consumeError(N.takeError());
    for (const Scalar &X : S->Scalars)
      if (auto V = S->scalarValue(X, *Env); !V)
        llvm::consumeError(V.takeError());
    for (const std::optional<IntExpr> *E : {&S->Bytes, &S->Flops})
      if (*E)
        if (auto V = (*E)->evaluate(*Env); !V)
          llvm::consumeError(V.takeError());
  }
  for (const Buffer &B : S->Buffers)
    (void)S->toleranceFor(B);
  // parseLaunchSpec(toJson(S)) gives S back (LaunchSpec.h).
  auto Again = parseLaunchSpec(toJson(*S), "spec.json");
  if (!Again) {
    std::fprintf(stderr, "toJson wrote a spec that does not parse: %s\n",
                 llvm::toString(Again.takeError()).c_str());
    std::abort();
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef In(reinterpret_cast<const char *>(Data), Size);
  if (In.ltrim().starts_with("{"))
    fuzzSpec(In);
  else
    fuzzExpr(In);
  return 0;
}
