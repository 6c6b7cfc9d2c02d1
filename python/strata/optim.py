"""Optimizers: strata.optim.SGD(model.trainable_weights, lr=0.1), Adam, RMSprop."""
from ._strata.optim import SGD, Adam, Optimizer, RMSprop  # noqa: F401
