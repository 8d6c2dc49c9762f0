"""``axisops demo``: the examples of the DirectML TOP_K1 and aclnnGather pages, run as
files through the real jobs.

It writes small sample ``.npy`` files, runs :func:`~axisops.cli.ops_commands.run_topk`
and :func:`~axisops.cli.ops_commands.run_gather` on them (the code ``axisops topk`` and
``axisops gather`` run), reads the outputs back and compares them with the
results printed on the DirectML TOP_K1 and aclnnGather pages.

The demo never overwrites a file it did not write.  Before writing anything,
it checks every name it will use in ``--dir``: a file already there must be
one the demo writes there, which it recognises by its content (a regular
file holding exactly the arrays the demo puts under that name: same names,
dtypes, shapes and values).  Anything else (a user's ``x.npy``, a FIFO, an
unreadable file) stops the demo with one line, and nothing is written.
"""

from __future__ import annotations

import argparse
import io
import os
import stat
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ..streaming.outputs import write_bytes
from .ops_commands import run_gather, run_topk
from .output import CLIError

__all__ = ["GATHER_EXAMPLES", "GATHER_PAGE", "TOPK_EXAMPLES", "TOPK_PAGE", "register",
           "run_demo"]

_X = [[[[0, 1, 10, 11], [3, 2, 9, 8], [4, 5, 6, 7]]]]
_Y = [[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]]
_G = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
_GI = [[0, 2], [1, 0]]

#: Where the examples and their outputs are documented.
TOPK_PAGE, GATHER_PAGE = "DirectML's TOP_K1 page", "the aclnnGather page"

#: (title, input, k, axis, largest, expected values, expected indices)
TOPK_EXAMPLES: list[tuple[str, Any, int, int, bool, Any, Any]] = [
    ("DirectML TOP_K1 example 1 (axis 3)", _X, 2, 3, True,
     [[[[11, 10], [9, 8], [7, 6]]]], [[[[3, 2], [2, 3], [3, 2]]]]),
    ("DirectML TOP_K1 example 2 (axis 2)", _X, 2, 2, True,
     [[[[4, 5, 10, 11], [3, 2, 9, 8]]]], [[[[2, 2, 0, 0], [1, 1, 1, 1]]]]),
    ("DirectML TOP_K1 example 3 (ties, decreasing)", _Y, 3, 3, True,
     [[[[3, 2, 2], [5, 5, 4], [6, 6, 6]]]], [[[[3, 1, 2], [2, 3, 1], [0, 1, 2]]]]),
    ("DirectML TOP_K1 example 4 (ties, increasing)", _Y, 3, 3, False,
     [[[[1, 2, 2], [3, 4, 5], [6, 6, 6]]]], [[[[0, 1, 2], [0, 1, 2], [0, 1, 2]]]]),
]

#: (title, input, dim, index, expected)
GATHER_EXAMPLES: list[tuple[str, Any, int, Any, Any]] = [
    ("aclnnGather example 1 (dim 0)", _G, 0, _GI, [[1, 8], [4, 2]]),
    ("aclnnGather example 2 (dim 1)", _G, 1, _GI, [[1, 3], [5, 4]]),
]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo", help="run the DirectML TOP_K1 and aclnnGather pages' examples as files",
        description="Writes the examples of DirectML's TOP_K1 page and of the aclnnGather "
                    "page as sample files in --dir, runs them through the real topk and "
                    "gather jobs, and checks every output against the page's documented one.")
    p.add_argument("--dir", default="axisops-demo",
                   help="where to write the sample files (default: ./axisops-demo)")
    p.set_defaults(run=lambda args: run_demo(Path(args.dir)))


def _show(label: str, array: np.ndarray) -> str:
    text = np.array2string(array, separator=", ")
    return f"  {label}: {' '.join(text.split())}"


def _samples() -> dict[str, np.ndarray]:
    return {"x.npy": np.array(_X, np.float32), "y.npy": np.array(_Y, np.float32),
            "g.npy": np.array(_G, np.int64), "g_index.npy": np.array(_GI, np.int64)}


