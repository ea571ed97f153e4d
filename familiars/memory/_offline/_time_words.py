"""Time words said plainly: one reader in front of every reminder time (issue 23).

People say a time in many ways: "tmrw at 7", "half past two in the afternoon", "the 18th of
December", "10 o'clock in the morning", "evry sunday", "Tomorrow evening at seven, please".
The parsers after this one (:func:`~familiars.memory._offline._dates.parse_when`,
:func:`~familiars.memory._offline._every.find_every`) read the plain forms ("tomorrow at 7",
"2:30 pm", "18 December", "10 am", "every sunday"); :func:`plain_time` rewrites the rest into
them, token by token rather than sentence by sentence:

- spellings: text-speak and common shortenings ("tmrw", "2nite", "mins", "arvo") from a
  table, and typos of the time words themselves ("evry", "tomorow", "wendsday") by edit
  distance (same first letter; one edit for short words, two for long ones; real words that
  sit near a time word, such as "ever" or "mourning", are left alone);
- numbers in words where they are a clock or a count ("at seven", "seven thirty", "in five
  minutes"), and the clock phrases "half past two", "quarter to 5", "ten past 4", "half 5"
  (British: 5:30), "10 o'clock";
- parts of the day after a clock ("in the morning" is am; "in the afternoon", "in the
  evening", "at night" are pm) and ordinal dates ("the 18th of December" is "18 December"),
  ordinals in words where a date is said ("on the twenty-first", "the third of March",
  "March the third");
- a repeat by a part of the day the repeat reader has no word for ("every afternoon at 3"
  is every day at 3 pm) and a weekend said once ("next weekend", "this weekend", "at the
  weekend": its Saturday; "after the weekend": Monday; "before the weekend": Friday; "for
  the weekend" names no day; "every weekend" is the repeat's own);
- politeness and filler ("please", "kindly", "if you would", "if you don't mind", "thanks"
  at the end), which name no time, unless the task says it ("say thanks", "say please").

Only time words change: a word is corrected only next to a time (a number, a time word, or
a word such as "at", "every", "remind me" before it), never when it begins with a capital
inside a sentence ("call Frida", "email HR"); text-speak that is also a word ("tomo", "min",
"hr") only beside a number or before "at"; numbers in words become a clock only after "at",
"by", "around"... or before "am", "pm", "o'clock" ("take 2 ten mg tablets" stays).

:func:`plain_request` does the same to a whole reminder request and also reads its shape
the way people type it: "remind me 2 clean my room" (text-speak "2" for "to") and "remind me
for take the vitamins" ("for" before a verb, as many learners of English say it).

:func:`afternoon_hour` is the one rule for an hour said without am or pm (see its docstring).
"""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta

