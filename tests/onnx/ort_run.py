"""Runs an ONNX file with onnxruntime (CPU): ort_run.py MODEL.onnx INPUTS.npz OUTPUTS.npz.

INPUTS.npz holds input_0, input_1, ... in the graph's input order; OUTPUTS.npz gets output_0, ...
Run from the tests' virtual environment (tests/onnx/onnx_runtime.hpp), which has the pinned
onnx and onnxruntime from PyPI.
"""
import sys

import numpy as np
import onnxruntime as ort

options = ort.SessionOptions()
options.intra_op_num_threads = 1
session = ort.InferenceSession(sys.argv[1], options, providers=["CPUExecutionProvider"])
inputs = np.load(sys.argv[2])
feeds = {i.name: inputs[f"input_{k}"] for k, i in enumerate(session.get_inputs())}
outputs = session.run(None, feeds)
np.savez(sys.argv[3], **{f"output_{k}": o for k, o in enumerate(outputs)})
