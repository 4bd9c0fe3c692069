"""Recording (placeholder)."""


def any_recorded(args, kwargs) -> bool:
    return False


def record_call(fn, args, kwargs):
    return fn(*args, **kwargs)
