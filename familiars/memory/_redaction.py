"""Privacy redaction: find secrets and personal data in incoming text (§5.5.2).

The scanner finds five kinds of things:

- ``api_key``: API keys and tokens (``sk-...``, ``ghp_...``, ``xox?-...``, ``AKIA...``,
  ``AIza...``, JWTs, Telegram bot tokens, ``Bearer <token>``, ``api_key=<value>``) and long
  high-entropy tokens that mix upper case, lower case and digits;
- ``card``: payment card numbers, 13 to 19 digits (spaces or dashes between groups allowed)
  that pass the Luhn check;
- ``password``: what follows "my password is", "passcode:", "passphrase =" and the like,
  and PINs and codes that open something ("my bank PIN is 4921", "door code: 1234", "the
  code for the gate is 2580", "the combination is 12-34-56"; not a zip or dress code);
- ``email``: e-mail addresses;
- ``phone``: phone numbers written as phone numbers (``+`` and a country code, ``(555)
  123-4567``, ``020 7946 0958``), or bare digit runs right after a word such as "phone".

Each discovery gets the decision configured for its kind in ``Settings.privacy``
(``ignore`` / ``mask`` / ``record``) and a replacement ``token``: the text a model provider
sees at that span. Only ``mask`` hides anything (``[EMAIL]``, ...); ``ignore`` (a false alarm
the owner does not care about) and ``record`` (allowed through, but noted on the node for
audit) carry the original text as their token, so replaying them changes nothing whichever
way a replayer treats decisions.

The Q node stores ``metadata = {"redactions": [...], "redactions_content_hash": ...}``
(:func:`redaction_metadata`); ``node_content_for_llm`` replays the tokens in reverse span
order and falls back to the raw content when the hash no longer matches.

What is masked is never at rest in clear: :attr:`Redaction.at_rest` is the text the workspace
keeps (dialogue tree, its titles and journal): every ``mask`` span already replaced by its token,
and the metadata re-based on that text, so replaying it is the identity and the ``record`` and
``ignore`` spans the person chose to keep still replay as before.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from familiars.config import PrivacySettings
from familiars.memory._embeddings import content_hash as _sha256_hex

__all__ = [
    "KINDS",
    "MASK_TOKENS",
    "Discovery",
    "Redaction",
    "Redactor",
    "StoredText",
    "apply_redactions",
    "content_hash",
    "luhn_valid",
    "redaction_metadata",
    "scan",
]

KINDS: tuple[str, ...] = ("api_key", "password", "card", "email", "phone")
MASK_TOKENS: Mapping[str, str] = {
    "api_key": "[API_KEY]",
    "password": "[PASSWORD]",
    "card": "[CARD]",
    "email": "[EMAIL]",
    "phone": "[PHONE]",
}
# When two finds overlap, the more specific kind wins (a card number can look like a phone
# number; an API key can contain an '@').
_PRIORITY = {"api_key": 0, "password": 1, "card": 2, "email": 3, "phone": 4}


@dataclass(frozen=True, slots=True)
class Discovery:
    """One thing found: ``text[start:end]`` is of ``kind``."""

    start: int
    end: int
    kind: str
    decision: str
    token: str

    def as_metadata(self) -> dict[str, Any]:
        """The §5.5.2 form stored in ``node.metadata['redactions']``."""
        return {
            "span": [self.start, self.end],
            "kind": self.kind,
            "decision": self.decision,
            "token": self.token,
        }


@dataclass(frozen=True, slots=True)
class StoredText:
    """A message as the workspace keeps it (see :attr:`Redaction.at_rest`)."""

    content: str
    metadata: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Redaction:
    """The result of scanning one message."""

    content: str
    discoveries: tuple[Discovery, ...]

    @property
    def metadata(self) -> dict[str, Any]:
        return redaction_metadata(self.content, self.discoveries)

    @property
    def masked(self) -> str:
        """The text a model provider may see."""
        return apply_redactions(self.content, self.metadata)

    @property
    def at_rest(self) -> StoredText:
        """The text the workspace keeps, and its metadata: masked spans never in clear."""
        content, kept, shift, last = "", [], 0, 0
        for d in sorted(self.discoveries, key=lambda d: d.start):
            content += self.content[last : d.start]
            start = d.start + shift
            body = d.token if d.decision == "mask" else self.content[d.start : d.end]
            content += body
            kept.append(Discovery(start, start + len(body), d.kind, d.decision, d.token))
            shift += len(body) - (d.end - d.start)
            last = d.end
        content += self.content[last:]
        return StoredText(content, redaction_metadata(content, kept))

    def kinds(self) -> set[str]:
        return {d.kind for d in self.discoveries}


# ---------------------------------------------------------------------------------------------
# Candidate finders: each yields (start, end) spans of one kind.

_KEY_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"(?<![\w-])sk-(?:[A-Za-z0-9]+-){0,3}[A-Za-z0-9_-]{16,}"),  # OpenAI, Anthropic
    re.compile(r"(?<!\w)gh[pousr]_[A-Za-z0-9]{30,255}"),  # GitHub tokens
    re.compile(r"(?<!\w)github_pat_[A-Za-z0-9_]{22,255}"),
    re.compile(r"(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}"),  # Slack
    re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}(?![A-Za-z0-9])"),
    re.compile(r"(?<![\w-])AIza[0-9A-Za-z_-]{35}"),  # Google API keys
    re.compile(r"(?<![\w-])glpat-[0-9A-Za-z_-]{20,}"),  # GitLab
    re.compile(r"(?<!\w)eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),  # JWT
    re.compile(r"(?<![\w:])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])"),  # Telegram bot token
)
# The secret is the second group; the label before it stays readable.
_LABELLED_SECRET = re.compile(
    r"(?i)\b(bearer\s+|(?:api[_-]?key|access[_-]?token|auth[_-]?token|secret[_-]?key|"
    r"client[_-]?secret|token|secret|password|passwd)\s*[:=]\s*[\"']?)"
    r"([A-Za-z0-9._~+/=-]{8,})"
)
_LONG_TOKEN = re.compile(r"(?<![A-Za-z0-9_=/-])[A-Za-z0-9_=-]{32,}(?![A-Za-z0-9_=/-])")
_WORDY_RUN = re.compile(r"[a-z]{4,}")
_URL_WORD = re.compile(r"(?i)\b(?:https?|ftp)://\S+")


def _shannon_bits(text: str) -> float:
    counts = Counter(text)
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _looks_random(token: str) -> bool:
    """Long, mixes cases and digits, and has the entropy of random base62 (≈5.9 bits/char at
    length 62; a camel-case identifier stays well below)."""
    core = token.strip("=-_")
    if len(core) < 32:
        return False
    upper = sum(c.isupper() for c in core)
    lower = sum(c.islower() for c in core)
    digits = sum(c.isdigit() for c in core)
    if upper < 3 or lower < 3 or digits < 3:
        return False
    # Identifiers (``MyClass2Handler3Factory``) are mostly runs of lower-case letters; in
    # random base62 a run of four or more is rare (about 3% of positions).
    wordy = sum(len(run) for run in _WORDY_RUN.findall(core))
    if wordy > 0.3 * len(core):
        return False
    return _shannon_bits(core) >= 4.3


def _find_api_keys(text: str) -> Iterator[tuple[int, int]]:
    for pattern in _KEY_PATTERNS:
        for m in pattern.finditer(text):
            yield m.span()
    for m in _LABELLED_SECRET.finditer(text):
        value = m.group(2)
        if m.group(1).lower().startswith("bearer") or _has_letter_and_digit(value):
            yield m.span(2)
    urls = [u.span() for u in _URL_WORD.finditer(text)]
    for m in _LONG_TOKEN.finditer(text):
        # Ids inside links (video, playlist, commit) are not secrets; keys in links are
        # caught above by their prefix or label (``?api_key=...``).
        if any(s <= m.start() < e for s, e in urls):
            continue
        if _looks_random(m.group()):
            yield m.span()


def _has_letter_and_digit(value: str) -> bool:
    return any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


_CARD = re.compile(r"(?<![\d.,/:-])(?:\d[ -]?){12,18}\d(?![\d.,/:]\d|\d)")


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum of a string of digits."""
    if not digits.isdigit():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _card_groups_ok(raw: str) -> bool:
    """Separators, when used, are single and consistent (``4111 1111 1111 1111``)."""
    seps = {c for c in raw if not c.isdigit()}
    if len(seps) > 1:
        return False
    groups = re.split(r"[ -]", raw)
    return len(groups) == 1 or all(len(g) >= 3 for g in groups)


