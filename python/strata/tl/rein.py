"""tl.rein.log_weight (strata/rl/log_weight.hpp): mean(log(probs) * weights), a tensor."""
from strata._strata import tl_extras as _extras


def log_weight(probs, weights, name="log_weight"):
    return _extras.log_weight(probs, weights)
