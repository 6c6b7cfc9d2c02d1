"""Writes ONNX models made with the onnx helper API, and onnxruntime's outputs for them, for
tests/onnx/test_onnx_import.cpp: make_onnx_models.py OUTDIR.

For each model NAME: OUTDIR/NAME.onnx and OUTDIR/NAME.npz (input_0, ..., output_0, ...). Also
hostile files that the import must refuse: unknown_op.onnx, short_initializer.onnx.
Run from the tests' virtual environment (onnx==1.23.2, onnxruntime==1.32.0).
"""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)
out = sys.argv[1]


def init(name, shape, scale=0.5):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def save(name, nodes, inputs, outputs, initializers, feeds, check=True):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    if check:
        onnx.checker.check_model(model)
    path = os.path.join(out, name + ".onnx")
    onnx.save(model, path)
    if feeds is None:
        return
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    results = session.run(None, {i.name: f for i, f in zip(session.get_inputs(), feeds)})
    arrays = {f"input_{k}": f for k, f in enumerate(feeds)}
    arrays.update({f"output_{k}": r for k, r in enumerate(results)})
    np.savez(os.path.join(out, name + ".npz"), **arrays)


def tensor(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def bn(prefix, channels):
    return [init(prefix + "_scale", [channels]), init(prefix + "_bias", [channels]),
            init(prefix + "_mean", [channels]),
            numpy_helper.from_array((rng.random(channels) + 0.5).astype(np.float32), prefix + "_var")]


# A channels-first CNN: convolutions (plain, grouped, padded, strided), batch norm, pools,
# activations, a global pool, flatten, Gemm and softmax.
cnn_nodes = [
    helper.make_node("Conv", ["x", "c1_w", "c1_b"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
    helper.make_node("BatchNormalization", ["c1", "bn1_scale", "bn1_bias", "bn1_mean", "bn1_var"], ["b1"],
                     name="bn1", epsilon=1e-3),
    helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
    helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Conv", ["p1", "c2_w"], ["c2"], name="conv2_grouped", group=2, kernel_shape=[3, 3],
                     auto_pad="SAME_UPPER", strides=[2, 2]),
    helper.make_node("LeakyRelu", ["c2"], ["l2"], name="lrelu", alpha=0.1),
    helper.make_node("Conv", ["l2", "dw_w", "dw_b"], ["dw"], name="depthwise", group=8, kernel_shape=[3, 3],
                     pads=[0, 1, 2, 1], dilations=[1, 1]),
    helper.make_node("AveragePool", ["dw"], ["ap"], name="avgpool", kernel_shape=[2, 2], strides=[1, 1],
                     auto_pad="SAME_UPPER"),
    helper.make_node("Clip", ["ap", "lo", "hi"], ["clip"], name="relu6"),
    helper.make_node("GlobalAveragePool", ["clip"], ["gap"], name="gap"),
    helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1),
    helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["fc"], name="fc", transB=1, alpha=0.5, beta=2.0),
    helper.make_node("Softmax", ["fc"], ["y"], name="softmax", axis=-1),
]
cnn_inits = [init("c1_w", [8, 3, 3, 3]), init("c1_b", [8]), *bn("bn1", 8), init("c2_w", [8, 4, 3, 3]),
             init("dw_w", [16, 1, 3, 3]), init("dw_b", [16]),
             numpy_helper.from_array(np.array(0.0, np.float32), "lo"),
             numpy_helper.from_array(np.array(6.0, np.float32), "hi"),
             init("fc_w", [5, 16], 2.0), init("fc_b", [5])]
save("cnn", cnn_nodes, [tensor("x", ["N", 3, 12, 12])], [tensor("y", ["N", 5])], cnn_inits,
     [rng.standard_normal((2, 3, 12, 12)).astype(np.float32)])

# A multi-layer perceptron: MatMul + Add, constant arithmetic, merges of two branches.
mlp_nodes = [
    helper.make_node("MatMul", ["x", "w1"], ["m1"], name="matmul1"),
    helper.make_node("Add", ["m1", "b1"], ["a1"], name="bias1"),
    helper.make_node("Tanh", ["a1"], ["t1"], name="tanh"),
    helper.make_node("Gemm", ["x", "w2"], ["g2"], name="gemm2"),
    helper.make_node("Sigmoid", ["g2"], ["s2"], name="sigmoid"),
    helper.make_node("Sub", ["s2", "half"], ["d2"], name="minus_half"),
    helper.make_node("Div", ["d2", "two"], ["q2"], name="halve"),
    helper.make_node("Mul", ["t1", "q2"], ["prod"], name="gate"),
    helper.make_node("Sum", ["prod", "t1", "q2"], ["sum"], name="sum3"),
    helper.make_node("Max", ["sum", "t1"], ["mx"], name="max"),
    helper.make_node("Concat", ["mx", "sum"], ["cat"], name="concat", axis=1),
    helper.make_node("Elu", ["cat"], ["elu"], name="elu", alpha=0.7),
    helper.make_node("HardSigmoid", ["elu"], ["hs"], name="hard_sigmoid", alpha=0.3, beta=0.4),
    helper.make_node("Dropout", ["hs"], ["drop"], name="dropout"),
    helper.make_node("Reshape", ["drop", "shape"], ["rs"], name="reshape"),
    helper.make_node("Identity", ["rs"], ["y"], name="out"),
]
mlp_inits = [init("w1", [10, 6]), init("b1", [6]), init("w2", [10, 6]),
             numpy_helper.from_array(np.array(0.5, np.float32), "half"),
             numpy_helper.from_array(np.array([2.0], np.float32), "two"), ints("shape", [0, 3, -1])]
