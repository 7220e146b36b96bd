"""Where the referee's CPU goes: thread CPU time per component, measured by wrapping the calls.

`Buckets.wrap` times a function with `time.thread_time()` and charges the time to a bucket, minus
what wrapped functions called inside it charged to theirs, so nothing is counted twice.
`Buckets.wrap_async` does the same for a coroutine function step by step: only the CPU spent
running its own frames (between its awaits) is charged, not the time it waits. What no bucket
claims (gRPC, the event loop, the match loop, sessions) is the process's CPU time minus the rest.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Coroutine, Generator
from contextlib import contextmanager
from typing import Any

Charge = Callable[[float], None]


class Buckets:
    """CPU seconds per named component."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._stack: list[float] = [0.0]
        """Per open timed call, the CPU its wrapped callees charged (to subtract from it)."""

    def _charge(self, name: str, spent: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + spent

    def wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """`function`, charging its own CPU time to `name`."""

        def timed(*args: Any, **kwargs: Any) -> Any:
            stack = self._stack
            stack.append(0.0)
            began = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent = time.thread_time() - began
                inner = stack.pop()
                self._charge(name, spent - inner)
                stack[-1] += spent

        return timed

    def wrap_async(
        self, name: str, function: Callable[..., Coroutine[Any, Any, Any]]
    ) -> Callable[..., Awaitable[Any]]:
        """The coroutine function `function`, charging the CPU of its steps to `name`."""

        def timed(*args: Any, **kwargs: Any) -> Awaitable[Any]:
            return _Stepped(function(*args, **kwargs), lambda s: self._step(name, s))

        return timed

    def _step(self, name: str, spent: float) -> None:
        self._charge(name, spent)
        self._stack[-1] += spent


class _Stepped:
    """Drives a coroutine one step at a time, timing each step with `time.thread_time()`."""

    def __init__(self, coroutine: Coroutine[Any, Any, Any], charge: Charge) -> None:
        self._coroutine = coroutine
        self._charge = charge

    def __await__(self) -> Generator[Any, Any, Any]:
        coroutine, value, error = self._coroutine, None, None
        while True:
            began = time.thread_time()
            try:
                yielded = coroutine.send(value) if error is None else coroutine.throw(error)
            except StopIteration as stop:
                self._charge(time.thread_time() - began)
                return stop.value
            except BaseException:
                self._charge(time.thread_time() - began)
                raise
            self._charge(time.thread_time() - began)
            try:
                value, error = (yield yielded), None
            except BaseException as exc:  # delivered into the coroutine at its next step
                value, error = None, exc


@contextmanager
def patched(target: Any, name: str, replacement: Any) -> Generator[None, None, None]:
    """Set `target.name` to `replacement` for the block, then restore what was there."""
    had = name in vars(target) if hasattr(target, "__dict__") else False
    original = getattr(target, name)
    setattr(target, name, replacement)
    try:
        yield
    finally:
        if had or not hasattr(target, "__dict__"):
            setattr(target, name, original)
        else:
            delattr(target, name)
