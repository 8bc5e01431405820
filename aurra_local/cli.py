"""The `aurra` command: run Aurra locally, create keys, invoke handlers, migrate."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

from aurra_local.environment import apply_local_defaults

if TYPE_CHECKING:
    from aurra_core.access.admin import AdminAction, AdminResult

DEFAULT_DATA_DIR = Path(".aurra")
# Found from the working directory: a checkout's root, or wherever a user keeps their own.
DEFAULT_DATASET = Path("evals") / "cases.jsonl"
DEFAULT_EXTRACTION_DATASET = Path("evals") / "extraction.jsonl"
DEFAULT_CONVERSATIONS = Path("evals") / "conversations.jsonl"
DEFAULT_SECRETS_DATASET = Path("evals") / "secrets.jsonl"
DEFAULT_SENSITIVE_TOPICS_DATASET = Path("evals") / "sensitive_topics_dev.jsonl"


class CliError(Exception):
    """A problem with what the user asked for: one line on stderr, exit code 2, no traceback."""


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise CliError(f"no {what} at {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CliError(f"{path} is not a readable JSON {what}: {exc}") from None


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
    from aurra_core.runtime.config import get_config
    from aurra_core.storage.migrate import apply_migrations

    return apply_migrations(url, get_config().embedding_dim)


def _create_key(tenant: str, name: str | None = None) -> str:
    from aurra_core.access import admin

    issued = admin.perform(admin.CreateKey(tenant=tenant, name=name))
    assert isinstance(issued, admin.IssuedKey)
    return issued.key


def _dev_key(data_dir: Path) -> str:
    """The same dev key across restarts, kept beside the local database (never in AWS)."""
    path = data_dir / "dev-key"
    # With AURRA_DATABASE_URL set no embedded server created the data directory.
    data_dir.mkdir(parents=True, exist_ok=True)
    if path.exists():
        from aurra_core import service
        from aurra_core.errors import Unauthorized

        raw = path.read_text().strip()
        try:
            service.authenticate(raw)
            return raw
        except Unauthorized:
            pass
    raw = _create_key("dev", "dev key")
    path.write_text(raw + "\n")
    path.chmod(0o600)
    return raw


def _cursor_secret(data_dir: Path) -> None:
    """The key that signs this data directory's pagination cursors, made once and kept beside
    its database, so cursors survive a restart; AURRA_CURSOR_SECRET, when set, wins."""
    if os.environ.get("AURRA_CURSOR_SECRET"):
        return
    import secrets

    path = data_dir / "cursor-secret"
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(32) + "\n")
        path.chmod(0o600)
    os.environ["AURRA_CURSOR_SECRET"] = path.read_text().strip()
    from aurra_core.runtime.config import reset_config

    reset_config()


def dev_classifier_processes() -> int:
    """`aurra dev`'s rules classifier: a process for each core, up to 4, when there are several
    (writes in flight together classify side by side); in the server's own threads on one core."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(cores, 4) if cores > 1 else 0


