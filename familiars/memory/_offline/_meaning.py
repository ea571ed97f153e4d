"""Understanding by meaning: what a clause is about, read from its sentence embedding.

The rules (``_patterns``, ``_people``...) know phrasings; this module knows meanings. A
clause the rules found nothing in is embedded with the loaded sentence embedder and given a
*slot* (name, job, workplace, home, pet, family, like, dislike, allergy, or none: small
talk, questions, other people, moods) by a small softmax classifier over the embedding
(:class:`SlotModel`; weights in ``meaning_weights.json``, trained by
``scripts/train_meaning.py`` on the exemplars in ``meaning_exemplars.jsonl`` and the dev
split of the writer bench, never on its held sets). The value is then taken with light,
general syntax (:mod:`._values`): the word after "called"/"named", the noun after "my",
the object after the verb. A slot below :data:`MIN_PROBABILITY` writes nothing: a missed
fact costs less than a wrong one.

:class:`Understanding` is what the writer is handed: the embedder's ``embed_batch``, the
model, and the parts switched on (:data:`PARTS`, for the bench's ablation). Without one the
writer is the rules alone, as before.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from familiars.llm import object_text_store
from familiars.memory._offline._objects import Fact
from familiars.memory._offline._stance import claims_now
from familiars.memory._offline._values import (
    SURE,
    capitalised_name,
    known_home,
    known_job,
    named_mine,
    relative_job,
    value_fact,
)

logger = logging.getLogger(__name__)

WEIGHTS_FILE = Path(__file__).parent / "meaning_weights.json"
EXEMPLARS_FILE = Path(__file__).parent / "meaning_exemplars.jsonl"
#: The model the weights were trained on: other embedders do not get the learned part.
MODEL_NAME = "all-MiniLM-L6-v2"
#: What a question may ask about: a slot, birthday, everything ("what do you know about
#: me?"), or none of the person's facts.
QUESTION_SLOTS = (
    "none",
    "all",
    "name",
    "job",
    "workplace",
    "home",
    "pet",
    "family",
    "like",
    "dislike",
    "allergy",
    "birthday",
)
SLOTS = (
    "none",
    "name",
    "job",
    "workplace",
    "home",
    "pet",
    "family",
    "like",
    "dislike",
    "allergy",
)
#: The parts of understanding by meaning, each switched off by name in the ablation:
#: ``slots`` (a clause the rules missed, read by its slot), ``changes`` (a change of mind
#: found by slot and meaning), ``nouns`` (whether a noun is a pet, a relative or a job,
#: by its nearest labelled words), ``answers`` (a question matched to records by what it
#: asks and by meaning).
PARTS = ("slots", "changes", "nouns", "answers")
MIN_PROBABILITY = 0.5
#: Slots whose reader checks by meaning that the noun is of the slot's kind: read when
#: likeliest though unsure, if the clause names the one it is about ("called", "named").
NOUN_CHECKED = ("pet", "family")
_NAMING = re.compile(r"\b(?:called|named)\s+[A-Z]")
#: The runner-up slot is read too when at least this likely, and the likeliest at least
#: :data:`MIN_RUNNER_UP_TOP` (both then read by syntax, which must find a value).
MIN_RUNNER_UP = 0.3
MIN_RUNNER_UP_TOP = 0.4
#: A message this close to a labelled sentence of self-harm (and closer than to any
#: look-alike) gets the crisis reply.
MIN_HARM_SIMILARITY = 0.5
#: A question the question model gives no slot, or unsurely, takes the slot of its nearest
#: labelled question when at least this near.
MIN_NEAR_QUESTION = 0.6
#: Shorter messages are left to the rule: two words carry too little meaning to be sure.
MIN_HARM_WORDS = 4


@dataclass(frozen=True)
class SlotModel:
    """Softmax regression over unit sentence vectors: ``probs = softmax(x @ w + b)``."""

    labels: tuple[str, ...]
    weights: np.ndarray
    bias: np.ndarray
    model: str = MODEL_NAME

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        logits = vectors @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        out: np.ndarray = e / e.sum(axis=1, keepdims=True)
        return out

    def to_json(self) -> dict[str, object]:
        return {
            "model": self.model,
            "labels": list(self.labels),
            "bias": [round(float(b), 5) for b in self.bias],
            "weights": [[round(float(v), 5) for v in row] for row in self.weights],
        }


@lru_cache(maxsize=4)
def load_slot_model(path: Path = WEIGHTS_FILE, part: str = "clauses") -> SlotModel:
    """The shipped model of ``part``: ``clauses`` (what a statement tells) or ``questions``
    (what a question asks about)."""
    data = json.loads(path.read_text(encoding="utf-8"))[part]
    return SlotModel(
        labels=tuple(data["labels"]),
        weights=np.asarray(data["weights"], dtype=np.float32),
        bias=np.asarray(data["bias"], dtype=np.float32),
        model=data.get("model", MODEL_NAME),
    )


@lru_cache(maxsize=1)
def noun_exemplars(path: Path = EXEMPLARS_FILE) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(label, word) pairs of the labelled nouns, as two parallel tuples."""
    labels: list[str] = []
    words: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line) if line.strip() else {}
        if "noun" in row:
            labels += [row["noun"]] * len(row["words"])
            words += row["words"]
    return tuple(labels), tuple(words)


