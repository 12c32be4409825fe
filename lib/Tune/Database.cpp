//===- Database.cpp - The tuning database ---------------------------------===//
#include "forge/Tune/Database.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Hash.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <cmath>
#include <set>

using namespace forge;
using namespace forge::tune;

bool DbKey::operator==(const DbKey &O) const {
  return Kernel == O.Kernel && SourceHash == O.SourceHash &&
         Target == O.Target && Gpu == O.Gpu && Sizes == O.Sizes &&
         Toolkit == O.Toolkit;
}

std::string DbKey::str() const {
  return Kernel + " [" + SourceHash.substr(0, 12) + "] " + Target + " on " +
         Gpu + ", " + Sizes + ", CUDA " + Toolkit;
}

const DbMeasurement *DbRecord::find(llvm::StringRef Config) const {
  for (const DbMeasurement &M : Measurements)
    if (M.Config == Config)
      return &M;
  return nullptr;
}

void DbRecord::put(DbMeasurement M) {
  for (DbMeasurement &Old : Measurements)
    if (Old.Config == M.Config) {
      Old = std::move(M);
      return;
    }
  Measurements.push_back(std::move(M));
}

DbRecord &TuningDatabase::record(const DbKey &K) {
  for (DbRecord &R : Records)
    if (R.Key == K)
      return R;
  Records.push_back(DbRecord{K, {}, std::nullopt, ""});
  return Records.back();
}

const DbRecord *TuningDatabase::find(const DbKey &K) const {
  for (const DbRecord &R : Records)
    if (R.Key == K)
      return &R;
  return nullptr;
}

Json TuningDatabase::toJson() const {
  Json Recs = Json::array();
  for (const DbRecord &R : Records) {
    Json Ms = Json::array();
    for (const DbMeasurement &M : R.Measurements) {
      Json V = Json::object();
      for (const auto &[K, X] : M.Values)
        V[K] = X;
      Ms.push_back({{"config", M.Config},
                    {"values", V},
                    {"status", measure::statusName(M.Status)},
                    {"cost_ns", M.CostNs},
                    {"median_ns", M.MedianNs},
                    {"noise", M.Noise},
                    {"detail", M.Detail},
                    {"when", M.When}});
    }
    Json Rec = {{"key",
                 {{"kernel", R.Key.Kernel},
                  {"source_hash", R.Key.SourceHash},
                  {"target", R.Key.Target},
                  {"gpu", R.Key.Gpu},
                  {"sizes", R.Key.Sizes},
                  {"toolkit", R.Key.Toolkit}}},
                {"strategy", R.Strategy},
                {"best", R.Best ? Json(*R.Best) : Json(nullptr)},
                {"complete", R.Complete},
                {"measurements", Ms}};
    if (R.Checked)
      Rec["checked"] = {{"hash", R.Checked->Hash},
                        {"config", R.Checked->Config},
                        {"baseline_ns", R.Checked->BaselineNs},
                        {"best_ns", R.Checked->BestNs},
                        {"speedup", R.Checked->Speedup},
                        {"noise", R.Checked->Noise},
                        {"when", R.Checked->When}};
    Recs.push_back(Rec);
  }
  return {{"forge_tuning_database", 1}, {"records", Recs}};
}

llvm::Error TuningDatabase::save(llvm::StringRef Path) const {
  return writeFileAtomically(Path, toJson().dump(1) + "\n");
}

llvm::Error TuningDatabase::update(llvm::StringRef Path,
                                   llvm::function_ref<void(TuningDatabase &)> Change) {
  auto Lock = FileLock::acquire((Path + ".lock").str());
  if (!Lock)
    return Lock.takeError();
  auto Db = load(Path);
  if (!Db)
    return Db.takeError();
  Change(*Db);
  return Db->save(Path);
}

