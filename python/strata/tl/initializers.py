"""tl.initializers: names accepted for W_init / b_init. Strata's layers create weights with their
declared initializers (Glorot uniform for W, zeros for b, as TensorLayer's defaults are close to);
other initializers are refused by name rather than silently ignored."""


class Initializer:
    def __init__(self, name, **params):
        self.name, self.params = name, params

    def __repr__(self):
        return f"tl.initializers.{self.name}({self.params})"


def zeros():
    return Initializer("zeros")


def ones():
    return Initializer("ones")


def constant(value=0.0):
    return Initializer("constant", value=value)


def truncated_normal(mean=0.0, stddev=0.05, seed=None):
    return Initializer("truncated_normal", mean=mean, stddev=stddev)


def random_normal(mean=0.0, stddev=0.05, seed=None):
    return Initializer("random_normal", mean=mean, stddev=stddev)


def random_uniform(minval=-0.05, maxval=0.05, seed=None):
    return Initializer("random_uniform", minval=minval, maxval=maxval)


def xavier_uniform():
    return Initializer("glorot_uniform")


He_Normal = None  # TensorLayer's He_Normal class is not provided


def _check(init, default, layer, arg):
    """Strata's layer uses `default`; anything else is refused naming the layer and argument."""
    if init is None or (isinstance(init, Initializer) and init.name == default):
        return
    raise NotImplementedError(
        f"tl.layers.{layer}: {arg}={init!r} is not supported by the porting layer yet (Strata uses {default}); "
        f"drop the argument or set the weights after building")
