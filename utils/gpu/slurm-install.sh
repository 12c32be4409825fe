#!/usr/bin/env bash
# On the GPU machine: Debian 12's Slurm and munge from .sldeb
# (utils/gpu/make-sldeb.sh, carried as .debs: the machine has no package
# registry), unpacked where not installed, so that
# utils/slurm/local-cluster.sh can start a single-node cluster with the GPU
# as its gres. Used by cluster-check.sh and campaign-check.sh.
#
#   slurm-install.sh STAGE     (a scratch directory)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work_stage=${1:?usage: slurm-install.sh STAGE}
# Unpacked into a staging root first: Debian 12's packages put libraries
# in /lib, which on this image is a link to usr/lib that `dpkg -x` into /
# would replace by a directory (ld then misses libm.so.6). The staging
# root's /lib, /bin and /sbin go under /usr instead.
stage=$work_stage
rm -rf "$stage" && mkdir -p "$stage"
for f in "$root"/.sldeb/*.deb; do
  pkg=$(dpkg-deb -f "$f" Package)
  if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    echo "installed already: $pkg"
  else
    dpkg -x "$f" "$stage" && echo "unpacked: $pkg"
  fi
done
for top in lib lib64 bin sbin; do
  if [[ -d $stage/$top && ! -L $stage/$top ]]; then
    mkdir -p "$stage/usr/$top"
    cp -a "$stage/$top/." "$stage/usr/$top/"
    rm -rf "${stage:?}/$top"
  fi
done
cp -a "$stage/." /
ldconfig
# The packages' postinst (not run here) makes slurmctld and slurmd
# alternatives of the -wlm binaries.
for c in slurmctld slurmd; do
  [[ -x /usr/sbin/$c-wlm && ! -e /usr/sbin/$c ]] && ln -s "$c-wlm" "/usr/sbin/$c"
done
for c in munged slurmctld-wlm slurmd-wlm sbatch squeue; do
  p=$(command -v "$c" || ls /usr/sbin/"$c" 2>/dev/null)
  echo "$c: ${p:-missing}"
  [[ -n $p ]] && ldd "$p" | grep "not found"
done
# slurmd's cgroup/v2 plugin puts slurmstepd in system.slice, which a
# machine without systemd lacks.
mount | grep -i cgroup
if [[ -d /sys/fs/cgroup && ! -d /sys/fs/cgroup/system.slice ]]; then
  mkdir /sys/fs/cgroup/system.slice && echo "made /sys/fs/cgroup/system.slice"
fi
cat /sys/fs/cgroup/cgroup.controllers /sys/fs/cgroup/cgroup.subtree_control 2>&1
# Usable when the daemons and the client commands are there.
for c in munged slurmctld slurmd sbatch squeue; do
  command -v "$c" >/dev/null || [[ -x /usr/sbin/$c ]] || { echo "missing: $c"; exit 1; }
done
exit 0