#: Spellings no edit distance finds (text-speak, shortenings).
_SPELLINGS = {
    "tmrw": "tomorrow", "tmr": "tomorrow", "tmrow": "tomorrow", "tmw": "tomorrow",
    "tomoz": "tomorrow", "tmoz": "tomorrow", "2moro": "tomorrow", "2morow": "tomorrow",
    "2morrow": "tomorrow", "2mrw": "tomorrow", "2mro": "tomorrow", "tomo": "tomorrow",
    "2day": "today", "2nite": "tonight", "2night": "tonight", "tonite": "tonight",
    "tonigt": "tonight", "nite": "night", "arvo": "afternoon", "mins": "minutes",
    "min": "minutes", "hr": "hour", "hrs": "hours", "wk": "week", "wks": "weeks",
    "nxt": "next", "evry": "every", "oclock": "o'clock", "weds": "wednesday",
    "xmas": "christmas", "b4": "before", "thurs": "thursday", "tues": "tuesday",
}  # fmt: skip
_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: The time words a typo is read against ("march", "may", "june" and "july" are left out:
#: "match", "man", "tune" and "duly" are words of their own).
_VOCABULARY = (
    "every", "tomorrow", "tonight", "morning", "evening", "afternoon", "midnight", "minutes",
    "weekend", "fortnight", "christmas", "january", "february", "april", "august",
    "september", "october", "november", "december",
    *_DAY_NAMES, *(f"{d}s" for d in _DAY_NAMES),
)  # fmt: skip
#: Real words near a time word: never "corrected".
_REAL_WORDS = frozenset(
    {
        "ever", "very", "even", "event", "evenings", "mourning", "minute", "minuet", "tonne",
        "tomorrows", "mornings", "afternoons", "weekends", "everyone", "everything",
        "monkey", "sundae", "sundry", "fridge", "saturn", "tuesdays", "weekday", "weekdays",
        "aprils", "evens", "morn", "octet",
    }
)  # fmt: skip

_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
}  # fmt: skip
_TENS = r"(?:twenty|thirty|forty|fifty)[\s-](?:one|two|three|four|five|six|seven|eight|nine)"
_NUMBER = rf"(?:{_TENS}|" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + ")"
_HOUR = r"(?:1[0-2]|0?[1-9])"
_MONTH = (
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|"
    r"june|july|august|september|october|november|december)"
)
#: A month said as a word ("Dec", "Sept", "December"): the one list of month words the date
#: readers share.
MONTH = rf"{_MONTH}\b"
#: A day of a month, 1 to 31 ("70th" is no day: "my mum's 70th is on the 19th").
_DAY_NUMBER = r"(?:3[01]|[12]\d|0?[1-9])"
_ORDINAL_DAY = rf"{_DAY_NUMBER}(?:st|nd|rd|th)?"
#: A day of the year: "the 18th of December", "18 Dec", "December the 18th".
DAY_OF_YEAR = (
    rf"(?:(?:the\s+)?{_ORDINAL_DAY}\s+(?:of\s+)?{MONTH}|{MONTH}\.?\s+(?:the\s+)?{_ORDINAL_DAY}\b)"
)
_DAY_SAID = re.compile(
    rf"\b(?:{DAY_OF_YEAR}|(?:the\s+)?{_DAY_NUMBER}(?:st|nd|rd|th)\b"
    r"|(?:(?:this|next)\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|tomorrow\b|tonight\b)",
    re.IGNORECASE,
)


def day_said(text: str) -> str | None:
    """The first day ``text`` names, as said ("the 18th of December", "the 15th", "next
    Friday", "tomorrow"); None when it names none. Read after :func:`plain_time`."""
    m = _DAY_SAID.search(plain_time(text))
    return m.group(0) if m else None


def _number(word: str) -> int:
    """ "seven" -> 7, "forty-five" -> 45, "12" -> 12."""
    word = word.lower()
    if word.isdigit():
        return int(word)
    parts = re.split(r"[\s-]+", word)
    return sum(_NUMBERS[p] for p in parts)


