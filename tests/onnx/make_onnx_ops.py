"""Writes one-operator ONNX files and onnxruntime's outputs for tests/onnx/test_onnx_ops.cpp:
make_onnx_ops.py OUTDIR.

OUTDIR/cases/NAME.onnx and NAME.npz (input_0, ..., output_0, ...): random inputs, several
attribute settings, constants of each element type, files of opsets 7 to 10; onnxruntime computes
the outputs.
OUTDIR/node/NAME.onnx and NAME.npz: the onnx package's own node test cases
(onnx.backend.test.case.node, the cases behind onnx/backend/test/data/node, which the wheel does
not ship), their first data set; OUTDIR/node/cases.txt lists "NAME OP[,OP...]" per case.
OUTDIR/opsets.txt: the opsets after 21 at which each operator's definition changed;
OUTDIR/introduced.txt: "OP OPSET", the opset that introduced each operator.
OUTDIR/refuse/NAME.onnx: files the import must refuse (test_onnx_ops.cpp lists why).
Run from the tests' virtual environment (onnx==1.23.2, onnxruntime==1.32.0).
"""
import os
import sys
import warnings

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(42)
F = TensorProto.FLOAT


def save_case(name, nodes, inputs, outputs, feeds, initializers=(), opset=17, ir_version=8, results=None):
    """Writes the file and its npz; onnxruntime computes the outputs unless `results` are given."""
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version)
    # (no onnx.checker: it wants output shapes, which onnxruntime infers while it loads the file)
    path = os.path.join(out, "cases", name + ".onnx")
    onnx.save(model, path)
    if results is None:
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        results = session.run(None, {i.name: f for i, f in zip(session.get_inputs(), feeds)})
    arrays = {f"input_{k}": f for k, f in enumerate(feeds)}
    arrays.update({f"output_{k}": r for k, r in enumerate(results)})
    np.savez(os.path.join(out, "cases", name + ".npz"), **arrays)


def info(name, array):
    return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(array.dtype), array.shape)


def one_op(name, op, feeds, constants=(), opset=17, outputs=1, out_types=None, results=None, **attributes):
    """A graph of one node: the feeds are its first inputs, then the constants (initializers).
    Its outputs have the first feed's element type unless out_types says otherwise; onnxruntime
    computes them unless `results` are given."""
    types = out_types or [helper.np_dtype_to_tensor_dtype(feeds[0].dtype)] * outputs
    names = [f"x{i}" for i in range(len(feeds))] + [f"c{i}" for i in range(len(constants))]
    outs = [f"y{i}" for i in range(outputs)]
    node = helper.make_node(op, names, outs, name=name, **attributes)
    inits = [numpy_helper.from_array(c, f"c{i}") for i, c in enumerate(constants)]
    save_case(name, [node], [info(n, f) for n, f in zip(names, feeds)],
              [helper.make_tensor_value_info(o, t, None) for o, t in zip(outs, types)], feeds, inits, opset,
              results=results)


