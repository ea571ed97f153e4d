"""The seven ranking knobs, as side-effect-free functions with an ``explain`` breakdown.

Six are file-level signals (:data:`FILE_SIGNALS`, run by the shared
:func:`~familiars.memory._scoring.compute_signals`: bonuses add, factors multiply); the
seventh (``synonyms``) widens the query. Each can be switched off by name, for ablation, with
the ``files.ablate`` setting (``FAMILIARS_ABLATE_KNOB`` is its shorthand) or the ``ablate``
argument of the finder:

=====================  ==============================================================
``synonyms``           the query "lease" also searches "rental agreement", "tenancy"
``extension_boost``    the query says "the PDF" and the file is a .pdf: score x2
``wrong_extension``    the reciprocal: says "the spreadsheet", file is a PDF: score x0.5
``opaque_name``        AgADxxx_4321.jpg, UUIDs, long hex: score x0.5
``folder_synonym``     the query says "taxes" and the file is in /2024-Returns/: +0.10
``filename_overlap``   each query word found in the file name: +0.08 (at most +0.24)
``filename_coverage``  the file name holds most of the query's words: +0.20 x coverage
=====================  ==============================================================
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import PurePath

import snowballstemmer

from familiars.llm import text_cache
from familiars.memory._documents.chunking import name_words
from familiars.memory._scoring import (
    KnobRegistry,
    Signal,
    SignalGate,
    compute_signals,
    parse_knobs,
    signal_knobs,
)

EXTENSION_BOOST = 2.0
WRONG_EXTENSION_FACTOR = 0.5
OPAQUE_FACTOR = 0.5
FOLDER_BONUS = 0.10
OVERLAP_BONUS_PER_WORD = 0.08
OVERLAP_BONUS_MAX = 0.24
COVERAGE_BONUS = 0.20
COVERAGE_MIN = 0.5
FOLDER_DEPTH = 3

#: Words of one group stand in for each other. Multi-word entries add each of their words.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("lease", "rental agreement", "tenancy", "rent", "landlord"),
    ("tax", "taxes", "tax return", "returns", "irs", "hmrc", "w2", "1099"),
    ("invoice", "bill", "receipt", "billing"),
    ("resume", "cv", "curriculum vitae"),
    ("contract", "agreement"),
    ("license", "licence", "licensing", "copyright"),
    ("manual", "guide", "handbook", "documentation", "docs", "howto"),
    ("changelog", "changes", "news", "release notes"),
    ("medical", "health", "doctor", "prescription"),
    ("insurance", "policy", "coverage"),
    ("bank", "statement", "account"),
    ("salary", "payslip", "paystub", "pay stub", "wages"),
    ("photo", "picture", "image", "pic"),
    ("car", "vehicle", "auto"),
    ("config", "configuration", "settings", "conf"),
    ("error", "exception", "errors"),
    ("recipe", "cooking", "cookbook"),
    ("travel", "trip", "itinerary", "flight", "booking"),
)

_SHEETS = frozenset({".csv", ".tsv", ".xlsx", ".xls", ".ods"})
#: Words that always name a file type, and the extensions that type covers.
TYPE_WORDS: dict[str, frozenset[str]] = {
    "pdf": frozenset({".pdf"}),
    "pdfs": frozenset({".pdf"}),
    "docx": frozenset({".docx", ".doc"}),
    "spreadsheet": _SHEETS,
    "spreadsheets": _SHEETS,
    "markdown": frozenset({".md", ".markdown"}),
    "txt": frozenset({".txt"}),
}
#: Words that name a type only before "file", "document", ... ("the csv file", "a python
#: script"); alone they are topics ("the csv module", "html parser").
WEAK_TYPE_WORDS: dict[str, frozenset[str]] = {
    "word": frozenset({".docx", ".doc"}),
    "csv": frozenset({".csv"}),
    "tsv": frozenset({".tsv"}),
    "python": frozenset({".py", ".pyi"}),
    "shell": frozenset({".sh", ".bash"}),
    "json": frozenset({".json"}),
    "yaml": frozenset({".yaml", ".yml"}),
    "html": frozenset({".html", ".htm"}),
    "text": frozenset({".txt", ".text"}),
}
_TYPE_NOUNS = frozenset({"file", "files", "document", "doc", "script", "source", "sheet"})

_STOPWORDS_TEXT = """
    a an the my our your his her their its this that these those of in on at to for from
    by with about into and or not no is are was were be been do does did what which where who
    whom whose how why when find show get give me i we you it there file files document
    documents doc docs thing one some any all say says said tell please can could would should
    have has had keep kept sent send saved put look looking need"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
