"""``python -m chainer_compat``: a legacy script runs as ``python SCRIPT`` would (argv, __main__,
sys.path[0], exit codes, tracebacks) with chainer_compat installed as ``chainer``."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import textwrap
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy
import pytest

from chainer_compat import __main__ as cli

REPOSITORY = Path(__file__).resolve().parents[2]
RUNNER_FILE = str(Path(cli.__file__).resolve())


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPOSITORY), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "chainer_compat", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False, timeout=120)


def write(path: Path, source: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))
    return path


REPORTING_SCRIPT = """\
    import json, pickle, sys
    import chainer
    import chainer.functions as F
    import chainer_compat
    import helper  # a sibling module: sys.path[0] is this folder

    class Point(object):
        pass

    print(json.dumps({
        "argv": sys.argv,
        "name": __name__,
        "file": __file__,
        "path0": sys.path[0],
        "alias": chainer is chainer_compat and F is chainer_compat.functions,
        "variable": isinstance(chainer.Variable(None), chainer_compat.Variable),
        "helper": helper.VALUE,
        "pickled": type(pickle.loads(pickle.dumps(Point()))).__name__,
    }))
"""


def test_script_sees_argv_main_name_and_its_folder_on_sys_path(tmp_path):
    script = write(tmp_path / "legacy" / "train.py", REPORTING_SCRIPT)
    write(tmp_path / "legacy" / "helper.py", "VALUE = 42\n")
    run = run_cli("legacy/train.py", "--epoch", "3", "positional", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["argv"] == ["legacy/train.py", "--epoch", "3", "positional"]
    assert seen["name"] == "__main__"
    assert seen["file"] == str(script)
    assert seen["path0"] == os.path.realpath(tmp_path / "legacy")
    assert seen["alias"] is True
    assert seen["variable"] is True
    assert seen["helper"] == 42
    assert seen["pickled"] == "Point"


def test_a_path_through_a_parent_folder_gives_the_file_python_gives(tmp_path):
    write(tmp_path / "scripts" / "show.py", "import sys\nprint(__file__, sys.path[0])\n")
    (tmp_path / "run").mkdir()
    ours = run_cli("../scripts/show.py", cwd=tmp_path / "run")
    plain = subprocess.run([sys.executable, "../scripts/show.py"], cwd=tmp_path / "run",
                           capture_output=True, text=True, check=True, timeout=60)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == plain.stdout
    assert ours.stdout.split()[0] == str(tmp_path / "run" / ".." / "scripts" / "show.py")
    missing = run_cli("../scripts/none.py", cwd=tmp_path / "run")
    assert f"'{tmp_path / 'run' / '..' / 'scripts' / 'none.py'}'" in missing.stderr


@pytest.mark.parametrize("code", [0, 3])
def test_sys_exit_code_passes_through(tmp_path, code):
    write(tmp_path / "exits.py", f"import sys\nimport chainer\nsys.exit({code})\n")
    run = run_cli("exits.py", cwd=tmp_path)
    assert run.returncode == code
    assert run.stderr == ""


def test_sys_exit_with_a_message_prints_it_and_gives_1(tmp_path):
    write(tmp_path / "fails.py", "import sys\nsys.exit('fatal: no data')\n")
    run = run_cli("fails.py", cwd=tmp_path)
    assert run.returncode == 1
    assert run.stderr.strip() == "fatal: no data"


def test_uncaught_exception_prints_the_users_traceback_and_gives_1(tmp_path):
    script = write(tmp_path / "raises.py", """\
        import chainer

        def load():
            raise ValueError("bad value in load")

        load()
    """)
    run = run_cli("raises.py", cwd=tmp_path)
    assert run.returncode == 1
    lines = run.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1] == f'  File "{script}", line 6, in <module>'
    assert f'  File "{script}", line 4, in load' in lines
    assert lines[-1] == "ValueError: bad value in load"
    assert RUNNER_FILE not in run.stderr
    assert "runpy" not in run.stderr


def test_syntax_error_is_reported_like_python(tmp_path):
    write(tmp_path / "broken.py", "import chainer\nx = (\n")
    run = run_cli("broken.py", cwd=tmp_path)
    assert run.returncode == 1
    assert "SyntaxError" in run.stderr
    assert "broken.py" in run.stderr
    assert RUNNER_FILE not in run.stderr


@pytest.mark.skipif(os.name != "posix", reason="exit by signal is a POSIX notion")
def test_keyboard_interrupt_ends_by_sigint_like_python(tmp_path):
    write(tmp_path / "interrupted.py", "raise KeyboardInterrupt\n")
    run = run_cli("interrupted.py", cwd=tmp_path)
    assert run.returncode == -signal.SIGINT
    assert run.stderr.splitlines()[-1] == "KeyboardInterrupt"


def test_missing_script_gives_2(tmp_path):
    run = run_cli("no_such_script.py", "arg", cwd=tmp_path)
    assert run.returncode == 2
    assert "can't open file" in run.stderr
    assert "no_such_script.py" in run.stderr


def test_module_runs_as_main_with_the_alias(tmp_path):
    write(tmp_path / "legacy_module.py", """\
        import json, sys
        import chainer, chainer_compat
        print(json.dumps({"argv": sys.argv, "name": __name__,
                          "alias": chainer is chainer_compat}))
        if "--fail" in sys.argv:
            raise RuntimeError("module failed")
    """)
    run = run_cli("-m", "legacy_module", "a", "b", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["name"] == "__main__"
    assert seen["alias"] is True
    assert seen["argv"][1:] == ["a", "b"]
    assert seen["argv"][0].endswith("legacy_module.py")

    failed = run_cli("-m", "legacy_module", "--fail", cwd=tmp_path)
    assert failed.returncode == 1
    assert failed.stderr.splitlines()[-1] == "RuntimeError: module failed"
    assert "runpy" not in failed.stderr
    assert RUNNER_FILE not in failed.stderr


def test_missing_module_gives_1(tmp_path):
    run = run_cli("-m", "no_such_module_anywhere", cwd=tmp_path)
    assert run.returncode == 1
    assert "No module named no_such_module_anywhere" in run.stderr


def test_no_arguments_print_usage_and_give_2():
    stderr = io.StringIO()
    with redirect_stderr(stderr):
        assert cli.main([]) == 2
    assert "usage: python -m chainer_compat [--numpy1-aliases] SCRIPT" in stderr.getvalue()


def test_help_prints_usage_and_gives_0():
    stdout = io.StringIO()
    with redirect_stdout(stdout):
        assert cli.main(["--help"]) == 0
    assert "check [--json] PATH..." in stdout.getvalue()


def test_unknown_option_gives_2():
    stderr = io.StringIO()
    with redirect_stderr(stderr):
        assert cli.main(["--frobnicate"]) == 2
    assert "unknown option '--frobnicate'" in stderr.getvalue()


def test_check_dispatches_to_the_porting_report(tmp_path):
    write(tmp_path / "uses.py", "import chainer\nv = chainer.Variable(None)\n")
    stdout = io.StringIO()
    with redirect_stdout(stdout):
        assert cli.main(["check", "--json", str(tmp_path)]) == 0
    names = {row["name"] for row in json.loads(stdout.getvalue())["names"]}
    assert names == {"chainer", "chainer.Variable"}


@pytest.mark.parametrize(("module", "package"), [("six", "six"), ("filelock", "filelock"),
                                                 ("typing_extensions", "typing-extensions"),
                                                 ("google.protobuf", "protobuf")])
def test_a_missing_package_chainer_installed_names_the_package(tmp_path, module, package):
    script = write(tmp_path / "needs.py", f"""\
        raise ModuleNotFoundError("No module named {module!r}", name={module!r})
    """)
    result = run_cli(str(script), cwd=tmp_path)
    assert result.returncode == 1 and "ModuleNotFoundError" in result.stderr
    assert f"`{module}` came with Chainer 7.8.1" in result.stderr
    assert f"`pip install {package}`" in result.stderr


@pytest.mark.skipif(numpy.lib.NumpyVersion(numpy.__version__) < "2.4.0",
                    reason="NumPy before 2.4 still converts one-element arrays (with a warning)")
def test_float_of_a_one_element_array_says_what_to_write_instead(tmp_path):
    script = write(tmp_path / "loss.py", """\
        import numpy
        total = 0.0
        total += float(numpy.ones((1,), numpy.float32))  # NumPy 1 took it
    """)
    result = run_cli(str(script), cwd=tmp_path)
    assert result.returncode == 1
    assert "TypeError: only 0-dimensional arrays" in result.stderr
    assert "If the array has one element, write `x.item()` instead" in result.stderr


def test_other_type_errors_get_no_scalar_conversion_hint(tmp_path):
    script = write(tmp_path / "other.py", "float('one') if False else float(None)\n")
    result = run_cli(str(script), cwd=tmp_path)
    assert result.returncode == 1 and "TypeError" in result.stderr
    assert "x.item()" not in result.stderr


@pytest.mark.parametrize("module", ["a_module_no_one_has", "google"])
def test_other_missing_modules_get_no_such_hint(tmp_path, module):
    # A bare `google` is many packages' namespace, not only protobuf's.
    script = write(tmp_path / "needs.py", f"""\
        raise ModuleNotFoundError("No module named {module!r}", name={module!r})
    """)
    result = run_cli(str(script), cwd=tmp_path)
    assert result.returncode == 1 and "ModuleNotFoundError" in result.stderr
    assert "came with Chainer" not in result.stderr
