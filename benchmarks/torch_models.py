"""The peers' models in ``torch.nn`` (torchvision is not installed): written here from the papers'
layer tables, in MXNet model zoo's layouts, so that a PyTorch run computes what the framework's does.
This module imports only torch (it runs in a separate Python that has torch and no JAX).

>>> import importlib.util
>>> importlib.util.find_spec("torch") is None or callable(resnet)
True
"""

from __future__ import annotations

from typing import Any

__all__ = ["lenet", "resnet", "mobilenet_v2", "densenet121", "lstm_lm", "CONV_NETS"]


def lenet() -> Any:
    """The seed's LeNet: conv 6@5x5 relu, pool 2, conv 16@3x3 relu, pool 2, 120, 84, 10."""
    from torch import nn

    return nn.Sequential(
        nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Conv2d(6, 16, 3), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def resnet(depth: int, classes: int = 1000) -> Any:
    """ResNet v1 (18/34: basic blocks; 50: bottlenecks), MXNet's layout: 7x7 stem, max-pool, four stages,
    the stride on each block's first convolution (the bottleneck's 1x1, as MXNet's ``resnet50_v1``)."""
    import torch
    from torch import nn

    class Basic(nn.Module):
        expansion = 1

        def __init__(self, cin: int, width: int, stride: int) -> None:
            super().__init__()
            cout = width
            self.body = nn.Sequential(
                nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout))
            self.down = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                         if stride != 1 or cin != cout else None)

        def forward(self, x: Any) -> Any:
            return torch.relu(self.body(x) + (x if self.down is None else self.down(x)))

    class Bottleneck(nn.Module):
        expansion = 4

        def __init__(self, cin: int, width: int, stride: int) -> None:
            super().__init__()
            cout = width * 4
            self.body = nn.Sequential(
                nn.Conv2d(cin, width, 1, stride, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
                nn.Conv2d(width, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
                nn.Conv2d(width, cout, 1, 1, bias=False), nn.BatchNorm2d(cout))
            self.down = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                         if stride != 1 or cin != cout else None)

        def forward(self, x: Any) -> Any:
            return torch.relu(self.body(x) + (x if self.down is None else self.down(x)))

    block, counts = {18: (Basic, (2, 2, 2, 2)), 34: (Basic, (3, 4, 6, 3)),
                     50: (Bottleneck, (3, 4, 6, 3))}[depth]
    layers: list[Any] = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                         nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for i, (width, n) in enumerate(zip((64, 128, 256, 512), counts, strict=True)):
        for j in range(n):
            layers.append(block(cin, width, 2 if i > 0 and j == 0 else 1))
            cin = width * block.expansion
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, classes)]
    return nn.Sequential(*layers)


def mobilenet_v2(classes: int = 1000) -> Any:
    """MobileNet v2 (width 1.0): inverted residuals with ReLU6, MXNet's model zoo layout."""
    import torch
    from torch import nn

    def cbr(cin: int, cout: int, k: int, s: int, groups: int = 1, act: bool = True) -> list[Any]:
        out = [nn.Conv2d(cin, cout, k, s, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
        return out + [nn.ReLU6()] if act else out

    class Inverted(nn.Module):
        def __init__(self, cin: int, cout: int, t: int, s: int) -> None:
            super().__init__()
            mid = cin * t
            self.use_shortcut = s == 1 and cin == cout
            self.body = nn.Sequential(*(cbr(cin, mid, 1, 1) if t != 1 else []), *cbr(mid, mid, 3, s, mid),
                                      *cbr(mid, cout, 1, 1, act=False))

        def forward(self, x: Any) -> Any:
            out = self.body(x)
            return out + x if self.use_shortcut else out

    del torch
    layers: list[Any] = cbr(3, 32, 3, 2)
    cin = 32
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                       (6, 160, 3, 2), (6, 320, 1, 1)):
        for i in range(n):
            layers.append(Inverted(cin, c, t, s if i == 0 else 1))
            cin = c
    layers += [*cbr(cin, 1280, 1, 1), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(1280, classes)]
    return nn.Sequential(*layers)


def densenet121(classes: int = 1000) -> Any:
    """DenseNet-121: growth 32, blocks (6, 12, 24, 16), bottleneck 4x, transitions halving channels."""
    import torch
    from torch import nn

    class Dense(nn.Module):
        def __init__(self, cin: int) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.BatchNorm2d(cin), nn.ReLU(), nn.Conv2d(cin, 128, 1, bias=False),
                                      nn.BatchNorm2d(128), nn.ReLU(), nn.Conv2d(128, 32, 3, 1, 1, bias=False))

        def forward(self, x: Any) -> Any:
            return torch.cat([x, self.body(x)], 1)

    layers: list[Any] = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                         nn.MaxPool2d(3, 2, 1)]
    c = 64
    for i, n in enumerate((6, 12, 24, 16)):
        for _ in range(n):
            layers.append(Dense(c))
            c += 32
        if i != 3:
            layers += [nn.BatchNorm2d(c), nn.ReLU(), nn.Conv2d(c, c // 2, 1, bias=False), nn.AvgPool2d(2, 2)]
            c //= 2
    layers += [nn.BatchNorm2d(c), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, classes)]
    return nn.Sequential(*layers)


def lstm_lm(vocab: int, hidden: int, layers: int) -> Any:
    """A word-level language model: embedding, LSTM (time-major), a dense decoder over the vocabulary."""
    from torch import nn

    class LM(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab, hidden)
            self.rnn = nn.LSTM(hidden, hidden, layers)
            self.out = nn.Linear(hidden, vocab)

        def forward(self, tokens: Any) -> Any:
            return self.out(self.rnn(self.embed(tokens))[0])

    return LM()


CONV_NETS = {"resnet18": lambda classes=1000: resnet(18, classes),
             "resnet50": lambda classes=1000: resnet(50, classes), "mobilenet_v2": mobilenet_v2,
             "densenet121": densenet121}