HISTORY_CUES = frozenset(
    {"before", "earlier", "previous", "previously", "older", "original", "prior", "history"}
)

_OPAQUE_PATTERNS = (
    re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I),
    re.compile(r"^(AgAD|AQAD|BQAC|BAAC|CAAC|CQAC|AwAC|AgAC)[A-Za-z0-9_-]{6,}"),
    re.compile(r"^[0-9a-f]{16,}$", re.I),
    re.compile(r"^(?=[A-Za-z0-9_-]{20,}$)(?=.*[0-9])(?=.*[A-Z])(?=.*[a-z])[A-Za-z0-9_-]+$"),
    re.compile(r"^(file|document|attachment|download|unnamed|untitled)[_ -]?\d*$", re.I),
)
_WORD = re.compile(r"[\w']+", re.UNICODE)


def ablated_knobs(value: str | Iterable[str] | None) -> frozenset[str]:
    """File knob names from ``"a,b"`` or a list; an unknown name raises
    :class:`~familiars.memory.UnknownKnobError` (a ``ValueError``), not a silent no-op."""
    return parse_knobs(value if value is None or isinstance(value, str) else list(value), KNOBS)


_stemmer = snowballstemmer.stemmer("english")


@text_cache
@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return str(_stemmer.stemWord(word.lower()))


@lru_cache(maxsize=1)
def _synonym_index() -> dict[str, frozenset[str]]:
    index: dict[str, set[str]] = {}
    for group in SYNONYM_GROUPS:
        words = {w for phrase in group for w in phrase.split()}
        for phrase in group:
            for word in phrase.split():
                index.setdefault(stem(word), set()).update(words)
    return {k: frozenset(v) for k, v in index.items()}


def synonyms_of(word: str) -> frozenset[str]:
    return _synonym_index().get(stem(word), frozenset()) - {word}


@dataclass(frozen=True)
class ParsedQuery:
    text: str
    words: tuple[str, ...]  # content words, lower case, in order, no stopwords or type words
    expanded: tuple[str, ...]  # words plus their synonyms (when the knob is on)
    wanted_exts: frozenset[str]
    type_words: tuple[str, ...]
    wants_history: bool
    stems: frozenset[str] = field(default_factory=frozenset)
    expanded_stems: frozenset[str] = field(default_factory=frozenset)


def parse_query(text: str, *, ablate: Iterable[str] = ()) -> ParsedQuery:
    off = frozenset(ablate)
    tokens = [t.strip("'").lower() for t in _WORD.findall(text)]
    tokens = [t for t in tokens if t]
    typed = _type_positions(tokens)
    type_words = tuple(tokens[i] for i in sorted(typed))
    wanted: set[str] = set()
    for i in typed:
        wanted |= typed[i]
    words = tuple(
        dict.fromkeys(
            t
            for i, t in enumerate(tokens)
            if t not in STOPWORDS and t not in HISTORY_CUES and i not in typed
        )
    )
    if not words:  # "the PDF": keep the type word so there is something to search
        words = tuple(dict.fromkeys(type_words))
    expanded = list(words)
    if "synonyms" not in off:
        for word in words:
            expanded.extend(sorted(synonyms_of(word)))
    expanded_words = tuple(dict.fromkeys(expanded))
    return ParsedQuery(
        text=text,
        words=words,
        expanded=expanded_words,
        wanted_exts=frozenset(wanted),
        type_words=type_words,
        wants_history=any(t in HISTORY_CUES for t in tokens),
        stems=frozenset(stem(w) for w in words),
        expanded_stems=frozenset(stem(w) for w in expanded_words),
    )


def _type_positions(tokens: list[str]) -> dict[int, frozenset[str]]:
    found: dict[int, frozenset[str]] = {}
    for i, token in enumerate(tokens):
        if token in TYPE_WORDS:
            found[i] = TYPE_WORDS[token]
        elif token in WEAK_TYPE_WORDS and i + 1 < len(tokens) and tokens[i + 1] in _TYPE_NOUNS:
            found[i] = WEAK_TYPE_WORDS[token]
    return found


def is_opaque_name(name: str) -> bool:
    """A machine-made name (Telegram file ids, UUIDs, hashes) no person typed."""
    stem_part = PurePath(name).stem
    return any(p.search(stem_part) for p in _OPAQUE_PATTERNS)


