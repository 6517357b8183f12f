"""A numpy Generator's one-at-a-time draws, made in plain Python from its raw stream.

Building the kernel tree draws a word and a number for each of its 36,706 files, one value
at a time, and a numpy call costs microseconds however small its answer. `RawDraws` gives
exactly the values the Generator's own calls give (`integers(low, high)` one at a time,
`random(n)`, `choice(n, size, p=...)`, `choice(n, size, replace=False)`), from the same
PCG64 stream, at a fraction of the cost; `close()` moves the Generator past everything
drawn, so numpy calls after it continue the same stream as if it had made every draw
itself.

How numpy draws (numpy 2.x, distributions.c): a bounded integer whose range fits in 32 bits
takes 32-bit words (PCG64 hands out the low half of a 64-bit word, then keeps the high half
for the next 32-bit draw) and maps them with Lemire's multiply-and-reject; a double takes a
whole 64-bit word, `(word >> 11) * 2**-53`, and leaves the kept half alone. choice with p
searches the normalised cumulative sum for each double. tests/test_rawdraws.py holds these
against numpy's own calls.
"""

from __future__ import annotations

import numpy as np

_CHUNK_WORDS = 1 << 14
_U32 = 0xFFFFFFFF
_DOUBLE_UNIT = 1.0 / 9007199254740992.0  # 2**-53
_FLOYD_MAX = 10_000  # choice without replacement from more values may take another path


