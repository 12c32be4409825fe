//===- Agent/ModelClient.h - Chat completions over HTTP --------*- C++ -*-===//
///
/// \file
/// A small client for language-model endpoints: OpenAI-compatible
/// `/v1/chat/completions` (hosted models, llama.cpp, vLLM, Ollama) and
/// Anthropic `/v1/messages`, over libcurl. It sends one conversation and
/// returns the reply text with its token counts, retrying rate limits,
/// server errors and broken connections with exponential backoff, and
/// keeping a token budget over its life.
///
/// The API key is a secret: it goes only into the request's auth header.
/// Every error message and retry note passes through redactKey, so a server
/// that echoes the key back cannot make it reach a log or a transcript.
/// See docs/model-endpoints.md.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_MODELCLIENT_H
#define FORGE_AGENT_MODELCLIENT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace forge::agent {

/// The wire format. Auto picks it from the URL: a path ending in
/// `/messages` is Anthropic, one ending in `/chat/completions` is OpenAI, a
/// base URL is OpenAI (Anthropic for an anthropic.com host) and gets the
/// path appended.
enum class ApiKind { Auto, OpenAI, Anthropic };

struct ModelConfig {
  std::string Url;
  std::string Model;
  /// Empty: no auth header (local servers).
  std::string ApiKey;
  ApiKind Api = ApiKind::Auto;
  /// Whole request, connection included.
  double TimeoutS = 120;
  double ConnectTimeoutS = 10;
  /// Retries after the first attempt, on 429, 5xx, connection errors and
  /// timeouts; never on other 4xx.
  unsigned MaxRetries = 3;
  /// The wait before the first retry; it doubles on each. A Retry-After
  /// header replaces it. Both are capped at MaxBackoffS.
  double BackoffS = 1.0;
  double MaxBackoffS = 60;
  /// Total prompt + completion tokens over the client's life; 0: no limit.
  uint64_t TokenBudget = 0;
  unsigned MaxTokens = 4096;
  /// A reply body larger than this is cut off and is an error.
  size_t MaxReplyBytes = 2 << 20;
  double Temperature = 0;
};

/// The configuration from flags, falling back to FORGE_LLM_URL and
/// FORGE_LLM_MODEL; the key comes only from FORGE_LLM_API_KEY (a flag would
/// show in `ps` and in shell history). Errors are UsageErrors that name what
/// is missing ("no model: pass --model or set FORGE_LLM_MODEL").
llvm::Expected<ModelConfig> resolveModelConfig(llvm::StringRef UrlFlag,
                                               llvm::StringRef ModelFlag);

/// Url as a transcript may keep it: scheme, host and path, without user
/// information or a query (where keys hide).
std::string redactedEndpoint(llvm::StringRef Url);

/// The URL a request goes to and its format, after Auto and base-URL
/// completion: "http://host:8080" -> "http://host:8080/v1/chat/completions".
struct Endpoint {
  std::string Url;
  ApiKind Api = ApiKind::OpenAI;
};
Endpoint resolveEndpoint(llvm::StringRef Url, ApiKind Api);

struct ChatMessage {
  std::string Role; ///< "user" or "assistant".
  std::string Content;
};

struct ModelReply {
  std::string Text;
  /// From the reply's usage; estimated from the sizes when a server omits it.
  uint64_t PromptTokens = 0, CompletionTokens = 0;
  unsigned Attempts = 1;
  /// "stop", "length", "end_turn", "max_tokens", ... as the server says.
  std::string FinishReason;
  /// Wall time over all attempts, waits included.
  double Seconds = 0;
  /// One line per retry: "HTTP 429 after 0.2 s, retrying in 1.0 s".
  std::vector<std::string> RetryLog;
};

/// Why a request failed, for callers that branch on it (the optimiser stops
/// asking when the budget is spent, and falls back to the expert rules on a
/// broken endpoint).
class ModelError : public llvm::ErrorInfo<ModelError> {
public:
  enum Kind {
    Connection, ///< Refused, dropped, DNS, TLS.
    Timeout,    ///< No complete reply within TimeoutS.
    Http,       ///< A non-2xx status.
    BadReply,   ///< Not JSON, or not a chat completion, or an error object.
    TooLarge,   ///< Over MaxReplyBytes.
    Budget,     ///< The token budget would be or has been exceeded.
  };
  static char ID;
  ModelError(Kind K, std::string Msg) : K(K), Msg(std::move(Msg)) {}
  Kind kind() const { return K; }
  void log(llvm::raw_ostream &OS) const override { OS << Msg; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  Kind K;
  std::string Msg;
};

/// One client per thread; it is not safe to share.
class ModelClient {
public:
  explicit ModelClient(ModelConfig C);

  /// Sends System (may be empty) and Messages, retrying as configured.
  llvm::Expected<ModelReply> complete(llvm::StringRef System,
                                      llvm::ArrayRef<ChatMessage> Messages);

  /// Prompt + completion tokens of every reply so far.
  uint64_t tokensUsed() const { return Used; }
  const ModelConfig &config() const { return Config; }
  const Endpoint &endpoint() const { return End; }

private:
  ModelConfig Config;
  Endpoint End;
  uint64_t Used = 0;
};

/// Text with every occurrence of Key replaced by "[redacted]" (unchanged for
/// an empty key).
std::string redactKey(llvm::StringRef Text, llvm::StringRef Key);

/// The request body for Api (OpenAI or Anthropic), as sent.
std::string buildRequestBody(const ModelConfig &C, ApiKind Api,
                             llvm::StringRef System,
                             llvm::ArrayRef<ChatMessage> Messages);

/// Reads a 2xx reply body of Api. Token counts are 0 where the body has no
/// usage; Attempts and Seconds are left for the caller.
llvm::Expected<ModelReply> parseReplyBody(ApiKind Api, llvm::StringRef Body);

} // namespace forge::agent

#endif
