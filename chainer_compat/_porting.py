"""The porting report: which Chainer names a code base uses (read with ``ast``, never run) and
whether chainer_compat has each; ``python -m chainer_compat check PATH...`` prints it.
It also lists the NumPy 1 names the code uses that NumPy has since removed.
Layer 8: imports ``_surface`` (which imports chainer_compat modules to look names up) and
``_numpy1_aliases``.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import textwrap
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from chainer_compat import _numpy1_aliases, _surface

__all__ = ["NameUse", "ScanResult", "format_report", "main", "records", "scan", "summary"]

SUPPORTED = "supported"
PLANNED = "planned"
OUT = "out"
MISSING = "missing"

_ROOTS = ("chainer", "chainerx")
# Packages built on Chainer that chainer_compat does not provide; the report names them.
_FAMILY = ("chainercv", "chainerrl", "chainermn", "chainerui", "chainer_chemistry", "chainerio",
           "onnx_chainer", "cupy")
_SKIPPED_DIRECTORIES = {"__pycache__", "site-packages", "node_modules"}
_SCREEN_WIDTH = 100


@dataclass
class NameUse:
    """Where one Chainer name is used.

    Attributes:
        name: The dotted name as the code reaches it, e.g. ``'chainer.functions.relu'``.
        kind: ``'module'`` for an imported Chainer module, ``'name'`` otherwise.
        count: Number of references (imports included).
        first_file: Display path of the first file (in scan order) that uses it.
        first_line: Line of the first reference in that file.
        files: Display paths of every file that uses it.
    """

    name: str
    kind: str
    count: int = 0
    first_file: str = ""
    first_line: int = 0
    files: set[str] = field(default_factory=set)

    @property
    def module(self) -> str:
        """The Chainer module the name belongs to (a module belongs to itself)."""
        return self.name if self.kind == "module" else self.name.rpartition(".")[0]


@dataclass
class ScanResult:
    """What :func:`scan` found.

    Attributes:
        paths: The paths given.
        files: Display paths of the Python files read.
        skipped: ``(display path, line, error)`` of the files that could not be parsed.
        uses: Chainer names by dotted name.
        family: Other Chainer-family packages imported, with the display paths importing them.
        numpy1: NumPy 1 names NumPy has since removed (``'numpy.float'``), by dotted name
            (NOTE [NumPy 1 aliases]).
    """

    paths: list[str]
    files: list[str] = field(default_factory=list)
    skipped: list[tuple[str, int, str]] = field(default_factory=list)
    uses: dict[str, NameUse] = field(default_factory=dict)
    family: dict[str, set[str]] = field(default_factory=dict)
    numpy1: dict[str, NameUse] = field(default_factory=dict)


# ------------------------------------------------------------------------------------ scanning

def _api_name(dotted: str) -> tuple[str, str]:
    """Cuts an attribute chain at the first non-module component and says what it names.

    ``chainer.links.Linear.W`` -> ``('chainer.links.Linear', 'name')``; ``chainer.links`` ->
    ``('chainer.links', 'module')``; ``chainerx.ndarray.T`` -> ``('chainerx.ndarray', 'name')``.
    """
    parts = dotted.split(".")
    if parts[0] == "chainerx":  # its modules are not listed: all of it is out of scope anyway
        return (".".join(parts[:2]), "name") if len(parts) > 1 else ("chainerx", "module")
    module = parts[0]
    for index, part in enumerate(parts[1:], start=1):
        candidate = f"{module}.{part}"
        if not (_surface.is_chainer_module(candidate) or candidate in _surface.MODULE_ALIASES):
            return ".".join(parts[:index + 1]), "name"
        module = candidate
    return module, "module"


def _is_chainer_path(dotted: str) -> bool:
    return dotted.split(".")[0] in _ROOTS


class _FileScanner(ast.NodeVisitor):
    """Collects the Chainer names one module uses.

    Names bound by imports are tracked per file, whatever the scope: legacy scripts import at
    the top, and a wrong scope costs at worst a miscounted reference, never a missed name.
    """

    def __init__(self, display: str, result: ScanResult) -> None:
        self.display = display
        self.result = result
        self.bindings: dict[str, str] = {}
        self.numpy_names: set[str] = set()  # the names that stand for the numpy module

    # ---- bindings, gathered in a first pass so a use before its import still counts
    def collect_bindings(self, tree: ast.AST) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == "numpy":
                        self.numpy_names.add(alias.asname or "numpy")
                    if _is_chainer_path(alias.name):
                        bound = alias.name if alias.asname else alias.name.split(".")[0]
                        self.bindings[alias.asname or bound] = bound
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                    and _is_chainer_path(node.module):
                for alias in node.names:
                    if alias.name == "*":
                        for name in _surface.names(node.module):
                            self.bindings.setdefault(name, f"{node.module}.{name}")
                    else:
                        self.bindings[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def record(self, dotted: str, line: int) -> None:
        name, kind = _api_name(dotted)
        self._tally(self.result.uses, name, kind, line)

    def record_numpy1(self, name: str, line: int) -> None:
        if _numpy1_aliases.numpy_lacks(name):
            self._tally(self.result.numpy1, f"numpy.{name}", "name", line)

    def _tally(self, uses: dict[str, NameUse], name: str, kind: str, line: int) -> None:
        use = uses.get(name)
        if use is None:
            use = uses[name] = NameUse(name, kind, 0, self.display, line)
        use.count += 1
        use.files.add(self.display)

    # ---- imports
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            root = alias.name.split(".")[0]
            if root in _ROOTS:
                self.record(alias.name, node.lineno)
            elif root in _FAMILY:
                self.result.family.setdefault(root, set()).add(self.display)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module:
            return
        if node.module == "numpy":
            for alias in node.names:
                self.record_numpy1(alias.name, node.lineno)
            return
        root = node.module.split(".")[0]
        if root in _FAMILY:
            self.result.family.setdefault(root, set()).add(self.display)
        if root not in _ROOTS:
            return
        for alias in node.names:
            if alias.name == "*":
                self.record(node.module, node.lineno)
            else:
                self.record(f"{node.module}.{alias.name}", node.lineno)

    # ---- uses
    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain: list[str] = []
        current: ast.expr = node
        while isinstance(current, ast.Attribute):
            chain.append(current.attr)
            current = current.value
        if isinstance(current, ast.Name) and current.id in self.bindings:
            dotted = ".".join([self.bindings[current.id], *reversed(chain)])
            self.record(dotted, node.lineno)
            return  # the chain holds only names; nothing inside it to visit
        if isinstance(current, ast.Name) and current.id in self.numpy_names:
            self.record_numpy1(chain[-1], node.lineno)
            return
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        bound = self.bindings.get(node.id)
        # A bare module name (`chainer`, `F`) is only a handle: its attributes are the uses.
        if bound is not None and _api_name(bound)[1] == "name":
            self.record(bound, node.lineno)


def _python_files(root: Path) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(
            name for name in subdirectories
            if not name.startswith(".") and name not in _SKIPPED_DIRECTORIES
            and not (Path(directory, name) / "pyvenv.cfg").exists())
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(directory, name)


def scan(paths: Sequence[str | os.PathLike[str]]) -> ScanResult:
    """Reads every Python file under ``paths`` (without running it) for the Chainer names used.

    Every import style counts: ``import chainer``, ``import chainer.functions as F``,
    ``from chainer import links as L``, ``from chainer.backends import cuda``,
    ``from chainer.functions import *``, and the attribute chains hanging off those names.

    Args:
        paths: Files and folders. Hidden folders, ``__pycache__``, ``site-packages`` and virtual
            environments are skipped.

    Returns:
        A :class:`ScanResult`. Display paths are relative to the folder when a single folder
        is scanned, and as found under each given path otherwise.

    Raises:
        FileNotFoundError: If a path does not exist.
    """
    roots = [Path(path) for path in paths]
    for root in roots:
        if not root.exists():
            raise FileNotFoundError(f"path must exist, got {os.fspath(root)!r}")
    result = ScanResult([os.fspath(root) for root in roots])
    single_folder = roots[0] if len(roots) == 1 and roots[0].is_dir() else None
    for root in roots:
        for path in _python_files(root):
            display = os.fspath(path.relative_to(single_folder) if single_folder else path)
            _scan_file(path, display, result)
    return result


def _scan_file(path: Path, display: str, result: ScanResult) -> None:
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except SyntaxError as error:
        result.skipped.append((display, error.lineno or 0, f"SyntaxError: {error.msg}"))
        return
    except (OSError, ValueError) as error:  # unreadable, or a NUL byte / bad encoding cookie
        result.skipped.append((display, 0, f"{type(error).__name__}: {error}"))
        return
    result.files.append(display)
    scanner = _FileScanner(display, result)
    scanner.collect_bindings(tree)
    scanner.visit(tree)


# ------------------------------------------------------------------------------------ verdicts

# What the alias's ChainerX stand-in answers (``_alias``): code that only asks whether ChainerX
# is there, or tests an array against its type, runs.
_CHAINERX_STAND_IN = frozenset({"chainerx", "chainerx.is_available", "chainerx.ndarray"})


def _classify(use: NameUse) -> tuple[str, str | None]:
    reason = _surface.divergence_reason(use.name)
    if use.name in _CHAINERX_STAND_IN:
        return SUPPORTED, None
    if not use.name.startswith("chainerx") and _surface.exists(use.name):
        return SUPPORTED, None
    if reason is not None:
        return OUT, reason
    tracked = _surface.names(use.module)
    if use.kind == "module" or use.name.rpartition(".")[2] in tracked:
        return PLANNED, None
    if tracked:
        return MISSING, (f"not a public name of {use.module} in Chainer "
                         f"{_surface.CHAINER_VERSION}: an older or internal API")
    if _surface.is_chainer_module(use.module):
        # A module whose names the surface does not list: the code ran on Chainer, so the name
        # was there.
        return PLANNED, None
    return MISSING, f"{use.module} is not a module of Chainer {_surface.CHAINER_VERSION}"


def records(result: ScanResult) -> list[dict[str, Any]]:
    """One record per name used, sorted by module then name.

    Each record has ``name``, ``module``, ``kind``, ``supported`` (bool), ``status``
    (``'supported'``, ``'planned'``, ``'out'`` or ``'missing'``), ``reason`` (or None),
    ``count``, ``files`` (how many files use it) and ``first`` (``'file:line'``).
    """
    rows = []
    for use in sorted(result.uses.values(), key=lambda use: (use.module, use.name)):
        status, reason = _classify(use)
        rows.append({
            "name": use.name, "module": use.module, "kind": use.kind,
            "supported": status == SUPPORTED, "status": status, "reason": reason,
            "count": use.count, "files": len(use.files),
            "first": f"{use.first_file}:{use.first_line}",
        })
    return rows


def summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Counts over :func:`records`: ``supported``, ``total``, ``by_status`` and ``by_module``
    (``{module: {'supported': n, 'total': m}}``)."""
    by_module: dict[str, dict[str, int]] = {}
    by_status = {SUPPORTED: 0, PLANNED: 0, OUT: 0, MISSING: 0}
    for row in rows:
        counts = by_module.setdefault(row["module"], {"supported": 0, "total": 0})
        counts["total"] += 1
        counts["supported"] += row["supported"]
        by_status[row["status"]] += 1
    return {"supported": by_status[SUPPORTED], "total": len(rows), "by_status": by_status,
            "by_module": by_module}


