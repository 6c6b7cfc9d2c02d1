#! /usr/bin/env python3
"""Strata from Python against PyTorch from Python, the same work in one run on this machine
(docs/benchmarks.md, "Python"): per-op overhead, plain Python training loops of TensorLayer's
MLP and tutorial CNN, and strata.train.fit from Python against the same fit from C++.

    PYTHONPATH=build/python OMP_WAIT_POLICY=passive \\
      ~/.cache/strata-bench-venv/bin/python bench/python/bench_python.py [--fit-cpp build/bench/bench_fit_cnn]

PyTorch comes from PyPI in a venv outside the clone (`python3 -m venv --system-site-packages
~/.cache/strata-bench-venv && ~/.cache/strata-bench-venv/bin/pip install torch`); both use 2
threads. Without PyTorch the Strata figures print alone.
"""
import argparse
import os
import subprocess
import time

import numpy as np

import strata
from strata import nn

try:
    import torch
except ImportError:  # the Strata side still runs
    torch = None

THREADS = 2


def best_of(fn, repeats=5):
    """The fastest of `repeats` runs of fn, in seconds (the least disturbed by the machine)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def op_overhead(grad):
    """Microseconds per 1-element add."""
    n = 20000
    a, b = strata.tensor([1.0], requires_grad=grad), strata.tensor([2.0])

    def run_strata():
        for _ in range(n):
            a + b

    out = {"strata": best_of(run_strata) / n * 1e6}
    if torch:
        ta, tb = torch.tensor([1.0], requires_grad=grad), torch.tensor([2.0])

        def run_torch():
            for _ in range(n):
                ta + tb

        out["torch"] = best_of(run_torch) / n * 1e6
    return out


def data(n, shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((n,) + shape, dtype=np.float32), rng.integers(0, 10, n).astype(np.int64)


def strata_mlp():
    x = nn.Input([None, 784])
    h = nn.Dense(800, act="relu")(nn.Dense(800, act="relu")(x))
    return nn.Model(x, nn.Dense(10)(h))


def strata_cnn(nhwc=True):
    x = nn.Input([None, 28, 28, 1])
    h = nn.Conv2d(32, [5, 5], "relu", {"padding": "same"})(x)
    h = nn.MaxPool2d([2, 2])(h)
    h = nn.Conv2d(64, [5, 5], "relu", {"padding": "same"})(h)
    h = nn.Flatten()(nn.MaxPool2d([2, 2])(h))
    return nn.Model(x, nn.Dense(10)(nn.Dense(1024, act="relu")(h)))


def torch_mlp():
    return torch.nn.Sequential(torch.nn.Linear(784, 800), torch.nn.ReLU(), torch.nn.Linear(800, 800), torch.nn.ReLU(),
                               torch.nn.Linear(800, 10))


def torch_cnn():
    return torch.nn.Sequential(torch.nn.Conv2d(1, 32, 5, padding=2), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                               torch.nn.Conv2d(32, 64, 5, padding=2), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                               torch.nn.Flatten(), torch.nn.Linear(7 * 7 * 64, 1024), torch.nn.ReLU(),
                               torch.nn.Linear(1024, 10))


def loop_samples_per_second(kind, steps, batch=128):
    """A plain Python training loop (forward, cross-entropy, backward, Adam) in each library."""
    shape = (784,) if kind == "mlp" else (28, 28, 1)
    x, y = data(steps * batch, shape)
    model = strata_mlp() if kind == "mlp" else strata_cnn()
    model(x[:1])
    opt = strata.optim.Adam(model.trainable_weights, lr=1e-3)
    xs = [strata.from_numpy(x[i * batch:(i + 1) * batch]) for i in range(steps)]
    ys = [strata.from_numpy(y[i * batch:(i + 1) * batch]) for i in range(steps)]

    def run_strata():
        for xb, yb in zip(xs, ys):
            loss = strata.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()

    out = {"strata": steps * batch / best_of(run_strata, 3)}
    if torch:
        tmodel = torch_mlp() if kind == "mlp" else torch_cnn()
        topt = torch.optim.Adam(tmodel.parameters(), lr=1e-3)
        tx = torch.from_numpy(x if kind == "mlp" else np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
        ty = torch.from_numpy(y)
        txs = [tx[i * batch:(i + 1) * batch] for i in range(steps)]
        tys = [ty[i * batch:(i + 1) * batch] for i in range(steps)]

        def run_torch():
            for xb, yb in zip(txs, tys):
                loss = torch.nn.functional.cross_entropy(tmodel(xb), yb)
                topt.zero_grad()
                loss.backward()
                topt.step()

        out["torch"] = steps * batch / best_of(run_torch, 3)
    return out


def fit_python_samples_per_second(n):
    """bench_fit_cnn's work from Python: the `make run` CNN, one epoch of fit on n images."""
    import strata.tl as tl

    x_train, y_train = tl.files.load_fashion_mnist_dataset(shape=(-1, 28, 28, 1))[:2]
    x, y = x_train[:n], y_train[:n]
    strata.manual_seed(7)
    inp = nn.Input([None, 28, 28, 1])
    h = nn.MaxPool2d()(nn.Conv2d(16, [5, 5], "relu")(inp))
    h = nn.Flatten()(nn.MaxPool2d()(nn.Conv2d(32, [5, 5], "relu")(h)))
    model = nn.Model(inp, nn.Dense(10)(nn.Dropout(0.3)(nn.Dense(256, act="relu")(h))))
    opt = strata.optim.Adam(model.trainable_weights, lr=1e-3)
    start = time.perf_counter()
    strata.train.fit(model, opt, x, y, epochs=1, batch_size=128, seed=7, verbose=0)
    return n / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fit-cpp", help="bench_fit_cnn, for the fit from Python vs C++ comparison")
    parser.add_argument("--fit-images", type=int, default=20000)
    parser.add_argument("--steps", type=int, default=40, help="batches per training-loop run")
    args = parser.parse_args()
    if torch:
        torch.set_num_threads(THREADS)
    print(f"strata {strata.__file__}; torch {torch.__version__ if torch else 'absent'}; {THREADS} threads")

    def row(name, figures, unit, higher_is_better):
        line = f"{name:<34} strata {figures['strata']:>10.2f} {unit}"
        if "torch" in figures:
            ratio = figures["strata"] / figures["torch"] if higher_is_better else figures["torch"] / figures["strata"]
            line += f"   torch {figures['torch']:>10.2f} {unit}   strata/torch speed {ratio:.2f}x"
        print(line, flush=True)

    row("1-element add", op_overhead(False), "us", False)
    row("1-element add, requires_grad", op_overhead(True), "us", False)
    row("MLP 784-800-800-10 loop, batch 128", loop_samples_per_second("mlp", args.steps), "samples/s", True)
    row("CNN (TL tutorial) loop, batch 128", loop_samples_per_second("cnn", max(args.steps // 4, 5)), "samples/s", True)
    if args.fit_cpp:
        env = dict(os.environ, OMP_WAIT_POLICY="passive")
        python_runs, cpp_runs = [], []
        for _ in range(3):  # alternating, the best of each
            cpp = subprocess.run([args.fit_cpp, str(args.fit_images)], capture_output=True, text=True, env=env, check=True)
            cpp_runs.append(float(cpp.stdout.split()[-1]))
            python_runs.append(fit_python_samples_per_second(args.fit_images))
        print(f"{'fit, make-run CNN, 1 epoch':<34} python {max(python_runs):>10.1f} samples/s   "
              f"C++ {max(cpp_runs):>10.1f} samples/s   python/C++ {max(python_runs) / max(cpp_runs):.3f}", flush=True)


if __name__ == "__main__":
    main()
