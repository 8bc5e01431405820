"""The credentials detector (aurra_core/text_analysis/credentials.py): each kind in the formats
its issuer publishes, the look-alikes that are not credentials, the redaction marker, and time
linear in the text. None of these texts is in evals/secrets.jsonl (its figures:
tests/unit/test_secrets_eval.py); the tokens are drawn at random in each kind's alphabet."""

from __future__ import annotations

import random
import re
import string
import time

import pytest

from aurra_core.text_analysis import credentials
from aurra_core.text_analysis.credentials import find, luhn_valid, redact

_DRAW = random.Random(20261203)
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"


def draw(alphabet: str, length: int) -> str:
    """A token's random part. Where the alphabet has upper and lower case and digits, drawn
    again until the part has each, as almost every issued token of 16 characters or more has."""
    wanted = [str.isupper, str.islower, str.isdigit]
    wanted = [w for w in wanted if any(w(c) for c in alphabet)] if len(alphabet) > 26 else []
    for _ in range(100):
        value = "".join(_DRAW.choice(alphabet) for _ in range(length))
        if all(any(w(c) for c in value) for w in wanted):
            return value
    raise AssertionError(f"no draw of {length} from {alphabet!r} has every kind of character")


def card(prefix: str, length: int) -> str:
    """A number of `length` digits starting with `prefix`, with its Luhn check digit."""
    body = prefix + "".join(_DRAW.choice(string.digits) for _ in range(length - len(prefix) - 1))
    return next(body + d for d in string.digits if luhn_valid(body + d))


AWS_ID = "AKIA" + draw(string.ascii_uppercase + "234567", 16)
AWS_SECRET = draw(ALNUM + "+/", 40)
OPENAI_LEGACY = "sk-" + draw(ALNUM, 48)
OPENAI_PROJECT = "sk-proj-" + draw(URLSAFE, 156)
ANTHROPIC = "sk-ant-api03-" + draw(URLSAFE, 93) + "AA"
GITHUB = "ghp_" + draw(ALNUM, 36)
GITHUB_FINE = "github_pat_" + draw(ALNUM, 22) + "_" + draw(ALNUM, 59)
SLACK = "xoxb-" + "".join(_DRAW.choice(string.digits) for _ in range(12)) + "-" + draw(ALNUM, 24)
SLACK_WEBHOOK = (
    "https://hooks.slack.com/services/T0"
    + draw(string.ascii_uppercase, 8)
    + "/B0"
    + draw(string.ascii_uppercase, 8)
    + "/"
    + draw(ALNUM, 24)
)
STRIPE = "rk_live_" + draw(ALNUM, 99)
GOOGLE = "AIza" + draw(URLSAFE, 35)
VISA = card("4", 16)
AMEX = card("37", 15)
JWT = (
    "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ"  # {"alg":"RS256","kid":"1"}
    ".eyJzdWIiOiJ1c2VyLTQyIiwicm9sZSI6ImFkbWluIn0"  # {"sub":"user-42","role":"admin"}
    "." + draw(URLSAFE, 86)
)
PEM_BODY = "\n".join(draw(ALNUM + "+/", 64) for _ in range(6))
PEM = f"-----BEGIN EC PRIVATE KEY-----\n{PEM_BODY}\n-----END EC PRIVATE KEY-----"