save("mlp", mlp_nodes, [tensor("x", ["N", 10])], [tensor("y", ["N", 3, 4])], mlp_inits,
     [rng.standard_normal((3, 10)).astype(np.float32)])

# Transposed convolution, padding and 1-d convolution.
deconv_nodes = [
    helper.make_node("Pad", ["x", "pads"], ["padded"], name="pad", mode="constant"),
    helper.make_node("ConvTranspose", ["padded", "ct_w", "ct_b"], ["ct"], name="deconv", strides=[2, 2],
                     pads=[1, 0, 1, 1], kernel_shape=[3, 3]),
    helper.make_node("Softplus", ["ct"], ["sp"], name="softplus"),
    helper.make_node("Reshape", ["sp", "shape"], ["seq"], name="to_sequence"),
    helper.make_node("Conv", ["seq", "c1d_w"], ["c1d"], name="conv1d", kernel_shape=[3], strides=[2]),
    helper.make_node("MaxPool", ["c1d"], ["y"], name="maxpool1d", kernel_shape=[2], pads=[1, 0]),
]
deconv_inits = [ints("pads", [0, 0, 1, 0, 0, 0, 0, 2]), init("ct_w", [3, 4, 3, 3]), init("ct_b", [4]),
                ints("shape", [0, 4, -1]), init("c1d_w", [6, 4, 3])]
save("deconv", deconv_nodes, [tensor("x", ["N", 3, 5, 4])], [tensor("y", ["N", 6, 65])], deconv_inits,
     [rng.standard_normal((2, 3, 5, 4)).astype(np.float32)])

# Layer normalization over the last two axes, after a transpose.
norm_nodes = [helper.make_node("Transpose", ["x"], ["t"], name="swap", perm=[0, 2, 1]),
              helper.make_node("LayerNormalization", ["t", "ln_scale", "ln_bias"], ["y"], name="layer_norm",
                               axis=1, epsilon=1e-4)]
save("layer_norm", norm_nodes, [tensor("x", ["N", 3, 4])], [tensor("y", ["N", 4, 3])],
     [init("ln_scale", [4, 3]), init("ln_bias", [4, 3])], [rng.standard_normal((2, 3, 4)).astype(np.float32)])

# An embedding lookup.
embed_nodes = [helper.make_node("Gather", ["table", "ids"], ["e"], name="embedding"),
               helper.make_node("ReduceMean", ["e"], ["y"], name="mean", axes=[1], keepdims=0)]
save("embedding_mean", embed_nodes, [tensor("ids", ["N", 4], TensorProto.INT64)], [tensor("y", ["N", 5])],
     [init("table", [9, 5])], [np.array([[0, 1, 2, 8], [3, 3, 4, 7]], np.int64)])

# Hostile: an operator the import lacks, an initializer with fewer bytes than its dims hold, an
# input whose row would overflow 64 bits.
save("unknown_op", [helper.make_node("Det", ["x"], ["y"], name="det_1")], [tensor("x", ["N", 3, 3])],
     [tensor("y", ["N"])], [], None)
short = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4, 3], raw_data=np.zeros(5, np.float32).tobytes())
save("short_initializer", [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], [tensor("x", ["N", 4])],
     [tensor("y", ["N", 3])], [short], None, check=False)
save("huge_input", [helper.make_node("Relu", ["x"], ["y"], name="relu")], [tensor("x", ["N", 2**31, 2**31, 2**31])],
     [tensor("y", ["N", 2**31, 2**31, 2**31])], [], None)

# Hostile shape arithmetic (computed while importing): a broadcast to 2^40 elements, a product of
# two values of 2^40 elements, an integer division by zero, an index past its axis.
relu = helper.make_node("Relu", ["x"], ["y"], name="relu")
save("huge_expand", [helper.make_node("Expand", ["one", "big"], ["e"], name="expand"), relu],
     [tensor("x", ["N", 3])], [tensor("y", ["N", 3])],
     [init("one", [1]), ints("big", [2**20, 2**20])], None, check=False)
save("huge_matmul", [helper.make_node("Transpose", ["x"], ["t"], name="t", perm=[0, 2, 1]),
                     helper.make_node("MatMul", ["x", "t"], ["y"], name="outer")],
     [tensor("x", [1, 2**20, 1])], [tensor("y", [1, 2**20, 2**20])], [], None)
save("divide_by_zero", [helper.make_node("Div", ["four", "zero"], ["q"], name="div"), relu],
     [tensor("x", ["N", 3])], [tensor("y", ["N", 3])], [ints("four", [4]), ints("zero", [0])], None)
save("gather_out_of_range", [helper.make_node("Gather", ["x", "five"], ["y"], name="pick", axis=1)],
     [tensor("x", ["N", 3])], [tensor("y", ["N"])], [numpy_helper.from_array(np.array(5, np.int64), "five")], None)
