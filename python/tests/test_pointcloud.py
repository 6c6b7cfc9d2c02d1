"""The point-cloud ops from Python (docs/pointclouds.md) against NumPy brute force, and the
Chamfer distance's gradient against a finite difference."""
import numpy as np
import pytest

import strata


def clouds(b, n, seed):
    return np.random.default_rng(seed).uniform(-1, 1, (b, n, 3))


def test_knn_and_ball_query_match_brute_force():
    points, queries = clouds(2, 64, 1), clouds(2, 10, 2)
    d2 = ((queries[:, :, None, :] - points[:, None, :, :]) ** 2).sum(-1)
    idx = strata.knn(queries, points, 5).numpy()
    np.testing.assert_array_equal(idx, np.argsort(d2, axis=-1, kind="stable")[:, :, :5])
    balls = strata.ball_query(queries, points, 0.5, 4).numpy()
    for b in range(2):
        for q in range(10):
            inside = np.nonzero(d2[b, q] < 0.25)[0][:4]
            want = np.full(4, inside[0] if len(inside) else 0)
            want[: len(inside)] = inside
            np.testing.assert_array_equal(balls[b, q], want)


def test_sampling_grouping_and_interpolation_shapes():
    points = clouds(3, 50, 3)
    idx = strata.farthest_point_sample(points, 8)
    assert tuple(idx.shape) == (3, 8) and int(idx.numpy()[0, 0]) == 0
    grouped = strata.group_points(points, strata.knn(points, points, 4))
    assert tuple(grouped.shape) == (3, 50, 4, 3)
    np.testing.assert_allclose(grouped.numpy()[:, :, 0, :], points)  # each point is its own nearest
    carried = strata.three_interpolate(points, points, clouds(3, 7, 4))
    assert tuple(carried.shape) == (3, 7, 3)


def test_chamfer_distance_gradient():
    a, b = clouds(1, 6, 5), clouds(1, 5, 6)
    ta = strata.as_tensor(a.copy()).requires_grad_()
    loss = strata.chamfer_distance(ta, b).sum()
    loss.backward()
    eps, i, c = 1e-6, 2, 1
    bumped = a.copy()
    bumped[0, i, c] += eps
    numeric = (strata.chamfer_distance(bumped, b).sum().item() - loss.item()) / eps
    assert ta.grad.numpy()[0, i, c] == pytest.approx(numeric, rel=1e-4, abs=1e-6)
    with pytest.raises(strata.Error, match="chamfer_distance"):
        strata.chamfer_distance(a[0], b)


def test_pointnet2_layers_from_python_train_and_save(tmp_path):
    """The point-cloud layers are strata.nn classes with their declared keywords; a small
    PointNet++ classifier learns to tell a sphere from a flat square and is saved whole."""
    nn = strata.nn
    rng = np.random.default_rng(4)
    sphere = rng.standard_normal((16, 64, 3))
    sphere /= np.linalg.norm(sphere, axis=-1, keepdims=True)
    square = rng.uniform(-1, 1, (16, 64, 3)) * np.array([1.0, 1.0, 0.0])
    x = np.concatenate([sphere, square]).astype(np.float32)
    y = np.array([0] * 16 + [1] * 16, dtype=np.int64)

    inp = nn.Input([None, 64, 3])
    h = nn.SetAbstraction(npoint=16, radius=[0.5], nsample=[8], mlp=[[16, 16]])(inp)
    h = nn.SetAbstraction(mlp=[[32]], group_all=True)(h)
    model = nn.Model(inp, nn.Dense(2)(nn.Flatten()(h)), name="tiny_pointnet2")
    history = strata.train.fit(model, strata.optim.Adam(model, lr=0.01), x, y, epochs=15, batch_size=8, verbose=0)
    assert history["accuracy"][-1] > 0.9
    model.eval()
    before = np.asarray(model(x)).copy()
    path = str(tmp_path / "tiny_pointnet2.safetensors")
    model.save(path)
    loaded = nn.Model.load(path)
    loaded.eval()
    np.testing.assert_array_equal(np.asarray(loaded(x)), before)
    with pytest.raises(strata.Error, match="radius"):
        nn.SetAbstraction(npoint=4, radius=[0.2, 0.4], nsample=[8], mlp=[[8]])