class RawDraws:
    """Draws from rng's stream, exactly as rng would make them; call close() before rng
    draws again itself (use it as a context manager)."""

    def __init__(self, rng: np.random.Generator):
        state = rng.bit_generator.state
        if state["bit_generator"] != "PCG64":
            raise ValueError(f"RawDraws follows PCG64 only; got {state['bit_generator']}")
        self._rng = rng
        self._copy = np.random.PCG64()  # read ahead in chunks without moving rng itself
        self._copy.state = state
        self._has32 = bool(state["has_uint32"])
        self._u32 = int(state["uinteger"])
        self._words: list[int] = []
        self._pos = 0
        self._used = 0  # 64-bit words taken so far

    def __enter__(self) -> RawDraws:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _next64(self) -> int:
        if self._pos == len(self._words):
            self._words = self._copy.random_raw(_CHUNK_WORDS).tolist()
            self._pos = 0
        word = self._words[self._pos]
        self._pos += 1
        self._used += 1
        return word

    def _next32(self) -> int:
        if self._has32:
            self._has32 = False
            return self._u32
        word = self._next64()
        self._has32 = True
        self._u32 = word >> 32
        return word & _U32

    def integers(self, low: int, high: int) -> int:
        """rng.integers(low, high): one integer in [low, high), a range of at most 2**32."""
        span = high - 1 - low
        if span < 0 or span > _U32:
            raise ValueError(f"range must hold 1 to 2**32 values; got [{low}, {high})")
        if span == 0:
            return low
        if span == _U32:
            return low + self._next32()
        excl = span + 1
        m = self._next32() * excl
        left = m & _U32
        if left < excl:
            threshold = (_U32 - span) % excl
            while left < threshold:
                m = self._next32() * excl
                left = m & _U32
        return low + (m >> 32)

    def random(self, n: int) -> np.ndarray:
        """rng.random(n): n doubles in [0, 1)."""
        words = np.array([self._next64() for _ in range(n)], dtype=np.uint64)
        return (words >> np.uint64(11)) * _DOUBLE_UNIT

    def choice(self, n: int, size: int | None, p: np.ndarray) -> np.ndarray | int:
        """rng.choice(n, size, p=p) for p of n probabilities (an int when size is None)."""
        cdf = p.cumsum()
        cdf /= cdf[-1]
        if size is None:
            return int(cdf.searchsorted(self.random(1)[0], side="right"))
        return cdf.searchsorted(self.random(size), side="right")

    def sample(self, n: int, size: int) -> list[int]:
        """rng.choice(n, size, replace=False).tolist(), for n up to 10,000 (the branch numpy
        takes there: Floyd's algorithm, then a shuffle of the picks)."""
        if not 0 <= size <= n <= _FLOYD_MAX:
            raise ValueError(f"sample takes 0 <= size <= n <= {_FLOYD_MAX}; got {size}, {n}")
        picks: list[int] = []
        taken: set[int] = set()
        for j in range(n - size, n):
            val = self.integers(0, j + 1)
            if val in taken:
                val = j  # Floyd: j itself is new, as every earlier pick is below it
            taken.add(val)
            picks.append(val)
        for i in range(size - 1, 0, -1):  # numpy's _shuffle_int(size, 1, ...)
            k = self.integers(0, i + 1)
            picks[i], picks[k] = picks[k], picks[i]
        return picks

    def samples(self, n: int, size: int, count: int) -> list[list[int]]:
        """[sample(n, size) for _ in range(count)], the draws made as arrays: each is
        Lemire's multiply of one 32-bit word, unless a word falls where Lemire may reject
        it (about 1 in 10^8 here); then, or when a draw takes no word (n == size), the
        words go back and the samples are drawn one by one."""
        if not 0 < size < n <= _FLOYD_MAX or count < 1:
            return [self.sample(n, size) for _ in range(count)]
        # the ranges of a sample's draws: Floyd's (n - size + t + 1), then the shuffle's
        excl = np.array([n - size + t + 1 for t in range(size)] + list(range(size, 1, -1)),
                        dtype=np.uint64)
        saved = (self._copy.state, self._words, self._pos, self._used, self._has32,
                 self._u32)
        prod = self._take32(excl.size * count).reshape(count, excl.size) * excl
        if ((prod & np.uint64(_U32)) < excl).any():
            (self._copy.state, self._words, self._pos, self._used, self._has32,
             self._u32) = saved
            return [self.sample(n, size) for _ in range(count)]
        draws = (prod >> np.uint64(32)).astype(np.int64)
        picks = draws[:, :size].copy()
        for t in range(1, size):  # Floyd: a value picked before gives way to j itself
            taken = (picks[:, :t] == picks[:, t:t + 1]).any(axis=1)
            picks[taken, t] = n - size + t
        rows = np.arange(count)
        for col, i in enumerate(range(size - 1, 0, -1), start=size):  # the shuffle
            k = draws[:, col]
            held = picks[rows, i].copy()
            picks[rows, i] = picks[rows, k]
            picks[rows, k] = held
        return picks.tolist()

    def _take32(self, count: int) -> np.ndarray:
        """The next count 32-bit words as _next32 gives them, as uint64."""
        head = [self._u32] if self._has32 else []
        need = count - len(head)
        words = -(-need // 2)
        rest = self._words[self._pos:self._pos + words]
        if len(rest) < words:
            rest += self._copy.random_raw(words - len(rest)).tolist()
            self._words, self._pos = [], 0
        else:
            self._pos += words
        self._used += words
        raw = np.array(rest, dtype=np.uint64)
        halves = np.empty(2 * words, dtype=np.uint64)
        halves[0::2] = raw & np.uint64(_U32)
        halves[1::2] = raw >> np.uint64(32)
        self._has32 = need % 2 == 1
        if self._has32:
            self._u32 = int(halves[-1])
        return np.concatenate((np.array(head, dtype=np.uint64), halves[:need]))

    def close(self) -> None:
        """Move rng past every word drawn here, with PCG64's kept half as it is now."""
        if self._rng is None:
            return
        bit_generator = self._rng.bit_generator
        if self._used:
            bit_generator.random_raw(self._used)
        state = bit_generator.state
        state["has_uint32"] = int(self._has32)
        state["uinteger"] = self._u32
        bit_generator.state = state
        self._rng = None
