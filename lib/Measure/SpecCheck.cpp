//===- SpecCheck.cpp - A kernel's run under compute-sanitizer -------------===//
#include "forge/Measure/SpecCheck.h"
#include "forge/Build/NvccDriver.h"
#include "forge/Measure/Measurement.h"
#include "forge/Support/Error.h"
#include "forge/Support/Output.h"
#include "forge/Support/Subprocess.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Regex.h"

using namespace llvm;
using namespace forge;
using namespace forge::measure;

namespace {

/// "16,777,216" -> 16777216.
std::optional<uint64_t> readCount(StringRef S) {
  std::string Digits;
  for (char C : S)
    if (C != ',')
      Digits += C;
  uint64_t V;
  if (StringRef(Digits).getAsInteger(10, V))
    return std::nullopt;
  return V;
}

/// One detail line of an error block (after the prefix and its indent).
void readDetail(StringRef L, SanitizerFinding &F) {
  SmallVector<StringRef, 6> M;
  // "at saxpy(int, float *)+0x130 in /tmp/k.cu:5", or without the file when
  // the code has no line information.
  static const Regex At("^at (.*)\\+0x[0-9a-fA-F]+( in (.*):([0-9]+))?$");
  static const Regex AtNoOffset("^at (.*) in (.*):([0-9]+)$");
  static const Regex By("^by thread (\\([0-9, ]+\\)) in block (\\([0-9, ]+\\))");
  // "Access to 0x... is out of bounds" (CUDA 13), "Address 0x... is ..." before.
  static const Regex Addr("^(Address|Access)( at| to)? 0x[0-9a-fA-F]+ (is .*)$");
  static const Regex Near("^and is ([0-9,]+) bytes (after|before) the nearest allocation "
                          "at 0x[0-9a-fA-F]+ of size ([0-9,]+) bytes");
  static const Regex Inside("^and is inside the nearest allocation at 0x[0-9a-fA-F]+ "
                            "of size ([0-9,]+) bytes");
  bool WithOffset = false;
  if (F.Function.empty() && ((WithOffset = At.match(L, &M)) || AtNoOffset.match(L, &M))) {
    F.Function = M[1].str();
    StringRef File = WithOffset ? M[3] : M[2], Line = WithOffset ? M[4] : M[3];
    F.File = File.str();
    if (!Line.empty())
      Line.getAsInteger(10, F.Line);
    if (F.Function.empty())
      F.Function = "?";
  } else if (F.Thread.empty() && By.match(L, &M)) {
    F.Thread = M[1].str();
    F.Block = M[2].str();
  } else if (F.Address.empty() && Addr.match(L, &M)) {
    F.Address = M[3].str();
  } else if (F.Relation == SanitizerFinding::Near::Unknown && Near.match(L, &M)) {
    auto Off = readCount(M[1]);
    auto Size = readCount(M[3]);
    if (Off && Size) {
      F.Relation = M[2] == "after" ? SanitizerFinding::Near::After : SanitizerFinding::Near::Before;
      F.Offset = *Off;
      F.AllocationBytes = *Size;
    }
  } else if (F.Relation == SanitizerFinding::Near::Unknown && Inside.match(L, &M)) {
    if (auto Size = readCount(M[1])) {
      F.Relation = SanitizerFinding::Near::Inside;
      F.AllocationBytes = *Size;
    }
  }
}

void readHeadline(StringRef L, SanitizerFinding &F) {
  F.What = L.str();
  SmallVector<StringRef, 5> M;
  static const Regex Invalid("^Invalid (__[a-z]+__ )?([a-z]+( [a-z]+)*) of size ([0-9,]+) bytes?");
  if (Invalid.match(L, &M)) {
    F.Space = M[1].trim().str();
    F.Access = M[2].str();
    if (auto S = readCount(M[4]))
      F.Size = unsigned(*S);
  }
}

} // namespace

SanitizerReport forge::measure::parseSanitizerOutput(StringRef Text) {
  SanitizerReport R;
  std::optional<SanitizerFinding> Cur;
  auto Close = [&] {
    if (Cur)
      R.Findings.push_back(std::move(*Cur));
    Cur.reset();
  };
  static const Regex Summary("^ERROR SUMMARY: ([0-9,]+) errors?");
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n');
  for (StringRef Line : Lines) {
    Line = Line.rtrim("\r");
    if (!Line.consume_front("========="))
      continue;
    if (Line.trim().empty()) {
      Close();
      continue;
    }
    size_t Indent = Line.find_first_not_of(' ');
    StringRef Body = Line.substr(Indent);
    if (Indent > 1) { // a detail of the open block
      if (Cur && !Body.starts_with("Host Frame") && !Body.starts_with("Device Frame"))
        readDetail(Body, *Cur);
      continue;
    }
    Close();
    SmallVector<StringRef, 2> M;
    if (Summary.match(Body, &M)) {
      if (auto N = readCount(M[1])) // one summary per process: their sum
        R.ErrorCount = R.ErrorCount.value_or(0) + unsigned(*N);
      continue;
    }
    if (Body == "COMPUTE-SANITIZER" || Body.starts_with("LEAK SUMMARY") ||
        Body.starts_with("Saved host backtrace") || Body.starts_with("Target application"))
      continue;
    Cur.emplace();
    readHeadline(Body, *Cur);
  }
  Close();
  return R;
}

bool SpecCheckResult::clean() const {
  return Report.Findings.empty() && Report.ErrorCount && *Report.ErrorCount == 0 && Kernel &&
         Kernel->Status != CandidateStatus::Crashed && Kernel->Status != CandidateStatus::LaunchFailed &&
         Kernel->Status != CandidateStatus::Timeout && Kernel->Status != CandidateStatus::LoadFailed;
}

