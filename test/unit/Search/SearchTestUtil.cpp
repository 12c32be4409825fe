//===- SearchTestUtil.cpp -------------------------------------------------===//
#include "SearchTestUtil.h"
#include "forge/Config.h"
#include <cstdlib>

namespace forge::search::test {

SourceParse mockParse() {
  SourceParse P;
  P.TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;
  P.Parse.ExtraArgs = {"-nocudainc", "-nocudalib", "-isystem", FORGE_TEST_INPUTS "/mock-cuda",
                       "-include",   "cuda_runtime.h"};
  P.File = "/tmp/forge-search-test.cu";
  return P;
}

Descriptor cell(llvm::StringRef Memory, llvm::StringRef Work, llvm::StringRef Vector,
                llvm::StringRef Occupancy) {
  Descriptor D;
  auto M = parseMemoryStrategy(Memory);
  auto W = parseWorkBand(Work);
  auto V = parseVectorWidth(Vector);
  auto O = parseOccupancyBand(Occupancy);
  if (!M || !W || !V || !O)
    std::abort(); // a typo in a test
  D.Memory = *M;
  D.Work = *W;
  D.Vector = *V;
  D.Occupancy = *O;
  return D;
}

Variant variant(std::string Id, std::vector<std::string> Parents, std::string Origin, double Ns,
                Descriptor D, unsigned Generation) {
  Variant V;
  V.Id = std::move(Id);
  V.Parents = std::move(Parents);
  V.Origin = std::move(Origin);
  V.MedianNs = Ns;
  V.Correct = true;
  V.Desc = D;
  V.Generation = Generation;
  V.Source = "__global__ void k() {}\n";
  return V;
}

} // namespace forge::search::test
