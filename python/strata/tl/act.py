"""tl.act: TensorLayer's fixed-slope activations (strata/nn/layers/activation.hpp) on arrays or
tensors; results are tensors, usable as a layer's act."""
from strata._strata import tl_extras as _extras


def ramp(x, v_min=0, v_max=1, name=None):
    return _extras.ramp(x, v_min, v_max)


def leaky_relu6(x, alpha=0.2, name="leaky_relu6"):
    return _extras.leaky_relu6(x, alpha)


def leaky_twice_relu6(x, alpha_low=0.2, alpha_high=0.2, name="leaky_relu6"):
    return _extras.leaky_twice_relu6(x, alpha_low, alpha_high)


lrelu6 = leaky_relu6
ltrelu6 = leaky_twice_relu6