def _distance(a: str, b: str, most: int) -> int:
    """The edit distance of ``a`` and ``b`` (a swap of two letters is one edit), or more
    than ``most`` when it is past it."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    before: list[int] | None = None
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        this = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            this[j] = min(row[j] + 1, this[j - 1] + 1, row[j - 1] + cost)
            swapped = i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]
            if swapped and before is not None:
                this[j] = min(this[j], before[j - 2] + 1)
        before, row = row, this
    return row[-1]


def spelled(word: str) -> str:
    """The time word ``word`` is a spelling or typo of, else ``word`` itself."""
    low = word.lower()
    if low in _SPELLINGS:
        return _SPELLINGS[low]
    if len(low) < 4 or low in _REAL_WORDS or not low.isalpha():
        return word
    if any(low.startswith(known) for known in _VOCABULARY):
        return word  # the word itself, or one made from it ("fortnightly", "everyday")
    best, found = 3, None
    for known in _VOCABULARY:
        if known[0] != low[0]:
            continue
        most = 2 if min(len(low), len(known)) >= 7 else 1
        gap = _distance(low, known, most)
        if gap <= most and gap < best:
            best, found = gap, known
    return found or word


#: Text-speak that is also a word or a name ("Tomo", "HR", "Min"): read as a time word only
#: next to a time (see :func:`_near_a_time`).
_AMBIGUOUS = frozenset({"tomo", "min", "mins", "hr", "hrs", "wk", "wks", "weds", "nite", "tmr"})
#: Words after which the next word is said as a time ("at tomorow", "remind me evry").
_TIME_LEADS = frozenset(
    {"at", "on", "by", "in", "every", "each", "next", "this", "until", "till", "from", "me",
     "before", "after", "around", "about", "tomorrow", "today", "tonight"}
)  # fmt: skip
_WORD = re.compile(r"[a-z0-9']+", re.IGNORECASE)


def _is_time_word(word: str) -> bool:
    low = word.lower()
    return (
        low.isdigit()
        or low in _NUMBERS
        or low in _SPELLINGS
        or re.fullmatch(r"\d{1,2}(?::\d\d)?(?:am|pm)?|am|pm|o'?clock", low) is not None
        or any(low.startswith(known) for known in _VOCABULARY)
    )


def _near_a_time(words: list[re.Match[str]], i: int) -> bool:
    """Whether word ``i`` sits where a time is said: first in the text, after a word that
    leads a time ("at", "every", "remind me"), or next to a number or a time word."""
    if i == 0:
        return True
    before = words[i - 1].group(0)
    after = words[i + 1].group(0) if i + 1 < len(words) else ""
    return before.lower() in _TIME_LEADS or _is_time_word(before) or _is_time_word(after)


def _said_as_a_time(words: list[re.Match[str]], i: int) -> bool:
    """Whether the text-speak word ``i`` is said as a time: "in 5 mins", "tomo at 5"."""
    after = words[i + 1].group(0).lower() if i + 1 < len(words) else ""
    return (i > 0 and _is_time_word(words[i - 1].group(0))) or after in ("at", "morning", "night")


def _spellings(text: str) -> str:
    """Each time word's spelling or typo corrected (:func:`spelled`), and nothing else: a
    word that begins with a capital inside a sentence is a name or an abbreviation ("call
    Frida", "email HR"), and a word away from any time is the person's own ("pay the mooring
    fees")."""
    words = list(_WORD.finditer(text))
    out, last = [], 0
    for i, m in enumerate(words):
        word = m.group(0)
        starts = m.start() == 0 or re.search(r"[.!?]\s*$", text[: m.start()]) is not None
        named = word[0].isupper() and not starts
        timely = _near_a_time(words, i) and (
            word.lower() not in _AMBIGUOUS or _said_as_a_time(words, i)
        )
        fixed = spelled(word) if not named else word
        # last in the text: "buy bread tomorow" (no name is a typo of these two)
        ending = i == len(words) - 1 and fixed in ("tomorrow", "tonight")
        out.append(text[last : m.start()] + (fixed if timely or ending else word))
        last = m.end()
    return "".join(out) + text[last:]


#: Politeness and filler: no time and no task.
_FILLER = re.compile(
    r"[\s,]*\b(?:if\s+(?:you|u)\s+(?:would|could|can|will|don'?t\s+mind|wouldn'?t\s+mind|"
    r"please|may|like)|if\s+poss(?:ible)?|please|pls|plz|kindly|possibly|be\s+so\s+kind\s+as\s+to|"
    r"be\s+a\s+(?:dear|love|star)\s+and)\b[\s,]*",
    re.IGNORECASE,
)
#: "ty" and "ta" only in lower case: "ring Ty" names someone.
_THANKS_AT_END = re.compile(
    r"[\s,.!]*\b(?:thanks(?:\s+a\s+lot)?|thank\s+(?:you|u)|thx|cheers|(?-i:ty|ta))\b[\s.!?]*$",
    re.IGNORECASE,
)


#: A word before "thanks" or "please" that makes it the task's own ("say thanks", "send Sam
#: a thank you", "say please").
_TASK_OWNS = re.compile(
    r"\b(?:say|said|says|saying|a|the|my|your|our|big|to|send|write|with|no)\W*$", re.IGNORECASE
)


def _unless_the_tasks(m: re.Match[str], by: str) -> str:
    return m.group(0) if _TASK_OWNS.search(m.string[: m.start()] + m.group(0)[:1]) else by


def _without_filler(text: str) -> str:
    text = _THANKS_AT_END.sub(lambda m: _unless_the_tasks(m, ""), text)
    text = _FILLER.sub(lambda m: _unless_the_tasks(m, " "), text)
    return re.sub(r"\s+(?=[.,!?;]|$)|^\s+", "", re.sub(r"\s{2,}", " ", text))


#: Words after which a number is a clock ("at seven"; "for two" and "in two" are counts).
_CLOCK_LEADS = r"at|by|around|about|till|until|before|after|from"


def _hm(hour: int, minute: int) -> str:
    return f"{hour}:{minute:02d}"


_MINUTES = rf"(?P<min>\d{{1,2}}|{_NUMBER}|a\s+quarter|quarter|half)(?:\s+minutes?)?"


def _past_or_to(m: re.Match[str]) -> str:
    """ "half past two" -> 2:30, "quarter to 5" -> 4:45, "ten past 4" -> 4:10."""
    said = m.group("min").lower()
    minute = 30 if said == "half" else 15 if said.endswith("quarter") else _number(said)
    hour = _number(m.group("hour"))
    if not 1 <= hour <= 24 or not 0 < minute < 60:
        return m.group(0)
    if m.group("dir").lower() == "past":
        return _hm(hour % 24, minute)
    return _hm((hour - 1) % 24 or (12 if hour == 1 else 0), 60 - minute)


def _clock_words(text: str) -> str:
    """Numbers in words and clock phrases said as clocks ("at seven" -> "at 7")."""
    number_or_digit = rf"(?:\d{{1,2}}|{_NUMBER})"
    text = re.sub(
        rf"\b{_MINUTES}\s+(?P<dir>past|to|after|before)\s+(?P<hour>{number_or_digit})\b"
        r"(?!\s*(?:minutes?|hours?|days?|weeks?|:))",
        lambda m: _past_or_to(m) if m["dir"].lower() in ("past", "to") else m.group(0),
        text,
        flags=re.I,
    )
    # "half 5" (British: 5:30), never "half an hour" or "half 5 hours"
    text = re.sub(
        rf"\bhalf\s+(?P<h>{_HOUR}|{_NUMBER})\b(?!\s*(?:[:.]\d|hours?|minutes?|days?|an?\b))",
        lambda m: _hm(_number(m["h"]), 30) if _number(m["h"]) <= 12 else m.group(0),
        text,
        flags=re.I,
    )
    # "at seven thirty", "9 forty-five pm": an hour and its minutes, only where a clock is
    # said ("take 2 ten mg tablets" is a dose)
    text = re.sub(
        rf"\b(?P<lead>(?:{_CLOCK_LEADS})\s+)?(?P<h>{_HOUR}|{_NUMBER})\s+(?P<m>(?:thirty|fifteen|forty[\s-]five|twenty|"
        r"fifty|ten|o'?\s?(?:one|two|three|four|five|six|seven|eight|nine)))\b"
        r"(?!\s*(?:minutes?|hours?|days?))(?P<tail>\s*(?:am|pm|a\.m\.|p\.m\.|tonight|in\s+the)\b)?",
        lambda m: _hour_and_minutes(m),
        text,
        flags=re.I,
    )
    # "at seven", "by eleven", "seven o'clock", "five pm", "in five minutes"
    text = re.sub(
        rf"\b(?P<lead>{_CLOCK_LEADS})\s+(?P<n>{_NUMBER})\b",
        lambda m: f"{m['lead']} {_number(m['n'])}",
        text,
        flags=re.I,
    )
    text = re.sub(
        rf"\b(?P<n>{_NUMBER})(?=\s*(?:o'?\s?clock|am|pm|a\.m\.|p\.m\.|minutes?|hours?|days?|"
        r"weeks?|months?)\b)",
        lambda m: str(_number(m["n"])),
        text,
        flags=re.I,
    )
    return re.sub(r"\b(\d{1,2})\s*o'?\s?clock\b", r"\1:00", text, flags=re.I)


def _hour_and_minutes(m: re.Match[str]) -> str:
    said = re.sub(r"^o'?\s?", "", m["m"].lower())
    hour, minute = _number(m["h"]), _number(said)
    if not 1 <= hour <= 12 or not 0 < minute < 60 or not (m["lead"] or m["tail"]):
        return m.group(0)
    return f"{m['lead'] or ''}{_hm(hour, minute)}{m['tail'] or ''}"


_CLOCK = r"\b(?P<clock>\d{1,2}(?::\d{2})?)"


#: The last hour that "at night" or "tonight" puts in the small hours ("at 1 at night").
LAST_SMALL_HOUR = 4


def night_half(hour: int) -> str:
    """ "am" or "pm" for ``hour`` said with "night" or "tonight": 12 and 1 to 4 are the small
    hours ("at 12 at night" is 00:00, "tonight at 1" 01:00), 5 to 11 the evening."""
    return "am" if hour == 12 or 1 <= hour <= LAST_SMALL_HOUR else "pm"


def _at_night(m: re.Match[str]) -> str:
    hour = int(m["clock"].split(":")[0])
    return f"{m['clock']} {night_half(hour)}" + (" tonight" if m["tonight"] else "")


def _parts_of_day(text: str) -> str:
    """ "10:00 in the morning" -> "10:00 am"; "2:30 in the afternoon" -> pm; "7 at night" is
    pm and "1 at night" am (:func:`night_half`)."""
    text = re.sub(_CLOCK + r"\s+in\s+the\s+morning\b", r"\g<clock> am", text, flags=re.I)
    text = re.sub(
        _CLOCK + r"\s+in\s+the\s+(?:afternoon|evening)\b", r"\g<clock> pm", text, flags=re.I
    )
    return re.sub(
        _CLOCK + r"\s+(?:at\s+night|in\s+the\s+night|(?P<tonight>tonight))\b",
        _at_night,
        text,
        flags=re.I,
    )


_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}  # fmt: skip
_ORDINAL_WORD = (
    r"(?:(?:twenty|thirty)[\s-](?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|"
    + "|".join(sorted(_ORDINALS, key=len, reverse=True))
    + ")"
)
#: After an ordinal in words, what makes it a date: "of March", a time ("at 9", "in the
#: morning"), another date ("to the fifth"), the end of a clause ("the second reminder", "on
#: the first day" and "thank the first to arrive" are no dates: the task keeps its words).
_DATE_FOLLOWS = (
    rf"(?=\s+of\s+{_MONTH}\b|\s+(?:at|by|around|from|till|until)\s+(?:\d|noon|midday|midnight)"
    r"|\s+in\s+the\s+(?:morning|afternoon|evening|night)\b"
    rf"|\s+(?:and|to|or)\s+(?:the\s+)?(?:\d|{_ORDINAL_WORD}\b)|\s*[,.!?;]|\s*$)"
)