def randn(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def uniform(lo, hi, *shape):
    return rng.uniform(lo, hi, shape).astype(np.float32)


def write_cases():
    os.makedirs(os.path.join(out, "cases"), exist_ok=True)
    # unary math of the unary list and composed, on the domain each is defined on
    domains = {"Neg": (-3, 3), "Abs": (-3, 3), "Exp": (-3, 3), "Log": (0.1, 5), "Sqrt": (0.01, 5),
               "Reciprocal": (0.5, 3), "Sign": (-3, 3), "Floor": (-3, 3), "Ceil": (-3, 3), "Round": (-3, 3),
               "Erf": (-2, 2), "Sin": (-4, 4), "Cos": (-4, 4), "Asin": (-0.9, 0.9), "Acos": (-0.9, 0.9), "Atan": (-5, 5),
               "Tan": (-1.2, 1.2), "Sinh": (-3, 3),
               "Cosh": (-3, 3), "Asinh": (-50, 50), "Acosh": (1, 20), "Atanh": (-0.9, 0.9), "Tanh": (-3, 3),
               "Sigmoid": (-4, 4), "Relu": (-3, 3), "Softplus": (-4, 4), "Softsign": (-4, 4),
               "HardSwish": (-5, 5), "Mish": (-4, 4)}
    for op, (lo, hi) in domains.items():
        one_op(f"unary_{op}", op, [uniform(lo, hi, 2, 3, 4)], opset=18 if op == "Mish" else 17)
    one_op("unary_Neg_int64", "Neg", [rng.integers(-9, 9, (3, 4)).astype(np.int64)])
    one_op("unary_Abs_int64", "Abs", [rng.integers(-9, 9, (3, 4)).astype(np.int64)])
    one_op("unary_Round_halves", "Round", [np.array([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]], np.float32)])

    # activations with attributes
    one_op("act_Gelu", "Gelu", [randn(2, 5)], opset=20)
    one_op("act_Gelu_tanh", "Gelu", [randn(2, 5)], opset=20, approximate="tanh")
    one_op("act_Selu", "Selu", [randn(2, 5)])
    one_op("act_Selu_attrs", "Selu", [randn(2, 5)], alpha=1.2, gamma=0.8)
    one_op("act_Celu", "Celu", [randn(2, 5)], alpha=0.7)
    one_op("act_Shrink", "Shrink", [randn(3, 5)], lambd=0.6, bias=0.2)
    one_op("act_Shrink_default", "Shrink", [randn(3, 5)])
    one_op("act_ThresholdedRelu", "ThresholdedRelu", [randn(3, 5)], alpha=0.3)
    one_op("act_Elu", "Elu", [randn(3, 5)], alpha=0.5)
    one_op("act_LeakyRelu", "LeakyRelu", [randn(3, 5)], alpha=0.2)
    one_op("act_HardSigmoid", "HardSigmoid", [randn(3, 5)], alpha=0.3, beta=0.4)
    one_op("act_PRelu_channels_first", "PRelu", [randn(2, 3, 4, 4)], [randn(3, 1, 1)])
    one_op("act_PRelu_shared", "PRelu", [randn(2, 3, 4)], [np.array([0.3], np.float32)])
    one_op("act_PRelu_broadcast", "PRelu", [randn(2, 3, 4)], [randn(3, 4)])
    one_op("act_PRelu_values", "PRelu", [randn(2, 3, 4), randn(3, 4)])
    for axis in (-1, 0, 1, 2):
        one_op(f"act_Softmax_axis{axis}", "Softmax", [randn(2, 3, 4)], axis=axis)
        one_op(f"act_LogSoftmax_axis{axis}", "LogSoftmax", [randn(2, 3, 4)], axis=axis)
        one_op(f"act_Hardmax_axis{axis}", "Hardmax", [randn(2, 3, 4)], axis=axis)
    one_op("act_Softmax_opset11", "Softmax", [randn(2, 3, 4)], opset=11)
    one_op("act_LogSoftmax_opset11_axis0", "LogSoftmax", [randn(2, 3, 4)], opset=11, axis=0)
    one_op("act_Hardmax_opset11", "Hardmax", [randn(2, 3, 4)], opset=11)
    # ties: the first maximum wins
    one_op("act_Hardmax_ties", "Hardmax", [np.array([[1, 3, 3, 0], [2, 2, 2, 2]], np.float32)])

    # binary math: two values (broadcasting), a constant on either side, integers
    for op in ("Add", "Sub", "Mul", "Div", "Pow"):
        base = uniform(0.5, 2, 2, 3, 4) if op == "Pow" else randn(2, 3, 4)
        other = uniform(-2, 2, 3, 4) if op == "Pow" else uniform(0.5, 2, 3, 4) * np.sign(randn(3, 4))
        one_op(f"binary_{op}_values", op, [base, other])
        one_op(f"binary_{op}_const_right", op, [base], [other])
        one_op(f"binary_{op}_const_left", op, [uniform(0.5, 2, 2, 1, 4)], [uniform(0.5, 2, 3, 1)])
    one_op("binary_Pow_int_exponent", "Pow", [randn(2, 3)], [np.array([2, 3, 1], np.int64)])
    ints = rng.integers(-20, 20, (3, 4)).astype(np.int64)
    divisors = (rng.integers(1, 6, (4,)) * rng.choice([-1, 1], 4)).astype(np.int64)
    one_op("binary_Div_int64", "Div", [ints, divisors])
    one_op("binary_Mod_int64", "Mod", [ints, divisors])
    one_op("binary_Mod_int64_fmod", "Mod", [ints, divisors], fmod=1)
    one_op("binary_Mod_float_fmod", "Mod", [randn(3, 4, scale=5)], [uniform(0.5, 2, 4)], fmod=1)
    one_op("binary_Mod_float_opset28", "Mod", [randn(3, 4, scale=5)], [uniform(0.5, 2, 4) * np.sign(randn(4))],
           opset=28)
    one_op("binary_Sub_int64", "Sub", [ints], [divisors])
    for op in ("Sum", "Max", "Min", "Mean"):
        one_op(f"variadic_{op}_broadcast", op, [randn(2, 3, 4), randn(3, 4), randn(4)])
        one_op(f"variadic_{op}_same", op, [randn(2, 3), randn(2, 3)])
        one_op(f"variadic_{op}_const", op, [randn(2, 3)], [randn(3)])

    # reductions: axes as an attribute (opset 17; ReduceSum's an input) and as an input (18)
    i64 = TensorProto.INT64
    for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
               "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"):
        x = uniform(0.5, 1.5, 2, 3, 4) if op in ("ReduceLogSum", "ReduceProd") else randn(2, 3, 4)
        for axes, keep in (([1], 1), ([0, 2], 0), ([-1], 0)):
            tag = f"reduce_{op}_{'_'.join(str(a) for a in axes)}_keep{keep}"
            if op == "ReduceSum":
                one_op(tag, op, [x], [np.array(axes, np.int64)], keepdims=keep)
            else:
                one_op(tag, op, [x], axes=axes, keepdims=keep)
            one_op(tag + "_opset18", op, [x], [np.array(axes, np.int64)], opset=18, keepdims=keep)
        one_op(f"reduce_{op}_all", op, [x], opset=18, keepdims=0)
        one_op(f"reduce_{op}_noop", op, [x], [np.array([], np.int64)], opset=18, noop_with_empty_axes=1)
    ties = rng.integers(0, 3, (3, 4, 5)).astype(np.float32)
    for op in ("ArgMax", "ArgMin"):
        for axis, keep, last in ((1, 1, 0), (2, 0, 0), (0, 1, 1), (-1, 0, 1)):
            one_op(f"reduce_{op}_{axis}_{keep}_{last}", op, [ties], out_types=[i64], axis=axis, keepdims=keep,
                   select_last_index=last)
    for axis, exclusive, reverse in ((1, 0, 0), (0, 1, 0), (2, 0, 1), (-1, 1, 1)):
        one_op(f"reduce_CumSum_{axis}_{exclusive}_{reverse}", "CumSum", [randn(3, 4, 5)], [np.array(axis, np.int64)],
               exclusive=exclusive, reverse=reverse)
    for axis, largest in ((1, 1), (-1, 0), (0, 1)):
        one_op(f"reduce_TopK_{axis}_{largest}", "TopK", [ties + randn(3, 4, 5, scale=0.01)], [np.array([2], np.int64)],
               outputs=2, out_types=[F, i64], axis=axis, largest=largest)

    # comparisons and logic (values, a constant on either side), Not, Where, Cast of values
    B = TensorProto.BOOL
    small = rng.integers(-2, 3, (3, 4)).astype(np.float32)  # ties, so that equality is tested
    for op in ("Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Equal"):
        one_op(f"logic_{op}_values", op, [small, rng.integers(-2, 3, (4,)).astype(np.float32)], out_types=[B])
        one_op(f"logic_{op}_const_right", op, [small], [np.array([0.0, 1.0, -1.0, 2.0], np.float32)], out_types=[B])
        one_op(f"logic_{op}_const_left", op, [small], [np.array(1.0, np.float32)], out_types=[B])
    bools = rng.integers(0, 2, (3, 4)).astype(np.bool_)
    for op in ("And", "Or", "Xor"):
        one_op(f"logic_{op}", op, [bools, rng.integers(0, 2, (4,)).astype(np.bool_)])
    one_op("logic_Not", "Not", [bools])
    cond = rng.integers(0, 2, (3, 4)).astype(np.bool_)
    one_op("logic_Where_values", "Where", [cond, randn(3, 4), randn(4)], out_types=[F])
    one_op("logic_Where_const_b", "Where", [cond, randn(3, 4)], [randn(3, 1)], out_types=[F])
    one_op("logic_Where_const_a", "Where", [cond], [randn(4), randn(3, 4)], out_types=[F])
    for to, np_to in ((TensorProto.INT64, np.int64), (TensorProto.INT32, np.int32), (TensorProto.DOUBLE, np.float64),
                      (TensorProto.BOOL, np.bool_), (TensorProto.UINT8, np.uint8)):
        x = np.abs(randn(3, 4, scale=5)) if np_to == np.uint8 else randn(3, 4, scale=5)
        one_op(f"logic_Cast_float_to_{np.dtype(np_to).name}", "Cast", [x], out_types=[to], to=to)
    one_op("logic_Cast_int64_to_float", "Cast", [rng.integers(-50, 50, (3, 4)).astype(np.int64)], out_types=[F], to=F)
    one_op("logic_Cast_bool_to_float", "Cast", [bools], out_types=[F], to=F)

    # padding, repeating and moving elements; generators folded while importing
    x4 = randn(2, 3, 4, 5)
    for mode in ("constant", "reflect", "edge", "wrap"):
        one_op(f"shape_Pad_{mode}", "Pad", [x4], [np.array([0, 1, 2, 1, 0, 2, 1, 3], np.int64)], mode=mode)
        one_op(f"shape_Pad_{mode}_axes", "Pad", [x4], [np.array([1, 2, 3, 1], np.int64), np.array(0.5, np.float32),
                                                          np.array([2, -1], np.int64)], opset=18, mode=mode)
    one_op("shape_Pad_value", "Pad", [x4], [np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), np.array(-2.0, np.float32)])
    one_op("shape_Expand", "Expand", [randn(3, 1)], [np.array([2, 3, 4], np.int64)])
    one_op("shape_Expand_same_rank", "Expand", [randn(1, 3, 1)], [np.array([2, 1, 5], np.int64)])
    one_op("shape_Tile", "Tile", [randn(2, 3)], [np.array([2, 3], np.int64)])
    picks = rng.integers(-3, 3, (2, 4, 3)).astype(np.int64)
    one_op("shape_GatherElements_values", "GatherElements", [randn(2, 3, 3), picks], axis=1)
    one_op("shape_GatherElements_const", "GatherElements", [randn(2, 3, 3)], [picks[:, :2, :]], axis=-2)
    for mode in ("DCR", "CRD"):
        one_op(f"shape_DepthToSpace_{mode}", "DepthToSpace", [randn(2, 8, 3, 4)], blocksize=2, mode=mode)
    one_op("shape_SpaceToDepth", "SpaceToDepth", [randn(2, 3, 4, 6)], blocksize=2)
    one_op("shape_SpaceToDepth_CRD", "SpaceToDepth", [randn(2, 3, 4, 6)], opset=28, blocksize=2, mode="CRD")
    one_op("shape_LRN", "LRN", [randn(2, 6, 3, 3)], size=3, alpha=0.02, beta=0.6, bias=1.5)
    one_op("shape_LRN_default", "LRN", [randn(1, 7, 2, 3)], size=5)
    one_op("shape_Dropout_mask", "Dropout", [randn(3, 4)], outputs=2, out_types=[F, TensorProto.BOOL])
    for ta, tb in ((0, 0), (1, 0), (0, 1), (1, 1)):
        a = randn(4, 3) if ta else randn(3, 4)
        b = randn(5, 4) if tb else randn(4, 5)
        one_op(f"shape_Gemm_values_{ta}{tb}", "Gemm", [a, b, randn(5)], transA=ta, transB=tb, alpha=0.5, beta=2.0)
    one_op("shape_Gemm_values_const_c", "Gemm", [randn(3, 4), randn(4, 5)], [randn(3, 5)])
    one_op("shape_Gemm_values_no_c", "Gemm", [randn(3, 4), randn(4, 5)], transA=0)
    x = randn(2, 3)
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("ConstantOfShape", ["s"], ["k"], name="fill",
                              value=numpy_helper.from_array(np.array([1.5], np.float32))),
             helper.make_node("Range", ["r0", "r1", "r2"], ["r"], name="range"),
             helper.make_node("Size", ["x"], ["n"], name="size"),
             helper.make_node("Cast", ["n"], ["nf"], name="cast", to=F),
             helper.make_node("Add", ["x", "k"], ["a"], name="add"),
             helper.make_node("Mul", ["a", "r"], ["b"], name="mul"),
             helper.make_node("Mul", ["b", "nf"], ["y"], name="scale")]
    save_case("shape_generators", nodes, [info("x", x)], [helper.make_tensor_value_info("y", F, None)], [x],
              [numpy_helper.from_array(np.array(v, np.float32), n) for n, v in (("r0", 0.5), ("r1", 2.0), ("r2", 0.5))])

    # comparisons, Not and Size of constants folded while importing, feeding a Where of values
    consts = {"ca": np.array([1, 5, 3, 4], np.int64), "cb": np.array([2, 5, 1, 4], np.int64)}
    nodes = [helper.make_node("Equal", ["ca", "cb"], ["eq"], name="eq"),
             helper.make_node("Less", ["ca", "cb"], ["lt"], name="lt"),
             helper.make_node("Greater", ["ca", "cb"], ["gt"], name="gt"),
             helper.make_node("Not", ["eq"], ["ne"], name="not"),
             helper.make_node("Cast", ["lt"], ["ltf"], name="cast_lt", to=F),
             helper.make_node("Cast", ["gt"], ["gtf"], name="cast_gt", to=F),
             helper.make_node("Size", ["ca"], ["n"], name="size"),
             helper.make_node("Cast", ["n"], ["nf"], name="cast", to=F),
             helper.make_node("Where", ["ne", "x", "nf"], ["w"], name="where"),
             helper.make_node("Mul", ["w", "ltf"], ["m"], name="mul"),
             helper.make_node("Add", ["m", "gtf"], ["y"], name="add")]
    x = randn(3, 4)
    save_case("shape_constant_folds", nodes, [info("x", x)], [helper.make_tensor_value_info("y", F, None)], [x],
              [numpy_helper.from_array(v, n) for n, v in consts.items()])

    # constants of each element type, read through a Cast (float16 too) or directly
    for dtype, tag in ((np.int32, "int32"), (np.float64, "float64"), (np.uint8, "uint8"), (np.float16, "float16"),
                       (np.bool_, "bool")):
        c = (rng.integers(0, 3, (3, 4)) if dtype in (np.uint8, np.bool_) else rng.standard_normal((3, 4)) * 3)
        node_cast = helper.make_node("Cast", ["c"], ["cf"], name="cast", to=F)
        node_add = helper.make_node("Add", ["x", "cf"], ["y"], name="add")
        save_case(f"dtype_{tag}_cast", [node_cast, node_add], [info("x", randn(2, 3, 4))],
                  [helper.make_tensor_value_info("y", F, None)], [randn(2, 3, 4)],
                  [numpy_helper.from_array(c.astype(dtype), "c")])
    # tf2onnx's int32 shape constants: Cast to int64, then Reshape
    node_cast = helper.make_node("Cast", ["s"], ["s64"], name="cast", to=TensorProto.INT64)
    node_reshape = helper.make_node("Reshape", ["x", "s64"], ["y"], name="reshape")
    save_case("dtype_int32_shape", [node_cast, node_reshape], [info("x", randn(2, 3, 4))],
              [helper.make_tensor_value_info("y", F, None)], [randn(2, 3, 4)],
              [numpy_helper.from_array(np.array([2, 12], np.int32), "s")])
    one_op("dtype_float64_values", "Mul", [rng.standard_normal((2, 3)), rng.standard_normal((2, 3))])
    one_op("dtype_int32_values", "Add", [rng.integers(-5, 5, (2, 3)).astype(np.int32)],
           [rng.integers(-5, 5, (3,)).astype(np.int32)])


