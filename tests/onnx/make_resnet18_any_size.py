"""torchvision's ResNet-18 as its exporter wrote it (tests/onnx/fixtures/whole/resnet18.onnx,
weights stripped), its weights filled as tests/onnx/fill_weights.py fills them and its input's
height and width made symbolic: make_resnet18_any_size.py OUTDIR writes resnet18_any_size.onnx
(tests/onnx/test_onnx_shape_polymorphic.cpp). Run in the tests' venv."""
import os
import sys

import onnx

from fill_weights import fill_weights


def main(out):
    os.makedirs(out, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    model = onnx.load(os.path.join(here, "fixtures", "whole", "resnet18.onnx"))
    fill_weights(model)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    for axis, name in ((2, "height"), (3, "width")):
        dims[axis].ClearField("dim_value")
        dims[axis].dim_param = name
    del model.graph.value_info[:]  # the exporter's shapes, at 64 x 64
    onnx.save(model, os.path.join(out, "resnet18_any_size.onnx"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
