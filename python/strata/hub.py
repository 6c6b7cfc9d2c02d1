"""The model hub from Python: ``hub = strata.hub.Hub.open("strata.db")``, ``hub.save_model(name,
model, metrics={...})``, ``model, info = hub.load_model(name)``, ``hub.find_top_model(name,
"accuracy")``, ``run = hub.create_run(name)``, ``run.log(step, "train", {"loss": ...})``."""
from ._strata.hub import Hub, Run  # noqa: F401
