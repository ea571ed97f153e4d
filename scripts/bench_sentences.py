"""Real English sentences found on this machine, for ``familiars bench recall --database
--vectors text --texts FILE``: one a line, distinct, mostly letters, shuffled (seed 0), then
those of 25 to ``--longest`` (140) characters kept.

    python scripts/bench_sentences.py --locomo ../shared/data/locomo_dev.json \\
        --site .venv/lib/python3.11/site-packages --out /tmp/sentences.txt --max 100100

From the LoCoMo conversations' turns, the docstrings of the installed Python packages and the
Debian changelogs under /usr/share/doc (chat, technical prose and terse notes: real text, so
its embeddings bunch as real embeddings do, unlike the bench's synthetic vectors).
"""

from __future__ import annotations

import argparse
import ast
import gzip
import json
import random
import re
from pathlib import Path

_SPLIT = re.compile(r"(?<=[.!?])\s+")


def _add(out: set[str], text: str) -> None:
    for s in _SPLIT.split(" ".join(text.split())):
        s = s.strip(" -*#>")
        if 25 <= len(s) <= 240 and sum(c.isalpha() for c in s) > 0.7 * len(s) and " " in s:
            out.add(s)


def _docstrings(site: Path, out: set[str]) -> None:
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)
    for py in site.rglob("*.py"):
        try:
            tree = ast.parse(py.read_text(errors="ignore"))
        except Exception:  # noqa: BLE001 - a file that does not parse has no docstrings
            continue
        for node in ast.walk(tree):
            doc = ast.get_docstring(node) if isinstance(node, kinds) else None
            for para in (doc or "").split("\n\n"):
                if para and not re.search(r"[>{}=\[\]|]|::", para):  # no code, no tables
                    _add(out, para)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--locomo", type=Path, help="locomo10.json-format conversations")
    ap.add_argument("--site", type=Path, help="a site-packages folder")
    ap.add_argument("--changelogs", type=Path, default=Path("/usr/share/doc"))
    ap.add_argument("--longest", type=int, default=140)
    ap.add_argument("--max", type=int, default=100_100)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    out: set[str] = set()
    if args.locomo:
        for sample in json.loads(args.locomo.read_text()):
            for key, turns in sample["conversation"].items():
                if key.startswith("session_") and isinstance(turns, list):
                    for turn in turns:
                        _add(out, turn["text"])
    if args.site:
        _docstrings(args.site, out)
    for log in args.changelogs.rglob("changelog*.gz"):
        try:
            with gzip.open(log, "rt", errors="ignore") as f:
                for line in f:
                    if line.strip().startswith(("* ", "- ")):
                        _add(out, line.strip()[2:])
        except Exception:  # noqa: BLE001, S112 - an unreadable changelog is left out
            continue
    lines = sorted(out)
    random.Random(0).shuffle(lines)
    lines = [s for s in lines if len(s) <= args.longest][: args.max]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} of {len(out)} sentences -> {args.out}")


if __name__ == "__main__":
    main()