def _ordinal_number(word: str) -> str:
    """ "twenty-first" -> "21st", "third" -> "3rd"."""
    parts = re.split(r"[\s-]+", word.lower())
    day = sum(_NUMBERS[p] for p in parts[:-1]) + _ORDINALS[parts[-1]]
    suffix = "th" if 10 < day % 100 < 14 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def _ordinal_words(text: str) -> str:
    """Ordinals in words said as a date become digits: "on the twenty-first" -> "on the
    21st", "the third of March" -> "the 3rd of March", "March the third" -> "March the
    3rd"; "the second time", "every second Thursday" stay."""
    text = re.sub(
        rf"\b(?P<lead>(?:on\s+)?the\s+)(?P<n>{_ORDINAL_WORD}){_DATE_FOLLOWS}",
        lambda m: m["lead"] + _ordinal_number(m["n"]),
        text,
        flags=re.I,
    )
    return re.sub(
        rf"\b(?P<lead>{_MONTH}\s+(?:the\s+)?)(?P<n>{_ORDINAL_WORD})\b",
        lambda m: m["lead"] + _ordinal_number(m["n"]),
        text,
        flags=re.I,
    )


#: "every afternoon at 3": a clock near it (either side) is after noon.
_EVERY_AFTERNOON = re.compile(
    r"\bevery\s+afternoon(?P<after>\s+(?:at\s+)?\d{1,2}(?::\d\d)?)?(?!\s*(?:am|pm|:))"
    r"|(?P<before>\b(?:at\s+)?\d{1,2}(?::\d\d)?)(?!\s*(?:am|pm|:))\s+every\s+afternoon\b",
    re.I,
)
#: "next weekend", "this weekend", "at the weekend", "over the weekend": its Saturday;
#: "after the weekend" is its Monday, "before" or "by the weekend" its Friday; "for the
#: weekend", "all the weekend", "until the weekend"... name no day and stay as said.
_ONE_WEEKEND = re.compile(
    r"\b(?:(?P<after>after\s+the)|(?P<before>(?:before|by)\s+the)"
    r"|(?P<none>(?:for|all|until|till|through|throughout|during|of|in|from|since|about)\s+the)"
    r"|(?P<next>next)|this|(?:at|on|over)\s+the|the)\s+weekend\b(?!s)",
    re.I,
)


