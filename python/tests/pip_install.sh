#!/usr/bin/env bash
# `pip install .` into a fresh venv, then `import strata` from outside the clone: the wheel's
# extension must find its libraries through $ORIGIN/lib, not through the build tree.
#   python/tests/pip_install.sh BUILD_DIR PYTHON
set -euo pipefail
build=$(cd "$1" && pwd)
python=$2
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Debian's NumPy from the system site-packages: nothing is downloaded.
"$python" -m venv --system-site-packages "$work/venv"
STRATA_BUILD_DIR=$build "$work/venv/bin/pip" install --no-build-isolation --no-index --quiet "$source_dir"
cd "$work"
"$work/venv/bin/python" - <<'PY'
import os
import numpy as np
import strata
assert "site-packages" in strata.__file__, strata.__file__
a = np.arange(4, dtype=np.float32)
t = strata.from_numpy(a)
assert t.data_ptr() == a.ctypes.data
assert float(strata.relu(t - 1).sum()) == 3.0
lib = os.path.join(os.path.dirname(strata.__file__), "lib")
for library in ("engine", "hub", "serve", "dist"):
    assert any(name.startswith(f"libstrata_{library}.so") for name in os.listdir(lib)), os.listdir(lib)
print("pip install: import strata from", os.path.dirname(strata.__file__))
PY