def cmd_dev(args: argparse.Namespace) -> int:
    from aurra_core.embedders import get_embedder
    from aurra_core.runtime.config import get_config
    from aurra_local import gateway
    from aurra_local.server import serve

    gateway.throttle = gateway.Throttle(args.throttle_rps, args.throttle_burst)
    if args.classifier_processes is not None:
        os.environ["AURRA_CLASSIFIER_PROCESSES"] = str(args.classifier_processes)
    else:
        os.environ.setdefault("AURRA_CLASSIFIER_PROCESSES", str(dev_classifier_processes()))
    # Webhooks to a receiver on this machine (http://localhost:...) are allowed here, never in AWS.
    os.environ.setdefault("AURRA_WEBHOOKS_ALLOW_PRIVATE", "true")
    url = _database_url(args.data_dir)
    _cursor_secret(args.data_dir)
    applied = _migrate(url)
    key = _dev_key(args.data_dir)
    config = get_config()
    # The offline models read their weights now (MPNet's take seconds), not on the first write.
    load_weights = getattr(get_embedder(), "load", None)
    if load_weights is not None:
        load_weights()
    server = serve(
        args.host,
        args.port,
        log_search_text=args.log_search_text,
        timeout_s=args.timeout,
        head_timeout_s=args.header_timeout,
    )
    from aurra_core.storage.db import Database, resolve_conninfo
    from aurra_core.webhooks.delivery import Worker

    if config.webhook_worker:
        # Webhooks, from the same outbox as GET /agent/events, on a connection of their own: the
        # worker's polling through a database outage must not hold the requests' pool or its
        # reconnection state after the outage ends.
        Worker(Database(resolve_conninfo(config), max_size=1)).start()
    from aurra_core.storage import index_build_requests
    from aurra_local.index_builder import IndexBuilder

    # A large import's own index (POST /agent/imports/index), built as the table's owner.
    index_build_requests.listen(IndexBuilder(url).start().wake)
    if config.level2_worker:
        # Asynchronous Level 2's jobs, decided in this process as writes commit them, on
        # connections of their own for the same reason.
        from aurra_core import service

        service.level2_worker(
            Database(resolve_conninfo(config), max_size=config.level2_worker_concurrency + 1)
        ).start()
    host, port = args.host, server.effective_port
    print(
        f"aurra dev: database ready ({'applied ' + ', '.join(applied) if applied else 'schema up to date'})"
    )
    in_processes = (
        f" in {config.classifier_processes} processes"
        if config.classifier == "rules" and config.classifier_processes
        else ""
    )
    print(
        f"aurra dev: classifier={config.classifier}{in_processes} embedder={config.embedder} "
        f"level2_enabled={config.level2_enabled}"
    )
    print(f"aurra dev: dev API key: {key}")
    print(f"aurra dev: console at http://{host}:{port}/console/ (sign in with the dev API key)")
    print(f"aurra dev: listening on http://{host}:{port}", flush=True)
    # A plain `kill` must stop the embedded PostgreSQL too, as Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


def _admin(args: argparse.Namespace, action: AdminAction) -> AdminResult:
    """Run a key action locally, or in a deployed stage through its admin function."""
    if args.stage:
        from aurra_local.remote import invoke_admin

        return invoke_admin(args.stage, action)
    from aurra_core.access import admin

    _migrate(_database_url(args.data_dir))
    return admin.perform(action)


def _key_action(args: argparse.Namespace) -> AdminAction:
    from aurra_core.access import admin

    if args.keys_command == "create":
        return admin.CreateKey(tenant=args.tenant, name=args.name)
    if args.keys_command == "list":
        return admin.ListKeys(tenant=args.tenant)
    if args.keys_command == "revoke":
        return admin.RevokeKey(key_id=args.key_id)
    return admin.RotateKey(key_id=args.key_id)


def cmd_keys(args: argparse.Namespace) -> int:
    from aurra_core.access.admin import IssuedKey, KeyList, RevokedKey

    try:
        result = _admin(args, _key_action(args))
    except Exception as exc:  # noqa: BLE001 - a CLI reports, it does not crash
        print(f"aurra keys {args.keys_command}: {exc}", file=sys.stderr)
        return 1
    if isinstance(result, KeyList):
        for key in result.keys:
            state = f"revoked {key.revoked_at}" if key.revoked_at else "active"
            print(f"{key.id}  {key.prefix}...  {key.name or '-'}  created {key.created_at}  {state}")
        return 0
    if isinstance(result, RevokedKey):
        print(f"revoked {result.id} at {result.revoked_at}")
        return 0
    assert isinstance(result, IssuedKey)
    if result.revoked_key_id is not None:
        print(f"revoked {result.revoked_key_id}; the new key {result.key_id} is shown once:")
    else:
        print(f"created key {result.key_id} for tenant {args.tenant!r}; it is shown once:")
    print(result.key)
    return 0


def cmd_invoke(args: argparse.Namespace) -> int:
    from aurra_local import gateway, lambda_functions

    if args.function not in lambda_functions.function_names():
        raise CliError(
            f"unknown function {args.function!r}; one of {', '.join(lambda_functions.function_names())}"
        )
    event = _read_json(Path(args.event), "event")
    _migrate(_database_url(args.data_dir))
    try:
        result = gateway.invoke(args.function, event, time_left_s=args.time_left)
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


