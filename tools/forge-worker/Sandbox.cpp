//===- forge-worker/Sandbox.cpp - Confine the child that loads candidates ---===//
///
/// See Sandbox.h and docs/sandbox.md. Raw system calls for Landlock and
/// seccomp (the kernel's own headers), so the worker builds where libseccomp
/// is absent (the GPU image).
///
//===----------------------------------------------------------------------===//

#include "Sandbox.h"
#include "Supervisor.h"
#include "forge/Support/Secrets.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <thread>
#include <ucontext.h>
#include <unistd.h>

extern char **environ;

namespace forge::worker::sandbox {

namespace {

// Landlock's interface, spelt here so that an older linux/landlock.h (or
// none) still builds; the values are the kernel's ABI.
constexpr uint64_t LlWriteFile = 1ULL << 1, LlRemoveDir = 1ULL << 4,
                   LlRemoveFile = 1ULL << 5, LlMakeChar = 1ULL << 6,
                   LlMakeDir = 1ULL << 7, LlMakeReg = 1ULL << 8,
                   LlMakeSock = 1ULL << 9, LlMakeFifo = 1ULL << 10,
                   LlMakeBlock = 1ULL << 11, LlMakeSym = 1ULL << 12,
                   LlRefer = 1ULL << 13,     // ABI 2
                   LlTruncate = 1ULL << 14;  // ABI 3
constexpr uint64_t LlNetBindTcp = 1ULL << 0, LlNetConnectTcp = 1ULL << 1; // ABI 4
constexpr uint64_t LlScopeSignal = 1ULL << 1;                              // ABI 6
constexpr uint32_t LlCreateRulesetVersion = 1U << 0;
constexpr uint32_t LlRestrictSelfTsync = 1U << 3; // ABI 8
constexpr int LlRulePathBeneath = 1;

struct LlRulesetAttr {
  uint64_t HandledFs = 0, HandledNet = 0, Scoped = 0;
};
struct __attribute__((packed)) LlPathBeneath {
  uint64_t Allowed;
  int32_t ParentFd;
};

#if defined(__x86_64__)
constexpr uint32_t AuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t AuditArch = AUDIT_ARCH_AARCH64;
#else
constexpr uint32_t AuditArch = 0; // seccomp: refused on other architectures
#endif

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

// The state prepare() leaves for enter() and the SIGSYS handler.
Options G;
Report R;
bool Prepared = false;
char ProgressPath[PATH_MAX];
/// The seccomp listener's descriptor: -1 not yet, -2 none.
std::atomic<int> ListenerFd{-1};

//===-- What the seccomp filter denies ------------------------------------===//

struct Denied {
  long Nr;
  const char *Name;
};
/// Denied outright (SECCOMP_RET_TRAP). clone, socket and rt_sigaction are
/// decided on their first argument below.
const Denied DeniedCalls[] = {
    {__NR_execve, "execve"},
    {__NR_execveat, "execveat"},
#ifdef __NR_fork
    {__NR_fork, "fork"},
#endif
#ifdef __NR_vfork
    {__NR_vfork, "vfork"},
#endif
    {__NR_ptrace, "ptrace"},
    {__NR_process_vm_readv, "process_vm_readv"},
    {__NR_process_vm_writev, "process_vm_writev"},
    {__NR_mount, "mount"},
    {__NR_umount2, "umount2"},
    {__NR_pivot_root, "pivot_root"},
    {__NR_chroot, "chroot"},
    {__NR_unshare, "unshare"},
    {__NR_setns, "setns"},
    {__NR_bpf, "bpf"},
    {__NR_keyctl, "keyctl"},
    {__NR_add_key, "add_key"},
    {__NR_request_key, "request_key"},
    {__NR_init_module, "init_module"},
    {__NR_finit_module, "finit_module"},
    {__NR_delete_module, "delete_module"},
    {__NR_kexec_load, "kexec_load"},
#ifdef __NR_kexec_file_load
    {__NR_kexec_file_load, "kexec_file_load"},
#endif
    {__NR_open_by_handle_at, "open_by_handle_at"},
    {__NR_userfaultfd, "userfaultfd"},
    // io_uring performs opens and connects that the filter never sees.
    {__NR_io_uring_setup, "io_uring_setup"},
    {__NR_io_uring_enter, "io_uring_enter"},
    {__NR_io_uring_register, "io_uring_register"},
#ifdef __NR_fsopen
    {__NR_fsopen, "fsopen"},
    {__NR_fsmount, "fsmount"},
    {__NR_move_mount, "move_mount"},
    {__NR_open_tree, "open_tree"},
#endif
};

//===-- Recording denials (async-signal-safe) -----------------------------===//

struct Record {
  char Id[128];
  char Call[48];
  unsigned Count;
};
constexpr unsigned MaxRecords = 128;
Record Records[MaxRecords];
unsigned NumRecords = 0;
std::atomic_flag Lock = ATOMIC_FLAG_INIT;

struct Guard {
  Guard() {
    while (Lock.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~Guard() { Lock.clear(std::memory_order_release); }
};

size_t copyTo(char *Dst, size_t Cap, size_t At, const char *Src) {
  while (*Src && At + 1 < Cap)
    Dst[At++] = *Src++;
  Dst[At] = '\0';
  return At;
}

const char *familyName(long F) {
  switch (F) {
  case AF_INET: return "AF_INET";
  case AF_INET6: return "AF_INET6";
  case AF_PACKET: return "AF_PACKET";
#ifdef AF_VSOCK
  case AF_VSOCK: return "AF_VSOCK";
#endif
  default: return nullptr;
  }
}

void numberTo(char *Buf, size_t Cap, long V) {
  char Tmp[24];
  size_t N = 0;
  unsigned long U = V < 0 ? 0UL - (unsigned long)V : (unsigned long)V;
  do {
    Tmp[N++] = char('0' + U % 10);
    U /= 10;
  } while (U && N < sizeof Tmp);
  size_t At = 0;
  if (V < 0 && At + 1 < Cap)
    Buf[At++] = '-';
  while (N && At + 1 < Cap)
    Buf[At++] = Tmp[--N];
  Buf[At] = '\0';
}

/// "execve", "socket(AF_INET)", "clone(new process)", "syscall 1234".
void callName(long Nr, long Arg0, char *Out, size_t Cap) {
  char Num[24];
  Out[0] = '\0';
  for (const Denied &D : DeniedCalls)
    if (D.Nr == Nr) {
      copyTo(Out, Cap, 0, D.Name);
      return;
    }
  if (Nr == __NR_socket) {
    size_t At = copyTo(Out, Cap, 0, "socket(");
    if (const char *F = familyName(Arg0)) {
      At = copyTo(Out, Cap, At, F);
    } else {
      At = copyTo(Out, Cap, At, "family ");
      numberTo(Num, sizeof Num, Arg0);
      At = copyTo(Out, Cap, At, Num);
    }
    copyTo(Out, Cap, At, ")");
    return;
  }
  if (Nr == __NR_clone) {
    copyTo(Out, Cap, 0, "clone(new process)");
    return;
  }
  if (Nr == __NR_rt_sigaction) {
    copyTo(Out, Cap, 0, "rt_sigaction(SIGSYS)");
    return;
  }
  size_t At = copyTo(Out, Cap, 0, "syscall ");
  numberTo(Num, sizeof Num, Nr);
  copyTo(Out, Cap, At, Num);
}

/// The candidate the worker is on: the first word of JOB/progress.
void currentId(char *Out, size_t Cap) {
  Out[0] = '\0';
  int Fd = ::open(ProgressPath, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return;
  ssize_t N = ::read(Fd, Out, Cap - 1);
  ::close(Fd);
  if (N <= 0)
    N = 0;
  Out[N] = '\0';
  for (ssize_t I = 0; I < N; ++I)
    if (Out[I] == ' ' || Out[I] == '\n' || Out[I] == '\t') {
      Out[I] = '\0';
      break;
    }
}

void record(long Nr, long Arg0) {
  char Call[48], Id[128];
  callName(Nr, Arg0, Call, sizeof Call);
  currentId(Id, sizeof Id);
  {
    Guard Hold;
    unsigned I = 0;
    for (; I < NumRecords; ++I)
      if (!std::strcmp(Records[I].Id, Id) && !std::strcmp(Records[I].Call, Call))
        break;
    if (I == NumRecords && NumRecords < MaxRecords) {
      copyTo(Records[I].Id, sizeof Records[I].Id, 0, Id);
      copyTo(Records[I].Call, sizeof Records[I].Call, 0, Call);
      Records[I].Count = 0;
      ++NumRecords;
    }
    if (I < NumRecords)
      ++Records[I].Count;
  }
  char Msg[256];
  size_t At = copyTo(Msg, sizeof Msg, 0, "forge-worker: sandbox: denied ");
  At = copyTo(Msg, sizeof Msg, At, Call);
  if (Id[0]) {
    At = copyTo(Msg, sizeof Msg, At, " (candidate '");
    At = copyTo(Msg, sizeof Msg, At, Id);
    At = copyTo(Msg, sizeof Msg, At, "')");
  }
  At = copyTo(Msg, sizeof Msg, At, "\n");
  ssize_t Ignored = ::write(2, Msg, At);
  (void)Ignored;
}

/// The filter traps: the call does not happen, it returns -EPERM, and the
/// denial is recorded.
void onSigsys(int, siginfo_t *Info, void *Ctx) {
  int Saved = errno;
  auto *U = static_cast<ucontext_t *>(Ctx);
  long Nr = Info->si_syscall, Arg0 = 0;
#if defined(__x86_64__)
  Arg0 = long(U->uc_mcontext.gregs[REG_RDI]);
  U->uc_mcontext.gregs[REG_RAX] = -EPERM;
#elif defined(__aarch64__)
  Arg0 = long(U->uc_mcontext.regs[0]);
  U->uc_mcontext.regs[0] = (unsigned long long)(-EPERM);
#else
  (void)U;
#endif
  record(Nr, Arg0);
  errno = Saved;
}

//===-- Helpers -----------------------------------------------------------===//

bool skipped(const char *Layer) { return G.Skip.count(Layer) != 0; }

void active(const std::string &Layer) { R.Active.push_back(Layer); }

/// Optional layers do not fail strict mode.
void refuse(const std::string &Layer, const std::string &Why,
            bool Optional = false) {
  R.Refused.push_back({Layer, Why});
  if (G.Mode == measure::SandboxMode::Strict && !Optional && R.Error.empty())
    R.Error = "--sandbox=strict: " + Layer + ": " + Why;
}

std::string errnoText(int E) { return std::strerror(E); }

bool writeFile(const char *Path, const std::string &Text, int &Err) {
  int Fd = ::open(Path, O_WRONLY | O_CLOEXEC);
  if (Fd < 0) {
    Err = errno;
    return false;
  }
  bool Ok = ::write(Fd, Text.data(), Text.size()) == ssize_t(Text.size());
  Err = errno;
  ::close(Fd);
  return Ok;
}

std::string absolute(const std::string &P) {
  char Buf[PATH_MAX];
  if (::realpath(P.c_str(), Buf))
    return Buf;
  if (!P.empty() && P[0] == '/')
    return P;
  if (::getcwd(Buf, sizeof Buf))
    return std::string(Buf) + "/" + P;
  return P;
}

bool under(const std::string &Path, const std::string &Dir) {
  return Path == Dir ||
         (Path.size() > Dir.size() && Path.compare(0, Dir.size(), Dir) == 0 &&
          Path[Dir.size()] == '/');
}

//===-- The layers --------------------------------------------------------===//

void scrubEnvironment() {
  std::vector<std::string> Removed;
  support::scrubbedEnvironment(environ, &Removed);
  // unsetenv drops the pointers; the strings of the initial environment
  // stay in memory (and in /proc/self/environ) unless they are wiped too.
  std::vector<char *> Strings;
  for (char **E = environ; E && *E; ++E)
    if (support::isSecretEntry(*E))
      Strings.push_back(*E);
  for (const std::string &Name : Removed)
    ::unsetenv(Name.c_str());
  for (char *S : Strings)
    std::memset(S, 0, std::strlen(S));
  active("env");
}

void privateTemp() {
  std::string Dir = G.PrivateDir, Cache = G.PrivateDir + "/cuda-cache";
  if ((::mkdir(Dir.c_str(), 0700) != 0 && errno != EEXIST) ||
      (::mkdir(Cache.c_str(), 0700) != 0 && errno != EEXIST)) {
    refuse("tmpdir", "cannot create " + Dir + ": " + errnoText(errno));
    return;
  }
  for (const char *V : {"TMPDIR", "TMP", "TEMP", "TEMPDIR"})
    ::setenv(V, Dir.c_str(), 1);
  ::setenv("CUDA_CACHE_PATH", Cache.c_str(), 1);
  active("tmpdir");
}

/// A tmpfs on /tmp. The job's own directories below /tmp (a temporary job
/// directory, its libraries) are bound back into it at the same paths,
/// through descriptors opened before the tmpfs hides them.
void privateSlashTmp() {
  std::vector<std::string> Used = G.Paths;
  Used.push_back(G.JobDir);
  Used.push_back(G.PrivateDir);
  std::vector<std::string> Dirs;
  for (const std::string &P : Used) {
    std::string A = absolute(P);
    struct stat St;
    if (::stat(A.c_str(), &St) == 0 && !S_ISDIR(St.st_mode))
      A = A.substr(0, A.rfind('/'));
    if (A == "/tmp") {
      refuse("tmpfs", "no private /tmp: the job uses /tmp itself (" + P + ")",
             true);
      return;
    }
    if (under(A, "/tmp"))
      Dirs.push_back(A);
  }
  std::sort(Dirs.begin(), Dirs.end());
  std::vector<std::pair<std::string, int>> Keep;
  for (const std::string &D : Dirs) {
    if (!Keep.empty() && under(D, Keep.back().first))
      continue;
    int Fd = ::open(D.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (Fd < 0)
      continue; // made later (the private dir is made before this)
    Keep.push_back({D, Fd});
  }
  auto CloseAll = [&] {
    for (auto &K : Keep)
      ::close(K.second);
  };
  if (::mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
              "mode=1777,size=1g") != 0) {
    refuse("tmpfs", "cannot mount a tmpfs on /tmp: " + errnoText(errno), true);
    CloseAll();
    return;
  }
  for (auto &[D, Fd] : Keep) {
    for (size_t Slash = 5; Slash != std::string::npos;) {
      Slash = D.find('/', Slash + 1);
      ::mkdir(D.substr(0, Slash).c_str(), 0700);
    }
    std::string From = "/proc/self/fd/" + std::to_string(Fd);
    if (::mount(From.c_str(), D.c_str(), nullptr, MS_BIND | MS_REC, nullptr) !=
        0) {
      int E = errno;
      ::umount2("/tmp", MNT_DETACH);
      refuse("tmpfs", "cannot bind " + D + " into the private /tmp: " +
                          errnoText(E), true);
      CloseAll();
      return;
    }
  }
  CloseAll();
  active("tmpfs");
}

void namespaces() {
  uid_t Uid = ::geteuid();
  gid_t Gid = ::getegid();
  bool User = false;
  if (!skipped("userns")) {
    if (::unshare(CLONE_NEWUSER) != 0) {
      refuse("userns", "no user namespaces (" + errnoText(errno) +
                           "): the candidates keep the worker's user");
    } else {
      int E = 0;
      std::string Id = std::to_string(Uid) + " " + std::to_string(Uid) + " 1\n";
      std::string GId = std::to_string(Gid) + " " + std::to_string(Gid) + " 1\n";
      int Ignored = 0;
      writeFile("/proc/self/setgroups", "deny", Ignored);
      if (!writeFile("/proc/self/uid_map", Id.c_str(), E) ||
          !writeFile("/proc/self/gid_map", GId.c_str(), E)) {
        // Unmapped, the process could create no file: that is not a
        // degraded sandbox but a broken worker.
        R.Error = "in the new user namespace, cannot map uid " +
                  std::to_string(Uid) + ": " + errnoText(E) +
                  " (FORGE_SANDBOX_SKIP=userns runs without it)";
        return;
      }
      User = true;
      active("userns");
    }
  }
  const char *Without = User ? "" : " without a user namespace";
  if (!skipped("mountns")) {
    if (::unshare(CLONE_NEWNS) != 0) {
      refuse("mountns", std::string("no mount namespace") + Without + " (" +
                            errnoText(errno) +
                            "): /tmp is shared with the machine");
    } else if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) !=
               0) {
      refuse("mountns", "cannot make the mounts private: " + errnoText(errno));
    } else {
      active("mountns");
      if (!skipped("tmpfs"))
        privateSlashTmp();
    }
  }
  if (!skipped("netns")) {
    if (::unshare(CLONE_NEWNET) != 0)
      refuse("netns", std::string("no network namespace") + Without + " (" +
                          errnoText(errno) +
                          "): network isolation off (the seccomp filter "
                          "still denies internet sockets)");
    else
      active("netns");
  }
}

void landlock() {
  long Abi = ::syscall(__NR_landlock_create_ruleset, nullptr, 0,
                       LlCreateRulesetVersion);
  if (Abi < 0) {
    int E = errno;
    refuse("landlock",
           E == ENOSYS       ? "no Landlock in this kernel: writes are not "
                               "confined"
           : E == EOPNOTSUPP ? "Landlock is built but not enabled (boot with "
                               "lsm=...,landlock): writes are not confined"
                             : "Landlock refused (" + errnoText(E) + ")");
    return;
  }
  uint64_t Write = LlWriteFile | LlRemoveDir | LlRemoveFile | LlMakeChar |
                   LlMakeDir | LlMakeReg | LlMakeSock | LlMakeFifo |
                   LlMakeBlock | LlMakeSym;
  if (Abi >= 2)
    Write |= LlRefer;
  if (Abi >= 3)
    Write |= LlTruncate;
  LlRulesetAttr Attr;
  Attr.HandledFs = Write;
  size_t Size = sizeof(uint64_t);
  if (Abi >= 4 && !skipped("landlock-net")) {
    Attr.HandledNet = LlNetBindTcp | LlNetConnectTcp; // no port is allowed
    Size = 2 * sizeof(uint64_t);
  }
  if (Abi >= 6) {
    Attr.Scoped = LlScopeSignal;
    Size = sizeof Attr;
  }
  int Fd = int(::syscall(__NR_landlock_create_ruleset, &Attr, Size, 0));
  if (Fd < 0) {
    refuse("landlock", "cannot create a ruleset (ABI " + std::to_string(Abi) +
                           "): " + errnoText(errno));
    return;
  }
  struct Rule {
    std::string Path;
    uint64_t Allowed;
    bool Needed;
  };
  const Rule Rules[] = {
      {G.PrivateDir, Write, true},
      {G.JobDir, Write, true}, // results.jsonl, progress
      {"/dev/shm", Write, false},
      {"/dev", LlWriteFile | (Abi >= 3 ? LlTruncate : 0), false}, // nvidia*, null
  };
  for (const Rule &Ru : Rules) {
    int P = ::open(Ru.Path.c_str(), O_PATH | O_CLOEXEC | O_DIRECTORY);
    if (P < 0) {
      if (Ru.Needed) {
        refuse("landlock", "cannot open " + Ru.Path + ": " + errnoText(errno));
        ::close(Fd);
        return;
      }
      continue;
    }
    LlPathBeneath B{Ru.Allowed, P};
    long Rc = ::syscall(__NR_landlock_add_rule, Fd, LlRulePathBeneath, &B, 0);
    int E = errno;
    ::close(P);
    if (Rc != 0) {
      refuse("landlock", "cannot add the rule for " + Ru.Path + ": " +
                             errnoText(E));
      ::close(Fd);
      return;
    }
  }
  uint32_t Flags = Abi >= 8 ? LlRestrictSelfTsync : 0;
  long Rc = ::syscall(__NR_landlock_restrict_self, Fd, Flags);
  int E = errno;
  ::close(Fd);
  if (Rc != 0) {
    refuse("landlock", "cannot enforce the ruleset: " + errnoText(E));
    return;
  }
  active("landlock");
  if (skipped("landlock-net"))
    ;
  else if (Abi < 4)
    refuse("landlock-net",
           "Landlock ABI " + std::to_string(Abi) +
               " has no network rules (the network namespace and seccomp "
               "remain)",
           true);
  else
    active("landlock-net");
  if (Abi < 8)
    refuse("landlock-threads",
           "Landlock ABI " + std::to_string(Abi) +
               " restricts the loading thread and the threads it starts, "
               "not the CUDA driver's earlier threads",
           true);
}

/// A tiny BPF assembler: jumps to labels, resolved at the end.
class Bpf {
public:
  int label() {
    Labels.push_back(-1);
    return int(Labels.size()) - 1;
  }
  void place(int L) { Labels[size_t(L)] = long(Code.size()); }
  void load(uint32_t Offset) {
    Code.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, Offset));
  }
  void ret(uint32_t V) { Code.push_back(BPF_STMT(BPF_RET | BPF_K, V)); }
  /// if (A OP K) goto L; else fall through.
  void jump(uint16_t Op, uint32_t K, int L) {
    Fixes.push_back({Code.size(), L});
    Code.push_back(BPF_JUMP(BPF_JMP | Op | BPF_K, K, 0, 0));
  }
  bool finish() {
    for (auto [At, L] : Fixes) {
      long Off = Labels[size_t(L)] - long(At) - 1;
      if (Labels[size_t(L)] < 0 || Off < 0 || Off > 255)
        return false;
      Code[At].jt = uint8_t(Off);
    }
    return true;
  }
  std::vector<sock_filter> Code;

private:
  std::vector<long> Labels;
  std::vector<std::pair<size_t, int>> Fixes;
};

/// The filter. Deny is what a denied call gets: SECCOMP_RET_USER_NOTIF
/// (the listener thread records it and answers EPERM) or SECCOMP_RET_TRAP
/// (the SIGSYS handler does).
bool assemble(uint32_t Deny, std::vector<sock_filter> &Out) {
  constexpr uint32_t Nr = offsetof(seccomp_data, nr),
                     Arch = offsetof(seccomp_data, arch),
                     Arg0 = offsetof(seccomp_data, args); // low word (little endian)
  Bpf B;
  int ArchOk = B.label(), Trap = B.label(), NoSys = B.label(),
      Clone = B.label(), Socket = B.label(), Sig = B.label(), Allow = B.label();
  B.load(Arch);
  B.jump(BPF_JEQ, AuditArch, ArchOk);
  B.ret(SECCOMP_RET_KILL_PROCESS); // another ABI's system call numbers
  B.place(ArchOk);
  B.load(Nr);
#if defined(__x86_64__)
  B.jump(BPF_JGE, 0x40000000u, Trap); // the x32 ABI's numbers
#endif
  for (const Denied &D : DeniedCalls)
    B.jump(BPF_JEQ, uint32_t(D.Nr), Trap);
  B.jump(BPF_JEQ, __NR_clone, Clone);
#ifdef __NR_clone3
  B.jump(BPF_JEQ, __NR_clone3, NoSys);
#endif
  B.jump(BPF_JEQ, __NR_socket, Socket);
  B.jump(BPF_JEQ, __NR_rt_sigaction, Sig);
  B.ret(SECCOMP_RET_ALLOW);
  B.place(NoSys);
  B.ret(SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
  B.place(Clone); // threads yes, processes no
  B.load(Arg0);
  B.jump(BPF_JSET, CLONE_THREAD, Allow);
  B.ret(Deny);
  B.place(Socket); // AF_UNIX and AF_NETLINK only
  B.load(Arg0);
  B.jump(BPF_JEQ, AF_UNIX, Allow);
  B.jump(BPF_JEQ, AF_NETLINK, Allow);
  B.ret(Deny);
  B.place(Sig); // the SIGSYS handler stays
  B.load(Arg0);
  B.jump(BPF_JEQ, SIGSYS, Trap);
  B.place(Allow); // (BPF jumps only forward: the returns come last)
  B.ret(SECCOMP_RET_ALLOW);
  B.place(Trap);
  B.ret(Deny);
  if (!B.finish())
    return false;
  Out = B.Code;
  return true;
}

/// Answers the filter's notifications: records the call and makes it fail
/// with EPERM. Unlike a signal handler it also sees the calls made with
/// every signal blocked (posix_spawn, so system(), blocks them around its
/// clone).
void listen(int Fd) {
  seccomp_notif_sizes Sizes{};
  if (::syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &Sizes) != 0)
    return;
  std::vector<char> ReqBuf(std::max<size_t>(Sizes.seccomp_notif,
                                            sizeof(seccomp_notif)));
  std::vector<char> RespBuf(std::max<size_t>(Sizes.seccomp_notif_resp,
                                             sizeof(seccomp_notif_resp)));
  auto *Req = reinterpret_cast<seccomp_notif *>(ReqBuf.data());
  auto *Resp = reinterpret_cast<seccomp_notif_resp *>(RespBuf.data());
  for (;;) {
    std::memset(ReqBuf.data(), 0, ReqBuf.size());
    if (::ioctl(Fd, SECCOMP_IOCTL_NOTIF_RECV, Req) != 0) {
      if (errno == EINTR || errno == ENOENT)
        continue;
      return;
    }
    record(long(Req->data.nr), long(Req->data.args[0]));
    std::memset(RespBuf.data(), 0, RespBuf.size());
    Resp->id = Req->id;
    Resp->error = -EPERM;
    ::ioctl(Fd, SECCOMP_IOCTL_NOTIF_SEND, Resp);
  }
}

void seccompFilter() {
  if (AuditArch == 0) {
    refuse("seccomp", "no filter for this architecture");
    return;
  }
  std::vector<sock_filter> Code;
  if (!assemble(SECCOMP_RET_USER_NOTIF, Code)) {
    refuse("seccomp", "the filter does not assemble");
    return;
  }
  sock_fprog Prog{uint16_t(Code.size()), Code.data()};
  // Every thread, the CUDA driver's too (TSYNC); the listener's descriptor
  // comes back (NEW_LISTENER; with TSYNC it needs TSYNC_ESRCH).
  long Fd = ::syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
                      SECCOMP_FILTER_FLAG_TSYNC |
                          SECCOMP_FILTER_FLAG_TSYNC_ESRCH |
                          SECCOMP_FILTER_FLAG_NEW_LISTENER,
                      &Prog);
  if (Fd >= 0) {
    // The thread exists before the filter could deny its clone: it is
    // started first and waits for the descriptor.
    ListenerFd.store(int(Fd));
    active("seccomp");
    return;
  }
  // An older kernel: the same filter with a SIGSYS handler. A call made
  // with SIGSYS blocked then ends the process (recorded as crashed).
  int E = errno;
  ListenerFd.store(-2);
  struct sigaction SA;
  std::memset(&SA, 0, sizeof SA);
  SA.sa_sigaction = onSigsys;
  SA.sa_flags = SA_SIGINFO;
  sigemptyset(&SA.sa_mask);
  if (::sigaction(SIGSYS, &SA, nullptr) != 0) {
    refuse("seccomp", "cannot install the SIGSYS handler: " + errnoText(errno));
    return;
  }
  sigset_t Set;
  sigemptyset(&Set);
  sigaddset(&Set, SIGSYS);
  ::sigprocmask(SIG_UNBLOCK, &Set, nullptr);
  if (!assemble(SECCOMP_RET_TRAP, Code)) {
    refuse("seccomp", "the filter does not assemble");
    return;
  }
  Prog = sock_fprog{uint16_t(Code.size()), Code.data()};
  if (::syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
                SECCOMP_FILTER_FLAG_TSYNC, &Prog) != 0) {
    int E2 = errno;
    refuse("seccomp", E2 == EINVAL || E2 == ENOSYS
                          ? "no seccomp filters in this kernel (" +
                                errnoText(E2) + "): exec, fork and sockets "
                                                "are not denied"
                          : "cannot install the filter: " + errnoText(E2));
    return;
  }
  active("seccomp");
  refuse("seccomp-notify",
         "no seccomp user notification (" + errnoText(E) +
             "): denials are recorded by a SIGSYS handler",
         true);
}

