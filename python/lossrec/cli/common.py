"""The command group and the error convention shared by every subcommand.

Every error the user can fix (a bad file, field, preset or option value) prints
``lossrec: error: <message>`` on stderr and exits 2, without a traceback. A bug (an
internal panic) prints ``lossrec: internal error: ...`` and exits 1.
"""

from __future__ import annotations

import functools
import importlib
import sys
from typing import Any, Callable, Dict, List, NoReturn, Optional, TypeVar

import click

from ..errors import LossrecError

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
        except (ValueError, LossrecError) as e:
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


#: subcommand → the module under ``lossrec.cli`` that registers it on :data:`main`.
SUBCOMMANDS: Dict[str, str] = {
    "run": "run",
    "presets": "presets",
    "bench": "bench",
    "script": "script",
    "sweep": "sweep",
    "reproduce": "reproduce",
    "plot": "plot",
    "scenario": "scenario",
    "wire": "wire",
    "diff": "diff",
    "explain": "explain",
    "replay": "replay",
}


class LazyGroup(click.Group):
    """Imports a subcommand's module only when that subcommand is used, so that
    ``lossrec --version`` and ``lossrec run`` do not import pandas and matplotlib."""

    def list_commands(self, ctx: click.Context) -> List[str]:
        return sorted(set(SUBCOMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> Optional[click.Command]:
        if cmd_name not in self.commands and cmd_name in SUBCOMMANDS:
            importlib.import_module(f"{__package__}.{SUBCOMMANDS[cmd_name]}")
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx: click.Context, args: List[str]) -> Any:
        name = args[0] if args else ""
        cmd = self.get_command(ctx, name)
        if cmd is None and name and not name.startswith("-"):
            from ..suggest import did_you_mean

            fail(f"no command {name!r}{did_you_mean(name, self.list_commands(ctx))} "
                 f"(see `lossrec --help`)")
        return super().resolve_command(ctx, args)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Click's own usage errors (a bad option, a missing argument) in lossrec's one
        style, ``lossrec: error: ...`` with a pointer to ``--help``, exit 2."""
        if kwargs.get("standalone_mode", True) is False:
            return super().main(*args, **kwargs)
        try:
            return super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        except click.exceptions.Abort:
            click.echo("\nlossrec: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except CliError as e:
            e.show()
            sys.exit(e.exit_code)
        except click.UsageError as e:
            where = e.ctx.command_path if e.ctx else "lossrec"
            msg = e.format_message().rstrip(".")
            msg = msg[:1].lower() + msg[1:]
            click.echo(f"lossrec: error: {msg} (see `{where} --help`)", err=True)
            sys.exit(EXIT_USAGE)
        except click.ClickException as e:
            click.echo(f"lossrec: error: {e.format_message()}", err=True)
            sys.exit(e.exit_code)


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        from .._provenance import version_line

        click.echo(version_line())
        ctx.exit()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-V", "--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the version and the commit it was built from, and exit.")
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
    lossrec plot RESULTS.csv|TRACE.jsonl ...          CDFs from a sweep, state graphs from traces
    lossrec scenario --defaults|--schema              every scenario key, its default and meaning

    \b
    Shell completion (bash; zsh and fish alike, see click's docs):
      eval "$(_LOSSREC_COMPLETE=bash_source lossrec)"
    """
