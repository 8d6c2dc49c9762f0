"""The scan strategy: long sequences and small k, at nearly the speed of one read.

A sequence is read in segments.  For each segment the maximum key of every
block of ``BLOCK`` elements is taken, vectorised (straight from the input at
unit stride, through a small key tile otherwise).  A block whose maximum is
below the acceptance bound ``lo`` is skipped whole; only the elements of the
others have their keys computed again and become candidates.  ``lo`` rises two
ways: when the candidate buffer (``2k`` entries, at least ``MIN_BUFFER``)
fills, it is compacted to its k best and ``lo`` becomes one above the worst
kept key (later elements that tie it have higher indices and lose); and when a
segment has at least k blocks, a bound at or just below the k-th largest block
maximum is a lower bound of the k-th best key (k blocks each hold an element at
least that large).  For k up to ``SORTED_K`` that maximum is found exactly by
insertion, or, when there are many maxima, the k-th largest of the maxima of
groups of them is taken instead (a few blocks looser, and cheaper than the
exact one); above, a radix select over the maxima (``RADIX_BITS`` per pass)
stops at a bucket reached by k to k - 1 + ``BOUND_SLACK`` maxima, linear in the
block count and a few blocks looser at most.  A sequence of several segments
starts from such a bound taken over a sample of its segments (the last and the
middle one, more for a large k), so input that rises along it is refused from
the start.  Sorted, constant or adversarial input therefore stays linear.  A
sample of a few segments may also give a tighter, *hoped-for* first bound (see
HOPE_MIN_SAMPLES), checked at the end: when it let in fewer than k candidates,
the sequence is scanned again from the sure one.

Where many blocks are expected to qualify (a large k against the segment), the
maxima pass also keeps each *band* of ``BAND_ROWS`` rows' block maxima apart, and
only the bands of a block that reach the bound are read: about a third of its
elements instead of all.

One sequence too long for one thread is cut into parts, each scanned like a
sequence of its own (:func:`topk_scan_rows` on the parts, sorting their k best),
and the parts' sorted runs are merged by :func:`merge_parts`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .keys import cast_like, fill_keys, max_keys_into, order_key
from .select import SORTED_K, finish_best, insert_word, out_place, partition_best, write_row

__all__ = ["BLOCK", "MIN_BUFFER", "SEGMENT_BYTES", "UNIT_SEGMENT",
           "merge_parts", "topk_scan_rows"]

#: elements per block whose maximum bounds them all.
BLOCK = 16
#: keys per segment tile at other strides: 32 KiB, so a tile stays in L1 while scanned.
SEGMENT_BYTES = 32768
#: elements per segment at unit stride, where block maxima come straight from the
#: input: more blocks per segment give tighter bounds (measured best at 32K).
UNIT_SEGMENT = 32768
#: the smallest candidate buffer: for tiny k, compacting every 2k candidates costs more
#: than the few extra candidates a larger buffer holds.
MIN_BUFFER = 64
#: sequences of at least this many segments first take a bound from a sample of
#: segments spread over the sequence (the last, the middle, ...), which then costs at
#: most 1/8 of one extra read (from 4 segments on, the (32, 128000) sampling rows read
#: half again as much) ...
SAMPLE_MIN_SEGMENTS = 16
#: ... two segments, and one more per SAMPLE_K of k, up to SAMPLE_MAX: a bound
#: from s segments lets about k / s blocks qualify in each segment until the running
#: k best catch up, k more blocks each time the scanned length doubles.  Measured,
#: float16 (1, 10M) k=1000, one part of 5M: 7370 qualifying blocks with 2 segments,
#: 4270 with 15 (each costs about 45 ns of checks; a sampled segment about 4 us).
SAMPLE_K = 64
SAMPLE_MAX = 16


@njit(inline="always")
def _samples(n, seg, k):
    """How many segments (of at most ``seg`` elements) of a sequence of ``n`` give its
    first bound."""
    parts = (n + seg - 1) // seg
    if parts < SAMPLE_MIN_SEGMENTS:
        return 0
    return max(2, min(k // SAMPLE_K, SAMPLE_MAX, parts // 8))


@njit(inline="always")
def _block_layout(m):
    """(blocks, rows): block j of a segment holds elements r * blocks + j.

    Rows are vectorised across blocks; a block count that is a multiple of 64
    leaves no scalar remainder in any full row (an odd count like 511 ran the
    whole scan 3x slower).
    """
    blocks = max(1, m // BLOCK)
    if blocks >= 128:
        blocks -= blocks % 64
    return blocks, (m + blocks - 1) // blocks


#: rows of a segment's layout whose block maxima are also kept apart (a *band*), when k
#: is at least BAND_MIN_K: the candidates of a block are then looked for only in the
#: bands of it that reach the bound, usually one of three (each candidate check is a
#: scalar read of a line the maxima pass left in L2; with k = 100 of 10000 they were
#: half the row's time) ...
BAND_ROWS = 6
#: ... for k from this on (below, the few blocks checked cost less than keeping bands),
#: in segments where at least one block in BAND_SHARE is expected to qualify (k in a
#: sequence's first segment, then as many as in the one before): where the bound is
#: already tight, the bands' upkeep in the maxima pass is all cost (measured: 12-15%
#: slower on (32, 128000) k=50 and (1, 10M) k=1000 with bands in every segment).
BAND_MIN_K = 24
BAND_SHARE = 16
#: a band_rows that makes one band of any segment.
_ONE_BAND = 1 << 30
#: the most bands a segment has: its layout has at most 32 rows (see :func:`_block_layout`).
_MAX_BANDS = -(-32 // BAND_ROWS)


@njit(inline="always")
def _band_count(rows, band_rows):
    return (rows + band_rows - 1) // band_rows


@njit(inline="always")
def _fold_bands(bands, blocks, nb, bmax):
    """``bmax[j]``: the maximum over the ``nb`` bands of block j."""
    head = bmax[:blocks]
    head[:] = bands[:blocks]
    for g in range(1, nb):
        band = bands[g * blocks:(g + 1) * blocks]
        for j in range(blocks):
            head[j] = max(head[j], band[j])


@njit(inline="always")
def _block_maxima(tile, m, bmax, bands, band_rows, least):
    """Maximum of every (interleaved) block, a vertical max over rows in SIMD, into
    ``bmax``; with more than one band, each band's too, into ``bands``."""
    blocks, rows = _block_layout(m)
    nb = _band_count(rows, band_rows)
    for g in range(nb):
        head = bmax[:blocks] if nb == 1 else bands[g * blocks:(g + 1) * blocks]
        head[:] = least
        for r in range(g * band_rows, min(rows, (g + 1) * band_rows)):
            row = tile[r * blocks:min((r + 1) * blocks, m)]
            part = head[:row.shape[0]]
            for j in range(row.shape[0]):
                part[j] = max(part[j], row[j])
    if nb > 1:
        _fold_bands(bands, blocks, nb, bmax)
    return blocks, rows


