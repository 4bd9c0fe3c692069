"""Block.summary's listing of how the CPU runs a net's convolutions (the switches cpu_conv, fast_cpu; put
back after each test by the suite's global-state fixture)."""


from framework import config, np
from framework.gluon import nn


def _net():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(8, 3, padding=1), nn.Conv2D(8, 3, padding=1, groups=8), nn.Conv2D(16, 1, groups=2),
            nn.Conv2D(4, 1), nn.Conv2D(4, 1, strides=2), nn.Dense(3))
    net.initialize()
    return net


def _line(capsys):
    out = capsys.readouterr().out
    return [line for line in out.splitlines() if line.startswith("Convolutions")]


def test_summary_says_which_library_runs_the_convolutions_and_which_fast_paths_they_take(capsys):
    net, x = _net(), np.ones((1, 3, 16, 16))  # the strided 1x1 layer's 8x8 output is too small to count
    config.set(fast_cpu=True, cpu_conv="eigen")
    net.summary(x)
    assert _line(capsys) == ["Convolutions (cpu): XLA's Eigen kernels (cpu_conv='eigen'); 1 depthwise "
                             "layers as shifted multiply-adds (fast_cpu); 1 1x1 layers as batched matrix "
                             "products when trained (fast_cpu); 1 grouped layers as one convolution per "
                             "group (fast_cpu)"]
    config.set(fast_cpu=False, cpu_conv="ynnpack")
    net.summary(x)
    assert _line(capsys) == ["Convolutions (cpu): YNNPACK (cpu_conv='ynnpack')"]
    dense = nn.Dense(2)
    dense.initialize()
    dense.summary(np.ones((1, 4)))
    assert _line(capsys) == []
