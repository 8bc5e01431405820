"""The `aurra` command: run Aurra locally, create keys, invoke handlers, migrate."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path

from aurra_local.environment import apply_local_defaults

DEFAULT_DATA_DIR = Path(".aurra")


def _database_url(data_dir: Path) -> str:
    """AURRA_DATABASE_URL when set, else an embedded PostgreSQL kept in the data directory."""
    url = os.environ.get("AURRA_DATABASE_URL")
    if url:
        return url
    from aurra_local.embedded_postgres import EmbeddedPostgres

    url = EmbeddedPostgres(data_dir / "pgdata").url
    os.environ["AURRA_DATABASE_URL"] = url
    return url


def _migrate(url: str) -> list[str]:
    from aurra_core.config import get_settings
    from aurra_core.migrate import apply_migrations

    return apply_migrations(url, get_settings().embedding_dim)


def _create_key(tenant: str, name: str | None = None) -> str:
    from aurra_core import keys
    from aurra_core.db import get_database

    with get_database().transaction() as conn:
        _, raw = keys.create_key(conn, tenant, name)
    return raw


def _dev_key(data_dir: Path) -> str:
    """The same dev key across restarts, kept beside the local database (never in AWS)."""
    path = data_dir / "dev-key"
    if path.exists():
        from aurra_core.db import get_database
        from aurra_core.errors import Unauthorized
        from aurra_core import keys

        raw = path.read_text().strip()
        try:
            with get_database().transaction() as conn:
                keys.authenticate(conn, raw)
            return raw
        except Unauthorized:
            pass
    raw = _create_key("dev", "dev key")
    path.write_text(raw + "\n")
    path.chmod(0o600)
    return raw


def cmd_dev(args: argparse.Namespace) -> int:
    from aurra_core.config import get_settings
    from aurra_local.server import serve

    from aurra_local import gateway

    gateway.throttle = gateway.Throttle(args.throttle_rps, args.throttle_burst)
    url = _database_url(args.data_dir)
    applied = _migrate(url)
    key = _dev_key(args.data_dir)
    settings = get_settings()
    server = serve(args.host, args.port)
    host, port = server.server_address[:2]
    print(f"aurra dev: database ready ({'applied ' + ', '.join(applied) if applied else 'schema up to date'})")
    print(f"aurra dev: classifier={settings.classifier} embedder={settings.embedder} "
          f"level2_enabled={settings.level2_enabled}")
    print(f"aurra dev: dev API key: {key}")
    print(f"aurra dev: listening on http://{host}:{port}", flush=True)
    # A plain `kill` must stop the embedded PostgreSQL too, as Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def cmd_keys_create(args: argparse.Namespace) -> int:
    _migrate(_database_url(args.data_dir))
    print(f"created a key for tenant {args.tenant!r}; it is shown once:")
    print(_create_key(args.tenant, args.name))
    return 0


def cmd_invoke(args: argparse.Namespace) -> int:
    from aurra_local import gateway

    _migrate(_database_url(args.data_dir))
    event = json.loads(Path(args.event).read_text())
    try:
        result = gateway.invoke(args.function, event)
    except Exception as exc:  # noqa: BLE001 - print what Lambda would report
        print(json.dumps({"errorMessage": str(exc), "errorType": type(exc).__name__}, indent=2))
        return 1
    print(json.dumps(result, indent=2, default=str))
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    url = os.environ.get("AURRA_DATABASE_URL")
    if not url:
        print("aurra migrate: set AURRA_DATABASE_URL", file=sys.stderr)
        return 2
    applied = _migrate(url)
    print("applied: " + (", ".join(applied) if applied else "nothing (up to date)"))
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from aurra_core.config import get_settings
    from aurra_core.classifiers.factory import create_classifier
    from aurra_local import evaluate

    cases = evaluate.load_cases(Path(args.dataset))
    if args.candidate_recall:
        url = _database_url(args.data_dir)
        _migrate(url)
        result = evaluate.candidate_recall(cases, args.distractors, url)
        print(json.dumps(result, indent=None if args.json else 2))
        return 0
    settings = get_settings().model_copy(update={"classifier": args.classifier})
    report = evaluate.evaluate(create_classifier(settings), args.classifier, cases, args.min_confidence).as_dict()
    print(json.dumps(report) if args.json else evaluate.format_report(report))
    return 0


def cmd_openapi(args: argparse.Namespace) -> int:
    from aurra_local import openapi

    text = openapi.render()
    if args.check:
        current = openapi.DOCUMENT.read_text() if openapi.DOCUMENT.exists() else ""
        if current != text:
            print(f"{openapi.DOCUMENT} is out of date: run `aurra openapi --write`", file=sys.stderr)
            return 1
        print("openapi document is up to date")
        return 0
    if args.write:
        openapi.DOCUMENT.parent.mkdir(parents=True, exist_ok=True)
        openapi.DOCUMENT.write_text(text)
        print(f"wrote {openapi.DOCUMENT}")
    else:
        sys.stdout.write(text)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aurra", description="Aurra: memory for AI agents, run locally.")
    sub = parser.add_subparsers(dest="command", required=True)

    dev = sub.add_parser("dev", help="serve the API on 127.0.0.1 with an embedded PostgreSQL")
    dev.add_argument("--port", type=int, default=3000)
    dev.add_argument("--host", default="127.0.0.1")
    dev.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    dev.add_argument("--throttle-rps", type=float, default=0.0,
                     help="per-key request rate, like a usage plan's throttle (0: off)")
    dev.add_argument("--throttle-burst", type=int, default=10)
    dev.set_defaults(func=cmd_dev)

    keys = sub.add_parser("keys", help="API keys").add_subparsers(dest="keys_command", required=True)
    create = keys.add_parser("create", help="create a key; the key is the last line printed")
    create.add_argument("--tenant", required=True)
    create.add_argument("--name")
    create.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    create.set_defaults(func=cmd_keys_create)

    invoke = sub.add_parser("invoke", help="run one handler on an event fixture")
    invoke.add_argument("function")
    invoke.add_argument("--event", "-e", required=True)
    invoke.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    invoke.set_defaults(func=cmd_invoke)

    evaluation = sub.add_parser("eval", help="measure a classifier on labeled cases")
    evaluation.add_argument("--dataset", default="evals/cases.jsonl")
    evaluation.add_argument("--classifier", choices=("rules", "anthropic", "bedrock"), default="rules")
    evaluation.add_argument("--min-confidence", type=float, default=0.85)
    evaluation.add_argument("--json", action="store_true")
    evaluation.add_argument("--candidate-recall", action="store_true",
                            help="instead: how often the old fact reaches the top 3 candidates among distractors")
    evaluation.add_argument("--distractors", type=int, default=300)
    evaluation.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    evaluation.set_defaults(func=cmd_eval)

    spec = sub.add_parser("openapi", help="print (or --write, --check) the merged OpenAPI document")
    spec.add_argument("--write", action="store_true", help="write docs/openapi.json")
    spec.add_argument("--check", action="store_true", help="fail when docs/openapi.json is out of date")
    spec.set_defaults(func=cmd_openapi)

    migrate = sub.add_parser("migrate", help="apply migrations to AURRA_DATABASE_URL")
    migrate.set_defaults(func=cmd_migrate)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    apply_local_defaults()
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