namespace {
/// Reads fields with JSON-path errors; the first problem wins.
struct Reader {
  std::string Origin;
  std::string Error;
  void fail(const std::string &Path, const std::string &Msg) {
    if (Error.empty())
      Error = Origin + ": " + Path + ": " + Msg;
  }
  std::string str(const Json &J, const char *K, const std::string &Path) {
    auto It = J.find(K);
    if (It == J.end() || !It->is_string()) {
      fail(Path + "." + K, "expected a string");
      return "";
    }
    return It->get<std::string>();
  }
  double num(const Json &J, const char *K, const std::string &Path) {
    auto It = J.find(K);
    if (It == J.end())
      return 0;
    if (!It->is_number()) {
      fail(Path + "." + K, "expected a number");
      return 0;
    }
    return It->get<double>();
  }
};
} // namespace

llvm::Expected<TuningDatabase> TuningDatabase::load(llvm::StringRef Path) {
  if (!llvm::sys::fs::exists(Path))
    return TuningDatabase();
  auto Text = readFile(Path);
  if (!Text)
    return Text.takeError();
  return parse(*Text, Path);
}

llvm::Expected<TuningDatabase> TuningDatabase::parse(llvm::StringRef Text,
                                                     llvm::StringRef Path) {
  TuningDatabase Db;
  auto J = parseJson(Text, Path);
  if (!J)
    return J.takeError();
  Reader R{Path.str(), ""};
  if (!J->is_object() || !J->contains("forge_tuning_database"))
    return makeError("{0}: not a Kernel Forge tuning database (no "
                     "\"forge_tuning_database\" field); refusing to overwrite it",
                     Path);
  auto Recs = J->find("records");
  if (Recs == J->end() || !Recs->is_array())
    return makeError("{0}: $.records: expected an array", Path);
  for (size_t I = 0; I < Recs->size(); ++I) {
    const Json &Rec = (*Recs)[I];
    std::string P = "$.records[" + std::to_string(I) + "]";
    if (!Rec.is_object() || !Rec.contains("key") || !Rec["key"].is_object()) {
      R.fail(P + ".key", "expected an object");
      break;
    }
    DbRecord D;
    const Json &K = Rec["key"];
    D.Key = {R.str(K, "kernel", P + ".key"), R.str(K, "source_hash", P + ".key"),
             R.str(K, "target", P + ".key"),  R.str(K, "gpu", P + ".key"),
             R.str(K, "sizes", P + ".key"),   R.str(K, "toolkit", P + ".key")};
    if (auto S = Rec.find("strategy"); S != Rec.end() && S->is_string())
      D.Strategy = S->get<std::string>();
    if (auto B = Rec.find("best"); B != Rec.end() && B->is_string())
      D.Best = B->get<std::string>();
    if (auto C = Rec.find("complete"); C != Rec.end() && C->is_boolean())
      D.Complete = C->get<bool>();
    if (auto C = Rec.find("checked"); C != Rec.end()) {
      if (!C->is_object()) {
        R.fail(P + ".checked", "expected an object");
        break;
      }
      DbCheck K;
      K.Hash = R.str(*C, "hash", P + ".checked");
      K.Config = R.str(*C, "config", P + ".checked");
      K.BaselineNs = R.num(*C, "baseline_ns", P + ".checked");
      K.BestNs = R.num(*C, "best_ns", P + ".checked");
      K.Speedup = R.num(*C, "speedup", P + ".checked");
      K.Noise = R.num(*C, "noise", P + ".checked");
      if (auto W = C->find("when"); W != C->end() && W->is_string())
        K.When = W->get<std::string>();
      D.Checked = std::move(K);
    }
    auto Ms = Rec.find("measurements");
    if (Ms == Rec.end() || !Ms->is_array()) {
      R.fail(P + ".measurements", "expected an array");
      break;
    }
    for (size_t M = 0; M < Ms->size(); ++M) {
      const Json &E = (*Ms)[M];
      std::string MP = P + ".measurements[" + std::to_string(M) + "]";
      if (!E.is_object()) {
        R.fail(MP, "expected an object");
        break;
      }
      DbMeasurement X;
      X.Config = R.str(E, "config", MP);
      std::string Status = R.str(E, "status", MP);
      if (auto S = measure::parseCandidateStatus(Status))
        X.Status = *S;
      else // a missing or mistyped status failed above; that problem wins
        R.fail(MP + ".status", "unknown status '" + Status + "'");
      X.CostNs = R.num(E, "cost_ns", MP);
      X.MedianNs = R.num(E, "median_ns", MP);
      X.Noise = R.num(E, "noise", MP);
      if (auto Dt = E.find("detail"); Dt != E.end() && Dt->is_string())
        X.Detail = Dt->get<std::string>();
      if (auto W = E.find("when"); W != E.end() && W->is_string())
        X.When = W->get<std::string>();
      if (auto V = E.find("values"); V != E.end() && V->is_object())
        for (auto It = V->begin(); It != V->end(); ++It) {
          if (!It->is_number_integer()) {
            R.fail(MP + ".values." + It.key(), "expected an integer");
            break;
          }
          // 2^63 and above would come back negative from get<int64_t>.
          if (It->is_number_unsigned() && It->get<uint64_t>() > uint64_t(INT64_MAX)) {
            R.fail(MP + ".values." + It.key(), "integer out of range");
            break;
          }
          X.Values[It.key()] = It->get<int64_t>();
        }
      D.Measurements.push_back(std::move(X));
    }
    Db.Records.push_back(std::move(D));
  }
  if (!R.Error.empty())
    return makeError("{0}; the file is left as it is", R.Error);
  return Db;
}

