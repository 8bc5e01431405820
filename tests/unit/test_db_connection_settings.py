"""How the layer connects in AWS: `verify-full` against the CA bundle it ships, IAM tokens for
the service logins (signed per new connection, no password anywhere), and the master secret
read afresh for schema changes (so a rotated password is picked up). Secrets through moto."""

from __future__ import annotations

import json
import ssl
import time
from urllib.parse import parse_qs, urlsplit

import boto3
import pytest
from moto import mock_aws
from psycopg.conninfo import conninfo_to_dict

from aurra_core.runtime.config import ServiceConfig
from aurra_core.storage.db import CA_BUNDLE, iam_password, login_passwords, resolve_conninfo

PROXY = "aurra-prod.proxy-abcdefghijkl.eu-west-1.rds.amazonaws.com"
CLUSTER = "aurra-prod.cluster-abcdefghijkl.eu-west-1.rds.amazonaws.com"


@pytest.fixture(autouse=True)
def aws(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    for name in ("AURRA_DATABASE_URL", "AURRA_DB_USER", "AURRA_DB_HOST", "AURRA_DB_SECRET_ARN"):
        monkeypatch.delenv(name, raising=False)
    # Powertools keeps one Secrets Manager client per process: another test's (another
    # region's, another moto backend's) must not answer for this one.
    from aws_lambda_powertools.utilities.parameters import base

    base.DEFAULT_PROVIDERS.clear()
    yield
    base.DEFAULT_PROVIDERS.clear()


def test_the_ca_bundle_holds_the_rds_and_proxy_authorities_none_expired() -> None:
    context = ssl.create_default_context(cafile=str(CA_BUNDLE))
    certificates = context.get_ca_certs()
    names = {dict(part[0] for part in cert["subject"])["commonName"] for cert in certificates}
    # Aurora's certificates chain to the regional RDS CAs; RDS Proxy's to the Amazon roots
    assert {"Amazon Root CA 1", "Amazon Root CA 2", "Amazon Root CA 3", "Amazon Root CA 4"} <= names
    for region in ("us-east-1", "eu-west-1", "ap-southeast-2"):
        assert f"Amazon RDS {region} Root CA RSA2048 G1" in names, region
    assert len(certificates) >= 90
    now = time.time()
    for cert in certificates:
        assert ssl.cert_time_to_seconds(cert["notAfter"]) > now, cert["subject"]


def test_the_service_login_connects_to_the_proxy_with_verify_full_and_no_password() -> None:
    config = ServiceConfig(db_user="aurra_service", db_host=PROXY, db_name="aurra")
    info = conninfo_to_dict(resolve_conninfo(config))
    assert info["host"] == PROXY and info["user"] == "aurra_service" and info["dbname"] == "aurra"
    assert info["sslmode"] == "verify-full"
    assert info["sslrootcert"] == str(CA_BUNDLE) and CA_BUNDLE.is_file()
    assert "password" not in info


def test_each_new_connection_gets_a_fresh_iam_token_for_its_login() -> None:
    config = ServiceConfig(db_user="aurra_service", db_host=PROXY)
    make = iam_password(config)
    first = make()["password"]
    time.sleep(1.1)  # SigV4 dates are to the second
    second = make()["password"]
    assert first != second
    url = urlsplit("https://" + first)
    assert url.netloc == f"{PROXY}:5432"
    query = parse_qs(url.query)
    assert query["Action"] == ["connect"] and query["DBUser"] == ["aurra_service"]
    assert query["X-Amz-Credential"][0].split("/")[2:4] == ["eu-west-1", "rds-db"]
    assert "X-Amz-Signature" in query


def test_without_credentials_in_the_environment_boto3_signs_with_its_own(monkeypatch, tmp_path) -> None:
    # Lambda puts the role's credentials in the environment (signed with the standard library,
    # tests/unit/test_rds_auth_token.py); anywhere else boto3 finds them, here in a profile.
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    profiles = tmp_path / "credentials"
    profiles.write_text("[ops]\naws_access_key_id = AKIAFROMPROFILE\naws_secret_access_key = secret\n")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(profiles))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_PROFILE", "ops")
    # boto3's default session, made by an earlier test, keeps the profiles it read then
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    config = ServiceConfig(db_user="aurra_service", db_host=PROXY)
    assert config.aws_access_key_id is None
    query = parse_qs(urlsplit("https://" + iam_password(config)()["password"]).query)
    assert query["X-Amz-Credential"][0].startswith("AKIAFROMPROFILE/")
    assert query["DBUser"] == ["aurra_service"]


