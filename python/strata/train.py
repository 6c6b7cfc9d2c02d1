"""Keras's training loop on NumPy arrays: fit / evaluate / predict (the C++ loop, GIL released)."""
from ._strata.train import evaluate, fit, predict  # noqa: F401