def write_index_cases():
    """Gather, GatherND, ScatterElements, ScatterND with indices computed or constant (negative
    ones too) and every reduction; MatMul of any ranks, with a constant on either side."""
    i64 = TensorProto.INT64
    data = randn(3, 4, 5)
    picks = rng.integers(-4, 4, (2, 3)).astype(np.int64)
    one_op("index_Gather_values_axis1", "Gather", [data, picks], axis=1)
    one_op("index_Gather_const_axis2", "Gather", [data], [rng.integers(-5, 5, (4,)).astype(np.int64)], axis=-1)
    one_op("index_Gather_values_axis0", "Gather", [data, rng.integers(-3, 3, (2, 2)).astype(np.int64)])
    def mixed_op(name, op, args, opset=17, **attributes):  # args: (array, is_constant) in the node's order
        names = [f"a{k}" for k in range(len(args))]
        node = helper.make_node(op, names, ["y"], name=name, **attributes)
        feeds = [a for a, constant in args if not constant]
        save_case(name, [node], [info(n, a) for n, (a, constant) in zip(names, args) if not constant],
                  [helper.make_tensor_value_info("y", F, None)], feeds,
                  [numpy_helper.from_array(a, n) for n, (a, constant) in zip(names, args) if constant], opset)

    mixed_op("index_Gather_const_table_axis1", "Gather", [(randn(4, 4, 2), True), (picks, False)], axis=1)
    one_op("index_Gather_int64_data", "Gather", [rng.integers(0, 9, (3, 4)).astype(np.int64), picks[:, :2] % 3])
    nd = rng.integers(-3, 3, (2, 3, 2)).astype(np.int64)
    one_op("index_GatherND_values", "GatherND", [data, nd])
    one_op("index_GatherND_const", "GatherND", [data], [np.array([[0, 1, 2], [-1, 0, 4]], np.int64)])
    one_op("index_GatherND_batch1", "GatherND", [data, rng.integers(0, 4, (3, 2, 1)).astype(np.int64)], batch_dims=1)
    x = randn(3, 4, 5)
    for reduction in ("none", "add", "mul", "max", "min"):
        # distinct positions for none (duplicates leave the order to the runtime), repeated ones otherwise
        rows = (np.stack([rng.permutation(4)[:2] for _ in range(3 * 5)]).reshape(3, 5, 2).transpose(0, 2, 1)
                if reduction == "none" else rng.integers(-4, 4, (3, 2, 5)))
        one_op(f"index_ScatterElements_{reduction}", "ScatterElements", [x, rows.astype(np.int64), randn(3, 2, 5)],
               opset=18, axis=1, reduction=reduction)
        tuples = (np.array([[[0, 1], [2, 3]], [[1, 0], [-1, -2]]], np.int64) if reduction == "none"
                  else rng.integers(-2, 2, (2, 2, 2)).astype(np.int64))
        one_op(f"index_ScatterND_{reduction}", "ScatterND", [x, tuples, randn(2, 2, 5)], opset=18, reduction=reduction)
    mixed_op("index_ScatterElements_const_indices", "ScatterElements",
             [(x, False), (rng.integers(0, 5, (3, 4, 2)).astype(np.int64), True), (randn(3, 4, 2), False)], opset=16,
             axis=-1, reduction="add")
    one_op("index_ScatterND_const_updates", "ScatterND", [x, np.array([[1], [2]], np.int64)], [randn(2, 4, 5)])
    one_op("index_Scatter_opset9", "Scatter", [randn(3, 4), np.array([[1, 0, 3], [2, 2, 0]], np.int64), randn(2, 3)],
           opset=9, axis=1)
    for tag, a, b in (("1d_3d", randn(4), randn(2, 4, 3)), ("4d_1d", randn(2, 3, 2, 4), randn(4)),
                      ("broadcast", randn(2, 1, 3, 4), randn(5, 4, 2)), ("vectors", randn(4), randn(4))):
        one_op(f"index_MatMul_{tag}", "MatMul", [a, b])
    mixed_op("index_MatMul_const_left", "MatMul", [(randn(5, 4), True), (randn(2, 4, 3), False)])
    one_op("index_MatMul_const_right_3d", "MatMul", [randn(2, 3, 4)], [randn(2, 4, 5)])
    one_op("index_MatMul_const_vector", "MatMul", [randn(2, 3, 4)], [randn(4)])


