"""tl.initializers: TensorLayer's initializers as the specs Strata's layers take by name
(``w_init={"name": "truncated_normal", "stddev": 0.02}``)."""


def zeros():
    return {"name": "zeros"}


def ones():
    return {"name": "ones"}


def constant(value=0.0):
    return {"name": "constant", "value": value}


def truncated_normal(mean=0.0, stddev=0.05, seed=None):
    return {"name": "truncated_normal", "mean": mean, "stddev": stddev}


def random_normal(mean=0.0, stddev=0.05, seed=None):
    return {"name": "random_normal", "mean": mean, "stddev": stddev}


def random_uniform(minval=-0.05, maxval=0.05, seed=None):
    return {"name": "random_uniform", "minval": minval, "maxval": maxval}


def xavier_uniform():
    return {"name": "glorot_uniform"}


def xavier_normal():
    return {"name": "glorot_normal"}


def he_normal():
    return {"name": "he_normal"}


def he_uniform():
    return {"name": "he_uniform"}


def orthogonal(gain=1.0, seed=None):
    return {"name": "orthogonal", "gain": gain}


# TensorLayer 2's class-style names.
Zeros, Ones, Constant = zeros, ones, constant
TruncatedNormal, RandomNormal, RandomUniform = truncated_normal, random_normal, random_uniform
