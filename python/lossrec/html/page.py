"""The shared frame of lossrec's HTML pages: one self-contained file (no network), the
style, escaping, and the no-overwrite rule for files we did not write."""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any, Optional, Sequence

#: The page's style: readable tables, a fixed details box beside the graphs.
STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.2em 2em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.6em 0; }
th, td { border: 1px solid #ccc; padding: 3px 7px; vertical-align: top; text-align: left; }
th { background: #f2f2f2; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #555; font-size: 0.9em; }
.flow { display: flex; gap: 1em; align-items: flex-start; }
.details { min-width: 18em; max-width: 24em; border: 1px solid #bbb; padding: 0.5em;
           font-size: 0.85em; background: #fafafa; position: sticky; top: 0.5em; }
.details table { font-size: 1em; } .details h3 { margin: 0.2em 0; font-size: 1em; }
img.figure { max-width: 100%; }
code { background: #f4f4f4; padding: 0 2px; }
"""


def esc(x: Any) -> str:
    """Text safe inside HTML (element content and quoted attributes)."""
    return html.escape(str(x), quote=True)


def table(headers: Sequence[Any], rows: Sequence[Sequence[Any]], raw: bool = False) -> str:
    """An HTML table; numbers right-aligned. ``raw``: cells are HTML already."""
    def td(c: Any) -> str:
        num = isinstance(c, (int, float)) and not isinstance(c, bool)
        body = (f"{c:,}" if isinstance(c, int) and not isinstance(c, bool) else
                ("—" if c is None else (str(c) if raw else esc(c))))
        return f"<td class=\"num\">{body}</td>" if num else f"<td>{body}</td>"

    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(td(c) for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def document(title: str, body: str, head_extra: str = "") -> str:
    """A whole page: ``body`` and ``head_extra`` (inline scripts) are HTML."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title)}</title><style>{STYLE}</style>{head_extra}</head>"
            f"<body>{body}</body></html>\n")


def check_writable(path: "str | os.PathLike[str]", force: bool) -> Path:
    """Refuses an existing file unless ``force``: no command overwrites a file it did not
    write (the project's rule); ``--force`` says the user wants it replaced."""
    p = Path(path)
    if p.exists() and not force:
        raise FileExistsError(f"{p} exists; not overwriting it (give --force to replace it)")
    if p.exists() and p.is_dir():
        raise IsADirectoryError(f"{p} is a directory")
    return p


def write_atomic(path: Path, text: str, force: bool = True) -> Path:
    """Writes ``text`` to ``path`` through a temporary file beside it, so that a reader
    never sees half a page; ``force=False`` refuses an existing file."""
    check_writable(path, force)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def plotly_js() -> str:
    """plotly.js itself, to inline in a ``<script>``: the page needs no network."""
    from plotly.offline import get_plotlyjs

    return str(get_plotlyjs())


def inline_script(code: str, kind: Optional[str] = None) -> str:
    """``code`` in a ``<script>`` element; ``</script`` inside it is escaped."""
    safe = code.replace("</script", "<\\/script")
    t = f" type=\"{kind}\"" if kind else ""
    return f"<script{t}>{safe}</script>"