void writeReport() {
  if (G.Process != 1)
    return;
  std::string Act, Refused;
  for (const std::string &A : R.Active)
    Act += (Act.empty() ? "" : ",") + jsonQuote(A);
  for (const auto &[Layer, Why] : R.Refused)
    Refused += (Refused.empty() ? "" : ",") + std::string("{\"layer\":") +
               jsonQuote(Layer) + ",\"reason\":" + jsonQuote(Why) + "}";
  appendResultLine(G.JobDir,
                   "{\"type\":\"sandbox\",\"mode\":" +
                       jsonQuote(measure::sandboxModeName(G.Mode)) +
                       ",\"active\":[" + Act + "],\"refused\":[" + Refused +
                       "],\"process\":" + std::to_string(G.Process) + "}",
                   /*Annotate=*/false);
  std::string Names;
  for (const std::string &A : R.Active)
    Names += (Names.empty() ? "" : ", ") + A;
  std::fprintf(stderr, "forge-worker: sandbox (%s): %s\n",
               measure::sandboxModeName(G.Mode),
               Names.empty() ? "no layer active" : Names.c_str());
  for (const auto &[Layer, Why] : R.Refused)
    std::fprintf(stderr, "forge-worker: sandbox: %s: %s\n", Layer.c_str(),
                 Why.c_str());
}

