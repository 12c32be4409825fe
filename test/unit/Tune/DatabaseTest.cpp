//===- DatabaseTest.cpp - the tuning database -----------------------------===//
#include "forge/Support/FileUtil.h"
#include "forge/Tune/Database.h"
#include "gtest/gtest.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <atomic>
#include <thread>

using namespace forge;
using namespace forge::tune;
using forge::measure::CandidateStatus;

namespace {

std::string tempDir() {
  llvm::SmallString<128> P;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-db-test", P));
  return P.str().str();
}

DbKey key(const std::string &Target) {
  return {"ns::k", "abc123", Target, "NVIDIA H200", "N=2^24", "13.0"};
}

TEST(TuningDatabase, MissingFileIsEmptyAndSaveLoadRoundTrips) {
  std::string Dir = tempDir();
  std::string Path = Dir + "/tuning.json";
  auto Db = TuningDatabase::load(Path);
  ASSERT_TRUE(bool(Db)) << llvm::toString(Db.takeError());
  EXPECT_TRUE(Db->records().empty());
  DbRecord &R = Db->record(key("sm_90"));
  R.Strategy = "greedy";
  R.put({"BLOCK=256", {{"BLOCK", 256}}, CandidateStatus::Ok, 100.5, 101, 0.01, "",
         "2026-11-29"});
  R.put({"BLOCK=128", {{"BLOCK", 128}}, CandidateStatus::Wrong, 0, 90, 0, "1 over",
         "2026-11-29"});
  // put replaces a configuration measured again.
  R.put({"BLOCK=256", {{"BLOCK", 256}}, CandidateStatus::Ok, 99.0, 99, 0.01, "",
         "2026-11-30"});
  R.Best = "BLOCK=256";
  Db->record(key("sm_80")); // a second record
  ASSERT_FALSE(bool(Db->save(Path)));

  auto Again = TuningDatabase::load(Path);
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  ASSERT_EQ(Again->records().size(), 2u);
  const DbRecord *R2 = Again->find(key("sm_90"));
  ASSERT_TRUE(R2);
  EXPECT_EQ(R2->Strategy, "greedy");
  ASSERT_EQ(R2->Measurements.size(), 2u);
  const DbMeasurement *M = R2->find("BLOCK=256");
  ASSERT_TRUE(M);
  EXPECT_EQ(M->CostNs, 99.0);
  EXPECT_EQ(M->When, "2026-11-30");
  EXPECT_EQ(M->Values.at("BLOCK"), 256);
  EXPECT_EQ(R2->find("BLOCK=128")->Detail, "1 over");
  EXPECT_EQ(M->Status, CandidateStatus::Ok);
  EXPECT_EQ(R2->find("BLOCK=128")->Status, CandidateStatus::Wrong);
  EXPECT_EQ(*R2->Best, "BLOCK=256");
  EXPECT_FALSE(Again->find(key("sm_100")));
  EXPECT_EQ(Again->toJson(), Db->toJson());
  llvm::sys::fs::remove_directories(Dir);
}

TEST(TuningDatabase, BadFilesAreErrorsThatLeaveThemAlone) {
  std::string Dir = tempDir();
  auto Load = [&](const std::string &Text) {
    std::string P = Dir + "/db.json";
    EXPECT_FALSE(bool(writeFileAtomically(P, Text)));
    auto Db = TuningDatabase::load(P);
    std::string E = Db ? "no error" : llvm::toString(Db.takeError());
    auto After = readFile(P);
    EXPECT_TRUE(bool(After));
    EXPECT_EQ(*After, Text); // never rewritten
    return E.substr(E.find("db.json"));
  };
  EXPECT_EQ(Load("{\"records\": []}"),
            "db.json: not a Kernel Forge tuning database (no "
            "\"forge_tuning_database\" field); refusing to overwrite it");
  EXPECT_EQ(Load("{\"forge_tuning_database\": 1}"),
            "db.json: $.records: expected an array");
  EXPECT_EQ(Load("{\"forge_tuning_database\": 1, \"records\": [{\"key\": "
                 "{\"kernel\": \"k\", \"source_hash\": \"h\", \"target\": "
                 "\"sm_90\", \"gpu\": \"g\", \"sizes\": \"\", \"toolkit\": "
                 "\"13.0\"}, \"measurements\": [{\"config\": \"A=1\", "
                 "\"status\": \"ok\", \"cost_ns\": \"fast\"}]}]}"),
            "db.json: $.records[0].measurements[0].cost_ns: expected a number; "
            "the file is left as it is");
  // The statuses are names; one this version does not know is not guessed.
  EXPECT_EQ(Load("{\"forge_tuning_database\": 1, \"records\": [{\"key\": "
                 "{\"kernel\": \"k\", \"source_hash\": \"h\", \"target\": "
                 "\"sm_90\", \"gpu\": \"g\", \"sizes\": \"\", \"toolkit\": "
                 "\"13.0\"}, \"measurements\": [{\"config\": \"A=1\", "
                 "\"status\": \"ok\"}, {\"config\": \"A=2\", \"status\": "
                 "\"exploded\"}]}]}"),
            "db.json: $.records[0].measurements[1].status: unknown status "
            "'exploded'; the file is left as it is");
  EXPECT_EQ(Load("{\"forge_tuning_database\": 1, \"records\": [{\"key\": "
                 "{\"kernel\": \"k\", \"source_hash\": \"h\", \"target\": "
                 "\"sm_90\", \"gpu\": \"g\", \"sizes\": \"\", \"toolkit\": "
                 "\"13.0\"}, \"measurements\": [{\"config\": \"A=1\"}]}]}"),
            "db.json: $.records[0].measurements[0].status: expected a string; "
            "the file is left as it is");
  EXPECT_NE(Load("{not json").find("db.json"), std::string::npos);
  llvm::sys::fs::remove_directories(Dir);
}

TEST(TuningDatabase, SizeBucketsRoundToPowersOfTwo) {
  EXPECT_EQ(sizeBucket({{"N", 1 << 24}, {"M", 1000}}), "N=2^24,M=2^10");
  EXPECT_EQ(sizeBucket({{"N", 3 << 20}}), "N=2^22"); // log2(3M) = 21.58
  EXPECT_EQ(sizeBucket({{"Z", 0}}), "Z=0");
  EXPECT_EQ(sizeBucket({}), "");
}

TEST(TuningDatabase, SourceIdentityFollowsLocalIncludes) {
  std::string Dir = tempDir();
  ASSERT_FALSE(bool(writeFileAtomically(Dir + "/k.cu",
                                        "#include \"tile.h\"\n#include <cstdio>\n")));
  ASSERT_FALSE(bool(writeFileAtomically(Dir + "/tile.h", "constexpr int T = 16;\n")));
  auto A = sourceIdentity(Dir + "/k.cu");
  ASSERT_TRUE(bool(A));
  ASSERT_FALSE(bool(writeFileAtomically(Dir + "/tile.h", "constexpr int T = 32;\n")));
  auto B = sourceIdentity(Dir + "/k.cu");
  ASSERT_TRUE(bool(B));
  EXPECT_NE(*A, *B) << "a change in an included header must change the key";
  EXPECT_EQ(A->size(), 64u);
  EXPECT_FALSE(bool(sourceIdentity(Dir + "/missing.cu")));
  llvm::sys::fs::remove_directories(Dir);
}

TEST(TuningDatabase, SourceIdentityCoversTheDepfilesHeaders) {
  // A header reached through -I and <...> is not in the quoted-include
  // walk; listed (as port --depfile lists it) it is part of the key. Files
  // the walk already hashed change nothing, so a project of quoted headers
  // keeps its keys.
  std::string Dir = tempDir();
  ASSERT_FALSE(bool(llvm::sys::fs::create_directories(Dir + "/inc")));
  ASSERT_FALSE(bool(writeFileAtomically(Dir + "/k.cu",
                                        "#include \"tile.h\"\n#include <cfg.h>\n")));
  ASSERT_FALSE(bool(writeFileAtomically(Dir + "/tile.h", "constexpr int T = 16;\n")));
  ASSERT_FALSE(bool(writeFileAtomically(Dir + "/inc/cfg.h", "constexpr int C = 1;\n")));
  auto Walk = sourceIdentity(Dir + "/k.cu");
  auto Same = sourceIdentity(Dir + "/k.cu", {Dir + "/k.cu", Dir + "/./tile.h"});
  ASSERT_TRUE(Walk && Same);
  EXPECT_EQ(*Walk, *Same);
  auto A = sourceIdentity(Dir + "/k.cu", {Dir + "/k.cu", Dir + "/inc/cfg.h"});
  ASSERT_TRUE(bool(A));
  EXPECT_NE(*A, *Walk);
  ASSERT_FALSE(bool(writeFileAtomically(Dir + "/inc/cfg.h", "constexpr int C = 2;\n")));
  auto B = sourceIdentity(Dir + "/k.cu", {Dir + "/inc/cfg.h"});
  ASSERT_TRUE(bool(B));
  EXPECT_NE(*A, *B) << "a change in a header the depfile lists must change the key";
  EXPECT_EQ(*Walk, *sourceIdentity(Dir + "/k.cu"));
  auto Gone = sourceIdentity(Dir + "/k.cu", {Dir + "/inc/gone.h"});
  ASSERT_FALSE(bool(Gone));
  EXPECT_NE(llvm::toString(Gone.takeError()).find("gone.h"), std::string::npos);
  llvm::sys::fs::remove_directories(Dir);
}

// TuningDatabase::parse is load() without the file (the fuzz target's entry).
TEST(TuningDatabase, ParseReadsTextAsLoadReadsAFile) {
  TuningDatabase Db;
  DbRecord &R = Db.record(key("sm_90"));
  R.put({"BLOCK=256", {{"BLOCK", 256}}, CandidateStatus::Ok, 100.5, 101, 0.01, "",
         "2026-12-02"});
  auto Again = TuningDatabase::parse(Db.toJson().dump(), "mem.json");
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  ASSERT_EQ(Again->records().size(), 1u);
  ASSERT_NE(Again->find(key("sm_90")), nullptr);
  EXPECT_EQ(Again->find(key("sm_90"))->find("BLOCK=256")->Values.at("BLOCK"), 256);
  auto Bad = TuningDatabase::parse(R"({"forge_tuning_database": 1, "records": 3})",
                                   "mem.json");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(llvm::toString(Bad.takeError()), "mem.json: $.records: expected an array");
  auto NotJson = TuningDatabase::parse("{", "mem.json");
  ASSERT_FALSE(bool(NotJson));
  EXPECT_NE(llvm::toString(NotJson.takeError()).find("mem.json: invalid JSON"),
            std::string::npos);
}

// A value of 2^63 or more is refused, not read back as a negative number.
TEST(TuningDatabase, AValueBeyondInt64IsAnError) {
  auto Text = [](const char *V) {
    return std::string(R"({"forge_tuning_database": 1, "records": [{"key": {"kernel": "k",)"
                       R"( "source_hash": "h", "target": "sm_90", "gpu": "g", "sizes": "N=2^4",)"
                       R"( "toolkit": "13.0"}, "measurements": [{"config": "B=1", "status": "ok",)"
                       R"( "values": {"B": )") + V + "}}]}]}";
  };
  auto Max = TuningDatabase::parse(Text("9223372036854775807"), "db.json");
  ASSERT_TRUE(bool(Max)) << llvm::toString(Max.takeError());
  EXPECT_EQ(Max->records()[0].Measurements[0].Values.at("B"), INT64_MAX);
  auto Over = TuningDatabase::parse(Text("9223372036854775808"), "db.json");
  ASSERT_FALSE(bool(Over));
  EXPECT_EQ(llvm::toString(Over.takeError()),
            "db.json: $.records[0].measurements[0].values.B: integer out of range; "
            "the file is left as it is");
}

TEST(TuningDatabase, ParallelUpdatesKeepEveryRecord) {
  // Parallel builds tune several kernels into one database: each writer
  // reads the file again under the lock, so no record is lost.
  std::string Dir = tempDir();
  std::string Path = Dir + "/tuning.json";
  constexpr int Writers = 6, Rounds = 15;
  std::vector<std::thread> Threads;
  std::atomic<int> Errors{0};
  for (int W = 0; W < Writers; ++W)
    Threads.emplace_back([&, W] {
      for (int I = 0; I < Rounds; ++I) {
        DbKey K = key("sm_90");
        K.Kernel = "k" + std::to_string(W) + "_" + std::to_string(I);
        if (llvm::Error E = TuningDatabase::update(Path, [&](TuningDatabase &Db) {
              Db.record(K).put({"B=1", {{"B", 1}}, CandidateStatus::Ok, 1, 1, 0, "", "d"});
            })) {
          llvm::consumeError(std::move(E));
          ++Errors;
        }
      }
    });
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(Errors.load(), 0);
  auto Db = TuningDatabase::load(Path);
  ASSERT_TRUE(bool(Db)) << llvm::toString(Db.takeError());
  EXPECT_EQ(Db->records().size(), size_t(Writers * Rounds));
  llvm::sys::fs::remove_directories(Dir);
}

TEST(TuningDatabase, UpdateLeavesAFileThatIsNotADatabaseAlone) {
  std::string Dir = tempDir();
  std::string Path = Dir + "/tuning.json";
  ASSERT_FALSE(bool(writeFileAtomically(Path, "{ not json\n")));
  bool Called = false;
  llvm::Error E = TuningDatabase::update(Path, [&](TuningDatabase &) { Called = true; });
  ASSERT_TRUE(bool(E));
  EXPECT_NE(llvm::toString(std::move(E)).find(Path), std::string::npos);
  EXPECT_FALSE(Called);
  EXPECT_EQ(*readFile(Path), "{ not json\n");
  llvm::sys::fs::remove_directories(Dir);
}

TEST(TuningDatabase, AnInterruptedRecordIsIncomplete) {
  std::string Dir = tempDir();
  std::string Path = Dir + "/tuning.json";
  TuningDatabase Db;
  Db.record(key("sm_90")).Complete = false;
  Db.record(key("sm_80"));
  ASSERT_FALSE(bool(Db.save(Path)));
  auto Again = TuningDatabase::load(Path);
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  EXPECT_FALSE(Again->find(key("sm_90"))->Complete);
  EXPECT_TRUE(Again->find(key("sm_80"))->Complete);
  // Databases written before the field existed hold finished sweeps.
  auto Old = TuningDatabase::parse(
      R"({"forge_tuning_database": 1, "records": [{"key": {"kernel": "k", "source_hash": "h",
          "target": "sm_90", "gpu": "g", "sizes": "N=2^4", "toolkit": "13.0"},
          "measurements": []}]})",
      "old.json");
  ASSERT_TRUE(bool(Old)) << llvm::toString(Old.takeError());
  EXPECT_TRUE(Old->records().front().Complete);
  llvm::sys::fs::remove_directories(Dir);
}

