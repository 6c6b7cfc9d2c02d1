"""python/strata/nn.pyi is what python/tools/make_stubs.py makes from the current option tables."""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def test_layer_stubs_are_current():
    spec = importlib.util.spec_from_file_location("make_stubs", os.path.join(HERE, "..", "tools", "make_stubs.py"))
    make_stubs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_stubs)
    with open(os.path.join(HERE, "..", "strata", "nn.pyi")) as f:
        committed = f.read()
    assert committed == make_stubs.stubs(), \
        "python/strata/nn.pyi is stale: PYTHONPATH=build/python python3 python/tools/make_stubs.py"
