//===- ModelClientTest.cpp - the model client against a real local server -===//
///
/// Each test starts utils/mock-model-server.py on a free port, points a
/// ModelClient at it and checks what came back and what the server saw.
///
//===----------------------------------------------------------------------===//
#include "MockModelServer.h"
#include "forge/Agent/ModelClient.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Json.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "gtest/gtest.h"
#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <netinet/in.h>
#include <optional>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace forge;
using namespace forge::agent;
using forge::test::readAll;

namespace {

const char *Key = "sk-forge-test-SECRET-0123456789";

std::string replyDir() { return FORGE_TEST_INPUTS "/model-replies"; }

/// Message and kind of a failed request.
struct Failure {
  std::string Message;
  std::optional<ModelError::Kind> Kind;
};

Failure failure(llvm::Expected<ModelReply> R) {
  Failure F;
  if (R) {
    F.Message = "(no error; the reply was '" + R->Text + "')";
    return F;
  }
  llvm::handleAllErrors(
      R.takeError(),
      [&](const ModelError &E) {
        F.Kind = E.kind();
        F.Message = E.message();
      },
      [&](const llvm::ErrorInfoBase &E) { F.Message = E.message(); });
  return F;
}

/// A port that nothing listens on: bound, read and closed again.
int closedPort() {
  int S = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in A{};
  A.sin_family = AF_INET;
  A.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  A.sin_port = 0;
  socklen_t Len = sizeof(A);
  if (S < 0 || ::bind(S, reinterpret_cast<sockaddr *>(&A), sizeof(A)) != 0 ||
      ::getsockname(S, reinterpret_cast<sockaddr *>(&A), &Len) != 0)
    return 1;
  ::close(S);
  return ntohs(A.sin_port);
}

class ModelClientTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-model", Dir));
    std::string Why = Server.start(ReplyDirStr, Dir);
    ASSERT_EQ(Why, "");
    LogPath = Server.logPath();
    Port = Server.port();
  }

  void TearDown() override {
    Server.stop();
    llvm::sys::fs::remove_directories(Dir);
  }

  std::string base() const {
    return "http://127.0.0.1:" + std::to_string(Port);
  }

  /// A config for Scenario with small waits, so the suite stays fast.
  ModelConfig config(llvm::StringRef Scenario, llvm::StringRef Path = "") {
    ModelConfig C;
    C.Url = base() + Path.str();
    C.Model = Scenario.str();
    C.ApiKey = Key;
    C.BackoffS = 0.01;
    C.TimeoutS = 10;
    C.ConnectTimeoutS = 5;
    return C;
  }

  std::vector<ChatMessage> prompt() const {
    return {{"user", "Make this kernel faster, please."}};
  }

  /// The requests the server logged, in order.
  std::vector<Json> requests() {
    std::vector<Json> Out;
    std::string Text = readAll(LogPath);
    llvm::Error E = forEachJsonLine(Text, LogPath,
                                    [&](const Json &J, unsigned) {
                                      Out.push_back(J);
                                      return llvm::Error::success();
                                    });
    EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
    return Out;
  }

  /// Nothing the server received carries the key: only the auth header
  /// does, and the log records its presence, never its value.
  void expectKeyNotLogged() {
    EXPECT_EQ(readAll(LogPath).find(Key), std::string::npos);
  }

  llvm::SmallString<128> Dir;
  std::string ReplyDirStr = replyDir();
  std::string LogPath;
  test::MockModelServer Server;
  int Port = 0;
};

