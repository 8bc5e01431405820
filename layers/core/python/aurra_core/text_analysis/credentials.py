"""Credentials in text: where they are, of which kind, and the text with each one replaced by
`[REDACTED:<kind>]`. Plain code, written from the formats the issuers publish, never a model.

A finding is a kind and a span. Provider tokens are found by their published prefixes and
lengths, then checked to look issued rather than written by a person: a placeholder such as
`AKIAXXXXXXXXXXXXXXXX`, `sk-your-key-here` or `AIza...` has a run of one character, too few
distinct characters or a word such as "example" or "your" where an issued token has random
characters. Card numbers must pass the Luhn check and start as an issuer's cards start, with
the length that issuer uses (and not be one of the test numbers payment providers publish).
A JSON Web Token's header must decode to a JSON object. Passwords and AWS secret access keys
have no format of their own: a password is a value announced by a word for it ("password",
"Passwort", "mot de passe", "contraseña", "senha", "пароль", "密码" and a few more) and a verb
or a colon, or a code that opens something (a PIN, a door's or an alarm's code, a safe's
combination) when it holds a digit; a value with no verb or colon before it must look chosen
(letters with digits or symbols), and a value of letters alone must end its clause ("my
password is sunshine.", not "my password is very long"). An AWS secret is a 40-character base64 string near an AWS key
id or the words "aws" or "secret". A password in a connection URL (`scheme://user:password@host`)
or a connection string (`Server=...;Password=...`) is its own kind.

Every expression runs in time linear in the text: each quantifier is bounded or stops at a
character its neighbour cannot start with, and a token's expression can only start where a
run of its alphabet starts, so no position is scanned more than a bounded number of times
(tests/unit/test_credentials.py times adversarial inputs). Expressions compile at import
through `regex_programs` (stored compiled for cold starts, infra/components/layer.py).

The text is never logged or kept here; `redact` is idempotent (a marker is never a finding).
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
import math
from collections import Counter
from dataclasses import dataclass

from aurra_core.text_analysis import regex_programs

AWS_ACCESS_KEY_ID = "aws_access_key_id"
AWS_SECRET_ACCESS_KEY = "aws_secret_access_key"
ANTHROPIC_API_KEY = "anthropic_api_key"
OPENAI_API_KEY = "openai_api_key"
GITHUB_TOKEN = "github_token"
SLACK_TOKEN = "slack_token"
STRIPE_KEY = "stripe_key"
GOOGLE_API_KEY = "google_api_key"
PRIVATE_KEY = "private_key"
PASSWORD = "password"
CARD_NUMBER = "card_number"
JWT = "jwt"
CONNECTION_STRING_PASSWORD = "connection_string_password"

# Every kind, most specific first: where two findings overlap, the earlier kind wins (a key
# after "password:" is the key; a password inside a connection URL is the URL's).
KINDS: tuple[str, ...] = (
    PRIVATE_KEY,
    JWT,
    ANTHROPIC_API_KEY,
    OPENAI_API_KEY,
    GITHUB_TOKEN,
    SLACK_TOKEN,
    STRIPE_KEY,
    GOOGLE_API_KEY,
    AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY,
    CONNECTION_STRING_PASSWORD,
    CARD_NUMBER,
    PASSWORD,
)
_PRIORITY = {kind: rank for rank, kind in enumerate(KINDS)}


def marker(kind: str) -> str:
    """What a credential of `kind` is replaced with."""
    return f"[REDACTED:{kind}]"


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class Redaction:
    text: str
    findings: tuple[Finding, ...]

    @property
    def kinds(self) -> list[str]:
        """The kinds found, each once, in the order of KINDS."""
        found = {f.kind for f in self.findings}
        return [kind for kind in KINDS if kind in found]


# ---------------------------------------------------------------- what a placeholder looks like

# Words a person writes where an issuer's token has random characters. Matched in the token's
# random part, case aside (a random part of 40 characters holds a given 4-letter word by
# chance about once in 400,000 tokens).
_PLACEHOLDER_WORDS = (
    "example",
    "sample",
    "xxxx",
    "your",
    "placeholder",
    "redacted",
    "dummy",
    "fake",
    "insert",
    "replace",
    "changeme",
    "secret",
    "token",
    "here",
    "abcdef",
    "123456",
    "0000",
)
_MARKER_RE = regex_programs.compile(r"\[REDACTED:[a-z_]{1,40}\]")


def _entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _longest_run(text: str) -> int:
    longest = run = 0
    previous = ""
    for character in text:
        run = run + 1 if character == previous else 1
        previous = character
        longest = max(longest, run)
    return longest


def _no_placeholder_word(text: str, *, long_only: bool = False) -> bool:
    """No placeholder word in `text` (`long_only`: none of 7 letters or more, for texts long
    enough to hold a short one by chance, as a private key's body)."""
    folded = text.lower()
    return not any(word in folded for word in _PLACEHOLDER_WORDS if not long_only or len(word) >= 7)


def _issued(random_part: str, *, min_length: int = 16, min_entropy: float = 3.0) -> bool:
    """Whether the random part of a token looks issued rather than written by a person."""
    if len(random_part) < min_length or not _no_placeholder_word(random_part):
        return False
    if _longest_run(random_part) >= 5:
        return False
    return _entropy(random_part) >= min_entropy


def _mixed(text: str) -> bool:
    """Upper and lower case letters and digits, as a random base62/base64 string of 20 or more
    characters almost always has."""
    return (
        any(c.isupper() for c in text) and any(c.islower() for c in text) and any(c.isdigit() for c in text)
    )


# ---------------------------------------------------------------- provider tokens

# (kind, expression, the group holding the random part). Each starts only where a run of
# its alphabet starts (the lookbehind), and ends where the run ends (the lookahead).
_TOKEN_RULES = (
    (
        ANTHROPIC_API_KEY,
        regex_programs.compile(r"(?<![\w-])sk-ant-[a-z]{2,8}\d{2}-([A-Za-z0-9_-]{32,200})(?![\w-])"),
    ),
    (
        OPENAI_API_KEY,
        regex_programs.compile(
            r"(?<![\w-])sk-(?!ant-)(?:(?:proj|svcacct|admin|None)-)?([A-Za-z0-9_-]{32,250})(?![\w-])"
        ),
    ),
    (
        GITHUB_TOKEN,
        regex_programs.compile(
            r"(?<![\w-])(?:gh[pousr]_([A-Za-z0-9]{36})|github_pat_([A-Za-z0-9]{22}_[A-Za-z0-9]{59}))(?![\w-])"
        ),
    ),
    (
        SLACK_TOKEN,
        regex_programs.compile(
            r"(?<![\w-])(?:xox[abposer]|xoxe\.xox[bp]|xapp)-((?:[A-Za-z0-9]{1,80}-){1,5}[A-Za-z0-9]{20,100})(?![\w-])"
        ),
    ),
    (
        SLACK_TOKEN,
        regex_programs.compile(
            r"(?<![\w/.-])https://hooks\.slack\.com/(?:services|workflows|triggers)/"
            r"((?:[A-Za-z0-9]{6,40}/){1,3}[A-Za-z0-9]{16,64})(?![\w-])"
        ),
    ),
    (
        STRIPE_KEY,
        regex_programs.compile(r"(?<![\w-])(?:sk|rk)_(?:live|test)_([A-Za-z0-9]{16,247})(?![\w-])"),
    ),
    (
        GOOGLE_API_KEY,
        regex_programs.compile(r"(?<![\w-])AIza([A-Za-z0-9_-]{35})(?![\w-])"),
    ),
    (
        AWS_ACCESS_KEY_ID,
        regex_programs.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)([A-Z0-9]{16})(?![A-Za-z0-9])"),
    ),
)

