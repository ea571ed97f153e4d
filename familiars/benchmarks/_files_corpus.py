"""The ``bench files`` corpus: real files found on this machine, copied into a temp folder.

Nothing here is committed or downloaded. Sources, in order:

- ``doc/``: ``/usr/share/doc`` (README, copyright, NEWS, markdown, HTML, C examples ...;
  gzip-compressed READMEs and NEWS files are unpacked; Debian changelogs are left out);
- ``man/``: sections 5 and 8 of ``/usr/share/man`` plus a fixed list of section-1 pages,
  unpacked and stripped of roff markup (what ``man`` shows, without the pager);
- ``python/``: the Python standard library's sources (no tests);
- the PDFs found under ``/usr/share/doc``; a few DOCX files rendered (with page breaks) from
  real markdown READMEs; CSV files shipped with numpy;
- ``telegram-cache/``: copies of some of those files under machine-made names, as a
  messaging app caches forwarded files (what the opaque-name knob is for).
"""

from __future__ import annotations

import gzip
import hashlib
import re
import shutil
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

DOC_ROOT = Path("/usr/share/doc")
MAN_ROOT = Path("/usr/share/man")
MAN1_PAGES = (
    "ls", "cp", "mv", "rm", "ln", "chmod", "chown", "find", "grep", "sed", "awk", "tar", "gzip",
    "bzip2", "xz", "curl", "git", "ssh", "scp", "rsync", "diff", "patch", "sort", "uniq", "cut",
    "tr", "wc", "head", "tail", "less", "du", "df", "ps", "top", "kill", "nice", "date", "cal",
    "bc", "jq", "make", "gcc", "gdb", "strace", "tee", "xargs", "env", "which", "file", "stat",
    "touch", "mkdir", "rmdir", "basename", "dirname", "sha256sum", "md5sum", "base64", "split",
    "join", "paste", "comm", "nl", "od", "hexdump", "truncate", "shred", "timeout", "sleep",
    "watch", "crontab", "gpg", "openssl", "python3", "bash", "dash", "zip", "unzip", "wget",
)  # fmt: skip
SKIP_DOC_NAMES = re.compile(r"^changelog", re.I)
DOC_SUFFIX_SKIP = frozenset(
    {".png", ".gif", ".jpg", ".jpeg", ".svg", ".css", ".js", ".woff", ".ttf", ".inv", ".pickle",
     ".html", ".htm"}
)  # fmt: skip
STDLIB_SKIP_DIRS = frozenset(
    {"test", "tests", "idlelib", "lib2to3", "site-packages", "__pycache__", "turtledemo",
     "config-3.11-x86_64-linux-gnu", "tkinter", "ensurepip", "pydoc_data"}
)  # fmt: skip
DOCX_SOURCES = 12


@dataclass
class Corpus:
    root: Path
    files: list[Path] = field(default_factory=list)
    by_source: dict[str, int] = field(default_factory=dict)

    def add(self, source: str, path: Path) -> None:
        self.files.append(path)
        self.by_source[source] = self.by_source.get(source, 0) + 1


#: Files kept per source (after every query target); the rest are spread evenly.
DEFAULT_QUOTAS = {"doc": 1400, "man": 450, "python": 300, "pdf": 20, "docx": 20, "csv": 20}
#: Filler files (not query targets) of text sources are at most this big, so that embedding
#: the corpus stays within minutes on two CPU cores; targets keep their full size.
FILLER_MAX_BYTES = 12_000
_CAPPED_SOURCES = frozenset({"doc", "man", "python"})


