"""Interrupted and killed runs of the command line leave nothing behind.

Deterministic tests run the real command in a child that stops at a known
point (after the first box of the result is written, so every temporary file
exists and holds data) and tells the test so through a pipe; the test then
sends the signal.  The random test kills real runs at random moments.  Neither
depends on timing for its verdict: after any signal, either the complete,
correct output exists or nothing does, and no hidden file is left.
"""

import io
import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path

import numpy as np
import pytest

import axisops
from axisops.cli.main import main
from axisops.cli.ops_commands import run_gather, run_topk
from axisops.streaming import signals, tempfiles
from axisops.streaming.errors import FileError
from axisops.streaming.progress import progress_bar
from disk import listing
from subprocess_helpers import cli_env, python_with_default_signals

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")

ROOT = Path(__file__).resolve().parents[1]

#: The command, stopped after its first box is written until the test writes to ``go``.
DRIVER = r"""
import os, signal, sys
from axisops.cli import main
from axisops.streaming import tempfiles, writers

ready, go, mode, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
if "named" in mode:
    del os.O_TMPFILE
write, discard, done = writers.NpyWriter.write, tempfiles.TempFile.discard, set()

def paused_write(self, box, block):
    write(self, box, block)
    if "paused" not in done:
        done.add("paused")
        os.write(ready, b"w")
        os.read(go, 1)

def discard_signalled(self):
    if "again" not in done:  # a second signal in the middle of the cleanup
        done.add("again")
        signal.raise_signal(getattr(signal, mode.split(":")[1]))
    discard(self)

writers.NpyWriter.write = paused_write
if mode.startswith("again:"):
    tempfiles.TempFile.discard = discard_signalled
if mode == "entry":  # as python -m axisops: start-up's handler first
    import runpy
    sys.argv = ["axisops", *argv]
    runpy.run_module("axisops", run_name="__main__", alter_sys=True)
sys.exit(main.main(argv))
"""


class Paused:
    """The command run by DRIVER, stopped at its first written box."""

    def __init__(self, args, mode=""):
        ready_r, ready_w = os.pipe()
        go_r, self.go = os.pipe()
        self.proc = subprocess.Popen(
            python_with_default_signals("-c", DRIVER, str(ready_w), str(go_r), mode or "-",
                                        *map(str, args)),
            pass_fds=(ready_w, go_r), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=cli_env())
        os.close(ready_w)
        os.close(go_r)
        try:
            readable, _, _ = select.select([ready_r], [], [], 120)
            got = os.read(ready_r, 1) if readable else b""
        finally:
            os.close(ready_r)
        if got != b"w":
            self.proc.kill()
            out, err = self.proc.communicate()
            pytest.fail(f"the command did not reach its first box: {out} {err}")

    def finish(self, signum):
        self.proc.send_signal(signum)
        out, err = self.proc.communicate(timeout=120)
        os.close(self.go)
        return self.proc.returncode, out, err


def _topk_args(folder, name="out.npz"):
    x = np.random.default_rng(0).random((64, 48), np.float32)
    np.save(folder / "x.npy", x)
    return ["topk", folder / "x.npy", "-k", "3", "--axis", "0", "--chunk-bytes", "512",
            "--backend", "numpy", "-o", folder / name]


def _gather_args(folder):
    np.save(folder / "x.npy", np.arange(64 * 48.0).reshape(64, 48))
    np.save(folder / "i.npy", np.random.default_rng(1).integers(-48, 48, size=(64, 40)))
    return ["gather", folder / "x.npy", folder / "i.npy", "--dim", "1", "--chunk-bytes", "512",
            "--backend", "numpy", "-o", folder / "out.npy"]


@pytest.mark.parametrize("job, signum, status", [
    ("topk", signal.SIGTERM, 143), ("topk", signal.SIGINT, 130), ("topk", signal.SIGHUP, 129),
    ("gather", signal.SIGTERM, 143),
])
def test_an_interrupted_run_leaves_no_file_under_the_requested_name(tmp_path, job, signum,
                                                                    status):
    args = _topk_args(tmp_path) if job == "topk" else _gather_args(tmp_path)
    inputs = listing(tmp_path)
    returncode, out, err = Paused(args).finish(signum)
    name = signal.Signals(signum).name
    assert (returncode, out) == (status, "")
    assert err == f"axisops: error: stopped by {name}; no output written\n"
    assert listing(tmp_path) == inputs  # nothing under the name, no hidden file


