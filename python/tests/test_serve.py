"""strata.serve from Python: a hub model served over the Open Inference Protocol v2 answers an
HTTP inference request with the model's own outputs."""
import json
import urllib.request

import numpy as np

import strata
from strata import nn


def test_a_hub_model_served_answers_like_the_model(tmp_path):
    url = str(tmp_path / "hub.db")
    hub = strata.hub.Hub.open(url)
    x = nn.Input([None, 3], name="features")
    model = nn.Model(x, nn.Dense(2, act="tanh")(x), name="tiny")
    rows = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    expected = np.asarray(model(rows)).copy()
    hub.save_model("tiny", model)
    with strata.serve.Server(url, ["tiny"], port=0) as server:
        base = f"http://127.0.0.1:{server.port}/v2/models/tiny"
        meta = json.load(urllib.request.urlopen(base))
        assert meta["inputs"][0]["name"] == "features"
        body = {"inputs": [{"name": "features", "shape": [4, 3], "datatype": "FP32", "data": rows.ravel().tolist()}]}
        request = urllib.request.Request(base + "/infer", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        answer = json.load(urllib.request.urlopen(request))
    output = np.array(answer["outputs"][0]["data"], np.float32).reshape(answer["outputs"][0]["shape"])
    np.testing.assert_allclose(output, expected, rtol=1e-6, atol=1e-6)
