"""Searching the document index: dense + keyword fusion, one row per file, the file knobs.

``SearchMixin`` is the search half of :class:`~familiars.memory._documents.finder.DocumentFinder`:
``find`` (fusion of :data:`~familiars.memory._documents.search.FUSION_SIGNALS` over 200
candidates of each, best chunk per file, then :func:`~familiars.memory._documents.knobs.apply_knobs`
with :data:`~familiars.memory._documents.knobs.FILE_SIGNALS`), ``dense_top_k`` (the baseline),
and the in-memory :class:`~familiars.memory._documents.matrix.Matrix` it searches, reloaded when
the index's generation moves. Every hit carries its ``explain`` breakdown.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from familiars.memory._documents.history import OWNER
from familiars.memory._documents.knobs import FileFacts, ParsedQuery, apply_knobs, parse_query
from familiars.memory._documents.matrix import Matrix
from familiars.memory._documents.owners import owner_of
from familiars.memory._documents.results import FoundFile
from familiars.memory._documents.rows import ChunkRow, DocRows
from familiars.memory._documents.search import (
    CANDIDATES,
    FUSION_SIGNALS,
    FUSION_WEIGHTS,
    Candidate,
    FusionInputs,
    best_content_per_file,
    best_per_file,
    file_explain,
    passage_of,
    top_indices,
)
from familiars.memory._embeddings import Embedder
from familiars.memory._scoring import SignalGate, compute_signals, fuse


@dataclass(frozen=True)
class _Ranked:
    best: Candidate  # the chunk that ranked the file
    shown: Candidate  # the chunk whose page and passage are shown (best content chunk)
    score: float
    parts: dict[str, float]


class SearchMixin:
    """The finder's search methods; the finder provides the attributes below."""

    embedder: Embedder
    ablate: frozenset[str]
    _matrix: Matrix | None
    _matrix_generation: int
    _facts_cache: dict[str, FileFacts] | None
    rows: DocRows

    async def find(
        self,
        query: str,
        *,
        user_key: str | None = None,
        k: int = 5,
        include_owner: bool = False,
        history: bool | None = None,
    ) -> list[FoundFile]:
        """The ``k`` best files for ``query`` that ``user_key`` may see (the owner's files
        when None; with ``include_owner`` a person who owns the bot sees both). Earlier
        versions take part when the query asks for them ("before", "previous", ...) or when
        ``history`` is True."""
        owners = self._visible_owners(user_key, include_owner)
        matrix = await self._get_matrix()
        if not matrix.visible(owners, True).any():
            return []  # no file this person may see (every turn asks): nothing to work out
        parsed = parse_query(query, ablate=self.ablate)
        with_history = parsed.wants_history if history is None else history
        qvec = await self.embedder.aembed(query)
        mask = matrix.visible(owners, with_history)
        if not mask.any():
            return []
        keyword = await self._keyword_hits(parsed, owners, with_history)
        candidates = self._fuse(matrix, qvec, mask, keyword)
        ranked = await self._rank_files(matrix, candidates, parsed)
        return await self._found(matrix, ranked[:k], parsed.expanded)

    async def dense_top_k(
        self, query: str, *, user_key: str | None = None, k: int = 5
    ) -> list[tuple[str, float]]:
        """Plain dense search: the ``k`` nearest chunks (file id, cosine), no keyword, no
        knobs, no dedupe. The baseline the benchmark measures the full search against."""
        owners = self._visible_owners(user_key, False)
        qvec = await self.embedder.aembed(query)
        matrix = await self._get_matrix()
        scores = matrix.vectors @ qvec
        scores[~matrix.visible(owners, False)] = -np.inf
        rows = top_indices(scores, k)
        return [(matrix.file_ids[matrix.file_index[r]], float(scores[r])) for r in rows]

    def _visible_owners(self, user_key: str | None, include_owner: bool) -> set[str]:
        owner = owner_of(user_key)
        return {owner, OWNER} if include_owner else {owner}

    def _fuse(
        self,
        matrix: Matrix,
        qvec: np.ndarray,
        mask: np.ndarray,
        keyword: dict[int, float],
    ) -> list[Candidate]:
        cosines = matrix.vectors @ np.asarray(qvec, dtype=np.float32)
        masked = np.where(mask, cosines, -np.inf)
        dense_rows = top_indices(masked, CANDIDATES)
        dense_rows = dense_rows[np.isfinite(masked[dense_rows])]
        kw_rows = np.array(list(keyword), dtype=np.int64)
        rows = np.unique(np.concatenate([dense_rows, kw_rows])) if kw_rows.size else dense_rows
        if rows.size == 0:
            return []
        bm25 = np.array([keyword.get(int(r), 0.0) for r in rows], dtype=np.float32)
        values = compute_signals(FUSION_SIGNALS, FusionInputs(cosines[rows], bm25), SignalGate())
        dense, kw = values.parts["dense"], values.parts["keyword"]
        fused = fuse(values.parts, FUSION_WEIGHTS)
        return [
            Candidate(
                row=int(r),
                seq=int(matrix.seqs[r]),
                group=(matrix.file_ids[matrix.file_index[r]], matrix.versions[r]),
                cosine=float(cosines[r]),
                dense=float(dense[i]),
                keyword=float(kw[i]),
                fused=float(fused[i]),
            )
            for i, r in enumerate(rows)
        ]

    async def _keyword_hits(
        self, parsed: ParsedQuery, owners: set[str], history: bool
    ) -> dict[int, float]:
        """Matrix row -> bm25 (negative, lower is better) of the best keyword chunks."""
        words = [re.sub(r"[^\w]", "", w) for w in parsed.expanded]
        words = [w for w in words if w]
        if not words:
            return {}
        hits = await self.rows.keyword_hits(words, owners, history, CANDIDATES)
        matrix = await self._get_matrix()
        rows = matrix.rows_of([h[0] for h in hits])
        return {int(r): s for r, (_, s) in zip(rows, hits, strict=True) if r >= 0}

    async def _rank_files(
        self, matrix: Matrix, candidates: list[Candidate], parsed: ParsedQuery
    ) -> list[_Ranked]:
        per_file = best_per_file(candidates)
        content = best_content_per_file(candidates)
        facts = await self._facts([c.group[0] for c in per_file])
        ranked = []
        for cand in per_file:
            fact = facts.get(cand.group[0])
            if fact is None:
                continue
            score, parts = apply_knobs(cand.fused, parsed, fact, ablate=self.ablate)
            shown = content.get(cand.group, cand) if cand.seq == 0 else cand
            ranked.append(_Ranked(cand, shown, score, parts))
        # Ties (the same text under two names) break by file id, not by indexing order,
        # so no file wins a tie for having been indexed first.
        ranked.sort(key=lambda item: (-item.score, item.best.group[0]))
        return ranked

    async def _facts(self, file_ids: Sequence[str]) -> dict[str, FileFacts]:
        """Name, folder and extension of files, kept (with their word stems) as long as the
        matrix is."""
        if self._facts_cache is None:
            self._facts_cache = {
                fid: FileFacts(name=name, folder=folder, ext=ext)
                for fid, name, folder, ext in await self.rows.file_facts()
            }
        cache = self._facts_cache
        return {fid: cache[fid] for fid in file_ids if fid in cache}

    async def _found(
        self,
        matrix: Matrix,
        ranked: list[_Ranked],
        words: Sequence[str],
    ) -> list[FoundFile]:
        chunk_ids = [int(matrix.chunk_ids[item.shown.row]) for item in ranked]
        rows = await self._chunk_rows(chunk_ids)
        out: list[FoundFile] = []
        for item, chunk_id in zip(ranked, chunk_ids, strict=True):
            row = rows.get(chunk_id)
            if row is None:
                continue
            cand = item.best
            page, text, kind, version, current, name, path, owner = row
            parts = {
                "cosine": round(cand.cosine, 4),
                "dense": round(cand.dense, 4),
                "keyword": round(cand.keyword, 4),
                "fused": round(cand.fused, 4),
                **{k: round(v, 4) for k, v in item.parts.items()},
            }
            out.append(
                FoundFile(
                    file_id=cand.group[0],
                    name=name,
                    path=path,
                    owner=owner or None,
                    page=page,
                    passage=passage_of(text, words),
                    score=round(item.score, 4),
                    parts=parts,
                    explain=file_explain(cand, item.parts),
                    chunk_kind=kind,
                    version=version,
                    is_history=not current,
                )
            )
        return out

    async def _chunk_rows(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        return await self.rows.chunk_rows(chunk_ids)

    async def _get_matrix(self) -> Matrix:
        """The in-memory matrix, reloaded when this or another process (the CLI while the
        bot runs) changed the index since it was built."""
        generation_now = await self.rows.generation()
        if self._matrix is None or generation_now != self._matrix_generation:
            self._facts_cache = None
            model, dim = self.embedder.space
            self._matrix = await self.rows.load_matrix(model, dim)
            self._matrix_generation = generation_now
        return self._matrix