def _one_weekend(m: re.Match[str]) -> str:
    if m["none"]:
        return m[0]
    if m["after"]:
        return "on monday"
    if m["before"]:
        return "on friday"
    return "next saturday" if m["next"] else "on saturday"


def _afternoons_and_weekends(text: str) -> str:
    """ "every afternoon at 3" -> "every day at 3 pm" ("every afternoon" alone: 2 pm);
    "next weekend" -> "next saturday", "this weekend" -> "on saturday", "after the weekend"
    -> "on monday", "before the weekend" -> "on friday"."""

    def afternoon(m: re.Match[str]) -> str:
        if m["before"]:
            return f"{m['before']} pm every day"
        return f"every day{m['after'] or ' at 2'} pm"

    text = _EVERY_AFTERNOON.sub(afternoon, text)
    return _ONE_WEEKEND.sub(_one_weekend, text)


#: Words a date may follow as it is; after any other word a date said with "the" is "on" it.
_DATE_LEADS = r"(?:on|by|until|till|before|after|from|for|since|of|to|every|each|and)"


def _ordinal_dates(text: str) -> str:
    """ "the 18th of December" -> "18 December"; "December the 18th" -> "December 18";
    "call mum the 18th of December" -> "call mum on 18 December" (the date is when)."""

    def day_month(m: re.Match[str]) -> str:
        on = (
            "on "
            if m["the"] and m["word"] and not re.fullmatch(_DATE_LEADS, m["word"], re.I)
            else ""
        )
        return f"{m['word'] or ''}{m['gap'] or ''}{on}{m['day']} {m['month']}"

    text = re.sub(
        rf"(?:\b(?P<word>(?!the\b)[a-z']+)(?P<gap>\s+))?\b(?P<the>the\s+)?(?P<day>\d{{1,2}})(?:st|nd|rd|th)"
        rf"\s+(?:of\s+)?(?P<month>{_MONTH}\b)",
        day_month,
        text,
        flags=re.I,
    )
    return re.sub(
        rf"\b({_MONTH})\s+(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)\b", r"\1 \2", text, flags=re.I
    )


