"""`aurra COMMAND --help` tells a newcomer what the command does and what each option is for,
with its default: every subcommand, the `keys` actions too."""

from __future__ import annotations

import argparse
import contextlib
import io
from collections.abc import Iterator

import pytest

from aurra_local import cli


def subcommands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield (*path, name), child
                yield from subcommands(child, (*path, name))


COMMANDS = dict(subcommands(cli.build_parser()))


def help_of(*argv: str) -> str:
    """What `aurra ARGV --help` prints, through main() as a user runs it."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exited:
        cli.main([*argv, "--help"])
    assert exited.value.code == 0
    return out.getvalue()


def test_every_command_is_covered() -> None:
    assert {" ".join(path) for path in COMMANDS} >= {
        "dev",
        "keys",
        "keys create",
        "keys list",
        "keys revoke",
        "keys rotate",
        "invoke",
        "eval",
        "openapi",
        "migrate",
        "tenant-indexes",
        "mcp",
    }


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_each_command_has_a_description_and_every_option_help_with_its_default(
    path: tuple[str, ...],
) -> None:
    parser = COMMANDS[path]
    assert parser.description and len(parser.description) > 40, f"aurra {' '.join(path)} has no description"
    text = help_of(*path)
    assert parser.description.splitlines()[0] in text
    formatter = parser._get_formatter()
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        name = "/".join(action.option_strings) or action.dest
        assert action.help and action.help.strip() and action.help != argparse.SUPPRESS, (
            f"aurra {' '.join(path)}: {name} has no help"
        )
        shown = formatter._expand_help(action)
        # As printed (argparse wraps lines, long words too).
        assert "".join(shown.split()) in "".join(text.split())
        # An option with a default value says it (a flag's is off; an option without one, such
        # as --stage or --dataset, says in its words what happens when it is not given).
        if action.default is not None and not isinstance(action.default, bool):
            assert f"default: {action.default}" in shown, (
                f"aurra {' '.join(path)}: {name} does not say its default: {shown!r}"
            )


def test_defaults_appear_where_a_newcomer_reads_them() -> None:
    dev = " ".join(help_of("dev").split())
    assert "(default: 3000)" in dev
    assert "(default: 127.0.0.1)" in dev
    assert "(default: .aurra)" in dev
    assert "(default: 30)" in dev
    mcp = " ".join(help_of("mcp").split())
    assert "(default: 8765)" in mcp
    assert "AURRA_API_KEY" in mcp and "AURRA_BASE_URL" in mcp
    assert "AURRA_DATABASE_URL" in help_of("migrate")
