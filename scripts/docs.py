#!/usr/bin/env python3
"""Builds lossrec's documentation site with MkDocs (issue 28): the README as the home page,
every page of docs/, the command-line help of each `lossrec` command (taken from the
installed CLI, so it cannot drift from it) and the lab notebook rendered as a page.

    python3 scripts/docs.py [-o OUT] [--serve]

The site's sources are assembled in OUT/src and built with `mkdocs build --strict` into
OUT/site (OUT defaults to out/docs); MkDocs comes with the project's `docs` extra
(`pip install '.[docs]'`). scripts/test.sh builds it in CI, so a page that breaks
the strict build (a broken link, a missing file) fails the suite.

Only OUT/src and OUT/site are written, and only when OUT is new or was written by this
script before (it leaves OUT/.lossrec-docs as its mark).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parent.parent
MARK = ".lossrec-docs"
NOTEBOOK = ROOT / "examples" / "lossrec-lab.ipynb"


def cli_pages() -> Dict[str, str]:
    """``command → its --help text``, read from the installed click group (the same text
    `lossrec COMMAND --help` prints)."""
    import click

    from lossrec.cli import main

    ctx = click.Context(main, info_name="lossrec", terminal_width=100, max_content_width=100)
    pages = {"lossrec": main.get_help(ctx)}
    for name in sorted(main.list_commands(ctx)):
        cmd = main.get_command(ctx, name)
        if cmd is None or cmd.hidden:
            continue
        sub = click.Context(cmd, info_name=name, parent=ctx, terminal_width=100, max_content_width=100)
        pages[f"lossrec {name}"] = cmd.get_help(sub)
    return pages


def cli_markdown(pages: Dict[str, str]) -> str:
    """One page: each command's help as a preformatted block (help text is laid out for a
    terminal, so it is shown as the terminal shows it)."""
    out = ["# Command-line reference", "",
           "The help of every `lossrec` command, as `lossrec COMMAND --help` prints it "
           "(generated from the installed CLI when the site is built).", ""]
    for title, text in pages.items():
        out += [f"## `{title}`", "", "```text", text.rstrip(), "```", ""]
    return "\n".join(out)


def notebook_markdown(path: Path) -> str:
    """The notebook as Markdown: its Markdown cells as they are, code cells as Python
    blocks, and the text outputs it was saved with (images are left out: the notebook is
    saved without them, and a site page is no place to run it)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    out = [f"<!-- rendered from examples/{path.name} by scripts/docs.py -->", ""]
    for c in nb.get("cells", []):
        src = "".join(c.get("source", []))
        if c.get("cell_type") == "markdown":
            out += [src, ""]
        elif c.get("cell_type") == "code":
            out += ["```python", src, "```", ""]
            for o in c.get("outputs", []):
                text = "".join(o.get("text", []) or o.get("data", {}).get("text/plain", []))
                if text.strip():
                    out += ["```text", text.rstrip(), "```", ""]
    return "\n".join(out)


def assemble(src: Path) -> List[str]:
    """Writes the site's Markdown sources into ``src``; returns the navigation (file names)."""
    src.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "README.md", src / "index.md")
    nav = ["index.md"]
    for page in sorted((ROOT / "docs").glob("*.md")):
        shutil.copyfile(page, src / page.name)
        nav.append(page.name)
    (src / "cli.md").write_text(cli_markdown(cli_pages()), encoding="utf-8")
    nav.append("cli.md")
    if NOTEBOOK.exists():
        (src / "notebook.md").write_text(notebook_markdown(NOTEBOOK), encoding="utf-8")
        nav.append("notebook.md")
    return nav


def config(out: Path, nav: List[str]) -> Path:
    """OUT/mkdocs.yml (JSON is YAML): the sources, the site folder and the navigation."""
    titles = {"index.md": "Home", "cli.md": "Command line", "notebook.md": "Lab notebook"}
    cfg = {"site_name": "lossrec", "docs_dir": "src", "site_dir": "site", "strict": True,
           "use_directory_urls": False,
           "nav": [{titles.get(n, n[:-3].replace("-", " ").capitalize()): n} for n in nav]}
    path = out / "mkdocs.yml"
    path.write_text(json.dumps(cfg, indent=1), encoding="utf-8")
    return path


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", type=Path, default=ROOT / "out" / "docs")
    ap.add_argument("--serve", action="store_true", help="mkdocs serve instead of build")
    a = ap.parse_args(argv)
    out: Path = a.out
    if out.exists() and any(out.iterdir()) and not (out / MARK).exists():
        print(f"docs.py: {out} holds files this script did not write; give another -o",
              file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    (out / MARK).write_text("written by scripts/docs.py\n", encoding="utf-8")
    for d in ("src", "site"):
        shutil.rmtree(out / d, ignore_errors=True)
    cfg = config(out, assemble(out / "src"))
    cmd = [sys.executable, "-m", "mkdocs", "serve" if a.serve else "build", "--strict", "-q", "-f", str(cfg)]
    if a.serve:
        cmd.remove("-q")
    r = subprocess.run(cmd, check=False)
    if r.returncode == 0 and not a.serve:
        print(f"docs: {out / 'site' / 'index.html'}")
    return r.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