def _find_cards(text: str) -> Iterator[tuple[int, int]]:
    for m in _CARD.finditer(text):
        raw = m.group()
        digits = re.sub(r"\D", "", raw)
        if not 13 <= len(digits) <= 19 or digits[0] not in "23456":
            continue
        if _card_groups_ok(raw) and luhn_valid(digits):
            yield m.span()


_EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9](?:[A-Za-z0-9._%+-]{0,62}[A-Za-z0-9_%+-])?"
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![\w-])"
)


def _find_emails(text: str) -> Iterator[tuple[int, int]]:
    for m in _EMAIL.finditer(text):
        if ".." not in m.group():
            yield m.span()


_PHONE_PATTERNS: tuple[re.Pattern[str], ...] = (
    # International: +CC then groups separated by single spaces, dots, dashes or parentheses.
    re.compile(r"(?<![\w+])\+\d{1,3}(?:[ .-]?\(?\d{1,5}\)?){2,6}(?![\w.]\d|\w)"),
    # North American: (555) 123-4567, 555-123-4567, 555.123.4567, 1-555-123-4567.
    re.compile(
        r"(?<![\w.+-])(?:1[ .-])?(?:\(\d{3}\)\s?|\d{3}([ .-]))\d{3}[ .-]\d{4}(?![\w]|[.-]\d)"
    ),
    # National with a trunk zero: 020 7946 0958, 030-1234-5678, 06 12 34 56 78.
    re.compile(r"(?<![\w.+/:-])0\d{1,4}(?:[ -]\d{2,8}){1,4}(?![\w]|[.:/-]\d)"),
)
_PHONE_CONTEXT = re.compile(
    r"(?i)\b(?:phone|tel|telephone|mobile|cell|whatsapp|signal|call me|text me|sms)\b"
    r"[^\d\n]{0,15}(\+?\d{9,15})(?!\d)"
)