TEST_F(ModelClientTest, OpenAIRoundTrip) {
  ModelClient Client(config("plain-reply"));
  EXPECT_EQ(Client.endpoint().Url, base() + "/v1/chat/completions");
  auto R = Client.complete("You edit CUDA kernels.", prompt());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Text, "Hello from the mock model.\n");
  EXPECT_EQ(R->FinishReason, "stop");
  EXPECT_EQ(R->Attempts, 1u);
  EXPECT_TRUE(R->RetryLog.empty());
  // The mock counts a token per four bytes: 27 bytes of reply, 22 + 32 of
  // prompt joined by a newline.
  EXPECT_EQ(R->CompletionTokens, 7u);
  EXPECT_EQ(R->PromptTokens, 14u);
  EXPECT_EQ(Client.tokensUsed(), 21u);

  auto Log = requests();
  ASSERT_EQ(Log.size(), 1u);
  EXPECT_EQ(Log[0]["path"], "/v1/chat/completions");
  EXPECT_EQ(Log[0]["auth"], true);
  EXPECT_EQ(Log[0]["auth_header"], "authorization");
  const Json &Body = Log[0]["body"];
  EXPECT_EQ(Body["model"], "plain-reply");
  ASSERT_EQ(Body["messages"].size(), 2u);
  EXPECT_EQ(Body["messages"][0]["role"], "system");
  EXPECT_EQ(Body["messages"][0]["content"], "You edit CUDA kernels.");
  EXPECT_EQ(Body["messages"][1]["role"], "user");
  EXPECT_EQ(Body["messages"][1]["content"], "Make this kernel faster, please.");
  EXPECT_EQ(Body["max_tokens"], 4096);
  EXPECT_EQ(Body["temperature"], 0);
  expectKeyNotLogged();
}

TEST_F(ModelClientTest, AnthropicRoundTrip) {
  ModelClient Client(config("plain-reply", "/v1/messages"));
  EXPECT_EQ(Client.endpoint().Api, ApiKind::Anthropic);
  std::vector<ChatMessage> Conversation = {
      {"user", "First question."},
      {"assistant", "First answer."},
      {"user", "Make this kernel faster, please."}};
  auto R = Client.complete("You edit CUDA kernels.", Conversation);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Text, "Hello from the mock model.\n");
  EXPECT_EQ(R->FinishReason, "end_turn");
  EXPECT_EQ(R->CompletionTokens, 7u);
  EXPECT_GT(R->PromptTokens, 14u);

  auto Log = requests();
  ASSERT_EQ(Log.size(), 1u);
  EXPECT_EQ(Log[0]["path"], "/v1/messages");
  EXPECT_EQ(Log[0]["problem"], nullptr); // the mock checks the shape
  EXPECT_EQ(Log[0]["auth_header"], "x-api-key");
  EXPECT_EQ(Log[0]["anthropic_version"], "2023-06-01");
  const Json &Body = Log[0]["body"];
  EXPECT_EQ(Body["system"], "You edit CUDA kernels.");
  ASSERT_EQ(Body["messages"].size(), 3u);
  EXPECT_EQ(Body["messages"][1]["role"], "assistant");
  EXPECT_EQ(Body["max_tokens"], 4096);
  expectKeyNotLogged();
}

TEST_F(ModelClientTest, NoKeyNoAuthHeader) {
  ModelConfig C = config("plain-reply");
  C.ApiKey.clear();
  ModelClient Client(C);
  auto R = Client.complete("", prompt());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto Log = requests();
  ASSERT_EQ(Log.size(), 1u);
  EXPECT_EQ(Log[0]["auth"], false);
  // No system prompt: no system message.
  EXPECT_EQ(Log[0]["body"]["messages"].size(), 1u);
}

TEST_F(ModelClientTest, SuccessiveCallsFollowTheSequence) {
  ModelClient Client(config("two-replies"));
  std::vector<std::string> Texts;
  for (int I = 0; I < 3; ++I) {
    auto R = Client.complete("", prompt());
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    Texts.push_back(R->Text);
  }
  EXPECT_EQ(Texts, (std::vector<std::string>{"Call one of two.\n",
                                             "Call two of two.\n",
                                             "Call two of two.\n"}));
}

TEST_F(ModelClientTest, RateLimitThenSuccess) {
  ModelConfig C = config("rate-limited-then-ok");
  C.BackoffS = 30; // Retry-After: 0 must win over the backoff
  ModelClient Client(C);
  auto R = Client.complete("", prompt());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Attempts, 2u);
  EXPECT_EQ(R->Text, "Rate limit passed; here is the reply.\n");
  ASSERT_EQ(R->RetryLog.size(), 1u);
  EXPECT_TRUE(llvm::StringRef(R->RetryLog[0]).starts_with("HTTP 429 after "))
      << R->RetryLog[0];
  EXPECT_TRUE(llvm::StringRef(R->RetryLog[0]).ends_with("retrying in 0.0 s"))
      << R->RetryLog[0];
  EXPECT_LT(R->Seconds, 5);
  EXPECT_EQ(requests().size(), 2u);
}