@njit(inline="always")
def _source_maxima(src, m, kind, sign, absmask, nanbound, ones, flip, bmax, bands, band_rows):
    """:func:`_block_maxima` of the keys of ``src[:m]`` (unit stride), without a tile."""
    blocks, rows = _block_layout(m)
    nb = _band_count(rows, band_rows)
    for g in range(nb):
        head = bmax[:blocks] if nb == 1 else bands[g * blocks:(g + 1) * blocks]
        head[:] = cast_like(0, sign)  # the least key
        for r in range(g * band_rows, min(rows, (g + 1) * band_rows)):
            row = src[r * blocks:min((r + 1) * blocks, m)]
            max_keys_into(row, row.shape[0], head, kind, sign, absmask, nanbound, ones, flip)
    if nb > 1:
        _fold_bands(bands, blocks, nb, bmax)
    return blocks, rows


#: the bound for k > SORTED_K is found RADIX_BITS bits at a time (a histogram of
#: 2**RADIX_BITS buckets of the block maxima per level) ...
RADIX_BITS = 10
#: ... until the bucket holding the k-th largest maximum has at most this many values:
#: each one beyond the k-th is at most one more block whose elements are checked.
BOUND_SLACK = 16


@njit(inline="always")
def _bit_length(v):
    """Bits of the unsigned ``v`` (0 for 0)."""
    b = 0
    one = cast_like(1, v)
    while v != cast_like(0, v):
        v = cast_like(v >> one, v)
        b += 1
    return b