_DATE_SHAPE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}-\d{1,2}-\d{4}")


def _find_phones(text: str) -> Iterator[tuple[int, int]]:
    for pattern in _PHONE_PATTERNS:
        for m in pattern.finditer(text):
            digits = sum(c.isdigit() for c in m.group())
            if 9 <= digits <= 15 and not _DATE_SHAPE.search(m.group()):
                yield m.span()
    for m in _PHONE_CONTEXT.finditer(text):
        yield m.span(1)


_PASSWORD = re.compile(
    r"(?i)\b(?:password|passcode|passphrase|passwd|pwd)\b(?:\s+(?:is|was|will be)\s+|\s*[:=]\s*)"
    r"[\"'“]?([^\s\"'”,;]{3,64})"
)


# A PIN or a code that opens something (tester F16: "my bank PIN is 4921" was kept in
# clear): "PIN: 0042", "the door code is 1234", "the code for the gate is 2580", "the
# combination is 12-34-56". A secret as a password is, so the same kind and setting.
_CODE_LABEL = (
    r"\bpin(?:\s+(?:code|number))?"
    r"|\b(?:security|door|access|alarm|gate|entry|entrance|safe|lock|keypad|garage|building|"
    r"wi-?fi|unlock|sim|puk|atm|card)\s+code"
    r"|\bcode\s+(?:for|to|of)\s+(?:(?:the|my|our|his|her|their|this)\s+)?[\w'-]+"
    r"(?:\s+[\w'-]+){0,2}?"
    r"|\bcombination(?:\s+(?:for|to|of)\s+(?:(?:the|my|our)\s+)?[\w'-]+(?:\s+[\w'-]+){0,2}?)?"
)
_CODE = re.compile(
    rf"(?i)(?:{_CODE_LABEL})\b(?P<sep>\s+(?:is|was|will\s+be)\s+|\s*[:=]\s*|\s+)"
    r"(?P<value>\d(?:[ -]?\d){2,11}(?![\d:.,]\d)(?!\d)|(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{4,32}\b)"
)
# Codes that are no secret: "the zip code for Beverly Hills is 90210".
_PUBLIC_CODES = frozenset({
    "zip", "postal", "post", "postcode", "area", "country", "dialling", "dialing", "dress",
    "error", "status", "promo", "discount", "coupon", "voucher", "referral", "source", "qr",
    "bar", "tax", "sort", "swift", "iata", "airport", "morse", "colour", "color", "language",
    "product", "course", "class", "station",
})  # fmt: skip