TEST_F(ModelClientTest, ServerErrorExhaustsRetries) {
  ModelConfig C = config("server-error-always");
  C.MaxRetries = 2;
  ModelClient Client(C);
  Failure F = failure(Client.complete("", prompt()));
  EXPECT_EQ(F.Kind, ModelError::Http);
  EXPECT_NE(F.Message.find("HTTP 500 from " + base()), std::string::npos)
      << F.Message;
  EXPECT_NE(F.Message.find("mock: internal server error"), std::string::npos);
  EXPECT_NE(F.Message.find("gave up after 3 attempts"), std::string::npos)
      << F.Message;
  EXPECT_EQ(requests().size(), 3u);
  EXPECT_EQ(Client.tokensUsed(), 0u);
}

TEST_F(ModelClientTest, ClientErrorIsNotRetriedAndShowsTheMessage) {
  ModelClient Client(config("error-body"));
  Failure F = failure(Client.complete("", prompt()));
  EXPECT_EQ(F.Kind, ModelError::Http);
  EXPECT_NE(F.Message.find("HTTP 400"), std::string::npos) << F.Message;
  EXPECT_NE(F.Message.find("mock: the prompt is too long for this model"),
            std::string::npos)
      << F.Message;
  EXPECT_EQ(F.Message.find("attempts"), std::string::npos) << F.Message;
  EXPECT_EQ(requests().size(), 1u);
}

TEST_F(ModelClientTest, Timeout) {
  ModelConfig C = config("slow-reply");
  C.TimeoutS = 0.5;
  C.MaxRetries = 0;
  ModelClient Client(C);
  auto Start = std::chrono::steady_clock::now();
  Failure F = failure(Client.complete("", prompt()));
  double Took = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              Start)
                    .count();
  EXPECT_EQ(F.Kind, ModelError::Timeout);
  EXPECT_EQ(F.Message, "no reply from " + base() +
                           "/v1/chat/completions within 0.5 s");
  EXPECT_LT(Took, 2.5);
}

TEST_F(ModelClientTest, TimeoutIsRetried) {
  ModelConfig C = config("slow-then-ok");
  C.TimeoutS = 0.5;
  C.MaxRetries = 1;
  ModelClient Client(C);
  auto R = Client.complete("", prompt());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Attempts, 2u);
  ASSERT_EQ(R->RetryLog.size(), 1u);
  EXPECT_TRUE(llvm::StringRef(R->RetryLog[0]).starts_with("timeout after 0.5 s"))
      << R->RetryLog[0];
}

TEST_F(ModelClientTest, DroppedConnection) {
  ModelConfig C = config("dropped-connection");
  C.MaxRetries = 1;
  ModelClient Client(C);
  Failure F = failure(Client.complete("", prompt()));
  EXPECT_EQ(F.Kind, ModelError::Connection);
  EXPECT_NE(F.Message.find("the connection to " + base() +
                           "/v1/chat/completions was dropped"),
            std::string::npos)
      << F.Message;
  EXPECT_NE(F.Message.find("gave up after 2 attempts"), std::string::npos)
      << F.Message;
  EXPECT_EQ(requests().size(), 2u);
}

TEST_F(ModelClientTest, HugeReplyIsCapped) {
  ModelClient Client(config("huge-reply"));
  Failure F = failure(Client.complete("", prompt()));
  EXPECT_EQ(F.Kind, ModelError::TooLarge);
  EXPECT_NE(F.Message.find("is larger than 2 MiB; stopped reading"),
            std::string::npos)
      << F.Message;
  EXPECT_EQ(requests().size(), 1u); // not retried

  // The same reply under a larger cap comes through whole.
  ModelConfig C = config("huge-reply");
  C.MaxReplyBytes = 8 << 20;
  ModelClient Roomy(C);
  auto R = Roomy.complete("", prompt());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_GE(R->Text.size(), size_t(4) << 20);
}

TEST_F(ModelClientTest, GarbageBody) {
  ModelClient Client(config("garbage-body"));
  Failure F = failure(Client.complete("", prompt()));
  EXPECT_EQ(F.Kind, ModelError::BadReply);
  EXPECT_TRUE(llvm::StringRef(F.Message).starts_with(
      "the model's reply is not JSON: '<html>"))
      << F.Message;
}

