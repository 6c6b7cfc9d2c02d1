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
