"""Whether a linear adapter on MiniLM's vectors, learned on the candidate development sets,
finds more candidates on a set it never saw (measurement only: nothing in the service uses it).

The adapter is a 384 x 384 matrix W applied to every MiniLM vector (then normalized again),
memories and new facts alike, learned by gradient descent (Adam) on a softmax over each set's
whole pool: the memory a new fact is about against every other memory `aurra eval
--candidate-recall` stores beside it (the set's targets and distractors, and its 300 templated
facts), with W held near the identity by an L2 penalty. Leave one set out: for each of the four
development sets, W is learned on the other three, then recall@3 on the held-out set is read
twice, with and without W: vector only in numpy, and hybrid through the service's own candidate
search (`store.find_candidates` in an embedded PostgreSQL, as `aurra eval` runs it). The
acceptance set (`evals/candidates.jsonl` and the labeled pairs) is never read here.

    .venv/bin/python -m bench.experiments.minilm_adapter --penalty 0.01,0.1 --steps 100
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "layers/core/python"), str(ROOT)]

DEV_SETS = ("candidates_dev", "candidates_dev2", "candidates_dev3", "candidates_dev4")
BACKGROUND = 300
GATED = {"health_medical", "legal_status"}


class SetData:
    """One set's new facts and pool as MiniLM vectors; `targets[i]` is the pool row of case i's
    memory (-1 when that memory is of a gated topic, which the search never returns)."""

    def __init__(self, name: str, cases: list[Any], vectors: dict[str, np.ndarray]) -> None:
        from aurra_local.candidate_recall import background_distractors

        facts: dict[tuple[str, str], None] = {}
        for case in cases:
            facts.setdefault((case.target["content"], case.target.get("topic", "general")), None)
            for d in case.distractors:
                facts.setdefault((d["content"], d.get("topic", "general")), None)
        for b in background_distractors(BACKGROUND):
            facts.setdefault((b["content"], b["topic"]), None)
        pool = [fact for fact in facts if fact[1] not in GATED]
        row = {fact: i for i, fact in enumerate(pool)}
        self.name = name
        self.cases = cases
        self.pool = np.stack([vectors[content] for content, _ in pool])
        self.queries = np.stack([vectors[case.query["content"]] for case in cases])
        self.targets = np.array(
            [row.get((c.target["content"], c.target.get("topic", "general")), -1) for c in cases]
        )


def _normalized(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    norms = np.linalg.norm(z, axis=1, keepdims=True)
    return z / norms, norms


def loss_and_gradient(
    w: np.ndarray, sets: list[SetData], penalty: float, tau: float
) -> tuple[float, np.ndarray]:
    """Mean cross-entropy of each new fact's memory among its set's pool (cosine / tau), plus
    penalty * ||W - I||^2; and its gradient in W."""
    eye = np.eye(w.shape[0], dtype=w.dtype)
    total = sum(int((s.targets >= 0).sum()) for s in sets)
    loss = 0.0
    grad = 2 * penalty * (w - eye)
    for s in sets:
        keep = s.targets >= 0
        q, targets = s.queries[keep], s.targets[keep]
        uq, rq = _normalized(q @ w.T)
        up, rp = _normalized(s.pool @ w.T)
        logits = uq @ up.T / tau
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=1, keepdims=True)
        loss -= float(np.log(probs[np.arange(len(targets)), targets]).sum()) / total
        d_logits = probs
        d_logits[np.arange(len(targets)), targets] -= 1.0
        d_logits /= total
        d_uq = d_logits @ up / tau
        d_up = d_logits.T @ uq / tau
        # through u = z / |z|: dz = (du - u (u . du)) / |z|
        d_zq = (d_uq - uq * (uq * d_uq).sum(axis=1, keepdims=True)) / rq
        d_zp = (d_up - up * (up * d_up).sum(axis=1, keepdims=True)) / rp
        grad += d_zq.T @ q + d_zp.T @ s.pool
    return loss + penalty * float(((w - eye) ** 2).sum()), grad


def learn(
    sets: list[SetData], penalty: float, steps: int, tau: float = 0.05, rate: float = 0.01
) -> np.ndarray:
    """W from the identity by Adam."""
    dim = sets[0].pool.shape[1]
    w = np.eye(dim)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    for step in range(1, steps + 1):
        _, g = loss_and_gradient(w, sets, penalty, tau)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        w -= rate * (m / (1 - beta1**step)) / (np.sqrt(v / (1 - beta2**step)) + eps)
    return w


def vector_hits(s: SetData, w: np.ndarray | None) -> int:
    q, pool = (s.queries, s.pool) if w is None else (s.queries @ w.T, s.pool @ w.T)
    sims = _normalized(q)[0] @ _normalized(pool)[0].T
    top = np.argsort(-sims, axis=1)[:, :3]
    return int(sum(t >= 0 and t in row for t, row in zip(s.targets, top, strict=True)))


def hybrid_hits(s: SetData, w: np.ndarray | None, url: str) -> int:
    """Recall@3 hits of the service's hybrid candidate search, as `aurra eval` measures it."""
    from pgvector import Vector

    from aurra_core.embedders.minilm import MiniLMEmbedder
    from aurra_core.runtime.config import get_config
    from aurra_local.candidate_recall import _measure_embedder

    class Adapted(MiniLMEmbedder):
        def embed(self, text: str) -> Vector:
            vector = np.asarray(super().embed(text).to_numpy(), dtype=np.float64)
            if w is not None:
                vector = w @ vector
                vector /= np.linalg.norm(vector)
            return Vector(vector.astype(np.float32))

    floor = get_config().model_copy(update={"embedder": "minilm"}).candidate_floor
    report = _measure_embedder(s.cases, BACKGROUND, url, Adapted(), floor)
    return round(report["hybrid"]["recall_at_3"] * len(s.cases))


