"""The axisops error family: errors that carry data, and the words each front shows them in.

Every error axisops raises derives from :class:`AxisOpsError` and also from the
standard exception a Python programmer would expect, so ordinary ``except
ValueError`` / ``except TypeError`` / ``except IndexError`` clauses keep working.
The torch drop-ins (:mod:`axisops.torch`) raise them as their ``Torch`` variants,
which are also ``RuntimeError`` as torch's own errors are, so code written for
torch's functions catches them with ``except RuntimeError``.

An error carries **fields** (which argument, the value received, what was
allowed; for an index out of range its position, value, size and dimension) and
a message made of text and :class:`Arg` parts: the arguments it names.  The
message is rendered when it is read, in the words of the front that shows it:

- the Python API names the function the user called and its arguments::

      topk(): k=7 is out of range for axis 1 of size 5 (need 0 <= k <= 5)

  every public function is declared with :func:`boundary`, which records its
  name on any :class:`AxisOpsError` leaving it (the message is not rewritten:
  ``str()`` renders ``function(): message``);
- ``take_along_axis`` (and the torch drop-in ``take_along_dim``) calls gather's
  ``index`` and ``dim`` ``indices`` and ``axis`` (:data:`FUNCTION_WORDS`);
- the command line spells arguments as its flags (``--chunk-bytes``, ``INPUT
  x.npy``) by giving the error its :class:`Words` (:meth:`AxisOpsError.spell`);
- the DirectML and Ascend facades read the fields and write their own text.

When one public function calls another, the **outermost** one, the function the
user called, names the error: inner boundaries do nothing.  Work deferred past the
boundary (the tasks of a lazy Dask graph, run at ``compute()``) captures the name
with :func:`current_function` when it is built and runs under :func:`call_as`.

``torch.compile`` traces through a boundary (Dynamo handles its ``try`` and the
thread-local name) without a graph break; with ``fullgraph=True`` an error raised
while tracing is reported by Dynamo as it was first raised, before the boundary
named it.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, ParamSpec, TypeVar

__all__ = [
    "FUNCTION_WORDS",
    "PYTHON",
    "Arg",
    "AxisOpsError",
    "IndexOutOfRangeError",
    "InvalidArgumentError",
    "TorchIndexOutOfRangeError",
    "TorchInvalidArgumentError",
    "TorchUnsupportedDTypeError",
    "UnsupportedDTypeError",
    "Words",
    "as_torch_error",
    "bfloat16_needs_ml_dtypes",
    "boundary",
    "call_as",
    "current_function",
    "name_error",
    "with_fields",
]

P = ParamSpec("P")
R = TypeVar("R")


class Arg(NamedTuple):
    """An argument a message names; the front that shows the message spells it.

    ``style`` says how: ``"name"`` (``key`` / ``--key``), ``"option"`` (how to pass
    it again: ``out`` / ``-o``), ``"assign"`` (``chunk_bytes=0``, the value's
    repr), ``"label"`` (the argument and its value as a message starts:
    ``path='x.npy'`` / ``INPUT x.npy``) or ``"setting"`` (what to pass:
    ``chunk_bytes=4096`` / ``--chunk-bytes 4096``).
    """

    name: str
    value: Any = None
    style: str = "name"


class Words:
    """How one front spells the arguments a message names.

    ``names`` maps an argument's name to the front's; ``labels`` to how the front
    starts a message about it (default: its name); ``options`` to the front's way
    of passing it again (default: its name).  ``flags`` says the front is a
    command line (labels and settings are ``NAME value``).

    >>> cli = Words({"chunk_bytes": "--chunk-bytes"}, labels={"path": "INPUT"}, flags=True)
    >>> cli.render(Arg("path", "x.npy", "label")), PYTHON.render(Arg("path", "x.npy", "label"))
    ('INPUT x.npy', "path='x.npy'")
    >>> cli.render(Arg("chunk_bytes", 8, "setting")), cli.render(Arg("chunk_bytes", 0, "assign"))
    ('--chunk-bytes 8', '--chunk-bytes=0')
    """

    def __init__(self, names: Mapping[str, str] | None = None, *,
                 labels: Mapping[str, str] | None = None,
                 options: Mapping[str, str] | None = None, flags: bool = False) -> None:
        self.names = dict(names or {})
        self.labels = dict(labels or {})
        self.options = dict(options or {})
        self.flags = flags

    def render(self, arg: Arg) -> str:
        name = self.names.get(arg.name, arg.name)
        if arg.style == "name":
            return name
        if arg.style == "option":
            return self.options.get(arg.name, name)
        if arg.style == "assign":
            return f"{name}={arg.value!r}"
        if arg.style == "label":
            name = self.labels.get(arg.name, name)
            return f"{name} {arg.value}" if self.flags else f"{name}={str(arg.value)!r}"
        return f"{name} {arg.value}" if self.flags else f"{name}={arg.value}"  # "setting"

    def __repr__(self) -> str:
        return (f"Words({self.names!r}, labels={self.labels!r}, options={self.options!r}, "
                f"flags={self.flags})")


#: The Python API's words: every argument by its own name.
PYTHON = Words()
#: Functions that call an argument otherwise than the code that finds the problem.
FUNCTION_WORDS: dict[str, Words] = {
    "take_along_axis": Words({"index": "indices", "dim": "axis"}),
    "take_along_dim": Words({"index": "indices", "dim": "axis"}),  # axisops.torch's
}


class AxisOpsError(Exception):
    """Root of every error raised by axisops.

    Its arguments are the message: one string, or parts (text and :class:`Arg`)
    rendered in the error's words when read; its fields are attributes
    (:func:`with_fields`).  ``message`` is the text without the function's name;
    ``str()`` adds the public function's name (``topk(): ...``) once a boundary
    set it.
    """

    #: The public function the message names (``None`` until a boundary names it).
    function: str | None = None

    @property
    def words(self) -> Words:
        """The words the message is shown in: a front's, else the function's."""
        return self.__dict__.get("_words") or FUNCTION_WORDS.get(self.function or "", PYTHON)

    def spell(self, words: Words) -> None:
        """Show the message in ``words`` (a front's, such as the command line's)."""
        self._words = words

    def _renders(self) -> bool:
        return bool(self.args) and all(isinstance(p, (str, Arg)) for p in self.args)

    @property
    def message(self) -> str:
        """The message in the error's words, without the function's name."""
        if "_message" in self.__dict__ or not self._renders():
            return self.__dict__.get("_message", super().__str__())
        words = self.words
        return "".join(p if isinstance(p, str) else words.render(p) for p in self.args)

    @message.setter
    def message(self, text: str) -> None:  # a subclass's own message (DirectML's)
        self._message = text

    def __str__(self) -> str:
        if self.function is None or not self._renders():
            return self.message
        return f"{self.function}(): {self.message}"

    def __repr__(self) -> str:
        if not self._renders():
            return super().__repr__()
        return f"{type(self).__name__}({str(self)!r})"


E = TypeVar("E", bound=AxisOpsError)


def with_fields(exc: E, **fields: Any) -> E:
    """``exc`` with ``fields`` as attributes (its data, for fronts that write their own text).

    While torch.compile's Dynamo traces, the fields are left out: Dynamo reports an
    error raised while tracing itself, and cannot follow the attributes' stores.

    >>> with_fields(InvalidArgumentError("k=-1 is negative"), name="k", value=-1).value
    -1
    """
    if not _compiling():
        exc.__dict__.update(fields)
    return exc


class InvalidArgumentError(AxisOpsError, ValueError):
    """A bad k, axis/dim, rank or shape mismatch, or an index dtype too small.

    Fields: ``name`` (the argument), ``value`` (what was given) and ``allowed``
    (what would have been, in words); rules add their own (``low``, ``high``,
    ``size``...).
    """

    name: str | None = None
    value: Any = None
    allowed: str | None = None


class UnsupportedDTypeError(AxisOpsError, TypeError):
    """A dtype the operation does not support (object, string, float index...).

    Fields: ``name``, ``dtype`` and ``allowed``.
    """

    name: str | None = None
    dtype: Any = None
    allowed: str | None = None


def bfloat16_needs_ml_dtypes() -> UnsupportedDTypeError:
    """The error for a bfloat16 request where ml_dtypes (which defines the type) is missing."""
    return with_fields(UnsupportedDTypeError(
        "bfloat16 arrays need the ml_dtypes package, which is not installed "
        "(pip install ml_dtypes; JAX and axisops[torch] install it)"),
        name=None, dtype="bfloat16", allowed=None)


class IndexOutOfRangeError(AxisOpsError, IndexError):
    """A gather index value outside [-n, n-1].

    Fields: ``name`` (``"index"``), ``position`` (a tuple), ``value`` (None when
    the value is no longer there to report, see ``axisops.engines.cpu``),
    ``size`` (n), ``dim`` and ``dim_name`` (``"dim"``).
    """

    name: str = "index"
    position: tuple[int, ...] = ()
    value: int | None = None
    size: int = 0
    dim: int = 0
    dim_name: str = "dim"


class TorchInvalidArgumentError(InvalidArgumentError, RuntimeError):
    """An :class:`InvalidArgumentError` raised by a torch drop-in: also a ``RuntimeError``."""


class TorchUnsupportedDTypeError(UnsupportedDTypeError, RuntimeError):
    """An :class:`UnsupportedDTypeError` raised by a torch drop-in: also a ``RuntimeError``."""


class TorchIndexOutOfRangeError(IndexOutOfRangeError, RuntimeError):
    """An :class:`IndexOutOfRangeError` raised by a torch drop-in: also a ``RuntimeError``."""


#: Each error class as the torch drop-ins raise it.
_TORCH_CLASSES: dict[type, type] = {
    InvalidArgumentError: TorchInvalidArgumentError,
    UnsupportedDTypeError: TorchUnsupportedDTypeError,
    IndexOutOfRangeError: TorchIndexOutOfRangeError,
}


def as_torch_error(exc: AxisOpsError) -> None:
    """Make ``exc`` its class's ``Torch`` variant, also a ``RuntimeError`` (the same object:
    its fields, message and traceback stay).  Not while Dynamo traces, which cannot follow
    it (the error is then reported as it was raised).

    >>> err = InvalidArgumentError("k=-1 is negative")
    >>> as_torch_error(err); isinstance(err, RuntimeError), isinstance(err, ValueError)
    (True, True)
    """
    torch_class = _TORCH_CLASSES.get(type(exc))
    if torch_class is not None and not _compiling():
        exc.__class__ = torch_class


class _Calls(threading.local):
    #: The outermost public function running in this thread.
    function: str | None = None


_calls = _Calls()


def name_error(exc: AxisOpsError, function: str) -> None:
    """Make ``exc`` name ``function`` (replacing a name it carries).

    Errors whose parts are not a message (an HRESULT, say) are left alone.

    >>> err = InvalidArgumentError("k=7 is out of range")
    >>> name_error(err, "topk"); name_error(err, "top_k"); str(err)
    'top_k(): k=7 is out of range'
    """
    if exc._renders():
        exc.function = function


def _compiling() -> bool:
    """Whether torch.compile's Dynamo is tracing this code: the tracer of torch 2.4
    cannot follow the thread state below (so the boundary keeps none while it
    traces).  ``is_dynamo_compiling``, not ``is_compiling``: the latter stays true
    in every thread while any thread compiles (torch 2.13), and eager calls on other
    threads must keep their thread state."""
    torch = sys.modules.get("torch")
    check = getattr(getattr(torch, "compiler", None), "is_dynamo_compiling", None)
    if check is None:  # a torch without it (or still importing) traces nothing here
        return False
    try:
        return bool(check())
    except Exception:  # a torch half-imported by another thread
        return False


def boundary(function: str, *, torch: bool = False
             ) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Declare a public entry point: errors leaving it name ``function``.

    ``function`` is how the message names the call: ``"topk"``, or
    ``"StreamingTopK.update"`` for a method.  Inside another boundary (one
    public function calling another) the wrapper only calls through.  ``torch``:
    a torch drop-in, whose errors leave as their ``Torch`` variants
    (:func:`as_torch_error`).

    >>> @boundary("half")
    ... def half(n):
    ...     if n % 2:
    ...         raise InvalidArgumentError(f"n={n} is odd")
    ...     return n // 2
    >>> half(3)
    Traceback (most recent call last):
    axisops.errors.InvalidArgumentError: half(): n=3 is odd
    """

    def declare(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def public(*args: P.args, **kwargs: P.kwargs) -> R:
            if _calls.function is not None:
                return fn(*args, **kwargs)
            # While Dynamo traces, no thread state (the outermost name still wins).
            keeps_state = not _compiling()
            if keeps_state:
                _calls.function = function
            try:
                return fn(*args, **kwargs)
            except AxisOpsError as exc:
                name_error(exc, function)
                if torch:
                    as_torch_error(exc)
                raise
            finally:
                if keeps_state:
                    _calls.function = None

        return public

    return declare


def current_function() -> str | None:
    """The public function this thread is running (the outermost), or None outside any.

    >>> current_function() is None
    True
    >>> boundary("peek")(current_function)()
    'peek'
    """
    return _calls.function


def call_as(function: str | None, fn: Callable[..., R], *args: Any) -> R:
    """``fn(*args)``, its errors named as if raised inside ``function`` (None: unnamed).

    For work a public function defers past its return, such as a lazy graph's
    tasks: capture :func:`current_function` when building it, run it this way.

    >>> def check(value):
    ...     raise IndexOutOfRangeError(f"index[0]={value} is out of range")
    >>> call_as("gather", check, 7)
    Traceback (most recent call last):
    axisops.errors.IndexOutOfRangeError: gather(): index[0]=7 is out of range
    """
    if function is None:
        return fn(*args)
    try:
        return fn(*args)
    except AxisOpsError as exc:
        name_error(exc, function)
        raise
