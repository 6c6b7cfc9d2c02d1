"""The work of bench/bench_pointcloud.cpp in plain PyTorch tensor code (the pure-PyTorch PointNet++
helpers users write when they have no compiled extension), on the CPU with 2 threads: 16 clouds of
1,024 points, farthest point sampling to 512, the 16 nearest of 512 queries, a ball query (radius
0.2, 32 samples). Each line: `torch <case> <seconds per call>`, the best of 5 runs.
    python3 bench_pointcloud_torch.py"""
import time

import torch

torch.set_num_threads(2)


def best_of(calls, fn):
    fn()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def farthest_point_sample(xyz, m):
    b, n, _ = xyz.shape
    idx = torch.zeros(b, m, dtype=torch.long)
    distance = torch.full((b, n), float("inf"))
    farthest = torch.zeros(b, dtype=torch.long)
    rows = torch.arange(b)
    for i in range(m):
        idx[:, i] = farthest
        centroid = xyz[rows, farthest].unsqueeze(1)
        distance = torch.minimum(distance, ((xyz - centroid) ** 2).sum(-1))
        farthest = distance.argmax(-1)
    return idx


def knn(queries, points, k):
    return torch.cdist(queries, points).topk(k, dim=-1, largest=False).indices


def ball_query(queries, points, radius, samples):
    b, q, _ = queries.shape
    n = points.shape[1]
    d2 = torch.cdist(queries, points) ** 2
    idx = torch.arange(n).view(1, 1, n).repeat(b, q, 1)
    idx[d2 >= radius * radius] = n
    idx = idx.sort(dim=-1).values[:, :, :samples]
    first = idx[:, :, :1].expand(-1, -1, samples)
    return torch.where(idx == n, first, idx)


def main():
    torch.manual_seed(1)
    points = torch.rand(16, 1024, 3) * 2 - 1
    queries = points[:, :512]
    print(f"torch fps {best_of(3, lambda: farthest_point_sample(points, 512)):.9g}", flush=True)
    print(f"torch knn {best_of(5, lambda: knn(queries, points, 16)):.9g}", flush=True)
    print(f"torch ball_query {best_of(5, lambda: ball_query(queries, points, 0.2, 32)):.9g}", flush=True)


main()
