#!/bin/sh
# wrap-nvcc.sh REAL DIR LOG: makes DIR a CUDA toolkit that is REAL (links to
# its files) except for bin/nvcc, which appends its arguments to LOG and runs
# REAL's nvcc. Tests pass --cuda-path DIR to see every nvcc a run starts.
real=$1 dir=$2 log=$3
mkdir -p "$dir/bin" || exit 1
for f in "$real"/*; do
  [ "$(basename "$f")" = bin ] || ln -sf "$f" "$dir/" || exit 1
done
for f in "$real"/bin/*; do
  [ "$(basename "$f")" = nvcc ] || ln -sf "$f" "$dir/bin/" || exit 1
done
cat > "$dir/bin/nvcc" <<WRAP
#!/bin/sh
echo "nvcc \$*" >> "$log"
exec "$real/bin/nvcc" "\$@"
WRAP
chmod +x "$dir/bin/nvcc"
