from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from familiars.memory import MemoryRecord, new_id
from familiars.memory._entries import ParsedFile, Segment, parse_text, read_file, render_file

SEED_EXAMPLE = (
    '<!-- {"id":"m_a1b2c3d4","scope":"user","category":"profile",'
    '"ts":"2026-08-29T12:00:00+00:00","tags":["name"],"salience":0.8,"ttl":null,'
    '"supersedes":null,"deprecated":false,"schema_version":2} -->\n'
    "The user's name is Alice and they like cats.\n"
)

bodies = st.one_of(
    st.text(),
    st.lists(
        st.sampled_from(["<!--", "-->", "\n", "\\", " ", "a", "{", "}", "\r", "é", "<!-- {"])
    ).map("".join),
    st.sampled_from(["", "\n", "-->", "<!-- {x} -->", "\\<!--", "# Title\n\n- item\n"]),
)


def _record(content: str, **kw: object) -> MemoryRecord:
    return MemoryRecord(id=new_id(), scope="user", category="profile", content=content, **kw)


@settings(max_examples=300, deadline=None)
@given(st.lists(bodies, min_size=1, max_size=4), st.lists(st.text(max_size=10), max_size=3))
def test_render_then_parse_round_trips_any_content(contents: list[str], tags: list[str]) -> None:
    records = [_record(c, tags=tags, extra={"note": "-->"}) for c in contents]
    text = render_file(ParsedFile(None, [Segment("", 0, r) for r in records]))
    parsed = parse_text(text)
    assert parsed.errors == []
    assert parsed.records == records
    assert render_file(parsed) == text


def test_seed_example_parses_with_defaults() -> None:
    parsed = parse_text(SEED_EXAMPLE)
    (rec,) = parsed.records
    assert rec.id == "m_a1b2c3d4"
    assert rec.content == "The user's name is Alice and they like cats."
    assert rec.salience == 0.8 and rec.tags == ["name"]
    assert rec.epistemic_status == "asserted" and rec.access_count == 0


def test_header_is_one_line_of_json_in_a_comment() -> None:
    text = render_file(ParsedFile(None, [Segment("", 0, _record("hi\nthere"))]))
    first = text.split("\n")[0]
    assert first.startswith("<!-- {") and first.endswith("} -->")


def test_unknown_keys_survive_a_rewrite() -> None:
    text = SEED_EXAMPLE.replace(
        '"schema_version":2', '"schema_version":2,"open_loop":{"kind":"reminder"},"future_key":[1]'
    )
    parsed = parse_text(text)
    again = parse_text(render_file(parsed))
    assert again.records[0].extra == {"open_loop": {"kind": "reminder"}, "future_key": [1]}


def test_older_schema_version_is_upgraded_in_memory() -> None:
    text = SEED_EXAMPLE.replace('"schema_version":2', '"schema_version":1').replace(
        '"ttl":null', '"ttl":{"kind":"expires","expires_at":"2030-01-01T00:00:00Z"}'
    )
    rec = parse_text(text).records[0]
    assert rec.schema_version == 2
    assert rec.ttl == {"kind": "absolute", "expires_at": "2030-01-01T00:00:00Z"}


BROKEN = [
    ('<!-- {"id":"m_1","scope":"user" -->\nbad json\n', "bad JSON"),
    ('<!-- {"id":"m_2","scope":"user"}\nno comment end\n', "not closed"),
    ('<!-- {"id":"m_3","scope":"user","salience":"high"} -->\nwrong type\n', "salience"),
    ('<!-- {"id":"m_4","scope":"nowhere"} -->\nbad scope\n', "scope"),
    ('<!-- {"id":7,"scope":"user"} -->\nbad id\n', "id"),
]


def test_broken_entries_are_reported_with_line_and_kept_verbatim(tmp_path: Path) -> None:
    good = _record("good one")
    good_text = render_file(ParsedFile(None, [Segment("", 0, good)]))
    text = (
        "# My profile\n\n"
        + good_text
        + "\n"
        + "\n".join(b for b, _ in BROKEN)
        + "\n"
        + good_text.replace(good.id, "m_other")
    )
    path = tmp_path / "profile.md"
    path.write_text(text)
    parsed = read_file(path)
    assert [r.id for r in parsed.records] == [good.id, "m_other"]
    assert len(parsed.errors) == len(BROKEN)
    for err, (_, reason) in zip(parsed.errors, BROKEN, strict=True):
        assert reason in err.reason
        assert str(path) in str(err)
        assert text.split("\n")[err.line - 1].startswith("<!--")
    # Rewriting keeps every byte of the broken entries.
    rewritten = render_file(parsed)
    for broken, _ in BROKEN:
        assert broken.strip() in rewritten
    assert rewritten.startswith("# My profile\n")


def test_non_utf8_file_is_reported_not_crashed(tmp_path: Path) -> None:
    path = tmp_path / "profile.md"
    path.write_bytes(b"\xff\xfe garbage")
    parsed = read_file(path)
    assert parsed.records == [] and len(parsed.errors) == 1
    assert "UTF-8" in parsed.errors[0].reason


def test_a_second_entry_with_an_id_already_in_the_file_is_reported_and_kept(
    tmp_path: Path,
) -> None:
    """Tester s34 U87: a hand copy of an entry (same id, other text) left both live, and a
    forget by the id left the copy. The copy is reported with its line, left out of what is
    known, and kept byte for byte."""
    first = _record("Dan lives in Leeds.")
    one = render_file(ParsedFile(None, [Segment("", 0, first)]))
    copy = one.replace("Leeds", "York")
    path = tmp_path / "relation.md"
    path.write_text(one + "\n" + copy)
    parsed = read_file(path)
    assert [r.content for r in parsed.records] == ["Dan lives in Leeds."]
    [err] = parsed.errors
    assert first.id in err.reason and "already used at line 1" in err.reason
    assert "York" in render_file(parsed)
