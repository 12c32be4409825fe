#!/bin/sh
# wrap-nvcc-env.sh REAL DIR LOG: as test/Inputs/wrap-nvcc.sh (DIR is the
# toolkit REAL with its own bin/nvcc), but the wrapper appends the
# environment nvcc was started with to LOG, then runs REAL's nvcc.
real=$1 dir=$2 log=$3
sh "$(dirname "$0")/../../../Inputs/wrap-nvcc.sh" "$real" "$dir" /dev/null || exit 1
cat > "$dir/bin/nvcc" <<WRAP
#!/bin/sh
{ echo "== nvcc \$*"; env; } >> "$log"
exec "$real/bin/nvcc" "\$@"
WRAP
chmod +x "$dir/bin/nvcc"