TEST(TuningDatabase, TheCheckOfAWriteBackRoundTrips) {
  std::string Dir = tempDir();
  std::string Path = Dir + "/tuning.json";
  TuningDatabase Db;
  Db.record(key("sm_90")).Checked =
      DbCheck{"f00d", "BLOCK=512,ITEMS=8", 3600, 1000, 3.6, 0.001, "2026-12-04"};
  Db.record(key("sm_80"));
  ASSERT_FALSE(bool(Db.save(Path)));
  auto Again = TuningDatabase::load(Path);
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  const DbRecord *R = Again->find(key("sm_90"));
  ASSERT_TRUE(R && R->Checked);
  EXPECT_EQ(R->Checked->Hash, "f00d");
  EXPECT_EQ(R->Checked->Config, "BLOCK=512,ITEMS=8");
  EXPECT_EQ(R->Checked->BaselineNs, 3600);
  EXPECT_EQ(R->Checked->BestNs, 1000);
  EXPECT_EQ(R->Checked->Speedup, 3.6);
  EXPECT_EQ(R->Checked->Noise, 0.001);
  EXPECT_EQ(R->Checked->When, "2026-12-04");
  EXPECT_FALSE(Again->find(key("sm_80"))->Checked);
  EXPECT_EQ(Again->toJson(), Db.toJson());
  // A check that is not an object is an error naming it.
  auto Bad = TuningDatabase::parse(
      R"({"forge_tuning_database": 1, "records": [{"key": {"kernel": "k", "source_hash": "h",
          "target": "sm_90", "gpu": "g", "sizes": "N=2^4", "toolkit": "13.0"},
          "checked": "yes", "measurements": []}]})",
      "bad.json");
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("$.records[0].checked"), std::string::npos);
  llvm::sys::fs::remove_directories(Dir);
}

} // namespace