def build_corpus(
    root: Path,
    *,
    keep: frozenset[str] = frozenset(),
    quotas: dict[str, int] | None = None,
    max_file_bytes: int = 2_000_000,
) -> Corpus:
    """Copy real files into ``root``; ``keep`` (paths relative to ``root``) always stay,
    the rest is thinned to ``quotas`` per source by an even stride (deterministic)."""
    corpus = Corpus(root)
    _copy_docs(corpus, max_file_bytes)
    _copy_man(corpus)
    _copy_stdlib(corpus)
    _render_docx(corpus)
    _copy_csv(corpus)
    thinned = _thin(corpus, keep, quotas or DEFAULT_QUOTAS)
    _add_opaque_copies(thinned, keep)
    return thinned


def _thin(corpus: Corpus, keep: frozenset[str], quotas: dict[str, int]) -> Corpus:
    kept = Corpus(corpus.root)
    by_source: dict[str, list[Path]] = {}
    for path in corpus.files:
        by_source.setdefault(_source_of(corpus, path), []).append(path)
    for source, paths in by_source.items():
        must = [p for p in paths if p.relative_to(corpus.root).as_posix() in keep]
        rest = [p for p in paths if p not in set(must)]
        if source in _CAPPED_SOURCES:
            rest = [p for p in rest if p.stat().st_size <= FILLER_MAX_BYTES]
        room = max(quotas.get(source, len(paths)) - len(must), 0)
        stride = max(len(rest) / room, 1.0) if room else float("inf")
        chosen = {rest[int(i * stride)] for i in range(room) if int(i * stride) < len(rest)}
        for path in paths:
            if path in chosen or path in must:
                kept.add(source, path)
            else:
                path.unlink()
    return kept


def _add_opaque_copies(corpus: Corpus, keep: frozenset[str]) -> None:
    """What a messaging app's file cache looks like: copies of files a person forwarded,
    under machine-made names (``AgAD…_1234.pdf``). A quarter of the query targets and as
    many other files get such a twin, which only the file name tells apart."""
    targets = sorted(keep)[::4]
    others = [
        p.relative_to(corpus.root).as_posix()
        for p in corpus.files[:: max(1, len(corpus.files) // 15)]
    ]
    folder = corpus.root / "telegram-cache"
    folder.mkdir(exist_ok=True)
    for number, rel in enumerate(targets + others[:15], start=1):
        src = corpus.root / rel
        if not src.exists():
            continue
        token = hashlib.sha1(rel.encode()).hexdigest()[:14]
        dest = folder / f"AgAD{token}_{1000 + number}{src.suffix}"
        shutil.copyfile(src, dest)
        corpus.add("opaque", dest)


def _source_of(corpus: Corpus, path: Path) -> str:
    rel = path.relative_to(corpus.root)
    if path.suffix == ".pdf":
        return "pdf"
    if path.suffix == ".docx":
        return "docx"
    return {"doc": "doc", "man": "man", "python": "python", "data": "csv"}.get(rel.parts[0], "doc")


def _copy_docs(corpus: Corpus, max_bytes: int) -> None:
    if not DOC_ROOT.is_dir():
        return
    for src in sorted(DOC_ROOT.rglob("*")):
        if not src.is_file() or src.is_symlink() or SKIP_DOC_NAMES.match(src.name):
            continue
        if src.suffix.lower() in DOC_SUFFIX_SKIP or src.stat().st_size > max_bytes:
            continue
        rel = src.relative_to(DOC_ROOT)
        if src.suffix == ".gz":
            dest = corpus.root / "doc" / rel.with_suffix("")
            if not _gunzip(src, dest, max_bytes):
                continue
        else:
            dest = corpus.root / "doc" / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
        corpus.add("pdf" if dest.suffix == ".pdf" else "doc", dest)


def _gunzip(src: Path, dest: Path, max_bytes: int) -> bool:
    try:
        data = gzip.decompress(src.read_bytes())
    except (OSError, EOFError):
        return False
    if len(data) > max_bytes:
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)
    return True


def _copy_man(corpus: Corpus) -> None:
    pages: list[Path] = []
    for section in ("man5", "man8"):
        pages.extend(sorted((MAN_ROOT / section).glob("*.gz")))
    for name in MAN1_PAGES:
        pages.extend(sorted((MAN_ROOT / "man1").glob(f"{name}.1*.gz"))[:1])
    for src in pages:
        try:
            roff = gzip.decompress(src.read_bytes()).decode("utf-8", "replace")
        except (OSError, EOFError):
            continue
        text = deroff(roff)
        if len(text.strip()) < 40:  # ".so" redirects to another page
            continue
        dest = corpus.root / "man" / src.parent.name / src.name[:-3]
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text, encoding="utf-8")
        corpus.add("man", dest)


