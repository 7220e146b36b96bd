"""Fixtures of the deploy tests: Prometheus's tools, installed from Debian when missing."""

from __future__ import annotations

import pytest

from tests.deploy.support import ensure_debian_package


def _tool(command: str) -> str:
    path = ensure_debian_package(command, "prometheus")
    if path is None:
        pytest.skip(
            f"`{command}` is missing and Debian's `prometheus` package could not be installed "
            "(needs root and apt-get): apt-get install prometheus"
        )
    return path


@pytest.fixture(scope="session")
def promtool() -> str:
    """The path of `promtool`."""
    return _tool("promtool")


@pytest.fixture(scope="session")
def prometheus_binary() -> str:
    """The path of the `prometheus` server."""
    return _tool("prometheus")