def _files() -> dict[str, dict[str, np.ndarray]]:
    """Every file the demo writes, and the arrays it holds (by member name)."""
    files = {name: {"": array} for name, array in _samples().items()}
    for n, (*_, want_v, want_i) in enumerate(TOPK_EXAMPLES, 1):
        files[f"topk{n}.npz"] = {"values": np.array(want_v, np.float32),
                                 "indices": np.array(want_i, np.int64)}
    for n, (*_, want) in enumerate(GATHER_EXAMPLES, 1):
        files[f"gather{n}.npy"] = {"": np.array(want, np.int64)}
    return files


def _holds(path: Path, arrays: dict[str, np.ndarray]) -> bool:
    """Whether the regular file ``path`` holds exactly ``arrays`` ("" for a .npy)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # never open a FIFO or a device
            return False
        loaded = np.load(path, allow_pickle=False)
        if isinstance(loaded, np.lib.npyio.NpzFile):
            with loaded:
                found = {name: loaded[name] for name in loaded.files}
        else:
            found = {"": loaded}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        return False
    return found.keys() == arrays.keys() and all(
        found[k].dtype == v.dtype and np.array_equal(found[k], v) for k, v in arrays.items()
    )


def _check_folder(folder: Path) -> None:
    """Refuse a folder holding a file under one of the demo's names that is not the demo's."""
    if folder.exists() and not folder.is_dir():
        raise CLIError(f"demo --dir {folder}: is not a directory")
    for name, arrays in _files().items():
        path = folder / name
        if os.path.lexists(path) and not _holds(path, arrays):
            raise CLIError(f"demo --dir {folder}: {name} is there and is not a file the demo "
                           f"wrote; nothing was written (choose another --dir or move it)")


def _verdict(page: str, ok: bool, seconds: float) -> str:
    return f"  the output documented on {page}: {'yes' if ok else 'NO'} ({seconds:.4f} s)"


def _topk_example(folder: Path, n: int, example: tuple) -> bool:
    """Run and print the ``n``-th top-k example; whether it gave the documented output."""
    title, data, k, axis, largest, want_v, want_i = example
    src = str(folder / ("x.npy" if data is _X else "y.npy"))
    out = str(folder / f"topk{n}.npz")
    record = run_topk(src, k, axis=axis, largest=largest, output=out)
    with np.load(out) as z:
        values, indices = z["values"], z["indices"]
    ok = np.array_equal(values, want_v) and np.array_equal(indices, want_i)
    flag = "" if largest else " --smallest"
    print(f"{title}: axisops topk {src} -k {k} --axis {axis}{flag}")
    print(_show("values ", values))
    print(_show("indices", indices))
    print(_verdict(TOPK_PAGE, ok, record["seconds"]))
    return ok


def _gather_example(folder: Path, n: int, example: tuple) -> bool:
    """Run and print the ``n``-th gather example; whether it gave the documented output."""
    title, _, dim, _index, want = example
    src, idx = str(folder / "g.npy"), str(folder / "g_index.npy")
    out = str(folder / f"gather{n}.npy")
    record = run_gather(src, idx, dim, output=out)
    got = np.load(out)
    ok = np.array_equal(got, want)
    print(f"{title}: axisops gather {src} {idx} --dim {dim}")
    print(_show("out", got))
    print(_verdict(GATHER_PAGE, ok, record["seconds"]))
    return ok


def run_demo(folder: Path) -> int:
    """Write the samples under ``folder``, run the examples, print; 0 when every one gives
    its documented output."""
    _check_folder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, array in _samples().items():
        buffer = io.BytesIO()
        np.save(buffer, array)
        write_bytes(str(folder / name), buffer.getvalue())
    results = [_topk_example(folder, n, e) for n, e in enumerate(TOPK_EXAMPLES, 1)]
    results += [_gather_example(folder, n, e) for n, e in enumerate(GATHER_EXAMPLES, 1)]
    pages = "the DirectML TOP_K1 and aclnnGather pages"
    if all(results):
        print(f"all {len(results)} examples of {pages} give the documented outputs; "
              f"files in {folder}")
        return 0
    print(f"{sum(results)} of the {len(results)} examples of {pages} give the documented "
          f"outputs, {results.count(False)} do NOT; files in {folder}")
    return 1
