//===- StoreTest.cpp - Loading, recording, pruning, exporting -------------===//
#include "ExperienceTestUtil.h"
#include "forge/Config.h"
#include "forge/Support/Date.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FileSystem.h"
#include <cstdlib>

using namespace forge;
using namespace forge::experience;
using namespace forge::experience::test;

namespace {

TEST(Load, AMissingFileIsEmpty) {
  TempDir D;
  auto X = Experience::load(D.path("none.json"));
  ASSERT_TRUE(bool(X)) << llvm::toString(X.takeError());
  EXPECT_TRUE(X->entries().empty());
  EXPECT_EQ(X->path(), D.path("none.json"));
  // Loading does not create it.
  EXPECT_FALSE(llvm::sys::fs::exists(D.path("none.json")));
}

TEST(Load, AnEmptyFileIsEmpty) {
  TempDir D;
  D.write("e.json", "  \n");
  auto X = Experience::load(D.path("e.json"));
  ASSERT_TRUE(bool(X)) << llvm::toString(X.takeError());
  EXPECT_TRUE(X->entries().empty());
}

struct BadFile {
  const char *Text;
  const char *Message; ///< after "<path>: "
};

const BadFile BadFiles[] = {
    {"{\"version\": 1, \"entries\": [", "invalid JSON"},
    {"[]", "$: expected an object"},
    {"{\"entries\": []}", "$.version: missing; expected 1"},
    {"{\"version\": 2, \"entries\": []}",
     "$.version: 2 is not a version this forge-port reads (1)"},
    {"{\"version\": \"1\", \"entries\": []}", "$.version: \"1\" is not a version"},
    {"{\"version\": 1}", "$.entries: missing; expected an array"},
    {"{\"version\": 1, \"entries\": {}}", "$.entries: expected an array"},
    {"{\"version\": 1, \"entries\": [3]}", "$.entries[0]: expected an object"},
    {R"({"version": 1, "entries": [{"pattern": "p", "arch": "sm_90", "verdict": "kept"}]})",
     "$.entries[0].transformation: missing; expected a string"},
    {R"({"version": 1, "entries": [
        {"transformation": "t", "pattern": "p", "arch": "sm_90", "verdict": "kept"},
        {"transformation": "t", "pattern": "p", "arch": "sm_90", "verdict": "kept", "gain": "7x"}]})",
     "$.entries[1].gain: expected a number"},
    {R"({"version": 1, "entries": [
        {"transformation": "t", "pattern": "p", "arch": "sm_90", "verdict": "kept", "gain": -1}]})",
     "$.entries[0].gain: expected a speed-up of 0 or more"},
    {R"({"version": 1, "entries": [
        {"transformation": "t", "pattern": "p", "arch": "sm_90", "verdict": "great"}]})",
     "$.entries[0].verdict: 'great' is not one of kept, rejected, slower, not-faster"},
    {R"({"version": 1, "entries": [
        {"transformation": "", "pattern": "p", "arch": "sm_90", "verdict": "kept"}]})",
     "$.entries[0].transformation: must not be empty"},
    {R"({"version": 1, "entries": [
        {"transformation": "t", "pattern": "p", "arch": "sm_90", "verdict": "kept",
         "time": "yesterday"}]})",
     "$.entries[0].time: 'yesterday' is not a UTC time like 2026-12-01T10:20:30Z"},
    {R"({"version": 1, "entries": [
        {"transformation": "t", "pattern": 7, "arch": "sm_90", "verdict": "kept"}]})",
     "$.entries[0].pattern: expected a string"},
};

class LoadError : public ::testing::TestWithParam<BadFile> {};

TEST_P(LoadError, NamesTheFileAndTheField) {
  TempDir D;
  std::string P = D.write("bad.json", GetParam().Text);
  auto X = Experience::load(P);
  ASSERT_FALSE(bool(X));
  std::string Msg = llvm::toString(X.takeError());
  EXPECT_EQ(Msg.rfind(P + ": ", 0), 0u) << Msg;
  EXPECT_NE(Msg.find(GetParam().Message), std::string::npos) << Msg;
}

INSTANTIATE_TEST_SUITE_P(Files, LoadError, ::testing::ValuesIn(BadFiles));

TEST(Load, ADirectoryIsAnError) {
  TempDir D;
  auto X = Experience::load(D.Path);
  ASSERT_FALSE(bool(X));
  EXPECT_NE(llvm::toString(X.takeError()).find("is a directory"), std::string::npos);
}

