"""The streaming engine: top-k and gather over data larger than memory.

Public surface (also exported from :mod:`axisops`):

- :class:`StreamingTopK`: the exact top-k of a sequence fed block by block,
  in order or with explicit offsets in any order (a kNN search over a
  database too large for one distance matrix);
- :func:`topk_file` and :func:`gather_file`: top-k and gather of arrays in
  ``.npy`` / ``.npz`` / zarr files, read in chunks of bounded size, returned
  as arrays or written atomically to an output file, here or on a Dask
  cluster;
- :class:`FileError`: a file that cannot be read or written as asked;
- :func:`exit_on_signals`: opt-in, for programs that want SIGTERM, SIGHUP
  and SIGINT to unwind the stack (removing temporary files) as the command
  line does.  The functions above never install a signal handler.

How it works, module by module (the first two are the public surface):

- :mod:`.topk_stream`: :class:`StreamingTopK`;
- :mod:`.files_api`: :func:`topk_file` and :func:`gather_file`, the jobs with
  the Python API's names in messages, no progress bar and no signal handler;
- :mod:`.sources`: reading boxes of an array on disk (positioned reads, zarr);
- :mod:`.boxes`: cutting an array into boxes that fit the memory budget;
- :mod:`.stream`: the jobs' work in this process, box by box;
- :mod:`.cluster`: the same work as a Dask graph on a cluster;
- :mod:`.writers` (results written box by box), :mod:`.outputs` (output files
  checked first, committed atomically last), :mod:`.tempfiles`,
  :mod:`.positional`, :mod:`.signals`;
- :mod:`.jobs`: the two jobs, shared by the Python API and the command line
  (:mod:`axisops.cli` is a thin argparse shell over them);
- :mod:`.errors`: the error, and the helpers its messages use.

Every box and merge runs a spec derived from the one validated per call, on the
engine picked once per call (:class:`~axisops.engines.base.Engine`), and top-k
merges are :mod:`axisops.merge`'s, the same as the Dask engine's.  zarr and dask
are imported only when used.
"""

from __future__ import annotations

from .errors import FileError
from .files_api import gather_file, topk_file
from .signals import exit_on_signals
from .stream import DEFAULT_CHUNK_BYTES
from .topk_stream import StreamingTopK

__all__ = ["DEFAULT_CHUNK_BYTES", "FileError", "StreamingTopK", "exit_on_signals",
           "gather_file", "topk_file"]
