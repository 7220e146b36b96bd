"""Every option of every `arena` subcommand has a sentence of help, and says its default."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from arena.cli.main import build_parser


def _parsers(
    parser: argparse.ArgumentParser, path: str = "arena"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{path} {name}")


def _options() -> list[tuple[str, argparse.Action]]:
    found = []
    for path, parser in _parsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            found.append((f"{path} {'/'.join(action.option_strings) or action.dest}", action))
    return found


OPTIONS = _options()


def test_every_subcommand_is_covered() -> None:
    names = {name for name, _ in OPTIONS}
    assert any(n.startswith("arena up --port") for n in names)
    assert any(n.startswith("arena bot test --cmd") for n in names)
    assert len(OPTIONS) > 70


@pytest.mark.parametrize(("name", "action"), OPTIONS, ids=[n for n, _ in OPTIONS])
def test_the_option_has_help_and_names_its_default(name: str, action: argparse.Action) -> None:
    assert action.help and len(action.help.split()) >= 1, f"{name} has no help"
    has_default = action.default not in (None, False, "", [], argparse.SUPPRESS)
    needs_default = action.option_strings and not isinstance(action, argparse._StoreTrueAction)
    if needs_default and (has_default or action.default == ""):
        assert "default" in action.help, f"{name}: {action.help!r} does not say its default"
