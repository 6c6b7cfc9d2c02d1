"""tl.layers: TensorLayer 2.2.5's layer names and argument names, building Strata layers."""
import strata as _strata
from strata import nn as _nn

from . import initializers as _init
from .recurrent import BiRNN, GRUCell, LSTMCell, RNN, SimpleRNNCell  # noqa: F401

def Input(shape, dtype="float32", name=None):
    """tl.layers.Input(shape): None in the batch axis."""
    return _nn.Input([-1 if s is None else s for s in shape], name=name or "", dtype=dtype)


def _pair(v):
    return list(v) if isinstance(v, (tuple, list)) else [v, v]


def _padding(p):
    return str(p).lower()


def _act(act):
    return "" if act is None else act


def _name(name):
    return name or ""


def Dense(n_units=100, act=None, W_init=_init.truncated_normal(stddev=0.05), b_init=_init.constant(value=0.0),
          in_channels=None, name=None):
    """TensorLayer's defaults (truncated normal W, zero b); b_init=None: no bias."""
    return _nn.Dense(units=n_units, act=_act(act), in_units=-1 if in_channels is None else in_channels,
                     use_bias=b_init is not None, w_init=W_init, b_init=b_init, name=_name(name))


def Conv2d(n_filter=32, filter_size=(3, 3), strides=(1, 1), act=None, padding="SAME", data_format="channels_last",
           dilation_rate=(1, 1), W_init=_init.truncated_normal(stddev=0.02), b_init=_init.constant(value=0.0),
           in_channels=None, name=None):
    """TensorLayer's defaults (truncated normal W, zero b); b_init=None: no bias."""
    if data_format != "channels_last":
        raise ValueError("tl.layers.Conv2d: Strata is channels-last (NHWC); data_format must be 'channels_last'")
    options = {"stride": _pair(strides), "padding": _padding(padding), "dilation": _pair(dilation_rate), "groups": 1}
    return _nn.Conv2d(n_filter=n_filter, filter_size=_pair(filter_size), act=_act(act), options=options,
                      in_channels=-1 if in_channels is None else in_channels, use_bias=b_init is not None,
                      w_init=W_init, b_init=b_init, name=_name(name))


def MaxPool2d(filter_size=(3, 3), strides=(2, 2), padding="SAME", data_format="channels_last", name=None):
    return _nn.MaxPool2d(filter_size=_pair(filter_size),
                         options={"stride": _pair(strides), "padding": _padding(padding)}, name=_name(name))


def MeanPool2d(filter_size=(3, 3), strides=(2, 2), padding="SAME", data_format="channels_last", name=None):
    return _nn.MeanPool2d(filter_size=_pair(filter_size),
                          options={"stride": _pair(strides), "padding": _padding(padding)}, name=_name(name))


def BatchNorm(decay=0.9, epsilon=0.00001, act=None, is_train=False, beta_init=None, gamma_init=None,
              moving_mean_init=None, moving_var_init=None, num_features=None, data_format="channels_last", name=None):
    """Initializers left out take Strata's defaults (beta 0, gamma 1, moving mean 0, moving variance 1)."""
    return _nn.BatchNorm(decay=decay, epsilon=epsilon, act=_act(act),
                         num_features=-1 if num_features is None else num_features, beta_init=beta_init,
                         gamma_init=gamma_init, moving_mean_init=moving_mean_init, moving_var_init=moving_var_init,
                         name=_name(name))


BatchNorm2d = BatchNorm


def Dropout(keep=0.5, seed=None, name=None):
    """TensorLayer's keep probability; Strata's (and PyTorch's) p = 1 - keep."""
    if not 0 < keep <= 1:
        raise ValueError(f"tl.layers.Dropout: keep must be in (0, 1], got {keep}")
    return _nn.Dropout(p=1.0 - keep, name=_name(name))


def Flatten(name=None):
    return _nn.Flatten(name=_name(name))


def Reshape(shape, name=None):
    """TensorLayer's shape starts with the batch axis (-1 or None); Strata's Reshape takes the rest."""
    shape = list(shape)
    return _nn.Reshape(shape=shape[1:] if shape and shape[0] in (None, -1) else shape, name=_name(name))


