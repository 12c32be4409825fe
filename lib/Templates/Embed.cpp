//===- Templates/Embed.cpp - A template inside another kernel -------------===//
#include "forge/Templates/Embed.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

using namespace llvm;

namespace forge::templates {

Expected<std::string> embeddableBody(const Instance &I) {
  std::string S = I.Source;
  // The host wrapper: the first top-level inline function naming
  // forge_<Kernel>, with the comment lines right above it.
  Regex Wrapper("\ninline [^\n]*forge_" + Regex::escape(I.Kernel) + "[_(]");
  SmallVector<StringRef, 1> M;
  if (!Wrapper.match(S, &M))
    return makeError("the {0} template's text has no host wrapper forge_{1}", I.Template,
                     I.Kernel);
  size_t Cut = M[0].data() - S.data() + 1;
  while (Cut > 0) {
    size_t Prev = S.rfind('\n', Cut - 2);
    size_t LineStart = Prev == std::string::npos ? 0 : Prev + 1;
    if (StringRef(S).slice(LineStart, Cut).ltrim().starts_with("//"))
      Cut = LineStart;
    else
      break;
  }
  S.resize(Cut);
  // The includes are the caller's: a kernel file compiled by nvcc has
  // cuda_runtime.h already, and an edit may not add directives (the edit
  // check refuses them).
  std::string Kept;
  for (StringRef Line : split(StringRef(S), '\n'))
    if (!Line.ltrim().starts_with("#include"))
      Kept += Line.str() + "\n";
  S = Kept.substr(0, Kept.size() - 1);
  // The kernel's head: `__global__ void [__launch_bounds__(...)] K(`, the
  // launch bounds' parentheses balanced (they may nest).
  auto HeadAt = [&](size_t From, size_t &Len) -> size_t {
    for (size_t At = S.find("__global__", From); At != std::string::npos;
         At = S.find("__global__", At + 1)) {
      StringRef T = StringRef(S).drop_front(At + 10).ltrim();
      if (!T.consume_front("void"))
        continue;
      T = T.ltrim();
      if (T.consume_front("__launch_bounds__")) {
        T = T.ltrim();
        if (!T.starts_with("("))
          continue;
        int Depth = 0;
        size_t I = 0;
        for (; I < T.size(); ++I) {
          Depth += T[I] == '(' ? 1 : T[I] == ')' ? -1 : 0;
          if (Depth == 0)
            break;
        }
        T = T.drop_front(I + 1).ltrim();
      }
      if (!T.consume_front(I.Kernel))
        continue;
      T = T.ltrim();
      if (!T.starts_with("("))
        continue;
      Len = T.data() + 1 - (S.data() + At);
      return At;
    }
    return std::string::npos;
  };
  size_t Len = 0, Ignored = 0;
  size_t At = HeadAt(0, Len);
  if (At == std::string::npos)
    return makeError("the {0} template's text has no __global__ definition of {1}", I.Template,
                     I.Kernel);
  if (HeadAt(At + Len, Ignored) != std::string::npos)
    return makeError("the {0} template's text defines {1} twice", I.Template, I.Kernel);
  S.replace(At, Len, "__device__ __forceinline__ void " + I.Kernel + "_body(");
  return S;
}

} // namespace forge::templates