# The short words people use for a password or PIN (tester s38: "my insta pw is
# skaterboi2009" was kept in clear): only as "my/your/... [up to two words] pw is X" or
# "pw: X" / "pw = X", so "pass the salt", "pin it to the board" or "the pass is 12km
# long" (a mountain pass) are no label; the value must still look like a password.
_SHORT_LABEL = r"(?:pw|pwd|passwd|pass|passcode|pin|login|pword)"
_SHORT_PASSWORD = re.compile(
    rf"(?i)\b(?:my|your|his|her|our|their)\s+(?:[\w'-]+\s+){{0,2}}?{_SHORT_LABEL}\b"
    r"\s+(?:is|was|will be)\s+[\"'“]?(?P<said>[^\s\"'”,;]{3,64})"
    rf"|\b{_SHORT_LABEL}\s*[:=]\s*[\"'“]?(?P<labelled>[^\s\"'”,;]{{3,64}})"
)


def _password_span(m: re.Match[str], group: int | str) -> Iterator[tuple[int, int]]:
    """The span of a labelled value that looks like a password (none when it does not)."""
    value = m.group(group).rstrip(".!?")
    if _looks_like_password(value):
        yield m.start(group), m.start(group) + len(value)


# A sign-in told as a pair, the name (an e-mail, or a value a login label names) and then
# its password: "my netflix login is x@y.com / sunflower77", "netflix: bob@mail.com pw
# sunflower77", "spotify: anna@mail.com | Hunter22" (the password was kept in clear: the
# label named the first value only). The password follows a password word, or a "/" or
# "|" in a sign-in's context (a login word before it, or "Name:" just before the e-mail);
# it must still look like a password, so "email me at bob@mail.com, I'm in till 5" is no
# pair.
_LOGIN_WORD = r"(?:log-?in|sign-?in|account|acct|user\s?name|user\s?id|credentials|creds)"
_PW_WORD = r"(?:password|passwd|passcode|passphrase|pwd|pw|pass|pword)"
_THEN_SECRET = (
    r"(?P<sep>\s*[/|]\s*|,?\s+(?:and\s+)?(?:(?:the|my|its|their)\s+)?"
    rf"(?P<pw>{_PW_WORD})\b(?:\s+(?:is|was)\b|\s*[:=])?\s*)"
    r"[\"'“]?(?P<value>[^\s\"'”,;]{3,64})"
)
_EMAIL_THEN_SECRET = re.compile(rf"(?i){_EMAIL.pattern}{_THEN_SECRET}")
_LOGIN_THEN_SECRET = re.compile(
    rf"(?i)\b{_LOGIN_WORD}\b(?:\s+(?:for|to|on|at)\s+[\w'-]+(?:\s+[\w'-]+)?)?"
    rf"(?:\s+(?:is|was)\s+|\s*[:=]\s*)[\"'“]?[^\s\"'”,;/|]{{2,64}}?[\"'”]?{_THEN_SECRET}"
)
_SIGN_IN_BEFORE = re.compile(rf"(?i)\b{_LOGIN_WORD}\b|^\s*[\w' -]{{1,30}}:\s*$")


def _find_credentials(text: str) -> Iterator[tuple[int, int]]:
    """The password of a name-and-password pair (see :data:`_THEN_SECRET`); after a bare
    "/" or "|" digits alone are a number ("contact: bob@mail.com / 07700 900123")."""
    for m in _LOGIN_THEN_SECRET.finditer(text):
        if m["pw"] or not m["value"].isdigit():
            yield from _password_span(m, "value")
    for m in _EMAIL_THEN_SECRET.finditer(text):
        clause = re.split(r"[.!?\n]\s", text[: m.start()])[-1]
        if m["pw"] or (_SIGN_IN_BEFORE.search(clause) and not m["value"].isdigit()):
            yield from _password_span(m, "value")