def cmd_worker(args: argparse.Namespace) -> int:
    """Decide asynchronous Level 2 jobs of the database at --database-url until stopped."""
    import threading

    from aurra_core import service
    from aurra_core.runtime.config import get_config, reset_config
    from aurra_core.storage.db import Database

    url = args.database_url or os.environ.get("AURRA_DATABASE_URL")
    if not url:
        raise CliError("give --database-url or set AURRA_DATABASE_URL")
    os.environ["AURRA_DATABASE_URL"] = url
    reset_config()
    config = get_config()
    worker = service.level2_worker(Database(url, max_size=config.level2_worker_concurrency + 1))
    worker.interval_s = args.interval
    worker.start()
    print(
        f"aurra worker: deciding Level 2 jobs (classifier={config.classifier}, "
        f"level2_enabled={config.level2_enabled}, {worker.concurrency} at a time)",
        flush=True,
    )
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C stops it as SIGTERM does
        stopped.wait()
    worker.stop()
    worker.join(timeout=10)
    return 0


def cmd_tenant_indexes(args: argparse.Namespace) -> int:
    from aurra_core.runtime.config import get_config
    from aurra_core.storage.tenant_indexes import maintain

    url = _database_url(args.data_dir)
    _migrate(url)
    report = maintain(url, limit=args.limit if args.limit is not None else get_config().tenant_index_limit)
    print(json.dumps(report.as_dict(), indent=2))
    return 0


def _candidate_recall(args: argparse.Namespace) -> int:
    from aurra_local import candidate_recall

    cases = [
        case
        for name in args.candidate_sets.split(",")
        for case in candidate_recall.load_recall_cases(Path(name))
    ]
    url = _database_url(args.data_dir)
    _migrate(url)
    embedders = args.embedders.split(",") if args.embedders else None
    result = candidate_recall.measure(cases, args.distractors, url, embedders)
    print(json.dumps(result) if args.json else candidate_recall.format_report(result))
    return 0


def _dataset(given: str | None, default: Path) -> Path:
    """The --dataset file, or the default one in the working directory; missing: one line."""
    dataset = Path(given) if given else default
    if not dataset.is_file():
        hint = "" if given else " (run from the repository root, or pass --dataset FILE)"
        raise CliError(f"no dataset at {dataset}{hint}")
    return dataset


def _conversations(args: argparse.Namespace) -> int:
    """The pipeline end to end on conversations: a measurement, exit 0 whatever the figures."""
    from aurra_local import evaluate_conversations

    dataset = Path(args.conversations)
    if not dataset.is_file():
        raise CliError(f"no conversations at {dataset} (run from the repository root, or pass a FILE)")
    try:
        profiles = evaluate_conversations.load_profiles(dataset)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    _migrate(_database_url(args.data_dir))
    _cursor_secret(args.data_dir)
    report = evaluate_conversations.evaluate(
        profiles, classifier=args.classifier, extractor=args.extractor, dataset=str(dataset)
    ).as_dict(details=not args.blind)
    print(json.dumps(report) if args.json else evaluate_conversations.format_report(report))
    return 0


def _secrets(args: argparse.Namespace) -> int:
    from aurra_local import evaluate_secrets

    dataset = _dataset(args.dataset, DEFAULT_SECRETS_DATASET)
    try:
        texts = evaluate_secrets.load_texts(dataset)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    report = evaluate_secrets.evaluate(texts)
    print(json.dumps(report) if args.json else evaluate_secrets.format_report(report))
    return 0


