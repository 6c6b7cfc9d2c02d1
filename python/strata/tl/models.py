"""tl.models.Model: Model(inputs=, outputs=) is a static model; a subclass with layers made in
__init__ and a forward(x, ...) method is a dynamic one (strata.nn.Module), as in TensorLayer 2.
Keyword arguments of a call reach forward (TensorLayer's `MLP(x, foo=1)`)."""
from strata import nn as _nn


class Model(_nn.Module):
    def __new__(cls, inputs=None, outputs=None, name=None):
        if cls is Model:
            if inputs is None or outputs is None:
                raise TypeError("tl.models.Model(inputs=, outputs=) needs both, or subclass it with a forward method")
            return _nn.Model(inputs, outputs, name=name or "")
        return super().__new__(cls)

    def __init__(self, inputs=None, outputs=None, name=None):
        super().__init__(name or "")
        self._forward_kwargs = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        user_forward = cls.__dict__.get("forward")
        if user_forward is None:
            return

        def forward(self, *inputs):
            return user_forward(self, *inputs, **self._forward_kwargs)

        cls.forward = forward

    def __call__(self, *inputs, **kwargs):
        self._forward_kwargs = kwargs
        try:
            return super().__call__(*inputs)
        finally:
            self._forward_kwargs = {}
