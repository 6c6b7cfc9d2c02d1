"""tl.layers: TensorLayer 2.2.5's layer names and argument names, building Strata layers."""
from strata import nn as _nn

from . import initializers as _init

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
    return _nn.Reshape(shape=[s for s in shape if s is not None and s != -1] if shape and shape[0] in (None, -1) else list(shape),
                       name=_name(name))


def Concat(concat_dim=-1, name=None):
    return _nn.Concat(concat_dim, name=_name(name))