# ------------------------------------------------------------------------------------ text

_LEGEND = ("supported: yes = in chainer_compat; planned = a Chainer name chainer_compat does not "
           "have yet;\n           out = left out on purpose (why: below); missing = not a "
           "public Chainer {version} name")
_STATUS_TEXT = {SUPPORTED: "yes", PLANNED: "planned", OUT: "out", MISSING: "missing"}


def _clip(text: str, width: int) -> str:
    """Shortens ``text`` from the left (the end of a path or name is what identifies it)."""
    return text if len(text) <= width else "…" + text[len(text) - width + 1:]


def _short(row: dict[str, Any]) -> str:
    if row["kind"] == "module":
        return "(module)"
    return row["name"][len(row["module"]) + 1:]


def _table(rows: Sequence[dict[str, Any]]) -> list[str]:
    status_width = len("supported")
    first_width = min(max([len("first use"), *(len(row["first"]) for row in rows)]), 38)
    name_width = min(max([len("name"), *(len(row["name"]) for row in rows)]),
                     _SCREEN_WIDTH - first_width - status_width - 11)
    lines = [f"{'name':<{name_width}}  {'uses':>5}  {'first use':<{first_width}}  supported",
             f"{'-' * name_width}  {'-' * 5}  {'-' * first_width}  {'-' * status_width}"]
    for row in rows:
        lines.append(f"{_clip(row['name'], name_width):<{name_width}}  {row['count']:>5}  "
                     f"{_clip(row['first'], first_width):<{first_width}}  "
                     f"{_STATUS_TEXT[row['status']]}")
    lines.append(_LEGEND.format(version=_surface.CHAINER_VERSION))
    return lines


