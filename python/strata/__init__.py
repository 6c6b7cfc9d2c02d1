"""Strata from Python: a C++ deep-learning library's tensors, layers, training and platform.

    import numpy as np, strata
    x = strata.from_numpy(np.ones((2, 3), np.float32))   # no copy
    y = strata.relu(x * 2)
    np.asarray(y)                                         # no copy

The C++ library is the core; this package is its second face (docs/python.md).
"""
import contextlib as _contextlib

from . import _strata
from ._strata import *  # noqa: F401,F403  tensors, ops, errors
from ._strata import Error, LimitError, NoDataError, OptionError, Tensor  # noqa: F401

# The extension's submodules came in with the * import; the package's own modules wrap them.
for _submodule in ("data", "hub", "nn", "optim", "points", "rl", "serve", "train", "workflow"):
    globals().pop(_submodule, None)
from . import data, hub, nn, optim, points, rl, serve, train, workflow  # noqa: E402,F401

# bfloat16's dtype name (NumPy has no bfloat16 to spell it with): t.to(strata.bfloat16). Its tensors
# have no NumPy view; t.float() is the float32 copy (docs/mixed_precision.md).
bfloat16 = "bfloat16"

__all__ = [name for name in dir(_strata) if not name.startswith("_")] + ["data", "hub", "nn", "optim", "points", "rl", "serve", "train", "workflow", "no_grad", "enable_grad", "bfloat16"]


@_contextlib.contextmanager
def _grad_mode(enabled):
    previous = _strata.is_grad_enabled()
    _strata.set_grad_enabled(enabled)
    try:
        yield
    finally:
        _strata.set_grad_enabled(previous)


def no_grad():
    """``with strata.no_grad():`` ops record no history (inference, updates)."""
    return _grad_mode(False)


def enable_grad():
    """``with strata.enable_grad():`` ops record history again inside a no_grad block."""
    return _grad_mode(True)