static void hashWithIncludes(llvm::StringRef File, ContentHasher &H,
                             std::set<std::string> &Seen,
                             std::vector<std::string> &Missing) {
  llvm::SmallString<256> Abs(File);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  if (!Seen.insert(Abs.str().str()).second)
    return;
  auto Text = readFile(Abs);
  if (!Text) {
    llvm::consumeError(Text.takeError());
    Missing.push_back(Abs.str().str());
    return;
  }
  H.add(*Text);
  llvm::StringRef Dir = llvm::sys::path::parent_path(Abs);
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  llvm::StringRef(*Text).split(Lines, '\n');
  for (llvm::StringRef L : Lines) {
    L = L.ltrim();
    if (!L.consume_front("#"))
      continue;
    L = L.ltrim();
    if (!L.consume_front("include"))
      continue;
    L = L.ltrim();
    if (!L.consume_front("\""))
      continue;
    llvm::StringRef Name = L.take_until([](char C) { return C == '"'; });
    llvm::SmallString<256> Inc(Dir);
    llvm::sys::path::append(Inc, Name);
    if (llvm::sys::fs::exists(Inc))
      hashWithIncludes(Inc, H, Seen, Missing);
  }
}

llvm::Expected<std::string> forge::tune::sourceIdentity(llvm::StringRef File,
                                                       llvm::ArrayRef<std::string> Also) {
  ContentHasher H;
  std::set<std::string> Seen;
  std::vector<std::string> Missing;
  hashWithIncludes(File, H, Seen, Missing);
  if (!Missing.empty() && Seen.size() == Missing.size())
    return makeError("{0}: cannot read it", File);
  std::set<std::string> Extra;
  for (const std::string &A : Also) {
    llvm::SmallString<256> Abs(A);
    llvm::sys::fs::make_absolute(Abs);
    llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    if (!Seen.count(Abs.str().str()))
      Extra.insert(Abs.str().str());
  }
  for (const std::string &E : Extra) {
    auto Text = readFile(E);
    if (!Text)
      return Text.takeError();
    H.add(*Text);
  }
  return H.hex();
}

std::string forge::tune::sizeBucket(
    const std::vector<std::pair<std::string, int64_t>> &Sizes) {
  std::vector<std::string> Parts;
  for (const auto &[Name, V] : Sizes) {
    if (V <= 0) {
      Parts.push_back(Name + "=" + std::to_string(V));
      continue;
    }
    int E = int(std::lround(std::log2(double(V))));
    Parts.push_back(Name + "=2^" + std::to_string(E));
  }
  return llvm::join(Parts, ",");
}