/// Replaces the JSON string value of Key in Line with Value (already quoted).
bool replaceString(std::string &Line, const std::string &Key,
                   const std::string &Quoted) {
  std::string Needle = "\"" + Key + "\":\"";
  size_t P = Line.find(Needle);
  if (P == std::string::npos)
    return false;
  size_t Start = P + Needle.size() - 1, Q = Start + 1;
  while (Q < Line.size() && Line[Q] != '"')
    Q += Line[Q] == '\\' ? 2 : 1;
  if (Q >= Line.size())
    return false;
  Line.replace(Start, Q + 1 - Start, Quoted);
  return true;
}

} // namespace

const std::vector<std::string> &layerNames() {
  static const std::vector<std::string> Names = {
      "env",      "tmpdir",       "userns",           "mountns", "tmpfs",
      "netns",    "landlock",     "landlock-net",     "seccomp"};
  return Names;
}

bool parseSkip(const std::string &Text, std::set<std::string> &Out,
               std::string &Error) {
  size_t Start = 0;
  while (Start <= Text.size()) {
    size_t E = Text.find(',', Start);
    if (E == std::string::npos)
      E = Text.size();
    std::string Name = Text.substr(Start, E - Start);
    if (!Name.empty()) {
      bool Known = false;
      for (const std::string &L : layerNames())
        Known |= L == Name;
      if (!Known) {
        std::string All;
        for (const std::string &L : layerNames())
          All += (All.empty() ? "" : ", ") + L;
        Error = "FORGE_SANDBOX_SKIP names an unknown layer '" + Name +
                "' (the layers: " + All + ")";
        return false;
      }
      Out.insert(Name);
    }
    Start = E + 1;
  }
  return true;
}

