"""Tasks written in Python, run by workers with the C++ queue's leases, retries and exactly-once
results: ``registry.register("train", fn)``, ``Worker(hub_url, registry).run()``,
``Queue(hub).submit("train", {"lr": 0.1})``, ``Queue(hub).wait(task_id)``."""
from ._strata.workflow import Queue, TaskContext, TaskRegistry, Worker  # noqa: F401