# Published in the issuers' own documentation: examples, not anyone's credentials.
_DOCUMENTED_EXAMPLES = frozenset(
    {
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        # jwt.io's example signature (HS256, "your-256-bit-secret")
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        # Stripe's API reference
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
    }
)


def _token_issued(kind: str, random_part: str) -> bool:
    if kind == AWS_ACCESS_KEY_ID:
        # 16 characters of an uppercase alphabet: fewer distinct ones than a longer token.
        return _issued(random_part, min_length=16, min_entropy=2.8)
    if kind == SLACK_TOKEN:
        # the workspace's and the user's numeric ids, then the random secret
        return _issued(random_part.replace("/", "-").rsplit("-", 1)[-1], min_length=16)
    if kind == GITHUB_TOKEN:
        return _issued(random_part.replace("_", ""))
    # ("sk-learn-compatible-estimators-for-pipelines" is words, not a key)
    return _issued(random_part, min_entropy=3.5) and _mixed(random_part)


def _tokens(text: str) -> list[Finding]:
    found = []
    for kind, expression in _TOKEN_RULES:
        for match in expression.finditer(text):
            random_part = next(g for g in match.groups() if g is not None)
            if match.group(0) in _DOCUMENTED_EXAMPLES or not _token_issued(kind, random_part):
                continue
            found.append(Finding(kind, match.start(), match.end()))
    return found