def plain_time(text: str) -> str:
    """``text`` with its time words said plainly (see the module docstring); the rest of it
    as it was."""
    text = _spellings(text)
    text = _without_filler(text)
    text = _clock_words(text)
    text = _parts_of_day(text)
    text = _afternoons_and_weekends(text)
    return _ordinal_dates(_ordinal_words(text))


#: "remind me 2 clean": "2" between the request (or its time) and a word is "to".
_TWO_IS_TO = re.compile(
    r"\b(?P<lead>remind\s+me|tomorrow|today|tonight|morning|evening|am|pm|\d:\d\d|"
    r"minutes?|hours?|days?|weeks?)\s+2\s+"
    r"(?=[a-z]{2,}\b)(?!(?:am|pm|minutes?|hours?|days?|weeks?|months?|o'clock|of)\b)",
    re.IGNORECASE,
)
#: Verbs a reminder's task most often begins with: "for" before one is "to" ("remind me for
#: buy bread").
_TASK_VERBS = (
    "buy|call|ring|phone|text|email|message|pay|take|pick|collect|send|post|book|feed|clean|"
    "wash|check|get|go|do|make|cook|bring|put|visit|see|meet|renew|cancel|order|write|read|"
    "study|finish|start|drink|eat|wake|leave|charge|fix|tidy|walk|pack|print|sign|return"
)
#: "remind me for take the vitamins": "for" before a verb and its object. A word followed by
#: an article or a possessive after "for" is a verb ("for call my mother"), as is a common
#: task verb ("for buy bread"); "for the meeting" and "for dinner at 8" are not.
_FOR_VERB = re.compile(
    r"\b(?P<lead>remind\s+me(?:\s+(?:in|at|on|by|every|each|tomorrow|today|tonight)\b[^,]*?)?)"
    r"\s+for\s+(?=(?!(?:the|a|an|my|your|his|her|our|their|this|that|me|it|him|them|us)\b)"
    r"(?:[a-z]+\s+(?:the|a|an|my|your|his|her|our|their|some|to|with|up|out|off|on|in|for)\b|"
    rf"(?:{_TASK_VERBS})\b))",
    re.IGNORECASE,
)