bool prepare(const Options &Opts) {
  G = Opts;
  R = Report();
  Prepared = true;
  if (G.PrivateDir.empty())
    G.PrivateDir = (G.JobDir.empty() ? std::string(".") : G.JobDir) +
                   "/sandbox-tmp";
  G.PrivateDir = absolute(G.PrivateDir);
  std::snprintf(ProgressPath, sizeof ProgressPath, "%s/progress",
                G.JobDir.empty() ? "." : G.JobDir.c_str());
  if (G.Mode == measure::SandboxMode::Off) {
    if (G.Process == 1)
      std::fprintf(stderr,
                   "forge-worker: WARNING: the sandbox is OFF (option sandbox "
                   "off): candidate code runs with the worker's user, "
                   "environment, files and network\n");
    return true;
  }
  for (const std::string &L : layerNames())
    if (skipped(L.c_str()))
      refuse(L, "switched off by FORGE_SANDBOX_SKIP");
  if (!skipped("env"))
    scrubEnvironment();
  if (!skipped("tmpdir"))
    privateTemp();
  namespaces();
  if (!R.Error.empty())
    writeReport();
  return R.Error.empty();
}

bool enter() {
  if (!Prepared || G.Mode == measure::SandboxMode::Off)
    return true;
  // Both layers need no_new_privs (or CAP_SYS_ADMIN); it also makes a
  // set-user-id program useless, should one be started anyway.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    refuse("no_new_privs", errnoText(errno));
  if (!skipped("landlock"))
    landlock();
  if (!skipped("seccomp")) {
    std::thread([] {
      int Fd;
      while ((Fd = ListenerFd.load()) == -1)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (Fd >= 0)
        listen(Fd);
    }).detach();
    seccompFilter();
    if (ListenerFd.load() == -1)
      ListenerFd.store(-2); // no filter: the thread ends
  }
  writeReport();
  if (!R.Error.empty())
    std::fprintf(stderr, "forge-worker: sandbox: %s\n", R.Error.c_str());
  return R.Error.empty();
}

