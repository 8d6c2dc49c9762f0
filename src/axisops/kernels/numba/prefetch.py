"""``prefetch(array, i)``: a cache hint for ``array[i]`` inside Numba kernels.

Random reads (a gather's ``x[index]``) spend most of their time waiting for
memory; asking for an element a few hundred iterations before it is needed
keeps many reads in flight at once.  This is LLVM's ``llvm.prefetch``, which
never faults and changes no result.  Kernels only prefetch elements whose
positions were already validated, so even the hint stays inside the array.
"""

from __future__ import annotations

import llvmlite.ir as ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["prefetch"]


@intrinsic
def prefetch(typingctx, array, index):
    """Hint that ``array[index]`` (1-D, in range) will be read soon."""
    if not isinstance(array, types.Array) or array.ndim != 1:
        return None
    if not isinstance(index, types.Integer):
        return None
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        array_type, index_type = signature.args
        ary = context.make_array(array_type)(context, builder, args[0])
        pos = context.cast(builder, args[1], index_type, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, array_type, ary, [pos],
                                       wraparound=False, boundscheck=False)
        byte_ptr = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        # read (0), high temporal locality (3), data cache (1)
        builder.call(fn, [builder.bitcast(ptr, byte_ptr), i32(0), i32(0), i32(1)])
        return context.get_dummy_value()

    return sig, codegen
