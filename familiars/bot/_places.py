"""Which countries a town's name may mean: a gazetteer that ships with the code, offline.

``data/cities.txt`` (``scripts/make_cities.py`` writes it from GeoNames, CC BY 4.0) lists
every place of 15,000 people or more by name, each country that has one, and the largest
such place's population there. :func:`town_countries` reads it, the likeliest first;
"Manchester" is England's before New Hampshire's. Tester s37: with only the time zone
database's cities, Manchester, Leeds, Glasgow, Mumbai and Delhi named no country at all.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

_CITIES_FILE = Path(__file__).parent / "data" / "cities.txt"
#: Another country's place of the same name counts when it is at least this share of the
#: largest one's size: Manchester, New Hampshire (110k) is not a fifth of Manchester's
#: 569k; London, Ontario is a twentieth of London's; Dublin, Ohio is not Dublin.
_RIVAL_SHARE = 1 / 3


def town_countries(name: str, *, everywhere: bool = False) -> tuple[str, ...]:
    """The countries (ISO 3166) that ``name`` is a town or city of, the one with the
    largest place first, then others with a place at least a third its size; with
    ``everywhere`` every country that has a place of that name. () when none is known."""
    found = _gazetteer().get(" ".join(name.lower().split()), ())
    if everywhere or not found:
        return tuple(code for code, _ in found)
    largest = found[0][1]
    return tuple(code for code, people in found if people >= largest * _RIVAL_SHARE)


@lru_cache(maxsize=1)
def _gazetteer() -> dict[str, tuple[tuple[str, int], ...]]:
    table: dict[str, tuple[tuple[str, int], ...]] = {}
    for line in _CITIES_FILE.read_text("utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, rest = line.partition("\t")
        parts = rest.split()
        table[name] = tuple((parts[i], int(parts[i + 1])) for i in range(0, len(parts), 2))
    return table