def _sensitive_topics(args: argparse.Namespace) -> int:
    from aurra_local import evaluate_sensitive_topics

    dataset = Path(args.sensitive_topics)
    if not dataset.is_file():
        raise CliError(f"no labeled texts at {dataset} (run from the repository root, or pass a FILE)")
    try:
        texts = evaluate_sensitive_topics.load_texts(dataset)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    blind = args.blind or evaluate_sensitive_topics.is_blind(dataset)
    report = evaluate_sensitive_topics.evaluate(texts, blind=blind)
    print(json.dumps(report) if args.json else evaluate_sensitive_topics.format_report(report))
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from aurra_core.runtime.config import get_config

    if args.conversations is not None:
        return _conversations(args)
    if args.secrets:
        return _secrets(args)
    if args.sensitive_topics is not None:
        return _sensitive_topics(args)
    if args.extraction:
        from aurra_core.extractors.factory import create_extractor
        from aurra_local import evaluate_extraction

        dataset = _dataset(args.dataset, DEFAULT_EXTRACTION_DATASET)
        config = get_config().model_copy(update={"extractor": args.extractor})
        report = evaluate_extraction.evaluate(
            create_extractor(config), args.extractor, evaluate_extraction.load_conversations(dataset)
        ).as_dict()
        print(json.dumps(report) if args.json else evaluate_extraction.format_report(report))
        # The gate check is a pass/fail of its own: any medical or legal fact outside the
        # excluded topics fails the run.
        return 1 if report["gate"]["violations"] else 0

    from aurra_core.classifiers.factory import create_classifier
    from aurra_local import evaluate

    if args.compare:
        first, second = (Path(name) for name in args.compare)
        reports = [json.loads(path.read_text()) for path in (first, second)]
        print(evaluate.format_comparison(reports[0], reports[1], (first.name, second.name)))
        return 0
    if args.candidate_recall:
        return _candidate_recall(args)
    dataset = _dataset(args.dataset, DEFAULT_DATASET)
    try:
        cases = evaluate.load_cases(dataset)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    config = get_config().model_copy(update={"classifier": args.classifier})
    blind = args.blind or evaluate.is_blind(dataset)
    report = evaluate.evaluate(
        create_classifier(config), args.classifier, cases, args.min_confidence, blind=blind
    ).as_dict()
    print(json.dumps(report) if args.json else evaluate.format_report(report))
    return 0


def cmd_openapi(args: argparse.Namespace) -> int:
    from aurra_local import openapi

    text = openapi.render()
    document: Path = args.file
    if args.check:
        if not document.is_file():
            raise CliError(
                f"no OpenAPI document at {document} (run from the repository root, or pass --file)"
            )
        if document.read_text() != text:
            print(f"{document} is out of date: run `aurra openapi --write`", file=sys.stderr)
            return 1
        print("openapi document is up to date")
        return 0
    if args.write:
        document.parent.mkdir(parents=True, exist_ok=True)
        document.write_text(text)
        print(f"wrote {document}")
    else:
        sys.stdout.write(text)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from aurra.errors import AurraError
    from aurra_local import portability

    try:
        with portability.client_from_environment() as client:
            portability.export_to_file(client, args.out, user_id=args.user_id, progress=_terminal(sys.stderr))
    except (AurraError, OSError) as exc:  # no key, a refused key, no server, a path not writable
        raise CliError(f"{args.out}: {exc}") from None
    return 0


def _terminal(stream: Any) -> Any:
    """`stream` when it is a terminal (a progress bar is for a person), else None: a log or a
    pipe gets the summary alone."""
    return stream if stream.isatty() else None


def cmd_import(args: argparse.Namespace) -> int:
    from aurra.errors import AurraError
    from aurra_local import portability

    try:
        with portability.client_from_environment() as client:
            report = portability.import_file(
                client,
                args.file,
                fmt=args.format,
                auto_supersede=args.auto_supersede,
                workers=args.workers,
                progress=_terminal(sys.stderr),
                user_id=args.user_id,
                index_wait_s=args.index_wait,
            )
    except (portability.ImportFailed, AurraError, OSError) as exc:
        raise CliError(f"{args.file}: {exc}") from None
    for note in report.notes:
        print(f"aurra import: {note}", file=sys.stderr)
    skipped = ", ".join(f"{n} {kind}" for kind, n in sorted(report.skipped.items())) or "nothing"
    print(
        f"imported {report.facts:,} facts in {report.seconds:.1f} s: {report.created:,} stored, "
        f"{report.duplicates:,} duplicates; {report.links:,} supersessions linked"
        f"{f', {report.links_failed:,} not linked' if report.links_failed else ''}; skipped {skipped}"
    )
    if report.superseded:
        memories = "memory" if report.superseded == 1 else "memories"
        print(f"Level 2 superseded {report.superseded:,} {memories} as the facts came in (GET /agent/audit)")
    if report.index_deferred:
        if report.indexing == "own":
            print(f"search index built in {report.index_seconds:.1f} s")
        elif report.indexing == "shared":
            print(
                "search index: the tenant ended at 2,000 current memories or fewer, so its memories are "
                "in the shared index again, which takes them as they come"
            )
        else:
            print(
                f"search index still {report.indexing} after {report.index_seconds:.0f} s; the memories are "
                "all stored and searched exactly until it is built (GET /agent/imports/index)"
            )
    return 1 if report.links_failed else 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from aurra_local import mcp_server

    mcp_server.run(http=args.http, host=args.host, port=args.port, log_requests=args.log_requests)
    return 0


