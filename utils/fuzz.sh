#!/usr/bin/env bash
# Builds the libFuzzer flavour of the fuzz targets (fuzz/, docs/fuzzing.md)
# with clang-22, ASan and UBSan, and runs them over their corpus.
#
#   utils/fuzz.sh [TARGET|all] [SECONDS] [LIBFUZZER-FLAG...]
#   utils/fuzz.sh --merge [TARGET|all]    add what the runs found to fuzz/corpus/
#   utils/fuzz.sh --list
#
# TARGET is edit-blocks, launch-spec, transcript, plan or tuning-db (default
# all, one after another); SECONDS is each run's -max_total_time (default
# 60). New inputs go to $FUZZ_BUILD_DIR/corpus/TARGET, never into the
# checked-in corpus (that is --merge, which minimises: the fewest inputs
# that reach every coverage edge the corpus does not); crashes go
# to $FUZZ_BUILD_DIR/artifacts/TARGET/, the log to $FUZZ_BUILD_DIR/logs/.
# The exit status is non-zero when a run found a crash.
#
# LIBFUZZER-FLAGs go to every run; for a long run that goes on past a
# crash: -fork=1 -ignore_crashes=1 (docs/fuzzing.md).
#
# Environment: FUZZ_BUILD_DIR (default build-fuzz), JOBS (default 2),
# FUZZ_NO_BUILD=1 (run what is built),
# FORGE_CUDA_PATH (default /usr/local/cuda). The build takes the shared
# lock /tmp/forge-build.lock.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
targets_all=(edit-blocks launch-spec transcript plan tuning-db)

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { echo "error: $*" >&2; exit 1; }

mode=run
case "${1:-}" in
  --merge) mode=merge; shift ;;
  --list) printf '%s\n' "${targets_all[@]}"; exit 0 ;;
  -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
target="${1:-all}"
seconds="${2:-60}"
shift $(( $# > 2 ? 2 : $# ))
if [ "$target" = all ]; then
  targets=("${targets_all[@]}")
else
  [[ " ${targets_all[*]} " == *" $target "* ]] ||
    die "unknown fuzz target '$target' (one of: ${targets_all[*]}, all)"
  targets=("$target")
fi
[[ "$seconds" =~ ^[0-9]+$ ]] || die "SECONDS must be a whole number, got '$seconds'"

# libFuzzer's runtime is not part of clang-22 in Debian; CI does not need it.
if ! dpkg-query -W -f='${Status}' libclang-rt-22-dev 2>/dev/null | grep -q "install ok installed"; then
  say "installing libclang-rt-22-dev (libFuzzer and the sanitizer runtimes)"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -q --no-install-recommends libclang-rt-22-dev >/dev/null ||
    { $sudo apt-get update -q >/dev/null &&
      $sudo apt-get install -y -q --no-install-recommends libclang-rt-22-dev >/dev/null; } ||
    die "cannot install libclang-rt-22-dev"
fi

if [ ! -f "$build/build.ninja" ]; then
  say "configuring $build (clang-22, FORGE_FUZZ=ON)"
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 "${launcher[@]}" \
    -DFORGE_FUZZ=ON -DFORGE_BUILD_TESTS=OFF \
    -DFORGE_CUDA_PATH="${FORGE_CUDA_PATH:-/usr/local/cuda}" >/dev/null
fi
if [ -z "${FUZZ_NO_BUILD:-}" ]; then
  say "building ${targets[*]}"
  flock /tmp/forge-build.lock ninja -C "$build" -j"${JOBS:-2}" "${targets[@]/#/forge-fuzz-}"
fi

status=0
for t in "${targets[@]}"; do
  bin="$build/fuzz/forge-fuzz-$t"
  seeds="$root/fuzz/corpus/$t"
  work="$build/corpus/$t"
  mkdir -p "$work" "$build/artifacts/$t" "$build/logs"
  if [ "$mode" = merge ]; then
    say "merging $work into $seeds"
    # Coverage edges only (no hit counts) and a set cover: the fewest
    # inputs that reach every edge the seeds do not.
    "$bin" -merge=1 -set_cover_merge=1 -use_counters=0 "$seeds" "$work" 2>&1 | tail -1
    continue
  fi
  log="$build/logs/$t.log"
  say "fuzzing $t for $seconds s (log: $log)"
  rc=0
  "$bin" "$work" "$seeds" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$t/" "$@" >"$log" 2>&1 || rc=$?
  # The last status line (executions, coverage, corpus), the final stats
  # and any finding.
  grep -E '^#[0-9]+' "$log" | tail -1 || true
  grep -E '^stat::|SUMMARY|^==[0-9]+==ERROR|runtime error|artifact_prefix|Test unit written' "$log" | sort | uniq -c | sort -rn | head -20 || true
  if [ "$rc" != 0 ]; then
    echo "$t: libFuzzer exited with $rc; crash inputs in $build/artifacts/$t/" >&2
    status=1
  fi
done
exit $status
