"""The example notebook runs top to bottom (nbclient, the kernel of this interpreter)."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "lossrec-lab.ipynb"


def test_example_notebook_runs_top_to_bottom(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors, errors
    assert (tmp_path / "notebook-ts.png").stat().st_size > 20_000
    assert (tmp_path / "notebook-cdf.png").stat().st_size > 10_000
    # The analysis cells produced tables (the summary and the ratio).
    html = [o for c in nb.cells for o in c.get("outputs", []) if "text/html" in o.get("data", {})]
    assert len(html) >= 5
    # The capture section: explain labels the tail probe, replay sets presets side by side.
    assert (tmp_path / "notebook-tail.pcap").stat().st_size > 1000
    texts = [o["data"]["text/html"] if isinstance(o["data"]["text/html"], str) else "".join(o["data"]["text/html"])
             for o in html]
    assert any("probe_retransmit" in t for t in texts)
    assert any("capture" in t and "rfc" in t and "fct_ms" in t for t in texts)
