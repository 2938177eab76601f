"""`Result`: what one simulation run produced, as Python and pandas objects.

pandas is imported on first use of a DataFrame property, so that importing this module
(and ``lossrec --version``) stays fast.
"""

from __future__ import annotations

import json as _json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from . import _core
from .errors import NotRequestedError

if TYPE_CHECKING:
    import pandas as pd

#: The per-flow schema exported by the simulator: ``(name, kind)`` with kind ``int``,
#: ``float`` or ``str``, in column order (``lossrec_sim::FlowResult::FIELDS``).
FLOW_SCHEMA: Tuple[Tuple[str, str], ...] = tuple(_core.flow_fields())
#: Per-flow fields of the ``--json`` contract, in column order.
FLOW_FIELDS: Tuple[str, ...] = tuple(name for name, _ in FLOW_SCHEMA)

__all__ = ["Result", "NotRequestedError", "FLOW_FIELDS", "FLOW_SCHEMA", "parse_jsonl"]


def parse_jsonl(text: str) -> List[Dict[str, Any]]:
    """Parses JSON lines, skipping blank lines."""
    return [_json.loads(line) for line in text.splitlines() if line.strip()]


class Result:
    """One run's results.

    Attributes:
        json: the run's ``--json`` object as a dict: ``seed``, ``flows``, ``recoveries``,
            ``sim``, ``provenance`` (and ``outputs`` when a trace or pcap was written).
        seed: the seed the run used.
        flows: a DataFrame, one row per flow, columns as in the JSON ``flows`` entries.
        sim: the run-level figures, the JSON's ``sim`` object (``events``, ``wall_s``, ...).
        trace: the JSON-lines trace as a DataFrame (only with ``trace=True``, or read back
            from the file when the trace was streamed to one).
        trace_records: the same as a list of dicts.
        trace_jsonl: the same as the raw text.
    """

    def __init__(self, json_text: str, trace: Optional[str] = None, pcap: Optional[bytes] = None,
                 trace_file: Optional[Path] = None, columns: Optional[Dict[str, Any]] = None,
                 extra: Optional[Dict[str, Any]] = None):
        """``json_text`` is the simulator's object; ``extra`` keys (provenance, outputs)
        follow its own. With ``columns`` (``_core.run_scenario(columns=True)``) the flows
        come from those buffers and the text is parsed only when ``json`` is first read:
        a 100,000-flow run reaches its table, its DataFrame and its ``--json`` text
        without a Python object per field (issue 29 item 3)."""
        self._json_text = json_text
        self._json: Optional[Dict[str, Any]] = None
        self._extra: Dict[str, Any] = dict(extra or {})
        self._columns = columns
        self._head: Optional[Dict[str, Any]] = None
        self._trace_text = trace
        self._trace_file = trace_file
        self._pcap = pcap
        self._trace_records: Optional[List[Dict[str, Any]]] = None
        if columns is None:
            _ = self.json  # parse now: a malformed text fails here, as before

    @property
    def json(self) -> Dict[str, Any]:
        """The run's ``--json`` object as a dict (parsed on first use; edits stick)."""
        if self._json is None:
            obj = _json.loads(self._json_text)
            obj.update(self._extra)
            self._json = obj
            self._extra = obj  # later edits of the keys after the simulator's go to the one dict
        return self._json

    @property
    def meta(self) -> Dict[str, Any]:
        """The keys after the simulator's own (``provenance``, ``outputs``), editable
        without parsing the whole object."""
        return self._extra

    def _light(self) -> Dict[str, Any]:
        """``seed``, ``sim`` and ``background``, without parsing the flows if possible."""
        if self._json is None and self._columns is not None and "head" in self._columns:
            if self._head is None:
                self._head = _json.loads(self._columns["head"])
            return self._head
        return self.json

    def json_text(self) -> str:
        """The ``--json`` object as text indented by two spaces, as ``json.dumps(indent=2)``
        lays it out. When the simulator already indented its part (``pretty=True``) and
        the object was not parsed, its text is used as it is and only the keys after it
        are serialised here."""
        text = self._json_text
        if self._json is not None or not text.startswith("{\n") or not text.endswith("\n}"):
            return _json.dumps(self.json, indent=2)
        if not self._extra:
            return text
        tail = _json.dumps(self._extra, indent=2)  # "{\n  ...\n}": already one level in
        return "".join((text[:-2], ",\n", tail[2:-2], "\n}"))  # one copy of a long text

    @property
    def n_flows(self) -> int:
        """How many flows the run reports."""
        if self._json is None and self._columns is not None:
            return int(self._columns["rows"])
        return len(self.json.get("flows", []))

    def flow_column(self, name: str) -> Any:
        """One per-flow field as a numpy array (``preset``: an object array of names)."""
        import numpy as np

        c = self._columns
        if c is None:
            rows = self.json.get("flows", [])
            return np.array([r.get(name) for r in rows], dtype=object if name == "preset" else None)
        n = int(c["rows"])
        if name in c["int_names"]:
            j = c["int_names"].index(name)
            return np.frombuffer(c["ints"], "<i8", count=n, offset=j * n * 8)
        if name == "fct_ms":
            return np.frombuffer(c["fct_ms"], "<f8", count=n)
        if name == "preset":
            return np.array(c["presets"], dtype=object)[np.frombuffer(c["preset"], "<u4", count=n)]
        raise KeyError(name)

    @property
    def seed(self) -> int:
        return int(self._light()["seed"])

    @property
    def sim(self) -> Dict[str, Any]:
        return dict(self._light().get("sim") or {})

    @property
    def background(self) -> List[Dict[str, Any]]:
        """Per ``[[background]]`` source, apart from the measured flows: packets offered to
        the forward bottleneck, bytes, drops, bursts, and for ``tcp`` sources connections
        (started, finished, rejected), delivered bytes, retransmissions and timeouts."""
        return [dict(b) for b in self._light().get("background") or []]

    @property
    def provenance(self) -> Dict[str, Any]:
        src = self._extra if self._json is None else self.json
        return dict(src.get("provenance") or {})

    @property
    def flows(self) -> "pd.DataFrame":
        import pandas as pd

        if self._json is None and self._columns is not None:
            return pd.DataFrame({name: self.flow_column(name) for name in FLOW_FIELDS})
        rows = self.json.get("flows", [])
        cols = list(FLOW_FIELDS) + [c for r in rows for c in r if c not in FLOW_FIELDS]
        cols = list(dict.fromkeys(cols))
        return pd.DataFrame(rows, columns=cols)

    @property
    def recoveries(self) -> "pd.DataFrame":
        import pandas as pd

        return pd.DataFrame(self.json.get("recoveries", []))

    @property
    def trace_jsonl(self) -> str:
        if self._trace_text is None:
            if self._trace_file is not None and str(self._trace_file) != "-":
                from .trace_io import read_text

                return read_text(self._trace_file)
            raise NotRequestedError(
                "this run collected no trace; call lossrec.run(..., trace=True)"
            )
        return self._trace_text

    @property
    def trace_records(self) -> List[Dict[str, Any]]:
        if self._trace_records is None:
            self._trace_records = parse_jsonl(self.trace_jsonl)
        return self._trace_records

    @property
    def trace(self) -> "pd.DataFrame":
        import pandas as pd

        return pd.DataFrame(self.trace_records)

    @property
    def pcap(self) -> bytes:
        if self._pcap is None:
            raise NotRequestedError("this run collected no pcap; call lossrec.run(..., pcap=True)")
        return self._pcap

    def write_pcap(self, path: "str | os.PathLike[str]") -> Path:
        """Writes the run's pcap (requires ``pcap=True``); returns the path."""
        p = Path(path)
        p.write_bytes(self.pcap)
        return p

    def write_trace(self, path: "str | os.PathLike[str]") -> Path:
        """Writes the JSON-lines trace (requires ``trace=True``); returns the path."""
        p = Path(path)
        p.write_text(self.trace_jsonl, encoding="utf-8")
        return p

    def plot(self, path: "str | os.PathLike[str]", **kw: Any) -> Path:
        """Writes a time-sequence graph of the trace (requires ``trace=True``); keyword
        arguments as :func:`lossrec.plot.time_sequence` (``flows``, ``window``,
        ``state``). A trace streamed to a file is read back from it as a stream."""
        from . import plot

        if self._trace_text is None and self._trace_file is not None and str(self._trace_file) != "-":
            return plot.time_sequence(Path(self._trace_file), path, **kw)
        return plot.time_sequence(self.trace_records, path, **kw)

    def __repr__(self) -> str:
        n = self.n_flows
        extra = [x for x, v in (("trace", self._trace_text or self._trace_file),
                                ("pcap", self._pcap)) if v is not None]
        return f"<lossrec.Result seed={self.seed} flows={n}{' with ' + '+'.join(extra) if extra else ''}>"
