"""Run by mpirun -n 2 (CTest python_dist_2_ranks): strata.dist.DataParallel trains a model with
strata.train.fit on two Python processes; their weights stay identical and it learns."""
import numpy as np

import strata
import strata.dist
from strata import nn

world = strata.dist.init()
assert world["size"] == 2, world
rng = np.random.default_rng(0)  # the same data on every rank; fit gives each its slice of a batch
y = rng.integers(0, 2, 512)
x = (rng.standard_normal((512, 4)) + 2.0 * y[:, None]).astype(np.float32)
strata.manual_seed(world["rank"] + 1)  # different initial weights: DataParallel makes them rank 0's
inp = nn.Input([None, 4])
model = nn.Model(inp, nn.Dense(2)(nn.Dense(8, act="relu")(inp)))
model(x[:1])
net = strata.dist.DataParallel(model)
history = strata.train.fit(net, strata.optim.Adam(model.trainable_weights, lr=0.02), x, y.astype(np.int64),
                           epochs=5, batch_size=64, verbose=0)
for w in model.weights:
    both = np.asarray(strata.dist.all_gather(w))
    np.testing.assert_array_equal(both[0], both[1])
assert strata.train.evaluate(model, x, y.astype(np.int64))["accuracy"] > 0.9, history
print(f"rank {world['rank']}: weights equal on both ranks, accuracy {history['accuracy'][-1]:.3f}")
