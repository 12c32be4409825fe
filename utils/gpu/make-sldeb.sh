#!/usr/bin/env bash
# Gathers Debian 12's Slurm and munge as .debs into .sldeb/ (ignored by
# git), for utils/gpu/slurm-install.sh to unpack on the GPU machine, which
# has no package registry. Takes the dependency closure of slurmctld,
# slurmd, slurm-client and munge, less the base system every image has
# (libc, PAM, zlib, ...): from apt's cache where it is, else apt-get
# download. The device call then carries `.sldeb` beside `bundle`.
#
#   utils/gpu/make-sldeb.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dest="$root/.sldeb"
base='^(libc6|libgcc-s1|libstdc\+\+6|zlib1g|tar|passwd|login|libpam.*|sysvinit-utils|lsb-base|libselinux1|libsemanage.*|libsepol2|libtinfo6|readline-common|libreadline8|debconf|perl-base|libcrypt1|libaudit.*|libcap-ng0|libbz2-1.0|liblzma5|libzstd1|libpcre2-8-0|libmd0|libudev1|libsystemd0|libcap2|libgcrypt20|libgpg-error0|liblz4-1|ucf|sensible-utils|coreutils|dpkg|adduser|init-system-helpers|libdb5.3|libacl1|libattr1|libssl3|libnewt0.52|libslang2|libtextwrap1|whiptail|debianutils|libelogind0|libsystemd0|cdebconf|libdebian-installer4|install-info|gcc-12-base)$'
pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
         --no-breaks --no-replaces --no-enhances slurmctld slurmd slurm-client munge |
       grep -v '^[ <]' | sort -u | grep -v -E "$base")
rm -rf "$dest" && mkdir -p "$dest"
cd "$dest"
for p in $pkgs; do
  if f=$(ls /var/cache/apt/archives/"${p}"_*.deb 2>/dev/null | head -1) && [[ -n $f ]]; then
    cp "$f" .
  else
    apt-get download "$p"
  fi
done
ls -1 "$dest"
du -sh "$dest"
