"""Optimizers (strata.optim.SGD(model.trainable_weights, lr=0.1), Adam, RMSprop) and learning-rate
schedules (StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LinearWarmup): schedule.step()
once per epoch in a custom loop, or pass the schedule in fit's callbacks."""
from ._strata.optim import (Adam, CosineAnnealingLR, ExponentialLR, LinearWarmup, LRSchedule,  # noqa: F401
                            MultiStepLR, Optimizer, RMSprop, SGD, StepLR)
