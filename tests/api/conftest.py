"""Prints the API coverage that tests/api/test_inventory.py measured, after the run."""

from __future__ import annotations


def pytest_terminal_summary(terminalreporter):
    import sys

    mod = sys.modules.get("tests.api.test_inventory") or sys.modules.get("test_inventory")
    for text in getattr(mod, "COVERAGE", [])[-1:]:
        terminalreporter.write_line(text)
