"""Exceptions shared by the API and the command line (no heavy imports)."""


class NotRequestedError(RuntimeError):
    """An output (trace, pcap) was read from a run that did not collect it."""