const Report &report() { return R; }

std::string privateDir() { return Prepared ? G.PrivateDir : std::string(); }

void annotateResultLine(std::string &Line) {
  if (!Prepared || G.Mode == measure::SandboxMode::Off)
    return;
  std::string Type = stringField(Line, "type");
  if (Type != "candidate" && Type != "sandbox-check")
    return;
  std::string Id = stringField(Line, "id");
  std::vector<std::pair<std::string, unsigned>> Calls;
  {
    Guard Hold;
    for (unsigned I = 0; I < NumRecords; ++I)
      if (Id == Records[I].Id)
        Calls.push_back({Records[I].Call, Records[I].Count});
  }
  if (Calls.empty() || Line.empty() || Line.back() != '}')
    return;
  std::string List, Text;
  for (const auto &[Call, Count] : Calls) {
    List += (List.empty() ? "" : ",") + std::string("{\"syscall\":") +
            jsonQuote(Call) + ",\"count\":" + std::to_string(Count) + "}";
    Text += (Text.empty() ? "" : ", ") + Call + " (x" + std::to_string(Count) +
            ")";
  }
  std::string Message =
      "sandbox: denied " + Text + " while loading or running candidate '" +
      Id + "'";
  std::string Old = stringField(Line, "error");
  replaceString(Line, "error",
                jsonQuote(Old.empty() ? Message : Message + "; " + Old));
  replaceString(Line, "status", "\"sandbox-denied\"");
  size_t P = Line.find("\"reasons\":[");
  if (P != std::string::npos) {
    P += 11;
    Line.insert(P, Line[P] == ']' ? "\"sandbox-denied\"" : "\"sandbox-denied\",");
  }
  Line.insert(Line.size() - 1, ",\"sandbox_denied\":[" + List + "]");
  std::fprintf(stderr, "forge-worker: %s\n", Message.c_str());
}

