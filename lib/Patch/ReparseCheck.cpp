//===- ReparseCheck.cpp - Edits must not add parse errors -----------------===//

#include "forge/Patch/ReparseCheck.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace forge::patch {

Error verifyNoNewErrors(const PatchSet &Patches,
                        const ContentsProvider &Contents, ReparseFn Reparse) {
  for (const std::string &File : Patches.files()) {
    Expected<std::string> Old = Contents(File);
    if (!Old)
      return Old.takeError();
    Expected<std::string> New = Patches.applyTo(File, *Old);
    if (!New)
      return New.takeError();
    Expected<unsigned> Before = Reparse(File, *Old);
    if (!Before)
      return makeError("cannot parse '{0}' before the edits: {1}", File,
                       toString(Before.takeError()));
    Expected<unsigned> After = Reparse(File, *New);
    if (!After)
      return makeError("cannot parse '{0}' after the edits: {1}", File,
                       toString(After.takeError()));
    if (*After > *Before) {
      SmallVector<std::string, 4> Origins;
      for (const Edit &E : Patches.editsFor(File))
        for (const std::string &O : E.Origins)
          if (!is_contained(Origins, O))
            Origins.push_back(O);
      return makeError("the edits to '{0}' add {1} parse error(s) ({2} "
                       "before, {3} after); edits from: {4}",
                       File, *After - *Before, *Before, *After,
                       join(Origins, ", "));
    }
  }
  return Error::success();
}

} // namespace forge::patch
