"""How `aurra import --auto-supersede` deals a file's facts into lanes (aurra_local.portability):
every scope in one lane, its facts together and in valid-time order, and the same lanes whatever
the run."""

import random

from aurra_local.import_formats import Fact, Plan
from aurra_local.portability import LEVEL2_LANES, batches, level2_lanes


def _plan(seed: int) -> Plan:
    rng = random.Random(seed)
    facts = []
    for line in range(1, 2001):
        body: dict = {"content": f"fact {line}", "user_id": rng.choice([None, *(f"u{n}" for n in range(40))])}
        if rng.random() < 0.3:
            body["agent_id"] = rng.choice(["a", "b"])
        if rng.random() < 0.9:
            body["valid_from"] = (
                f"20{rng.randint(10, 25)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T00:00:00Z"
            )
        facts.append(Fact(body=body, line=line))
    return Plan(facts=facts)


def _scope(fact: Fact) -> tuple:
    return fact.body.get("user_id"), fact.body.get("agent_id")


def test_every_scope_is_in_one_lane_its_facts_together_in_valid_time_order():
    plan = _plan(1)
    lanes = level2_lanes(plan)
    assert 1 < len(lanes) <= LEVEL2_LANES
    assert sorted(f.line for lane in lanes for f in lane) == list(range(1, 2001))
    owner: dict[tuple, int] = {}
    for n, lane in enumerate(lanes):
        for fact in lane:
            assert owner.setdefault(_scope(fact), n) == n, _scope(fact)
        # A scope's facts follow one another: its memories' readings stay warm in the classifier.
        runs = [_scope(f) for i, f in enumerate(lane) if i == 0 or _scope(lane[i - 1]) != _scope(f)]
        assert len(runs) == len(set(runs))
        # Scopes in the order the file first names them.
        firsts = [min(f.line for f in lane if _scope(f) == scope) for scope in runs]
        assert firsts == sorted(firsts)
        for scope in runs:
            facts = [f for f in lane if _scope(f) == scope]
            dated = [f.body["valid_from"] for f in facts if "valid_from" in f.body]
            assert dated == sorted(dated)
            undated = [i for i, f in enumerate(facts) if "valid_from" not in f.body]
            # A fact without a valid_from is valid from the import's time: after every dated one.
            assert undated == list(range(len(facts) - len(undated), len(facts)))


def test_a_scope_keeps_its_lane_and_batches_whatever_else_the_file_holds():
    """A run that resumes an interrupted one sends the same batches, so their Idempotency-Keys
    answer from the record: the lanes depend on the facts alone."""
    plan = _plan(2)
    first = [[[f.line for f in b] for b in batches(lane)] for lane in level2_lanes(plan)]
    second = [
        [[f.line for f in b] for b in batches(lane)] for lane in level2_lanes(Plan(facts=list(plan.facts)))
    ]
    assert first == second
    one_user = Plan(facts=[f for f in plan.facts if _scope(f) == ("u7", None)])
    assert len(level2_lanes(one_user)) == 1