std::string SpecCheckResult::buffersOfSize(uint64_t Bytes) const {
  std::vector<std::string> Names;
  for (const auto &[Name, B] : BufferBytes)
    if (B == Bytes)
      Names.push_back("'" + Name + "'");
  return join(Names, " or ");
}

Expected<SpecCheckResult> forge::measure::checkSpec(const SpecCheckOptions &O) {
  if (!O.Spec)
    return makeUsageError("spec --check needs a spec");
  const LaunchSpec &Spec = *O.Spec;
  SpecCheckResult R;
  R.Source = O.File;
  SmallString<256> Abs(O.File);
  sys::fs::make_absolute(Abs);
  R.SourceIncluded = Abs.str().str();
  // The values checked, and every buffer's bytes at them: a spec whose
  // counts or geometry do not evaluate is reported before any compile.
  auto Env = Spec.environment(O.Values);
  if (!Env)
    return Env.takeError();
  if (auto G = Spec.geometry(*Env); !G)
    return G.takeError();
  for (const Buffer &B : Spec.Buffers) {
    auto Bytes = Spec.bufferBytes(B, *Env);
    if (!Bytes)
      return Bytes.takeError();
    R.BufferBytes.push_back({B.Name, *Bytes});
  }

  auto Gpu = findLocalGpu(O.WorkerPath, O.ToolDir);
  if (!Gpu)
    return Gpu.takeError();
  R.GpuName = Gpu->Name;
  R.Target = Gpu->Target;
  std::vector<std::string> Hints;
  if (!O.CudaPath.empty())
    Hints.push_back(O.CudaPath + "/bin");
  if (auto CP = sys::Process::GetEnv("CUDA_PATH"))
    Hints.push_back(*CP + "/bin");
  Hints.push_back("/usr/local/cuda/bin");
  auto San = findProgram(O.Sanitizer.empty() ? "compute-sanitizer" : O.Sanitizer, Hints);
  if (!San)
    return makeUsageError(
        O.Sanitizer.empty()
            ? "spec --check runs the kernel under compute-sanitizer, which is not on PATH or in "
              "the CUDA toolkit's bin/ (--cuda-path, CUDA_PATH, /usr/local/cuda)"
            : "--sanitizer '{0}': no such program",
        O.Sanitizer);
  R.Sanitizer = *San;
  auto Tools = build::findNvcc(O.CudaPath);
  if (!Tools)
    return Tools.takeError();

  ScratchDir Scratch;
  auto Dir = Scratch.make(O.JobDir, "forge-spec-check");
  if (!Dir)
    return Dir.takeError();

  MeasureRequest Req;
  Req.Spec = &Spec;
  ValueMap Values;
  for (const Tunable &T : Spec.Tunables)
    Values[T.Name] = T.defaultValue();
  for (const auto &[K, V] : O.Values)
    Values[K] = V;
  Req.Reference = {"ref", O.File, Values, sys::path::filename(O.File).str()};
  Req.Target = Gpu->Target;
  Req.NvccFlags = O.NvccFlags;
  Req.NvccFlags.push_back("-lineinfo"); // every finding names its line
  // One launch on one input set, nothing timed: memcheck slows a kernel
  // down by 10-100x. The kernel is the user's own (no model edit), and the
  // sanitizer's process must see the worker's, so no sandbox.
  Req.Job.InputSets = 1;
  Req.Job.Warmup = 0;
  Req.Job.Rounds = 1;
  Req.Job.Reps = 1;
  Req.Job.FlushL2 = false;
  Req.Job.Cupti = false;
  Req.Job.CandidateTimeoutS = O.TimeoutS;
  Req.Job.Sandbox = SandboxMode::Off;
  Req.JobDir = *Dir;
  Req.WorkerPath = Gpu->Worker;
  // Only the kernel is instrumented (kernel_substring of its name): the
  // worker's own kernels (input generation, comparison) run at full speed.
  StringRef Base = Spec.Kernel;
  if (size_t P = Base.rfind("::"); P != StringRef::npos)
    Base = Base.substr(P + 2);
  LocalExecutor Exec(Gpu->Worker, O.TimeoutS + 60,
                     {*San, "--tool", "memcheck", "--target-processes", "all", "--print-limit",
                      "1000", "--kernel-name", ("kns=" + Base).str(), "--log-file",
                      "{dir}/sanitizer.%p.log"});
  Req.Exec = &Exec;
  auto Rep = runMeasurement(*(*Tools)->Driver, Req);
  if (Rep) {
    if (!Rep->Outcomes.empty())
      R.Kernel = Rep->Outcomes.front().Result;
  } else {
    R.RunError = toString(Rep.takeError());
  }

  // Every process's log (%p), in the job directory and its parts.
  std::error_code EC;
  std::string All;
  for (sys::fs::recursive_directory_iterator I(*Dir, EC), E; I != E && !EC; I.increment(EC)) {
    StringRef Name = sys::path::filename(I->path());
    if (!Name.starts_with("sanitizer.") || !Name.ends_with(".log"))
      continue;
    if (auto Buf = MemoryBuffer::getFile(I->path(), /*IsText=*/true))
      All += (*Buf)->getBuffer().str() + "\n";
  }
  if (All.empty()) {
    // Nothing ran under the sanitizer: the harness did not build, or the
    // sanitizer could not start the worker.
    if (!R.RunError.empty())
      return makeError("{0}", R.RunError);
    return makeError("compute-sanitizer ({0}) wrote no log: it did not run the worker", *San);
  }
  R.Report = parseSanitizerOutput(All);
  return R;
}
