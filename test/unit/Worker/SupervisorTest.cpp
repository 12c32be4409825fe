//===- SupervisorTest.cpp - crash and timeout handling with a fake child --===//
//
// The supervisor is driven by a shell script that stands in for
// `forge-worker exec` and dies in the ways a real child can: a signal, a
// sticky CUDA error, a hang, a plan error. The results file must end with one
// line per candidate, the right status for each, and the candidates after a
// death run in a fresh process.
//
//===----------------------------------------------------------------------===//

#include "Sandbox.h"
#include "Supervisor.h"

#include "gtest/gtest.h"
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace forge::worker;

namespace {

class SupervisorTest : public ::testing::Test {
protected:
  void SetUp() override {
    char Tmpl[] = "/tmp/forge-supervisor-XXXXXX";
    ASSERT_NE(::mkdtemp(Tmpl), nullptr);
    Dir = Tmpl;
    ::setenv("FAKE_REF", "ref", 1);
  }
  void TearDown() override {
    std::string Cmd = "rm -rf '" + Dir + "'";
    ASSERT_EQ(std::system(Cmd.c_str()), 0);
  }

  Plan makePlan(const std::vector<std::string> &Ids, double TimeoutS = 30) {
    Plan P;
    P.JobDir = Dir;
    P.Opts.CandidateTimeoutS = TimeoutS;
    for (size_t I = 0; I < Ids.size(); ++I) {
      CandidatePlan C;
      C.Id = Ids[I];
      C.Reference = I == 0;
      C.Label = "label of " + Ids[I];
      P.Candidates.push_back(C);
    }
    return P;
  }

  int run(const Plan &P) {
    SuperviseOptions O;
    O.ChildArgv = {"/bin/sh", FORGE_FAKE_WORKER, Dir};
    O.PollS = 0.01;
    return supervise(P, O);
  }

  std::vector<std::string> lines() const {
    std::ifstream In(Dir + "/results.jsonl");
    std::vector<std::string> Out;
    std::string L;
    while (std::getline(In, L))
      Out.push_back(L);
    return Out;
  }

  /// id -> its one line; fails the test on a duplicate.
  std::map<std::string, std::string> byId() const {
    std::map<std::string, std::string> M;
    for (const std::string &L : lines()) {
      size_t P = L.find("\"id\":\"");
      EXPECT_NE(P, std::string::npos) << L;
      if (P == std::string::npos)
        continue;
      std::string Id = L.substr(P + 6, L.find('"', P + 6) - P - 6);
      EXPECT_FALSE(M.count(Id)) << "two lines for " << Id;
      M[Id] = L;
    }
    return M;
  }

  static bool has(const std::string &Line, const std::string &Part) {
    return Line.find(Part) != std::string::npos;
  }

  std::string Dir;
};

TEST_F(SupervisorTest, AllGoodRunsInOneProcess) {
  EXPECT_EQ(run(makePlan({"ref", "ok1", "ok2"})), 0);
  auto M = byId();
  ASSERT_EQ(M.size(), 3u);
  for (const auto &[Id, L] : M) {
    EXPECT_TRUE(has(L, "\"status\":\"ok\"")) << L;
    EXPECT_TRUE(has(L, "\"process\":1")) << L;
  }
}

TEST_F(SupervisorTest, SignalIsRecordedAndTheRestRunInAFreshProcess) {
  EXPECT_EQ(run(makePlan({"ref", "ok1", "segv1", "ok2", "ok3"})), 0);
  auto M = byId();
  ASSERT_EQ(M.size(), 5u);
  EXPECT_TRUE(has(M["segv1"], "\"status\":\"crashed\"")) << M["segv1"];
  EXPECT_TRUE(has(M["segv1"], "signal 11")) << M["segv1"];
  EXPECT_TRUE(has(M["segv1"], "\"label\":\"label of segv1\"")) << M["segv1"];
  EXPECT_TRUE(has(M["ok1"], "\"process\":1"));
  EXPECT_TRUE(has(M["ok2"], "\"status\":\"ok\""));
  EXPECT_TRUE(has(M["ok2"], "\"process\":2")) << M["ok2"];
  EXPECT_TRUE(has(M["ok3"], "\"process\":2")) << M["ok3"];
}

TEST_F(SupervisorTest, StickyCudaErrorKeepsTheChildsOwnLine) {
  EXPECT_EQ(run(makePlan({"ref", "cudaerr1", "ok1"})), 0);
  auto M = byId();
  ASSERT_EQ(M.size(), 3u);
  EXPECT_TRUE(has(M["cudaerr1"], "illegal memory access")) << M["cudaerr1"];
  EXPECT_TRUE(has(M["cudaerr1"], "\"process\":1"));
  EXPECT_TRUE(has(M["ok1"], "\"process\":2"));
}

TEST_F(SupervisorTest, HangIsKilledAfterTheCandidateTimeout) {
  auto Start = std::chrono::steady_clock::now();
  EXPECT_EQ(run(makePlan({"ref", "hang1", "ok1"}, /*TimeoutS=*/0.5)), 0);
  double Took = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - Start)
                    .count();
  auto M = byId();
  ASSERT_EQ(M.size(), 3u);
  EXPECT_TRUE(has(M["hang1"], "\"status\":\"timeout\"")) << M["hang1"];
  EXPECT_TRUE(has(M["ok1"], "\"status\":\"ok\""));
  EXPECT_TRUE(has(M["ok1"], "\"process\":2"));
  EXPECT_LT(Took, 20.0) << "the hung child was not killed";
}