@pytest.mark.parametrize("second", ["SIGTERM", "SIGINT"])
def test_a_second_signal_during_the_cleanup_is_ignored(tmp_path, second):
    """The cleanup runs to its end and the message is printed once."""
    args = _topk_args(tmp_path)
    returncode, out, err = Paused(args, mode=f"again:{second}").finish(signal.SIGTERM)
    assert (returncode, out) == (143, "")
    assert err == "axisops: error: stopped by SIGTERM; no output written\n"
    assert listing(tmp_path) == ["x.npy"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="O_TMPFILE is Linux's")
def test_sigkill_leaves_no_hidden_file(tmp_path):
    """SIGKILL runs no cleanup at all: the temporary files simply have no name."""
    for args in (_topk_args(tmp_path), _gather_args(tmp_path)):
        inputs = listing(tmp_path)
        returncode, _, _ = Paused(args).finish(signal.SIGKILL)
        assert returncode == -signal.SIGKILL
        assert listing(tmp_path) == inputs


def test_sigkill_with_named_temporaries_is_swept_by_the_next_run(tmp_path):
    """Without O_TMPFILE the dead run's files stay, and the next run removes them."""
    args = _topk_args(tmp_path)
    returncode, _, _ = Paused(args, mode="named").finish(signal.SIGKILL)
    assert returncode == -signal.SIGKILL
    left = [n for n in listing(tmp_path) if n != "x.npy"]
    assert len(left) == 3 and all(tempfiles.PATTERN.fullmatch(n) for n in left), left
    assert {n.split(".axisops-")[0] for n in left} == {
        ".out.npz", ".out.npz.values", ".out.npz.indices"}
    proc = subprocess.run([sys.executable, "-m", "axisops", *map(str, _topk_args(tmp_path,
                           "other.npz"))], capture_output=True, text=True, env=cli_env(),
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert listing(tmp_path) == ["other.npz", "x.npy"]


# -- a Ctrl-C on a terminal --------------------------------------------------------------

#: The command, held in its first progress redraw on the terminal (a read of a pipe
#: that nobody writes) until a signal comes.
BAR_DRIVER = r"""
import os, sys
from axisops.cli import main
from axisops.streaming import progress

hold, argv = int(sys.argv[1]), sys.argv[2:]
draw = progress.ProgressBar._draw

def draw_then_hold(self, now, end):
    draw(self, now, end)
    if not end:  # the bar's line is open on the terminal: wait there
        os.read(hold, 1)

progress.ProgressBar._draw = draw_then_hold
sys.exit(main.main(argv, process=True))
"""


def _read_pty(fd, until=None):
    """What the terminal shows, up to and including ``until`` (else to the end: the child
    has exited and the slave side is closed)."""
    seen = b""
    while until is None or until not in seen:
        readable, _, _ = select.select([fd], [], [], 120)
        assert readable, f"the terminal showed no {until!r} in 120 s: {seen!r}"
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:  # EIO: every writer is gone
            chunk = b""
        if not chunk:
            assert until is None, f"the command ended before showing {until!r}: {seen!r}"
            break
        seen += chunk
    return seen


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_on_a_terminal_the_message_follows_the_bar_on_a_line_of_its_own(tmp_path, signum):
    """The command runs on a pseudo-terminal, so its bar redraws one line in place; the
    signal comes once the terminal shows the bar.  The bar's line is ended before the
    message, and nothing is drawn after it."""
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    hold_r, hold_w = os.pipe()
    args = [*_topk_args(tmp_path), "--progress"]
    try:
        proc = subprocess.Popen(
            python_with_default_signals("-c", BAR_DRIVER, str(hold_r), *map(str, args)),
            pass_fds=(hold_r,), stdin=slave, stdout=subprocess.PIPE, stderr=slave,
            env=cli_env())
        os.close(slave)
        slave = None
        try:
            shown = _read_pty(master, until=b"\x1b[K")  # the bar is drawn, to its end
            proc.send_signal(signum)
            out = proc.stdout.read()
            status = proc.wait(timeout=120)
            shown += _read_pty(master)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
    finally:
        for fd in (master, slave, hold_r, hold_w):
            if fd is not None:
                os.close(fd)
    name = signal.Signals(signum).name
    message = f"axisops: error: stopped by {name}; no output written\r\n".encode()
    assert (status, out) == (128 + signum, b"")
    assert shown.startswith(b"\rtopk: ") and shown.count(b"topk: ") == 1, shown
    bar, _, rest = shown.partition(b"axisops: error:")
    assert bar.endswith(b"\x1b[K\r\n"), shown  # the bar's line ended, then the message
    assert b"axisops: error:" + rest == message, shown  # and no bar after it


# -- kills at random moments -------------------------------------------------------------

def _jobs(folder):
    """A top-k and a gather, the arguments of each and a check of its output."""
    x = np.random.default_rng(2).random((256, 512), np.float32)
    index = np.random.default_rng(3).integers(-512, 512, size=(256, 200))
    np.save(folder / "x.npy", x)
    np.save(folder / "i.npy", index)
    common = ["--chunk-bytes", "8KiB", "--backend", "numpy", "--progress"]
    want = axisops.topk(x, 4, 0, backend="numpy")

    def topk_ok(path):
        with np.load(path) as z:
            return (set(z.files) == {"values", "indices"}
                    and np.array_equal(z["values"], want.values)
                    and np.array_equal(z["indices"], want.indices))

    gathered = axisops.gather(x, 1, index, backend="numpy")
    return [
        (["topk", folder / "x.npy", "-k", "4", "--axis", "0", *common, "-o", folder / "t.npz"],
         folder / "t.npz", topk_ok),
        (["gather", folder / "x.npy", folder / "i.npy", "--dim", "1", *common,
          "-o", folder / "g.npy"],
         folder / "g.npy", lambda path: np.array_equal(np.load(path), gathered)),
    ]


def _run_killed(args, delay, signum):
    """Start the command, wait for its first progress output, kill it after ``delay``."""
    proc = subprocess.Popen(python_with_default_signals("-m", "axisops", *map(str, args)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env())
    readable, _, _ = select.select([proc.stderr], [], [], 120)
    first = os.read(proc.stderr.fileno(), 1 << 16) if readable else b""
    assert first, "the command printed no progress"
    time.sleep(delay)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out.decode(), (first + err).decode(errors="replace")


@pytest.mark.slow
def test_random_kills_leave_the_whole_output_or_nothing(tmp_path, capsys):
    rng = np.random.default_rng(13)
    jobs = _jobs(tmp_path)
    inputs = listing(tmp_path)
    spans = []
    for args, path, correct in jobs:  # uninterrupted runs: correct, and how long they take
        capsys.readouterr()
        assert main([str(a) for a in args]) == 0
        rec = json.loads(capsys.readouterr().out)
        assert correct(path)
        path.unlink()
        spans.append(1.3 * rec["seconds"])  # kills fall in the work, or just after it
    outcomes = []
    for i in range(10):
        (args, path, correct), span = jobs[i % 2], spans[i % 2]
        signum = [signal.SIGTERM, signal.SIGINT][rng.integers(2)]
        status, out, err = _run_killed(args, rng.uniform(0, span), signum)
        written = path.exists()
        outcomes.append((status, written))
        # -signum: it came after the job, when the default action is back
        assert status in (0, 128 + signum, -signum), (status, err)
        assert "Traceback" not in err and err.count("axisops: error:") == (status > 0)
        if written:  # committed: the whole, correct output (the signal came after)
            assert correct(path)
            assert len(out.splitlines()) == 1 and json.loads(out)["output"] == str(path)
            path.unlink()
        else:
            assert status != 0 and out == "" and "no output written" in err
        assert listing(tmp_path) == inputs, (i, outcomes)


# -- the mechanisms, in this process -----------------------------------------------------

@pytest.fixture
def default_sigterm():
    """SIGTERM at its default action (so exit_on_signals takes it over), restored after."""
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    signal.signal(signal.SIGTERM, previous)


def test_a_signal_in_a_critical_section_waits_for_its_end(default_sigterm, capfd):
    reached = []
    with signals.exit_on_signals(), pytest.raises(SystemExit) as stop:
        with signals.critical():
            signal.raise_signal(signal.SIGTERM)
            with signals.critical():  # sections nest
                reached.append("inner")
            reached.append("end of section")
        reached.append("after")  # not reached: the held signal acts here
    assert stop.value.code == 143 and reached == ["inner", "end of section"]
    assert capfd.readouterr().err == "axisops: error: stopped by SIGTERM; no output written\n"
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def _call() -> None:
    """A Python call: the interpreter runs pending signal handlers when it starts one."""


class _Collected:
    pass


def test_a_signal_in_a_weakref_callback_is_delivered_again(default_sigterm, capfd):
    """A signal handled while Python runs a weak reference's callback (as the import system's
    module-lock cleanup does) raises where Python cannot pass the exception on; it is not
    lost, not printed as "ignored", and takes effect in the main flow, its message once.
    No critical section starts in between (its output could make the message untrue)."""
    reached, section = [], []

    def callback(_ref):
        signal.raise_signal(signal.SIGTERM)
        _call()  # the handler runs here, inside the callback
        reached.append("callback's end")  # not reached: the handler raised

    with signals.exit_on_signals(), pytest.raises(SystemExit) as stop:
        obj = _Collected()
        ref = weakref.ref(obj, callback)
        del obj  # the callback runs now
        assert ref() is None and reached == []
        with signals.critical():  # refused: the lost signal acts first
            section.append("entered")
    assert stop.value.code == 143 and section == []
    err = capfd.readouterr().err
    assert err == "axisops: error: stopped by SIGTERM; no output written\n", err
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_lost_signal_comes_back_without_a_critical_section(default_sigterm, capfd):
    """With no critical section to refuse, the signal delivered again from a helper thread
    stops the main flow (a wait on an event that nothing sets ends by it)."""

    def callback(_ref):
        signal.raise_signal(signal.SIGTERM)
        _call()

    never = threading.Event()
    with signals.exit_on_signals(), pytest.raises(SystemExit) as stop:
        obj = _Collected()
        ref = weakref.ref(obj, callback)
        del obj
        assert ref() is None
        never.wait(60)  # ended by the signal's second delivery
        pytest.fail("the signal was lost")
    assert stop.value.code == 143
    assert capfd.readouterr().err == "axisops: error: stopped by SIGTERM; no output written\n"


def test_a_signal_stops_every_bar_so_none_is_drawn_after_its_message(default_sigterm, capfd):
    """Into a file the bar writes whole lines, so the message needs no newline before it;
    the interrupted bar does not write its last state after the message."""
    stream = io.StringIO()
    with signals.exit_on_signals(), pytest.raises(SystemExit), \
            progress_bar(100, True, desc="topk", stream=stream) as bar:
        bar.update(50)
        signal.raise_signal(signal.SIGTERM)
    assert stream.getvalue().splitlines() == [stream.getvalue().rstrip("\n")]
    assert stream.getvalue().startswith("topk:  50% |")
    assert capfd.readouterr().err == "axisops: error: stopped by SIGTERM; no output written\n"


def test_later_signals_are_ignored_and_the_message_tells_the_truth(default_sigterm, capfd):
    with signals.exit_on_signals():
        signals.output_committed()
        with pytest.raises(SystemExit):
            signal.raise_signal(signal.SIGTERM)
        signal.raise_signal(signal.SIGTERM)  # ignored: the first one is being acted on
        signal.raise_signal(signal.SIGINT)
    assert capfd.readouterr().err == (
        "axisops: error: stopped by SIGTERM; the output was already complete\n")


def test_sigint_is_a_keyboard_interrupt_already_reported(capfd):
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with signals.exit_on_signals(), pytest.raises(KeyboardInterrupt) as stop:
            signal.raise_signal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert isinstance(stop.value, signals.Interrupted) and stop.value.reported
    assert capfd.readouterr().err == "axisops: error: stopped by SIGINT; no output written\n"


@pytest.mark.parametrize("named", [False, True])
def test_a_signal_just_after_a_temporary_file_is_created_leaves_nothing(
        tmp_path, monkeypatch, default_sigterm, named, capfd):
    """The flaky case of issue 13: a signal between creating a file and registering it."""
    if named:  # (deleting os.O_TMPFILE here would break pytest's own temporary files)
        monkeypatch.setattr(tempfiles, "_unnamed_supported", lambda: False)
    create = tempfiles.create
    created = []

    def create_then_signal(*args):
        temp = create(*args)
        created.append(temp.name)
        signal.raise_signal(signal.SIGTERM)
        return temp

    monkeypatch.setattr(tempfiles, "create", create_then_signal)
    np.save(tmp_path / "x.npy", np.arange(10.0))
    with pytest.raises(SystemExit):
        run_topk(str(tmp_path / "x.npy"), 3, output=str(tmp_path / "o.npz"))
    assert len(created) == 1 and (created[0] is not None) is named
    assert listing(tmp_path) == ["x.npy"]
    capfd.readouterr()


def test_an_error_after_the_files_exist_leaves_nothing(tmp_path, monkeypatch):
    np.save(tmp_path / "x.npy", np.arange(10.0))
    np.save(tmp_path / "i.npy", np.array([1, 2]))

    def fail(*args, **kwargs):
        raise FileError("disk on fire")

    monkeypatch.setattr("axisops.streaming.jobs.pack_npz", fail)
    monkeypatch.setattr("axisops.streaming.jobs.stream_gather", fail)
    for named in (False, True):
        if named:
            monkeypatch.setattr(tempfiles, "_unnamed_supported", lambda: False)
        with pytest.raises(FileError, match="disk on fire"):
            run_topk(str(tmp_path / "x.npy"), 3, output=str(tmp_path / "o.npz"))
        with pytest.raises(FileError, match="disk on fire"):
            run_gather(str(tmp_path / "x.npy"), str(tmp_path / "i.npy"), 0,
                       output=str(tmp_path / "o.npy"))
        assert listing(tmp_path) == ["i.npy", "x.npy"]


def test_the_process_ignores_a_ctrl_c_once_the_job_is_done(tmp_path):
    """The mechanism behind the random kills' late signals: the script's ``main`` ignores
    SIGINT once its job is done, so the interpreter's shutdown never raises
    KeyboardInterrupt (a traceback); a call of ``main`` in a program changes nothing."""
    np.save(tmp_path / "x.npy", np.arange(12.0).reshape(3, 4))
    code = ("import signal, sys; from axisops.cli.main import main; "
            "status = main(sys.argv[2:], process=sys.argv[1] == 'process'); "
            "print(status, signal.getsignal(signal.SIGINT) is signal.SIG_IGN, file=sys.stderr)")
    for mode, ignored in (("process", True), ("call", False)):
        args = ["topk", str(tmp_path / "x.npy"), "-k", "2", "-o", str(tmp_path / f"{mode}.npz")]
        proc = subprocess.run(python_with_default_signals("-c", code, mode, *args),
                              capture_output=True, text=True, env=cli_env(), timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.strip().splitlines()[-1] == f"0 {ignored}"


#: python_with_default_signals, for a program given by its path (the installed script).
DEFAULT_THEN_EXEC = """
import os, signal, sys
for name in ("SIGINT", "SIGTERM", "SIGHUP"):
    if hasattr(signal, name):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])
"""

#: What pip writes for the console script, with a line of the test's in front of the call.
CONSOLE_SCRIPT = """\
import re
import sys
from {module} import {function}
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    {before_the_call}
    sys.exit({function}())
"""


def _console_script(folder, before_the_call="pass"):
    """The ``axisops`` script pip would install from pyproject.toml's ``[project.scripts]``
    (the venv's own may predate the entry point), as a file in ``folder``."""
    text = (ROOT / "pyproject.toml").read_text()
    module, function = re.search(r'^axisops = "([\w.]+):(\w+)"$', text, re.MULTILINE).groups()
    assert module == "axisops.__main__"  # the minimal module, not the command line
    path = folder / "axisops-script.py"
    path.write_text(CONSOLE_SCRIPT.format(module=module, function=function,
                                          before_the_call=before_the_call))
    return path


#: axisops.__main__.START_HOOK: not imported here, as importing that module is starting
#: the command (it takes SIGINT over).
START_HOOK = "AXISOPS_TEST_START"


def _stopped_at(point, command):
    """Run ``command`` (signals at their defaults), stopped at the start-up ``point`` (the
    hook of ``axisops.__main__``); once it says it is there, send SIGINT.  Returns
    (whether NumPy was imported already, status, stdout, stderr)."""
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", DEFAULT_THEN_EXEC, *command], pass_fds=(ready_w, go_r),
            env={**cli_env(), START_HOOK: f"{point}:{ready_w},{go_r}"},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        os.close(ready_w)
        os.close(go_r)
        ready_w = go_r = None
        try:
            numpy = os.read(ready_r, 1)
            assert numpy in (b"0", b"1"), proc.communicate(timeout=120)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    finally:
        for fd in (ready_r, ready_w, go_r, go_w):
            if fd is not None:
                os.close(fd)
    return numpy == b"1", proc.returncode, out, err


@pytest.mark.parametrize("point, numpy", [("import", False), ("entry", False), ("main", True)])
@pytest.mark.parametrize("launcher", ["python -m axisops", "console script"])
def test_a_ctrl_c_at_any_point_of_start_up_exits_130_without_a_word(tmp_path, point, numpy,
                                                                    launcher):
    """Start-up stops at a known point (while ``axisops.__main__`` is imported, before the
    command line is imported, just before it runs) and says so through a pipe, with
    whether NumPy is imported already (not before the command line is: every heavy
    import comes after the handler); the SIGINT lands there, and the process exits 130
    without a word."""
    command = ([sys.executable, "-m", "axisops", "info"] if launcher == "python -m axisops"
               else [sys.executable, str(_console_script(tmp_path)), "info"])
    assert _stopped_at(point, command) == (numpy, 130, "", "")


def test_the_hook_is_the_entry_modules_and_the_command_line_leaves_sigint_alone():
    """Only the entry module takes SIGINT over when imported; the command line's modules
    (imported by programs and tests) leave it as it is."""
    code = ("import signal, axisops.cli, axisops.cli.main; "
            "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler); "
            "import axisops.__main__ as m; print(m.START_HOOK, "
            "signal.getsignal(signal.SIGINT) is signal.default_int_handler)")
    proc = subprocess.run(python_with_default_signals("-c", code), capture_output=True,
                          text=True, env=cli_env(), timeout=120)
    assert proc.stdout.split() == ["True", START_HOOK, "False"], proc.stderr


def test_the_installed_script_also_exits_130_without_a_word():
    from subprocess_helpers import SCRIPT

    assert _stopped_at("entry", [SCRIPT, "info"])[1:] == (130, "", "")


def test_a_ctrl_c_between_the_import_and_the_call_exits_130_without_a_word(tmp_path):
    """The console script raises SIGINT itself after importing the entry point, before
    calling it: the handler is in place, the exit quiet."""
    script = _console_script(tmp_path, "import signal; signal.raise_signal(signal.SIGINT)")
    proc = subprocess.run(python_with_default_signals(str(script), "info"),
                          capture_output=True, text=True, env=cli_env(), timeout=120)
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, "", "")


def test_a_ctrl_c_during_the_parsers_imports_exits_130_without_a_word(tmp_path):
    """The SIGINT is raised by the first import of NumPy (the commands' parsers import it):
    still start-up, still quiet."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import signal, sys\n"
        "class RaiseOnNumpy:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'numpy':\n"
        "            sys.meta_path.remove(self)\n"
        "            signal.raise_signal(signal.SIGINT)\n"
        "        return None\n"
        "sys.meta_path.insert(0, RaiseOnNumpy())\n")
    env = cli_env()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(hook), env.get("PYTHONPATH")]))
    proc = subprocess.run(python_with_default_signals("-m", "axisops", "info"),
                          capture_output=True, text=True, env=env, timeout=120)
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, "", "")


def test_once_the_command_runs_a_ctrl_c_is_the_commands(tmp_path):
    """Through ``python -m axisops`` (start-up's quiet handler first), a job paused at its
    first box still takes SIGINT as a job does: one line, status 130, nothing left."""
    args = _topk_args(tmp_path)
    inputs = listing(tmp_path)
    returncode, out, err = Paused(args, mode="entry").finish(signal.SIGINT)
    assert (returncode, out) == (130, "")
    assert err == "axisops: error: stopped by SIGINT; no output written\n"
    assert listing(tmp_path) == inputs
