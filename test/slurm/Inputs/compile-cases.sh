#!/usr/bin/env bash
# tune-compile.test's cases, run inside its local cluster:
#   compile-cases.sh WORKER DIR FORGE_PORT CUDA
# The toolkit the runs use is CUDA with its nvcc wrapped: the wrapper logs
# the partition it runs on (SLURM_JOB_PARTITION; "here" outside a job) and
# the output it was asked for, then runs the real nvcc.
set -u
worker=$1 dir=$2 fp=$3 cuda=$4
cd "$dir"
mkdir -p toolkit/bin
for e in "$cuda"/*; do [[ $(basename "$e") == bin ]] || ln -s "$e" toolkit/; done
for e in "$cuda"/bin/*; do [[ $(basename "$e") == nvcc ]] || ln -s "$e" toolkit/bin/; done
cat >toolkit/bin/nvcc <<WRAP
#!/usr/bin/env bash
out=
for ((i = 1; i <= \$#; ++i)); do [[ \${!i} == -o ]] && { j=\$((i + 1)); out=\${!j}; }; done
[[ \$* == *--version* ]] || echo "\${SLURM_JOB_PARTITION:-here} \${out##*/}" >>"$dir/nvcc.log"
[[ -n \${NVCC_SLEEP:-} && \$* != *--version* ]] && sleep "\$NVCC_SLEEP"
exec "$cuda/bin/nvcc" "\$@"
WRAP
chmod +x toolkit/bin/nvcc
export FORGE_CACHE_DIR=$dir/cache
common=(--executor slurm --worker "$worker" --task-size 4 --poll 0.3 -j 2
        --cuda-path "$dir/toolkit" --to sm_90 --partition sm_90=h100 --workdir "$dir/work"
        --compile-partition cpu)

"$fp" tune scale.cu --spec scale.json "${common[@]}" --db db.json -i 2>run.err
echo "tune: exit $?"
echo "nvcc runs here: $(grep -c '^here' nvcc.log)"
echo "nvcc runs on cpu: $(grep -cE '^cpu .*\.(so|cubin)$' nvcc.log)"
echo "nvcc runs on h100: $(grep -c '^h100' nvcc.log)"
echo "compile directories left: $(find work/compile -mindepth 1 | wc -l)"
echo "queue after the run: $(squeue --noheader | wc -l)"
cp "$(ls work/compile-cpu-*.sh | head -1)" compile-script.sh

# A compile error on a node reaches the user as nvcc's diagnostics.
sed 's/2.0f \* x/2.0f * undeclared_x/' scale.cu >broken.cu
"$fp" tune broken.cu --spec scale.json "${common[@]}" 2>broken.err
echo "broken: exit $?"

# A campaign of two files: their compiles go out together too, one array
# on cpu a round, as their measurements do on h100.
mkdir -p camp/src camp/specs && cp scale.cu shift.cu camp/src/ && cp scale.json shift.json camp/specs/
FORGE_CACHE_DIR=$dir/cache3 "$fp" tune camp/src/scale.cu camp/src/shift.cu --spec-dir camp/specs \
  "${common[@]/$dir\/work/$dir/work3}" -i 2>camp.err
echo "campaign: exit $?"
# Each file's compiles of a round are one batch directory: an array holding
# two batches holds both files' compiles.
for l in work3/compile-cpu-*.list; do
  echo "compile array: $(wc -l <"$l") task(s) from $(sed 's|/task-[0-9]*$||' "$l" | sort -u | wc -l) file(s)"
done
grep "file(s) tuned" camp.err | sed 's/^forge-port: //'

# Ctrl-C while a compile task runs (the wrapper has logged, and sleeps):
# the tasks are cancelled.
rm -f nvcc.log
export FORGE_CACHE_DIR=$dir/cache2 NVCC_SLEEP=60
"$fp" tune scale.cu --spec scale.json "${common[@]}" --db db2.json 2>int.err &
pid=$!
for _ in $(seq 600); do
  grep -q '^cpu' nvcc.log 2>/dev/null && break
  sleep 0.1
done
echo "nvcc running on cpu when the interrupt came: $(grep -c '^cpu' nvcc.log)"
kill -INT $pid
wait $pid
echo "exit status $?"
echo "queued after the interrupt: $(squeue --noheader | wc -l)"
