"""The command line: ``python -m chainer_compat SCRIPT [ARGS...]`` runs a Chainer script unmodified
with chainer_compat installed as ``chainer``; ``python -m chainer_compat check PATH...`` prints the
porting report. Top layer: imports ``_alias``, ``_numpy1_aliases`` and ``_porting``.
"""

from __future__ import annotations

import builtins
import importlib.machinery
import importlib.util
import os
import runpy
import signal
import sys
from collections.abc import Sequence
from types import ModuleType, TracebackType

from chainer_compat import _numpy1_aliases, _porting
from chainer_compat._alias import install_as_chainer

_PROGRAM = "python -m chainer_compat"

USAGE = f"""\
usage: {_PROGRAM} [--numpy1-aliases] SCRIPT [ARGS...]
                                                run a Chainer script as `python SCRIPT` would,
                                                with chainer_compat installed as `chainer`
       {_PROGRAM} [--numpy1-aliases] -m MODULE [ARGS...]
                                                the same for a module (e.g. `-m pytest tests/`)
       {_PROGRAM} check [--json] PATH...
                                                list the Chainer names a code base uses and
                                                whether chainer_compat has each (never runs it)

--numpy1-aliases puts back the NumPy 1 names NumPy has since removed (numpy.float,
numpy.asscalar, numpy.NaN, ...) for the run, so code written against NumPy 1 runs too.
A script named `check` runs as `{_PROGRAM} ./check`.
"""
_NUMPY1_OPTION = "--numpy1-aliases"
# Modules of the packages Chainer 7.8.1 required, which code of its time imports as if they
# came with Chainer -> the package that installs them.
_CHAINERS_DEPENDENCIES = {"six": "six", "filelock": "filelock",
                          "typing_extensions": "typing-extensions",
                          "google.protobuf": "protobuf"}

_THIS_FILE = os.path.realpath(__file__)


def _absolute(path: str) -> str:
    """The script's path as ``python SCRIPT`` gives ``__file__``: made absolute, not normalized
    (``../x.py`` run from /a/b is /a/b/../x.py)."""
    return path if os.path.isabs(path) else os.path.join(os.getcwd(), path)


def _user_traceback(traceback: TracebackType | None) -> TracebackType | None:
    """Cuts the runner's own frames (this file, runpy) from the top of a traceback, so that it
    starts at the user's code as the interpreter's would."""
    while traceback is not None and (
            traceback.tb_frame.f_globals.get("__name__") == "runpy"
            or os.path.realpath(traceback.tb_frame.f_code.co_filename) == _THIS_FILE):
        traceback = traceback.tb_next
    return traceback


def _report_uncaught(error: BaseException) -> int:
    """Prints ``error`` as the interpreter would and returns the exit status it would give;
    for a NumPy 1 name NumPy has since removed, a package Chainer installed with itself, or
    float() of a one-element array, then says how to run the code all the same."""
    traceback = _user_traceback(error.__traceback__)
    # The default hook prints error.__traceback__ and ignores its argument when that is set.
    sys.excepthook(type(error), error.with_traceback(traceback), traceback)
    for hint in (_missing_package_hint(error), _numpy1_hint(error),
                 _scalar_conversion_hint(error)):
        if hint is not None:
            print(f"\n{_PROGRAM}: {hint}", file=sys.stderr)
    if isinstance(error, KeyboardInterrupt) and hasattr(signal, "SIGINT") and os.name == "posix":
        # Like the interpreter: die by SIGINT, so a calling shell sees an interrupted child.
        sys.stdout.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return 1


def _missing_package_hint(error: BaseException) -> str | None:
    """For a package Chainer 7.8.1 installed with itself, which one installs the module."""
    name = getattr(error, "name", None) if isinstance(error, ModuleNotFoundError) else None
    package = _CHAINERS_DEPENDENCIES.get(name) if isinstance(name, str) else None
    if package is None:
        return None
    return (f"`{name}` came with Chainer 7.8.1, which installed {package} with itself: "
            f"`pip install {package}` installs it (chainer_compat's `legacy` and `caffe` "
            "extras list what Chainer installed).")


def _numpy1_hint(error: BaseException) -> str | None:
    """For a NumPy 1 name NumPy has since removed, how to run the code all the same."""
    name = _numpy1_aliases.removed_numpy_name(error)
    if name is None:
        return None
    if _numpy1_aliases.installed():
        return (f"`numpy.{name}` was put back in this process, but processes it started with "
                "spawn or forkserver do not inherit that: call "
                "chainer_compat.install_numpy1_aliases() in them too.")
    return (f"`numpy.{name}` is a NumPy 1 name that NumPy has since removed. Run with "
            f"`{_PROGRAM} {_NUMPY1_OPTION} ...` to put such names back, or write "
            f"`{_numpy1_aliases.replacement_for(name)}` instead (ruff's NPY001 and NPY201 "
            "rules find most of them).")


