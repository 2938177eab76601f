"""``python -m lossrec`` is the ``lossrec`` command."""

from .cli import main

if __name__ == "__main__":
    main(prog_name="lossrec")
