"""Layers and models. Every registered C++ layer class is a class here with its declared options
as keyword arguments (the same names, defaults and bounds as C++; docs/layers.md lists them):

    x = strata.nn.Input([None, 784])
    y = strata.nn.Dense(10)(strata.nn.Dense(800, act="relu")(x))
    model = strata.nn.Model(x, y)

Positional arguments follow the options' declared order, as the C++ constructors do.
Initializers are keyword arguments by name (``w_init="he_normal"`` or ``{"name": "truncated_normal",
"stddev": 0.1}``); a model file does not save them (its weights carry the values).
"""
import inspect as _inspect

from ._strata import nn as _nn
from ._strata.nn import (Input, Layer, Model, Module, ShapePolymorphicModel, Symbol,  # noqa: F401
                         lambda_sharing_weights, load_keras_model, load_library_weights, load_onnx, load_onnx_any_size, load_tl2_npz,
                         register_function, run_recurrent, save_keras3_weights, save_keras_hdf5, save_tl2_hdf5,
                         save_tl2_npz, save_tl2_npz_dict, save_weights)

__all__ = ["Input", "Layer", "Model", "Module", "ShapePolymorphicModel", "Symbol", "layer_classes", "save_weights",
           "save_keras_hdf5", "save_keras3_weights", "load_keras_model",
           "save_tl2_hdf5", "save_tl2_npz", "save_tl2_npz_dict", "load_library_weights", "load_onnx",
           "load_onnx_any_size", "load_tl2_npz", "register_function", "run_recurrent", "lambda_sharing_weights"]


class _LayerClass(type):
    """A registered class: calling it builds a strata.nn.Layer of that kind; isinstance checks the kind."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Layer) and obj.kind == cls.kind

    def __call__(cls, *args, name="", **kwargs):
        saved = [f for f in cls.fields if f[5]]
        if len(args) > len(saved):
            raise TypeError(f"{cls.__name__} takes at most {len(saved)} positional options, got {len(args)}")
        for field, value in zip(saved, args):
            if field[0] in kwargs:
                raise TypeError(f"{cls.__name__} got option '{field[0]}' twice")
            kwargs[field[0]] = value
        unsaved = {f[0] for f in cls.fields if f[7] and not f[5]}
        kwargs = {k: v for k, v in kwargs.items() if not (k in unsaved and v is None)}  # None: the default
        for key in kwargs:
            if not any(f[0] == key and f[7] for f in cls.fields):
                known = ", ".join(f[0] for f in cls.fields if f[7])
                raise TypeError(f"{cls.__name__}: unknown option '{key}' (options: {known})")
        return _nn.make_layer(cls.kind, name, kwargs)


def _signature(fields):
    params = [_inspect.Parameter(f[0], _inspect.Parameter.POSITIONAL_OR_KEYWORD, default=f[2]) for f in fields if f[5]]
    params.append(_inspect.Parameter("name", _inspect.Parameter.KEYWORD_ONLY, default=""))
    # Settable but not saved (initializers): keyword-only, their C++ default when left out.
    params += [_inspect.Parameter(f[0], _inspect.Parameter.KEYWORD_ONLY, default=None) for f in fields if f[7] and not f[5]]
    return _inspect.Signature(params)


def _doc(class_name, kind, fields):
    lines = [f"{class_name} (layer kind '{kind}'). Options:", ""]
    for name, type_, default, bounds, doc, saved, text, settable in fields:
        if saved:
            bound = f" {bounds}" if bounds else ""
            lines.append(f"    {name} ({type_}, default {default!r}{bound}): {doc}")
        elif settable:
            lines.append(f"    {name} (initializer by name, default {text}; not saved with the model): {doc}")
    return "\n".join(lines)


layer_classes = {}
for _kind, _class_name, _struct, _fields in _nn.layer_classes():
    _cls = _LayerClass(_class_name, (), {"kind": _kind, "fields": _fields, "__module__": __name__,
                                         "__doc__": _doc(_class_name, _kind, _fields)})
    _cls.__signature__ = _signature(_fields)
    globals()[_class_name] = _cls
    layer_classes[_class_name] = _cls
    __all__.append(_class_name)
del _kind, _class_name, _struct, _fields, _cls
