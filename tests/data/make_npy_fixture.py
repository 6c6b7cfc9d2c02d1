#!/usr/bin/env python3
"""Reference .npy files for tests/data/test_npy.cpp, written and checked by NumPy itself.

  make_npy_fixture.py write DIR   writes the fixtures below into DIR
  make_npy_fixture.py check DIR   checks the files Strata wrote into DIR (strata_*.npy)

Exit status: 0 on success, 1 on a mismatch, 3 when NumPy is missing and cannot be installed.
"""
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    if subprocess.call([sys.executable, "-m", "pip", "install", "-q", "numpy"]) != 0:
        sys.exit(3)
    import numpy as np


def fixtures():
    return {
        "f32.npy": (np.arange(24, dtype="<f4").reshape(2, 3, 4) / 4, {}),
        "f64_fortran.npy": (np.asfortranarray(np.arange(12, dtype="<f8").reshape(3, 4) - 5.5), {}),
        "i64.npy": (np.arange(-5, 6, dtype="<i8"), {}),
        "i32.npy": (np.array([[1, -2], [3, -2**31]], dtype="<i4"), {}),
        "u8.npy": (np.array([0, 1, 128, 255], dtype="|u1"), {}),
        "bool.npy": (np.array([True, False, True]), {}),
        "f32_big_endian.npy": (np.array([1.5, -2.25, 3e10], dtype=">f4"), {}),
        "scalar.npy": (np.float64(3.5), {}),
        "empty.npy": (np.zeros((0, 3), dtype="<f4"), {}),
    }


def expected_from_strata():
    return {
        # Strata writes the transpose of arange(12).reshape(3, 4): a non-contiguous view.
        "strata_f32.npy": np.arange(12, dtype="<f4").reshape(3, 4).T,
        "strata_i64.npy": np.arange(-3, 3, dtype="<i8"),
        "strata_u8.npy": np.array([[7]], dtype="|u1"),
        "strata_bool.npy": np.array([True, False]),
        "strata_scalar.npy": np.float64(-0.5),
    }


def main():
    mode, directory = sys.argv[1], sys.argv[2]
    if mode == "write":
        for name, (array, _) in fixtures().items():
            np.save(f"{directory}/{name}", array)
        return 0
    failures = 0
    for name, want in expected_from_strata().items():
        got = np.load(f"{directory}/{name}")
        if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
            print(f"{name}: got {got.dtype} {got.shape} {got!r}, expected {want.dtype} {want.shape} {want!r}")
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