@lru_cache(maxsize=1)
def question_exemplars(path: Path = EXEMPLARS_FILE) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(slot, question) pairs of the labelled questions, lower case."""
    labels: list[str] = []
    texts: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line) if line.strip() else {}
        if "question" in row:
            labels += [row["question"]] * len(row["texts"])
            texts += [t.lower() for t in row["texts"]]
    return tuple(labels), tuple(texts)


@lru_cache(maxsize=1)
def care_exemplars(path: Path = EXEMPLARS_FILE) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(label, sentence) pairs for care: ``harm`` and look-alike ``safe`` sentences."""
    labels: list[str] = []
    texts: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line) if line.strip() else {}
        if "care" in row:
            labels += [row["care"]] * len(row["texts"])
            texts += [t.lower() for t in row["texts"]]
    return tuple(labels), tuple(texts)


Embed = Callable[[list[str]], np.ndarray]

#: Mixed-case and non-ASCII texts: a model that reads case alike (its tokenizer lowercases,
#: as all-MiniLM-L6-v2's does) gives each the vector of its lowercase text.
CASE_PROBES = ("İstanbul ÉCOLE", "Die Straße GROSS", "Some Nights I Wish I Could DISAPPEAR")


def lowers_alike(text: str) -> bool:
    """Whether ``text`` lowercases the same letter by letter (as a tokenizer does) and as
    a whole (``str.lower``, which writes a word's last capital sigma as "ς", not "σ")."""
    return "".join(c.lower() for c in text) == text.lower()


