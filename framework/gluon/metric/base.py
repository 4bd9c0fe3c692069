"""EvalMetric, CompositeEvalMetric, Loss, CustomMetric, the registry and ``create`` (re-exported by
``framework.gluon.metric``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as onp

__all__ = ["EvalMetric", "CompositeEvalMetric", "Loss", "CustomMetric", "np", "create", "register", "alias",
           "check_label_shapes"]

_REGISTRY: dict[str, type[EvalMetric]] = {}


def register(klass: type[EvalMetric]) -> type[EvalMetric]:
    """Register a metric class under its lower-case name."""
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def alias(*names: str) -> Callable[[type[EvalMetric]], type[EvalMetric]]:
    """Register extra names for a metric class."""
    def deco(klass: type[EvalMetric]) -> type[EvalMetric]:
        for n in names:
            _REGISTRY[n.lower()] = klass
        return klass
    return deco


def create(metric: Any, *args: Any, **kwargs: Any) -> EvalMetric:
    """A metric from a name ('acc', 'top_k_accuracy', 'ce' ...), a function ``f(label, pred)``,
    a metric, or a list of those (a :class:`CompositeEvalMetric`).

    >>> create(['acc', 'mse']).get()[0]
    ['accuracy', 'mse']
    """
    if callable(metric) and not isinstance(metric, EvalMetric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, EvalMetric):
        return metric
    if isinstance(metric, (list, tuple)):
        composite = CompositeEvalMetric()
        for m in metric:
            composite.add(create(m, *args, **kwargs))
        return composite
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a name, a function, an EvalMetric or a list, got {metric!r}")
    klass = _REGISTRY.get(metric.lower())
    if klass is None:
        raise ValueError(f"Cannot find metric {metric!r}. Registered metrics: {', '.join(sorted(_REGISTRY))}")
    return klass(*args, **kwargs)


def _host(x: Any) -> onp.ndarray:
    """One device-to-host transfer (recorded values expose ``asnumpy``)."""
    return onp.asarray(x.asnumpy() if hasattr(x, "asnumpy") else x)


def check_label_shapes(labels: Any, preds: Any, wrap: bool = False, shape: bool = False):
    """Raise if the number (or, with ``shape``, the shapes) of labels and preds differ; with ``wrap``
    a single array becomes a one-element list."""
    if wrap:
        labels = list(labels) if isinstance(labels, (list, tuple)) else [labels]
        preds = list(preds) if isinstance(preds, (list, tuple)) else [preds]
    got_l, got_p = (tuple(labels.shape), tuple(preds.shape)) if shape else (len(labels), len(preds))
    if got_l != got_p:
        raise ValueError(f"Shape of labels {got_l} does not match shape of predictions {got_p}")
    return labels, preds


class EvalMetric:
    """Base class: subclasses implement ``update``; ``get`` returns ``(name, sum_metric / num_inst)``."""

    def __init__(self, name: str, output_names: list[str] | None = None,
                 label_names: list[str] | None = None, **kwargs: Any) -> None:
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._kwargs = kwargs
        self.reset()

    def __str__(self) -> str:
        return f"EvalMetric: {dict(self.get_name_value())}"

    def get_config(self) -> dict[str, Any]:
        """The metric's configuration (as MXNet: enough to re-create it with :func:`create`)."""
        config = dict(self._kwargs)
        config.update(metric=type(self).__name__, name=self.name, output_names=self.output_names,
                      label_names=self.label_names)
        return config

    def update_dict(self, label: dict[str, Any], pred: dict[str, Any]) -> None:
        """Update from dicts of named outputs/labels (``output_names``/``label_names`` select)."""
        outs, labs = self.output_names, self.label_names
        preds = [pred[n] for n in outs] if outs is not None else list(pred.values())
        labels = [label[n] for n in labs] if labs is not None else list(label.values())
        self.update(labels, preds)

    def update(self, labels: Any, preds: Any) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement update")

    def reset(self) -> None:
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self) -> None:
        """Reset the running (local) statistics, keeping the global ones."""
        self.num_inst = 0
        self.sum_metric = 0.0

    def _add(self, value: float, count: float) -> None:
        self.sum_metric += value
        self.num_inst += count
        self.global_sum_metric += value
        self.global_num_inst += count

    def _value(self, total: float, count: float) -> float:
        return float(total) / count

    def get(self) -> tuple[Any, Any]:
        if self.num_inst == 0:
            return self.name, float("nan")
        return self.name, self._value(self.sum_metric, self.num_inst)

    def get_global(self) -> tuple[Any, Any]:
        if self.global_num_inst == 0:
            return self.name, float("nan")
        return self.name, self._value(self.global_sum_metric, self.global_num_inst)

    def get_name_value(self) -> list[tuple[str, float]]:
        name, value = self.get()
        return list(zip(name if isinstance(name, list) else [name],
                        value if isinstance(value, list) else [value], strict=True))

    def get_global_name_value(self) -> list[tuple[str, float]]:
        name, value = self.get_global()
        return list(zip(name if isinstance(name, list) else [name],
                        value if isinstance(value, list) else [value], strict=True))