TEST_F(ModelClientTest, UnknownScenarioIsA404) {
  ModelClient Client(config("no-such-scenario"));
  Failure F = failure(Client.complete("", prompt()));
  EXPECT_EQ(F.Kind, ModelError::Http);
  EXPECT_NE(F.Message.find("HTTP 404"), std::string::npos) << F.Message;
  EXPECT_NE(F.Message.find("no scenario for model 'no-such-scenario'"),
            std::string::npos)
      << F.Message;
}

TEST_F(ModelClientTest, BudgetCheckedBeforeSending) {
  ModelConfig C = config("plain-reply");
  C.TokenBudget = 1000; // less than MaxTokens alone
  ModelClient Client(C);
  Failure F = failure(Client.complete("", prompt()));
  EXPECT_EQ(F.Kind, ModelError::Budget);
  EXPECT_NE(F.Message.find("token budget of 1000 exhausted: 0 used"),
            std::string::npos)
      << F.Message;
  EXPECT_TRUE(requests().empty());
}

TEST_F(ModelClientTest, BudgetCountsRealUsage) {
  ModelConfig C = config("heavy-usage");
  C.TokenBudget = 1100;
  C.MaxTokens = 100;
  ModelClient Client(C);
  auto R = Client.complete("", prompt());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  // The server's usage (900 + 150), not the client's estimate (~10 + 100).
  EXPECT_EQ(R->PromptTokens, 900u);
  EXPECT_EQ(R->CompletionTokens, 150u);
  EXPECT_EQ(Client.tokensUsed(), 1050u);
  Failure F = failure(Client.complete("", prompt()));
  EXPECT_EQ(F.Kind, ModelError::Budget);
  EXPECT_NE(F.Message.find("token budget of 1100 exhausted: 1050 used"),
            std::string::npos)
      << F.Message;
  EXPECT_EQ(requests().size(), 1u);
}

