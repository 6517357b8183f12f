"""Software prefetch for the compiled engine: `prefetch(array, index)` asks the CPU to start
loading the cache line of `array[index]` and returns at once (LLVM's `llvm.prefetch`).

At tens of millions of pages every host write is a chain of cache misses (l2p, then the old
page's p2l entry); the host's logical pages are known ahead, so the batch loop starts those
loads early and the CPU overlaps them instead of waiting on each in turn. A prefetch never
faults and changes no value, so results stay bit for bit the same; an index out of range is
never dereferenced, but the loop only passes in-range ones anyway.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

# llvm.prefetch(ptr, rw, locality, cache type): rw 0 = read, 1 = write; locality 3 = keep in
# every cache level (the line is used again soon); cache type 1 = data.
_LOCALITY = 3
_DATA_CACHE = 1


def _prefetch_codegen(rw: int):
    def codegen(context, builder, signature, args):
        arrty = signature.args[0]
        ary = context.make_array(arrty)(context, builder, args[0])
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        ptr = builder.gep(ary.data, [index])
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        fn = builder.module.declare_intrinsic("llvm.prefetch", [ptr.type], fnty)
        builder.call(fn, [ptr, ir.Constant(i32, rw), ir.Constant(i32, _LOCALITY),
                          ir.Constant(i32, _DATA_CACHE)])
        return context.get_dummy_value()

    return codegen


def _check(arr, index):
    return (isinstance(arr, types.Array) and arr.ndim == 1
            and isinstance(index, types.Integer))


@intrinsic
def prefetch(typingctx, arr, index):
    """Start loading arr[index] for reading (1-D array, integer index)."""
    if _check(arr, index):
        return types.void(arr, index), _prefetch_codegen(0)
    return None


@intrinsic
def prefetch_write(typingctx, arr, index):
    """Start loading arr[index] with intent to write it."""
    if _check(arr, index):
        return types.void(arr, index), _prefetch_codegen(1)
    return None