int runCheck(const std::string &JobDir,
             const std::vector<std::pair<std::string, std::string>> &Libraries,
             const Options &Opts) {
  if (!prepare(Opts) || !enter()) {
    if (!R.Error.empty())
      std::fprintf(stderr, "forge-worker: sandbox: %s\n", R.Error.c_str());
    return 2;
  }
  std::string Progress = JobDir + "/progress";
  for (const auto &[Id, Library] : Libraries) {
    int Fd = ::open(Progress.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                    0644);
    if (Fd >= 0) {
      ssize_t Ignored = ::write(Fd, Id.data(), Id.size());
      (void)Ignored;
      ::close(Fd);
    }
    std::string Status = "loaded", Error;
    // A cubin holds device code alone: nothing of it runs on the host.
    bool Cubin = Library.size() > 6 && Library.compare(Library.size() - 6, 6, ".cubin") == 0;
    dlerror();
    void *H = Cubin ? nullptr : ::dlopen(Library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (Cubin) {
    } else if (!H) {
      const char *E = dlerror();
      Status = "load-failed";
      Error = std::string("dlopen: ") + (E ? E : Library.c_str());
    } else if (auto Abi = reinterpret_cast<int (*)()>(
                   ::dlsym(H, "forge_harness_abi"))) {
      Abi();
    }
    std::string Line = "{\"type\":\"sandbox-check\",\"id\":" + jsonQuote(Id) +
                       ",\"status\":" + jsonQuote(Status) +
                       ",\"reasons\":[],\"error\":" + jsonQuote(Error) + "}";
    annotateResultLine(Line);
    std::printf("%s\n", Line.c_str());
    std::fflush(stdout);
    appendResultLine(JobDir, Line, /*Annotate=*/false);
  }
  return 0;
}

} // namespace forge::worker::sandbox
