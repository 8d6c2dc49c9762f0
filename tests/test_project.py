"""Project hygiene: the README's commands are the ones CI runs."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_test_command() -> str:
    lines = (ROOT / "README.md").read_text().splitlines()
    return next(line for line in lines if line.startswith("python3 -m venv")
                and line.endswith("pytest -q"))


def test_readme_test_command_is_what_ci_runs():
    """CI installs as the README says, then (after lint and a kernel warm-up that only
    makes the run faster) runs the README's test command verbatim, last."""
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line and not line.startswith(("#", "set ", "cd ", "export ", "rm "))]
    steps = _readme_test_command().split(" && ")
    install, test = " && ".join(steps[:-1]), steps[-1]
    assert ci[0] == install
    assert ci[-1] == test


def test_readme_has_a_demo_command():
    readme = (ROOT / "README.md").read_text()
    assert any(line.startswith("python3 -m venv") and line.endswith("axisops demo")
               for line in readme.splitlines())