FOUND = [
    (f"rotate {AWS_ID} today", "aws_access_key_id", AWS_ID),
    (f"aws_secret_access_key = {AWS_SECRET}", "aws_secret_access_key", AWS_SECRET),
    (f"{AWS_ID}:{AWS_SECRET}", "aws_secret_access_key", AWS_SECRET),
    (f"OPENAI_API_KEY={OPENAI_LEGACY}", "openai_api_key", OPENAI_LEGACY),
    (f"the new project key is {OPENAI_PROJECT}.", "openai_api_key", OPENAI_PROJECT),
    (f"claude key: {ANTHROPIC}", "anthropic_api_key", ANTHROPIC),
    (f"git clone https://{GITHUB}@github.com/acme/x", "github_token", GITHUB),
    (f"token={GITHUB_FINE}", "github_token", GITHUB_FINE),
    (f"bot token {SLACK}", "slack_token", SLACK),
    (f"post to {SLACK_WEBHOOK}", "slack_token", SLACK_WEBHOOK),
    (f"stripe restricted key {STRIPE}", "stripe_key", STRIPE),
    (f"maps key={GOOGLE}&v=3", "google_api_key", GOOGLE),
    (f"charge {VISA[:4]} {VISA[4:8]} {VISA[8:12]} {VISA[12:]} please", "card_number", None),
    (f"amex {AMEX[:4]}-{AMEX[4:10]}-{AMEX[10:]}", "card_number", None),
    (f"card number {VISA}.", "card_number", VISA),
    (f"Authorization: Bearer {JWT}.", "jwt", JWT),
    (f"my key:\n{PEM}\nthanks", "private_key", PEM),
    ("the VPN password is Orchid-7731", "password", "Orchid-7731"),
    ("Password = 'blue skies 42'", "password", "blue skies 42"),
    ("admin pass: r00tb33r", "password", "r00tb33r"),
    ("SMTP_PASSWORD=Kq8!vv2m", "password", "Kq8!vv2m"),
    ('{"user": "ana", "password": "Lis8oa!"}', "password", "Lis8oa!"),
    ("Mi contraseña del correo es Palmera55", "password", "Palmera55"),
    ("Das Kennwort lautet Fichte#90", "password", "Fichte#90"),
    ("mijn wachtwoord is Tulp2020x", "password", "Tulp2020x"),
    ("我的密码是Panda8899。", "password", "Panda8899"),
    ("the front gate code is 4410#", "password", "4410#"),
    ("Tr4mp0line! is my password", "password", "Tr4mp0line!"),
    ("my password is sunshine.", "password", "sunshine"),
    ("smtp.pass=Kq8vv2mZ", "password", "Kq8vv2mZ"),
    ("meine PIN ist 4821", "password", "4821"),
    ("mysql://reporter:Fj29dk!q@10.1.2.3:3306/sales", "connection_string_password", "Fj29dk!q"),
    ("redis://:Vv81kLmq@cache:6379/0", "connection_string_password", "Vv81kLmq"),
    (
        "Host=db;Port=5432;Username=app;Password=Gh7#kk21;Database=main",
        "connection_string_password",
        "Gh7#kk21",
    ),
]


@pytest.mark.parametrize(("text", "kind", "value"), FOUND)
def test_each_kind_is_found_in_the_format_its_issuer_publishes(
    text: str, kind: str, value: str | None
) -> None:
    findings = find(text)
    # the one of its kind, and nothing else (but the key id beside an AWS secret)
    (finding,) = [f for f in findings if f.kind == kind]
    assert {f.kind for f in findings} - {kind} == ({"aws_access_key_id"} if AWS_ID in text else set()) - {
        kind
    }
    if value is not None:
        assert text[finding.start : finding.end] == value


NOT_CREDENTIALS = [
    "AKIAXXXXXXXXXXXXXXXX is the format",
    "AKIAIOSFODNN7EXAMPLE",  # AWS's documentation
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY is the secret in the AWS docs",
    "set OPENAI_API_KEY=sk-... first",
    "export OPENAI_API_KEY=YOUR_API_KEY",
    "sk-your-key-goes-here-0000000000000000000000",
    "see sk-learn-compatible-estimators-and-transformers for pipelines",
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "pk_live_" + draw(ALNUM, 24) + " is the publishable key for the site",
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",  # Stripe's API reference
    "AIzaSyXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed it",  # SHA-1: 40 hex digits
    "secret sauce: ab12ef34ab12ef34ab12ef34ab12ef34ab12ef34",
    "the test card 4242 4242 4242 4242 always succeeds",
    f"card {VISA[:-1]}{(int(VISA[-1]) + 1) % 10} fails the Luhn check",
    "parcel 1Z999AA10123456784 and order 7000 1234 5678 9012 3456",
    "call 0049 151 2345 6789",
    "pi is 3.1415926535897932",
    "eyJhbGciOiJIUzI1NiJ9.e30 is not signed",
    "-----BEGIN OPENSSH PRIVATE KEY----- goes on the first line",
    "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN PUBLIC KEY-----\n" + PEM_BODY + "\n-----END PUBLIC KEY-----",
    "my password is expired and the password policy is strict",
    "the password is at least 12 characters",
    "password: ********",
    "password: <your password>",
    "DB_PASSWORD=${DB_PASSWORD}",
    "DB_PASSWORD=$DB_PASSWORD",
    "password: {{ vault_db_password }}",
    "postgres://user:password@localhost:5432/app",
    "postgres://app:$PGPASSWORD@db/app",
    "https://docs.example.com:8443/path",
    "the zip code is 94110 and the promo code is SPRING24",
    "pass the salt; pin the tab",
    "bypass: true",
    "boarding pass: printed",
    "the password is 8-16 characters long",
    "Password reset link: https://example.com/reset/abc123",
    "password reset email: jane@example.com",
    "the password of a connection URL (postgres://user:PASSWORD@host)",
    "the pin is 2.5mm wide",
    "the combination of these is 50% cheaper",
    "la contraseña es muy segura",
    "my password is very long and hard to type",
    "Mein Passwort ist abgelaufen.",
    "[REDACTED:openai_api_key] and password: [REDACTED:password]",
]


@pytest.mark.parametrize("text", NOT_CREDENTIALS)
def test_placeholders_and_look_alikes_are_not_credentials(text: str) -> None:
    assert find(text) == []


