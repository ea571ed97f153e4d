"""The memory writer (§5.7): after a reply, decide what of the turn is worth remembering and
apply it within the turn's budget (§5.7.3), without ever adding a second copy of a fact.

Modules, in the order a turn meets them (this file imports none of them: the memory face
imports each by its full path, so the offline writer can use the schema without a circle):

- :mod:`._turn`: :class:`TurnContext`, what the runtime hands over after the reply
  (JSON-serialisable, so the queue can persist it and a crash loses no turn);
- :mod:`._queue`: :class:`WriterQueue`, one file per waiting turn; ``start()`` opens the writer;
- :mod:`._model`: :class:`MemoryWriter` and the prompt; asks the chat model for a
  WriterOutput (one repair attempt), or, with no model or a failing one, the rule-based
  writer in :mod:`familiars.memory._offline`;
- :mod:`._schema`: :class:`WriterOutput`, :class:`WriteOp`, :class:`WriterEntry`,
  :class:`OpenLoop`, :func:`parse_writer_output` (writes outside VALID_CELLS are rejected one
  by one);
- :mod:`._rights`: :func:`govern`, who may change what: identity only from an owner in a
  private chat; anyone else's request about the agent's behaviour is kept for that person;
- :mod:`._apply`: :func:`apply_writes` / :func:`apply_writes_report`: greedy character
  budget, ``add`` / ``update`` / ``skip``, ``supersedes_id`` deprecates the old record;
- :mod:`._dedupe`: copies stopped independently of the model (same normalised text, or
  close by cosine and the same fact by :func:`familiars.memory._fact_identity.same_fact`);
- :mod:`._status`: :class:`WriterStats` persisted to ``<workspace>/state/writer_status.json``
  so that ``familiars memory writer-status`` in another process can read it.
"""
