"""C for `aicf_loop.attention` on the cpu target, as its `cpu.attention` schedule says.

Per tile of `block_q` queries (of one batch index; the schedule's `parallel` leading
loops over the batch dims and the query tiles are shared among OpenMP threads):

    Q tile -> f32 (f64 for f64) on the stack; m = -inf, l = 0, acc = 0 per row
    for each tile of `block_k` keys (causal: only up to the tile's last query):
        K (transposed: the products run along the keys) and V tiles -> f32 on the stack
        s = scale * Q K^T (+ mask, -inf where masked or j > i)      block_q x block_k
        m' = max(m, max_j s); p = exp(s - m'); l = l e^(m - m') + sum_j p;
        acc = acc e^(m - m') + p V                                  (the online softmax)
    out = acc / l, 0 where l = 0 (a row masked out entirely, as torch)

so the scores exist one block_q x block_k tile at a time, in a thread's stack: the
work space is (block_q (D + Dv + block_k + 2) + block_k (D + Dv)) elements per thread,
whatever the sequence lengths. A row's max starts at -inf; exp is taken against
m' = 0 while every score so far is -inf, so masked scores give exactly 0 and a NaN
score makes its row NaN (as the max-subtracted softmax does).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType

from aicf.backend.c.emit import Buffer, FuncState, _parallel_for, _schedule, convert, float_literal
from aicf.diagnostics import op_error
from aicf.dialects.loop import AttentionOp

KIND = "cpu.attention"

STACK_BYTES = 1 << 18
"""The most a thread's tiles may take on its stack (worker threads get 2 MiB or more)."""


def stack_bytes(bq: int, bk: int, d: int, dv: int, elt_bytes: int) -> int:
    """Q tile, accumulators, scores, K and V tiles, row max and sum (emit_attention's)."""
    return elt_bytes * (bq * (d + dv + bk + 2) + bk * (d + dv))


def _logical_strides(buf: Buffer, perm: Sequence[int] | None) -> list[str]:
    strides = list(buf.strides)
    return strides if perm is None else [strides[p] for p in perm]


def _batch_offset(shape: Sequence[int], strides: Sequence[str], batch: Sequence[str], nb: int) -> str:
    """The offset of batch index `batch` (the output's nb batch dims) into an operand
    whose logical shape is `shape` (batch dims right-aligned, size 1 broadcasting)."""
    own = len(shape) - 2
    terms = []
    for i in range(own):
        if shape[i] == 1 or strides[i] == "0":
            continue
        idx = batch[nb - own + i]
        terms.append(idx if strides[i] == "1" else f"{idx} * {strides[i]}")
    return " + ".join(terms) or "0"


