#!/usr/bin/env bash
# Runs bench_vs_libtorch with the environment Debian's libtorch is fastest with, so that the
# ratios compare Strata with libtorch at its best. Strata itself needs none of this.
#   bench/run.sh BUILD_DIR/bench/bench_vs_libtorch [args...]
set -euo pipefail
bin=${1:?usage: $0 path/to/bench_vs_libtorch}
shift

# OpenBLAS built for OpenMP shares libgomp's pool with libtorch and Strata (the pthreads build
# would start a second pool that fights it for the cores).
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# OpenBLAS 0.3.21 does not recognise every AVX-512 CPU and falls back to a slower core; name it.
# Forcing SkylakeX on a CPU without AVX-512 (e.g. AMD Zen 3) dies with SIGILL, so only then.
if grep -qw avx512f /proc/cpuinfo; then
  export OPENBLAS_CORETYPE=SkylakeX
fi
# Stop glibc returning large buffers to the system after every op (libtorch has no caching
# allocator on CPU; without this each 40 MB temporary costs an mmap and page faults).
export GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4294967296:glibc.malloc.trim_threshold=4294967296
export OMP_NUM_THREADS=2

exec "$bin" "$@"
