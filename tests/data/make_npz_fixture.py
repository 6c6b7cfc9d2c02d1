#!/usr/bin/env python3
"""Reference .npz files for tests/data/test_npz.cpp, written by NumPy itself.

  make_npz_fixture.py write DIR   writes the fixtures below into DIR

Exit status: 0 on success, 3 when NumPy is missing and cannot be installed.
"""
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    if subprocess.call([sys.executable, "-m", "pip", "install", "-q", "numpy"]) != 0:
        sys.exit(3)
    import numpy as np


def main():
    directory = sys.argv[2]
    x = (np.arange(30, dtype="<f4").reshape(5, 2, 3) - 7) / 8
    y = np.array([3, 1, 4, 1, 5], dtype="<i8")
    mask = np.array([[0, 255], [1, 128]], dtype="|u1")
    np.savez(f"{directory}/stored.npz", x=x, y=y, mask=mask)
    np.savez_compressed(f"{directory}/compressed.npz", features=x.astype("<f8"), labels=y.astype("<i4"))
    np.savez(f"{directory}/mismatch.npz", x=x, y=y[:4])
    np.savez(f"{directory}/scalar.npz", x=np.float32(1.5), y=y)
    return 0


if __name__ == "__main__":
    sys.exit(main())
