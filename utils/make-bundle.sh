#!/usr/bin/env bash
# Builds a relocatable forge-port for machines without LLVM (the GPU
# machine): Clang/LLVM linked statically, Clang's resource headers and the
# few shared libraries an Ubuntu 24.04 image lacks beside it, found through
# an $ORIGIN rpath. Writes bundle/forge-port.tar.xz (staged in the build
# directory, so that only the archive travels to the GPU machine).
#
#   utils/make-bundle.sh            # then: tar xJf forge-port.tar.xz && forge-port/bin/forge-port --version
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-static}"
out="$root/bundle"
stage="$build/stage"
"$root/utils/setup.sh" --deps   # the Debian packages (static archives are in libclang-22-dev)
# The static link also needs libzstd's development files.
if ! dpkg-query -W -f='${Status}' libzstd-dev 2>/dev/null | grep -q "install ok installed"; then
  ${SUDO:-} apt-get install -y -q libzstd-dev >/dev/null
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DFORGE_STATIC_CLANG=ON -DFORGE_BUILD_TESTS=OFF >/dev/null
fi
ninja -C "$build" forge-port
rm -rf "$stage" && mkdir -p "$stage/forge-port/bin" "$stage/forge-port/lib/clang" "$out"
cp "$build/bin/forge-port" "$stage/forge-port/bin/"
strip "$stage/forge-port/bin/forge-port"
res=/usr/lib/llvm-22/lib/clang/22
mkdir -p "$stage/forge-port/lib/clang/22"
cp -r "$res/include" "$stage/forge-port/lib/clang/22/"
# The CMake package (docs/cmake.md): without ForgePortTargets.cmake it finds
# bin/forge-port beside it; forge-worker is built on the GPU machine.
mkdir -p "$stage/forge-port/lib/cmake/ForgePort"
cp "$root/cmake/ForgePortConfig.cmake" "$build/lib/cmake/ForgePort/ForgePortConfigVersion.cmake" \
   "$stage/forge-port/lib/cmake/ForgePort/"
# Shared libraries outside glibc and the C++ runtime: the image lacks some.
ldd "$build/bin/forge-port" | awk '/=> \// {print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*|ld-linux*|libgcc_s.so*|libstdc++.so*) ;;
    *) cp -L "$lib" "$stage/forge-port/lib/" ;;
  esac
done
tar -C "$stage" -cJf "$out/forge-port.tar.xz" forge-port
ls -la "$out/forge-port.tar.xz"
"$stage/forge-port/bin/forge-port" --version