# ---------------------------------------------------------------- AWS secret access keys

# (an equals sign may come before it, as in AWS_SECRET_ACCESS_KEY=...; only padding after it)
_BASE64_40_RE = regex_programs.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_AWS_SECRET_CONTEXT_RE = regex_programs.compile(r"(?i)aws|secret")
_HEX = frozenset("0123456789abcdefABCDEF")


def _aws_secrets(text: str, key_ids: list[Finding]) -> list[Finding]:
    """A 40-character base64 string (not hex: a SHA-1 is 40 hex digits) with an AWS key id
    within 200 characters, or "aws" or "secret" in the 80 before it."""
    found = []
    for match in _BASE64_40_RE.finditer(text):
        value = match.group(0)
        if value in _DOCUMENTED_EXAMPLES or set(value) <= _HEX:
            continue
        if not (_mixed(value) and _issued(value, min_entropy=4.0)):
            continue
        near_key = any(k.start - 200 <= match.start() and k.end + 200 >= match.end() for k in key_ids)
        if near_key or _AWS_SECRET_CONTEXT_RE.search(text, max(0, match.start() - 80), match.start()):
            found.append(Finding(AWS_SECRET_ACCESS_KEY, match.start(), match.end()))
    return found


# ---------------------------------------------------------------- private keys