@njit
def _radix_bound(vals, m, k, counts):
    """A lower bound of the k-th largest of ``vals[:m]`` (1 <= k <= m) that at least k
    values reach, and at most about BOUND_SLACK values more than the k-th largest does.

    A radix select on the values' range, RADIX_BITS bits at a time: the buckets
    are counted from the top until they hold k values, and the bucket where that
    happens is split again while it holds more than BOUND_SLACK values.  Each level
    is one branch-free pass over ``vals``; on block maxima of random rows one level
    is nearly always enough (m = 576, k = 100: 0.4 us against 1.6 us for a
    quickselect of (key, position) pairs, and 1.5 extra blocks on average).
    ``counts`` holds at least 2**RADIX_BITS + 2 entries.
    """
    lo = hi = vals[0]
    for i in range(1, m):
        v = vals[i]
        lo = min(lo, v)
        hi = max(hi, v)
    one = cast_like(1, lo)
    need = k
    while True:
        span = cast_like(hi - lo, lo)
        shift = cast_like(max(0, _bit_length(span) - RADIX_BITS), lo)
        top = np.int64(span >> shift)  # the last bucket; top + 1 counts the values outside
        counts[:top + 2] = 0
        for i in range(m):
            v = vals[i]
            inside = (v >= lo) & (v <= hi)
            at = np.int64(cast_like(v - lo, lo) >> shift)
            counts[at if inside else top + 1] += 1
        b = top
        while counts[b] < need:
            need -= counts[b]
            b -= 1
        base = cast_like(lo + (cast_like(b, lo) << shift), lo)
        if shift == cast_like(0, lo) or counts[b] <= BOUND_SLACK:
            return base
        width = cast_like((one << shift) - one, lo)
        if cast_like(hi - base, lo) > width:  # not base + width > hi: that can wrap past the top
            hi = cast_like(base + width, lo)
        lo = base


#: values per group in :func:`_bound_by_groups`.
GROUP = 8


@njit(inline="always")
def _insert_range(scratch, count, k, vals, start, stop):
    """Insert ``vals[start:stop]`` into the k best so far, ``scratch[:count]``."""
    for i in range(start, stop):
        count = insert_word(scratch, count, k, vals[i])
    return count


@njit(inline="always")
def _bound_by_groups(vals, m, k, scratch):
    """The k-th largest of the maxima of ``m // GROUP`` groups of ``vals[:m]``, by
    insertion into ``scratch`` (which holds k + m // GROUP).  Used when
    m >= 4 * GROUP * k.

    Group g holds ``vals[r * groups + g]`` for r < GROUP; the group maxima are one
    vectorised pass.  k groups hold a value at least as large, so this is a lower
    bound of the k-th largest value that k values reach; on random block maxima it
    lets in a few more blocks than the k-th largest itself would.  Finding that
    (inserting the values of the groups that reach this bound) cost more than the
    extra blocks: measured, (1000, 10000) rows, two threads, k = 10 2.86 -> 2.55 ms,
    k = 16 3.41 -> 2.91, float16 k = 10 2.14 -> 1.79; groups of 4 or 16 were slower.
    """
    groups = m // GROUP
    gmax = scratch[k:k + groups]
    gmax[:] = vals[:groups]
    for r in range(1, GROUP):
        row = vals[r * groups:(r + 1) * groups]
        for g in range(groups):
            gmax[g] = max(gmax[g], row[g])
    _insert_range(scratch, 0, k, gmax, 0, groups)
    return scratch[k - 1]


