"""Talks to a running `strata serve` with NVIDIA's tritonclient[http] (an independent client of
the Open Inference Protocol v2) and prints what it got as JSON for the C++ test to compare.

usage: tritonclient_check.py PORT INPUT.npy
Prints {"live", "ready", "model_ready", "metadata", "json_output", "binary_output",
"compressed_output", "statistics"}.
"""
import json
import sys

import numpy as np
import tritonclient.http as httpclient

port, input_path = sys.argv[1], sys.argv[2]
client = httpclient.InferenceServerClient(url=f"127.0.0.1:{port}")
x = np.load(input_path).astype(np.float32)

outputs = {}
# JSON and binary tensors, then binary with the request deflated and the answer gzip-compressed.
for key, binary, compression in (("json_output", False, None), ("binary_output", True, None),
                                 ("compressed_output", True, ("deflate", "gzip"))):
    tensor = httpclient.InferInput("features", list(x.shape), "FP32")
    tensor.set_data_from_numpy(x, binary_data=binary)
    wanted = httpclient.InferRequestedOutput("output_0", binary_data=binary)
    request_compression, response_compression = compression or (None, None)
    result = client.infer("mlp", [tensor], outputs=[wanted], model_version="1",
                          request_compression_algorithm=request_compression,
                          response_compression_algorithm=response_compression)
    outputs[key] = result.as_numpy("output_0").tolist()

print(json.dumps({
    "live": client.is_server_live(),
    "ready": client.is_server_ready(),
    "model_ready": client.is_model_ready("mlp"),
    "metadata": client.get_model_metadata("mlp"),
    **outputs,
    "statistics": client.get_inference_statistics("mlp"),
}))
