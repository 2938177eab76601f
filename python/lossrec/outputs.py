"""The one rule for every file lossrec writes: it never removes or overwrites a file it did
not write without ``force`` (``--force``), and never removes one at all.

* A single-file output (``run --trace/--pcap/--pcap-receiver/--plot``, ``sweep -o FILE``,
  ``plot -o``, ``wire --trace/--pcap/--plot``) that already exists is refused unless
  ``force``, which overwrites that one file as asked.
* A folder output keeps a manifest of the files lossrec wrote into it (``reproduce``'s
  ``DIR/NAME/.lossrec-files.json``; a sweep folder's ``_sweep.json``). A rerun replaces
  what the manifest lists; a file it does not list is foreign: the folder is refused
  unless ``force``, and even then the foreign file is left in place (and one that is in
  the way of a file lossrec must write is refused whatever ``force`` says).

Checks happen before the work starts, so a long run is not refused at its end.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, Iterable, List, Optional, Sequence, Set

from .errors import OutputExistsError

#: How many foreign files an error names before "and N more".
SHOWN = 5


def is_stream(path: "str | os.PathLike[str] | None") -> bool:
    """``None`` or ``-`` (standard output): nothing on disk to protect."""
    return path is None or os.fspath(path) == "-"


def check_new_file(path: "str | os.PathLike[str] | None", force: bool, what: str = "") -> None:
    """Refuses ``path`` if it exists and ``force`` is false (``what`` names the option)."""
    if is_stream(path):
        return
    p = Path(os.fspath(path))  # type: ignore[arg-type]
    if p.is_dir():
        raise OutputExistsError(f"{p}: is a folder{_for(what)}; give a file name", str(p))
    if p.exists() and not p.is_file():
        return  # a device or a pipe (/dev/null, a FIFO): writing to it replaces nothing
    if (p.exists() or p.is_symlink()) and not force:
        raise OutputExistsError(
            f"{p}: already exists{_for(what)}; lossrec does not overwrite a file it did not "
            f"write: remove it, choose another name, or pass --force (force=True) to "
            f"overwrite it", str(p))


def check_new_files(paths: Iterable["str | os.PathLike[str] | None"], force: bool,
                    what: str = "") -> None:
    for p in paths:
        check_new_file(p, force, what)


def _for(what: str) -> str:
    return f" ({what})" if what else ""


def _names(paths: Sequence[str]) -> str:
    shown = ", ".join(paths[:SHOWN])
    more = len(paths) - SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


class Manifest:
    """The files lossrec wrote into ``folder``, kept in ``folder/<name>`` as
    ``{"written_by": "lossrec", "files": [relative paths]}``."""

    def __init__(self, folder: Path, name: str,
                 legacy: Optional[Callable[[], Set[str]]] = None):
        self.folder, self.path = folder, folder / name
        self.legacy = legacy

    def files(self) -> Set[str]:
        """What the manifest lists (empty if it is unreadable); without a manifest, what
        ``legacy()`` recognises as written by an older lossrec, else nothing."""
        if not self.path.exists() and self.legacy is not None:
            return self.legacy()
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return {str(f) for f in data.get("files", []) if isinstance(f, str)}
        except (OSError, ValueError, AttributeError):
            return set()

    def foreign(self) -> List[str]:
        """Files and links under the folder that the manifest does not list (sorted,
        relative); empty folders are not counted."""
        if not self.folder.is_dir():
            return []
        ours = self.files() | {self.path.name}
        out = []
        for root, dirs, files in os.walk(self.folder):
            for f in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
                rel = Path(root, f).relative_to(self.folder).as_posix()
                if rel not in ours:
                    out.append(rel)
        return sorted(out)

    def refuse_foreign(self, force: bool, what: str) -> List[str]:
        """Raises unless the folder holds only what the manifest lists or ``force``;
        returns the foreign files."""
        foreign = self.foreign()
        if foreign and not force:
            raise OutputExistsError(
                f"{self.folder}: holds files lossrec did not write ({_names(foreign)}); {what} "
                f"would replace the folder's contents: choose another output, or pass --force "
                f"(force=True) to write beside them (they are kept)", str(self.folder))
        return foreign

    def write(self, files: Iterable[str], into: Optional[Path] = None) -> None:
        """Writes the manifest (into ``into`` instead of the folder, e.g. a staging copy)."""
        target = (into or self.folder) / self.path.name
        body = {"written_by": "lossrec", "files": sorted(set(files))}
        tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
        tmp.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, target)


def files_under(folder: Path) -> List[str]:
    """Every file under ``folder``, relative, sorted."""
    return sorted(Path(root, f).relative_to(folder).as_posix()
                  for root, _, files in os.walk(folder) for f in files)


def remove_written(folder: Path, files: Iterable[str]) -> None:
    """Removes the listed files (ours) from ``folder``, then the folders they leave empty;
    anything else stays."""
    parents: Set[Path] = set()
    for rel in files:
        p = folder / rel
        if p.is_file() or p.is_symlink():
            p.unlink()
            parents.update(q for q in p.parents if folder in q.parents)
    for d in sorted(parents, key=lambda q: len(q.parts), reverse=True):
        try:
            d.rmdir()
        except OSError:
            pass  # not empty: something that is not ours is in it


def prune_empty(folder: Path) -> None:
    """Removes the empty folders under ``folder`` and ``folder`` itself if it is left empty
    (an empty folder holds nothing of anyone's); a folder with a file in it stays."""
    for root, _, _ in sorted(os.walk(folder), key=lambda w: len(Path(w[0]).parts), reverse=True):
        try:
            os.rmdir(root)
        except OSError:
            pass
