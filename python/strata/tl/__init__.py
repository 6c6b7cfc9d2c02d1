"""TensorLayer 2.2.5's names over Strata, for porting: ``import strata.tl as tl``.

Model definitions and data code of a TensorLayer script run unchanged; TensorFlow's own lines
(``tf.GradientTape``, ``tf.optimizers``, ``tf.nn.relu``) become Strata's (``loss.backward()``,
``strata.optim``, ``strata.relu`` or ``"relu"``). docs/python.md shows ported tutorials.
"""
from . import cost, files, initializers, iterate, layers, models, prepro  # noqa: F401
from . import nlp  # noqa: F401
from . import act, rein, utils, visualize  # noqa: F401
