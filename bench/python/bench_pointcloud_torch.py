"""The work of bench/bench_pointcloud.cpp in plain PyTorch tensor code (the pure-PyTorch PointNet++
helpers users write when they have no compiled extension), on the CPU with 2 threads: 16 clouds of
1,024 points, farthest point sampling to 512, the 16 nearest of 512 queries, a ball query (radius
0.2, 32 samples), and one PointNet++ set-abstraction step forward and backward (as the PyTorch
port users copy: the searches above, gathering by index, 1x1 Conv2d + BatchNorm2d + ReLU 64-64-128,
max over each group); and the 16 nearest of 4,096 queries in 2 clouds of 100,000 points by cdist
and topk over chunks of 128 queries, so the distance matrix in memory stays at 2 x 128 x 100,000.
Each line: `torch <case> <seconds per call>`, the best of 5 runs.
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


def knn_chunked(queries, points, k, chunk=128):
    return torch.cat([knn(queries[:, i:i + chunk], points, k) for i in range(0, queries.shape[1], chunk)], dim=1)


def ball_query(queries, points, radius, samples):
    b, q, _ = queries.shape
    n = points.shape[1]
    d2 = torch.cdist(queries, points) ** 2
    idx = torch.arange(n).view(1, 1, n).repeat(b, q, 1)
    idx[d2 >= radius * radius] = n
    idx = idx.sort(dim=-1).values[:, :, :samples]
    first = idx[:, :, :1].expand(-1, -1, samples)
    return torch.where(idx == n, first, idx)


def index_points(points, idx):
    b = points.shape[0]
    rows = torch.arange(b).view(b, *([1] * (idx.dim() - 1)))
    return points[rows, idx]


class SetAbstraction(torch.nn.Module):
    def __init__(self, npoint, radius, nsample, widths):
        super().__init__()
        self.npoint, self.radius, self.nsample = npoint, radius, nsample
        layers, last = [], 3
        for width in widths:
            layers += [torch.nn.Conv2d(last, width, 1), torch.nn.BatchNorm2d(width), torch.nn.ReLU()]
            last = width
        self.mlp = torch.nn.Sequential(*layers)

    def forward(self, xyz):
        centres = index_points(xyz, farthest_point_sample(xyz, self.npoint))
        groups = index_points(xyz, ball_query(centres, xyz, self.radius, self.nsample)) - centres.unsqueeze(2)
        features = self.mlp(groups.permute(0, 3, 2, 1))  # [B, 3, K, S] as the port lays it out
        return centres, features.max(2).values


def main():
    torch.manual_seed(1)
    points = torch.rand(16, 1024, 3) * 2 - 1
    queries = points[:, :512]
    print(f"torch fps {best_of(3, lambda: farthest_point_sample(points, 512)):.9g}", flush=True)
    print(f"torch knn {best_of(5, lambda: knn(queries, points, 16)):.9g}", flush=True)
    print(f"torch ball_query {best_of(5, lambda: ball_query(queries, points, 0.2, 32)):.9g}", flush=True)
    sa = SetAbstraction(512, 0.2, 32, [64, 64, 128])
    print(f"torch set_abstraction {best_of(2, lambda: sa(points)[1].sum().backward()):.9g}", flush=True)
    scan = torch.rand(2, 100000, 3) * 2 - 1
    scan_queries = scan[:, :4096]
    print(f"torch knn_large {best_of(3, lambda: knn_chunked(scan_queries, scan, 16)):.9g}", flush=True)


main()
