//===- MockModelServer.h - utils/mock-model-server.py for unit tests -------===//
///
/// Starts the real mock model server (a local HTTP server) as a subprocess
/// on a free port, with a reply directory and a request log, and stops it.
/// Shared by the model client's and the evolutionary search's tests.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEST_UNIT_AGENT_MOCKMODELSERVER_H
#define FORGE_TEST_UNIT_AGENT_MOCKMODELSERVER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Program.h"
#include <string>

namespace forge::test {

/// The file's text, "" when it cannot be read.
std::string readAll(llvm::StringRef Path);

class MockModelServer {
public:
  /// Starts the server with Replies, logging to Dir/requests.jsonl and its
  /// output to Dir/server.{out,err}; "" on success, else why it did not.
  std::string start(llvm::StringRef Replies, llvm::StringRef Dir);
  void stop();
  ~MockModelServer() { stop(); }
  int port() const { return Port; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(Port); }
  const std::string &logPath() const { return Log; }

private:
  llvm::sys::ProcessInfo Server;
  int Port = 0;
  std::string Log;
};

} // namespace forge::test

#endif
