"""Python task functions run by a worker: results committed once, a failing attempt retried,
a dependent task run after its dependency, task logs kept."""
import numpy as np

import strata
from strata.workflow import Queue, TaskRegistry, Worker


def test_python_tasks_run_by_a_worker_with_retries_and_dependencies(tmp_path):
    url = str(tmp_path / "hub.db")
    hub = strata.hub.Hub.open(url)
    queue = Queue(hub)
    calls = {"flaky": 0}

    def square(ctx):
        ctx.log(f"squaring {ctx.params['x']}")
        return {"y": ctx.params["x"] ** 2}

    def flaky(ctx):
        calls["flaky"] += 1
        if ctx.attempt == 1:
            raise RuntimeError("first attempt fails")
        return {"attempt": ctx.attempt}

    def train(ctx):  # a real training job: fit a tiny model, store it in the hub
        strata.manual_seed(0)  # the same initial weights whatever ran before
        rng = np.random.default_rng(0)
        y = rng.integers(0, 2, 200)
        x = (rng.standard_normal((200, 3)) + 2.0 * y[:, None]).astype(np.float32)
        inp = strata.nn.Input([None, 3])
        model = strata.nn.Model(inp, strata.nn.Dense(2)(inp))
        model(x[:1])
        history = strata.train.fit(model, strata.optim.Adam(model, lr=0.1), x, y.astype(np.int64), epochs=10, verbose=0)
        return {"accuracy": strata.train.evaluate(model, x, y.astype(np.int64))["accuracy"]}

    registry = TaskRegistry()
    registry.register("square", square)
    registry.register("flaky", flaky)
    registry.register("train", train)
    a = queue.submit("square", {"x": 7})
    b = queue.submit("flaky", max_attempts=3)
    c = queue.submit("train", after=[a, b])
    worker = Worker(url, registry, exit_when_idle=True, lease_seconds=5)
    worker.run()
    done = {t: queue.get(t) for t in (a, b, c)}
    assert done[a]["status"] == "succeeded" and done[a]["result"] == {"y": 49}
    assert "squaring 7" in done[a]["log_tail"]
    assert done[b]["status"] == "succeeded" and done[b]["result"] == {"attempt": 2} and calls["flaky"] == 2
    assert done[c]["status"] == "succeeded" and done[c]["result"]["accuracy"] > 0.9
    assert worker.stats["succeeded"] == 3 and worker.stats["failed"] == 1
