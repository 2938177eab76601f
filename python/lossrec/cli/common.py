"""The command group and the error convention shared by every subcommand.

Every error the user can fix (a bad file, field, preset or option value) prints
``lossrec: error: <message>`` on stderr and exits 2, without a traceback. A bug (an
internal panic) prints ``lossrec: internal error: ...`` and exits 1.
"""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable, NoReturn, TypeVar

import click

from .. import __version__
from ..result import NotRequestedError

F = TypeVar("F", bound=Callable[..., Any])

#: Exit status for errors in the user's input.
EXIT_USAGE = 2
#: Exit status for internal errors.
EXIT_INTERNAL = 1
#: Exit status after Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130


class CliError(click.ClickException):
    """A user-facing error: ``lossrec: error: <message>``, exit 2."""

    exit_code = EXIT_USAGE

    def show(self, file: Any = None) -> None:
        click.echo(f"lossrec: error: {self.format_message()}", err=True)


def fail(message: str) -> NoReturn:
    raise CliError(message)


def _is_panic(e: BaseException) -> bool:
    return type(e).__name__ == "PanicException"


def handle_errors(f: F) -> F:
    """Turns library errors into :class:`CliError` and panics into an internal error."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except click.ClickException:
            raise
        except (ValueError, NotRequestedError) as e:
            fail(str(e))
        except OSError as e:
            name = f"{e.filename}: " if e.filename else ""
            fail(f"{name}{e.strerror or e}")
        except BaseException as e:  # pyo3's PanicException derives from BaseException
            if not _is_panic(e):
                raise
            click.echo(f"lossrec: internal error: {e}", err=True)
            sys.exit(EXIT_INTERNAL)

    return wrapper  # type: ignore[return-value]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="lossrec")
def main() -> None:
    """lossrec: TCP loss recovery, simulated deterministically.

    \b
    lossrec run                 a tail loss under every preset, side by side
    lossrec run SCENARIO.toml   run a scenario file; print its flows
    lossrec presets             every preset and its axis values
    lossrec bench               simulator throughput against its targets
    lossrec script FILE.pkt...  packetdrill-style scripts against the engine
    lossrec sweep SCENARIO.toml --set KEY=V1,V2 ...   parameter sweeps (all cores or Dask)
    lossrec reproduce NAME|--all|--list               a seed's experiments, published vs ours
    """