TEST_F(SupervisorTest, SeveralDeathsInARow) {
  EXPECT_EQ(run(makePlan({"ref", "segv1", "hang1", "cudaerr1", "ok1"}, 0.5)),
            0);
  auto M = byId();
  ASSERT_EQ(M.size(), 5u);
  EXPECT_TRUE(has(M["segv1"], "crashed"));
  EXPECT_TRUE(has(M["hang1"], "timeout"));
  EXPECT_TRUE(has(M["cudaerr1"], "crashed"));
  EXPECT_TRUE(has(M["ok1"], "\"process\":4")) << M["ok1"];
}

TEST_F(SupervisorTest, ReferenceCrashStopsTheJob) {
  ::setenv("FAKE_REF", "segvref", 1);
  EXPECT_EQ(run(makePlan({"segvref", "ok1"})), 1);
  auto L = lines();
  ASSERT_EQ(L.size(), 1u);
  EXPECT_TRUE(has(L[0], "\"type\":\"reference-failed\"")) << L[0];
  EXPECT_TRUE(has(L[0], "signal 11")) << L[0];
}

TEST_F(SupervisorTest, PlanErrorIsNotRetried) {
  EXPECT_EQ(run(makePlan({"ref", "exit2", "ok1"})), 2);
  auto M = byId();
  EXPECT_EQ(M.count("exit2"), 0u);
  EXPECT_EQ(M.count("ok1"), 0u);
}

TEST_F(SupervisorTest, ResumesWhereAnEarlierRunStopped) {
  ASSERT_TRUE(appendResultLine(
      Dir, "{\"type\":\"candidate\",\"id\":\"ok1\",\"status\":\"ok\","
           "\"process\":7}"));
  EXPECT_EQ(run(makePlan({"ref", "ok1", "ok2"})), 0);
  auto M = byId();
  ASSERT_EQ(M.size(), 3u);
  EXPECT_TRUE(has(M["ok1"], "\"process\":7")) << "ok1 was run again";
  EXPECT_EQ(finishedIds(Dir).size(), 3u);
}

TEST_F(SupervisorTest, UnknownOnlyIdIsAUsageError) {
  SuperviseOptions O;
  O.ChildArgv = {"/bin/sh", FORGE_FAKE_WORKER, Dir};
  O.Only = {"nope"};
  EXPECT_EQ(supervise(makePlan({"ref", "ok1"}), O), 2);
}

// The child starts without the secrets of the supervisor's environment
// (forge/Support/Secrets.h), keeps the rest, and its private directory is
// removed after it; with the sandbox off the environment is passed on as is.
TEST_F(SupervisorTest, ChildEnvironmentHasNoSecretsAndItsTempDirIsRemoved) {
  std::string EnvOut = Dir + "/child-env";
  ::setenv("FAKE_ENV_OUT", EnvOut.c_str(), 1);
  ::setenv("FORGE_LLM_API_KEY", "sk-forge-probe", 1);
  ::setenv("SOME_SERVICE_TOKEN", "t0k3n", 1);
  ::setenv("FORGE_PROBE_PLAIN", "kept", 1);
  Plan P = makePlan({"ref", "ok1"});
  EXPECT_EQ(run(P), 0);
  std::ifstream In(EnvOut);
  std::stringstream S;
  S << In.rdbuf();
  std::string Env = S.str();
  EXPECT_NE(Env.find("FORGE_PROBE_PLAIN=kept"), std::string::npos) << Env;
  EXPECT_EQ(Env.find("sk-forge-probe"), std::string::npos) << Env;
  EXPECT_EQ(Env.find("t0k3n"), std::string::npos) << Env;
  EXPECT_NE(::access((Dir + "/results.jsonl").c_str(), F_OK), -1);
  EXPECT_EQ(::access((Dir + "/sandbox-tmp").c_str(), F_OK), -1);

  ::unlink((Dir + "/results.jsonl").c_str());
  P.Opts.Sandbox = forge::measure::SandboxMode::Off;
  EXPECT_EQ(run(P), 0);
  std::ifstream In2(EnvOut);
  std::stringstream S2;
  S2 << In2.rdbuf();
  EXPECT_NE(S2.str().find("sk-forge-probe"), std::string::npos);
  ::unsetenv("FAKE_ENV_OUT");
  ::unsetenv("FORGE_LLM_API_KEY");
  ::unsetenv("SOME_SERVICE_TOKEN");
  ::unsetenv("FORGE_PROBE_PLAIN");
}

TEST(SandboxSkip, NamesLayersAndRejectsOthers) {
  std::set<std::string> Skip;
  std::string Error;
  EXPECT_TRUE(sandbox::parseSkip("netns,,landlock", Skip, Error));
  EXPECT_EQ(Skip, (std::set<std::string>{"landlock", "netns"}));
  EXPECT_FALSE(sandbox::parseSkip("netns,network", Skip, Error));
  EXPECT_NE(Error.find("unknown layer 'network'"), std::string::npos) << Error;
}

TEST(JsonQuote, EscapesControlCharactersAndQuotes) {
  EXPECT_EQ(jsonQuote("a\"b\\c\nd\x01"), "\"a\\\"b\\\\c\\nd\\u0001\"");
}

} // namespace
