//===- Templates/ModelNew.h - `forge-port new --llm` -----------*- C++ -*-===//
///
/// \file
/// A kernel and its launch spec written by a language model from a
/// description, with the template library's samples as references
/// (docs/new.md, "With a model"):
///
/// - When the description parses and a template computes it, the template
///   is used and the model is not asked (unless Always): it is offline,
///   deterministic and already checked on the GPU.
/// - Otherwise the model is asked, with the catalog's samples nearest to
///   the request as references: the operations the description's words name
///   (descriptionHints), or, with none named, a sample that shows the file
///   and spec format, and the list of templates.
/// - The reply must hold one fenced cuda block (the whole file) and one
///   fenced json block (its launch spec). It is untrusted code, checked as
///   an edit of `optimize` is: the spec by the spec parser, the file by the
///   AST check of lib/Agent (checkNewFile: no host calls outside the
///   allowlist, no includes outside it, no host asm, ...), then compiled
///   with nvcc for the target, and the spec's harness built as `measure`
///   builds it. A reply that fails to parse, compile or match its spec gets
///   one repair request with the errors; one refused by the AST check does
///   not (its errors may quote a file it included).
/// - Only a reply that passes everything is written, atomically, under the
///   same -o, --spec-out and --force rules as a template.
///
/// This lives in its own library (ForgeTemplatesModel) over ForgeTemplates
/// and ForgeAgent: the templates stay free of the model client and Clang,
/// and lib/Agent does not depend on the templates.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_MODELNEW_H
#define FORGE_TEMPLATES_MODELNEW_H

#include "forge/Agent/ModelClient.h"
#include "forge/Templates/NewSession.h"
#include "forge/Templates/Template.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace forge::arch {
struct TargetInfo;
}
namespace forge::frontend {
struct Toolchain;
}

namespace forge::templates {

/// A template instance shown to the model.
struct ModelReference {
  std::string Sample;   ///< the sample's name, or "your-request"
  std::string Template; ///< "reduction", "radix-sort", ...
  std::string Why;      ///< "the same operation (sort)", ...
  Request Req;
  Instance Inst;
};

/// The references for a description (at most Max):
/// - Parsed, when a template computes it: its own instance first;
/// - for each operation the request (Parsed) or the description's words
///   name, in order, the sample of that operation nearest to it (the same
///   element type, else the same size of element, else the first);
/// - with no operation known: the map's first sample, as an example of the
///   file and spec format.
std::vector<ModelReference> chooseReferences(llvm::StringRef Description,
                                             const Request *Parsed, unsigned Max = 2);

/// What the model is told.
struct ModelNewAsk {
  std::string Description;
  /// The parser's reading ("sort 1048576 f64 keys") and why no template
  /// computes it, or the parser's refusal.
  std::string Understood;
  /// The kernel's required name (--name); empty: the model's choice.
  std::string Name;
  const arch::TargetInfo *Target = nullptr;
  int SMs = 132;
  std::vector<ModelReference> References;
};

/// The system instruction: the rules and the reply format.
llvm::StringRef modelNewSystemPrompt();
/// The user message: the description, the reading, the target, the
/// catalog, the references (each kernel and spec in fences longer than any
/// backtick run in them), and the reply format.
std::string buildModelNewPrompt(const ModelNewAsk &A);
/// The follow-up after a reply that failed Stage with Detail.
std::string buildModelNewRepair(llvm::StringRef Stage, llvm::StringRef Detail);

/// A reply's two blocks.
struct ModelKernelReply {
  std::string Source; ///< the .cu file, ending in a newline
  Json Spec;
};

/// Parses a reply: exactly one fenced block tagged cuda (or cu, cuh, cpp,
/// c++) and one tagged json; text outside fences is ignored. Errors say
/// what is wrong and where (an unterminated fence, an untagged or other
/// block, two kernels, no spec, JSON that does not parse or is not an
/// object, an empty file).
llvm::Expected<ModelKernelReply> parseModelNewReply(llvm::StringRef Reply);

struct ModelNewOptions {
  /// The description or request, the name, the SMs, the outputs and
  /// --force, as for a template. OutPath empty: a dry run (nothing is asked).
  NewSessionOptions New;
  agent::ModelConfig Model;
  /// Ask the model even when a template computes the request (its instance
  /// is then the first reference).
  bool Always = false;
  const arch::TargetInfo *Target = nullptr;
  const frontend::Toolchain *Toolchain = nullptr;
  std::string CudaPath;
  /// Repair requests after a reply that does not compile (or parse, or
  /// match its spec).
  unsigned Repairs = 1;
};

/// One stage a reply passed or failed.
struct ModelStage {
  unsigned Reply = 1; ///< 1: the first reply, 2: the repair
  std::string Stage;  ///< "spec", "scan", "parse", "compile", "harness"
  bool Passed = false;
  std::string Detail;
};

struct ModelNewResult {
  /// Set when a template computed the request and the model was not asked.
  std::optional<NewResult> Template;
  /// Why the template path did not do it (the parser's refusal, or the
  /// request and the templates' reasons); empty with Always.
  std::string TemplateRefusal;
  std::vector<ModelReference> References;
  std::string Prompt;     ///< the first request's user message
  std::string Kernel;     ///< the spec's kernel
  std::string OutPath, SpecOut;
  std::vector<ModelStage> Stages;
  unsigned Requests = 0;
  uint64_t Tokens = 0;
  bool Repaired = false;
};

/// The template when it computes the request (and not Always), else the
/// model's kernel, checked, compiled and written. Errors: the outputs exist
/// without Force (before the model is asked), the model cannot be reached,
/// a malformed reply, a reply refused by the AST check, or one that still
/// fails after the repair; each says the stage and why, and nothing is
/// written.
llvm::Expected<ModelNewResult> runNewWithModel(const ModelNewOptions &O);

} // namespace forge::templates

#endif