@njit
def _kth_bound(vals, m, k, scratch, counts):
    """A lower bound of the k-th largest of ``vals[:m]`` (1 <= k <= m) that k of them
    reach.  For k <= SORTED_K: the k-th largest itself (by insertion into ``scratch``,
    which holds k + m // GROUP), or when m is at least 4 * GROUP * k, the k-th largest
    of group maxima (:func:`_bound_by_groups`); above, :func:`_radix_bound`."""
    if k > SORTED_K:
        return _radix_bound(vals, m, k, counts)
    if m >= 4 * GROUP * k:
        return _bound_by_groups(vals, m, k, scratch)
    _insert_range(scratch, 0, k, vals, 0, m)
    return scratch[k - 1]


@njit
def _segment_maxima(flat, base, stride, s0, m, kind, sign, absmask, nanbound, ones, flip,
                    tile, bmax, bands, band_rows):
    """Block maxima of the segment ``s0 .. s0+m-1`` into ``bmax`` (and, with more than
    one band of ``band_rows`` rows, each band's into ``bands``); returns (blocks, rows).

    At unit stride they come straight from the input; at other strides through the
    key ``tile``, which the scan then reads its candidates' keys from.  Called, not
    inlined (like :func:`_kth_bound`): once per segment, and the scan compiles in
    12.5 s per key width instead of 14-16 s, with no slower row.
    """
    if stride == 1:
        start = base + s0
        return _source_maxima(flat[start:start + m], m, kind, sign, absmask, nanbound, ones,
                              flip, bmax, bands, band_rows)
    fill_keys(flat, base, stride, s0, m, tile, kind, sign, absmask, nanbound, ones, flip)
    return _block_maxima(tile, m, bmax, bands, band_rows, cast_like(0, sign))


@njit(inline="always")
def _qualifying(bmax, blocks, lo, hits):
    """Blocks whose maximum reaches ``lo``, into ``hits``; returns their count.

    Branch-free (every j is written, and kept by advancing past it): on random rows
    about one block in five qualifies, and the branch's mispredictions made this
    pass cost a third of the maxima pass (k = 100 of 10000)."""
    h = 0
    for j in range(blocks):
        hits[h] = j
        h += bmax[j] >= lo
    return h


@njit(inline="always")
def _qualifying_among(bmax, among, lo, hits):
    """The blocks of ``among`` whose maximum in ``bmax`` reaches ``lo``, into ``hits``
    (branch-free, like :func:`_qualifying`); returns their count."""
    h = 0
    for t in range(among.shape[0]):
        j = among[t]
        hits[h] = j
        h += bmax[j] >= lo
    return h


@njit(inline="always")
def _after(hits, h, j):
    """The first position in the ascending ``hits[:h]`` whose block is after ``j``."""
    lo, hi = 0, h
    while lo < hi:
        mid = (lo + hi) >> 1
        if hits[mid] <= j:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(inline="always")
def _worst_key(ckeys, k):
    worst = ckeys[0]
    for j in range(1, k):
        v = ckeys[j]
        worst = v if v < worst else worst
    return worst


#: a sample of at least HOPE_MIN_SAMPLES segments may give a *hoped-for* first bound:
#: s of a sequence's S segments hold about k * s / S of its k best, so the bound that
#: many of the sample's block maxima reach (plus HOPE_SIGMAS standard deviations, plus
#: HOPE_SLACK) is very likely below the k-th best, and far above the sure bound (the
#: one k maxima reach).  A scan from it that finds fewer than k candidates runs again
#: from the sure bound, so no result depends on the hope; and the hope is not taken
#: when one sampled segment holds more of the maxima that reach it than a spread sample
#: would (rising input, whose k best are all in the last segment).  Measured, (1, 10M)
#: k=1000 on 2 threads (15 sampled segments per 5M part, the hope at rank 142 of their
#: 30K maxima, not 1000): float16 1.18 -> 1.04 ms, float32 1.50 -> 1.33, int32 1.30 ->
#: 1.15; ascending and interleaved ascending (no hope taken) 2-4% slower.
HOPE_MIN_SAMPLES = 4
HOPE_SIGMAS = 4.0
HOPE_SLACK = 4