_PEM_BEGIN_RE = regex_programs.compile(r"-----BEGIN (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END_RE = regex_programs.compile(r"-----END (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----")
# A fragment without its END line: base64 chunks and an encrypted key's header lines
# ("Proc-Type: 4,ENCRYPTED"), apart by whitespace (or a JSON string's escaped newlines).
_PEM_FRAGMENT_RE = regex_programs.compile(
    r"(?:(?:\s|\\n|\\r){1,6}(?:[A-Za-z-]{1,20}: [^\n]{1,200}|[A-Za-z0-9+/]{16,4000}={0,2}))+"
)
# Prose is words; a key's body is chunks of 16 base64 characters or more.
_BASE64_CHUNK_RE = regex_programs.compile(r"[A-Za-z0-9+/]{16,}")
# A key's body spans at most this many characters (an RSA 8192 key is about 6,300).
_PEM_MAX_BODY = 10_000


def _private_keys(text: str) -> list[Finding]:
    """A PEM private key: its BEGIN line and a body of at least 40 base64 characters, to its
    END line, or to where the body stops when the END line is missing (a pasted fragment)."""
    found = []
    begins = list(_PEM_BEGIN_RE.finditer(text))
    ends = list(_PEM_END_RE.finditer(text))
    position = 0
    next_end = 0  # index into `ends`: the END lines before `position` are behind us
    for index, begin in enumerate(begins):
        if begin.start() < position:
            continue
        while next_end < len(ends) and ends[next_end].start() < begin.end():
            next_end += 1
        following = begins[index + 1].start() if index + 1 < len(begins) else len(text)
        end = ends[next_end] if next_end < len(ends) else None
        if end is not None and end.start() <= min(following, begin.end() + _PEM_MAX_BODY):
            stop = end.end()
            body = text[begin.end() : end.start()]
        else:
            fragment = _PEM_FRAGMENT_RE.match(text, begin.end())
            if fragment is None:
                continue
            stop = fragment.end()
            body = fragment.group(0)
        chunks = "".join(_BASE64_CHUNK_RE.findall(body))
        if len(chunks) < 40 or _entropy(chunks) < 3.5 or not _no_placeholder_word(chunks, long_only=True):
            continue
        found.append(Finding(PRIVATE_KEY, begin.start(), stop))
        position = stop
    return found


# ---------------------------------------------------------------- JSON Web Tokens

_JWT_RE = regex_programs.compile(
    r"(?<![\w.-])eyJ[A-Za-z0-9_-]{4,2000}\.eyJ[A-Za-z0-9_-]{4,8000}\.([A-Za-z0-9_-]{16,2000})(?![\w-]|\.[\w-])"
)


def _decodes_to_object(part: str) -> bool:
    try:
        decoded = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except (binascii.Error, ValueError):
        return False
    return isinstance(decoded, dict)


def _jwts(text: str) -> list[Finding]:
    """A signed JWT: header and payload base64url JSON objects (both start `eyJ`, `{"`), and
    a signature; the header must decode."""
    found = []
    for match in _JWT_RE.finditer(text):
        header = match.group(0).split(".", 1)[0]
        if match.group(1) in _DOCUMENTED_EXAMPLES or not _decodes_to_object(header):
            continue
        found.append(Finding(JWT, match.start(), match.end()))
    return found


# ---------------------------------------------------------------- card numbers

_CARD_RE = regex_programs.compile(r"(?<![\w.,/-])(?<!\d[ -])\d(?:[ -]?\d){11,18}(?![\w/]|[ -]\d|[.,]\d)")

# Test numbers payment providers publish (Stripe, Adyen, Braintree, PayPal docs): public.
_TEST_CARDS = frozenset(
    {
        "4242424242424242",
        "4000056655665556",
        "4111111111111111",
        "4012888888881881",
        "4222222222222",
        "5555555555554444",
        "5200828282828210",
        "5105105105105100",
        "2223003122003222",
        "378282246310005",
        "371449635398431",
        "6011111111111117",
        "6011000990139424",
        "3056930009020004",
        "36227206271667",
        "3566002020360505",
        "6200000000000005",
    }
)


def luhn_valid(digits: str) -> bool:
    total = 0
    for position, character in enumerate(reversed(digits)):
        value = int(character)
        if position % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _issuer_length(digits: str) -> bool:
    """Whether a card of an issuer starts so and is so long (the IIN ranges the networks
    publish: Visa, Mastercard, American Express, Discover, JCB, Diners Club, UnionPay, Maestro,
    Mir)."""
    n = len(digits)
    two, four = int(digits[:2]), int(digits[:4])
    if digits[0] == "4":
        return n in (13, 16, 19)
    if two in (34, 37):
        return n == 15
    if 51 <= two <= 55 or 2221 <= four <= 2720:
        return n == 16
    if 2200 <= four <= 2204:  # Mir
        return 16 <= n <= 19
    if 3528 <= four <= 3589:  # JCB
        return 16 <= n <= 19
    if 300 <= int(digits[:3]) <= 305 or two in (36, 38, 39):  # Diners Club
        return 14 <= n <= 19
    if digits.startswith("6011") or two in (62, 64, 65):  # Discover, UnionPay
        return 16 <= n <= 19
    if two == 50 or 56 <= two <= 69:  # Maestro
        return 12 <= n <= 19
    return False


def _grouping(written: str) -> bool:
    """Digits in one run, or in groups by one separator as cards are printed (4-4-4-4,
    4-4-4-4-3, 4-6-5, 4-6-4)."""
    for separator in (" ", "-"):
        if separator in written:
            if (" " if separator == "-" else "-") in written:
                return False
            groups = tuple(len(g) for g in written.split(separator))
            return (
                groups[0] == 4 and (all(g == 4 for g in groups[1:-1]) or groups[1] == 6) and groups[-1] >= 3
            )
    return True


def _cards(text: str) -> list[Finding]:
    found = []
    for match in _CARD_RE.finditer(text):
        written = match.group(0)
        digits = written.replace(" ", "").replace("-", "")
        if not 12 <= len(digits) <= 19 or digits in _TEST_CARDS or len(set(digits)) < 4:
            continue
        if _grouping(written) and _issuer_length(digits) and luhn_valid(digits):
            found.append(Finding(CARD_NUMBER, match.start(), match.end()))
    return found


# ---------------------------------------------------------------- connection strings

# scheme://user:password@host (the user may be empty: redis://:password@host).
_URL_PASSWORD_RE = regex_programs.compile(
    r"(?i)(?<![\w+.-])[a-z][a-z0-9+.-]{1,30}://[^\s:/@?#]{0,128}:([^\s@/?#]{1,128})@[\w\[]"
)
# Server=...;Password=... (ADO.NET, ODBC, JDBC properties) and ?password=... in a URL's query.
_KEYWORD_PASSWORD_RE = regex_programs.compile(
    r"(?i)(?:^|[;?&\s\"'])(?:password|pwd)\s{0,3}=\s{0,3}(\"[^\"\n]{1,128}\"|'[^'\n]{1,128}'|[^;&\s\"']{1,128})"
)
_CONNECTION_CONTEXT_RE = regex_programs.compile(
    r"(?i)(?:server|host|hostname|data source|database|initial catalog|uid|user id|username|user)\s{0,3}="
    r"|jdbc:|odbc|://"
)


def _connection_passwords(text: str) -> list[Finding]:
    found = []
    for match in _URL_PASSWORD_RE.finditer(text):
        if _password_value(match.group(1), strict=False):
            found.append(Finding(CONNECTION_STRING_PASSWORD, match.start(1), match.end(1)))
    keywords = list(_KEYWORD_PASSWORD_RE.finditer(text))
    if not keywords:
        return found
    # a connection string: another of its keywords within 200 characters
    context = [m.start() for m in _CONNECTION_CONTEXT_RE.finditer(text)]
    for match in keywords:
        start, end = match.span(1)
        nearest = bisect.bisect_left(context, match.start() - 200)
        if nearest == len(context) or context[nearest] > match.end() + 200:
            continue
        if text[start] in "\"'":
            start, end = start + 1, end - 1
        if _password_value(text[start:end], strict=False):
            found.append(Finding(CONNECTION_STRING_PASSWORD, start, end))
    return found


# ---------------------------------------------------------------- passwords

# Words for a password, in English and a few other languages (Turkish with its possessives:
# "şifrem", my password). The short ones ("pass", "pw", "pwd") only before a colon or an
# equals sign, below: "pass the salt" says nothing.
_PASSWORD_WORDS = (
    r"pass(?:word|phrase|code)|passwd|"
    r"passwort|kennwort|mot de passe|contrase(?:ñ|n)a|senha|"
    r"wachtwoord|l(?:ö|o)senord|adgangskode|passord|salasana|has(?:ł|l)o|(?:ş|s)ifre(?:m|si|miz|niz)?|"
    r"parolam|parolası|"  # noqa: RUF001
    r"пароль|heslo|jelszó|κωδικός"
)
_PASSWORD_WORD_RE = regex_programs.compile(r"(?i)(?<!\w)(?:" + _PASSWORD_WORDS + r")(?!\w)")
# An environment variable or a configuration key: DB_PASSWORD=, "db_password": , PGPASSWORD=,
# smtp.pass=. A short word only after a separator ("bypass: true" is no password).
_PASSWORD_KEY_RE = regex_programs.compile(
    r"(?i)(?<![\w.-])(?:[A-Za-z0-9]{1,30}[_.-]?(?:password|passwd)|[A-Za-z0-9]{1,30}[_.-](?:pwd|pass|pw))"
    r"[\"']?\s{0,3}[:=]\s{0,3}"
)
# After the word, what stands between it and the value: a colon, an equals sign or an arrow,
# or a verb ("is", "ist", "lautet", "est", "es", "é", "è", "är", "er", "jest", "to", "это",
# a dash), optionally after a short "for the wifi" / "für das WLAN" / "de mi correo".
_BRIDGE = (
    r"(?:\s{1,3}(?:for|to|of|on|at|für|fürs|pour|para|per|voor|de|du|del|da|do|di|van|för|til|для|от)\s"
    r"[^\n:=.!?]{1,40}?)?"
)
_BETWEEN_RE = regex_programs.compile(
    r"(?i)[\"']?"
    + _BRIDGE
    + r"(?:\s{0,3}(?:[:=：]|->|=>|→)|(?:'|’)s(?=\s)|\s{1,3}(?:is now|is still|is set to|has been changed to|has been set to|"  # noqa: RUF001
    r"was changed to|changed to|set to|is|was|ist|lautet|war|est|était|es|era|é|è|är|er|jest|to|это|—|–|-)"  # noqa: RUF001
    r"(?=\s))\s{0,3}"
)
# "pw=", "p/w for the VPN:", "pwd:"; and "pass:", whose value must look chosen ("bus pass:
# monthly")
_SHORT_WORD_RE = regex_programs.compile(r"(?i)(?<![\w-])(?:pw|p/w|pwd)" + _BRIDGE + r"\s{0,3}[:=]\s{0,3}")
_PASS_RE = regex_programs.compile(r"(?i)(?<![\w-])pass" + _BRIDGE + r"\s{0,3}[:=]\s{0,3}")
# Codes that open something: a PIN, a door's, an alarm's or a locker's code, a safe's
# combination. What follows is a password when it holds a digit ("the promo code", "the zip
# code" are not among these words).
_CODE_WORD_RE = regex_programs.compile(
    r"(?i)(?<!\w)(?:(?-i:PIN)|pin code|pin number|(?:alarm|door|gate|garage|garage door|locker|safe|lock|"
    r"padlock|keypad|entry|access|security|building|unlock|lockbox|key box|keybox|bike lock)\s"
    r"(?:code|combination|combo))(?!\w)"
)
# Later in the sentence: "I use the same password everywhere, it's X", "my password is my dog's
# name plus 88: X"
_LATER_RE = regex_programs.compile(r"(?i)[^\n.!?]{0,60}?(?:\bit's|\bit’s|\bit is|\bwhich is|:)\s{1,3}")  # noqa: RUF001
# "the login is admin / X", "creds: admin/X"
_LOGIN_PAIR_RE = regex_programs.compile(
    r"(?i)(?<!\w)(?:login|log-in|credentials|creds|user(?:name)?\s?/\s?pass(?:word)?)(?:\s(?:is|are)|:)"
    r"\s{1,3}[^\s/]{1,64}\s{0,2}/\s{0,2}"
)
# "use 'X' as the password"
_VALUE_AS_RE = regex_programs.compile(
    r"(?i)(?<!\w)(?:use|using|set|try|chose|picked)\s{1,3}([\"'`]?)([^\s\"'`]{4,64})\1\s{1,3}as\s{1,3}"
    r"(?:(?:the|my|your|a|our|their)\s{1,3})?(?:[\w-]{1,20}\s{1,3})?(?:password|passphrase|passcode|pin)(?!\w)"
)
# "changed my password to X", "new password X", "use the password X": the value comes without
# a colon, so it must look chosen (`_password_value`, strict)
_WORDS_BEFORE_RE = regex_programs.compile(
    r"(?i)(?<!\w)(?:(?:changed|set|reset|updated|switched)\s(?:my|the|our|his|her|their|its)\s"
    r"(?:[\w-]{1,20}\s)?(?:password|passphrase|passcode)\s(?:to|as)|"
    r"(?:new|temporary|temp|default|initial|root|admin|wifi|wi-fi)\s(?:password|passphrase|passcode)|"
    r"(?:use|using|with)\s(?:the\s)?(?:password|passphrase))\s{1,3}"
)
# "hunter2 is my password", "X ist mein Passwort"
_VALUE_BEFORE_RE = regex_programs.compile(
    r"(?i)(?<![^\s\"'(])([^\s\"')]{4,64})[\"')]?\s(?:is|was|ist|est|es|é|è)\s(?:my|the|our|his|her|their|"
    r"mein|unser|mon|notre|mi|nuestra|minha|a|il|la)\s(?:[\w-]{1,20}\s)?(?:" + _PASSWORD_WORDS + r")(?!\w)"
)
# Japanese, Chinese, Korean: the word and its particle, then the value in ASCII
_CJK_RE = regex_programs.compile(
    r"(?:パスワード|暗証番号|密码|密碼|口令|비밀번호|암호)(?:は|是|为|為|：|:|는|은)?\s{0,3}"  # noqa: RUF001
    r"(?:「|“|\"|')?([!-~]{4,64}?)(?:」|”|\"|')?(?=です|だ|。|，|、|\s|$|입니다|이에요|예요)"  # noqa: RUF001
)
_VALUE_RE = regex_programs.compile(
    r"\"([^\"\n]{1,64})\"|'([^'\n]{1,64})'|`([^`\n]{1,64})`|«([^»\n]{1,64})»|“([^”\n]{1,64})”|"
    r"„([^“\n]{1,64})“|「([^」\n]{1,64})」|([^\s\"'`«“„「]{1,64})"
)
_TRAILING = ".,;:)]}>'\"`?»”」。、，"  # noqa: RUF001
# What may follow a value of letters alone for it to be a password: the end of its clause, or a
# conjunction ("my password is sunshine and ..."), not more words about the password ("my
# password is very long").
_CLAUSE_END_RE = regex_programs.compile(
    r"(?i)[\"'`»”」]?(?:\s{0,3}(?:$|[\n.,;:!?)]|-\s)|\s{1,3}(?:and|but|so|or|y|et|und|e|en|och|og|i|и|а)\s)"  # noqa: RUF001
)
# A length or a count, not a value: "the password is 8-16 characters"
_UNIT_AFTER_RE = regex_programs.compile(
    r"(?i)\s{1,3}(?:characters?|chars?|digits?|letters?|symbols?|numbers?|words?|long|zeichen|caractères|caracteres)\b"
)
_NOT_A_VALUE_RE = regex_programs.compile(
    r"(?i)[a-z][a-z0-9+.-]{1,20}://\S+|www\.\S+|[^@\s]{1,64}@[^@\s]{1,64}\.[a-z]{2,}"
)

# Words that follow "password is" and are not a password (what the password is like, or where).
_NOT_A_PASSWORD = frozenset(
    """
    a an the my your his her its our their this that these those it one same different another
    is was be been being not no none null nil n/a na empty blank missing unset set required
    optional mandatory wrong incorrect correct right invalid valid expired expiring expire
    reset changed updated rotated stored saved kept hidden masked encrypted hashed salted secure
    insecure weak strong long short too very case case-sensitive sensitive simple complex easy
    hard fine ok okay good bad great new old temporary temp default generated random managed
    shared personal stale known unknown leaked compromised locked unlocked still also now only
    just probably likely definitely something somewhere written in on at for from with without
    by to of and or but if when what which who how why where see below above attached there
    here your_password yourpassword my_password mypassword password passwords passwd pass pwd
    secret secrets redacted xxx tbd todo unchanged enabled disabled protected needed necessary
    needs must should will would can could manager policy field hint reset-link true false yes
    on off
    falsch richtig abgelaufen geändert erforderlich incorrecte expiré changé requis
    incorrecta correcta caducada cambiada obligatoria incorreta correta expirada alterada
    obrigatória sbagliata scaduta fout verlopen неверный неправильный верный
    """.split()
)
_VARIABLE_RE = regex_programs.compile(r"\$\{?[A-Z_][A-Z0-9_]{0,60}\}?")
_PLACEHOLDER_VALUE_RE = regex_programs.compile(
    r"(?i)(?:your|my|the|some|new|db|user)?[_ -]?(?:pass(?:word)?|pwd|secret)[_ -]?(?:here|goes[_ -]?here)?"
)


def _password_value(value: str, *, strict: bool) -> bool:
    """Whether `value` (after its announcing word) is a password rather than a word about
    passwords or a placeholder. `strict`: the value came without a colon or a verb, so it must
    look chosen (6 characters or more, letters with digits or symbols)."""
    if not 4 <= len(value) <= 128 or _MARKER_RE.fullmatch(value):
        return False
    folded = value.lower()
    if folded in _NOT_A_PASSWORD or folded.rstrip("!") in _NOT_A_PASSWORD:
        return False
    if _PLACEHOLDER_VALUE_RE.fullmatch(value) or folded.startswith(("your", "<", "...", "***")):
        return False
    if len(set(value)) <= 2 and _longest_run(value) >= 3:
        return False  # ****, xxxxxx, ......
    if value[0] in "<{" or (value[0] in "[%" and value[-1] in "]%") or _VARIABLE_RE.fullmatch(value):
        return False  # <password>, {{PASSWORD}}, ${DB_PASSWORD}, [password], %PASSWORD%, $PGPASSWORD
    if _NOT_A_VALUE_RE.fullmatch(value) or value.startswith("//") or "://" in value:
        return False  # a link or an email address: where to reset it, not what it is
    if strict:
        has_letter = any(c.isalpha() for c in value)
        has_other = any(not c.isalpha() for c in value)
        return len(value) >= 6 and has_letter and has_other
    return True


def _take_value(text: str, start: int) -> tuple[int, int] | None:
    """The span of the value that starts at `start`: a quoted string's inside, or a run without
    spaces less its trailing punctuation."""
    match = _VALUE_RE.match(text, start)
    if match is None:
        return None
    group = next(i for i in range(1, 9) if match.group(i) is not None)
    begin, end = match.span(group)
    if group == 8:
        end = _trimmed(text, begin, end)
    return (begin, end) if end > begin else None


def _trimmed(text: str, begin: int, end: int) -> int:
    while end > begin and text[end - 1] in _TRAILING:
        end -= 1
    return end


def _passwords(text: str) -> list[Finding]:
    found: list[Finding] = []

    def keep(span: tuple[int, int] | None, *, strict: bool = False, digit: bool = False) -> bool:
        if span is None:
            return False
        value = text[span[0] : span[1]]
        if not _password_value(value, strict=strict) or (digit and not any(c.isdigit() for c in value)):
            return False
        if _UNIT_AFTER_RE.match(text, span[1]):
            return False
        if value.isalpha() and not _CLAUSE_END_RE.match(text, span[1]):
            return False  # "my password is very long": words about the password
        found.append(Finding(PASSWORD, *span))
        return True

    for word in _PASSWORD_WORD_RE.finditer(text):
        between = _BETWEEN_RE.match(text, word.end())
        if between is not None and keep(_take_value(text, between.end())):
            continue
        # no verb, no colon: "password hunter2!", "Benim şifrem Kartal_1903"
        no_verb = between is None and text[word.end() : word.end() + 1] in (" ", "\t")
        if no_verb and keep(_take_value(text, word.end() + 1), strict=True):
            continue
        later = _LATER_RE.match(text, word.end())
        if later is not None:
            keep(_take_value(text, later.end()), strict=True)
    for word in _CODE_WORD_RE.finditer(text):
        between = _BETWEEN_RE.match(text, word.end())
        if between is not None:
            keep(_take_value(text, between.end()), digit=True)
    for expression in (_PASSWORD_KEY_RE, _SHORT_WORD_RE):
        for match in expression.finditer(text):
            keep(_take_value(text, match.end()))
    for match in _PASS_RE.finditer(text):
        keep(_take_value(text, match.end()), strict=True)
    for match in _LOGIN_PAIR_RE.finditer(text):
        keep(_take_value(text, match.end()), strict=True)
    for match in _VALUE_AS_RE.finditer(text):
        keep(match.span(2))
    for match in _WORDS_BEFORE_RE.finditer(text):
        keep(_take_value(text, match.end()), strict=True)
    for match in _VALUE_BEFORE_RE.finditer(text):
        keep((match.start(1), _trimmed(text, *match.span(1))), strict=True)
    for match in _CJK_RE.finditer(text):
        keep((match.start(1), _trimmed(text, *match.span(1))))
    return found


# ---------------------------------------------------------------- all together


def find(text: str) -> list[Finding]:
    """Every credential in `text`, in order, none overlapping another (where two kinds' findings
    overlap, the more specific kind's is kept: KINDS)."""
    tokens = _tokens(text)
    key_ids = [f for f in tokens if f.kind == AWS_ACCESS_KEY_ID]
    candidates = [
        *_private_keys(text),
        *_jwts(text),
        *tokens,
        *_aws_secrets(text, key_ids),
        *_connection_passwords(text),
        *_cards(text),
        *_passwords(text),
    ]
    markers = [m.span() for m in _MARKER_RE.finditer(text)]
    # kept findings in text order (none overlaps another): a candidate overlaps one of them
    # only if it overlaps the last one starting before its end
    kept: list[Finding] = []
    starts: list[int] = []
    for candidate in sorted(candidates, key=lambda f: (_PRIORITY[f.kind], f.start, -f.end)):
        if _inside_marker(candidate, markers):
            continue
        index = bisect.bisect_left(starts, candidate.end)
        if index > 0 and kept[index - 1].end > candidate.start:
            continue
        kept.insert(index, candidate)
        starts.insert(index, candidate.start)
    return kept


def _inside_marker(finding: Finding, markers: list[tuple[int, int]]) -> bool:
    """Whether the finding lies within a marker an earlier redaction left (`redact` is
    idempotent)."""
    index = bisect.bisect_right(markers, (finding.start, 2**62)) - 1
    return index >= 0 and markers[index][1] >= finding.end


def redact(text: str) -> Redaction:
    """`text` with each credential replaced by `[REDACTED:<kind>]`."""
    return replace(text, find(text))


def replace(text: str, findings: list[Finding]) -> Redaction:
    """`text` with each of `findings` (in order, none overlapping) replaced by its marker."""
    if not findings:
        return Redaction(text, ())
    parts = []
    position = 0
    for finding in findings:
        parts += [text[position : finding.start], marker(finding.kind)]
        position = finding.end
    parts.append(text[position:])
    return Redaction("".join(parts), tuple(findings))


regex_programs.save()
