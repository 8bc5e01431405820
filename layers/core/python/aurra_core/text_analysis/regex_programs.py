"""Regular expressions compiled at import, stored compiled ahead of time like bytecode.

`re.compile` parses and translates each expression in pure Python: for the rules classifier's
~160 expressions (word-list alternations up to 5,000 characters) that was ~35 ms of CPU on
the first Level 2 write of every cold start, most of that request, and ~10 ms more for the
text normalizer's ~90 (`aurra_core/text_analysis/text.py`, which the classifier imports). What `re` builds from an
expression is a program for its matching engine (`_sre`): a list of integers, the flags and
the group names. This module keeps those programs in one file beside the module's bytecode
(`__pycache__/regex_programs.<cache tag>.sre`, marshal) and hands each expression to `_sre` as
`re` itself would, with the same arguments: the patterns match exactly as before. An
expression missing from the file, or a file of another interpreter or engine version, is
compiled by `re` as before; a process that compiled any writes the file when it may write
bytecode (the same rule and place as `.pyc`, `PYTHONPYCACHEPREFIX` included).

With each program it keeps the strings one of which every match must contain (`literals`),
read off the parsed expression while it is at hand: a text holding none of them cannot match,
so the text normalizer skips a substitution there (its ~120 substitutions a fact were most of
the lexical embedder's time, and most find nothing).

The layer ships the file (infra/components/layer.py): the interpreter that compiles the
layer's bytecode runs this file as a script on the expressions the classifier and the normalizer compile
(recorded by the interpreter running synth), so Lambda's read-only /opt has it from the
start. This module imports only the standard library for that reason.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # the engine `re` hands its programs to
import contextlib
import importlib.util
import json
import marshal
import os
import re
import sys
from pathlib import Path
from re import _compiler, _constants, _parser  # type: ignore[attr-defined]
from typing import Any

# What a stored program is only valid for: the engine's version (its opcodes), its code
# unit and limits, and the interpreter's version (the `re` that translated it).
_ENGINE = (
    sys.implementation.cache_tag,
    _constants.MAGIC,
    _sre.CODESIZE,
    _sre.MAXREPEAT,
    _sre.MAXGROUPS,
    "literals-1",  # the form of a stored program (below)
)

# flags, code, groups, group index, index group (what `_sre.compile` takes), and the literals
Program = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...], tuple[str, ...]]

_programs: dict[str, Program] | None = None  # read from the file on first use
_compiled: dict[str, Program] = {}  # translated by this process (to be saved)
_expressions: list[str] = []  # every expression asked for, in order (recorded for the layer)


def programs_path(module_file: str = __file__) -> Path | None:
    """Where this interpreter keeps the programs: beside this module's bytecode."""
    try:
        return Path(importlib.util.cache_from_source(module_file)).with_suffix(".sre")
    except NotImplementedError:  # no cache tag: no bytecode either
        return None


def _load() -> dict[str, Program]:
    path = programs_path()
    if path is None:
        return {}
    try:
        stored = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(stored, dict) or stored.get("engine") != _ENGINE:
        return {}
    programs: dict[str, Program] = stored["programs"]
    return programs


def translate(pattern: str) -> Program:
    """What `re` builds from the expression (re._compiler.compile, without the last step)."""
    parsed = _parser.parse(pattern, 0)
    # Plain ints: the opcodes are an int subclass marshal does not store.
    code = [int(unit) for unit in _compiler._code(parsed, 0)]
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    needed = () if parsed.state.flags & re.IGNORECASE else _needed(parsed.data)
    return (int(parsed.state.flags), code, parsed.state.groups - 1, groupindex, tuple(indexgroup), needed)


# More alternatives than this and checking them costs about what the search would.
_MOST_ALTERNATIVES = 16