@njit(inline="always")
def _beyond_chance(count, share):
    """Whether ``count`` is more than a spread sample puts at an expected ``share``."""
    return count > share + HOPE_SIGMAS * np.sqrt(share) + HOPE_SLACK


@njit(inline="always")
def _hope_rank(k, sampled, n):
    """How many of the block maxima of ``sampled`` of ``n`` elements a hoped-for first
    bound has at or above it."""
    share = k * sampled / n
    return np.int64(share + HOPE_SIGMAS * np.sqrt(share)) + HOPE_SLACK


@njit(inline="always")
def _most_in_one(bmax, first, blocks, ns, hope):
    """The most of the sample's block maxima at or above ``hope`` in one sampled segment
    (the first segment's ``first`` maxima, then ``blocks`` for each of the others)."""
    most = start = 0
    for s in range(ns):
        size = first if s == 0 else blocks
        count = 0
        for j in range(start, start + size):
            count += bmax[j] >= hope
        most = max(most, count)
        start += size
    return most


@njit(inline="always")
def _hoped_bound(bmax, in_sample, blocks, k, n, ns, step, parts, lo, scratch, counts):
    """A hoped-for first bound above the sure one ``lo`` (see HOPE_MIN_SAMPLES), or
    ``lo`` when the sample is too small or not spread."""
    rank = _hope_rank(k, ns * step, n)
    if ns < HOPE_MIN_SAMPLES or rank >= k or rank > in_sample:
        return lo
    hope = _kth_bound(bmax, in_sample, rank, scratch, counts)
    if hope <= lo:
        return lo
    first = _block_layout(n - (parts - 1) * step)[0]  # the last segment, sampled first
    if _beyond_chance(_most_in_one(bmax, first, blocks, ns, hope), rank / ns):
        return lo
    return hope


@njit(nogil=True, cache=True)
def scan_sequence(flat, base, stride, n, k, seg, kind, sign, absmask, nanbound, ones, flip,
                  tile, bmax, bands, band_rows, hits, scratch, counts, ckeys, cidx):
    """Candidates for the k best keys of the ``n`` elements of one sequence.

    Returns how many (key, index) pairs are in ``ckeys``/``cidx``: at least
    ``min(k, n)``, and among them the k best.  Qualifying blocks are read row by
    row (a band of ``band_rows`` rows at a time, each band's qualifying blocks
    its own), so candidates arrive in increasing index order and a key equal to
    the worst kept one can be refused.
    """
    unit = stride == 1
    parts = (n + seg - 1) // seg
    step = (n + parts - 1) // parts  # equal segments, none of them a short tail
    least = cast_like(0, sign)
    # Steps -ns .. -1 sample segments spread from the last one back (their block maxima
    # side by side in bmax) for a first bound; steps 0.. scan the segments.  One loop,
    # one call site for the maxima.
    ns = _samples(n, seg, k)
    first, sure = -ns, least
    while True:  # a second time only when a hoped-for first bound let in fewer than k
        c, sure, done, hoping = _scan_steps(flat, base, stride, n, k, kind, sign, absmask,
                                          nanbound, ones, flip, tile, bmax, bands, band_rows,
                                          hits, scratch, counts, ckeys, cidx, unit, parts,
                                          step, ns, first, sure)
        if done or c >= k or not hoping:
            return c
        first = 0