def _row(name: str, penalty: float, cases: int, hits: Any, *, hybrid: bool) -> str:
    measured = f"{hits[2]} / {hits[3]}" if hybrid else "not measured"
    return f"{name} | {penalty} | {cases} | {hits[0]} / {hits[1]} | {measured}"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--penalty", default="0.01,0.1", help="L2 weights on W - I, comma-separated")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--no-hybrid", action="store_true", help="vector recall only (no database)")
    args = parser.parse_args()

    from aurra_core.embedders.minilm import MiniLMEmbedder
    from aurra_local.candidate_recall import background_distractors, load_recall_cases

    cases = {name: load_recall_cases(ROOT / "evals" / f"{name}.jsonl") for name in DEV_SETS}
    texts: dict[str, None] = {}
    for set_cases in cases.values():
        for case in set_cases:
            for fact in (case.query, case.target, *case.distractors):
                texts.setdefault(fact["content"], None)
    for b in background_distractors(BACKGROUND):
        texts.setdefault(b["content"], None)
    started = time.perf_counter()
    embedded = MiniLMEmbedder().embed_many(list(texts)).astype(np.float64)
    vectors = dict(zip(texts, embedded, strict=True))
    print(f"{len(texts)} texts embedded in {time.perf_counter() - started:.1f} s", flush=True)
    data = {name: SetData(name, cases[name], vectors) for name in DEV_SETS}

    url = None
    if not args.no_hybrid:
        from aurra_core.runtime.config import get_config
        from aurra_core.storage.migrate import apply_migrations
        from aurra_local.embedded_postgres import EmbeddedPostgres

        url = EmbeddedPostgres(Path(tempfile.mkdtemp(prefix="aurra-adapter-")) / "pgdata").url
        apply_migrations(url, get_config().embedding_dim)

    print("held out | penalty | cases | vector without / with W | hybrid without / with W", flush=True)
    for penalty in (float(p) for p in args.penalty.split(",")):
        sums = np.zeros(4, dtype=int)
        for held in DEV_SETS:
            w = learn([data[n] for n in DEV_SETS if n != held], penalty, args.steps)
            row = [vector_hits(data[held], None), vector_hits(data[held], w)]
            row += [hybrid_hits(data[held], None, url), hybrid_hits(data[held], w, url)] if url else [0, 0]
            sums += row
            print(_row(held, penalty, len(data[held].cases), row, hybrid=url is not None), flush=True)
        print(
            _row("all four", penalty, sum(len(d.cases) for d in data.values()), sums, hybrid=url is not None)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