def _better(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """The rarer requirement: longer strings, then fewer of them."""
    return (min(map(len, a)), -len(a)) > (min(map(len, b)), -len(b))


def _needed(items: list[tuple[Any, Any]]) -> tuple[str, ...]:
    """Strings one of which every match of the parsed sequence `items` contains; () when none
    is known. Sound, not complete: whatever is not understood requires nothing."""
    best: tuple[str, ...] = ()
    run: list[str] = []
    for op, av in [*items, (None, None)]:
        if op == _constants.LITERAL:
            run.append(chr(av))
            continue
        found: list[tuple[str, ...]] = [("".join(run),)] if run else []
        run = []
        if op is not None:
            found.append(_needed_by(op, av))
        for candidate in found:
            if candidate and (not best or _better(candidate, best)):
                best = candidate
    return best


def _needed_by(op: Any, av: Any) -> tuple[str, ...]:
    """What one parsed item needs (see `_needed`)."""
    if op == _constants.SUBPATTERN:
        _, add_flags, _, inner = av
        return () if add_flags & re.IGNORECASE else _needed(inner.data)
    if op in (_constants.MAX_REPEAT, _constants.MIN_REPEAT, _constants.POSSESSIVE_REPEAT):
        low, _, inner = av
        return _needed(inner.data) if low >= 1 else ()
    if op == _constants.ATOMIC_GROUP:
        return _needed(av.data)
    if op == _constants.ASSERT:  # a lookahead's or lookbehind's text is in the text too
        return _needed(av[1].data)
    if op == _constants.BRANCH:
        alternatives: list[str] = []
        for branch in av[1]:
            each = _needed(branch.data)
            if not each:
                return ()
            alternatives += each
        unique = tuple(dict.fromkeys(alternatives))
        return unique if len(unique) <= _MOST_ALTERNATIVES else ()
    if op == _constants.IN and len(av) <= _MOST_ALTERNATIVES and all(o == _constants.LITERAL for o, _ in av):
        return tuple(chr(v) for _, v in av)
    return ()


def compile(pattern: str) -> re.Pattern[str]:  # noqa: A001 - the name `re` gives it
    """`re.compile(pattern)`, from the stored program when there is one. For expressions
    compiled once, at import (each is recorded for the layer's build)."""
    global _programs
    if _programs is None:
        _programs = _load()
    _expressions.append(pattern)
    program = _programs.get(pattern)
    if program is not None:
        flags, code, groups, groupindex, indexgroup, _ = program
        try:
            compiled: re.Pattern[str] = _sre.compile(pattern, flags, code, groups, groupindex, indexgroup)
            return compiled
        except (RuntimeError, TypeError, ValueError):
            pass  # a program the engine does not accept: translate it again
    program = translate(pattern)
    _compiled[pattern] = program
    flags, code, groups, groupindex, indexgroup, _ = program
    fresh: re.Pattern[str] = _sre.compile(pattern, flags, code, groups, groupindex, indexgroup)
    return fresh


def literals(pattern: str) -> tuple[str, ...]:
    """Strings one of which every match of `pattern` (compiled through this module) contains:
    where a text holds none of them, the expression finds nothing. () when none is known."""
    program = _compiled.get(pattern) or (_programs or {}).get(pattern)
    return program[5] if program is not None else ()


def recorded() -> list[str]:
    """Every expression compiled through this module so far, in order."""
    return list(dict.fromkeys(_expressions))


def _write(path: Path, programs: dict[str, Program]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(marshal.dumps({"engine": _ENGINE, "programs": programs}))
    os.replace(temporary, path)


def save() -> None:
    """Store what this process translated, where and when Python would write bytecode."""
    if not _compiled or sys.dont_write_bytecode:
        return
    path = programs_path()
    if path is None:
        return
    global _programs
    # kept for a later save in this process (each module saves once its expressions are compiled)
    _programs = {**(_programs or {}), **_compiled}
    # a read-only tree (as /opt in Lambda): the next cold start translates again
    with contextlib.suppress(OSError):
        _write(path, _programs)
    _compiled.clear()


def write_programs(expressions: list[str], module_file: str = __file__) -> Path:
    """Translate `expressions` with this interpreter and store them for it (the layer's build)."""
    path = programs_path(module_file)
    if path is None:
        raise RuntimeError(f"{sys.executable} keeps no bytecode (no cache tag): nothing to store")
    _write(path, {pattern: translate(pattern) for pattern in expressions})
    return path


def main(argv: list[str]) -> int:
    """`python regex_programs.py < expressions.json`: store their programs beside this file's
    bytecode, for the interpreter running it, and print where."""
    if argv:
        print(
            __doc__.splitlines()[0] + "\nusage: python regex_programs.py < expressions.json", file=sys.stderr
        )
        return 2
    expressions: Any = json.load(sys.stdin)
    if not isinstance(expressions, list) or not all(isinstance(x, str) for x in expressions):
        print("expected a JSON list of expressions on stdin", file=sys.stderr)
        return 2
    path = write_programs(expressions, str(Path(__file__).resolve()))
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