@dataclass
class Understanding:
    """The learned part of the offline writer: an embedder, the slot model, the parts on."""

    embed: Embed
    model: SlotModel
    questions: SlotModel | None = None
    parts: frozenset[str] = frozenset(PARTS)
    #: Whether the model reads case alike (None: not yet known; probed once, when a turn
    #: first offers its message's vector to :meth:`sounds_like_harm`).
    uncased: bool | None = None
    _cache: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _fixed: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        # Its vectors are keyed by the messages' own text: a forget empties them.
        object_text_store(
            "Understanding._cache",
            self,
            lambda u: u.forget_cache(force=True),
            lambda u: len(u._cache),
        )

    def reads_case_alike(self) -> bool:
        """Whether each of :data:`CASE_PROBES` gets its lowercase text's vector (within
        float noise): then a message's vector stands for its lowercase text's."""
        if self.uncased is None:
            probes = list(CASE_PROBES)
            vecs = np.asarray(self.embed(probes + [p.lower() for p in probes]))
            n = len(probes)
            self.uncased = bool(np.allclose(vecs[:n], vecs[n:], rtol=0.0, atol=1e-5))
        return self.uncased

    def has(self, part: str) -> bool:
        return part in self.parts

    def know(self, text: str, vector: np.ndarray | None) -> None:
        """``vector``, ``text``'s own (the turn's message, embedded for recall), stands for
        ``text.lower()``'s once the model is known to read case alike: the plan reads the
        message's slot and question without embedding it a second time (measured on the
        bundled model: one more model call, 14-48 ms, for every message with a capital)."""
        if vector is None or self.uncased is not True or not lowers_alike(text):
            return
        self.forget_cache()
        self._cache.setdefault(text.lower(), np.asarray(vector, dtype=np.float32))

    def vectors(self, texts: Sequence[str], *, fixed: bool = False) -> np.ndarray:
        """Unit vectors of ``texts``, each embedded once per Understanding; ``fixed``: the
        labelled exemplars, kept apart so that forgetting a turn's vectors keeps them."""
        cache = self._fixed if fixed else self._cache
        if not fixed:
            self.forget_cache()
        todo = [t for t in dict.fromkeys(texts) if t not in cache]
        if todo:
            for text, vec in zip(todo, self.embed(todo), strict=True):
                cache[text] = np.asarray(vec, dtype=np.float32)
        if not texts:
            return np.zeros((0, self.model.weights.shape[0]), dtype=np.float32)
        return np.stack([cache[t] for t in texts])

    def slot(self, clause: str) -> tuple[str, float]:
        """The clause's most likely slot and its probability."""
        probs = self.model.probabilities(self.vectors([clause.lower()]))[0]
        best = int(np.argmax(probs))
        return self.model.labels[best], float(probs[best])

    def slots(self, clause: str) -> list[tuple[str, float]]:
        """Every slot with its probability, likeliest first."""
        probs = self.model.probabilities(self.vectors([clause.lower()]))[0]
        order = np.argsort(-probs)
        return [(self.model.labels[int(i)], float(probs[int(i)])) for i in order]

    def asked(self, question: str) -> tuple[str, float]:
        """What ``question`` asks about (:data:`QUESTION_SLOTS`) and how surely. When the
        question model says no slot, or is unsure, the nearest labelled question decides if
        it is near enough and asks about a slot (nearer than any that asks about none): "who
        is the missus?" nears "who is my wife?"; its cosine is then the sureness."""
        if self.questions is None:
            return "none", 0.0
        vector = self.vectors([question.lower()])
        probs = self.questions.probabilities(vector)[0]
        best = int(np.argmax(probs))
        slot, sure = self.questions.labels[best], float(probs[best])
        if slot != "none" and sure >= MIN_PROBABILITY:
            return slot, sure
        labels, texts = question_exemplars()
        sims = self.vectors(texts, fixed=True) @ vector[0]
        near = max(range(len(labels)), key=lambda i: float(sims[i]))
        nearest_none = max((float(x) for x, k in zip(sims, labels, strict=True) if k == "none"))
        close = float(sims[near])
        if labels[near] != "none" and close >= MIN_NEAR_QUESTION and close > nearest_none:
            return labels[near], close
        return slot, sure

    def similarity(self, a: str, b: str) -> float:
        va, vb = self.vectors([a.lower(), b.lower()])
        return float(va @ vb)

    def noun_kind(self, noun: str) -> str:
        """``job``, ``pet``, ``family`` or ``other``: the class of ``noun``'s nearest labelled
        words ("cockatiel" is nearest "canary" and "budgie": a pet)."""
        labels, words = noun_exemplars()
        known = self.vectors(words, fixed=True)
        sims = known @ self.vectors([noun.lower()])[0]
        best: dict[str, float] = {}
        for label, sim in zip(labels, sims, strict=True):
            best[label] = max(best.get(label, -1.0), float(sim))
        return max(best, key=lambda k: best[k])

    def sounds_like_harm(self, text: str, vector: np.ndarray | None = None) -> bool:
        """Whether ``text`` speaks of self-harm or wanting to die, said indirectly ("some
        nights I wish I could just disappear and not wake up"), by its nearest labelled
        sentences: nearer those than the look-alikes ("this traffic is killing me").
        ``vector``: ``text``'s own, embedded already (the turn's message, for recall): used
        when the model reads case alike, instead of embedding the lowercase text again."""
        if len(text.split()) < MIN_HARM_WORDS:  # "ok bye" is not a goodbye to life
            return False
        labels, texts = care_exemplars()
        if vector is None or not lowers_alike(text) or not self.reads_case_alike():
            vector = self.vectors([text.lower()])[0]
        sims = self.vectors(texts, fixed=True) @ vector
        harm = max((float(s) for s, k in zip(sims, labels, strict=True) if k == "harm"))
        safe = max((float(s) for s, k in zip(sims, labels, strict=True) if k == "safe"))
        return harm >= MIN_HARM_SIMILARITY and harm > safe

    def harm_is_ready(self, text: str, vector: np.ndarray | None = None) -> bool:
        """Whether :meth:`sounds_like_harm` would run without the model (a short text, or
        ``vector`` stands for the text and the exemplars are embedded already): a product
        of a few dozen vectors, cheaper inline than a hop to a thread."""
        if len(text.split()) < MIN_HARM_WORDS:
            return True
        if vector is None or not lowers_alike(text) or self.uncased is not True:
            return False
        return all(t in self._fixed for t in care_exemplars()[1])

    def forget_cache(self, *, force: bool = False) -> None:
        """Drop the cached vectors (all of them when ``force``, else once there are many)."""
        if force or len(self._cache) > 4096:
            self._cache.clear()