TEST(Record, RoundTripsEveryFieldAndKeepsUnknownMembers) {
  TempDir D;
  std::string P = D.write("x.json", R"({"version": 1, "comment": "mine", "entries": [
    {"transformation": "expert:vectorize", "pattern": "p1", "family": "f", "arch": "sm_90",
     "gpu": "NVIDIA H200", "verdict": "rejected", "stage": "correctness", "gain": 0,
     "kernel": "k", "file": "k.cu", "time": "2026-11-01T00:00:00Z", "forge_version": "0.1",
     "note": {"why": "aliasing"}}]})");
  auto X = Experience::load(P);
  ASSERT_TRUE(bool(X)) << llvm::toString(X.takeError());
  ASSERT_EQ(X->entries().size(), 1u);
  const Entry E = X->entries()[0]; // a copy: record() replaces the entries
  EXPECT_EQ(E.V, Verdict::Rejected);
  EXPECT_EQ(E.Stage, "correctness");
  EXPECT_EQ(E.Gpu, "NVIDIA H200");
  EXPECT_EQ(E.Extra["note"]["why"], "aliasing");

  Entry N = entry("expert:restrict", "p1", "sm_90", Verdict::Kept, 1.25);
  ASSERT_FALSE(bool(X->record({N})));
  ASSERT_EQ(X->entries().size(), 2u);

  auto Y = Experience::load(P);
  ASSERT_TRUE(bool(Y)) << llvm::toString(Y.takeError());
  ASSERT_EQ(Y->entries().size(), 2u);
  EXPECT_TRUE(Y->entries()[0] == E);
  EXPECT_EQ(Y->entries()[1].Transformation, "expert:restrict");
  EXPECT_EQ(Y->entries()[1].Gain, 1.25);
  EXPECT_EQ(Y->toJson()["comment"], "mine");
  EXPECT_EQ(Y->toJson()["entries"][0]["note"]["why"], "aliasing");
}

TEST(Record, FillsTheTimeAndTheVersionAndCreatesDirectories) {
  TempDir D;
  std::string P = D.path("deep/er/x.json");
  auto X = Experience::load(P);
  ASSERT_TRUE(bool(X));
  Entry N = entry("tuner", "p", "sm_80", Verdict::NotFaster);
  N.Time.clear();
  N.ForgeVersion.clear();
  ASSERT_FALSE(bool(X->record({N})));
  auto Y = Experience::load(P);
  ASSERT_TRUE(bool(Y)) << llvm::toString(Y.takeError());
  ASSERT_EQ(Y->entries().size(), 1u);
  EXPECT_TRUE(parseUtc(Y->entries()[0].Time)) << Y->entries()[0].Time;
  EXPECT_EQ(Y->entries()[0].ForgeVersion, FORGE_VERSION);
  // Within a minute of now.
  EXPECT_LT(std::abs(double(*parseUtc(Y->entries()[0].Time) - std::time(nullptr))), 60.0);
}

TEST(Record, MergesWhatAnotherRunWroteMeanwhile) {
  TempDir D;
  std::string P = D.path("x.json");
  auto First = Experience::load(P), Second = Experience::load(P);
  ASSERT_TRUE(First && Second);
  ASSERT_FALSE(bool(First->record({entry("a", "p", "sm_90", Verdict::Kept, 2)})));
  // Second loaded before First wrote: its record re-reads, so nothing is lost.
  ASSERT_FALSE(bool(Second->record({entry("b", "p", "sm_90", Verdict::Slower)})));
  auto Y = Experience::load(P);
  ASSERT_TRUE(bool(Y));
  ASSERT_EQ(Y->entries().size(), 2u);
  EXPECT_EQ(Y->entries()[0].Transformation, "a");
  EXPECT_EQ(Y->entries()[1].Transformation, "b");
  EXPECT_EQ(Second->entries().size(), 2u);
}

