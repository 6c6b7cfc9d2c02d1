"""Keras's training loop on NumPy arrays, datasets and streams: fit / evaluate / predict (the C++
loop, GIL released), with Python callbacks and the library's own: EarlyStopping, HubLogger,
ModelCheckpoint (into the hub), CSVLogger, TensorBoardLogger."""
from ._strata.train import (Callback, CSVLogger, EarlyStopping, HubLogger, ModelCheckpoint,  # noqa: F401
                            TensorBoardLogger, evaluate, fit, predict)