def emit_attention(op: AttentionOp, st: FuncState) -> list[str]:
    sched = _schedule(op, KIND)
    bq, bk, parallel = (int(sched[k]) for k in ("block_q", "block_k", "parallel"))
    q, k, v = (st.bufs[x] for x in (op.q, op.k, op.v))
    out = st.bufs[op.output]
    lq, lk, lv = op.logical_shapes()
    perms = op.perms()
    sq, d = lq[-2:]
    sk, dv = lk[-2], lv[-1]
    oshape = out.shape
    nb = len(oshape) - 2
    elt = q.elt
    ct_attr = Float64Type() if isinstance(elt, Float64Type) else Float32Type()
    ct = "double" if isinstance(ct_attr, Float64Type) else "float"
    exp = "exp" if ct == "double" else "aicf_expf"
    ninf = f"(({ct})-INFINITY)"
    head = f"/* {op.name} [{'x'.join(map(str, oshape))}] Sq={sq} Sk={sk} D={d} Dv={dv}" + (
        " causal" if op.is_causal else "") + f", tiles {bq}x{bk} */"  # fmt: skip
    if 0 in oshape:
        return [head]
    # a tile longer than its sequence is the whole sequence (as the planner sizes them);
    # what is left must fit a thread's stack, or a hand-written schedule overflows it
    bq, bk = min(bq, max(sq, 1)), min(bk, max(sk, 1))
    need = stack_bytes(bq, bk, max(d, 1), max(dv, 1), 8 if ct == "double" else 4)
    if need > STACK_BYTES:
        raise op_error(op, f"the {KIND} tiles {bq}x{bk} (head dims {d}, {dv}) take {need} bytes of "
                       f"stack per thread, more than {STACK_BYTES}: take smaller block_q or block_k")
    ntq = -(-sq // bq)
    batch = [f"b{i}" for i in range(nb)]
    qs, ks, vs = (_logical_strides(b, p) for b, p in zip((q, k, v), perms))
    os_ = list(out.strides)
    qoff = _batch_offset(lq, qs, batch, nb)
    koff = _batch_offset(lk, ks, batch, nb)
    voff = _batch_offset(lv, vs, batch, nb)
    ooff = _batch_offset(oshape, os_, batch, nb)

    def at(buf: Buffer, base: str, strides: Sequence[str], i: str, j: str) -> str:
        r, c = strides[-2:]
        return f"{buf.ptr}[{base} + ({i}) * {r} + ({j}) * {c}]"

    def load(buf: Buffer, base: str, strides: Sequence[str], i: str, j: str) -> str:
        return convert(at(buf, base, strides, i, j), buf.elt, ct_attr)

    body = [
        "const int64_t i0 = qt * %d;" % bq,
        f"const int64_t nq = {sq} - i0 < {bq} ? {sq} - i0 : {bq};",
        f"{ct} qt_[{bq}][{max(d, 1)}], acc[{bq}][{max(dv, 1)}], s[{bq}][{bk}], "
        f"kt_[{max(d, 1)}][{bk}], vt_[{bk}][{max(dv, 1)}];",
        f"{ct} mrow[{bq}], lrow[{bq}];",
        "for (int64_t i = 0; i < nq; ++i) {",
        f"  for (int64_t c = 0; c < {d}; ++c) qt_[i][c] = {load(q, qoff, qs, 'i0 + i', 'c')};",
        f"  mrow[i] = {ninf}; lrow[i] = 0;",
        f"  for (int64_t e = 0; e < {dv}; ++e) acc[i][e] = 0;",
        "}",
        f"const int64_t kend = {'i0 + nq < %d ? i0 + nq : %d' % (sk, sk) if op.is_causal else sk};",
        f"for (int64_t j0 = 0; j0 < kend; j0 += {bk}) {{",
        f"  const int64_t nk = kend - j0 < {bk} ? kend - j0 : {bk};",
        f"  if (nk < {bk}) for (int64_t c = 0; c < {d}; ++c) for (int64_t j = nk; j < {bk}; ++j) kt_[c][j] = 0;",
        "  for (int64_t j = 0; j < nk; ++j) {",
        f"    for (int64_t c = 0; c < {d}; ++c) kt_[c][j] = {load(k, koff, ks, 'j0 + j', 'c')};",
        f"    for (int64_t e = 0; e < {dv}; ++e) vt_[j][e] = {load(v, voff, vs, 'j0 + j', 'e')};",
        "  }",
        # s = Q K^T, vectorised along the keys (K's tile is stored transposed: no
        # horizontal sum per score), over the whole tile width (a constant trip
        # count; the columns past nk are zeros, never read)
        *("  " + x for x in _row_blocks(lambda rows: [
            "#pragma omp simd",
            f"for (int64_t j = 0; j < {bk}; ++j) {{ " + " ".join(f"s[{r}][j] = 0;" for r in rows) + " }",
            f"for (int64_t c = 0; c < {d}; ++c) {{",
            *(f"  const {ct} q{n} = qt_[{r}][c];" for n, r in enumerate(rows)),
            "  #pragma omp simd",
            f"  for (int64_t j = 0; j < {bk}; ++j) {{ "
            + " ".join(f"s[{r}][j] += q{n} * kt_[c][j];" for n, r in enumerate(rows)) + " }",
            "}",
        ])),
        # the online softmax, a row at a time: the row max as a vectorised max with a
        # NaN flag (a NaN score makes the row NaN), then p = exp(s - max)
        "  for (int64_t i = 0; i < nq; ++i) {",
        "    " + f"{ct} mx = mrow[i];",
        "    int nan = mx != mx;",
        "    #pragma omp simd reduction(max:mx) reduction(|:nan)",
        "    for (int64_t j = 0; j < nk; ++j) {",
        f"      {ct} x = s[i][j] * ({ct}){float_literal(op.scale_value, Float64Type())};",
        *("      " + s for s in _mask_lines(op, st, ct_attr, ninf, batch, nb, sq, sk)),
        *([f"      x = j0 + j > i0 + i ? {ninf} : x;"] if op.is_causal else []),
        "      s[i][j] = x;",
        "      nan |= x != x;",
        "      mx = x > mx ? x : mx;",
        "    }",
        f"    if (nan) mx = ({ct})NAN;",
        f"    const {ct} shift = mx == {ninf} ? 0 : mx;",
        f"    const {ct} corr = {exp}(mrow[i] - shift);",
        f"    {ct} lsum = 0;",
        "    #pragma omp simd reduction(+:lsum)",
        "    for (int64_t j = 0; j < nk; ++j) {",
        f"      const {ct} p = {exp}(s[i][j] - shift);",
        "      s[i][j] = p; lsum += p;",
        "    }",
        "    lrow[i] = lrow[i] * corr + lsum; mrow[i] = mx;",
        "    #pragma omp simd",
        f"    for (int64_t e = 0; e < {dv}; ++e) acc[i][e] *= corr;",
        "  }",
        # acc += p V, vectorised along the value dims
        *("  " + x for x in _row_blocks(lambda rows: [
            "for (int64_t j = 0; j < nk; ++j) {",
            *(f"  const {ct} p{n} = s[{r}][j];" for n, r in enumerate(rows)),
            "  #pragma omp simd",
            f"  for (int64_t e = 0; e < {dv}; ++e) {{ "
            + " ".join(f"acc[{r}][e] += p{n} * vt_[j][e];" for n, r in enumerate(rows)) + " }",
            "}",
        ])),
        "}",
        "for (int64_t i = 0; i < nq; ++i) {",
        f"  const {ct} inv = lrow[i] == 0 ? 0 : 1 / lrow[i];",
        f"  for (int64_t e = 0; e < {dv}; ++e)",
        f"    {at(out, ooff, os_, 'i0 + i', 'e')} = {convert('(acc[i][e] * inv)', ct_attr, out.elt)};",
        "}",
    ]
    loops = [(b, e) for b, e in zip(batch, oshape[:nb])] + [("qt", ntq)]
    lines: list[str] = []
    pad = ""
    if parallel:
        lines.append(f"#pragma {_parallel_for(min(parallel, len(loops)))}")
    for name, extent in loops:
        lines.append(f"{pad}for (int64_t {name} = 0; {name} < {extent}; ++{name}) {{")
        pad += "  "
    lines += [pad + s for s in body]
    for _ in loops:
        pad = pad[:-2]
        lines.append(pad + "}")
    return [head, "{", *("  " + s for s in lines), "}"]


ROWS = 4
"""Query rows whose products share each load of a K or V tile row (register blocking:
one load feeds ROWS multiply-adds)."""


def _row_blocks(body) -> list[str]:
    """`body(rows)` for the tile's rows in blocks of ROWS, then one at a time."""
    out = ["{", "  int64_t i = 0;", f"  for (; i + {ROWS} <= nq; i += {ROWS}) {{"]
    out += ["    " + x for x in body(["i"] + [f"i + {r}" for r in range(1, ROWS)])]
    out += ["  }", "  for (; i < nq; ++i) {", *("    " + x for x in body(["i"])), "  }", "}"]
    return out


def _mask_lines(op: AttentionOp, st: FuncState, ct_attr, ninf: str, batch: Sequence[str], nb: int,
                sq: int, sk: int) -> list[str]:  # fmt: skip
    """The mask's effect on the score x at query i0 + i, key j0 + j."""
    if op.mask is None:
        return []
    m = st.bufs[op.mask]
    shape, strides = m.shape, list(m.strides)
    # right-align the mask against [batch..., Sq, Sk]; size-1 dims broadcast
    full = (1,) * (nb + 2 - len(shape)) + tuple(shape)
    fstr = ["0"] * (nb + 2 - len(shape)) + strides
    fstr = ["0" if e == 1 else s for e, s in zip(full, fstr)]
    off = _batch_offset(full, fstr, batch, nb)
    r, c = fstr[-2:]
    terms = [t for t in (off, f"(i0 + i) * {r}" if r != "0" else "", f"(j0 + j) * {c}" if c != "0" else "") if t and t != "0"]
    value = f"{m.ptr}[{' + '.join(terms) or '0'}]"
    if m.elt == IntegerType(1):
        return [f"x = {value} ? x : {ninf};"]
    return [f"x += {convert(value, m.elt, ct_attr)};"]
