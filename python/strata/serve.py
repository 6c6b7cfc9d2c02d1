"""``with strata.serve.Server("strata.db", ["mlp"]) as server:`` serves hub models over the Open
Inference Protocol v2 (HTTP, dynamic batching) on ``server.port`` until the block ends."""
from ._strata.serve import Server  # noqa: F401