def _function_names() -> tuple[str, ...]:
    from aurra_local.lambda_functions import function_names

    return function_names()


def classifier_choices() -> tuple[str, ...]:
    from aurra_core.runtime.config import ServiceConfig

    return get_args(ServiceConfig.model_fields["classifier"].annotation)


def _process_count(value: str) -> int:
    try:
        count = int(value)
    except ValueError:
        count = -1
    if not 0 <= count <= 64:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 64, not {value}")
    return count


def _positive_seconds(text: str) -> float:
    value = float(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions keep their paragraphs; an option's help ends with its default when it has
    one (a flag's is off, and an option without one says in its own words what happens)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if not action.option_strings or "%(default)" in text or "default:" in text:
            return text
        if action.default is None or isinstance(action.default, bool) or action.default == argparse.SUPPRESS:
            return text
        return f"{text} (default: %(default)s)"


def _command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, summary: str, description: str
) -> argparse.ArgumentParser:
    """A subcommand: `summary` in its parent's list, `description` at the top of its own --help."""
    return sub.add_parser(
        name,
        help=summary,
        description=f"{summary[0].upper()}{summary[1:]}.\n\n{description}",
        formatter_class=HelpFormatter,
    )


def _data_dir(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_DATA_DIR,
        help="where the embedded PostgreSQL, the dev key and the cursor secret are kept; "
        "not used when AURRA_DATABASE_URL is set",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aurra",
        description="Aurra: memory for AI agents, run locally. `aurra COMMAND --help` describes each command.",
        formatter_class=HelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    dev = _command(
        sub,
        "dev",
        "serve the API on 127.0.0.1 with an embedded PostgreSQL",
        "Starts an embedded PostgreSQL with pgvector (unless AURRA_DATABASE_URL is set), applies the\n"
        "migrations, prints a dev API key (the same one across restarts) and serves the API, the\n"
        "console at /console/ and a Swagger UI at /docs. Each request runs the real authorizer and\n"
        "the route's handler, as in AWS. Automatic supersession stays off until\n"
        "AURRA_LEVEL2_ENABLED=true.",
    )
    dev.add_argument("--port", type=int, default=3000, help="the port to listen on (0: any free port)")
    dev.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    _data_dir(dev)
    dev.add_argument(
        "--throttle-rps",
        type=float,
        default=0.0,
        help="per-key request rate, like a usage plan's throttle (0: off)",
    )
    dev.add_argument(
        "--throttle-burst", type=int, default=10, help="per-key burst above --throttle-rps, when it is on"
    )
    dev.add_argument(
        "--classifier-processes",
        type=_process_count,
        metavar="N",
        default=None,
        help="worker processes for the rules classifier, and a batch's lexical embedding and "
        "credential scans, so that writes in flight together use several cores (0: in the "
        "server's threads; default: AURRA_CLASSIFIER_PROCESSES, else a process for each core, "
        "up to 4, on a host with more than one)",
    )
    dev.add_argument(
        "--timeout", type=int, default=30, help="seconds before an idle or stalled connection is closed"
    )
    dev.add_argument(
        "--header-timeout",
        type=_positive_seconds,
        default=10.0,
        help="seconds from a request's first byte by which its whole head (request line and headers) "
        "must have arrived; later, it is answered 408 and the connection closed",
    )
    dev.add_argument(
        "--log-search-text",
        action="store_true",
        help="write the q= search text into the access log (redacted by default)",
    )
    dev.set_defaults(func=cmd_dev)

    keys_command = _command(
        sub,
        "keys",
        "API keys, locally or in a deployed --stage",
        "Creates, lists, revokes and rotates API keys: in the local database (the one `aurra dev`\n"
        "uses), or with --stage in a deployed stage through its admin function (your AWS\n"
        "credentials). A key is printed once, as the last line.",
    )
    keys = keys_command.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    for action, text, description in (
        ("create", "create a key; the key is the last line printed", "A new key for a tenant."),
        ("list", "list a tenant's keys", "Each key's id, prefix, name, creation time and state."),
        (
            "revoke",
            "refuse a key from now on",
            "Locally at once; in a deployed stage within the authorizer's cache time (300 s by default).",
        ),
        (
            "rotate",
            "replace a key; the new one is the last line",
            "A new key with the same tenant and settings; the old one is refused at once.",
        ),
    ):
        command = _command(keys, action, text, description)
        if action in ("create", "list"):
            command.add_argument("--tenant", required=True, help="the tenant's name")
        if action == "create":
            command.add_argument("--name", help="a label for the key, shown by `keys list` (default: none)")
        if action in ("revoke", "rotate"):
            command.add_argument("key_id", help="the key's id, as `keys list` shows it")
        command.add_argument(
            "--stage",
            help="a deployed stage (uses your AWS credentials) (default: none, the local database)",
        )
        _data_dir(command)
        command.set_defaults(func=cmd_keys)

    invoke = _command(
        sub,
        "invoke",
        "run one handler on an event fixture",
        "Runs one Lambda function's handler on an API Gateway or scheduled event read from a JSON\n"
        "file (events/ has one per route, and the maintenance and dispatcher functions'\n"
        "schedules), against the local database, and prints its result.",
    )
    invoke.add_argument("function", help="one of: " + ", ".join(_function_names()))
    invoke.add_argument(
        "--event", "-e", required=True, help="the event's JSON file, e.g. events/write_memory.json"
    )
    invoke.add_argument(
        "--time-left",
        type=float,
        default=30.0,
        help="seconds the handler's context says are left, as Lambda's timeout would; the "
        "dispatcher drains until 10 s before it (default: 30.0)",
    )
    _data_dir(invoke)
    invoke.set_defaults(func=cmd_invoke)

    evaluation = _command(
        sub,
        "eval",
        "measure a classifier (or --extraction, an extractor; --secrets, the credentials detector) on labeled cases",
        "Prints the precision and recall of the contradicts verdicts a classifier acts on, its\n"
        "duplicate precision, a reliability table and per-category figures. --extraction measures\n"
        "an extractor instead, --secrets the credentials detector, --candidate-recall the candidate\n"
        "search, --compare two saved runs.",
    )
    evaluation.add_argument(
        "--dataset",
        help=f"the labeled cases (default: {DEFAULT_DATASET}, or {DEFAULT_EXTRACTION_DATASET} with --extraction, "
        f"{DEFAULT_SECRETS_DATASET} with --secrets)",
    )
    evaluation.add_argument(
        "--classifier", choices=classifier_choices(), default="rules", help="the classifier to measure"
    )
    evaluation.add_argument(
        "--min-confidence",
        type=float,
        default=0.85,
        help="the confidence at or above which a verdict is acted on",
    )
    evaluation.add_argument("--json", action="store_true", help="print the report as JSON")
    evaluation.add_argument(
        "--blind",
        action="store_true",
        help="aggregate figures only, no case printed (always so for evals/frozen*.jsonl)",
    )
    evaluation.add_argument(
        "--compare",
        nargs=2,
        metavar=("A.json", "B.json"),
        help="print two saved --json reports side by side, per category",
    )
    evaluation.add_argument(
        "--candidate-recall",
        action="store_true",
        help="instead: how often the old fact reaches the top 3 candidates among distractors",
    )
    evaluation.add_argument(
        "--distractors", type=int, default=300, help="background memories (candidate recall)"
    )
    evaluation.add_argument(
        "--candidate-sets",
        default="evals/candidates.jsonl,evals/cases.jsonl,evals/heldout.jsonl",
        help="candidate recall: comma-separated case files (candidate cases, or labeled pairs)",
    )
    evaluation.add_argument(
        "--embedders", help="candidate recall: comma-separated embedders to compare (default: AURRA_EMBEDDER)"
    )
    evaluation.add_argument(
        "--extraction",
        action="store_true",
        help="instead: an extractor's fact precision and recall on labeled conversations, and the topic gate",
    )
    evaluation.add_argument(
        "--extractor",
        choices=classifier_choices(),
        default="rules",
        help="the extractor --extraction and --conversations measure",
    )
    evaluation.add_argument(
        "--conversations",
        nargs="?",
        const=str(DEFAULT_CONVERSATIONS),
        metavar="FILE",
        help=f"instead: the pipeline end to end on multi-session conversations (default {DEFAULT_CONVERSATIONS}): "
        "update tests, extraction, forbidden facts, the topic gate; with --extractor and --classifier",
    )
    evaluation.add_argument(
        "--secrets",
        action="store_true",
        help="instead: the credentials detector's precision and recall per kind on labeled texts",
    )
    evaluation.add_argument(
        "--sensitive-topics",
        nargs="?",
        const=str(DEFAULT_SENSITIVE_TOPICS_DATASET),
        metavar="FILE",
        help=f"instead: the medical and legal topic gate's recall on labeled texts (default {DEFAULT_SENSITIVE_TOPICS_DATASET}), "
        "per label, language and form, and the look-alikes it gates",
    )
    _data_dir(evaluation)
    evaluation.set_defaults(func=cmd_eval)

    spec = _command(
        sub,
        "openapi",
        "print (or --write, --check) the merged OpenAPI document",
        "The OpenAPI document of every route, merged from the handlers; `aurra dev` serves the\n"
        "same at /openapi.json.",
    )
    spec.add_argument("--write", action="store_true", help="write it to --file")
    spec.add_argument("--check", action="store_true", help="fail when --file is out of date")
    spec.add_argument(
        "--file", type=Path, default=Path("docs") / "openapi.json", help="the committed document"
    )
    spec.set_defaults(func=cmd_openapi)

    migrate = _command(
        sub,
        "migrate",
        "apply migrations to AURRA_DATABASE_URL",
        "Applies the migrations not yet applied to the PostgreSQL (with pgvector) that\n"
        "AURRA_DATABASE_URL names, and prints which. `aurra dev` migrates its own database itself.\n"
        "The vector column takes AURRA_EMBEDDING_DIM (default 384) when the database is first\n"
        "migrated. No options.",
    )
    migrate.set_defaults(func=cmd_migrate)

    level2 = _command(
        sub,
        "worker",
        'decide asynchronous Level 2 jobs (auto_supersede "async") of any database',
        "Runs, as a process of its own, the worker that `aurra dev` runs inside: it claims each job\n"
        '(auto_supersede: "async", or a key\'s auto_supersede_mode "async"), classifies the\n'
        "job's fact against its candidates and records the decision (an audit event and a change\n"
        "stream event, so webhooks). Until stopped (Ctrl-C). Several may run at once: a job is\n"
        "claimed by one at a time and applied once. The database must be migrated (`aurra migrate`).\n"
        "Configuration is the service's (AURRA_CLASSIFIER, AURRA_LEVEL2_ENABLED, ...);\n"
        "AURRA_LEVEL2_WORKER_CONCURRENCY jobs at a time (default 4).",
    )
    level2.add_argument(
        "--database-url",
        help="the PostgreSQL (with pgvector) to work on, a libpq URL (default: AURRA_DATABASE_URL)",
    )
    level2.add_argument(
        "--interval",
        type=_positive_seconds,
        default=1.0,
        help="seconds between two looks for jobs written by other processes (its own nudges wake it at once)",
    )
    level2.set_defaults(func=cmd_worker)

    indexes = _command(
        sub,
        "tenant-indexes",
        "build (or drop) large tenants' own HNSW indexes, as the scheduled maintenance function does",
        "Gives each tenant with more than 2,000 current memories its own HNSW index (its rows out of\n"
        "the shared one), calibrates it, and drops the ones no longer needed, then prints a report.",
    )
    _data_dir(indexes)
    indexes.add_argument(
        "--limit", type=int, help="at most this many tenants get one (default: AURRA_TENANT_INDEX_LIMIT)"
    )
    indexes.set_defaults(func=cmd_tenant_indexes)

    export = _command(
        sub,
        "export",
        "the tenant's memories and audit trail to an NDJSON file, through the API",
        "GET /agent/export through the API at AURRA_BASE_URL with the key AURRA_API_KEY, every\n"
        "response appended to FILE. Interrupted, run it again: it resumes where it stopped\n"
        "(FILE.cursor). The format is in docs/portability.md.",
    )
    export.add_argument("--out", type=Path, required=True, help="the file to write")
    export.add_argument("--user-id", help="only this user's memories and their audit events")
    export.set_defaults(func=cmd_export)

    load = _command(
        sub,
        "import",
        "facts from an Aurra export, a JSON Lines file, Mem0 or Zep, through the API",
        "Batch writes (POST /agent/memories/batch) through the API at AURRA_BASE_URL with the key\n"
        "AURRA_API_KEY, a progress bar on stderr when it is a terminal. Each batch's\n"
        "Idempotency-Key comes from its place in the file and its content: interrupted, run it\n"
        "again and nothing is stored twice (within 24 hours). `aurra` reads `aurra export`'s\n"
        "file; `jsonl` one fact a line: {content, topic?, valid_from?, valid_to?, metadata?,\n"
        "user_id?, agent_id?, source?}; `mem0` Mem0's memories (get_all) and their history;\n"
        "`zep` Zep / Graphiti entity edges. Original dates become valid time, supersessions\n"
        "are linked again, the originals kept under metadata.imported. See docs/portability.md.",
    )
    load.add_argument("file", type=Path, help="the file to import")
    load.add_argument(
        "--format", choices=("aurra", "jsonl", "mem0", "zep"), default="aurra", help="the file's format"
    )
    load.add_argument(
        "--auto-supersede",
        action="store_true",
        help="ask for automatic supersession: each scope's facts in valid-time order, batch after"
        " batch, scopes side by side (otherwise Level 2 is off; never for an Aurra export)",
    )
    load.add_argument(
        "--user-id", help="mem0 and zep: the user_id of records that name none (Zep: no group_id)"
    )
    load.add_argument(
        "--index-wait",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="a large import (with --auto-supersede, one whose scopes each stay at or under 2,000"
        " memories) defers the tenant's search index to its end:"
        " wait at most this long for it to be built (0: don't wait; the memories are stored and"
        " searched exactly until it is)",
    )
    load.add_argument(
        "--workers",
        type=int,
        default=4,
        help="batches in flight at once (with --auto-supersede, of different scopes)",
    )
    load.set_defaults(func=cmd_import)

    mcp = _command(
        sub,
        "mcp",
        "an MCP server over the API (AURRA_API_KEY, AURRA_BASE_URL): stdio, or --http",
        "Aurra as the memory of any agent that speaks MCP, through the API at AURRA_BASE_URL with\n"
        "the key AURRA_API_KEY. Over stdio by default (what desktop clients start); with --http,\n"
        "streamable HTTP at http://HOST:PORT/mcp, where each request may bring its own key in its\n"
        "Authorization header. See docs/mcp.md.",
    )
    mcp.add_argument("--http", action="store_true", help="streamable HTTP at http://HOST:PORT/mcp")
    mcp.add_argument("--host", default="127.0.0.1", help="with --http, the address to listen on")
    mcp.add_argument("--port", type=int, default=8765, help="with --http, the port to listen on")
    mcp.add_argument(
        "--log-requests",
        action="store_true",
        help="log each request to the Aurra API on stderr (otherwise only warnings and errors)",
    )
    mcp.set_defaults(func=cmd_mcp)
    return parser


def main(argv: list[str] | None = None) -> int:
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
    args = build_parser().parse_args(argv)
    apply_local_defaults()
    try:
        return int(args.func(args))
    except CliError as exc:
        print(f"aurra {args.command}: {exc}", file=sys.stderr)
        return 2
    finally:
        from aurra_core.service import reset

        reset()  # close the pool before the embedded PostgreSQL stops at exit


if __name__ == "__main__":
    raise SystemExit(main())