def _scalar_conversion_hint(error: BaseException) -> str | None:
    """For ``float(array)`` on an array of one element and some dimensions, which NumPy 2.4
    refuses and NumPy 1 (so Chainer-era code) took."""
    if not (isinstance(error, TypeError)
            and str(error) == "only 0-dimensional arrays can be converted to Python scalars"):
        return None
    return ("NumPy 2.4 and later convert only 0-dimensional arrays to Python numbers with "
            "float(), int() or complex(); NumPy 1 also took any array of exactly one element "
            "(shape (1,), say), as Chainer-era code often does (float(loss.array) on a "
            "(1,)-shaped loss). If the array has one element, write `x.item()` instead. "
            f"`{_NUMPY1_OPTION}` cannot bring this back: it is how NumPy's array type "
            "itself behaves.")


def run_script(path: str, args: Sequence[str]) -> int:
    """Runs the file ``path`` as ``__main__`` with ``sys.argv == [path, *args]`` and the alias on.

    As ``python SCRIPT`` does: ``sys.path[0]`` is the script's folder, ``__file__`` its absolute
    path, an uncaught exception prints its traceback (from the script's frame down) and gives
    status 1, and ``SystemExit`` passes through untouched.

    Returns:
        The exit status when the script ends without raising ``SystemExit``.
    """
    try:
        with open(path, "rb") as file:
            source = file.read()
    except OSError as error:
        print(f"{_PROGRAM}: can't open file {_absolute(path)!r}: "
              f"[Errno {error.errno}] {error.strerror}", file=sys.stderr)
        return 2
    absolute = _absolute(path)
    try:
        install_as_chainer()
        code = compile(source, absolute, "exec")
    except (ImportError, SyntaxError) as error:
        sys.excepthook(type(error), error.with_traceback(None), None)
        return 1
    module = ModuleType("__main__")
    module.__file__ = absolute
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    module.__loader__ = importlib.machinery.SourceFileLoader("__main__", absolute)
    module.__spec__ = None
    module.__package__ = None
    module.__cached__ = None  # type: ignore[attr-defined]
    sys.modules["__main__"] = module
    sys.argv[:] = [path, *args]
    sys.path[0] = os.path.dirname(os.path.realpath(path))
    try:
        exec(code, module.__dict__)  # noqa: S102 - running the user's script is the job
    except SystemExit:
        raise
    except BaseException as error:  # noqa: BLE001 - reported as the interpreter would
        return _report_uncaught(error)
    return 0


def run_module(name: str, args: Sequence[str]) -> int:
    """Runs module ``name`` as ``python -m name`` would, with the alias on.

    Returns:
        The exit status when the module ends without raising ``SystemExit``.
    """
    try:
        install_as_chainer()
        found = importlib.util.find_spec(name) is not None
    except ImportError as error:
        if not isinstance(error, ModuleNotFoundError):
            sys.excepthook(type(error), error.with_traceback(None), None)
            return 1
        found = False
    if not found:
        print(f"{_PROGRAM}: No module named {name}", file=sys.stderr)
        return 1
    sys.argv[:] = [name, *args]  # run_module puts the module's file in argv[0], as -m does
    try:
        runpy.run_module(name, run_name="__main__", alter_sys=True)
    except SystemExit:
        raise
    except BaseException as error:  # noqa: BLE001 - reported as the interpreter would
        return _report_uncaught(error)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatches the command line (``sys.argv[1:]`` by default); returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        sys.stderr.write(USAGE)
        return 2
    numpy1_aliases = False
    while args and args[0] == _NUMPY1_OPTION:
        numpy1_aliases = True
        args = args[1:]
    if numpy1_aliases and (not args or args[0] == "check"):
        sys.stderr.write(f"{_PROGRAM}: {_NUMPY1_OPTION} needs a SCRIPT or -m MODULE to "
                         f"run\n\n{USAGE}")
        return 2
    command = args[0]
    if command in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0
    if command == "check":
        return _porting.main(args[1:])
    if command == "-m":
        if len(args) < 2:
            sys.stderr.write(f"{_PROGRAM}: -m needs a module name\n\n{USAGE}")
            return 2
        if numpy1_aliases:
            _numpy1_aliases.install_numpy1_aliases()
        return run_module(args[1], args[2:])
    if command.startswith("-"):
        sys.stderr.write(f"{_PROGRAM}: unknown option {command!r}\n\n{USAGE}")
        return 2
    if numpy1_aliases:
        _numpy1_aliases.install_numpy1_aliases()
    return run_script(command, args[1:])


if __name__ == "__main__":
    sys.exit(main())