@dataclass(frozen=True)
class FileFacts:
    """What the knobs look at besides the query: a file's name, folder and extension."""

    name: str
    folder: str
    ext: str

    # Computed once per file: the finder keeps these objects for as long as its matrix.
    @cached_property
    def name_stems(self) -> frozenset[str]:
        return frozenset(stem(w) for w in name_words(PurePath(self.name).stem))

    @cached_property
    def folder_stems(self) -> frozenset[str]:
        parts = PurePath(self.folder).parts[-FOLDER_DEPTH:] if self.folder else ()
        return frozenset(stem(w) for part in parts for w in name_words(part))

    @cached_property
    def opaque(self) -> bool:
        return is_opaque_name(self.name)


@dataclass(frozen=True)
class FileContext:
    """One file's best fused chunk, seen by the file signals."""

    query: ParsedQuery
    facts: FileFacts
    gate: SignalGate

    @property
    def match_stems(self) -> frozenset[str]:
        return self.query.expanded_stems if self.gate.on("synonyms") else self.query.stems


def filename_overlap(ctx: FileContext) -> float | None:
    hits = len(ctx.match_stems & ctx.facts.name_stems)
    return min(OVERLAP_BONUS_PER_WORD * hits, OVERLAP_BONUS_MAX) if hits else None


def filename_coverage(ctx: FileContext) -> float | None:
    stems = ctx.query.stems
    if not stems:
        return None
    name_stems = ctx.facts.name_stems
    use_synonyms = ctx.gate.on("synonyms")
    covered = sum(
        1 for s in stems if s in name_stems or (use_synonyms and _has_synonym_in(s, name_stems))
    )
    coverage = covered / len(stems)
    return coverage if coverage >= COVERAGE_MIN else None


def folder_synonym(ctx: FileContext) -> float | None:
    return 1.0 if ctx.query.expanded_stems & ctx.facts.folder_stems else None


def extension_boost(ctx: FileContext) -> bool:
    wanted = ctx.query.wanted_exts
    return bool(wanted) and ctx.facts.ext.lower() in wanted


def wrong_extension(ctx: FileContext) -> bool:
    wanted = ctx.query.wanted_exts
    return bool(wanted) and ctx.facts.ext.lower() not in wanted


def opaque_name(ctx: FileContext) -> bool:
    return ctx.facts.opaque


#: Bonuses first (added to the fused score, in this order), then factors. A bonus signal's
#: value is its added amount (weight 1) or the fraction of its weight it earns.
FILE_SIGNALS: tuple[Signal[FileContext], ...] = (
    Signal("filename_overlap", 1.0, filename_overlap, knob="filename_overlap", bonus=True,
           why="each query word found in the file name: +0.08 (at most +0.24)"),
    Signal("filename_coverage", COVERAGE_BONUS, filename_coverage, knob="filename_coverage",
           bonus=True, why="the file name holds most of the query's words: +0.20 x coverage"),
    Signal("folder_synonym", FOLDER_BONUS, folder_synonym, knob="folder_synonym", bonus=True,
           why="the query says 'taxes' and the file is in /2024-Returns/: +0.10"),
    Signal("extension_boost", EXTENSION_BOOST, extension_boost, knob="extension_boost",
           factor=True, why="the query says 'the PDF' and the file is a .pdf: score x2"),
    Signal("wrong_extension", WRONG_EXTENSION_FACTOR, wrong_extension, knob="wrong_extension",
           factor=True, why="says 'the spreadsheet', the file is a PDF: score x0.5"),
    Signal("opaque_name", OPAQUE_FACTOR, opaque_name, knob="opaque_name", factor=True,
           why="AgADxxx_4321.jpg, UUIDs, long hex: score x0.5"),
)  # fmt: skip

#: Every file knob: the query's synonyms, then the file signals.
KNOBS = KnobRegistry(
    {
        "synonyms": "the query 'lease' also searches 'rental agreement', 'tenancy'",
        **signal_knobs(FILE_SIGNALS),
    }
)


def apply_knobs(
    base: float, query: ParsedQuery, facts: FileFacts, *, ablate: Iterable[str] = ()
) -> tuple[float, dict[str, float]]:
    """The final score of a file whose best chunk fused to ``base``, and what each knob did
    (additive bonuses as added amounts, factors as multipliers; only knobs that fired)."""
    ctx = FileContext(query, facts, SignalGate(frozenset(ablate)))
    values = compute_signals(FILE_SIGNALS, ctx, ctx.gate)
    score = base + sum(values.bonus.values())
    for factor in values.factors.values():
        score *= factor
    return score, {**values.bonus, **values.factors}


def _has_synonym_in(word_stem: str, name_stems: frozenset[str]) -> bool:
    group = _synonym_index().get(word_stem)
    return bool(group) and any(stem(w) in name_stems for w in group)  # type: ignore[union-attr]