def _joined(items: Iterable[str], width: int) -> str:
    """Joins ``items`` with commas, ending in "…" where the next one would pass ``width``."""
    text = ""
    for item in items:
        addition = item if not text else ", " + item
        if len(text) + len(addition) > width - 3:
            return text + ", …" if text else _clip(item, width)
        text += addition
    return text


def format_report(result: ScanResult, rows: Sequence[dict[str, Any]] | None = None) -> str:
    """The report as text: a table of every name, then a summary that fits one screen."""
    rows = records(result) if rows is None else rows
    totals = summary(rows)
    where = result.paths[0] if len(result.paths) == 1 else f"{len(result.paths)} paths"
    header = (f"Chainer names used in {where}: {_plural(len(result.files), 'Python file')} "
              f"read, checked against Chainer {_surface.CHAINER_VERSION}")
    lines = [header, ""]
    if rows:
        lines += _table(rows)
        lines.append("")
    lines.append("Summary")
    if result.skipped:
        display, line, error = result.skipped[0]
        lines.append(f"  {_plural(len(result.skipped), 'file')} could not be parsed as Python 3 "
                     f"and {'was' if len(result.skipped) == 1 else 'were'} not scanned;")
        lines.append(f"    first: {display}:{line} ({error})")
    if not rows:
        lines.append("  No Chainer names found: nothing here imports chainer.")
        lines += _numpy1_lines(result)
        return "\n".join(lines) + "\n"
    by_status = totals["by_status"]
    percent = 100 * totals["supported"] // totals["total"]
    lines.append(f"  {totals['supported']} of {totals['total']} names supported ({percent}%); "
                 f"{by_status[PLANNED]} planned, {by_status[MISSING]} missing, "
                 f"{by_status[OUT]} out of scope")
    module_width = min(max(len(module) for module in totals["by_module"]), 36)
    lines.append(f"  {'module':<{module_width}}  supported  not supported (uses), most used first")
    unsupported_by_module: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if not row["supported"]:
            unsupported_by_module.setdefault(row["module"], []).append(row)
    for module, counts in sorted(totals["by_module"].items()):
        missing = sorted(unsupported_by_module.get(module, []), key=lambda row: -row["count"])
        listed = _joined((f"{_short(row)} ({row['count']})" for row in missing),
                         _SCREEN_WIDTH - module_width - 15) or "-"
        lines.append(f"  {_clip(module, module_width):<{module_width}}  "
                     f"{counts['supported']:>4}/{counts['total']:<4}  {listed}")
    lines += _verdict(result, rows)
    return "\n".join(lines) + "\n"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _numpy1_lines(result: ScanResult) -> list[str]:
    """The NumPy 1 names used, the most used first, and the two ways to run the code."""
    numpy1 = sorted(result.numpy1.values(), key=lambda use: (-use.count, use.name))
    if not numpy1:
        return []
    names = _joined((f"{use.name} ({use.count})" for use in numpy1), 60)
    instead = ", ".join(
        f"{_numpy1_aliases.replacement_for(use.name.partition('.')[2])} for {use.name}"
        for use in numpy1[:3]) + (", ..." if len(numpy1) > 3 else "")
    return textwrap.wrap(
        f"Also uses {_plural(len(numpy1), 'NumPy 1 name')} that NumPy has since removed: "
        f"{names}. `python -m chainer_compat --numpy1-aliases` puts them back for a run; or "
        f"write {instead}.", _SCREEN_WIDTH, initial_indent="  ", subsequent_indent="    ")