@njit(inline="always")
def _scan_steps(flat, base, stride, n, k, kind, sign, absmask, nanbound, ones, flip, tile, bmax,
                bands, band_rows, hits, scratch, counts, ckeys, cidx, unit, parts, step, ns,
                first, lo):
    """Steps ``first ..`` of :func:`scan_sequence` from the bound ``lo``; returns
    (c, sure, done, hoping): ``sure`` is the bound the sample gave, and ``hoping``
    says the scan used a higher one (see :func:`_hope_rank`), which may have let in
    fewer than k."""
    c = 0
    least = cast_like(0, sign)
    sampled = in_sample = 0
    hoping = False
    sure = lo
    expect = k  # blocks expected to qualify in the next segment: then as many as last time
    for it in range(first, parts):
        s0 = it * step if it >= 0 else (parts - 1 - ((it + ns) * parts) // ns) * step
        m = min(step, n - s0)
        seg_rows = _ONE_BAND
        if it >= 0 and BAND_SHARE * expect >= _block_layout(m)[0]:
            seg_rows = band_rows
        blocks, rows = _segment_maxima(flat, base, stride, s0, m, kind, sign, absmask,
                                       nanbound, ones, flip, tile, bmax[sampled:], bands,
                                       seg_rows)
        if it < 0:
            sampled += blocks
            if it < -1:
                continue
            in_sample, sampled = sampled, 0  # the scan's maxima go to the front of bmax
            count = in_sample if in_sample >= k else 0
        elif lo == least and blocks > k:  # every block reaches the least key: no pass
            h = count = blocks
        else:
            h = _qualifying(bmax, blocks, lo, hits)
            count = blocks if h > k and blocks >= k else 0
        if count > 0:
            bound = _kth_bound(bmax, count, k, scratch, counts)
            if bound > lo:
                lo = bound
            if it >= 0:
                h = _qualifying(bmax, blocks, lo, hits)
        if it < 0:
            sure = lo
            lo = _hoped_bound(bmax, in_sample, blocks, k, n, ns, step, parts, lo, scratch,
                              counts)
            hoping = lo > sure
            continue
        expect = h
        nb = _band_count(rows, seg_rows)
        if nb == 1:
            c, lo, done = _scan_band(flat, base + s0, s0, m, blocks, 0, rows, unit, k, kind,
                                     sign, absmask, nanbound, ones, flip, tile, bmax[:blocks],
                                     hits, h, lo, ckeys, cidx, c)
            if done:
                return c, sure, True, hoping
            continue
        # A band's qualifying blocks are among the segment's (the bound only rises), so
        # they are picked from those h, not from every block again.
        among = hits[:h]
        band_hits = hits[blocks:]
        for g in range(nb):
            band = bands[g * blocks:(g + 1) * blocks]
            hb = _qualifying_among(band, among, lo, band_hits)
            c, lo, done = _scan_band(flat, base + s0, s0, m, blocks, g * seg_rows,
                                     min(rows, (g + 1) * seg_rows), unit, k, kind, sign,
                                     absmask, nanbound, ones, flip, tile, band, band_hits, hb,
                                     lo, ckeys, cidx, c)
            if done:
                return c, sure, True, hoping
    return c, sure, False, hoping


@njit(inline="always")
def _scan_band(flat, start, s0, m, blocks, r, r_end, unit, k, kind, sign, absmask, nanbound,
               ones, flip, tile, band, hits, h, lo, ckeys, cidx, c):
    """Candidates from rows ``r .. r_end-1`` of a segment (elements from ``flat[start]``,
    or keys in ``tile``), in the ``h`` blocks ``hits`` whose maximum in ``band`` reached
    ``lo``; returns (c, lo, done): done when the k best are all the largest key."""
    cap = ckeys.shape[0]
    t0 = 0
    while r < r_end:
        first = r * blocks
        rose = False
        for t in range(t0, h):
            j = hits[t]
            i = first + j
            if i >= m:
                break
            if unit:
                key = order_key(flat[start + i], kind, sign, absmask, nanbound, ones, flip)
            else:
                key = tile[i]
            if key < lo:
                continue
            ckeys[c] = key
            cidx[c] = s0 + i
            c += 1
            if c == cap:
                partition_best(ckeys, cidx, c, k)
                c = k
                worst = _worst_key(ckeys, k)
                if worst == ones:
                    return c, lo, True
                nxt = cast_like(worst + cast_like(1, sign), sign)
                if nxt > lo:
                    # The bound rose: drop the blocks that no longer reach it, and go on
                    # after block j of this row (tie-heavy input would otherwise visit
                    # every element).
                    lo = nxt
                    h = _qualifying(band, blocks, lo, hits)
                    t0 = _after(hits, h, j)
                    rose = True
                    break
        if not rose:
            r, t0 = r + 1, 0
    return c, lo, False


@njit(inline="always")
def scan_buffers(flat, stride, n, k, seg):
    """The working arrays :func:`scan_sequence` needs for sequences of ``n`` elements of
    ``flat``'s type: (tile, bmax, bands, band_rows, hits, scratch, counts, ckeys, cidx)."""
    cap = max(2 * k, MIN_BUFFER)
    longest = min(n, seg)
    blocks = longest // BLOCK + 64
    tile = np.empty(1 if stride == 1 else longest, flat.dtype)
    # the first bound's sampled segments side by side (at least two blocks' worth)
    bmax = np.empty(max(2, _samples(n, seg, k)) * blocks, flat.dtype)
    band_rows = BAND_ROWS if k >= BAND_MIN_K else _ONE_BAND
    bands = np.empty(_MAX_BANDS * blocks if k >= BAND_MIN_K else 1, flat.dtype)
    hits = np.empty(2 * blocks, np.int64)
    scratch = np.empty(2 * blocks, flat.dtype)  # >= SORTED_K + (2 * blocks) // GROUP
    counts = np.empty((1 << RADIX_BITS) + 2, np.int64)
    return (tile, bmax, bands, band_rows, hits, scratch, counts, np.empty(cap, flat.dtype),
            np.empty(cap, np.int64))


@njit(nogil=True, cache=True)
def topk_scan_rows(flat, offs, stride, n, k, q0, q1, inner, seg, do_sort, kind, sign, absmask,
                   nanbound, ones, flip, out_vals, out_idx):
    """The scan strategy for sequences ``q0 .. q1-1``, each of length ``n``."""
    tile, bmax, bands, band_rows, hits, scratch, counts, ckeys, cidx = scan_buffers(
        flat, stride, n, k, seg)
    for q in range(q0, q1):
        base = offs[q]
        c = scan_sequence(flat, base, stride, n, k, seg, kind, sign, absmask, nanbound, ones,
                          flip, tile, bmax, bands, band_rows, hits, scratch, counts, ckeys,
                          cidx)
        if c < k:
            raise RuntimeError("axisops internal error: scan kept fewer than k candidates")
        finish_best(ckeys, cidx, c, k, do_sort)
        write_row(flat, base, stride, cidx, k, q, inner, out_vals, out_idx)


@njit(nogil=True, cache=True)
def merge_parts(cvals, cidx, bounds, k, q, inner, kind, sign, absmask, nanbound, ones, flip,
                out_vals, out_idx):
    """Row ``q`` from the parts' sorted best: part p's are ``cvals``/``cidx`` over
    ``bounds[p] .. bounds[p+1]-1`` (elements' bits and their indices in the whole
    sequence, best first; the parts in index order, at least k in all).

    A merge of sorted runs, O(k * parts): it reads no input, so a sequence's end
    costs nothing for what the scan left out of the caches (recomputing the
    candidates' keys from the input, and selecting and sorting them again, took
    80 us of a 1.2 ms float16 (1, 10M) k=1000).  Equal keys go to the earlier part,
    whose indices are lower.
    """
    parts = bounds.shape[0] - 1
    if bounds[parts] < k:
        raise RuntimeError("axisops internal error: parts kept fewer than k candidates")
    heads = bounds[:parts].copy()
    keys = np.empty(parts, cvals.dtype)  # the key at each part's head, while it has one
    for p in range(parts):
        if heads[p] < bounds[p + 1]:
            keys[p] = order_key(cvals[heads[p]], kind, sign, absmask, nanbound, ones, flip)
    o, col = out_place(q, inner)
    for j in range(k):
        best = -1
        for p in range(parts):
            if heads[p] < bounds[p + 1] and (best < 0 or keys[p] > keys[best]):
                best = p
        at = heads[best]
        out_vals[o, j, col] = cvals[at]
        out_idx[o, j, col] = cidx[at]
        heads[best] = at + 1
        if at + 1 < bounds[best + 1]:
            keys[best] = order_key(cvals[at + 1], kind, sign, absmask, nanbound, ones, flip)
