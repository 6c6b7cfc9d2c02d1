"""The work of bench/bench_cuda.cpp in PyTorch eager on the same GPU (float32, channels-last
convolutions, no TF32 but in sgemm_tf32), for scripts/gpu-check run. Each line: `torch <case> <seconds per call>`,
the best of 5 timed runs after a warm-up, the GPU waited for by torch.cuda.synchronize().
    python3 bench_cuda_torch.py [--quick] [--device cpu]   (as bench_cuda's flags)"""
import sys
import time

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def synchronize():
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def time_per_call(calls, step):
    step()
    synchronize()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            step()
        synchronize()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def report(name, seconds):
    print(f"torch {name} {seconds:.9g}", flush=True)


def training_step(net, adam, x, y):
    def step():
        adam.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        adam.step()
        return loss
    return step


def main():
    quick = "--quick" in sys.argv
    dev = torch.device(sys.argv[sys.argv.index("--device") + 1] if "--device" in sys.argv else "cuda")
    if dev.type == "cuda" and not torch.cuda.is_available():
        print("bench_cuda_torch: no GPU")
        return
    torch.manual_seed(1)
    n = 256 if quick else 4096
    a, b = torch.randn(n, n, device=dev), torch.randn(n, n, device=dev)
    report("sgemm", time_per_call(2 if quick else 10, lambda: a @ b))

    torch.backends.cuda.matmul.allow_tf32 = True
    report("sgemm_tf32", time_per_call(2 if quick else 10, lambda: a @ b))
    torch.backends.cuda.matmul.allow_tf32 = False

    batch, side = (4, 14) if quick else (32, 56)
    conv = torch.nn.Conv2d(64, 64, 3, padding=1).to(dev).to(memory_format=torch.channels_last)
    images = torch.randn(batch, 64, side, side, device=dev).to(memory_format=torch.channels_last)
    with torch.no_grad():
        report("conv3x3_forward", time_per_call(2 if quick else 20, lambda: conv(images)))
    leaf = images.detach().requires_grad_()
    report("conv3x3_forward_backward", time_per_call(2 if quick else 10, lambda: conv(leaf).sum().backward()))

    rows = 128
    mlp = torch.nn.Sequential(torch.nn.Linear(784, 800), torch.nn.ReLU(), torch.nn.Linear(800, 800),
                              torch.nn.ReLU(), torch.nn.Linear(800, 10)).to(dev)
    x, labels = torch.randn(rows, 784, device=dev), torch.randint(0, 10, (rows,), device=dev)
    adam = torch.optim.Adam(mlp.parameters(), lr=1e-3)
    report("mlp_training_step", time_per_call(2 if quick else 50, training_step(mlp, adam, x, labels)))
    one = torch.randn(1, 784, device=dev)
    with torch.no_grad():
        report("mlp_batch1_inference", time_per_call(2 if quick else 200, lambda: mlp(one)))

    cnn = torch.nn.Sequential(  # make run's CNN (examples/fashion_mnist_cnn_net.hpp)
        torch.nn.Conv2d(1, 16, 5, padding=2), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 5, padding=2), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
        torch.nn.Linear(32 * 7 * 7, 256), torch.nn.ReLU(), torch.nn.Dropout(0.3), torch.nn.Linear(256, 10),
    ).to(dev).to(memory_format=torch.channels_last)
    cnn_x = torch.randn(rows, 1, 28, 28, device=dev).to(memory_format=torch.channels_last)
    cnn_adam = torch.optim.Adam(cnn.parameters(), lr=1e-3)
    report("cnn_training_step", time_per_call(2 if quick else 20, training_step(cnn, cnn_adam, cnn_x, labels)))

    tiny = torch.randn(16, device=dev)
    report("add_per_op", time_per_call(10 if quick else 2000, lambda: tiny + tiny))


main()
