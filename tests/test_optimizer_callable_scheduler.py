"""A plain callable as ``lr_scheduler`` (a class with ``__call__`` and no ``base_lr``, as in d2l's
learning-rate chapter): MXNet 1.9.1 only calls it -- ``SGD(lr_scheduler=s).learning_rate`` is
``s(num_update)`` (0.1 at update 0 for ``0.1 * (n + 1) ** -0.5``, checked in MXNet's venv)."""

from framework import gluon, np, optimizer


class SquareRoot:
    def __init__(self, lr=0.1):
        self.lr = lr

    def __call__(self, num_update):
        return self.lr * pow(num_update + 1.0, -0.5)


def test_callable_scheduler_without_base_lr():
    opt = optimizer.SGD(lr_scheduler=SquareRoot())
    assert opt.learning_rate == 0.1
    opt.num_update = 3
    assert opt.learning_rate == 0.05


def test_trainer_steps_with_a_callable_scheduler():
    net = gluon.nn.Dense(1, in_units=2)
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"lr_scheduler": SquareRoot()})
    from framework import autograd

    with autograd.record():
        loss = (net(np.ones((1, 2))) ** 2).sum()
    loss.backward()
    trainer.step(1)
    assert trainer.learning_rate == SquareRoot()(trainer.optimizer.num_update)