def plain_request(text: str) -> str:
    """A reminder request with its time said plainly (:func:`plain_time`), text-speak "2"
    and a "for" before a verb read as "to", and a question's "?" left off the task."""
    text = plain_time(text)
    text = _TWO_IS_TO.sub(lambda m: f"{m['lead']} to ", text)
    text = _FOR_VERB.sub(lambda m: f"{m['lead']} to ", text)
    return re.sub(r"\s*\?+\s*$", "", text)


#: Words that say the morning, whatever the hour.
#: The morning said: "am" may follow the hour with no space ("5am"), where ``\b`` finds no
#: edge between a digit and a letter; a letter before it ("team", "yearly") is another word.
MORNING_SAID = re.compile(
    r"(?<![a-z])(?:am|a\.m\.?|morning|early|dawn|breakfast)(?!\w)", re.IGNORECASE
)
#: The last hour a bare clock puts after noon.
LAST_AFTERNOON_HOUR = 6


def afternoon_hour(hour: int, said: str) -> int:
    """The hour meant by ``hour`` said with no am or pm in ``said``: from 1 to 6 it is after
    noon (13:00 to 18:00: "at 4" to feed the cat is 16:00, hardly ever 04:00) unless the
    morning is said; 7 to 12, 0 and 13 to 23 are as said (the caller reads 7 to 11 as the
    next time the clock shows them when the day is today, and after noon when the evening
    is said). ``said`` is the time phrase only, never the task ("eat breakfast" says no
    morning). The callers leave a clock written with a leading zero ("04:00") as written,
    and a bare hour said at night to the next time the clock shows it."""
    if 1 <= hour <= LAST_AFTERNOON_HOUR and MORNING_SAID.search(said) is None:
        return hour + 12
    return hour


_BARE_HOUR = re.compile(r"^(?:at\s+|by\s+)?(?P<hour>[1-9])(?::(?P<minute>[0-5]\d))?$", re.I)
#: From this hour to :data:`NIGHT_ENDS` a bare hour is the next time the clock shows it.
NIGHT_STARTS, NIGHT_ENDS = 21, 6


def bare_hour_at_night(text: str, local_now: datetime) -> datetime | None:
    """A bare hour from 1 to 9 ("at 1", "at 3:30") said at night is the next time the clock
    shows it ("at 1" at 23:30 is 01:00, "at 3" at 02:30 03:00): the afternoon rule
    (:func:`afternoon_hour`) is for the day, when the morning hour has gone by."""
    m = _BARE_HOUR.match(text.strip().strip(".!?").strip())
    if m is None or NIGHT_ENDS <= local_now.hour < NIGHT_STARTS:
        return None
    clock = time(int(m["hour"]), int(m["minute"] or 0))
    when = datetime.combine(local_now.date(), clock, tzinfo=local_now.tzinfo)
    while when <= local_now:
        when += timedelta(hours=12)
    return when