TEST(Record, LeavesAFileThatBecameMalformedAlone) {
  TempDir D;
  std::string P = D.path("x.json");
  auto X = Experience::load(P);
  ASSERT_TRUE(bool(X));
  D.write("x.json", "{\"version\": 1, \"entries\": [ oops");
  llvm::Error E = X->record({entry("a", "p", "sm_90", Verdict::Kept, 2)});
  ASSERT_TRUE(bool(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("invalid JSON"), std::string::npos);
  EXPECT_EQ(D.read("x.json"), "{\"version\": 1, \"entries\": [ oops");
}

TEST(Record, ADirectoryThatCannotBeMadeIsAnError) {
  // A regular file where the directory should be: refused even for root.
  TempDir D;
  D.write("f", "not a directory");
  auto X = Experience::load(D.path("f/x.json"));
  ASSERT_TRUE(bool(X));
  llvm::Error E = X->record({entry("a", "p", "sm_90", Verdict::Kept, 2)});
  ASSERT_TRUE(bool(E));
  std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find(D.path("f/x.json")), std::string::npos) << Msg;
  EXPECT_EQ(D.read("f"), "not a directory");
}

TEST(Prune, ByAgeTransformationAndArchAndDuplicates) {
  std::time_t Now = *parseUtc("2026-12-01T00:00:00Z");
  auto Make = [](const char *T, const char *Arch, const char *Time) {
    Entry E = entry(T, "p", Arch, Verdict::Kept, 2);
    E.Time = Time;
    return E;
  };
  std::vector<Entry> Base = {
      Make("a", "sm_80", "2026-10-01T00:00:00Z"), // 61 days old
      Make("a", "sm_90", "2026-11-25T00:00:00Z"), // 6 days
      Make("b", "sm_80", "2026-11-30T00:00:00Z"),
      Make("b", "sm_80", "2026-11-30T00:00:00Z"), // a duplicate
      Make("c", "sm_90", ""),                     // no time: never expires
  };
  {
    std::vector<Entry> Es = Base;
    PruneOptions O;
    O.OlderThanDays = 30;
    O.Now = Now;
    PruneResult R = pruneEntries(Es, O);
    EXPECT_EQ(R.Expired, 1u);
    EXPECT_EQ(R.Duplicates, 1u);
    EXPECT_EQ(R.Kept, 3u);
    EXPECT_EQ(Es[0].Arch, "sm_90");
    EXPECT_EQ(Es[2].Transformation, "c");
  }
  {
    std::vector<Entry> Es = Base;
    PruneOptions O;
    O.Transformation = "a";
    PruneResult R = pruneEntries(Es, O);
    EXPECT_EQ(R.Matched, 2u);
    EXPECT_EQ(R.Kept, 2u);
  }
  {
    std::vector<Entry> Es = Base;
    PruneOptions O;
    O.Arch = "sm_80";
    EXPECT_EQ(pruneEntries(Es, O).Matched, 3u);
    ASSERT_EQ(Es.size(), 2u);
    EXPECT_EQ(Es[0].Arch, "sm_90");
  }
  {
    // Criteria together: only entries that match all of them.
    std::vector<Entry> Es = Base;
    PruneOptions O;
    O.Arch = "sm_80";
    O.Transformation = "a";
    O.OlderThanDays = 30;
    O.Now = Now;
    PruneResult R = pruneEntries(Es, O);
    EXPECT_EQ(R.Expired, 1u);
    EXPECT_EQ(R.Kept, 3u);
  }
  {
    std::vector<Entry> Es = Base;
    PruneResult R = pruneEntries(Es, PruneOptions());
    EXPECT_EQ(R.removed(), 1u);
    EXPECT_EQ(R.Duplicates, 1u);
  }
}

TEST(Prune, OnTheFileAndDryRun) {
  TempDir D;
  std::string P = D.path("x.json");
  auto X = Experience::load(P);
  ASSERT_TRUE(bool(X));
  ASSERT_FALSE(bool(X->record(
      {entry("a", "p", "sm_80", Verdict::Kept, 2), entry("b", "p", "sm_90", Verdict::Kept, 2)})));
  std::string Before = D.read("x.json");
  PruneOptions O;
  O.Arch = "sm_80";
  auto Dry = X->prune(O, /*DryRun=*/true);
  ASSERT_TRUE(bool(Dry)) << llvm::toString(Dry.takeError());
  EXPECT_EQ(Dry->Matched, 1u);
  EXPECT_EQ(D.read("x.json"), Before);
  EXPECT_EQ(X->entries().size(), 2u);
  auto Real = X->prune(O);
  ASSERT_TRUE(bool(Real));
  EXPECT_EQ(Real->Matched, 1u);
  EXPECT_EQ(X->entries().size(), 1u);
  auto Y = Experience::load(P);
  ASSERT_TRUE(bool(Y));
  ASSERT_EQ(Y->entries().size(), 1u);
  EXPECT_EQ(Y->entries()[0].Transformation, "b");
}

