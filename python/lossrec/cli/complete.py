"""Shell completion of the names lossrec knows: presets, axes and keys, studies.

Enable it with ``eval "$(_LOSSREC_COMPLETE=bash_source lossrec)"`` (zsh: ``zsh_source``,
fish: ``fish_source``); click calls these for the options that use them.
"""

from __future__ import annotations

from typing import Any, List

from click.shell_completion import CompletionItem

#: Top-level tables and keys a --set key may start with (the rest: `lossrec scenario --defaults`).
SCENARIO_KEYS = ("seed=", "max_time_s=", "path.", "receiver.", "sender.", "workload.")


def presets(ctx: Any, param: Any, incomplete: str) -> List[CompletionItem]:
    from .. import api

    return [CompletionItem(p.name, help=p.summary) for p in api.presets()
            if p.name.startswith(incomplete)]


def set_keys(ctx: Any, param: Any, incomplete: str) -> List[CompletionItem]:
    """A --set KEY: sender axes (bare, with `=`), then the scenario's tables."""
    from .. import _core

    words = [f"{a}=" for a in _core.axes()] + list(SCENARIO_KEYS)
    words += [f"sender.{a}=" for a in _core.axes()] if incomplete.startswith("sender.") else []
    return [CompletionItem(w) for w in words if w.startswith(incomplete)]


def studies(ctx: Any, param: Any, incomplete: str) -> List[CompletionItem]:
    from ..lab.studies import find_studies

    try:
        names = list(find_studies(None))
    except Exception:  # no experiments folder here: nothing to complete
        names = []
    return [CompletionItem(n) for n in names if n.startswith(incomplete)]
