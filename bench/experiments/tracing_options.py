"""What tracing costs a cold start, per way of doing it (bench/notes/cold-start.md).

Each option runs in a fresh interpreter, best of --runs, after the write handler's module is
imported (so psycopg, pydantic and Powertools are already loaded and not counted), with the
environment of a Lambda function with active tracing (tracing on):

- `tracer-patch-all`: `Tracer()` as Aurra created it at import before: the X-Ray recorder (its
  sampler imports botocore and builds an X-Ray client) and `patch_all`, which imports every
  library X-Ray can patch that is installed;
- `tracer-patch-used`: `Tracer(patch_modules=PATCHED_MODULES)`, what `LazyTracer` creates on the
  first traced call: the recorder and only the libraries Aurra calls through;
- `otel-sdk` (with --otel-path, a directory with opentelemetry-api and -sdk installed): the
  OpenTelemetry API and SDK and a TracerProvider with a span processor, no exporter; a lower
  bound, since exporting to X-Ray from Lambda also needs an OTLP exporter and a collector.

    python -m bench.experiments.tracing_options [--runs 3] [--otel-path DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

OPTIONS = {
    "tracer-patch-all": "from aws_lambda_powertools import Tracer\nTracer()",
    "tracer-patch-used": (
        "from aws_lambda_powertools import Tracer\n"
        "from aurra_core.runtime.observability import PATCHED_MODULES\n"
        "Tracer(patch_modules=list(PATCHED_MODULES))"
    ),
    "otel-sdk": (
        "from opentelemetry import trace\n"
        "from opentelemetry.sdk.trace import TracerProvider\n"
        "from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter\n"
        "provider = TracerProvider()\n"
        "provider.add_span_processor(SimpleSpanProcessor(SpanExporter()))\n"
        "trace.set_tracer_provider(provider)\n"
        "trace.get_tracer('aurra')"
    ),
}

CHILD = """
import sys, time
import functions.write.handler
started, started_cpu = time.perf_counter(), time.process_time()
exec(compile(sys.argv[1], "option", "exec"))
print(time.perf_counter() - started, time.process_time() - started_cpu)
"""


def measure(option: str, runs: int, otel_path: str | None) -> list[tuple[float, float]]:
    """(wall ms, CPU ms) per run."""
    env = dict(os.environ)
    env.pop("POWERTOOLS_TRACE_DISABLED", None)
    env.update(
        LAMBDA_TASK_ROOT=str(ROOT),
        AWS_XRAY_CONTEXT_MISSING="LOG_ERROR",
        AWS_DEFAULT_REGION=env.get("AWS_DEFAULT_REGION", "us-east-1"),
        PYTHONPATH=os.pathsep.join(
            filter(None, [str(ROOT / "layers/core/python"), str(ROOT), otel_path, env.get("PYTHONPATH")])
        ),
    )
    samples = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", CHILD, OPTIONS[option]],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        wall, cpu = done.stdout.strip().splitlines()[-1].split()
        samples.append((float(wall) * 1000, float(cpu) * 1000))
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--otel-path", help="a directory with opentelemetry-api and opentelemetry-sdk")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    results = {}
    for option in OPTIONS:
        if option == "otel-sdk" and not args.otel_path:
            continue
        samples = measure(option, args.runs, args.otel_path)
        walls, cpus = [w for w, _ in samples], [c for _, c in samples]
        results[option] = {"best_ms": min(walls), "best_cpu_ms": min(cpus), "all_ms": walls}
        print(
            f"  {option:<18} best {min(walls):6.0f} ms (cpu {min(cpus):5.0f})  all "
            f"{', '.join(f'{w:.0f}' for w in walls)}"
        )
    print(f"load average after: {os.getloadavg()}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