def _verdict(result: ScanResult, rows: Sequence[dict[str, Any]]) -> list[str]:
    lines = []
    if result.family:
        packages = ", ".join(f"{name} ({_plural(len(files), 'file')})"
                             for name, files in sorted(result.family.items()))
        lines += textwrap.wrap(f"Also imports {packages}: not part of Chainer, so not provided "
                               f"by chainer_compat.", _SCREEN_WIDTH,
                               initial_indent="  ", subsequent_indent="    ")
    out = [row for row in rows if row["status"] == OUT]
    if out:
        lines.append(f"  Out of scope: {_joined((row['name'] for row in out), 80)}")
        for reason in dict.fromkeys(row["reason"] for row in out):
            lines += textwrap.wrap(reason, _SCREEN_WIDTH, initial_indent="    ",
                                   subsequent_indent="    ")
    lines += _numpy1_lines(result)
    option = " --numpy1-aliases" if result.numpy1 else ""
    unsupported = sorted((row for row in rows if not row["supported"]),
                         key=lambda row: -row["count"])
    if not unsupported:
        lines.append("Verdict: ready. Every Chainer name used here is in chainer_compat.")
        lines.append(f"  Run a script unmodified with `python -m chainer_compat{option} SCRIPT "
                     "[ARGS...]`.")
    else:
        uses = sum(row["count"] for row in unsupported)
        lines.append(f"Verdict: not ready. {len(unsupported)} names ({uses} uses) are not in "
                     f"chainer_compat yet.")
        lines.append("  Most used: " + _joined(
            (f"{row['name']} ({row['count']})" for row in unsupported), _SCREEN_WIDTH - 13))
    return lines