def _find_passwords(text: str) -> Iterator[tuple[int, int]]:
    yield from _find_credentials(text)
    for m in _PASSWORD.finditer(text):
        yield from _password_span(m, 1)
    for m in _SHORT_PASSWORD.finditer(text):
        yield from _password_span(m, "said" if m["said"] else "labelled")
    for m in _CODE.finditer(text):
        before = text[: m.start()].split()[-1:]
        if before and before[0].lower().strip(".,;:!?'\"") in _PUBLIC_CODES:
            continue
        value = m["value"]
        bare = not m["sep"].strip()  # "card pin 8812": no "is", so digits only, four or more
        if bare and not (value.isdigit() and len(value) >= 4):
            continue
        yield m.span("value")


def _looks_like_password(value: str) -> bool:
    """'hunter2', 'Tr0ub4dor&3', 'correcthorsebattery'; not 'great' or 'the same'."""
    return (
        any(c.isdigit() or not c.isalnum() for c in value)
        or any(c.isupper() for c in value[1:])
        or len(value) >= 10
    )


_FINDERS: Mapping[str, Callable[[str], Iterable[tuple[int, int]]]] = {
    "api_key": _find_api_keys,
    "password": _find_passwords,
    "card": _find_cards,
    "email": _find_emails,
    "phone": _find_phones,
}


def _choose(candidates: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Non-overlapping spans: more specific kind first, then the longer span, then earlier."""
    ordered = sorted(candidates, key=lambda c: (_PRIORITY[c[2]], -(c[1] - c[0]), c[0]))
    taken: list[tuple[int, int, str]] = []
    for start, end, kind in ordered:
        if all(end <= s or start >= e for s, e, _ in taken):
            taken.append((start, end, kind))
    return sorted(taken)


def scan(text: str, privacy: PrivacySettings | None = None) -> list[Discovery]:
    """Every secret or piece of personal data in ``text``, in span order, non-overlapping."""
    privacy = privacy or PrivacySettings()
    candidates = [
        (start, end, kind)
        for kind, finder in _FINDERS.items()
        for start, end in finder(text)
        if end > start
    ]
    out: list[Discovery] = []
    for start, end, kind in _choose(candidates):
        decision = str(getattr(privacy, kind))
        token = MASK_TOKENS[kind] if decision == "mask" else text[start:end]
        out.append(Discovery(start, end, kind, decision, token))
    return out


# ---------------------------------------------------------------------------------------------
# Node metadata (§5.5.2) and its replay.


def content_hash(content: str) -> str:
    """The hash stored as ``redactions_content_hash``: SHA-256 hex of the UTF-8 content, the
    same function ``node_content_for_llm`` checks it with."""
    try:
        return _sha256_hex(content)
    except UnicodeEncodeError:  # lone surrogates: hash them as they are rather than fail
        return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()


def redaction_metadata(content: str, discoveries: Iterable[Discovery]) -> dict[str, Any]:
    """``{"redactions": [...], "redactions_content_hash": ...}`` for the Q node's metadata."""
    return {
        "redactions": [d.as_metadata() for d in discoveries],
        "redactions_content_hash": content_hash(content),
    }


def apply_redactions(content: str, metadata: Mapping[str, Any]) -> str:
    """Replay stored decisions on ``content`` (what ``node_content_for_llm`` does): tokens in
    reverse span order; the raw content when the hash does not match or an entry is unusable."""
    redactions = metadata.get("redactions") or []
    if not redactions:
        return content
    if metadata.get("redactions_content_hash") != content_hash(content):
        return content
    spans: list[tuple[int, int, str]] = []
    for item in redactions:
        try:
            start, end = (int(v) for v in item["span"])
            token = str(item["token"])
        except (KeyError, TypeError, ValueError):
            return content
        if not 0 <= start <= end <= len(content):
            return content
        spans.append((start, end, token))
    out = content
    for start, end, token in sorted(spans, reverse=True):
        out = out[:start] + token + out[end:]
    return out


class Redactor:
    """The scanner bound to one ``PrivacySettings``; what the dialogue manager holds."""

    def __init__(self, privacy: PrivacySettings | None = None) -> None:
        self.privacy = privacy or PrivacySettings()

    def scan(self, text: str) -> Redaction:
        return Redaction(text, tuple(scan(text, self.privacy)))

    def metadata(self, text: str) -> dict[str, Any]:
        """The Q node's redaction metadata for ``text``."""
        return self.scan(text).metadata
