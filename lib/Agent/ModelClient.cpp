//===- Agent/ModelClient.cpp - Chat completions over HTTP -----------------===//
///
/// \file
/// One attempt is one libcurl easy transfer; complete() wraps attempts in the
/// retry loop and the token budget. JSON stays at the edges: bodies are
/// built with nlohmann (invalid UTF-8 replaced, never thrown) and replies are
/// parsed with allow_exceptions=false and checked field by field.
///
//===----------------------------------------------------------------------===//
#include "forge/Agent/ModelClient.h"
#include "forge/Config.h"
#include "forge/Support/Error.h"
#include "forge/Support/Json.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <curl/curl.h>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <thread>

using namespace llvm;

namespace forge::agent {

char ModelError::ID = 0;

//===----------------------------------------------------------------------===//
// Configuration
//===----------------------------------------------------------------------===//

static std::string fromEnv(const char *Name) {
  const char *V = std::getenv(Name);
  return V ? StringRef(V).trim().str() : std::string();
}

Expected<ModelConfig> resolveModelConfig(StringRef UrlFlag,
                                         StringRef ModelFlag) {
  ModelConfig C;
  C.Url = UrlFlag.trim().str();
  if (C.Url.empty())
    C.Url = fromEnv("FORGE_LLM_URL");
  C.Model = ModelFlag.trim().str();
  if (C.Model.empty())
    C.Model = fromEnv("FORGE_LLM_MODEL");
  // Trimmed: a key read from a file usually ends in a newline.
  C.ApiKey = fromEnv("FORGE_LLM_API_KEY");

  std::vector<std::string> Missing;
  if (C.Url.empty())
    Missing.push_back("no model endpoint: pass --llm or set FORGE_LLM_URL");
  if (C.Model.empty())
    Missing.push_back("no model: pass --model or set FORGE_LLM_MODEL");
  if (!Missing.empty())
    return makeUsageError("{0}", join(Missing, "; "));

  StringRef Url(C.Url);
  if (!Url.starts_with_insensitive("http://") &&
      !Url.starts_with_insensitive("https://"))
    return makeUsageError("model URL '{0}' is not http:// or https://",
                          redactKey(C.Url, C.ApiKey));
  // The key goes into a header line; a control character would end it.
  for (char Ch : C.ApiKey)
    if (static_cast<unsigned char>(Ch) < 0x20 || Ch == 0x7f)
      return makeUsageError("FORGE_LLM_API_KEY contains a control character");
  return C;
}

Endpoint resolveEndpoint(StringRef Url, ApiKind Api) {
  // Keep a query string (some gateways want "?api-version=...") aside.
  size_t Q = Url.find('?');
  StringRef Query = Q == StringRef::npos ? StringRef() : Url.substr(Q);
  StringRef Base = Url.substr(0, Q).rtrim('/');

  StringRef Host = Base;
  if (size_t Scheme = Host.find("://"); Scheme != StringRef::npos)
    Host = Host.drop_front(Scheme + 3);
  StringRef Path = Host.contains('/') ? Host.substr(Host.find('/')) : "";
  Host = Host.take_until([](char Ch) { return Ch == '/' || Ch == ':'; });

  Endpoint E;
  bool IsMessages = Path.ends_with("/messages");
  bool IsCompletions = Path.ends_with("/chat/completions");
  if (Api == ApiKind::Auto) {
    if (IsMessages)
      Api = ApiKind::Anthropic;
    else if (IsCompletions)
      Api = ApiKind::OpenAI;
    else
      Api = Host.ends_with_insensitive("anthropic.com") ? ApiKind::Anthropic
                                                       : ApiKind::OpenAI;
  }
  E.Api = Api;
  E.Url = Base.str();
  if (!IsMessages && !IsCompletions) {
    if (!Path.ends_with("/v1"))
      E.Url += "/v1";
    E.Url += Api == ApiKind::Anthropic ? "/messages" : "/chat/completions";
  }
  E.Url += Query.str();
  return E;
}

std::string redactKey(StringRef Text, StringRef Key) {
  if (Key.empty())
    return Text.str();
  std::string Out;
  while (true) {
    size_t Pos = Text.find(Key);
    Out += Text.substr(0, Pos).str();
    if (Pos == StringRef::npos)
      return Out;
    Out += "[redacted]";
    Text = Text.drop_front(Pos + Key.size());
  }
}

//===----------------------------------------------------------------------===//
// Wire formats
//===----------------------------------------------------------------------===//

std::string buildRequestBody(const ModelConfig &C, ApiKind Api,
                             StringRef System, ArrayRef<ChatMessage> Messages) {
  Json Body = Json::object();
  Body["model"] = C.Model;
  if (Api == ApiKind::Anthropic && !System.empty())
    Body["system"] = System.str();
  Json List = Json::array();
  if (Api != ApiKind::Anthropic && !System.empty())
    List.push_back({{"role", "system"}, {"content", System.str()}});
  for (const ChatMessage &M : Messages)
    List.push_back({{"role", M.Role}, {"content", M.Content}});
  Body["messages"] = std::move(List);
  Body["max_tokens"] = C.MaxTokens;
  Body["temperature"] = C.Temperature;
  // Source files may hold invalid UTF-8 (a Latin-1 comment); replace it
  // rather than throw.
  return Body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

static Error badReply(const Twine &Msg) {
  return make_error<ModelError>(ModelError::BadReply, Msg.str());
}

/// The message of an error object: {"error":{"message":..}}, {"error":".."}
/// (Ollama), {"message":..} or {"detail":..} (FastAPI servers).
static std::optional<std::string> errorMessage(const Json &J) {
  if (!J.is_object())
    return std::nullopt;
  auto E = J.find("error");
  if (E != J.end()) {
    if (E->is_string())
      return E->get<std::string>();
    if (E->is_object()) {
      auto M = E->find("message");
      if (M != E->end() && M->is_string())
        return M->get<std::string>();
      return E->dump(-1, ' ', false, Json::error_handler_t::replace);
    }
  }
  for (const char *Key : {"message", "detail"}) {
    auto M = J.find(Key);
    if (M != J.end() && M->is_string())
      return M->get<std::string>();
  }
  return std::nullopt;
}

static uint64_t countField(const Json &Obj, const char *Key) {
  auto It = Obj.find(Key);
  if (It == Obj.end() || !It->is_number())
    return 0;
  if (It->is_number_unsigned())
    return It->get<uint64_t>();
  if (It->is_number_integer())
    return uint64_t(std::max<int64_t>(0, It->get<int64_t>()));
  return uint64_t(std::max(0.0, It->get<double>()));
}

/// "text" of an array of content parts ({"type":"text","text":..}), joined.
static std::string joinTextParts(const Json &Parts) {
  std::string Text;
  for (const Json &P : Parts) {
    if (!P.is_object())
      continue;
    auto Type = P.find("type");
    auto T = P.find("text");
    if (Type != P.end() && Type->is_string() && *Type == "text" &&
        T != P.end() && T->is_string())
      Text += T->get<std::string>();
  }
  return Text;
}

static Expected<ModelReply> parseOpenAI(const Json &J) {
  const char *What = "the model's reply is not a chat completion";
  ModelReply R;
  auto Choices = J.find("choices");
  if (Choices == J.end()) {
    if (auto Msg = errorMessage(J))
      return badReply("the model server reported an error: " + *Msg);
    return badReply(Twine(What) + ": $.choices missing");
  }
  if (!Choices->is_array() || Choices->empty())
    return badReply(Twine(What) + ": $.choices is not a non-empty array");
  const Json &First = (*Choices)[0];
  if (!First.is_object() || !First.contains("message") ||
      !First["message"].is_object())
    return badReply(Twine(What) + ": $.choices[0].message missing");
  const Json &Msg = First["message"];
  auto Content = Msg.find("content");
  if (Content != Msg.end() && Content->is_string())
    R.Text = Content->get<std::string>();
  else if (Content != Msg.end() && Content->is_array())
    R.Text = joinTextParts(*Content);
  else if (Msg.contains("refusal") && Msg["refusal"].is_string())
    return badReply("the model refused: " + Msg["refusal"].get<std::string>());
  else
    return badReply(Twine(What) + ": $.choices[0].message.content missing");
  auto Finish = First.find("finish_reason");
  if (Finish != First.end() && Finish->is_string())
    R.FinishReason = Finish->get<std::string>();
  auto Usage = J.find("usage");
  if (Usage != J.end() && Usage->is_object()) {
    R.PromptTokens = countField(*Usage, "prompt_tokens");
    R.CompletionTokens = countField(*Usage, "completion_tokens");
  }
  return R;
}

static Expected<ModelReply> parseAnthropic(const Json &J) {
  const char *What = "the model's reply is not an Anthropic message";
  ModelReply R;
  auto Content = J.find("content");
  if (Content == J.end() || J.value("type", "") == "error") {
    if (auto Msg = errorMessage(J))
      return badReply("the model server reported an error: " + *Msg);
    return badReply(Twine(What) + ": $.content missing");
  }
  if (!Content->is_array())
    return badReply(Twine(What) + ": $.content is not an array");
  R.Text = joinTextParts(*Content);
  auto Stop = J.find("stop_reason");
  if (Stop != J.end() && Stop->is_string())
    R.FinishReason = Stop->get<std::string>();
  auto Usage = J.find("usage");
  if (Usage != J.end() && Usage->is_object()) {
    // Cached input is still input the budget pays for.
    R.PromptTokens = countField(*Usage, "input_tokens") +
                     countField(*Usage, "cache_creation_input_tokens") +
                     countField(*Usage, "cache_read_input_tokens");
    R.CompletionTokens = countField(*Usage, "output_tokens");
  }
  return R;
}

/// At most N bytes of Body's first line, for messages about bodies that are
/// not what was expected.
static std::string excerpt(StringRef Body, size_t N = 120) {
  StringRef Line = Body.trim();
  Line = Line.take_until([](char Ch) { return Ch == '\n' || Ch == '\r'; });
  if (Line.empty())
    return "(empty body)";
  std::string Out;
  for (char Ch : Line.take_front(N))
    Out += (static_cast<unsigned char>(Ch) < 0x20) ? ' ' : Ch;
  if (Line.size() > N)
    Out += "...";
  return "'" + Out + "'";
}

Expected<ModelReply> parseReplyBody(ApiKind Api, StringRef Body) {
  Json J = Json::parse(Body.begin(), Body.end(), nullptr,
                       /*allow_exceptions=*/false);
  if (J.is_discarded())
    return badReply("the model's reply is not JSON: " + excerpt(Body));
  if (!J.is_object())
    return badReply("the model's reply is not a JSON object: " + excerpt(Body));
  try {
    return Api == ApiKind::Anthropic ? parseAnthropic(J) : parseOpenAI(J);
  } catch (const Json::exception &E) {
    // The checks above should leave nothing to throw; this is the edge.
    return badReply(Twine("the model's reply could not be read: ") + E.what());
  }
}

//===----------------------------------------------------------------------===//
// Transport
//===----------------------------------------------------------------------===//

namespace {

/// What one HTTP attempt gave.
struct Attempt {
  CURLcode Code = CURLE_OK;
  long Status = 0;
  std::string Body;
  bool Overflow = false;
  bool Connected = false;
  std::optional<double> RetryAfter;
  std::string CurlMessage;
  double Seconds = 0;
  size_t Limit = 0;
};

struct CurlDeleter {
  void operator()(CURL *H) const { curl_easy_cleanup(H); }
  void operator()(curl_slist *L) const { curl_slist_free_all(L); }
};

} // namespace

static size_t onBody(char *Ptr, size_t Size, size_t N, void *User) {
  auto *A = static_cast<Attempt *>(User);
  size_t Len = Size * N;
  if (A->Body.size() + Len > A->Limit) {
    A->Overflow = true;
    return Len == 0 ? 1 : 0; // anything but Len stops the transfer
  }
  A->Body.append(Ptr, Len);
  return Len;
}

static size_t onHeader(char *Ptr, size_t Size, size_t N, void *User) {
  auto *A = static_cast<Attempt *>(User);
  StringRef Line = StringRef(Ptr, Size * N).trim();
  if (Line.starts_with_insensitive("HTTP/")) {
    A->RetryAfter.reset(); // a new response (after a 100 Continue)
    return Size * N;
  }
  auto [Name, Value] = Line.split(':');
  Name = Name.trim();
  Value = Value.trim();
  double Seconds;
  // Retry-After as an HTTP date is rare from model servers; the backoff
  // applies then.
  if (Name.equals_insensitive("retry-after-ms") &&
      !Value.getAsDouble(Seconds) && Seconds >= 0)
    A->RetryAfter = Seconds / 1000;
  else if (Name.equals_insensitive("retry-after") && !A->RetryAfter &&
           !Value.getAsDouble(Seconds) && Seconds >= 0)
    A->RetryAfter = Seconds;
  return Size * N;
}

static void initCurlOnce() {
  // curl_global_init is not thread-safe in every libcurl; a function-local
  // static runs it exactly once.
  static const CURLcode Init = curl_global_init(CURL_GLOBAL_DEFAULT);
  (void)Init;
}

static long millis(double Seconds) {
  return std::max(1L, long(std::llround(Seconds * 1000)));
}

static Attempt send(const ModelConfig &C, const Endpoint &E,
                    const std::string &Body) {
  initCurlOnce();
  Attempt A;
  A.Limit = C.MaxReplyBytes;
  auto Start = std::chrono::steady_clock::now();
  std::unique_ptr<CURL, CurlDeleter> H(curl_easy_init());
  if (!H) {
    A.Code = CURLE_FAILED_INIT;
    A.CurlMessage = "could not start a libcurl transfer";
    return A;
  }
  std::unique_ptr<curl_slist, CurlDeleter> Headers;
  auto AddHeader = [&](const std::string &Line) {
    curl_slist *L = curl_slist_append(Headers.get(), Line.c_str());
    if (L) {
      (void)Headers.release();
      Headers.reset(L);
    }
  };
  AddHeader("Content-Type: application/json");
  AddHeader("Accept: application/json");
  // libcurl would otherwise send "Expect: 100-continue" for large bodies and
  // wait a second for servers that never answer it.
  AddHeader("Expect:");
  if (E.Api == ApiKind::Anthropic) {
    AddHeader("anthropic-version: 2023-06-01");
    if (!C.ApiKey.empty())
      AddHeader("x-api-key: " + C.ApiKey);
  } else if (!C.ApiKey.empty()) {
    AddHeader("Authorization: Bearer " + C.ApiKey);
  }

  char ErrBuf[CURL_ERROR_SIZE] = {0};
  CURL *Raw = H.get();
  curl_easy_setopt(Raw, CURLOPT_URL, E.Url.c_str());
  curl_easy_setopt(Raw, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(Raw, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(Raw, CURLOPT_POST, 1L);
  curl_easy_setopt(Raw, CURLOPT_POSTFIELDS, Body.data());
  curl_easy_setopt(Raw, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(Body.size()));
  curl_easy_setopt(Raw, CURLOPT_HTTPHEADER, Headers.get());
  curl_easy_setopt(Raw, CURLOPT_USERAGENT, "forge-port/" FORGE_VERSION);
  curl_easy_setopt(Raw, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(Raw, CURLOPT_TIMEOUT_MS, millis(C.TimeoutS));
  curl_easy_setopt(Raw, CURLOPT_CONNECTTIMEOUT_MS, millis(C.ConnectTimeoutS));
  curl_easy_setopt(Raw, CURLOPT_WRITEFUNCTION, onBody);
  curl_easy_setopt(Raw, CURLOPT_WRITEDATA, &A);
  curl_easy_setopt(Raw, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(Raw, CURLOPT_HEADERDATA, &A);
  curl_easy_setopt(Raw, CURLOPT_ERRORBUFFER, ErrBuf);

  A.Code = curl_easy_perform(Raw);
  curl_easy_getinfo(Raw, CURLINFO_RESPONSE_CODE, &A.Status);
  curl_off_t ConnectUs = 0;
  curl_easy_getinfo(Raw, CURLINFO_CONNECT_TIME_T, &ConnectUs);
  A.Connected = ConnectUs > 0;
  A.CurlMessage = ErrBuf[0] ? StringRef(ErrBuf).rtrim().str()
                            : std::string(curl_easy_strerror(A.Code));
  A.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            Start)
                  .count();
  return A;
}

//===----------------------------------------------------------------------===//
// The client
//===----------------------------------------------------------------------===//

/// "120", "0.5", "2.25": seconds as people write them.
static std::string secondsText(double S) {
  std::string Text = formatv("{0:f2}", S).str();
  while (Text.back() == '0')
    Text.pop_back();
  if (Text.back() == '.')
    Text.pop_back();
  return Text;
}

static std::string bytesText(size_t N) {
  if (N >= (1u << 20) && N % (1u << 20) == 0)
    return formatv("{0} MiB", N >> 20).str();
  if (N >= 1024 && N % 1024 == 0)
    return formatv("{0} KiB", N >> 10).str();
  return formatv("{0} bytes", N).str();
}

/// A rough token count for text: about four bytes a token.
static uint64_t estimateTokens(size_t Bytes) { return (Bytes + 3) / 4; }

ModelClient::ModelClient(ModelConfig C)
    : Config(std::move(C)), End(resolveEndpoint(Config.Url, Config.Api)) {}

namespace {
/// One attempt's verdict.
struct Outcome {
  bool Retryable = false;
  ModelError::Kind Kind = ModelError::Connection;
  std::string Message; ///< For the error, without the attempt count.
  std::string Short;   ///< For the retry log: "HTTP 429", "timeout".
};
} // namespace

static Outcome judge(const ModelConfig &C, const Endpoint &E,
                     const Attempt &A) {
  Outcome O;
  if (A.Overflow) {
    O.Kind = ModelError::TooLarge;
    O.Message = formatv("the reply from {0} is larger than {1}; stopped reading",
                        E.Url, bytesText(C.MaxReplyBytes));
    return O;
  }
  switch (A.Code) {
  case CURLE_OK:
    break;
  case CURLE_OPERATION_TIMEDOUT:
    O.Retryable = true;
    O.Kind = ModelError::Timeout;
    O.Short = "timeout";
    if (A.Connected)
      O.Message = formatv("no reply from {0} within {1} s", E.Url,
                          secondsText(C.TimeoutS));
    else
      O.Message = formatv("could not connect to {0} within {1} s", E.Url,
                          secondsText(std::min(C.TimeoutS, C.ConnectTimeoutS)));
    return O;
  case CURLE_COULDNT_CONNECT:
    O.Retryable = true;
    O.Short = "connection refused";
    O.Message = formatv("cannot connect to {0}: {1}", E.Url, A.CurlMessage);
    return O;
  case CURLE_GOT_NOTHING:
  case CURLE_RECV_ERROR:
  case CURLE_SEND_ERROR:
  case CURLE_PARTIAL_FILE:
    O.Retryable = true;
    O.Short = "connection dropped";
    O.Message = formatv("the connection to {0} was dropped: {1}", E.Url,
                        A.CurlMessage);
    return O;
  default:
    O.Message = formatv("cannot reach {0}: {1}", E.Url, A.CurlMessage);
    return O;
  }

  if (A.Status >= 200 && A.Status < 300)
    return O; // the body decides
  O.Kind = ModelError::Http;
  O.Short = formatv("HTTP {0}", A.Status);
  O.Retryable = A.Status == 429 || A.Status >= 500;
  std::string Detail;
  Json J = Json::parse(A.Body.begin(), A.Body.end(), nullptr, false);
  if (auto Msg = J.is_discarded() ? std::nullopt : errorMessage(J))
    Detail = *Msg;
  else
    Detail = excerpt(A.Body);
  O.Message = formatv("HTTP {0} from {1}: {2}", A.Status, E.Url, Detail);
  if (A.Status == 401 || A.Status == 403)
    O.Message += "; check FORGE_LLM_API_KEY";
  return O;
}

Expected<ModelReply> ModelClient::complete(StringRef System,
                                           ArrayRef<ChatMessage> Messages) {
  auto Fail = [&](ModelError::Kind K, const std::string &Msg) -> Error {
    return make_error<ModelError>(K, redactKey(Msg, Config.ApiKey));
  };

  size_t PromptBytes = System.size();
  for (const ChatMessage &M : Messages)
    PromptBytes += M.Content.size() + 8; // role and framing
  uint64_t PromptEstimate = estimateTokens(PromptBytes);
  if (Config.TokenBudget) {
    uint64_t Need = PromptEstimate + Config.MaxTokens;
    if (Used + Need > Config.TokenBudget)
      return Fail(ModelError::Budget,
                  formatv("token budget of {0} exhausted: {1} used, and this "
                          "request may need {2} (about {3} for the prompt, up "
                          "to {4} for the reply)",
                          Config.TokenBudget, Used, Need, PromptEstimate,
                          Config.MaxTokens));
  }

  std::string Body = buildRequestBody(Config, End.Api, System, Messages);
  ModelReply Reply;
  auto Start = std::chrono::steady_clock::now();
  for (unsigned N = 1;; ++N) {
    Attempt A = send(Config, End, Body);
    Outcome O = judge(Config, End, A);
    if (O.Message.empty()) {
      auto Parsed = parseReplyBody(End.Api, A.Body);
      if (!Parsed)
        return Fail(ModelError::BadReply, toString(Parsed.takeError()));
      Parsed->Attempts = N;
      Parsed->RetryLog = std::move(Reply.RetryLog);
      Parsed->Seconds = std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - Start)
                            .count();
      // A server that reports no usage is charged by size.
      if (!Parsed->PromptTokens && !Parsed->CompletionTokens) {
        Parsed->PromptTokens = PromptEstimate;
        Parsed->CompletionTokens = estimateTokens(Parsed->Text.size());
      }
      // Spent tokens count even past the budget: the reply is returned, and
      // the next request fails its check.
      Used += Parsed->PromptTokens + Parsed->CompletionTokens;
      return std::move(*Parsed);
    }
    if (!O.Retryable || N > Config.MaxRetries) {
      std::string Msg = O.Message;
      if (N > 1)
        Msg += formatv("; gave up after {0} attempts", N).str();
      return Fail(O.Kind, Msg);
    }
    double Wait = A.RetryAfter ? *A.RetryAfter
                               : Config.BackoffS * std::pow(2.0, N - 1);
    Wait = std::max(0.0, std::min(Wait, Config.MaxBackoffS));
    Reply.RetryLog.push_back(redactKey(
        formatv("{0} after {1:f1} s, retrying in {2:f1} s", O.Short, A.Seconds,
                Wait)
            .str(),
        Config.ApiKey));
    std::this_thread::sleep_for(std::chrono::duration<double>(Wait));
  }
}

std::string redactedEndpoint(StringRef Url) {
  StringRef U = Url.split('?').first;
  size_t Scheme = U.find("://");
  if (Scheme != StringRef::npos) {
    StringRef Rest = U.drop_front(Scheme + 3);
    size_t At = Rest.find('@');
    size_t Slash = Rest.find('/');
    if (At != StringRef::npos && (Slash == StringRef::npos || At < Slash))
      return (U.take_front(Scheme + 3) + Rest.drop_front(At + 1)).str();
  }
  return U.str();
}

} // namespace forge::agent
