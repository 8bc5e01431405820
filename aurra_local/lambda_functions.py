"""Where the Lambda functions' code is, and loading a handler from it by path, as Lambda does.

In a checkout the functions are the folder `functions/` beside this package; installed from a
wheel they are the package `aurra_functions`. Either way each handler is loaded from its file
under the name `aurra_functions.<name>.handler`, so a checkout never picks up an installed copy
(or the other way round) and the short folder name `functions` never needs to be importable.
"""

from __future__ import annotations

import gc
import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType

PACKAGE = "aurra_functions"
_lock = threading.RLock()
# Handlers whose module has run to its end. sys.modules holds a module from the moment its
# code starts running, so a request served while another one loads the same handler (the
# first requests after `aurra dev` starts, arriving together) would find it there half-made.
_handlers: dict[str, ModuleType] = {}


def functions_dir() -> Path:
    checkout = Path(__file__).resolve().parent.parent / "functions"
    if (checkout / "__init__.py").is_file():
        return checkout
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the Lambda functions are missing: neither {checkout} nor the package {PACKAGE}")
    return Path(next(iter(spec.submodule_search_locations)))


def _load(name: str, path: Path, *, package: bool = False) -> ModuleType:
    with _lock:
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.spec_from_file_location(
            name, path, submodule_search_locations=[str(path.parent)] if package else None
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        collecting = gc.isenabled()
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        finally:
            # A handler pauses garbage collection while it imports (aurra_core/runtime/cold_start.py);
            # one that fails half-way must not leave this long-lived process without it.
            if collecting:
                gc.enable()
        return module


def catalog() -> ModuleType:
    """The package's own module: FUNCTIONS, HTTP_FUNCTIONS and ROUTES."""
    return _load(PACKAGE, functions_dir() / "__init__.py", package=True)


def function_names() -> tuple[str, ...]:
    return tuple(catalog().FUNCTIONS)


def load_handler(function: str) -> ModuleType:
    # Loaded before: as Lambda keeps a warm handler. `aurra dev` calls this on every request,
    # where resolving the folder again costs some 0.7 ms of stat calls.
    loaded = _handlers.get(function)
    if loaded is not None:
        return loaded
    if function not in function_names():
        raise KeyError(f"unknown function {function!r}; one of {', '.join(function_names())}")
    root = functions_dir()
    with _lock:  # a request arriving while another loads the handler waits for the whole of it
        _load(f"{PACKAGE}.{function}", root / function / "__init__.py", package=True)
        handler = _load(f"{PACKAGE}.{function}.handler", root / function / "handler.py")
        _handlers[function] = handler
    return handler
