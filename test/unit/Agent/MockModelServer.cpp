//===- MockModelServer.cpp ------------------------------------------------===//
#include "MockModelServer.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/Error.h"
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <optional>
#include <thread>
#include <vector>

namespace forge::test {

std::string readAll(llvm::StringRef Path) {
  auto Text = readFile(Path);
  if (!Text) {
    llvm::consumeError(Text.takeError());
    return "";
  }
  return *Text;
}

std::string MockModelServer::start(llvm::StringRef Replies, llvm::StringRef Dir) {
  // An http_proxy in the environment must not catch loopback requests.
  ::setenv("no_proxy", "127.0.0.1,localhost", 1);
  std::string Out = (Dir + "/server.out").str(), Err = (Dir + "/server.err").str();
  Log = (Dir + "/requests.jsonl").str();
  std::vector<llvm::StringRef> Args = {FORGE_PYTHON, FORGE_MOCK_MODEL_SERVER, "--replies",
                                       Replies,      "--log",                 Log,
                                       "--exit-after", "120"};
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, llvm::StringRef(Out),
                                                llvm::StringRef(Err)};
  std::string Why;
  Server = llvm::sys::ExecuteNoWait(FORGE_PYTHON, Args, std::nullopt, Redirects, 0, &Why);
  if (Server.Pid == 0)
    return "cannot start the server: " + Why;
  const std::string Prefix = "listening on http://127.0.0.1:";
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  std::string First;
  while (First.empty() && std::chrono::steady_clock::now() < Deadline) {
    std::string Text = readAll(Out);
    if (Text.find('\n') != std::string::npos)
      First = Text.substr(0, Text.find('\n'));
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (First.rfind(Prefix, 0) != 0)
    return "server did not start: '" + First + "' " + readAll(Err);
  Port = std::atoi(First.c_str() + Prefix.size());
  return Port > 0 ? "" : "no port in '" + First + "'";
}

void MockModelServer::stop() {
  if (Server.Pid > 0) {
    ::kill(Server.Pid, SIGTERM);
    std::string Why;
    llvm::sys::Wait(Server, 10u, &Why);
    Server.Pid = 0;
  }
}

} // namespace forge::test