def understanding_for(
    embed: Embed, model_name: str, dimension: int, parts: Sequence[str] = PARTS
) -> Understanding | None:
    """An Understanding over an embedder of ``model_name``; None when the shipped weights
    were trained on another model (their vectors would not mean the same)."""
    if not WEIGHTS_FILE.is_file():
        return None
    model = load_slot_model()
    if model_name.rsplit("/", 1)[-1] != model.model or dimension != model.weights.shape[0]:
        logger.info("understanding by meaning is off: weights are for %s", model.model)
        return None
    questions = load_slot_model(WEIGHTS_FILE, "questions")
    return Understanding(embed=embed, model=model, questions=questions, parts=frozenset(parts))


def by_meaning(clause: str, understanding: Understanding) -> list[Fact]:
    """The fact the rules missed in ``clause``, read by its slot; [] when the slot is none,
    unsure, or holds no value the syntax can read."""
    if not understanding.has("slots") or not claims_now(clause):
        return []  # "I'm not vegan", "I had a hamster when I was little": nothing claimed
    named = capitalised_name(clause)  # the capital says it is a name, whatever the slot
    if named is not None:
        return [named]
    nouns = understanding.noun_kind if understanding.has("nouns") else None
    if nouns is not None and named_mine(clause):  # "my fella Rohan, he's a paramedic"
        for slot in ("family", "pet"):  # the subject's noun says whose: read by its kind
            facts = value_fact(slot, clause, noun_kind=nouns)
            if facts:
                return facts
    if nouns is not None and (kin := relative_job(clause, nouns)):  # "my fella's a joiner"
        return kin
    ranked = understanding.slots(clause)
    checked = nouns is not None and _NAMING.search(clause) is not None
    for slot, probability in _readable_slots(ranked, checked=checked):
        facts = value_fact(slot, clause, noun_kind=nouns, sure=probability >= SURE)
        if facts:
            return facts
    unsure = ranked[0][0] == "none"  # "I install solar panels": none .47, job .32
    said = dict(ranked)
    return known_job(clause, said.get("job", 0.0), unsure=unsure, kind=nouns) or known_home(
        clause, said.get("home", 0.0)
    )


def _readable_slots(
    ranked: list[tuple[str, float]], *, checked: bool = False
) -> list[tuple[str, float]]:
    """The slots worth a reader: the likeliest when sure enough (:data:`MIN_PROBABILITY`),
    and the runner-up when the two are close ("my fella is called Rohan": name .54, family
    .35; the name reader finds no name of the speaker, the family reader finds Rohan). A
    clause most likely ``none`` reads nothing. ``checked``: the clause names someone and the
    noun's kind is read by meaning; then a pet or a relative is read when likeliest though
    unsure ("there's a lurcher called Dash in our house": pet .50): two readings agree."""
    (top, p1), (second, p2) = ranked[0], ranked[1]
    if top == "none" or p1 < MIN_RUNNER_UP_TOP:
        return []
    sure_enough = p1 >= MIN_PROBABILITY or (checked and top in NOUN_CHECKED)
    out = [(top, p1)] if sure_enough else []
    if second != "none" and p2 >= MIN_RUNNER_UP:
        out.append((second, p2))
    return out
