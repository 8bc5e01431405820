"""Instructions to import functions from the layer as synth builds it, per checkout: a cold-start
lever measured without the machine's noise.

On a shared 2-core host the same import's CPU time ranges over +-30% from run to run; the
instructions it executes (`valgrind --tool=callgrind`) repeat to within 0.1%. For each checkout
this builds the layer as `cdk synth` does (infra/components/layer.py, compiled by the runtime's
interpreter), then imports each function from it in the functions' environment, with the layer's
bytecode and `functions/<name>` as the working folder, as Lambda's /var/task. Needs valgrind.

    python -m bench.experiments.layer_instructions --trees ../base,. --handlers write,authorizer --python python3.13
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import cold_start
from common import ROOT


def build(tree: Path, python: str, version: str, out: Path) -> Path:
    """The tree's own layer, built by the tree's own infra code."""
    code = (
        f"import sys; sys.path.insert(0, {str(tree)!r})\n"
        "from pathlib import Path\n"
        "from infra.components.layer import build_layer, bytecode_python\n"
        f"print(build_layer(Path({str(out)!r}), architecture='x86_64', python_version={version!r}, "
        f"bytecode=bytecode_python({version!r}, explicit={python!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, capture_output=True, text=True, check=True)
    return Path(done.stdout.strip().splitlines()[-1])


def instructions(python: str, tree: Path, handler: str, site: Path, tmp: Path) -> float:
    env = cold_start.layer_environment(site, "layer_bytecode", tmp)
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={tmp / 'callgrind.out'}",
            python,
            "-c",
            "import handler",
        ],
        cwd=tree / "functions" / handler,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if not found:
        raise RuntimeError(done.stderr[-2000:])
    return int(found.group(1)) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", default=str(ROOT), help="checkouts, comma-separated (default: this one)")
    parser.add_argument("--handlers", default="write,authorizer")
    parser.add_argument("--python", default="python3.13", help="the interpreter of the runtime's version")
    args = parser.parse_args()
    version = subprocess.run(
        [args.python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    for tree in (Path(t).resolve() for t in args.trees.split(",")):
        tmp = Path(tempfile.mkdtemp(prefix="aurra-instructions-"))
        site = build(tree, args.python, version, tmp / "layer")
        for handler in args.handlers.split(","):
            count = instructions(args.python, tree, handler, site, tmp)
            print(f"{tree}  {handler:<11} Python {version}: {count:,.1f} M instructions", flush=True)


if __name__ == "__main__":
    main()