# ------------------------------------------------------------------------------------ command

def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None) -> int:
    """``python -m chainer_compat check [--json] PATH...``; returns the exit status.

    0 when the scan worked, whatever the coverage; 2 for a usage error or a missing path.
    """
    stdout = sys.stdout if stdout is None else stdout
    parser = argparse.ArgumentParser(
        prog="python -m chainer_compat check",
        description="Report the Chainer names a code base uses (read, never run) and whether "
                    "chainer_compat supports each.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="Python files or folders")
    parser.add_argument("--json", action="store_true",
                        help="write the records and the summary as JSON instead of the table")
    arguments = parser.parse_args(argv)
    try:
        result = scan(arguments.paths)
    except FileNotFoundError as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    rows = records(result)
    try:
        _write(result, rows, arguments.json, stdout)
    except BrokenPipeError:
        # The reader (`| head`) has gone; point stdout at devnull so the exit flush is quiet.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


def _write(result: ScanResult, rows: list[dict[str, Any]], as_json: bool,
           stdout: TextIO) -> None:
    if as_json:
        document = {
            "chainer_version": _surface.CHAINER_VERSION,
            "paths": result.paths,
            "files": len(result.files),
            "skipped": [{"file": display, "line": line, "error": error}
                        for display, line, error in result.skipped],
            "names": rows,
            "summary": summary(rows),
            "other_packages": {name: sorted(files) for name, files in result.family.items()},
            "numpy1_names": [
                {"name": use.name, "count": use.count, "files": len(use.files),
                 "first": f"{use.first_file}:{use.first_line}",
                 "replacement": _numpy1_aliases.replacement_for(use.name.partition(".")[2])}
                for use in sorted(result.numpy1.values(), key=lambda use: use.name)],
        }
        json.dump(document, stdout, indent=2)
        stdout.write("\n")
    else:
        stdout.write(format_report(result, rows))
    stdout.flush()
