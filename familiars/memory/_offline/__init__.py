"""The rule-based writer used when no language model is configured.

It splits the person's own message into sentences and each sentence into clauses ("My name is
Alice and I love hiking" is two clauses; "salt and pepper crisps" stays one object), runs every
pattern on every clause, and keeps only what simple patterns can say for sure: a name ("my name
is", "call me"), likes and dislikes, allergies and diets, birthdays and other dates, where
someone lives or works, things the person asks to be remembered ("remember that my locker code
is 4471"), and reminders ("remind me to X tomorrow at 9"), which become an ``event`` with an
absolute TTL and an open loop of kind ``reminder`` due in the person's time zone. Questions,
hypotheticals, reported speech and clauses about other people are left alone: a missed fact
costs less than a wrong one.

Each fact gets a canonical sentence and a topic tag (``topic:coffee``, ``name``, ``home``...),
so that the same fact told in other words is the same record, and a changed fact ("I don't
like coffee anymore") supersedes the record it contradicts.

Modules (this file imports none of them; use them by full path):

- :mod:`._everyday`: everyday wordings said the plain way the rules read, before them;
- :mod:`._clauses`: sentences and clauses, questions and polite requests;
- :mod:`._objects`: :class:`Fact`, objects, topics, ``third_person``;
- :mod:`._patterns`: name, likes, health, place and work, notes;
- :mod:`._dates`: time zones, due times and days, birthdays, dated events, reminders;
- :mod:`._writes`: facts to writes (:func:`offline_writes`, the whole offline writer).
"""
