"""Models with symbolic sizes past the batch, written with the onnx helper API
(tests/onnx/test_onnx_shape_polymorphic.cpp): make_symbolic_sizes.py OUTDIR. Run in the tests' venv.

  conv_gap        img [N, 3, height, width] -> Conv 3x3 (no padding, so 3 x 3 at least) -> Relu
                  -> GlobalAveragePool -> y [N, 4, 1, 1]
  reshape_shape   x [N, L, 2] -> Reshape to [-1, 2L], 2L computed by Shape, Gather, Mul,
                  Unsqueeze and Concat (folded at one L it would be wrong at another) -> Tanh
  slice_length    x [N, 3, L] -> Slice [1, -1) on axis 2, and Slice [0, L / 2) whose end is
                  computed from Shape: two outputs
  attention       x [N, T, 8] -> MatMul W [8, 6] + b -> Relu -> h; softmax(h hᵀ) h -> ReduceMean
                  over T -> y [N, 6]
  lstm_batch_first  x [N, T, 3] -> Transpose to [T, N, 3] (PyTorch's batch_first) -> LSTM
                  (hidden 4) -> Y_h [1, N, 4]
  two_inputs      a [N, seq, 4], b [N, seq, 4] -> Add -> Relu
  anonymous_axis  x [N, ?, 4] (an axis of no name nor size) -> ReduceSum over axis 1 -> y [N, 4]
"""
import os
import sys

import numpy as np
from onnx import helper, numpy_helper

from make_batch_arithmetic import const, save, tensor  # the same helpers, beside this script


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(42)

    def init(name, shape, scale=0.5):
        return numpy_helper.from_array(rng.uniform(-scale, scale, shape).astype(np.float32), name)

    save(out, "conv_gap", [
        helper.make_node("Conv", ["img", "W", "B"], ["c"], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["c"], ["r"]), helper.make_node("GlobalAveragePool", ["r"], ["y"])],
        [tensor("img", ["N", 3, "height", "width"])], [tensor("y", ["N", 4, 1, 1])],
        [init("W", (4, 3, 3, 3)), init("B", (4,), 0.1)])

    save(out, "reshape_shape", [
        helper.make_node("Shape", ["x"], ["shape"]), const("one", 1), const("two", 2), const("axes0", [0]),
        const("minus_one", [-1]), helper.make_node("Gather", ["shape", "one"], ["l"]),
        helper.make_node("Mul", ["l", "two"], ["l2"]), helper.make_node("Unsqueeze", ["l2", "axes0"], ["l2_1"]),
        helper.make_node("Concat", ["minus_one", "l2_1"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["rows"]), helper.make_node("Tanh", ["rows"], ["y"])],
        [tensor("x", ["N", "L", 2])], [tensor("y", ["N", "L2"])])

    save(out, "slice_length", [
        const("start1", [1]), const("end1", [-1]), const("axis2", [2]), const("zero", [0]), const("two", [2]),
        helper.make_node("Slice", ["x", "start1", "end1", "axis2"], ["inner"]),
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "two"], ["l"]),
        helper.make_node("Div", ["l", "two"], ["half"]),
        helper.make_node("Slice", ["x", "zero", "half", "axis2"], ["first_half"])],
        [tensor("x", ["N", 3, "L"])], [tensor("inner", ["N", 3, "L1"]), tensor("first_half", ["N", 3, "L2"])])

    save(out, "attention", [
        helper.make_node("MatMul", ["x", "W"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["xwb"]),
        helper.make_node("Relu", ["xwb"], ["h"]), helper.make_node("Transpose", ["h"], ["ht"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["h", "ht"], ["scores"]),
        helper.make_node("Softmax", ["scores"], ["weights"], axis=-1),
        helper.make_node("MatMul", ["weights", "h"], ["mixed"]),
        helper.make_node("ReduceMean", ["mixed"], ["y"], axes=[1], keepdims=0)],
        [tensor("x", ["N", "T", 8])], [tensor("y", ["N", 6])], [init("W", (8, 6)), init("b", (6,), 0.1)])

    hidden = 4
    save(out, "lstm_batch_first", [
        helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0, 2]),
        helper.make_node("LSTM", ["t", "W", "R", "B"], ["", "y"], hidden_size=hidden)],
        [tensor("x", ["N", "T", 3])], [tensor("y", [1, "N", hidden])],
        [init("W", (1, 4 * hidden, 3)), init("R", (1, 4 * hidden, hidden)), init("B", (1, 8 * hidden), 0.1)])

    save(out, "two_inputs", [helper.make_node("Add", ["a", "b"], ["s"]), helper.make_node("Relu", ["s"], ["y"])],
         [tensor("a", ["N", "seq", 4]), tensor("b", ["N", "seq", 4])], [tensor("y", ["N", "seq", 4])])

    save(out, "anonymous_axis", [
        const("axes1", [1]), helper.make_node("ReduceSum", ["x", "axes1"], ["y"], keepdims=0)],
        [tensor("x", ["N", None, 4])], [tensor("y", ["N", 4])])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
