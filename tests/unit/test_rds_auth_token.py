"""The IAM token the functions sign in to RDS Proxy with, made with the standard library: the
same token boto3 makes for the same credentials, login and instant, and no boto3 loaded to
make it from Lambda's credentials."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from unittest import mock
from urllib.parse import parse_qsl, urlsplit

import boto3
import botocore.auth
import pytest

from aurra_core.storage.rds_auth_token import Credentials, rds_auth_token

ROOT = Path(__file__).resolve().parents[2]
PROXY = "aurra-prod.proxy-abcdefghijkl.eu-west-1.rds.amazonaws.com"
NOW = datetime(2026, 12, 2, 7, 30, 5, tzinfo=UTC)


def _boto3_token(credentials: Credentials, region: str, port: int, user: str) -> str:
    session = boto3.session.Session(
        aws_access_key_id=credentials.access_key_id,
        aws_secret_access_key=credentials.secret_access_key,
        aws_session_token=credentials.session_token,
        region_name=region,
    )
    with mock.patch.object(botocore.auth, "get_current_datetime", return_value=NOW):
        token: str = session.client("rds").generate_db_auth_token(
            DBHostname=PROXY, Port=port, DBUsername=user
        )
    return token


def _parts(token: str) -> tuple[str, str, dict[str, str]]:
    url = urlsplit("https://" + token)
    return url.netloc, url.path, dict(parse_qsl(url.query, keep_blank_values=True))


@pytest.mark.parametrize(
    ("credentials", "region", "port", "user"),
    [
        (
            Credentials("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            "eu-west-1",
            5432,
            "aurra_service",
        ),
        # Lambda's role credentials carry a session token, with characters that need encoding
        (
            Credentials("ASIAEXAMPLE", "se/cr+et=", "IQoJb3JpZ2luX2Vj+/token=="),
            "us-east-1",
            5433,
            "aurra_key_admin",
        ),
    ],
)
def test_the_token_is_the_one_boto3_signs(
    credentials: Credentials, region: str, port: int, user: str
) -> None:
    ours = rds_auth_token(credentials, region, PROXY, port, user, now=NOW)
    theirs = _boto3_token(credentials, region, port, user)
    # The same request, signed alike; only the order of the query's parameters may differ.
    assert _parts(ours) == _parts(theirs)
    assert _parts(ours)[2]["X-Amz-Signature"] == _parts(theirs)[2]["X-Amz-Signature"]


def test_the_token_is_signed_for_the_instant_given_in_utc() -> None:
    credentials = Credentials("AKIAIOSFODNN7EXAMPLE", "secret")
    in_berlin = NOW.astimezone(timezone(timedelta(hours=1)))
    assert rds_auth_token(credentials, "eu-west-1", PROXY, 5432, "u", now=in_berlin) == rds_auth_token(
        credentials, "eu-west-1", PROXY, 5432, "u", now=NOW
    )
    later = rds_auth_token(credentials, "eu-west-1", PROXY, 5432, "u", now=NOW + timedelta(seconds=1))
    assert _parts(later)[2]["X-Amz-Date"] == "20261202T073006Z"


def test_a_function_with_lambdas_credentials_signs_without_loading_boto3() -> None:
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "layers/core/python"), os.environ.get("PYTHONPATH", "")]),
        "AWS_REGION": "eu-west-1",
        "AWS_ACCESS_KEY_ID": "ASIAEXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "secret",
        "AWS_SESSION_TOKEN": "token",
        "AURRA_DB_USER": "aurra_service",
        "AURRA_DB_HOST": PROXY,
    }
    environment.pop("AURRA_DATABASE_URL", None)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys\n"
            "from aurra_core.runtime.config import get_config\n"
            "from aurra_core.storage.db import iam_password\n"
            "token = iam_password(get_config())()['password']\n"
            "print(json.dumps({'token': token, 'loaded': [m for m in ('boto3', 'botocore') if m in sys.modules]}))",
        ],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["loaded"] == []
    netloc, _, query = _parts(result["token"])
    assert netloc == f"{PROXY}:5432"
    assert query["DBUser"] == "aurra_service" and query["X-Amz-Security-Token"] == "token"
    assert (
        query["X-Amz-Credential"].startswith("ASIAEXAMPLE/")
        and "/eu-west-1/rds-db/" in query["X-Amz-Credential"]
    )
