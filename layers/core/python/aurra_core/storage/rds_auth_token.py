"""An RDS IAM authentication token, signed with the standard library.

The functions sign in to RDS Proxy with a token instead of a password: a SigV4 presigned
`connect` request for the login, valid 15 minutes, made locally from the function's
credentials. boto3 makes the same token, but importing it and creating its RDS client cost
150-170 ms of CPU on the first request of every function that reaches the database, the
authorizer in front of every cold API call among them (bench/iam_token.py). Lambda hands a
function its role's credentials in the environment (`ServiceConfig.aws_access_key_id` and the
two beside it); anywhere they are not there (a profile, an instance role), `db.iam_password`
signs with boto3 instead.

tests/unit/test_rds_auth_token.py checks the token against boto3's for the same credentials,
login and instant.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote

SERVICE = "rds-db"
EXPIRES_S = 900


@dataclass(frozen=True)
class Credentials:
    access_key_id: str
    secret_access_key: str
    session_token: str | None = None


def _encode(value: str) -> str:
    return quote(value, safe="-_.~")


def _hmac(key: bytes, message: str) -> bytes:
    return hmac.new(key, message.encode(), hashlib.sha256).digest()


def rds_auth_token(
    credentials: Credentials, region: str, host: str, port: int, user: str, now: datetime | None = None
) -> str:
    """`host:port/?Action=connect&DBUser=...&X-Amz-...`: the password RDS and RDS Proxy accept
    for `user` until 15 minutes after `now`."""
    now = (now or datetime.now(UTC)).astimezone(UTC)
    timestamp = now.strftime("%Y%m%dT%H%M%SZ")
    day = timestamp[:8]
    scope = f"{day}/{region}/{SERVICE}/aws4_request"
    endpoint = f"{host}:{port}"
    params = {
        "Action": "connect",
        "DBUser": user,
        "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
        "X-Amz-Credential": f"{credentials.access_key_id}/{scope}",
        "X-Amz-Date": timestamp,
        "X-Amz-Expires": str(EXPIRES_S),
        "X-Amz-SignedHeaders": "host",
    }
    if credentials.session_token:
        params["X-Amz-Security-Token"] = credentials.session_token
    query = "&".join(f"{k}={v}" for k, v in sorted((_encode(k), _encode(v)) for k, v in params.items()))
    # A presigned request signs no body: its payload is the empty string's hash.
    canonical_request = "\n".join(
        ["GET", "/", query, f"host:{endpoint}", "", "host", hashlib.sha256(b"").hexdigest()]
    )
    to_sign = "\n".join(
        ["AWS4-HMAC-SHA256", timestamp, scope, hashlib.sha256(canonical_request.encode()).hexdigest()]
    )
    key = ("AWS4" + credentials.secret_access_key).encode()
    for part in (day, region, SERVICE, "aws4_request"):
        key = _hmac(key, part)
    signature = _hmac(key, to_sign).hex()
    return f"{endpoint}/?{query}&X-Amz-Signature={signature}"