def write_resize_cases():
    """Resize in each mode, rounding and coordinate transformation, by scales or sizes; Upsample and
    Resize of opsets 7 to 10 (adapted); a symbolic batch kept by a scale of 1."""
    x = randn(2, 3, 4, 5)

    def resize(name, scales=None, sizes=None, opset=13, shape=None, **attributes):
        inits = []
        if scales is not None:
            inits.append(numpy_helper.from_array(np.array(scales, np.float32), "scales"))
        if sizes is not None:
            inits.append(numpy_helper.from_array(np.array(sizes, np.int64), "sizes"))
        names = ["x", "roi" if opset < 13 else "", "scales" if scales is not None else "", "sizes" if sizes is not None else ""]
        if opset < 13:
            inits.append(numpy_helper.from_array(np.array([], np.float32), "roi"))
            if scales is None:
                names[2] = "no_scales"
                inits.append(numpy_helper.from_array(np.array([], np.float32), "no_scales"))
        while names[-1] == "":
            names.pop()
        node = helper.make_node("Resize", names, ["y"], name=name, **attributes)
        save_case(name, [node], [helper.make_tensor_value_info("x", F, shape or list(x.shape))],
                  [helper.make_tensor_value_info("y", F, None)], [x], inits, opset)

    # (scales whose output lengths are whole: align_corners and pytorch_half_pixel otherwise differ
    # between onnx's reference and onnxruntime, and are refused)
    for rounding in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
        for coordinates in ("half_pixel", "asymmetric", "align_corners"):
            resize(f"resize_nearest_{rounding}_{coordinates}_up", scales=[1, 1, 1.25, 2.0], mode="nearest",
                   nearest_mode=rounding, coordinate_transformation_mode=coordinates)
            resize(f"resize_nearest_{rounding}_{coordinates}_down", sizes=[2, 3, 3, 2], mode="nearest",
                   nearest_mode=rounding, coordinate_transformation_mode=coordinates)
    for coordinates in ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"):
        resize(f"resize_linear_{coordinates}_up", scales=[1, 1, 1.25, 3.0], mode="linear",
               coordinate_transformation_mode=coordinates)
        resize(f"resize_linear_{coordinates}_down", sizes=[2, 3, 3, 1], mode="linear",
               coordinate_transformation_mode=coordinates)
        resize(f"resize_cubic_{coordinates}", scales=[1, 1, 0.5, 2.0], mode="cubic",
               coordinate_transformation_mode=coordinates)
    resize("resize_linear_half_pixel_symmetric", scales=[1, 1, 1.6, 0.7], opset=19, mode="linear",
           coordinate_transformation_mode="half_pixel_symmetric")
    resize("resize_cubic_exclude_outside", scales=[1, 1, 2.0, 0.6], mode="cubic", cubic_coeff_a=-0.5, exclude_outside=1)
    resize("resize_nearest_tf_half_pixel_for_nn", scales=[1, 1, 1.5, 2.0], opset=11, mode="nearest",
           coordinate_transformation_mode="tf_half_pixel_for_nn")
    resize("resize_linear_opset11_sizes", sizes=[2, 3, 7, 3], opset=11, mode="linear")
    resize("resize_nearest_axes_not_larger", sizes=[7, 9], opset=18, axes=[2, 3], keep_aspect_ratio_policy="not_larger")
    resize("resize_linear_not_smaller", sizes=[7, 9], opset=18, mode="linear", axes=[2, 3],
           keep_aspect_ratio_policy="not_smaller")
    resize("resize_symbolic_batch", scales=[1, 1, 2.0, 2.0], shape=["N", 3, 4, 5], mode="linear")
    # scales from a Constant node, sizes from shape arithmetic the import folds (PyTorch's
    # interpolate writes Shape -> Slice -> Concat; here also Gather, Mul and Cast)
    i64 = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
    scales = helper.make_node("Constant", [], ["sc"], value=numpy_helper.from_array(np.array([1, 1, 2.0, 1.5], np.float32)))
    save_case("resize_scales_constant_node", [scales, helper.make_node("Resize", ["x", "", "sc"], ["y"], mode="linear")],
              [info("x", x)], [helper.make_tensor_value_info("y", F, None)], [x], opset=13)
    chain = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Slice", ["s", "zero", "two"], ["nc"]),
             helper.make_node("Gather", ["s", "hw_axes"], ["hw"]),
             helper.make_node("Mul", ["hw", "two"], ["hw2"]),
             helper.make_node("Cast", ["hw2"], ["hwf"], to=F),
             helper.make_node("Cast", ["hwf"], ["hwi"], to=TensorProto.INT64),
             helper.make_node("Concat", ["nc", "hwi"], ["sizes"], axis=0),
             helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="nearest")]
    save_case("resize_sizes_from_shape", chain, [info("x", x)], [helper.make_tensor_value_info("y", F, None)], [x],
              [i64("zero", [0]), i64("two", [2]), i64("hw_axes", [2, 3])], opset=13)
    # scales and sizes computed from the shapes of the values, as exporters write
    # F.interpolate(x, size=y.shape[2:]): folded while importing, the symbolic batch's N / N too
    y = randn(2, 3, 8, 10)
    for batch in (2, "N"):
        tag = "fixed" if batch == 2 else "symbolic"
        ins = [helper.make_tensor_value_info("x", F, [batch, 3, 4, 5]),
               helper.make_tensor_value_info("y", F, [batch, 3, 8, 10])]
        outs = [helper.make_tensor_value_info("out", F, None)]
        shapes = [helper.make_node("Shape", ["y"], ["sy"]), helper.make_node("Shape", ["x"], ["sx"])]
        add = helper.make_node("Add", ["r", "y"], ["out"])  # y read: an input onnxruntime keeps
        floats = [helper.make_node("Cast", ["sy"], ["fy"], to=F), helper.make_node("Cast", ["sx"], ["fx"], to=F)]
        save_case(f"resize_scales_from_shapes_{tag}",
                  shapes + floats + [helper.make_node("Div", ["fy", "fx"], ["sc"]),
                                     helper.make_node("Resize", ["x", "", "sc"], ["r"], mode="linear"), add],
                  ins, outs, [x, y], opset=13)
        halves = [helper.make_node("Slice", ["sy", "two", "four"], ["hy"]),
                  helper.make_node("Slice", ["sx", "two", "four"], ["hx"]),
                  helper.make_node("Cast", ["hy"], ["fy"], to=F), helper.make_node("Cast", ["hx"], ["fx"], to=F),
                  helper.make_node("Div", ["fy", "fx"], ["q"]),
                  helper.make_node("Concat", ["ones", "q"], ["sc"], axis=0)]
        save_case(f"resize_scales_concat_{tag}",
                  shapes + halves + [helper.make_node("Resize", ["x", "", "sc"], ["r"], mode="cubic",
                                                      coordinate_transformation_mode="pytorch_half_pixel"), add],
                  ins, outs, [x, y], [i64("two", [2]), i64("four", [4]),
                                      numpy_helper.from_array(np.ones(2, np.float32), "ones")], opset=13)
        save_case(f"resize_sizes_of_other_{tag}",
                  [helper.make_node("Shape", ["y"], ["sy"], start=2),
                   helper.make_node("Resize", ["x", "", "", "sy"], ["r"], mode="linear", axes=[2, 3]), add],
                  ins, outs, [x, y], opset=18)
        # PyTorch's opset-9 interpolate: Upsample by scales from the shapes (nearest checked >= 1 once folded)
        old_halves = [helper.make_node("Slice", ["sy"], ["hy"], starts=[2], ends=[4]),
                      helper.make_node("Slice", ["sx"], ["hx"], starts=[2], ends=[4])] + halves[2:]
        for mode in ("nearest", "linear"):
            save_case(f"resize_Upsample_opset9_{mode}_scales_from_shapes_{tag}",
                      shapes + old_halves + [helper.make_node("Upsample", ["x", "sc"], ["r"], mode=mode), add],
                      ins, outs, [x, y], [numpy_helper.from_array(np.ones(2, np.float32), "ones")], opset=9)
        save_case(f"resize_sizes_whole_shape_{tag}",
                  [helper.make_node("Shape", ["y"], ["sy"]),
                   helper.make_node("Resize", ["x", "", "", "sy"], ["r"], mode="nearest", nearest_mode="floor"), add],
                  ins, outs, [x, y], opset=13)
    # opsets 7 to 10: asymmetric coordinates, nearest rounding down
    for mode in ("nearest", "linear"):
        one_op(f"resize_Upsample_opset7_{mode}", "Upsample", [x], opset=7, mode=mode, scales=[1.0, 1.0, 2.0, 3.0])
        one_op(f"resize_Upsample_opset9_{mode}", "Upsample", [x], [np.array([1, 1, 1.5, 2.0], np.float32)], opset=9,
               mode=mode)
        one_op(f"resize_Resize_opset10_{mode}", "Resize", [x], [np.array([1, 1, 2.0, 1.6], np.float32)], opset=10,
               mode=mode)
    one_op("resize_Resize_opset10_linear_down", "Resize", [x], [np.array([1, 1, 0.5, 0.6], np.float32)], opset=10,
           mode="linear")


def write_norm_cases():
    """LayerNormalization beyond Strata's layer: axis 0, computed or broadcast scale and bias, the
    Mean and InvStdDev outputs."""
    x = randn(2, 3, 4, scale=2.0)
    one_op("norm_LayerNormalization_axis0", "LayerNormalization", [x], [randn(2, 3, 4), randn(2, 3, 4)], axis=0)
    one_op("norm_LayerNormalization_values", "LayerNormalization", [x, randn(3, 4), randn(3, 4)], axis=-2,
           epsilon=1e-3)
    one_op("norm_LayerNormalization_broadcast_no_bias", "LayerNormalization", [x], [randn(4)], axis=1)
    one_op("norm_LayerNormalization_stats", "LayerNormalization", [x], [randn(4), randn(4)], outputs=3)
    x4 = randn(2, 6, 3, 4, scale=2.0)
    one_op("norm_GroupNormalization_opset18", "GroupNormalization", [x4], [randn(3), randn(3)], opset=18,
           num_groups=3, epsilon=1e-3)
    one_op("norm_GroupNormalization_opset21_values", "GroupNormalization", [x4, randn(6), randn(6)], opset=21,
           num_groups=2)
    one_op("norm_InstanceNormalization_values", "InstanceNormalization", [x4, randn(6), randn(6)])


