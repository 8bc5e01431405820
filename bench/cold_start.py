"""Section 3: cold start of every handler in functions/.

For each handler, in a fresh interpreter (best of 3): the time to import its module, which
model and AWS SDKs that import loaded (sys.modules), the time to answer its first request
(the imported module's `lambda_handler`, as Lambda calls it, with a fixture from events/ whose
placeholder ids are replaced by a real tenant, key and memory), and a second, warm request. Then the heaviest
imports from `python -X importtime`.

Bytecode decides much of an import's cost: a module without a usable .pyc is compiled from
source every time it is imported. The venv's packages were compiled when installed; the working
tree's modules only where Python could write __pycache__ (not under PYTHONDONTWRITEBYTECODE);
and in a read-only /opt, a layer without .pyc files (synth without a Python of the runtime's
version, infra/components/layer.py) makes a function compile every module it imports at each
cold start. So each child runs with a PYTHONPYCACHEPREFIX of its own, and each handler is
measured twice: "compiled", every module with bytecode (the prefix warmed by one discarded run
of the handler first); "source", no bytecode at all (an empty prefix nothing may write to), as in
Lambda with a layer built without bytecode.

The parent prepares the tenant, key and memories; the child (this file with --child) runs one
handler and prints one JSON line.

`--layer --python <python3.12>` measures what Lambda imports instead: the layer built as
`cdk synth` builds it (infra/components/layer.py: pip for this machine's architecture, then
compiled by that interpreter), each function's folder on the path as /var/task is, the
interpreter of the runtime's version, and only the import (no database: the layer holds no
local gateway). Each function is imported with the layer's bytecode and with none (an empty
PYTHONPYCACHEPREFIX, where Python then looks for it), best of 3, and each child counts the
modules it had to compile from source.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVENTS = ROOT / "events"
HANDLERS = (
    "write",
    "query",
    "settings",
    "supersede",
    "audit",
    "authorizer",
    "migrate",
    "admin",
    "maintenance",
)
# Which fixture each handler answers first; migrate, admin and maintenance have none in events/
# (they are not behind API Gateway), so theirs are built here: a CloudFormation custom-resource
# Update, a key listing as `aurra keys list --stage` sends it, and an EventBridge schedule tick.
FIXTURES = {
    "write": "write_memory.json",
    "query": "search_memories.json",
    "settings": "get_settings.json",
    "supersede": "supersede_memory.json",
    "audit": "list_audit.json",
    "authorizer": "authorizer.json",
}
PLACEHOLDERS = {
    "tenant": "0192f0c4-0000-7000-8000-00000000a001",
    "key_id": "0192f0c4-0000-7000-8000-00000000b001",
    "memory": "0192f0c4-0000-7000-8000-00000000c001",
    "raw_key": "aurra_0123456789ab_REPLACE-WITH-A-KEY-FROM-aurra-keys-create",
}
WATCHED = (
    "anthropic",
    "boto3",
    "botocore",
    "numpy",
    "aurra_core.classifiers.rules",
    "aurra_core.embedders.minilm",
)


def event_for(handler: str, ids: dict) -> dict:
    if handler == "migrate":
        return {
            "RequestType": "Update",
            "ServiceToken": "arn:aws:lambda:us-east-1:000000000000:function:provider",
            "ResponseURL": "https://example.invalid/",
            "StackId": "arn:aws:cloudformation:us-east-1:000000000000:stack/aurra/1",
            "RequestId": "bench",
            "LogicalResourceId": "Schema",
            "PhysicalResourceId": "aurra-schema",
            "ResourceType": "Custom::AurraSchema",
            "ResourceProperties": {},
        }
    if handler == "admin":
        return {"request": {"action": "list", "tenant": ids["tenant_name"]}}
    if handler == "maintenance":
        return {
            "version": "0",
            "id": "bench",
            "detail-type": "Scheduled Event",
            "source": "aws.events",
            "account": "000000000000",
            "time": "2026-11-29T00:00:00Z",
            "region": "us-east-1",
            "resources": ["arn:aws:events:us-east-1:000000000000:rule/aurra-dev-maintenance"],
            "detail": {},
        }
    text = (EVENTS / FIXTURES[handler]).read_text()
    for name, placeholder in PLACEHOLDERS.items():
        text = text.replace(placeholder, ids[name])
    return json.loads(text)


def status_of(handler: str, response) -> str:
    if handler == "authorizer":
        return "allow" if response.get("policyDocument") else "?"
    if handler == "migrate":
        return "ok" if response.get("PhysicalResourceId") else "?"
    if handler == "admin":
        return "ok" if response.get("ok") else f"error {response.get('error')}"
    if handler == "maintenance":
        return "ok" if response.get("ran") else "?"
    return str(response.get("statusCode"))


# ---------------------------------------------------------------- child


def child(handler: str, event_path: str) -> None:
    sys.path.insert(0, str(ROOT))
    started = time.perf_counter()
    started_cpu = time.process_time()
    import importlib

    module = importlib.import_module(f"functions.{handler}.handler")
    imported = time.perf_counter() - started
    imported_cpu = time.process_time() - started_cpu
    loaded_at_import = [m for m in WATCHED if m in sys.modules]
    module_count = len(sys.modules)

    from aurra_local import gateway

    event = json.loads(Path(event_path).read_text())

    def call():
        # The module imported above answers, as in Lambda: gateway.invoke would load the
        # handler's file a second time (under aurra_functions.*) and count that in the request.
        context = gateway.LambdaContext(function_name=handler, aws_request_id="bench")
        return module.lambda_handler(json.loads(json.dumps(event)), context)

    t = time.perf_counter()
    t_cpu = time.process_time()
    first = call()
    first_s = time.perf_counter() - t
    first_cpu = time.process_time() - t_cpu
    t = time.perf_counter()
    second = call()
    second_s = time.perf_counter() - t
    print(
        json.dumps(
            {
                "handler": handler,
                "import_s": imported,
                "import_cpu_s": imported_cpu,
                "modules": module_count,
                "loaded_at_import": loaded_at_import,
                "first_request_s": first_s,
                "first_request_cpu_s": first_cpu,
                "first_status": status_of(handler, first),
                "second_request_s": second_s,
                "second_status": status_of(handler, second),
                "loaded_after_requests": [m for m in WATCHED if m in sys.modules],
            }
        )
    )


# ---------------------------------------------------------------- parent


def prepare(url: str) -> dict:
    """A tenant, its key, and what its fixtures point at."""
    from aurra_core.access import keys
    from aurra_core.storage.db import Database

    db = Database(url, max_size=1)
    try:
        with db.transaction() as conn:
            name = f"coldstart-{os.getpid()}-{time.time_ns()}"
            caller, raw = keys.create_key(conn, name)
    finally:
        db.close()
    return {
        "tenant": str(caller.tenant_id),
        "key_id": str(caller.api_key_id),
        "raw_key": raw,
        "tenant_name": name,
        "caller": caller,
        "url": url,
    }


def fresh_memory(ids: dict) -> str:
    """A current memory of the tenant for the supersede and audit fixtures (one per run: a
    memory superseded once cannot be superseded again)."""
    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.models import WriteRequest
    from aurra_core.runtime.flags import EnvFlagSource
    from aurra_core.storage.db import Database
    from aurra_core.write_path.pipeline import WriteDependencies, write_memory

    db = Database(ids["url"], max_size=1)
    try:
        deps = WriteDependencies(
            db=db, embedder=LexicalEmbedder(384), classifier_factory=lambda: None, flags=EnvFlagSource(False)
        )
        outcome = write_memory(
            ids["caller"],
            WriteRequest(content="User uses Vim", topic="preferences", valid_from="2026-04-01T00:00:00Z"),
            deps,
        )
    finally:
        db.close()
    return str(outcome.result.memory.id)


def child_env(url: str) -> dict:
    from infra import constants

    env = dict(os.environ, AURRA_DATABASE_URL=url, AURRA_LEVEL2_ENABLED="true")
    # As the functions' environment sets it in AWS (infra/constants.py says why).
    env[constants.ENV_BLAS_THREADS] = constants.BLAS_THREADS
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


BYTECODE_MODES = ("compiled", "source")


def bytecode_env(env: dict, mode: str, tmp_dir: Path) -> dict:
    """`env` with a bytecode cache of the mode's own (see the module's docstring). The
    "compiled" cache is filled by `warm_bytecode` before each handler is measured."""
    prefix = tmp_dir / f"pycache-{mode}"
    prefix.mkdir(exist_ok=True)
    env = dict(env, PYTHONPYCACHEPREFIX=str(prefix))
    if mode == "source":
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        return env
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def warm_bytecode(handler: str, url: str, env: dict, tmp_dir: Path) -> None:
    """One discarded run of the handler (import, first and second request) with the "compiled"
    cache, so that every module it uses has its bytecode there, as every module of the layer
    has in Lambda; warming by imports alone left the modules a first request imports (the
    rules classifier, the kinds of things, difflib) to be compiled in every measured run."""
    _samples(handler, url, env, 1, tmp_dir)


def child_json(command: list[str], cwd: Path, env: dict, what: str) -> dict:
    """Run a measuring child process; the JSON of its last output line (what it measured)."""
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed:\n{done.stderr[-3000:]}")
    result: dict = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def heaviest_imports(handler: str, env: dict, top: int = 10) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import functions.{handler}.handler"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        try:
            self_us, cumulative_us, name = (x.strip() for x in line[len("import time:") :].split("|"))
            rows.append(
                {
                    "module": name.strip(),
                    "self_ms": int(self_us) / 1000,
                    "cumulative_ms": int(cumulative_us) / 1000,
                }
            )
        except ValueError:
            continue  # the header line
    own = {"functions", f"functions.{handler}", f"functions.{handler}.handler"}
    rows = [r for r in rows if r["module"] not in own]
    return sorted(rows, key=lambda r: -r["cumulative_ms"])[:top]


def _samples(handler: str, url: str, env: dict, runs: int, tmp_dir: Path) -> list[dict]:
    samples = []
    for _ in range(runs):
        # A tenant of its own per run: in one shared tenant, the write fixture's fact, stored
        # by the first run, made every later run's first write a duplicate (no classifier).
        ids = prepare(url)
        ids["memory"] = fresh_memory(ids)
        path = tmp_dir / f"event-{handler}.json"
        path.write_text(json.dumps(event_for(handler, ids)))
        command = [sys.executable, str(Path(__file__).resolve()), "--child", handler, "--event", str(path)]
        samples.append(child_json(command, ROOT, env, f"cold start of {handler}"))
    return samples


def run(url: str, runs: int = 3, tmp_dir: Path | None = None, log=print) -> dict:
    tmp_dir = tmp_dir or Path("/tmp")
    envs = {mode: bytecode_env(child_env(url), mode, tmp_dir) for mode in BYTECODE_MODES}
    results = {}
    for handler in HANDLERS:
        warm_bytecode(handler, url, envs["compiled"], tmp_dir)
        samples = _samples(handler, url, envs["compiled"], runs, tmp_dir)
        source = _samples(handler, url, envs["source"], runs, tmp_dir)
        best = min(samples, key=lambda s: s["import_s"])
        result = {
            "import_ms_best": best["import_s"] * 1000,
            "import_ms_all": [s["import_s"] * 1000 for s in samples],
            # CPU time of this process (user + system): on a machine others load, the wall time
            # grows with the run queue while this stays close to the work itself.
            "import_cpu_ms_best": min(s["import_cpu_s"] for s in samples) * 1000,
            "first_request_cpu_ms_best": min(s["first_request_cpu_s"] for s in samples) * 1000,
            "modules_after_import": best["modules"],
            "first_request_ms_best": min(s["first_request_s"] for s in samples) * 1000,
            "first_request_ms_all": [s["first_request_s"] * 1000 for s in samples],
            "first_status": sorted({s["first_status"] for s in samples}),
            "second_request_ms_best": min(s["second_request_s"] for s in samples) * 1000,
            "loaded_at_import": sorted(set().union(*(s["loaded_at_import"] for s in samples))),
            "loaded_after_requests": sorted(set().union(*(s["loaded_after_requests"] for s in samples))),
            "anthropic_at_import": any("anthropic" in s["loaded_at_import"] for s in samples),
            # Without any bytecode (see the module's docstring).
            "source_import_ms_best": min(s["import_s"] for s in source) * 1000,
            "source_import_cpu_ms_best": min(s["import_cpu_s"] for s in source) * 1000,
            "source_first_request_ms_best": min(s["first_request_s"] for s in source) * 1000,
            "source_first_request_cpu_ms_best": min(s["first_request_cpu_s"] for s in source) * 1000,
            "heaviest_imports": heaviest_imports(handler, envs["compiled"]),
        }
        results[handler] = result
        log(
            f"  {handler:<11} import {result['import_ms_best']:7.0f} ms (cpu {result['import_cpu_ms_best']:4.0f}) "
            f"(best of {runs})  first request {result['first_request_ms_best']:7.0f} ms (cpu "
            f"{result['first_request_cpu_ms_best']:4.0f}) [{', '.join(result['first_status'])}]  warm "
            f"{result['second_request_ms_best']:6.1f} ms  anthropic at import: "
            f"{'YES' if result['anthropic_at_import'] else 'no'}"
        )
        log(
            f"  {'':<11} without bytecode: import {result['source_import_ms_best']:7.0f} ms (cpu "
            f"{result['source_import_cpu_ms_best']:4.0f})  first request {result['source_first_request_ms_best']:7.0f} ms "
            f"(cpu {result['source_first_request_cpu_ms_best']:4.0f})"
        )
    return results


# ---------------------------------------------------------------- the built layer

# Run by the runtime's interpreter with the built layer and one function's folder on the path:
# imports `handler` as Lambda does and counts the modules compiled from source on the way.
LAYER_CHILD = """
import json, sys, time
import importlib._bootstrap_external as external
compiled = []
source_to_code = external.SourceLoader.source_to_code
def counted(self, data, path, *args, **kwargs):
    compiled.append(path)
    return source_to_code(self, data, path, *args, **kwargs)