def test_luhn() -> None:
    assert luhn_valid("79927398713")
    assert not luhn_valid("79927398710")
    assert all(luhn_valid(card("5", 16)) for _ in range(20))


def test_a_credential_is_replaced_by_its_marker_and_redaction_is_idempotent() -> None:
    text = f"key {OPENAI_LEGACY}, card {VISA}, and my password is Hunter-22!"
    redaction = redact(text)
    assert redaction.text == (
        "key [REDACTED:openai_api_key], card [REDACTED:card_number], and my password is [REDACTED:password]"
    )
    assert redaction.kinds == ["openai_api_key", "card_number", "password"]
    assert OPENAI_LEGACY not in redaction.text and VISA not in redaction.text
    assert redact(redaction.text).text == redaction.text
    assert redact(redaction.text).findings == ()
    assert redact("nothing here").findings == ()


def test_a_word_of_letters_is_a_password_only_at_the_end_of_its_clause() -> None:
    text = "my password is sunshine and my PIN is 4821"
    assert [text[f.start : f.end] for f in find(text)] == ["sunshine", "4821"]


def test_where_kinds_overlap_the_more_specific_one_is_kept() -> None:
    # a key announced as a password is the key; a password inside a connection URL is the URL's
    assert [f.kind for f in find(f"password: {ANTHROPIC}")] == ["anthropic_api_key"]
    assert [f.kind for f in find("password in postgres://u:Qq81-ldk@h/db")] == ["connection_string_password"]
    assert [f.kind for f in find(f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n-----END PRIVATE KEY-----")] == [
        "private_key"
    ]
    assert credentials.KINDS.index("private_key") < credentials.KINDS.index("aws_secret_access_key")


def test_a_pasted_fragment_of_a_private_key_is_redacted_to_where_it_stops() -> None:
    text = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n\nit's the one from the old server"
    (finding,) = find(text)
    assert text[finding.end :] == "\n\nit's the one from the old server"


def test_every_kind_is_documented_and_has_a_marker() -> None:
    assert len(credentials.KINDS) == len(set(credentials.KINDS)) == 13
    for kind in credentials.KINDS:
        assert re.fullmatch(r"\[REDACTED:[a-z_]+\]", credentials.marker(kind))


# Inputs built to make a backtracking expression go back over the text again and again: runs
# of each expression's alphabet that never complete a match, prefixes repeated, separators
# with nothing between them.
ADVERSARIAL = {
    "letters": "a" * 4000,
    "upper": "A" * 4000,
    "digits": "7" * 4000,
    "digit groups": "4 " * 2000,
    "dashed digits": "4-" * 2000,
    "base64": "Ab1/" * 1000,
    "key prefixes": "AKIA" * 1000,
    "openai prefixes": "sk-" * 1334,
    "anthropic prefixes": "sk-ant-api03-" * 308,
    "slack segments": "xoxb-" + "1-" * 1998,
    "webhook segments": "https://hooks.slack.com/services/" + "AAAAAAA/" * 496,
    "jwt headers": "eyJ" * 1334,
    "jwt parts": ("eyJ" + "a" * 10 + ".") * 286,
    "long jwt without a signature": "eyJ" + "a" * 1990 + ".eyJ" + "b" * 2000,
    "pem begins": "-----BEGIN PRIVATE KEY-----" * 149,
    "pem begins and ends": ("-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----") * 77,
    "pem body chunks": "-----BEGIN PRIVATE KEY-----" + " AAAAAAAAAAAAAAAAA" * 221,
    "pem header lines": "-----BEGIN PRIVATE KEY-----" + "\nProc-Type: x" * 305,
    "password words": "password " * 445,
    "password verbs": "password is " * 334,
    "password bridges": "password for " * 308,
    "short words": "pw: " * 1000,
    "code words": "pin code is " * 334,
    "schemes": "postgres://" * 364,
    "colons after a scheme": "a://" + ":" * 3996,
    "users after a scheme": "a://" + "u" * 3996,
    "keyword passwords": ";password=x" * 364,
    "login pairs": "login is " + "a" * 64 + " / " * 1309,
    "values before": "x" * 60 + " is my " * 563,
    "values as": "use " * 1000,
    "later values": "password" + " x" * 1996,
    "cjk": "密码是" + "a" * 3997,
    "an open quote": 'password: "' + "a" * 3989,
    "markers": "[REDACTED:password]" * 210,
    "spaces": " " * 4000,
    "newlines": "\n" * 4000,
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_text_of_4000_characters_is_scanned_in_linear_time(name: str) -> None:
    text = ADVERSARIAL[name][:4000]
    assert len(text) >= 3990
    started = time.perf_counter()
    redact(text)
    # An ordinary 4,000 characters take a few milliseconds; a quadratic expression would take
    # seconds on these. Generous, for a shared machine.
    assert time.perf_counter() - started < 0.5
