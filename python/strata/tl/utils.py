"""tl.utils.class_balancing_oversample (strata/data/class_balancing.hpp)."""
import numpy as np

from strata._strata import tl_extras as _extras


def class_balancing_oversample(X_train=None, y_train=None, printable=True):
    """Each class's rows repeated to the largest class's count: (float64 X, list of labels)."""
    x, labels = _extras.class_balancing_oversample(np.ascontiguousarray(X_train), [int(v) for v in y_train])
    return np.asarray(x), list(labels)