@mock_aws
def test_schema_changes_use_the_master_secret_read_afresh_with_verify_full() -> None:
    client = boto3.client("secretsmanager")
    secret = {
        "host": CLUSTER,
        "port": 5432,
        "username": "aurra_admin",
        "password": "first",
        "dbname": "aurra",
    }
    arn = client.create_secret(Name="master", SecretString=json.dumps(secret))["ARN"]
    config = ServiceConfig(db_secret_arn=arn, db_host=CLUSTER)
    info = conninfo_to_dict(resolve_conninfo(config))
    assert (info["user"], info["password"], info["sslmode"]) == ("aurra_admin", "first", "verify-full")
    assert info["sslrootcert"] == str(CA_BUNDLE)
    # rotation changed it: the next run signs in with the new one, not a cached copy
    client.put_secret_value(SecretId=arn, SecretString=json.dumps({**secret, "password": "second"}))
    assert conninfo_to_dict(resolve_conninfo(config))["password"] == "second"


@mock_aws
def test_the_migrate_function_reads_the_logins_passwords() -> None:
    client = boto3.client("secretsmanager")
    arns = [
        client.create_secret(
            Name=user, SecretString=json.dumps({"username": user, "password": f"pw-{user}"})
        )["ARN"]
        for user in ("aurra_service", "aurra_keyadmin")
    ]
    config = ServiceConfig(db_login_secret_arns=arns)
    assert login_passwords(config) == {
        "aurra_service": "pw-aurra_service",
        "aurra_keyadmin": "pw-aurra_keyadmin",
    }


def test_the_login_list_comes_from_the_environment_as_json(monkeypatch) -> None:
    monkeypatch.setenv("AURRA_DB_LOGIN_SECRET_ARNS", '["arn:a", "arn:b"]')
    monkeypatch.setenv("AURRA_MAINTENANCE_STATEMENT_TIMEOUT_S", "840")
    config = ServiceConfig()
    assert config.db_login_secret_arns == ["arn:a", "arn:b"]
    assert config.maintenance_statement_timeout_s == 840
    assert config.aws_region == "eu-west-1"


def test_locally_the_url_wins() -> None:
    url = "postgresql://postgres@localhost/aurra"
    assert resolve_conninfo(ServiceConfig(database_url=url, db_user="aurra_service", db_host=PROXY)) == url


def test_settings_come_from_the_arguments_then_the_environment_only(monkeypatch, tmp_path) -> None:
    """ServiceConfig reads its arguments, then AURRA_* variables: no .env file and no secrets
    directory (the sources it keeps, `settings_customise_sources`)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("AURRA_DB_PORT=6543\n")
    monkeypatch.setenv("AURRA_DB_POOL_MAX", "7")
    monkeypatch.delenv("AURRA_DB_PORT", raising=False)
    assert ServiceConfig().db_pool_max == 7
    assert ServiceConfig(db_pool_max=9).db_pool_max == 9
    assert ServiceConfig().db_port == 5432
    assert ServiceConfig(_env_file=".env").db_port == 5432


def test_the_service_logins_pool_prepares_nothing_and_the_owners_does(monkeypatch) -> None:
    """Through RDS Proxy (a service login) every connection is configured with no prepared
    statements (`prepare_threshold=None`: a prepared statement pins the proxy's connection);
    the owner's direct connections (migrate, maintenance, dispatcher) keep psycopg's."""
    from aurra_core.runtime.config import reset_config
    from aurra_core.storage import db as db_module

    pools: list[dict] = []
    monkeypatch.setattr(db_module, "ConnectionPool", lambda *a, **k: pools.append(k) or object())
    monkeypatch.setenv("AURRA_DB_USER", "aurra_service")
    monkeypatch.setenv("AURRA_DB_HOST", PROXY)
    reset_config()
    db_module.get_database.cache_clear()
    try:
        db_module.get_database()._get_pool()
        (through_proxy,) = pools
        assert through_proxy["configure"] is db_module._configure_through_proxy
        assert "password" in through_proxy["kwargs"]()  # an IAM token per new connection
        db_module.Database("host=cluster dbname=aurra", max_size=1)._get_pool()
        assert pools[1]["configure"] is db_module._configure  # leaves the threshold alone

        class Connection:
            prepare_threshold: int | None = 5

        connection = Connection()
        monkeypatch.setattr(db_module, "_configure", lambda conn: None)  # pgvector's type lookup
        db_module._configure_through_proxy(connection)  # type: ignore[arg-type]
        assert connection.prepare_threshold is None
    finally:
        db_module.get_database.cache_clear()
        reset_config()
