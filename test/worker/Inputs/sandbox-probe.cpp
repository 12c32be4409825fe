// A malicious candidate harness: its static constructor runs at dlopen and
// tries what the worker's sandbox must stop (docs/sandbox.md). It prints one
// "probe: ATTEMPT: RESULT" line per attempt on stderr. It connects to the
// local TCP port in $PROBE_PORT (test/worker/Inputs/listen.py listens there). Built with the host
// compiler for CI (no kernel; the worker's sandbox-check loads it), or with
// nvcc and -DPROBE_KERNEL as a real harness among real candidates on a GPU.
//   -DPROBE_OUTSIDE="path"  a file it tries to create outside its temp dir
//   -DPROBE_MARKER="path"   what its shell commands would create
//   -DPROBE_BENIGN          the same library without the constructor
#include <arpa/inet.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <string>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

void say(const char *What, bool Blocked, int E) {
  std::fprintf(stderr, "probe: %s: %s%s%s\n", What, Blocked ? "blocked" : "ALLOWED",
               Blocked && E ? " " : "", Blocked && E ? std::strerror(E) : "");
}

#ifndef PROBE_BENIGN
__attribute__((constructor)) void probe() {
  // 1. A shell through system() (posix_spawn: clone3, then clone).
  errno = 0;
  int S = std::system("touch " PROBE_MARKER ".system");
  say("system", S != 0, errno);

  // 2. fork.
  errno = 0;
  pid_t P = ::fork();
  if (P == 0)
    ::_exit(0);
  if (P > 0)
    ::waitpid(P, nullptr, 0);
  say("fork", P < 0, errno);

  // 3. exec in place: if it worked, this process would become the shell.
  errno = 0;
  ::execl("/bin/sh", "sh", "-c", "touch " PROBE_MARKER ".exec", (char *)nullptr);
  say("execve", true, errno);

  // 4. A file outside the private temp dir.
  errno = 0;
  int Fd = ::open(PROBE_OUTSIDE, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int E = errno;
  if (Fd >= 0) {
    ssize_t W = ::write(Fd, "pwned\n", 6);
    (void)W;
    ::close(Fd);
  }
  say("write outside", Fd < 0, E);

  // 5. Its private temp dir is writable (the check above can fail).
  const char *Tmp = std::getenv("TMPDIR");
  std::string Mine = std::string(Tmp ? Tmp : "/nonexistent") + "/probe-scratch";
  Fd = ::open(Mine.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::fprintf(stderr, "probe: write TMPDIR: %s\n", Fd >= 0 ? "ok" : std::strerror(errno));
  if (Fd >= 0)
    ::close(Fd);

  // 6. A TCP connection to a local listener.
  const char *Port = std::getenv("PROBE_PORT");
  errno = 0;
  int Sock = ::socket(AF_INET, SOCK_STREAM, 0);
  E = errno;
  bool Connected = false;
  if (Sock >= 0) {
    sockaddr_in A{};
    A.sin_family = AF_INET;
    A.sin_port = htons(uint16_t(Port ? std::atoi(Port) : 9));
    A.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    Connected = ::connect(Sock, reinterpret_cast<sockaddr *>(&A), sizeof A) == 0;
    E = errno;
    if (Connected) {
      ssize_t W = ::write(Sock, "pwned\n", 6);
      (void)W;
    }
    ::close(Sock);
  }
  say("connect", !Connected, E);

  // 7. ptrace.
  errno = 0;
  long T = ::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
  say("ptrace", T != 0, errno);

  // 8. The model's API key, from the environment and from the process's
  //    initial environment block.
  const char *Key = std::getenv("FORGE_LLM_API_KEY");
  bool Seen = Key && *Key;
  char Buf[65536];
  Fd = ::open("/proc/self/environ", O_RDONLY);
  if (Fd >= 0) {
    ssize_t N = ::read(Fd, Buf, sizeof Buf);
    ::close(Fd);
    for (ssize_t I = 0; N > 0 && I + 14 <= N; ++I)
      Seen |= std::memcmp(Buf + I, "sk-forge-probe", 14) == 0;
  }
  say("read FORGE_LLM_API_KEY", !Seen, 0);
}
#endif

} // namespace

extern "C" int forge_harness_abi(void) { return 1; }

#ifdef PROBE_KERNEL
__global__ void probe_copy(const float *In, float *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = In[I];
}
extern "C" const void *forge_entry_0(void) { return (const void *)probe_copy; }
#else
extern "C" const void *forge_entry_0(void) { return (const void *)&forge_harness_abi; }
#endif
