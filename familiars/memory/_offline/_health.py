"""Health said in one's own words (tester s32 T18): the conditions one has or was diagnosed
with, every one of a list ("I have asthma and eczema" is two), and the medication one takes
("I take metformin twice a day", "I'm on sertraline").

A condition is known by its name (a closed list of common ones) or by how medical names are
formed ("-itis", "-osis", "-aemia"); a medicine by how drug names are formed ("-formin",
"-statin", "-prazole", ...) or a common name ("insulin", "an inhaler"), a dose ("20mg of")
only with one of those. "I take the bus every day", "I'm on holiday", "I have empathy",
"I have hives in my garden" and "I take 30g of protein a day" are neither (reviewer s33-2
#8). Both kinds are kept under the health slot (tag ``allergy``, as allergies and diets
are), so "what health conditions do I have?" is answered by all of them.
"""

from __future__ import annotations

import re

from familiars.memory._offline._objects import Fact, topic_key

_CONDITIONS = (
    r"type\s+[12]\s+diabetes|diabetes|asthma|eczema|psoriasis|epilepsy|arthritis|"
    r"rheumatoid\s+arthritis|osteoarthritis|adhd|autism|ibs|crohn'?s(?:\s+disease)?|colitis|"
    r"an(?:a)?emia|high\s+blood\s+pressure|low\s+blood\s+pressure|hypertension|ptsd|ocd|"
    r"bipolar(?:\s+disorder)?|dyslexia|dyspraxia|endometriosis|pcos|copd|lupus|"
    r"multiple\s+sclerosis|ms|fibromyalgia|tinnitus|sciatica|insomnia|sleep\s+apn(?:o)?ea|gout|"
    r"angina|glaucoma|cataracts|long\s+covid|migraines?|hay\s?fever|hives|"
    r"co?eliac(?:\s+disease)?|celiac(?:\s+disease)?|high\s+cholesterol|an\s+underactive\s+thyroid|"
    r"an\s+overactive\s+thyroid|a\s+heart\s+condition|heart\s+disease|kidney\s+disease|"
    r"(?:breast\s+|prostate\s+|skin\s+|bowel\s+)?cancer|neuropathy|neuralgia|myalgia|"
    r"[a-z]+(?:itis|osis|aemia|emia)"
)
_CONDITION = re.compile(rf"(?:{_CONDITIONS})", re.I)
#: "I have asthma and eczema", "I was diagnosed with type 2 diabetes last year", "I suffer
#: from migraines".
_HAVE_CONDITIONS = re.compile(
    r"^i(?:\s+(?:also|still))?\s*(?:have(?:\s+got)?|'ve\s+(?:also\s+)?got|suffer\s+from|"
    r"live\s+with|(?:was|were|'ve\s+been|have\s+been|got|just\s+got|recently\s+got)\s+diagnosed\s+with)"
    r"\s+(?P<what>.+)$"
    r"|^(?:got|was|just\s+got|recently\s+got)\s+diagnosed\s+with\s+(?P<what2>.+)$",
    re.I,
)
#: Where a condition is ("arthritis in my knees"); "hives in my garden" is no body.
_BODY = (
    r"knees?|hands?|back|hips?|joints|feet|foot|legs?|arms?|neck|shoulders?|wrists?|ankles?|"
    r"eyes?|ears?|chest|lungs?|stomach|skin|face|fingers|toes|spine|elbows?|head|gut|scalp|"
    r"jaw|thumbs?"
)
_TIME_SAID = re.compile(
    r"\s+(?:last\s+\w+|this\s+\w+|\w+\s+ago|in\s+\d{4}|since\s+.+|for\s+(?:years|ages|a\s+while|"
    r"\w+\s+(?:years?|months?|weeks?))|as\s+a\s+(?:kid|child|teenager)|every\s+\w+|too|as\s+well|now|"
    rf"(?:in|on)\s+(?:my|both|one\s+of\s+my|the)\s+(?:(?:left|right|lower|upper)\s+)?(?:{_BODY}))$",
    re.I,
)
_LIST_CUT = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s+plus\s+", re.I)
_MILD = re.compile(r"^(?:(?:mild|bad|severe|really\s+bad|terrible|chronic|a\s+bit\s+of)\s+)+", re.I)


def _health(content: str, what: str, kind: str) -> Fact:
    """A health fact, keyed as a kept health record is (``allergy:asthma``), so the same
    condition or medicine told twice is one record."""
    key = topic_key(what)
    tags = ("allergy", kind, f"topic:{key}")
    return Fact("user", "profile", content, tags, f"allergy:{key}", 0.85)


