"""MXNet's ``mx.log``: ``get_logger`` (a logger with MXNet's one-letter level prefix and time stamp) and
the level constants.

>>> from framework import log
>>> logger = log.get_logger('framework.doc', level=log.INFO)
>>> logger.level == log.INFO
True
"""

from __future__ import annotations

import logging
import sys
import warnings

__all__ = ["CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG", "NOTSET", "get_logger", "getLogger"]

CRITICAL, ERROR, WARNING = logging.CRITICAL, logging.ERROR, logging.WARNING
INFO, DEBUG, NOTSET = logging.INFO, logging.DEBUG, logging.NOTSET


class _Formatter(logging.Formatter):
    """``<L><MMDD HH:MM:SS> <process> <file>:<line>] <message>`` as MXNet's (and glog's) logs."""

    _LABELS = {CRITICAL: "C", ERROR: "E", WARNING: "W", INFO: "I", DEBUG: "D"}

    def __init__(self) -> None:
        super().__init__(datefmt="%m%d %H:%M:%S")

    def format(self, record: logging.LogRecord) -> str:
        self._style._fmt = (
            self._LABELS.get(record.levelno, "U")
            + "%(asctime)s %(process)d %(pathname)s:%(funcName)s:%(lineno)d] %(message)s"
        )
        return super().format(record)


def get_logger(
    name: str | None = None, filename: str | None = None, filemode: str | None = None, level: int = WARNING
) -> logging.Logger:
    """A logger writing to ``filename`` (mode ``filemode``, default 'a') or stderr, configured once."""
    logger = logging.getLogger(name)
    if name is not None and not getattr(logger, "_init_done", None):
        logger._init_done = True  # type: ignore[attr-defined]
        if filename:
            handler: logging.Handler = logging.FileHandler(filename, filemode or "a")
        else:
            handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_Formatter())
        logger.addHandler(handler)
    logger.setLevel(level)
    return logger


def getLogger(
    name: str | None = None, filename: str | None = None, filemode: str | None = None, level: int = WARNING
) -> logging.Logger:
    """MXNet's deprecated spelling of :func:`get_logger`."""
    warnings.warn("getLogger is deprecated; use get_logger", DeprecationWarning, stacklevel=2)
    return get_logger(name, filename, filemode, level)
