#!/usr/bin/env bash
# The GPU checks in one call, for a machine with CUDA and CuPy: the gpu-marked tests, then the
# large-array workloads (5, 6) on CuPy against a CuPy floor. Extra arguments go to run.py
# (e.g. -r 9, --json gpu.json). Exit status: pytest's, else run.py's.
set -uo pipefail
cd "$(dirname "$0")/.."
# This checkout's package, installed or not (a GPU image may hold CuPy but not chainer_compat).
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
python="${PYTHON:-python3}"

if ! "$python" -c "import cupy, sys; sys.exit(cupy.cuda.runtime.getDeviceCount() == 0)" 2>/dev/null; then
    echo "gpu.sh needs CuPy and a CUDA device: pip install -e '.[cuda12]' (or '.[cuda13]')" >&2
    exit 2
fi

echo "== gpu-marked tests"
# In parallel where pytest-xdist is installed: most of the time goes to compiling kernels.
parallel=()
if "$python" -c "import xdist" 2>/dev/null; then parallel=(-n auto); fi
"$python" -m pytest -m gpu -q "${parallel[@]}" tests
tests_status=$?

echo "== workloads 5 and 6 on CuPy"
"$python" benchmarks/run.py --gpu "$@"
bench_status=$?

if [ "$tests_status" -ne 0 ]; then exit "$tests_status"; fi
exit "$bench_status"