external.SourceLoader.source_to_code = counted
started, started_cpu = time.perf_counter(), time.process_time()
import handler
print(json.dumps({
    "import_s": time.perf_counter() - started,
    "import_cpu_s": time.process_time() - started_cpu,
    "modules": len(sys.modules),
    "compiled_from_source": len(compiled),
    "compiled_in_layer": sum(1 for p in compiled if p.startswith(sys.argv[1])),
}))
"""


def layer_environment(site: Path, mode: str, tmp_dir: Path) -> dict:
    """What each layer child runs with: the layer's site on the path as Lambda puts /opt/python,
    no bytecode written (read-only /opt and /var/task), and for "source" an empty cache prefix."""
    from infra import constants

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "AURRA_"))}
    env.update(
        PYTHONPATH=str(site),
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONNOUSERSITE="1",
        AURRA_STAGE="bench",
        AURRA_LEVEL2_ENABLED="true",
    )
    # the functions' environment as the stack sets it (infra/components/functions.py)
    env[constants.ENV_BLAS_THREADS] = constants.BLAS_THREADS
    env[constants.ENV_PYDANTIC_PLUGINS] = constants.PYDANTIC_PLUGINS_OFF
    if mode == "source":
        prefix = tmp_dir / "pycache-none"
        prefix.mkdir(exist_ok=True)
        env["PYTHONPYCACHEPREFIX"] = str(prefix)
    return env


def layer_run(python: str, runs: int = 3, tmp_dir: Path | None = None, log=print) -> dict:
    import platform
    import tempfile

    from infra.components.layer import build_layer, bytecode_python

    version = subprocess.run(
        [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    bytecode = bytecode_python(version, explicit=python)
    architecture = {"x86_64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}[platform.machine()]
    tmp_dir = Path(tempfile.mkdtemp(prefix="aurra-layer-", dir=tmp_dir))
    started = time.perf_counter()
    site = build_layer(
        tmp_dir / "layer", architecture=architecture, python_version=version, bytecode=bytecode
    )
    log(
        f"layer for python {version} on {architecture}, compiled by {bytecode}: built in {time.perf_counter() - started:.0f} s"
    )
    log(f"load average at the start: {os.getloadavg()}")
    results: dict = {"python": version, "architecture": architecture, "load_average_start": os.getloadavg()}
    for handler in HANDLERS:
        result = {}
        for mode in ("layer_bytecode", "source"):
            env = layer_environment(site, mode, tmp_dir)
            samples = []
            for _ in range(runs):
                command = [python, "-c", LAYER_CHILD, str(site)]
                samples.append(
                    child_json(
                        command, ROOT / "functions" / handler, env, f"importing {handler} from the layer"
                    )
                )
            result[mode] = {
                "import_ms_best": min(x["import_s"] for x in samples) * 1000,
                "import_cpu_ms_best": min(x["import_cpu_s"] for x in samples) * 1000,
                "import_ms_all": [x["import_s"] * 1000 for x in samples],
                "modules": samples[0]["modules"],
                "compiled_from_source": samples[0]["compiled_from_source"],
                "compiled_in_layer": samples[0]["compiled_in_layer"],
            }
        results[handler] = result
        b, s = result["layer_bytecode"], result["source"]
        log(
            f"  {handler:<11} with the layer's bytecode {b['import_ms_best']:6.0f} ms (cpu {b['import_cpu_ms_best']:4.0f}), "
            f"{b['compiled_in_layer']} layer modules compiled; without {s['import_ms_best']:6.0f} ms "
            f"(cpu {s['import_cpu_ms_best']:4.0f}), {s['compiled_in_layer']} compiled; {b['modules']} modules"
        )
    results["load_average_end"] = os.getloadavg()
    log(f"load average at the end: {results['load_average_end']}")
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", choices=HANDLERS)
    parser.add_argument("--event")
    parser.add_argument("--layer", action="store_true", help="import each function from a built layer")
    parser.add_argument("--python", help="with --layer: the interpreter of the runtime's version")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", help="with --layer: write the results here")
    args = parser.parse_args()
    if args.layer:
        # The jsii runtime (imported with the layer build) prints a banner about Node.js.
        os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "18,20")
        if not args.python:
            parser.error("--layer needs --python (an interpreter of the runtime's version)")
        sys.path.insert(0, str(ROOT))
        out = layer_run(args.python, runs=args.runs)
        if args.json:
            Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    elif args.child and args.event:
        child(args.child, args.event)
    else:
        parser.error("--child HANDLER --event FILE, or --layer --python PYTHON")