def write_pool_cases():
    """Pools beyond Strata's layers: dilations, ceil_mode, count_include_pad with pads,
    SAME_LOWER; LpPool and GlobalLpPool."""
    x4, x3, x5 = randn(2, 3, 7, 8), randn(2, 3, 9), randn(1, 2, 5, 6, 5)
    for op in ("MaxPool", "AveragePool"):
        one_op(f"pool_{op}_dilations", op, [x4], opset=19, kernel_shape=[3, 2], dilations=[2, 3], pads=[1, 0, 2, 1])
        one_op(f"pool_{op}_ceil", op, [x4], kernel_shape=[3, 3], strides=[2, 3], pads=[1, 1, 1, 1], ceil_mode=1)
        one_op(f"pool_{op}_same_lower", op, [x4], kernel_shape=[2, 3], strides=[2, 2], auto_pad="SAME_LOWER")
        one_op(f"pool_{op}_1d_ceil_dilated", op, [x3], opset=19, kernel_shape=[2], strides=[2], dilations=[2],
               ceil_mode=1)
        one_op(f"pool_{op}_3d_dilations", op, [x5], opset=19, kernel_shape=[2, 2, 2], dilations=[2, 1, 2], pads=[1] * 6)
    one_op("pool_AveragePool_count_include_pad", "AveragePool", [x4], kernel_shape=[3, 3], pads=[1, 2, 2, 1],
           count_include_pad=1)
    one_op("pool_AveragePool_count_include_pad_ceil", "AveragePool", [x4], kernel_shape=[3, 2], strides=[2, 3],
           pads=[1, 1, 1, 1], count_include_pad=1, ceil_mode=1)
    # ceil_mode's last window reaching past the counted padding on one axis and into the padding
    # before on another: the corner is not counted (the count is a product of one per axis)
    one_op("pool_AveragePool_count_include_pad_ceil_corner", "AveragePool", [randn(2, 3, 7, 4)], kernel_shape=[3, 2],
           strides=[2, 3], pads=[2, 1, 1, 0], count_include_pad=1, ceil_mode=1)
    for p in (1, 2, 3):
        one_op(f"pool_LpPool_p{p}", "LpPool", [x4], opset=18, kernel_shape=[2, 3], strides=[2, 1], pads=[0, 1, 1, 0], p=p)
        one_op(f"pool_GlobalLpPool_p{p}", "GlobalLpPool", [x4], p=p)
    one_op("pool_LpPool_1d_same_upper", "LpPool", [x3], opset=18, kernel_shape=[3], auto_pad="SAME_UPPER")
    one_op("pool_GlobalLpPool_3d", "GlobalLpPool", [x5])

    # MaxPool's Indices (positions in the whole input, batch and channels counted; storage_order
    # 1: column-major over the spatial axes), 1-3 d with pads, strides, dilations, ceil_mode
    def indices(name, x, **attributes):
        one_op(f"pool_MaxPool_indices_{name}", "MaxPool", [x], opset=19, outputs=2,
               out_types=[helper.np_dtype_to_tensor_dtype(x.dtype), TensorProto.INT64], **attributes)

    indices("1d", x3, kernel_shape=[3], strides=[2], pads=[1, 2])
    indices("1d_ceil_dilated", x3, kernel_shape=[2], strides=[2], dilations=[2], ceil_mode=1)
    for order in (0, 1):
        indices(f"2d_order{order}", x4, kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 1, 1], storage_order=order)
        indices(f"2d_ceil_dilations_order{order}", x4, kernel_shape=[2, 3], strides=[2, 2], dilations=[2, 1],
                pads=[0, 1, 1, 0], ceil_mode=1, storage_order=order)
        indices(f"3d_order{order}", x5, kernel_shape=[2, 3, 2], strides=[1, 2, 2], pads=[1, 0, 1, 0, 1, 0],
                storage_order=order)
    indices("2d_same_lower", x4, kernel_shape=[2, 3], strides=[2, 2], auto_pad="SAME_LOWER", storage_order=1)
    indices("3d_dilations_ceil", x5, kernel_shape=[2, 2, 2], strides=[2, 2, 2], dilations=[1, 2, 1], ceil_mode=1)
    # integers: uint8 (int8 inputs are refused by type; Strata has no int8), ties the first wins;
    # values from 1, since onnxruntime gives no index to a window whose largest is 0
    u4 = rng.integers(1, 9, (2, 3, 7, 8)).astype(np.uint8)
    one_op("pool_MaxPool_uint8", "MaxPool", [rng.integers(0, 256, (2, 3, 7, 8)).astype(np.uint8)], kernel_shape=[3, 3],
           strides=[2, 2], pads=[1, 1, 1, 1])
    one_op("pool_MaxPool_uint8_1d_ceil", "MaxPool", [rng.integers(0, 256, (2, 3, 9)).astype(np.uint8)],
           kernel_shape=[2], strides=[2], ceil_mode=1)
    one_op("pool_MaxPool_uint8_3d", "MaxPool", [rng.integers(0, 256, (1, 2, 5, 6, 5)).astype(np.uint8)], opset=19,
           kernel_shape=[2, 2, 2], strides=[2, 1, 2], dilations=[1, 2, 1])
    # a uint8 value that a Cast makes (no declared type): the Cast's target routes it
    whole = rng.integers(0, 256, (2, 3, 7, 8)).astype(np.float32)
    save_case("pool_MaxPool_uint8_of_cast",
              [helper.make_node("Cast", ["x"], ["u"], to=TensorProto.UINT8),
               helper.make_node("MaxPool", ["u"], ["y"], kernel_shape=[2, 3], strides=[2, 1])],
              [info("x", whole)], [helper.make_tensor_value_info("y", TensorProto.UINT8, None)], [whole])
    indices("uint8_ties", u4, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    indices("uint8_ties_order1", u4, kernel_shape=[2, 3], strides=[1, 2], storage_order=1)
    # MaxUnpool: of MaxPool's two outputs (back to the input's shape, output_shape), and of values
    # with indices anywhere in the output (its default shape)
    for tag, x, attributes in (("1d_pads", x3, dict(kernel_shape=[3], strides=[2], pads=[1, 1])),
                               ("2d", x4, dict(kernel_shape=[2, 2], strides=[2, 2])),
                               ("3d_overlapping", x5, dict(kernel_shape=[2, 3, 2], strides=[1, 2, 2]))):
        pool = helper.make_node("MaxPool", ["x"], ["p", "i"], **attributes)
        unpool = helper.make_node("MaxUnpool", ["p", "i", "shape"], ["y"], **attributes)
        save_case(f"pool_MaxUnpool_{tag}", [pool, unpool], [info("x", x)],
                  [helper.make_tensor_value_info("y", F, None)], [x],
                  [numpy_helper.from_array(np.array(x.shape, np.int64), "shape")], opset=11)
    xe = randn(3, 2, 6, 8)  # a symbolic batch, both outputs of the pool read
    save_case("pool_MaxUnpool_symbolic_batch",
              [helper.make_node("MaxPool", ["x"], ["p", "i"], kernel_shape=[2, 2], strides=[2, 2]),
               helper.make_node("MaxUnpool", ["p", "i"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
              [helper.make_tensor_value_info("x", F, ["N", 2, 6, 8])],
              [helper.make_tensor_value_info("y", F, None),
               helper.make_tensor_value_info("i", TensorProto.INT64, None)],
              [xe], opset=11)
    where = rng.permutation(2 * 3 * 6 * 8)[:2 * 3 * 3 * 4].reshape(2, 3, 3, 4).astype(np.int64)
    one_op("pool_MaxUnpool_values", "MaxUnpool", [randn(2, 3, 3, 4), where], opset=11, kernel_shape=[2, 2],
           strides=[2, 2])
    # float64: onnxruntime pools doubles only in MaxPool; the others' references are onnx's
    from onnx.reference import ReferenceEvaluator
    d4, d5 = rng.standard_normal((2, 3, 7, 8)), rng.standard_normal((1, 2, 5, 6, 5))
    indices("float64", d4, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], storage_order=1)
    one_op("pool_MaxPool_float64", "MaxPool", [d5], kernel_shape=[2, 2, 2], strides=[2, 1, 2])
    for op, attributes in (("AveragePool", dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
                           ("AveragePool", dict(kernel_shape=[3, 2], strides=[2, 3], pads=[1, 1, 1, 1],
                                                count_include_pad=1, ceil_mode=1)),
                           ("GlobalMaxPool", {}), ("GlobalAveragePool", {})):
        node = helper.make_node(op, ["x"], ["y"], **attributes)
        model = helper.make_model(helper.make_graph([node], "g", [info("x", d4)],
                                                    [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)]))
        tag = "_ceil" if attributes.get("ceil_mode") else ""
        one_op(f"pool_{op}_float64{tag}", op, [d4], results=ReferenceEvaluator(model).run(None, {"x": d4}),
               **attributes)


def write_random_pool_cases(count=150):
    """randpool_*: MaxPool (with Indices, uint8, float64), AveragePool and LpPool at random
    attributes (1-3 d, kernel, strides, dilations, pads or auto_pad, ceil_mode, storage_order,
    count_include_pad, p) that onnxruntime runs: each must match it or be refused by name."""
    r = np.random.default_rng(7)  # its own: the other files' inputs stay as they were
    for n in range(count):
        d = int(r.integers(1, 4))
        shape = [int(r.integers(1, 3)), int(r.integers(1, 4))] + [int(r.integers(1, 8)) for _ in range(d)]
        k = [int(r.integers(1, 4)) for _ in range(d)]
        attributes = dict(kernel_shape=k, strides=[int(r.integers(1, 4)) for _ in range(d)],
                          dilations=[int(r.integers(1, 3)) for _ in range(d)], ceil_mode=int(r.integers(0, 2)))
        auto_pad = str(r.choice(["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]))
        if auto_pad == "NOTSET":
            attributes["pads"] = [int(r.integers(0, k[i % d])) for i in range(2 * d)]
        else:
            attributes["auto_pad"] = auto_pad
        op = str(r.choice(["MaxPool", "MaxPool", "AveragePool", "LpPool"]))
        dtype = str(r.choice(["float32", "uint8", "float64"])) if op == "MaxPool" else "float32"
        x = (r.integers(1, 6, shape).astype(np.uint8) if dtype == "uint8"
             else r.standard_normal(shape).astype(dtype))
        outputs = 1
        if op == "MaxPool":
            outputs = int(r.integers(1, 3))
            attributes["storage_order"] = int(r.integers(0, 2))
        elif op == "AveragePool":
            attributes["count_include_pad"] = int(r.integers(0, 2))
        else:
            attributes["p"] = int(r.integers(1, 4))
        name = f"randpool_{n:03d}_{op}_{dtype}"
        types = [helper.np_dtype_to_tensor_dtype(x.dtype), TensorProto.INT64][:outputs]
        try:
            one_op(name, op, [x], opset=19, outputs=outputs, out_types=types, **attributes)
        except Exception:  # onnxruntime refuses the file: not a case
            os.remove(os.path.join(out, "cases", name + ".onnx"))


def write_einsum_cases():
    """Einsum: matmul, batched matmul, transposes, reductions, outer and dot products, a constant
    operand, the implicit output."""
    for tag, eq, args in (("matmul", "ij,jk->ik", [randn(3, 4), randn(4, 5)]),
                          ("batched", "bij,bjk->bik", [randn(2, 3, 4), randn(2, 4, 5)]),
                          ("attention", "bhqd,bhkd->bhqk", [randn(2, 2, 3, 4), randn(2, 2, 5, 4)]),
                          ("transpose", "ijk->kij", [randn(2, 3, 4)]),
                          ("reduce", "ijk->j", [randn(2, 3, 4)]),
                          ("outer", "i,j->ij", [randn(3), randn(4)]),
                          ("dot", "i,i", [randn(5), randn(5)]),
                          ("implicit", "ij,jk", [randn(3, 4), randn(4, 2)]),
                          ("broadcast_rows", "ij,j->ij", [randn(3, 4), randn(4)])):
        one_op(f"einsum_{tag}", "Einsum", args, equation=eq)
    one_op("einsum_constant", "Einsum", [randn(2, 3, 4)], [randn(5, 4)], equation="bti,oi->bto")
    # ellipses: leading, in the middle, covering no axis, a size 1 broadcasting, the implicit output
    for tag, eq, args in (("ellipsis_matmul", "...ij,...jk->...ik", [randn(2, 3, 4, 5), randn(2, 3, 5, 2)]),
                          ("ellipsis_broadcast", "...ij,...jk->...ik", [randn(2, 1, 3, 4), randn(1, 3, 4, 5)]),
                          ("ellipsis_implicit", "...ij,...jk", [randn(2, 3, 4), randn(2, 4, 5)]),
                          ("ellipsis_transpose", "i...->...i", [randn(3, 2, 4)]),
                          ("ellipsis_sum", "...j->...", [randn(2, 3, 4)]),
                          ("ellipsis_middle", "b...d,bd->b...", [randn(2, 3, 4, 5), randn(2, 5)]),
                          ("ellipsis_empty", "...ij,jk->...ik", [randn(3, 4), randn(4, 2)])):
        one_op(f"einsum_{tag}", "Einsum", args, equation=eq)
    one_op("einsum_ellipsis_constant", "Einsum", [randn(2, 3, 4)], [randn(5, 4)], equation="...i,oi->...o")
    # diagonals and traces: a letter repeated within an operand
    for tag, eq, args in (("diagonal", "ii->i", [randn(4, 4)]),
                          ("batch_diagonal", "...ii->...i", [randn(2, 4, 4)]),
                          ("trace_kept", "iij->j", [randn(3, 3, 4)]),
                          ("diagonal_times", "ij,jj->ij", [randn(3, 4), randn(4, 4)]),
                          ("diagonal_thrice", "iii->i", [randn(3, 3, 3)])):
        one_op(f"einsum_{tag}", "Einsum", args, equation=eq)
    one_op("einsum_diagonal_constant", "Einsum", [randn(3, 4)], [randn(4, 4)], equation="ij,jj->ij")
    save_case("einsum_ellipsis_symbolic_batch",
              [helper.make_node("Einsum", ["x", "w"], ["y"], equation="...i,io->...o")],
              [helper.make_tensor_value_info("x", F, ["N", 3, 4]), helper.make_tensor_value_info("w", F, [4, 2])],
              [helper.make_tensor_value_info("y", F, None)], [randn(2, 3, 4), randn(4, 2)])


def write_recurrent_cases():
    """RNN, GRU and LSTM beyond Strata's layers (by ONNX's definition): weights, biases, initial
    states and peepholes as graph inputs, sequence_lens, clip, input_forget, activations with
    alpha and beta, each direction its own, Y_c, both layouts, a symbolic batch; and some that
    Strata's layers compute (GRU's linear_before_reset 0 or 1, activations without parameters)."""
    T, B, I, H = 4, 3, 2, 5
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}

    def recurrent(name, op, dirs=1, layout=0, feed=("X",), constants=(), outputs=3, lengths=None, batch=None,
                  time=None, direction=None, **attributes):
        """The inputs named in `feed` are graph inputs, those in `constants` initializers. onnxruntime
        has no layout 1: such a file's outputs are those of its layout-0 twin, transposed."""
        g = gates[op]
        values = {"X": randn(T, B, I), "W": randn(dirs, g * H, I, scale=0.5), "R": randn(dirs, g * H, H, scale=0.5),
                  "B": randn(dirs, 2 * g * H, scale=0.3), "sequence_lens": lengths, "initial_h": randn(dirs, B, H),
                  "initial_c": randn(dirs, B, H), "P": randn(dirs, 3 * H, scale=0.5)}
        order = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"][:8 if op == "LSTM" else 6]
        names = [n if n in feed or n in constants else "" for n in order]
        while names[-1] == "":
            names.pop()
        outs = ["Y", "Y_h", "Y_c"][:outputs if op == "LSTM" else min(outputs, 2)]

        def write(case, layout, results=None):
            batch_axis = {"X": 1, "initial_h": 1, "initial_c": 1}
            v = dict(values)
            if layout == 1:  # X [B, T, I], states [B, D, H]
                for n in batch_axis:
                    v[n] = np.ascontiguousarray(v[n].swapaxes(0, 1))
            node = helper.make_node(op, names, outs, name=case, hidden_size=H, layout=layout,
                                    direction=direction or {1: "forward", 2: "bidirectional"}[dirs], **attributes)
            inputs = []
            for n in names:
                if n in feed:
                    shape = list(v[n].shape)
                    if batch is not None and n in batch_axis:
                        shape[batch_axis[n] if layout == 0 else 0] = batch
                    if time is not None and n == "X":
                        shape[0 if layout == 0 else 1] = time
                    inputs.append(helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v[n].dtype), shape))
            inits = [numpy_helper.from_array(v[n], n) for n in names if n and n not in feed]
            save_case(case, [node], inputs, [helper.make_tensor_value_info(o, F, None) for o in outs],
                      [v[n] for n in names if n in feed], inits, results=results)
            return os.path.join(out, "cases", case + ".npz")

        if layout == 0:
            write(name, 0)
            return
        twin = write(name + "_layout0_twin", 0)
        saved = np.load(twin)
        results = [saved[f"output_{k}"] for k in range(len(outs))]
        results = [np.ascontiguousarray(r.transpose(2, 0, 1, 3) if r.ndim == 4 else r.swapaxes(0, 1)) for r in results]
        for ext in (".onnx", ".npz"):  # the twin itself is not a case
            os.remove(twin[:-4] + ext)
        write(name, 1, results)

    lengths = np.array([4, 2, 3], np.int32)
    everything = ("X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P")
    recurrent("rnn_lstm_all_inputs", "LSTM", dirs=2, feed=everything, lengths=lengths)
    recurrent("rnn_lstm_clip_input_forget_layout1", "LSTM", layout=1, clip=0.7, input_forget=1,
              constants=("W", "R", "B", "initial_h", "initial_c"))
    recurrent("rnn_lstm_activations", "LSTM", dirs=2, constants=("W", "R", "B", "P"),
              activations=["HardSigmoid", "Softsign", "Softplus", "Sigmoid", "Tanh", "Elu"])
    recurrent("rnn_gru_linear_before_reset_0", "GRU", direction="reverse", constants=("W", "R", "B", "initial_h"))
    recurrent("rnn_gru_bidirectional_lengths", "GRU", dirs=2, feed=("X", "sequence_lens"), lengths=lengths,
              linear_before_reset=1, constants=("W", "R", "B"))
    recurrent("rnn_gru_symbolic_batch_layout1", "GRU", layout=1, batch="N", constants=("W", "R", "B"),
              linear_before_reset=0, outputs=2)
    recurrent("rnn_rnn_alpha", "RNN", dirs=2, feed=("X", "W", "R"), activations=["LeakyRelu", "ThresholdedRelu"],
              activation_alpha=[0.2, 0.3], constants=("B", "initial_h"))
    recurrent("rnn_rnn_alpha_beta", "RNN", activations=["HardSigmoid"], activation_alpha=[0.3],
              activation_beta=[0.4], clip=1.5, constants=("W", "R", "B"))
    recurrent("rnn_rnn_affine_scaled_tanh", "RNN", dirs=2, activations=["Affine", "ScaledTanh"],
              activation_alpha=[0.8, 1.2], activation_beta=[0.1, 0.6], constants=("W", "R"))
    # Strata's layers: constant weights, default activations, zero initial state
    recurrent("rnn_lstm_layers", "LSTM", layout=1, constants=("W", "R", "B"), outputs=2)
    recurrent("rnn_rnn_layers_relu", "RNN", dirs=2, layout=1, constants=("W", "R", "B"), activations=["Relu", "Relu"])
    # ... and with other activations the layers have (their act / recurrent_act)
    recurrent("rnn_lstm_layers_activations", "LSTM", constants=("W", "R", "B"), outputs=2,
              activations=["Softsign", "Relu", "Relu"])
    recurrent("rnn_gru_layers_softplus", "GRU", dirs=2, layout=1, constants=("W", "R", "B"), outputs=2,
              activations=["Sigmoid", "Softplus", "Sigmoid", "Softplus"])
    # a symbolic sequence length: in layout 0 the first axis, which a static model leaves free
    recurrent("rnn_gru_symbolic_time", "GRU", time="T", constants=("W", "R", "B"), outputs=2)
    recurrent("rnn_lstm_layers_symbolic_time", "LSTM", time="T", constants=("W", "R", "B"), outputs=2)


def write_old_cases():
    """Files of opsets 7 to 10, whose operators the import adapts to opset 11's definitions: the
    attributes that became inputs, BatchNormalization's spatial, and an IR-3 file whose
    initializers are listed among the graph's inputs too, as IR versions before 4 require."""
    x = randn(3, 4, 5)
    one_op("old_Slice_opset9", "Slice", [x], opset=9, starts=[1, -3], ends=[3, 1000], axes=[0, 2])
    one_op("old_Slice_opset7_no_axes", "Slice", [x], opset=7, starts=[0, 1], ends=[2, -1])
    one_op("old_TopK_opset9", "TopK", [x], opset=9, outputs=2, out_types=[F, TensorProto.INT64], axis=1, k=2)
    x4 = randn(2, 3, 4, 5)
    for opset in (7, 10):
        one_op(f"old_Pad_opset{opset}_value", "Pad", [x4], opset=opset, pads=[0, 1, 2, 1, 0, 2, 1, 3], value=-1.5)
        one_op(f"old_Pad_opset{opset}_reflect", "Pad", [x4], opset=opset, mode="reflect", pads=[0, 0, 1, 2, 0, 0, 2, 1])
        one_op(f"old_Pad_opset{opset}_edge", "Pad", [x4], opset=opset, mode="edge", pads=[0, 1, 1, 0, 0, 0, 2, 3])
    one_op("old_Clip_opset10", "Clip", [randn(3, 4)], opset=10, min=-0.5, max=0.7)
    one_op("old_Clip_opset8_max", "Clip", [randn(3, 4)], opset=8, max=0.2)
    one_op("old_Clip_opset8_min", "Clip", [randn(3, 4)], opset=8, min=-0.1)
    c = 3
    stats = [randn(c), randn(c), randn(c), uniform(0.5, 2, c)]
    one_op("old_BatchNormalization_opset7_spatial", "BatchNormalization", [x4], stats, opset=7, spatial=1, epsilon=1e-3)
    one_op("old_BatchNormalization_opset8", "BatchNormalization", [x4], stats, opset=8)
    one_op("old_BatchNormalization_opset9", "BatchNormalization", [x4], stats, opset=9)
    one_op("old_Dropout_opset7", "Dropout", [randn(3, 4)], opset=7, ratio=0.3)
    one_op("old_Softmax_opset9", "Softmax", [x], opset=9, axis=1)
    one_op("old_ReduceMean_opset10", "ReduceMean", [x], opset=10, axes=[0, 2], keepdims=0)
    one_op("old_Gemm_opset7", "Gemm", [randn(2, 4)], [randn(5, 4), randn(5)], opset=7, transB=1, alpha=0.5, beta=2.0)
    one_op("old_AveragePool_opset7", "AveragePool", [x4], opset=7, kernel_shape=[2, 2], pads=[1, 1, 1, 1],
           count_include_pad=0)
    one_op("old_MaxPool_opset8", "MaxPool", [x4], opset=8, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    one_op("old_MaxPool_opset8_indices", "MaxPool", [x4], opset=8, outputs=2, out_types=[F, TensorProto.INT64],
           kernel_shape=[2, 3], strides=[2, 2], storage_order=1)
    # a small CNN of opset 8 in an IR-3 file: the weights are initializers and graph inputs
    image = randn(2, 3, 6, 6)
    weights = {"w": randn(4, 3, 3, 3, scale=0.3), "b": randn(4), "scale": uniform(0.5, 1.5, 4), "shift": randn(4),
               "mean": randn(4), "var": uniform(0.5, 2, 4), "fc_w": randn(4 * 3 * 3, 5, scale=0.2), "fc_b": randn(5),
               "shape": np.array([2, 36], np.int64)}
    nodes = [helper.make_node("Conv", ["image", "w", "b"], ["conv"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["conv", "scale", "shift", "mean", "var"], ["bn"], name="bn",
                              spatial=1),
             helper.make_node("Relu", ["bn"], ["relu"], name="relu"),
             helper.make_node("MaxPool", ["relu"], ["pool"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Reshape", ["pool", "shape"], ["flat"], name="flatten"),
             helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["fc"], name="fc"),
             helper.make_node("Softmax", ["fc"], ["y"], name="softmax")]
    save_case("old_cnn_ir3_initializers_as_inputs", nodes,
              [info("image", image)] + [info(n, v) for n, v in weights.items()],
              [helper.make_tensor_value_info("y", F, None)], [image],
              [numpy_helper.from_array(v, n) for n, v in weights.items()], opset=8, ir_version=3)


def unrounded(path, model, inputs, outputs):
    """A few cases store float outputs written out to 4 decimals
    (averagepool_2d_ceil_last_window_starts_on_pad): where every float output is so rounded and
    onnxruntime's outputs round to them, onnxruntime's outputs are the ones compared."""
    floats = [o for o in outputs if o.dtype == np.float32]
    if not floats or not all(np.array_equal(o, np.round(o, 4).astype(o.dtype)) for o in floats) or \
            all(np.array_equal(o, np.round(o)) for o in floats):
        return outputs
    try:
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        computed = session.run(None, {i.name: a for i, a in zip(model.graph.input, inputs)})
    except Exception:  # onnxruntime does not run it: the stored outputs stay
        return outputs
    close = all(c.shape == o.shape and np.allclose(c, o, rtol=0, atol=6e-5) for c, o in zip(computed, outputs))
    return computed if close and len(computed) == len(outputs) else outputs


def write_node_cases():
    from onnx.backend.test.case.node import collect_testcases

    folder = os.path.join(out, "node")
    os.makedirs(folder, exist_ok=True)
    lines = []
    def array(a):  # some cases keep their data as TensorProtos or NumPy scalars
        if isinstance(a, TensorProto):
            return numpy_helper.to_array(a)
        # C order for Strata's npz reader (np.ascontiguousarray would make a scalar 1-d)
        return np.array(a, order="C") if isinstance(a, (np.generic, np.ndarray)) else a

    for case in collect_testcases(None):
        inputs, outputs = ([array(a) for a in data] for data in case.data_sets[0])
        if not all(isinstance(a, np.ndarray) for a in inputs + outputs):
            continue  # sequences, optionals: not tensors
        onnx.save(case.model, os.path.join(folder, case.name + ".onnx"))
        outputs = unrounded(os.path.join(folder, case.name + ".onnx"), case.model, inputs, outputs)
        arrays = {f"input_{k}": a for k, a in enumerate(inputs)}
        arrays.update({f"output_{k}": a for k, a in enumerate(outputs)})
        np.savez(os.path.join(folder, case.name + ".npz"), **arrays)
        ops = sorted({n.op_type for n in case.model.graph.node})
        lines.append(case.name + " " + ",".join(ops))
    with open(os.path.join(folder, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def write_opset_changes():
    """OUTDIR/opsets.txt: "OP [VERSION...]" per operator of the default domain, the versions
    after opset 21 (up to 28) at which its definition changed in more than the element types it
    takes (its attributes, inputs, outputs or text)."""
    from onnx import defs

    history = {}
    for schema in defs.get_all_schemas_with_history():
        if schema.domain in ("", "ai.onnx"):
            history.setdefault(schema.name, []).append(schema)

    def definition(s):
        return (sorted((a.name, str(a.default_value)) for a in s.attributes.values()),
                [(i.name, i.option) for i in s.inputs], [(o.name, o.option) for o in s.outputs], s.doc)

    lines = []
    for name, schemas in sorted(history.items()):
        schemas.sort(key=lambda s: s.since_version)
        changes = [str(after.since_version) for before, after in zip(schemas, schemas[1:])
                   if 21 < after.since_version <= 28 and definition(before) != definition(after)]
        lines.append(" ".join([name] + changes))
    with open(os.path.join(out, "opsets.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "introduced.txt"), "w") as f:
        f.write("".join(f"{name} {min(s.since_version for s in schemas)}\n" for name, schemas in sorted(history.items())))


def write_refusals():
    """OUTDIR/refuse/NAME.onnx: files the import must refuse, naming what it cannot honour."""
    folder = os.path.join(out, "refuse")
    os.makedirs(folder, exist_ok=True)

    def refuse(name, nodes, inputs, initializers=(), opset=17):
        graph = helper.make_graph(nodes, name, inputs, [helper.make_tensor_value_info("y", F, None)],
                                  list(initializers))
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
        onnx.save(model, os.path.join(folder, name + ".onnx"))

    x = helper.make_tensor_value_info("x", F, [2, 3, 4])
    half = numpy_helper.from_array(np.ones((3, 4), np.float16), "c")
    refuse("float16_arithmetic", [helper.make_node("Mul", ["c", "c"], ["m"], name="square"),
                                  helper.make_node("Cast", ["m"], ["mf"], name="cast", to=F),
                                  helper.make_node("Add", ["x", "mf"], ["y"], name="add")], [x], [half])
    text = helper.make_tensor("s", TensorProto.STRING, [1], [b"abc"])
    refuse("string_initializer", [helper.make_node("Identity", ["x"], ["y"], name="id")], [x], [text])
    refuse("int8_input", [helper.make_node("Cast", ["x"], ["y"], name="cast", to=F)],
           [helper.make_tensor_value_info("x", TensorProto.INT8, [2, 3])])
    refuse("cast_to_float16", [helper.make_node("Cast", ["x"], ["y"], name="to_half", to=TensorProto.FLOAT16)], [x])
    pads = numpy_helper.from_array(np.array([0, 1, 4, 0, 1, 1], np.int64), "p")
    refuse("pad_wrap_beyond", [helper.make_node("Pad", ["x", "p"], ["y"], name="wrap", mode="wrap")], [x], [pads])
    negative = numpy_helper.from_array(np.array([0, -1, 0, 0, 0, 0], np.int64), "p")
    refuse("pad_negative", [helper.make_node("Pad", ["x", "p"], ["y"], name="crop")], [x], [negative])
    refuse("range_opset27", [helper.make_node("Range", ["r0", "r1", "r2"], ["r"], name="range"),
                             helper.make_node("Add", ["x", "r"], ["y"], name="add")], [x],
           [numpy_helper.from_array(np.array(v, np.float32), n) for n, v in (("r0", 0.0), ("r1", 4.0), ("r2", 1.0))],
           opset=27)
    refuse("reduce_axes_input", [helper.make_node("ReduceSum", ["x", "a"], ["y"], name="sum")],
           [x, helper.make_tensor_value_info("a", TensorProto.INT64, [1])])
    refuse("gelu_approximate", [helper.make_node("Gelu", ["x"], ["y"], name="gelu", approximate="fast")], [x], opset=20)
    refuse("opset6", [helper.make_node("Relu", ["x"], ["y"], name="relu")], [x], opset=6)
    stats = [numpy_helper.from_array(np.ones(3, np.float32), n) for n in ("s", "b", "m", "v")]
    refuse("batchnorm_spatial0", [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn",
                                                   spatial=0)], [x], stats, opset=7)
    limits = [numpy_helper.from_array(np.array(v, np.float32), n) for n, v in (("r0", 0.0), ("r1", 4.0), ("r2", 1.0))]
    refuse("range_opset10", [helper.make_node("Range", ["r0", "r1", "r2"], ["r"], name="range"),
                             helper.make_node("Add", ["x", "r"], ["y"], name="add")], [x], limits, opset=10)
    refuse("matmul_mismatch", [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], [x],
           [numpy_helper.from_array(np.ones((3, 2), np.float32), "w")])
    refuse("scatter_reduction", [helper.make_node("ScatterND", ["x", "i", "x"], ["y"], name="put", reduction="avg")],
           [x], [numpy_helper.from_array(np.zeros((2, 3, 4, 0), np.int64)[..., :0].reshape(2, 3, 4, 0), "i")], opset=18)
    refuse("einsum_diagonal", [helper.make_node("Einsum", ["x"], ["y"], name="diag", equation="iij->ij")], [x])
    refuse("slice_opset9_no_starts", [helper.make_node("Slice", ["x"], ["y"], name="cut", ends=[1])], [x], opset=9)
    refuse("upsample_opset9_shrink", [helper.make_node("Upsample", ["x", "sc"], ["y"], name="up")], [x],
           [numpy_helper.from_array(np.array([1, 1, 0.5], np.float32), "sc")], opset=9)
    refuse("resize_crop", [helper.make_node("Resize", ["x", "", "sc"], ["y"], name="crop",
                                            coordinate_transformation_mode="tf_crop_and_resize")], [x],
           [numpy_helper.from_array(np.array([1, 1, 2], np.float32), "sc")], opset=13)
    refuse("resize_align_corners_fraction", [helper.make_node("Resize", ["x", "", "sc"], ["y"], name="corners",
                                                              coordinate_transformation_mode="align_corners")], [x],
           [numpy_helper.from_array(np.array([1, 1, 1.3], np.float32), "sc")], opset=13)
    refuse("resize_scales_input", [helper.make_node("Resize", ["x", "", "sc"], ["y"], name="grow")],
           [x, helper.make_tensor_value_info("sc", F, [3])], opset=13)
    refuse("einsum_ellipsis_summed", [helper.make_node("Einsum", ["x"], ["y"], name="sum", equation="...ij->ij")], [x])
    for tag, shape in (("mismatch", [3, 4, 5]), ("ranks", [2, 3, 4, 5])):
        refuse(f"einsum_ellipsis_{tag}", [helper.make_node("Einsum", ["x", "x2"], ["y"], name="mm",
                                                           equation="...ij,...jk->...ik")],
               [x, helper.make_tensor_value_info("x2", F, shape)])
    rw = [numpy_helper.from_array(np.ones((1, 4, 4), np.float32), "w"), numpy_helper.from_array(np.ones((1, 4, 1), np.float32), "r")]
    rx = helper.make_tensor_value_info("rx", F, [2, 3, 4])
    for tag, attributes, message in (("activation", {"activations": ["Swish"]}, None),
                                     ("alpha_sigmoid", {"activations": ["Tanh"], "activation_alpha": [0.5]}, None),
                                     ("affine_defaults", {"activations": ["Affine"]}, None),
                                     ("clip", {"clip": -1.0}, None), ("layout", {"layout": 2}, None),
                                     ("direction", {"direction": "sideways"}, None)):
        refuse(f"rnn_{tag}", [helper.make_node("RNN", ["rx", "w", "r"], ["y"], name="cell", hidden_size=1, **attributes)],
               [rx], rw)
    # where onnxruntime and onnx's reference disagree (SAME pads for the undilated window; VALID
    # rounded up under ceil_mode) or a window holds padding alone
    refuse("maxpool_same_dilations", [helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2],
                                                       dilations=[2], auto_pad="SAME_UPPER")], [x], opset=19)
    refuse("averagepool_valid_ceil", [helper.make_node("AveragePool", ["x"], ["y"], name="pool", kernel_shape=[3],
                                                       strides=[2], auto_pad="VALID", ceil_mode=1)], [x], opset=19)
    refuse("maxpool_padding_alone", [helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2],
                                                      dilations=[5], pads=[1, 2])], [x], opset=19)
    refuse("maxunpool_output_shape",
           [helper.make_node("MaxPool", ["x"], ["p", "i"], kernel_shape=[2]),
            helper.make_node("MaxUnpool", ["p", "i", "shape"], ["y"], name="unpool", kernel_shape=[2])], [x],
           [numpy_helper.from_array(np.array([2, 4, 4], np.int64), "shape")])
    refuse("maxpool_storage_order", [helper.make_node("MaxPool", ["x"], ["y", "i"], name="pool", kernel_shape=[2],
                                                      storage_order=2)], [x])
    # scales (N + 1) / N: they depend on the symbolic batch
    nb = helper.make_tensor_value_info("x", F, ["N", 3, 4])
    refuse("resize_scales_depend_on_batch",
           [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Add", ["s", "one"], ["s1"]),
            helper.make_node("Cast", ["s1"], ["f1"], to=F), helper.make_node("Cast", ["s"], ["f"], to=F),
            helper.make_node("Div", ["f1", "f"], ["sc"], name="ratio"),
            helper.make_node("Resize", ["x", "", "sc"], ["y"], name="grow")], [nb],
           [numpy_helper.from_array(np.array([1], np.int64), "one")], opset=13)
    small = helper.make_tensor_value_info("small", F, ["N", 3, 2])
    refuse("upsample_opset9_computed_shrink",
           [helper.make_node("Shape", ["small"], ["s"]), helper.make_node("Shape", ["x"], ["sx"]),
            helper.make_node("Cast", ["s"], ["f"], to=F), helper.make_node("Cast", ["sx"], ["fx"], to=F),
            helper.make_node("Div", ["f", "fx"], ["sc"]), helper.make_node("Upsample", ["x", "sc"], ["y"], name="up")],
           [nb, small], opset=9)
    # an image model of symbolic height and width: refused, or imported at sizes the caller gives
    conv = [helper.make_node("Conv", ["img", "k"], ["c"], name="conv", pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["y"], name="relu")]
    refuse("symbolic_image_size", conv, [helper.make_tensor_value_info("img", F, ["N", 3, "height", "width"])],
           [numpy_helper.from_array(randn(4, 3, 3, 3), "k")])


warnings.filterwarnings("ignore")
write_refusals()
write_cases()
write_old_cases()
write_index_cases()
write_resize_cases()
write_norm_cases()
write_pool_cases()
write_random_pool_cases()
write_einsum_cases()
write_recurrent_cases()
write_node_cases()
write_opset_changes()
