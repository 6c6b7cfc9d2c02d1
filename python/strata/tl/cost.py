"""tl.cost: TensorLayer's losses on Strata tensors (outputs are logits, as in TensorLayer)."""
import strata


def cross_entropy(output, target, name=None):
    """Softmax cross-entropy of logits against int64 class ids, averaged."""
    return strata.cross_entropy(output, target)


def sigmoid_cross_entropy(output, target, name=None):
    return strata.binary_cross_entropy_with_logits(output, target)


def mean_squared_error(output, target, is_mean=False, axis=-1, name="mean_squared_error"):
    """TensorLayer's: the squared error summed over `axis`, then averaged over the batch (or averaged
    over `axis` with is_mean=True)."""
    err = strata.square(strata.as_tensor(output) - strata.as_tensor(target))
    per_example = strata.mean(err, axis) if is_mean else strata.sum(err, axis)
    return strata.mean(per_example)


def absolute_difference_error(output, target, is_mean=False, axis=-1, name="absolute_difference_error"):
    err = strata.abs(strata.as_tensor(output) - strata.as_tensor(target))
    per_example = strata.mean(err, axis) if is_mean else strata.sum(err, axis)
    return strata.mean(per_example)
