"""Shape arithmetic on a symbolic batch N, written with the onnx helper API
(tests/onnx/test_onnx_whole_models.cpp): make_batch_arithmetic.py OUTDIR. Run in the tests' venv.

Files the import reads (onnxruntime gives the reference):
  fold_to_rows    x [N, 6] -> Reshape to [2N, 3] (Shape, Gather, Mul, Unsqueeze, Concat) -> Relu
                  -> Reshape to [N, 6] (Div of 2N by 2) -> Add
  zeros_state     x [N, 5, 3] -> Transpose -> GRU whose initial state is Expand(0, [1, N, 4])
  resize_sizes    x [N, 2, 4, 5] -> Resize (linear) to sizes Concat(Shape(x)[:2], [8, 10]), as
                  PyTorch writes F.interpolate(x, size=(8, 10))
Files the import refuses (never computing at a batch of 1), named by what they do:
  refuse_square   Reshape of x [N, 4] to [N·N, ...]: N·N is no size k·N
  refuse_ones     ConstantOfShape(1) of [N, 3]: only zeros of such a shape are read
  refuse_odd_div  Reshape to [N / 2, 8]: N / 2 is not a whole k·N
  refuse_resize_2n  Resize to sizes [2N, 2, 8, 10]: the batch can only keep its size
  refuse_lost     Shape of a value whose moved batch the import lost track of (a Transpose, then
                  a ReduceMax, which the import does not follow)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def const(name, values, dtype=np.int64):
    return helper.make_node("Constant", [], [name], value=onnx.numpy_helper.from_array(np.array(values, dtype=dtype)))


def save(out, name, nodes, inputs, outputs, inits=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def tensor(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def batch_size_nodes(x="x"):  # n1 = [N]
    return [helper.make_node("Shape", [x], ["shape"]), const("zero", 0), const("axes0", [0]),
            helper.make_node("Gather", ["shape", "zero"], ["n"]), helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"])]


def main(out):
    os.makedirs(out, exist_ok=True)
    save(out, "fold_to_rows", batch_size_nodes() + [
        const("two", 2), const("three", [3]), const("six", [6]),
        helper.make_node("Mul", ["n", "two"], ["n2"]), helper.make_node("Unsqueeze", ["n2", "axes0"], ["n2_1"]),
        helper.make_node("Concat", ["n2_1", "three"], ["rows_shape"], axis=0),
        helper.make_node("Reshape", ["x", "rows_shape"], ["rows"]), helper.make_node("Relu", ["rows"], ["r"]),
        helper.make_node("Shape", ["r"], ["r_shape"]), helper.make_node("Gather", ["r_shape", "zero"], ["r_n"]),
        helper.make_node("Div", ["r_n", "two"], ["back_n"]), helper.make_node("Unsqueeze", ["back_n", "axes0"], ["back1"]),
        helper.make_node("Concat", ["back1", "six"], ["back_shape"], axis=0),
        helper.make_node("Reshape", ["r", "back_shape"], ["back"]), helper.make_node("Add", ["back", "x"], ["y"])],
        [tensor("x", ["N", 6])], [tensor("y", ["N", 6])])

    rng = np.random.default_rng(0)
    w = onnx.numpy_helper.from_array(rng.uniform(-0.5, 0.5, (1, 12, 3)).astype(np.float32), "W")
    r = onnx.numpy_helper.from_array(rng.uniform(-0.5, 0.5, (1, 12, 4)).astype(np.float32), "R")
    save(out, "zeros_state", batch_size_nodes() + [
        const("one", [1]), const("four", [4]), const("zero_f", [0.0], np.float32),
        helper.make_node("Concat", ["one", "n1", "four"], ["state_shape"], axis=0),
        helper.make_node("Expand", ["zero_f", "state_shape"], ["h0"]),
        helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0, 2]),
        helper.make_node("GRU", ["t", "W", "R", "", "", "h0"], ["", "y"], hidden_size=4)],
        [tensor("x", ["N", 5, 3])], [tensor("y", [1, "N", 4])], [w, r])

    resize_nodes = [helper.make_node("Shape", ["x"], ["shape"]), const("start", [0]), const("end", [2]),
                    helper.make_node("Slice", ["shape", "start", "end"], ["nc"]), const("hw", [8, 10])]
    save(out, "resize_sizes", resize_nodes + [
        helper.make_node("Concat", ["nc", "hw"], ["sizes"], axis=0),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear")],
        [tensor("x", ["N", 2, 4, 5])], [tensor("y", ["N", 2, 8, 10])])
    save(out, "refuse_resize_2n", resize_nodes + [
        const("two", 2), const("zero", 0), const("axes0", [0]), const("two_hw", [2, 8, 10]),
        helper.make_node("Gather", ["shape", "zero"], ["n"]), helper.make_node("Mul", ["n", "two"], ["n2"]),
        helper.make_node("Unsqueeze", ["n2", "axes0"], ["n2_1"]),
        helper.make_node("Concat", ["n2_1", "two_hw"], ["sizes"], axis=0),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear")],
        [tensor("x", ["N", 2, 4, 5])], [tensor("y", [None, 2, 8, 10])])

    save(out, "refuse_square", batch_size_nodes() + [
        helper.make_node("Mul", ["n1", "n1"], ["nn"]), const("minus", [-1]),
        helper.make_node("Concat", ["nn", "minus"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"])], [tensor("x", ["N", 4])], [tensor("y", [None, None])])
    save(out, "refuse_ones", batch_size_nodes() + [
        const("three", [3]), helper.make_node("Concat", ["n1", "three"], ["target"], axis=0),
        helper.make_node("ConstantOfShape", ["target"], ["ones"], value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])),
        helper.make_node("Mul", ["ones", "x"], ["y"])], [tensor("x", ["N", 3])], [tensor("y", ["N", 3])])
    save(out, "refuse_odd_div", batch_size_nodes() + [
        const("two", [2]), const("eight", [8]), helper.make_node("Div", ["n1", "two"], ["half"]),
        helper.make_node("Concat", ["half", "eight"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"])], [tensor("x", ["N", 4])], [tensor("y", [None, 8])])
    save(out, "refuse_lost", [
        helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0, 2]),
        helper.make_node("ReduceMax", ["t"], ["m"], axes=[2], keepdims=1),
        helper.make_node("Shape", ["m"], ["s"]), helper.make_node("Cast", ["s"], ["sf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["sf", "x"], ["y"])], [tensor("x", ["N", 3, 3])], [tensor("y", ["N", 3, 3])])

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