TEST_F(ModelClientTest, ConnectionRefused) {
  int Closed = closedPort();
  ModelConfig C = config("plain-reply");
  // The key in the URL stands for a server or proxy that echoes it.
  C.Url = "http://127.0.0.1:" + std::to_string(Closed) + "/v1?key=" + Key;
  C.MaxRetries = 1;
  ModelClient Client(C);
  Failure F = failure(Client.complete("", prompt()));
  EXPECT_EQ(F.Kind, ModelError::Connection);
  EXPECT_NE(F.Message.find("cannot connect to http://127.0.0.1:" +
                           std::to_string(Closed) +
                           "/v1/chat/completions?key=[redacted]"),
            std::string::npos)
      << F.Message;
  EXPECT_NE(F.Message.find("gave up after 2 attempts"), std::string::npos);
  EXPECT_EQ(F.Message.find(Key), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Without a server
//===----------------------------------------------------------------------===//

/// Sets or clears an environment variable for one test.
class EnvVar {
public:
  EnvVar(const char *Name, const char *Value) : Name(Name) {
    if (const char *Old = std::getenv(Name))
      Saved = Old;
    if (Value)
      ::setenv(Name, Value, 1);
    else
      ::unsetenv(Name);
  }
  ~EnvVar() {
    if (Saved)
      ::setenv(Name, Saved->c_str(), 1);
    else
      ::unsetenv(Name);
  }

private:
  const char *Name;
  std::optional<std::string> Saved;
};

std::string configError(llvm::StringRef Url, llvm::StringRef Model) {
  auto C = resolveModelConfig(Url, Model);
  return C ? "(no error)" : llvm::toString(C.takeError());
}

TEST(ModelConfig, FromEnvironment) {
  EnvVar U("FORGE_LLM_URL", "http://localhost:8080");
  EnvVar M("FORGE_LLM_MODEL", "qwen-coder");
  EnvVar K("FORGE_LLM_API_KEY", "sk-from-env\n");
  auto C = resolveModelConfig("", "");
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_EQ(C->Url, "http://localhost:8080");
  EXPECT_EQ(C->Model, "qwen-coder");
  EXPECT_EQ(C->ApiKey, "sk-from-env"); // trimmed
}

TEST(ModelConfig, FlagsWinOverEnvironment) {
  EnvVar U("FORGE_LLM_URL", "http://localhost:8080");
  EnvVar M("FORGE_LLM_MODEL", "qwen-coder");
  EnvVar K("FORGE_LLM_API_KEY", nullptr);
  auto C = resolveModelConfig("https://api.anthropic.com", "claude-x");
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_EQ(C->Url, "https://api.anthropic.com");
  EXPECT_EQ(C->Model, "claude-x");
  EXPECT_EQ(C->ApiKey, "");
}

TEST(ModelConfig, MissingPiecesAreNamed) {
  EnvVar U("FORGE_LLM_URL", nullptr);
  EnvVar M("FORGE_LLM_MODEL", nullptr);
  EXPECT_EQ(configError("http://h", ""),
            "no model: pass --model or set FORGE_LLM_MODEL");
  EXPECT_EQ(configError("", "m"),
            "no model endpoint: pass --llm or set FORGE_LLM_URL");
  EXPECT_EQ(configError("", ""),
            "no model endpoint: pass --llm or set FORGE_LLM_URL; no "
            "model: pass --model or set FORGE_LLM_MODEL");
  auto C = resolveModelConfig("", "");
  ASSERT_FALSE(bool(C));
  EXPECT_TRUE(C.errorIsA<UsageError>());
  llvm::consumeError(C.takeError());
}

TEST(ModelConfig, BadUrlAndBadKey) {
  EnvVar K("FORGE_LLM_API_KEY", "sk-secret-in-url");
  EXPECT_EQ(configError("localhost:8080", "m"),
            "model URL 'localhost:8080' is not http:// or https://");
  EXPECT_EQ(configError("ftp://sk-secret-in-url@h", "m"),
            "model URL 'ftp://[redacted]@h' is not http:// or https://");
  EnvVar K2("FORGE_LLM_API_KEY", "sk-a\rb");
  EXPECT_EQ(configError("http://h", "m"),
            "FORGE_LLM_API_KEY contains a control character");
}

TEST(ModelEndpoint, CompletesBaseUrls) {
  struct Case {
    const char *Url;
    ApiKind Api;
    const char *Want;
    ApiKind WantApi;
  } Cases[] = {
      {"http://h:8080", ApiKind::Auto, "http://h:8080/v1/chat/completions",
       ApiKind::OpenAI},
      {"http://h:8080/v1/", ApiKind::Auto, "http://h:8080/v1/chat/completions",
       ApiKind::OpenAI},
      {"http://h/v1/chat/completions", ApiKind::Auto,
       "http://h/v1/chat/completions", ApiKind::OpenAI},
      {"http://h/v1/messages", ApiKind::Auto, "http://h/v1/messages",
       ApiKind::Anthropic},
      {"https://api.anthropic.com", ApiKind::Auto,
       "https://api.anthropic.com/v1/messages", ApiKind::Anthropic},
      {"http://proxy:4000", ApiKind::Anthropic, "http://proxy:4000/v1/messages",
       ApiKind::Anthropic},
      {"https://gw/openai/deployments/x/chat/completions?api-version=2024",
       ApiKind::Auto,
       "https://gw/openai/deployments/x/chat/completions?api-version=2024",
       ApiKind::OpenAI},
      {"https://gw/api?v=1", ApiKind::Auto,
       "https://gw/api/v1/chat/completions?v=1", ApiKind::OpenAI},
  };
  for (const Case &C : Cases) {
    Endpoint E = resolveEndpoint(C.Url, C.Api);
    EXPECT_EQ(E.Url, C.Want) << C.Url;
    EXPECT_EQ(E.Api, C.WantApi) << C.Url;
  }
}

TEST(ModelKey, Redacted) {
  EXPECT_EQ(redactKey("key=abc, again abc.", "abc"),
            "key=[redacted], again [redacted].");
  EXPECT_EQ(redactKey("nothing here", "abc"), "nothing here");
  EXPECT_EQ(redactKey("no key set", ""), "no key set");
  EXPECT_EQ(redactKey("aaaa", "aa"), "[redacted][redacted]");
}

TEST(ModelWire, RequestBodies) {
  ModelConfig C;
  C.Model = "m";
  C.MaxTokens = 77;
  C.Temperature = 0.25;
  std::vector<ChatMessage> Msgs = {{"user", "bad byte \xff here"}};
  auto OpenAI = parseJson(buildRequestBody(C, ApiKind::OpenAI, "sys", Msgs),
                          "openai");
  ASSERT_TRUE(bool(OpenAI)) << llvm::toString(OpenAI.takeError());
  EXPECT_EQ((*OpenAI)["messages"][0]["role"], "system");
  EXPECT_EQ((*OpenAI)["messages"][1]["content"], "bad byte \xEF\xBF\xBD here");
  EXPECT_EQ((*OpenAI)["max_tokens"], 77);
  EXPECT_EQ((*OpenAI)["temperature"], 0.25);
  EXPECT_FALSE(OpenAI->contains("system"));

  auto Anthropic = parseJson(
      buildRequestBody(C, ApiKind::Anthropic, "sys", Msgs), "anthropic");
  ASSERT_TRUE(bool(Anthropic)) << llvm::toString(Anthropic.takeError());
  EXPECT_EQ((*Anthropic)["system"], "sys");
  ASSERT_EQ((*Anthropic)["messages"].size(), 1u);
  EXPECT_EQ((*Anthropic)["messages"][0]["role"], "user");
}

std::string wire(llvm::StringRef Name) {
  return readAll(replyDir() + "/wire/" + Name.str());
}

std::string parseError(ApiKind Api, llvm::StringRef Body) {
  auto R = parseReplyBody(Api, Body);
  return R ? "(no error)" : llvm::toString(R.takeError());
}

TEST(ModelWire, RecordedReplies) {
  auto Parts = parseReplyBody(ApiKind::OpenAI, wire("openai-content-parts.json"));
  ASSERT_TRUE(bool(Parts)) << llvm::toString(Parts.takeError());
  EXPECT_EQ(Parts->Text, "First part. Second part.");
  EXPECT_EQ(Parts->FinishReason, "length");
  EXPECT_EQ(Parts->PromptTokens, 321u);
  EXPECT_EQ(Parts->CompletionTokens, 45u);

  auto NoUsage = parseReplyBody(ApiKind::OpenAI, wire("openai-no-usage.json"));
  ASSERT_TRUE(bool(NoUsage)) << llvm::toString(NoUsage.takeError());
  EXPECT_EQ(NoUsage->Text, "no usage here");
  EXPECT_EQ(NoUsage->PromptTokens + NoUsage->CompletionTokens, 0u);

  auto Blocks = parseReplyBody(ApiKind::Anthropic, wire("anthropic-blocks.json"));
  ASSERT_TRUE(bool(Blocks)) << llvm::toString(Blocks.takeError());
  EXPECT_EQ(Blocks->Text, "<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n");
  EXPECT_EQ(Blocks->FinishReason, "max_tokens");
  EXPECT_EQ(Blocks->PromptTokens, 120u);
  EXPECT_EQ(Blocks->CompletionTokens, 7u);
}

TEST(ModelWire, RepliesThatAreNotCompletions) {
  EXPECT_EQ(parseError(ApiKind::OpenAI, wire("openai-refusal.json")),
            "the model refused: I can't help with that.");
  EXPECT_EQ(parseError(ApiKind::OpenAI, wire("ollama-error.json")),
            "the model server reported an error: model \"llama9\" not found, "
            "try pulling it first");
  EXPECT_EQ(parseError(ApiKind::Anthropic, wire("anthropic-error.json")),
            "the model server reported an error: Overloaded");
  EXPECT_EQ(parseError(ApiKind::OpenAI, R"({"id": "x"})"),
            "the model's reply is not a chat completion: $.choices missing");
  EXPECT_EQ(parseError(ApiKind::OpenAI, R"({"choices": []})"),
            "the model's reply is not a chat completion: $.choices is not a "
            "non-empty array");
  EXPECT_EQ(parseError(ApiKind::OpenAI, R"({"choices": [{"message": 3}]})"),
            "the model's reply is not a chat completion: $.choices[0].message "
            "missing");
  EXPECT_EQ(parseError(ApiKind::Anthropic, R"({"id": "x"})"),
            "the model's reply is not an Anthropic message: $.content missing");
  EXPECT_EQ(parseError(ApiKind::OpenAI, "[1, 2]"),
            "the model's reply is not a JSON object: '[1, 2]'");
  EXPECT_EQ(parseError(ApiKind::OpenAI, ""),
            "the model's reply is not JSON: (empty body)");
}

} // namespace