_FONT = re.compile(r"\\f(\[[^\]]*\]|\(..|.)")
_ESCAPE = re.compile(r"\\(\(..|\*\(..|\*.|\[[^\]]*\]|[&|^%])")
_TEXT_MACROS = frozenset(
    {"B", "I", "BR", "BI", "IB", "RB", "IR", "RI", "TP", "IP", "HP", "SM", "SB", "Nm", "Nd",
     "Fl", "Ar", "Op", "It", "Xr", "Pa", "Dq", "Sy", "Em", "Ql", "Cm", "Li", "Va", "Ev", "Fn"}
)  # fmt: skip


def deroff(roff: str) -> str:
    """Roff man-page source to readable text (headings, paragraphs, no font codes)."""
    out: list[str] = []
    for line in roff.splitlines():
        if line.startswith(('.\\"', "'\\\"", ".\\}", "'")):
            continue
        if line.startswith("."):
            macro, _, arg = line[1:].partition(" ")
            if macro in ("SH", "SS", "Sh", "Ss"):
                out.append("\n" + arg.replace('"', "").strip())
            elif macro == "TH":
                out.append(" ".join(arg.replace('"', "").split()[:2]))
            elif macro in _TEXT_MACROS:
                out.append(arg.replace('"', ""))
            elif macro in ("PP", "P", "LP", "sp", "Pp"):
                out.append("")
            continue
        out.append(line)
    text = "\n".join(out)
    text = _FONT.sub("", text)
    text = text.replace("\\-", "-").replace("\\e", "\\").replace("\\ ", " ").replace("\\(aq", "'")
    text = _ESCAPE.sub("", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def _stdlib_root() -> Path:
    return Path(sysconfig.get_paths(vars={"base": sys.base_prefix})["stdlib"])


def _copy_stdlib(corpus: Corpus) -> None:
    root = _stdlib_root()
    for src in sorted(root.rglob("*.py")):
        rel = src.relative_to(root)
        if any(part in STDLIB_SKIP_DIRS for part in rel.parts[:-1]):
            continue
        if src.name.startswith("_") and src.name != "__init__.py":
            continue
        dest = corpus.root / "python" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        corpus.add("python", dest)


def _render_docx(corpus: Corpus) -> None:
    """Word files rendered from real markdown READMEs, a page break every 30 paragraphs."""
    import docx
    from docx.enum.text import WD_BREAK

    sources = sorted(p for p in (corpus.root / "doc").rglob("README.md") if p.stat().st_size > 800)
    for src in sources[:DOCX_SOURCES]:
        document = docx.Document()
        paragraphs = [p for p in src.read_text(errors="replace").split("\n\n") if p.strip()]
        for i, para in enumerate(paragraphs):
            if para.startswith("#"):
                document.add_heading(para.lstrip("# ").split("\n")[0][:120], level=1)
            else:
                document.add_paragraph(para)
            if i and i % 30 == 0:
                document.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
        dest = src.with_name(f"{src.parent.name}-readme.docx")
        document.save(str(dest))
        corpus.add("docx", dest)


def _copy_csv(corpus: Corpus) -> None:
    try:
        import numpy
    except ImportError:
        return
    data = Path(numpy.__file__).parent / "random" / "tests" / "data"
    for src in sorted(data.glob("*.csv")):
        dest = corpus.root / "data" / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        corpus.add("csv", dest)