TEST(Prune, AMissingFileCreatesNothing) {
  TempDir D;
  auto X = Experience::load(D.path("sub/x.json"));
  ASSERT_TRUE(bool(X));
  PruneOptions O;
  O.OlderThanDays = 1;
  for (bool Dry : {true, false}) {
    auto R = X->prune(O, Dry);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    EXPECT_EQ(R->removed(), 0u);
  }
  EXPECT_FALSE(llvm::sys::fs::exists(D.path("sub")));
}

TEST(Export, JsonReloadsAndCsvQuotes) {
  TempDir D;
  std::string P = D.path("x.json");
  auto X = Experience::load(P);
  ASSERT_TRUE(bool(X));
  Entry A = entry("expert:vectorize", "reduction(atomic,add,grid)|access:broadcast", "sm_90",
                  Verdict::Rejected);
  A.Stage = "correctness";
  A.Kernel = "say \"hi\"";
  ASSERT_FALSE(bool(X->record({A, entry("tuner", "p", "sm_90", Verdict::Kept, 1.5)})));

  ASSERT_FALSE(bool(X->exportTo(D.path("out.json"), ExportFormat::Json)));
  auto Y = Experience::load(D.path("out.json"));
  ASSERT_TRUE(bool(Y)) << llvm::toString(Y.takeError());
  ASSERT_EQ(Y->entries().size(), 2u);
  EXPECT_TRUE(Y->entries()[0] == X->entries()[0]);

  ASSERT_FALSE(bool(X->exportTo(D.path("out.csv"), ExportFormat::Csv)));
  std::string Csv = D.read("out.csv");
  llvm::SmallVector<llvm::StringRef, 4> Lines;
  llvm::StringRef(Csv).rtrim().split(Lines, '\n');
  ASSERT_EQ(Lines.size(), 3u);
  EXPECT_EQ(Lines[0], "transformation,pattern,family,arch,gpu,verdict,stage,gain,kernel,file,"
                      "time,forge_version");
  EXPECT_TRUE(Lines[1].starts_with("expert:vectorize,\"reduction(atomic,add,grid)|access:"
                                   "broadcast\",f,sm_90,,rejected,correctness,0,\"say "
                                   "\"\"hi\"\"\",k.cu,"))
      << Lines[1].str();
  EXPECT_TRUE(Lines[2].starts_with("tuner,p,f,sm_90,,kept,,1.5,")) << Lines[2].str();

  // An output that cannot be written is an error, not a crash.
  llvm::Error E = X->exportTo(D.path("no/such/dir/out.csv"), ExportFormat::Csv);
  EXPECT_TRUE(bool(E));
  llvm::consumeError(std::move(E));
}

TEST(DefaultPath, FromTheEnvironment) {
  EnvGuard G({"FORGE_EXPERIENCE", "XDG_CACHE_HOME", "HOME"});
  setenv("FORGE_EXPERIENCE", "/tmp/a.json", 1);
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  setenv("HOME", "/tmp/home", 1);
  EXPECT_EQ(*defaultPath(), "/tmp/a.json");
  unsetenv("FORGE_EXPERIENCE");
  EXPECT_EQ(*defaultPath(), "/tmp/xdg/forge/experience.json");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(*defaultPath(), "/tmp/home/.cache/forge/experience.json");
  // Turned off: an error that says how to name a file anyway.
  setenv("FORGE_EXPERIENCE", "off", 1);
  auto P = defaultPath();
  ASSERT_FALSE(bool(P));
  std::string Why = llvm::toString(P.takeError());
  EXPECT_NE(Why.find("turned off"), std::string::npos) << Why;
  EXPECT_NE(Why.find("--experience"), std::string::npos) << Why;
}

TEST(Time, ParsesOnlyTheOneForm) {
  EXPECT_EQ(*parseUtc("1970-01-02T00:00:00Z"), 86400);
  EXPECT_FALSE(parseUtc("1970-01-02 00:00:00Z"));
  EXPECT_FALSE(parseUtc("1970-13-02T00:00:00Z"));
  EXPECT_FALSE(parseUtc("1970-01-02T00:00:00"));
  EXPECT_FALSE(parseUtc("197a-01-02T00:00:00Z"));
  EXPECT_TRUE(parseUtc(forge::nowUtc()));
}

} // namespace
