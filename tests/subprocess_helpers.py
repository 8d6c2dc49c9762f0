"""Child processes for the tests: a Python script with a hard timeout, and the command line.

:func:`run_python`: a crash (segfault) or a hang in the script fails the test
instead of killing or blocking pytest.  The script runs in its own session,
and on timeout its whole process group is killed: forked children and
``multiprocessing`` workers included (they hold the output pipes open, so a
normal return means they are gone).

:func:`run_cli` runs ``python -m axisops`` (or the installed script) in
:func:`cli_env`; :func:`python_with_default_signals` starts a child that takes
signals as a terminal's would.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent

#: Resets SIGINT, SIGTERM and SIGHUP to their defaults, then execs Python with the
#: arguments that follow: a default disposition survives exec, and Python then installs
#: its own SIGINT handler.  An ignored signal would otherwise be inherited (nohup
#: ignores SIGHUP, pytest-xdist's workers ignore SIGINT) and a test's signal never land.
_DEFAULT_SIGNALS = """
import os, signal, sys
for name in ("SIGINT", "SIGTERM", "SIGHUP"):
    if hasattr(signal, name):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
"""


def python_with_default_signals(*args: str) -> list[str]:
    """The command line of ``python ARGS`` in a child whose signals are at their defaults,
    whatever this process inherited (see :data:`_DEFAULT_SIGNALS`)."""
    return [sys.executable, "-c", _DEFAULT_SIGNALS, *args]
#: The installed ``axisops`` script (the venv's, when the tests run from one).
SCRIPT = shutil.which("axisops", path=str(Path(sys.executable).parent)) or shutil.which("axisops")


def cli_env() -> dict[str, str]:
    """The environment of command-line children: output unbuffered, no debug tracebacks."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("AXISOPS_DEBUG", None)
    return env


def run_cli(*args, script: bool = False, timeout: float = 120,
            **kwargs) -> subprocess.CompletedProcess:
    """``python -m axisops ARGS`` (``script``: the installed script), output captured as text."""
    cmd = [SCRIPT] if script else [sys.executable, "-m", "axisops"]
    return subprocess.run([*cmd, *map(str, args)], capture_output=True, text=True,
                          env=cli_env(), timeout=timeout, **kwargs)


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: str
    stderr: str

    def explain(self) -> str:
        return f"exit {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


def run_python(args: list[str], *, timeout: float, env: dict[str, str] | None = None) -> Finished:
    """``python ARGS`` from the tests folder; fails the test after ``timeout`` seconds."""
    import pytest

    proc = subprocess.Popen([sys.executable, *args], cwd=HERE, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        if hasattr(os, "killpg"):
            # The script is not reaped yet, so its group id cannot belong to anyone else.
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # Windows: no process groups to kill, and no fork
            proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"python {' '.join(args)} did not finish in {timeout} s (a hang)\n"
                    f"--- stdout\n{out}\n--- stderr\n{err}")
    return Finished(proc.returncode, out, err)
