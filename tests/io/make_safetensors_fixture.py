#!/usr/bin/env python3
"""Independent check of Strata's safetensors against Hugging Face's Python implementation.

usage: make_safetensors_fixture.py DIR
  writes DIR/python.safetensors with Python's safetensors (the tensors below), and, when
  DIR/strata.safetensors exists, reads it with Python's safetensors and checks it holds the same
  tensors and metadata. Exits 0 on success, 1 on a mismatch, 77 when safetensors and numpy are
  missing and cannot be installed (the test then skips).
"""
import os
import subprocess
import sys


def ensure_modules():
    try:
        import numpy  # noqa: F401
        import safetensors  # noqa: F401
        return True
    except ImportError:
        pass
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "safetensors", "numpy"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import numpy  # noqa: F401
        import safetensors  # noqa: F401
        return True
    except ImportError:
        return False


def expected():
    # The same values the C++ test builds (tests/io/test_safetensors.cpp, PythonInterop).
    import numpy as np
    return {
        "f32": np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5,
        "f64": np.array([1.5, -2.25, 1e300], dtype=np.float64),
        "i64": np.array([[-(2**40)], [7]], dtype=np.int64),
        "i32": np.array([-3, 0, 2**31 - 1], dtype=np.int32),
        "u8": np.array([0, 255, 17], dtype=np.uint8),
        "bool": np.array([True, False, True, True], dtype=np.bool_),
        "scalar": np.array(3.25, dtype=np.float32),
    }


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    if not ensure_modules():
        print("safetensors/numpy unavailable", file=sys.stderr)
        return 77
    import numpy as np
    from safetensors.numpy import load_file, save_file
    from safetensors import safe_open

    out = sys.argv[1]
    want = expected()
    save_file(want, os.path.join(out, "python.safetensors"), metadata={"format": "np", "who": "python"})

    theirs = os.path.join(out, "strata.safetensors")
    if os.path.exists(theirs):
        got = load_file(theirs)
        if sorted(got) != sorted(want):
            print("names differ:", sorted(got), sorted(want), file=sys.stderr)
            return 1
        for name, value in want.items():
            if got[name].dtype != value.dtype or got[name].shape != value.shape or not np.array_equal(got[name], value):
                print("tensor", name, "differs:", got[name], value, file=sys.stderr)
                return 1
        with safe_open(theirs, framework="np") as f:
            if f.metadata() != {"who": "strata", "quote": "it's \"q\"; é"}:
                print("metadata differs:", f.metadata(), file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