def Concat(concat_dim=-1, name=None):
    return _nn.Concat(concat_dim, name=_name(name))


def _one(v):
    return list(v) if isinstance(v, (tuple, list)) else [v]


def Conv1d(n_filter=32, filter_size=5, stride=1, act=None, padding="SAME", data_format="channels_last",
           dilation_rate=1, W_init=_init.truncated_normal(stddev=0.02), b_init=_init.constant(value=0.0),
           in_channels=None, name=None):
    options = {"stride": _one(stride), "padding": _padding(padding), "dilation": _one(dilation_rate), "groups": 1}
    return _nn.Conv1d(n_filter=n_filter, filter_size=_one(filter_size), act=_act(act), options=options,
                      in_channels=-1 if in_channels is None else in_channels, use_bias=b_init is not None,
                      w_init=W_init, b_init=b_init, name=_name(name))


def DeConv2d(n_filter=32, filter_size=(3, 3), strides=(2, 2), padding="SAME", act=None, dilation_rate=(1, 1),
             data_format="channels_last", W_init=_init.truncated_normal(stddev=0.02), b_init=_init.constant(value=0.0),
             in_channels=None, name=None):
    options = {"stride": _pair(strides), "padding": _padding(padding), "dilation": _pair(dilation_rate), "groups": 1}
    return _nn.DeConv2d(n_filter=n_filter, filter_size=_pair(filter_size), act=_act(act), options=options,
                        in_channels=-1 if in_channels is None else in_channels, use_bias=b_init is not None,
                        w_init=W_init, b_init=b_init, name=_name(name))


def DepthwiseConv2d(filter_size=(3, 3), strides=(1, 1), act=None, padding="SAME", data_format="channels_last",
                    dilation_rate=(1, 1), depth_multiplier=1, W_init=_init.truncated_normal(stddev=0.02),
                    b_init=_init.constant(value=0.0), in_channels=None, name=None):
    options = {"stride": _pair(strides), "padding": _padding(padding), "dilation": _pair(dilation_rate), "groups": 1}
    return _nn.DepthwiseConv2d(filter_size=_pair(filter_size), act=_act(act), options=options,
                               depth_multiplier=depth_multiplier, in_channels=-1 if in_channels is None else in_channels,
                               use_bias=b_init is not None, w_init=W_init, b_init=b_init, name=_name(name))


def MaxPool1d(filter_size=3, strides=2, padding="SAME", data_format="channels_last", name=None):
    return _nn.MaxPool1d(filter_size=_one(filter_size), options={"stride": _one(strides), "padding": _padding(padding)},
                         name=_name(name))


def MeanPool1d(filter_size=3, strides=2, padding="SAME", data_format="channels_last", name=None):
    return _nn.MeanPool1d(filter_size=_one(filter_size), options={"stride": _one(strides), "padding": _padding(padding)},
                          name=_name(name))


def GlobalMaxPool1d(data_format="channels_last", name=None):
    return _nn.GlobalMaxPool1d(name=_name(name))


def GlobalMeanPool1d(data_format="channels_last", name=None):
    return _nn.GlobalMeanPool1d(name=_name(name))


def GlobalMaxPool2d(data_format="channels_last", name=None):
    return _nn.GlobalMaxPool2d(name=_name(name))


def GlobalMeanPool2d(data_format="channels_last", name=None):
    return _nn.GlobalMeanPool2d(name=_name(name))


def Embedding(vocabulary_size, embedding_size, E_init=_init.random_uniform(-0.1, 0.1), name=None):
    return _nn.Embedding(vocabulary_size=vocabulary_size, embedding_size=embedding_size, e_init=E_init,
                         name=_name(name))