@register
@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get`` returns lists of names and values."""

    def __init__(self, metrics: list[Any] | None = None, name: str = "composite", **kwargs: Any) -> None:
        self.metrics = [create(m) for m in (metrics or [])]
        super().__init__(name, **kwargs)

    def add(self, metric: Any) -> None:
        self.metrics.append(create(metric))

    def get_metric(self, index: int) -> EvalMetric:
        try:
            return self.metrics[index]
        except IndexError:
            raise ValueError(f"Metric index {index} is out of range 0 and {len(self.metrics)}") from None

    def update(self, labels, preds):
        for m in self.metrics:
            m.update(labels, preds)

    def reset(self):
        for m in getattr(self, "metrics", []):
            m.reset()

    def reset_local(self):
        for m in self.metrics:
            m.reset_local()

    def _collect(self, getter: str):
        names, values = [], []
        for m in self.metrics:
            n, v = getattr(m, getter)()
            names.extend(n if isinstance(n, list) else [n])
            values.extend(v if isinstance(v, list) else [v])
        return names, values

    def get(self):
        return self._collect("get")

    def get_global(self):
        return self._collect("get_global")


@register
class Loss(EvalMetric):
    """Mean of the loss values passed as ``preds`` (labels are ignored)."""

    def __init__(self, name: str = "loss", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)

    def update(self, _, preds):
        for pred in preds if isinstance(preds, (list, tuple)) else [preds]:
            pred = _host(pred)
            self._add(float(pred.sum()), pred.size)


@register
class CustomMetric(EvalMetric):
    """``feval(label, pred)`` on NumPy arrays returns a value, or ``(sum_metric, num_inst)``."""

    def __init__(self, feval: Callable[[onp.ndarray, onp.ndarray], Any], name: str | None = None,
                 allow_extra_outputs: bool = False, **kwargs: Any) -> None:
        if name is None:
            name = feval.__name__
            if "<" in name:
                name = f"custom({name})"
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs, **kwargs)
        self._feval, self._allow_extra_outputs = feval, allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        elif not isinstance(labels, (list, tuple)):
            labels, preds = [labels], preds if isinstance(preds, (list, tuple)) else [preds]
        for pred, label in zip(preds, labels, strict=False):
            value = self._feval(_host(label), _host(pred))
            if isinstance(value, tuple):
                self._add(*value)
            else:
                self._add(value, 1)

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized")


def np(numpy_feval: Callable[[onp.ndarray, onp.ndarray], Any], name: str | None = None,
       allow_extra_outputs: bool = False) -> CustomMetric:
    """A :class:`CustomMetric` from a function of NumPy ``(label, pred)`` returning a float."""
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
