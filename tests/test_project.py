"""Project hygiene: the README's commands are the ones CI runs."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _ci_command() -> str:
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    return next(line for line in lines if line.startswith("python3 -m venv"))


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    assert _ci_command() in readme.splitlines()


def test_readme_has_a_demo_command():
    readme = (ROOT / "README.md").read_text()
    assert any(line.startswith("python3 -m venv") and line.endswith("axisops demo")
               for line in readme.splitlines())
