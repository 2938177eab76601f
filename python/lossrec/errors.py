"""Exceptions shared by the API and the command line (no heavy imports).

Every error lossrec raises on purpose derives from :class:`LossrecError`, except
``lossrec.ScenarioError`` (defined by the Rust core, a ``ValueError``) for invalid
scenarios. A bad argument to a public function is an :class:`ArgumentError` that names
the parameter; it is also a ``ValueError`` and a ``TypeError``, so code written against
the built-in exceptions keeps working.
"""

from __future__ import annotations

from typing import Optional


class LossrecError(Exception):
    """The base of lossrec's own errors."""


class ArgumentError(LossrecError, ValueError, TypeError):
    """A public function was given a bad argument: ``function`` and ``parameter`` name
    it, and the message says what was expected and what was given."""

    def __init__(self, function: str, parameter: str, message: str):
        super().__init__(message)
        self.function = function
        self.parameter = parameter


class OutputExistsError(LossrecError, FileExistsError, ValueError):
    """An output would overwrite or remove a file lossrec did not write (pass
    ``force=True`` / ``--force`` to write anyway; lossrec still never removes what it
    did not write). Also a ``ValueError``, as a sweep's refusals always were."""

    def __init__(self, message: str, path: Optional[str] = None):
        super().__init__(message)
        self.path = path

    def __str__(self) -> str:
        return str(self.args[0])


class NotRequestedError(LossrecError, RuntimeError):
    """An output (trace, pcap) was read from a run that did not collect it."""