def OneHot(depth=None, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    options = {"depth": depth}
    for key, value in (("on_value", on_value), ("off_value", off_value), ("axis", axis), ("dtype", dtype)):
        if value is not None:
            options[key] = value
    return _nn.OneHot(**options, name=_name(name))


_COMBINE = {"add": "add", "multiply": "multiply", "mul": "multiply", "maximum": "maximum", "minimum": "minimum"}


def Elementwise(combine_fn="minimum", act=None, name=None):
    """combine_fn: TensorFlow's tf.minimum etc. become names: "add", "multiply", "maximum", "minimum"."""
    key = combine_fn if isinstance(combine_fn, str) else getattr(combine_fn, "__name__", "")
    if key not in _COMBINE:
        raise ValueError(f"tl.layers.Elementwise: combine_fn {combine_fn!r}: use 'add', 'multiply', 'maximum' or "
                         f"'minimum' (or strata.add, strata.mul, strata.maximum, strata.minimum)")
    return _nn.Elementwise(combine=_COMBINE[key], act=_act(act), name=_name(name))


def UpSampling2d(scale, method="bilinear", antialias=False, data_format="channels_last", name=None):
    return _nn.UpSampling2d(scale=_pair(scale), method=method.lower(), name=_name(name))


def ZeroPad2d(padding, data_format="channels_last", name=None):
    """padding: an int, (height, width), or ((top, bottom), (left, right))."""
    if isinstance(padding, int):
        pairs = [[padding, padding], [padding, padding]]
    elif all(isinstance(p, int) for p in padding):
        pairs = [[padding[0], padding[0]], [padding[1], padding[1]]]
    else:
        pairs = [list(p) for p in padding]
    return _nn.ZeroPad2d(padding=pairs, name=_name(name))


def LayerNorm(center=True, scale=True, act=None, epsilon=1e-12, begin_norm_axis=1, begin_params_axis=-1,
              beta_init=None, gamma_init=None, name=None):
    return _nn.LayerNorm(act=_act(act), epsilon=epsilon, begin_norm_axis=begin_norm_axis,
                         begin_params_axis=begin_params_axis, center=center, scale=scale, name=_name(name))


def InstanceNorm(act=None, epsilon=0.00001, beta_init=None, gamma_init=None, num_features=None,
                 data_format="channels_last", name=None):
    return _nn.InstanceNorm(act=_act(act), epsilon=epsilon, num_features=-1 if num_features is None else num_features,
                            name=_name(name))


def LocalResponseNorm(depth_radius=None, bias=None, alpha=None, beta=None, name=None):
    options = {k: v for k, v in (("depth_radius", depth_radius), ("bias", bias), ("alpha", alpha), ("beta", beta))
               if v is not None}
    return _nn.LocalResponseNorm(**options, name=_name(name))


def PRelu(channel_shared=False, in_channels=None, a_init=_init.truncated_normal(mean=0.0, stddev=0.05), name=None):
    return _nn.PRelu(channel_shared=channel_shared, in_channels=-1 if in_channels is None else in_channels,
                     a_init=a_init, name=_name(name))


def Transpose(perm=None, conjugate=False, name=None):
    return _nn.Transpose(perm=list(perm), name=_name(name))


def ExpandDims(axis, name=None):
    return _nn.ExpandDims(axis=axis, name=_name(name))


def Tile(multiples=None, name=None):
    return _nn.Tile(multiples=list(multiples), name=_name(name))


def Stack(axis=1, name=None):
    return _nn.Stack(axis=axis, name=_name(name))


def GaussianNoise(mean=0.0, stddev=1.0, is_always=True, seed=None, name=None):
    return _nn.GaussianNoise(mean=mean, stddev=stddev, is_always=is_always, seed=-1 if seed is None else seed,
                             name=_name(name))


def Scale(init_scale=0.05, name=None):
    return _nn.Scale(init_scale=init_scale, name=_name(name))


def SubpixelConv2d(scale=2, n_out_channels=None, act=None, in_channels=None, name=None):
    return _nn.SubpixelConv2d(scale=scale, act=_act(act), name=_name(name))


def Lambda(fn, fn_weights=None, fn_args=None, name=None):
    """A Python function as a layer, called as fn(x, **fn_args). fn_weights: the tensors fn reads
    itself (it closes over them), which become the layer's trainable weights, those very tensors."""
    f = fn if not fn_args else (lambda x: fn(x, **fn_args))
    if not fn_weights:
        return _nn.Lambda(function=f, name=_name(name))
    for w in fn_weights:
        if not isinstance(w, _strata.Tensor):
            raise TypeError(f"tl.layers.Lambda: fn_weights must be the strata tensors fn reads, got {type(w).__name__}")
    return _nn.lambda_sharing_weights(f, [(f"weight_{i}", w) for i, w in enumerate(fn_weights)], _name(name))