#: A condition said as what one is: "I'm type 1 diabetic", "I'm epileptic" (a plain "I'm
#: diabetic" or "coeliac" is a diet, read by ``match_health``).
_AM_CONDITION = re.compile(
    r"^(?:i'?m|im|i\s+am)\s+(?:also\s+|now\s+)?(?P<what>type\s+[12]\s+diabetic|epileptic|"
    r"asthmatic|an(?:a)?emic|autistic|dyslexic|dyspraxic|bipolar|hypertensive|arthritic|"
    r"pre-?diabetic)(?:\s+(?:now|too|as\s+well))?$",
    re.I,
)


def match_conditions(clause: str) -> list[Fact]:
    """One fact per condition of a list ("I have asthma and eczema"); [] when an item of
    the list is no known condition ("I have a dog and asthma" is not read here)."""
    am = _AM_CONDITION.match(clause.strip().rstrip(".!"))
    if am is not None:
        what = re.sub(r"\s+", " ", am.group("what").lower())
        return [_health(f"The user is {what}.", what, "condition")]
    m = _HAVE_CONDITIONS.match(clause.strip().rstrip(".!"))
    if m is None:
        return []
    said = m.group("what") or m.group("what2")
    while (cut := _TIME_SAID.sub("", said)) != said:
        said = cut
    items = [_MILD.sub("", i).strip() for i in _LIST_CUT.split(said) if i.strip()]
    if not items or not all(_CONDITION.fullmatch(i) for i in items):
        return []
    diagnosed = "diagnosed with" in m.group(0).lower()
    out = []
    for item in items:
        what = re.sub(r"\s+", " ", item if item.isupper() else item.lower())
        verb = "was diagnosed with" if diagnosed else "has"
        out.append(_health(f"The user {verb} {what}.", what, "condition"))
    return out


_DRUG_ENDINGS = (
    r"formin|pril|olol|statin|sartan|dipine|azole|cillin|mycin|cycline|oxetine|aline|"
    r"opram|triptan|zepam|zolam|prazole|tidine|profen|codone|morphine|thyroxine|semide|"
    r"thiazide|parin|xaban|gatran|lukast|olone|asone|isone|terol|tropium|umab|inib|vir|"
    r"gabalin|pentin|tamol|afil|lamide|xetine|azepine|otrigine|iramate|idone|apine|adol"
)
_DRUG_NAMES = (
    r"insulin|aspirin|paracetamol|ibuprofen|warfarin|lithium|levothyroxine|thyroxine|"
    r"an?\s+inhaler|my\s+inhaler|antidepressants|antibiotics|painkillers|the\s+pill|hrt|"
    r"beta\s+blockers|blood\s+thinners|statins|steroids|melatonin|iron\s+tablets|"
    r"the\s+contraceptive\s+pill|methotrexate|metformin|prednisolone"
)
_DRUG = re.compile(rf"(?:{_DRUG_NAMES}|[a-z]+(?:{_DRUG_ENDINGS}))", re.I)
_DOSE = r"\d+(?:\.\d+)?\s*(?:mg|mcg|µg|ml|units?)"
_TAKES = re.compile(
    r"^i(?:'m|\s+am|'ve\s+been|\s+have\s+been)?\s+(?:also\s+|still\s+|now\s+)?(?:take|taking|on|use|using|"
    r"(?:was|'ve\s+been|have\s+been|got|just\s+got)\s+(?:put\s+on|prescribed|started\s+on))\s+"
    rf"(?:(?P<dose>{_DOSE})\s+(?:of\s+)?)?(?P<drug>(?:[\w-]+\s+){{0,2}}?[\w-]+?)"
    rf"(?P<rest>(?:\s+{_DOSE})?(?:\s+(?:once|twice|three\s+times|every|each|daily|a\s+day|"
    r"at\s+night|in\s+the\s+morning|for\s+(?:my\s+)?[\w ]+|now|still)\b.*)?)$",
    re.I,
)


def match_medication(clause: str) -> list[Fact]:
    """ "I take metformin twice a day", "I'm on 20mg of citalopram", "I use an inhaler for my
    asthma": the medicine (and how often or what for, as said)."""
    said = clause.strip().rstrip(".!")
    subjectless = re.match(r"^(?:on|taking)\s", said, re.I)
    if subjectless:  # "on insulin": the "I'm" left out
        said = f"I'm {said}"
    m = _TAKES.match(said)
    if m is None:
        return []
    if subjectless and re.match(r"\s+for\s+(?:the|a|an|this|that)\b", m.group("rest") or ""):
        return []  # "taking paracetamol for the headache": a one-off, not a standing medicine
    drug = m.group("drug")
    if not _DRUG.fullmatch(drug):
        return []
    dose = f"{m.group('dose')} of " if m.group("dose") else ""
    rest = re.sub(r"\bmy\b", "their", m.group("rest") or "").rstrip()
    what = re.sub(r"^my\s+", "", drug.lower()) if not re.match(r"^[A-Z]", drug) else drug
    verb = "uses" if re.search(r"\b(?:use|using)\s", m.group(0), re.I) else "takes"
    return [_health(f"The user {verb} {dose}{what}{rest}.", what, "medication")]
