//===- Support/Secrets.h - Which environment variables are secrets -*- C++ -*-===//
///
/// \file
/// The one definition of "a secret in the environment", shared by forge-port
/// (lib/Support's Subprocess, for nvcc and the worker) and forge-worker (its
/// supervisor, for the child that loads candidates). Header-only plain C++17:
/// the worker links no LLVM and no lib/Support (docs/sandbox.md).
///
/// A variable is a secret when its NAME, upper-cased,
///  - contains KEY, TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL,
///    AUTH, COOKIE, SESSION or PRIVATE, or
///  - starts with AWS_, AZURE_, GCP_, GOOGLE_, OPENAI_, ANTHROPIC_, HF_,
///    GITHUB_, GH_, GITLAB_, SSH_, GPG_, GNUPG, VAULT_, NPM_ or FORGE_LLM_
///    (the model endpoint's settings),
/// or when its VALUE is a URL with a password ("scheme://user:pass@host",
/// e.g. a proxy setting).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_SUPPORT_SECRETS_H
#define FORGE_SUPPORT_SECRETS_H

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace forge::support {

/// Whether the variable NAME (without "=value") names a secret.
inline bool isSecretName(std::string_view Name) {
  std::string U;
  for (char C : Name)
    U += char(std::toupper(static_cast<unsigned char>(C)));
  static const char *const Parts[] = {
      "KEY",  "TOKEN",  "SECRET",  "PASSWORD", "PASSWD", "PASSPHRASE",
      "CREDENTIAL", "AUTH", "COOKIE", "SESSION", "PRIVATE"};
  for (const char *P : Parts)
    if (U.find(P) != std::string::npos)
      return true;
  static const char *const Prefixes[] = {
      "AWS_",    "AZURE_", "GCP_", "GOOGLE_", "OPENAI_", "ANTHROPIC_",
      "HF_",     "GITHUB_", "GH_", "GITLAB_", "SSH_",    "GPG_",
      "GNUPG",   "VAULT_", "NPM_", "FORGE_LLM_"};
  for (const char *P : Prefixes)
    if (U.rfind(P, 0) == 0)
      return true;
  return false;
}

/// Whether Value holds a URL with a password: "scheme://user:pass@...".
inline bool hasUrlPassword(std::string_view Value) {
  size_t S = Value.find("://");
  if (S == std::string_view::npos)
    return false;
  std::string_view Rest = Value.substr(S + 3);
  size_t End = Rest.find_first_of("/?#");
  std::string_view Authority = Rest.substr(0, End);
  size_t At = Authority.rfind('@');
  return At != std::string_view::npos &&
         Authority.substr(0, At).find(':') != std::string_view::npos;
}

/// Whether one "NAME=value" entry of an environment is a secret.
inline bool isSecretEntry(std::string_view Entry) {
  size_t Eq = Entry.find('=');
  std::string_view Name = Entry.substr(0, Eq);
  if (isSecretName(Name))
    return true;
  return Eq != std::string_view::npos && hasUrlPassword(Entry.substr(Eq + 1));
}

/// Env without its secrets ("NAME=value" entries; a null-terminated array
/// such as environ). Removed, when given, receives the names taken out.
inline std::vector<std::string>
scrubbedEnvironment(char *const *Env, std::vector<std::string> *Removed = nullptr) {
  std::vector<std::string> Out;
  for (; Env && *Env; ++Env) {
    std::string_view E(*Env);
    if (!isSecretEntry(E)) {
      Out.emplace_back(E);
      continue;
    }
    if (Removed)
      Removed->emplace_back(E.substr(0, E.find('=')));
  }
  return Out;
}

/// The same for a vector of entries.
inline std::vector<std::string>
scrubbedEnvironment(const std::vector<std::string> &Env,
                    std::vector<std::string> *Removed = nullptr) {
  std::vector<std::string> Out;
  for (const std::string &E : Env) {
    if (!isSecretEntry(E))
      Out.push_back(E);
    else if (Removed)
      Removed->push_back(E.substr(0, E.find('=')));
  }
  return Out;
}

} // namespace forge::support

#endif
