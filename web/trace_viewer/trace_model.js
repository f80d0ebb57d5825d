// The trace model of the viewer: parses a fasim trace (JSON lines, or the
// Chrome Trace Event JSON that `fasim run --trace` writes) into columns of
// typed arrays, and precomputes what the page shows at any step in constant
// time: cumulative counters, the last tile of each tensor loaded by a block,
// the first step that touched each tile, the watched row's last values.
// No DOM here: node can load this file too (module.exports at the end).
(function (root) {
  'use strict';

  // 'writeback': the L2's step at a kernel's end (block -1), not a block's.
  const KINDS = ['load', 'store', 'matmul', 'softmax', 'rescale', 'writeback'];
  const WRITEBACK = KINDS.indexOf('writeback');
  // Per-step counters the page sums up; [column in the trace, name here].
  const COUNTERS = [
    ['hbm_read_bytes', 'hbmRead'], ['hbm_write_bytes', 'hbmWrite'],
    ['l2_read_bytes', 'l2Read'], ['l2_write_bytes', 'l2Write'], ['l2_hit_bytes', 'l2Hit'],
    ['l2_fabric_bytes', 'l2Fabric'],
    ['dram_read_bytes', 'dramRead'], ['dram_write_bytes', 'dramWrite'],
    ['flops_matmul', 'flopsMatmul'], ['flops_other', 'flopsOther'],
  ];
  const INTS = ['kernel', 'block', 'bh', 'qb', 'kb', 'rows', 'cols', 'row0', 'col0', 'sm'];
  const REALS = ['sram_bytes', 'register_bytes', 'ts_us', 'dur_us'];

  class TraceError extends Error {}

  // The newest trace format this page reads (fasim's trace_version): a newer
  // trace may hold steps it would misread, so it is refused.
  const TRACE_VERSION = 3;
  function checkVersion(meta) {
    const v = meta.trace_version;
    if (v === undefined) return;  // traces before version 2 have none
    if (!Number.isInteger(v) || v < 1) {
      throw new TraceError('trace_version ' + JSON.stringify(v) +
        ' is not a version number (1, 2, 3, ...): write the trace again with fasim');
    }
    if (v > TRACE_VERSION) {
      throw new TraceError('trace_version ' + v + ' is newer than this page reads (up to ' + TRACE_VERSION +
        '): open it in the page of the fasim that wrote it (fasim trace --html)');
    }
  }

  // JSON has no infinities; the writers spell them as strings.
  function real(v) {
    if (typeof v === 'number') return v;
    if (v === 'inf') return Infinity;
    if (v === '-inf') return -Infinity;
    return NaN;
  }

  // Rows of step objects -> columns. `at(i)` gives the i-th step object.
  function columns(meta, count, at) {
    const c = { n: count, meta, kindNames: KINDS, tensorNames: [], whatNames: [] };
    for (const k of INTS) c[k] = new Int32Array(count);
    for (const k of REALS) c[k] = new Float64Array(count);
    for (const [, k] of COUNTERS) c[k] = new Float64Array(count);
    c.kind = new Uint8Array(count);
    c.tensor = new Uint8Array(count);
    c.what = new Int32Array(count);
    c.hasRow = new Uint8Array(count);
    c.rowM = new Float64Array(count);
    c.rowL = new Float64Array(count);
    // Counters the trace does not carry (an older fasim wrote it): not zeros.
    c.absent = new Set();
    if (count > 0) for (const [from, k] of COUNTERS) if (at(0)[from] === undefined) c.absent.add(k);
    const tensorIndex = new Map(), whatIndex = new Map();
    const intern = (map, list, s) => {
      let i = map.get(s);
      if (i === undefined) { i = list.length; list.push(s); map.set(s, i); }
      return i;
    };
    for (let i = 0; i < count; ++i) {
      const s = at(i);
      for (const k of INTS) c[k][i] = s[k] | 0;
      for (const k of REALS) c[k][i] = +s[k] || 0;
      for (const [from, k] of COUNTERS) c[k][i] = +s[from] || 0;
      const kind = KINDS.indexOf(s.kind);
      c.kind[i] = kind < 0 ? 2 : kind;
      c.tensor[i] = intern(tensorIndex, c.tensorNames, String(s.tensor));
      c.what[i] = intern(whatIndex, c.whatNames, String(s.what || ''));
      if (s.has_row) { c.hasRow[i] = 1; c.rowM[i] = real(s.row_m); c.rowL[i] = real(s.row_l); }
    }
    return c;
  }

  function parseJsonl(text) {
    const lines = text.split('\n');
    let meta = null;
    const steps = [];
    for (let i = 0; i < lines.length; ++i) {
      const line = lines[i].trim();
      if (!line) continue;
      let o;
      try { o = JSON.parse(line); } catch (e) { throw new TraceError('line ' + (i + 1) + ' is not JSON (' + e.message + ')'); }
      if (meta === null) {
        if (!o || o.type !== 'meta') throw new TraceError('line ' + (i + 1) + ': a JSON-lines trace starts with {"type":"meta",...}');
        meta = o;
      } else if (o && o.type === 'step') {
        steps.push(o);
      }
    }
    if (meta === null) throw new TraceError('the trace is empty');
    checkVersion(meta);
    return columns(meta, steps.length, (i) => steps[i]);
  }

  function parseChrome(doc) {
    const meta = doc.otherData || {};
    checkVersion(meta);
    const steps = [];
    for (const e of doc.traceEvents) if (e && e.ph === 'X' && e.args && e.args.index !== undefined) steps.push(e);
    steps.sort((a, b) => a.args.index - b.args.index);
    return columns(meta, steps.length, (i) => {
      const e = steps[i];
      return Object.assign({ ts_us: e.ts, dur_us: e.dur }, e.args);
    });
  }

  // Any fasim trace text -> columns. Throws TraceError with one line.
  function parseTrace(text) {
    const start = text.slice(0, 200).trimStart();
    if (start.startsWith('index,kernel,block')) {
      throw new TraceError('CSV traces carry no header (shape, tiles); write the trace with --trace-format jsonl or chrome');
    }
    if (!start.startsWith('{')) throw new TraceError('not a fasim trace: expected JSON lines or a Chrome trace (JSON)');
    const firstLine = start.split('\n')[0];
    if (/"type"\s*:\s*"meta"/.test(firstLine)) return prepare(parseJsonl(text));
    let doc;
    try { doc = JSON.parse(text); } catch (e) { throw new TraceError('not JSON (' + e.message + ')'); }
    if (!doc || !Array.isArray(doc.traceEvents)) throw new TraceError('a JSON trace needs "traceEvents"; is this a fasim trace?');
    return prepare(parseChrome(doc));
  }

  // Precomputation: everything the page needs at step k in O(1).
  function prepare(c) {
    const n = c.n, meta = c.meta, w = meta.workload || {}, m = meta.mapping || {};
    // Running totals, "after step k".
    c.cum = {};
    for (const [, k] of COUNTERS) {
      const a = new Float64Array(n);
      let sum = 0;
      for (let i = 0; i < n; ++i) { sum += c[k][i]; a[i] = sum; }
      c.cum[k] = a;
    }
    // The tile grid: Tr x Tc, grown if a step names a larger block index.
    const N = w.N || 1, Nkv = w.N_kv || N, br = m.br || 1, bc = m.bc || 1;
    let Tr = Math.max(1, Math.ceil(N / br)), Tc = Math.max(1, Math.ceil(Nkv / bc));
    for (let i = 0; i < n; ++i) { Tr = Math.max(Tr, c.qb[i] + 1); Tc = Math.max(Tc, c.kb[i] + 1); }
    c.Tr = Tr; c.Tc = Tc;
    // First step that touched each (kernel, bh, i, j) tile.
    c.firstTouch = new Map();
    for (let i = 0; i < n; ++i) {
      if (c.qb[i] < 0 || c.kb[i] < 0) continue;
      const key = c.kernel[i] + '/' + c.bh[i];
      let cells = c.firstTouch.get(key);
      if (!cells) { cells = new Int32Array(Tr * Tc).fill(0x7fffffff); c.firstTouch.set(key, cells); }
      const cell = c.qb[i] * Tc + c.kb[i];
      if (cells[cell] > i) cells[cell] = i;
    }
    // Tiles hidden by a causal or sliding-window mask (the workload's rule).
    c.masked = new Uint8Array(Tr * Tc);
    const window = w.window || 0, causal = !!w.causal || window > 0;
    if (causal) {
      const off = Nkv - N;
      for (let i = 0; i < Tr; ++i) {
        const r0 = i * br, r1 = Math.min(N, r0 + br) - 1;
        for (let j = 0; j < Tc; ++j) {
          const c0 = j * bc, c1 = Math.min(Nkv, c0 + bc) - 1;
          const hi = Math.min(Nkv - 1, r1 + off), lo = window > 0 ? Math.max(0, r0 + off - window + 1) : 0;
          if (hi < c0 || lo > c1) c.masked[i * Tc + j] = 1;
        }
      }
    }
    // Per step and tensor: the last load of that tensor by the step's block
    // (in the step's kernel), or -1. What the block holds in SRAM.
    const T = c.tensorNames.length;
    c.lastLoad = new Int32Array(n * T).fill(-1);
    const state = new Map();
    for (let i = 0; i < n; ++i) {
      if (c.kind[i] === WRITEBACK) continue;  // no block: holds nothing (-1s)
      const key = c.kernel[i] + '/' + c.block[i];
      let s = state.get(key);
      if (!s) { s = new Int32Array(T).fill(-1); state.set(key, s); }
      if (c.kind[i] === 0) s[c.tensor[i]] = i;
      c.lastLoad.set(s, i * T);
    }
    // The watched row: the last step at or before k that carried its m and l,
    // and the step where the values last changed.
    c.lastRow = new Int32Array(n);
    c.rowChanged = new Int32Array(n);
    let last = -1, changed = -1;
    for (let i = 0; i < n; ++i) {
      if (c.hasRow[i]) {
        if (last < 0 || c.rowM[i] !== c.rowM[last] || c.rowL[i] !== c.rowL[last]) changed = i;
        last = i;
      }
      c.lastRow[i] = last;
      c.rowChanged[i] = changed;
    }
    c.rowSteps = 0;
    for (let i = 0; i < n; ++i) c.rowSteps += c.hasRow[i];
    return c;
  }

  // Tiles that other blocks of the same kernel and head worked on most
  // recently before step k (looking back at most `limit` steps).
  function tilesInFlight(c, k, limit) {
    const out = [], seen = new Set([c.block[k]]);
    for (let i = k - 1; i >= 0 && i >= k - limit; --i) {
      if (c.kernel[i] !== c.kernel[k]) break;
      if (c.kind[i] === WRITEBACK || seen.has(c.block[i])) continue;
      seen.add(c.block[i]);
      if (c.bh[i] === c.bh[k] && c.qb[i] >= 0 && c.kb[i] >= 0) out.push(c.qb[i] * c.Tc + c.kb[i]);
    }
    return out;
  }

  const api = { parseTrace, prepare, tilesInFlight, TraceError, KINDS, WRITEBACK, COUNTERS };
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  else root.FasimTrace = api;
})(typeof window !== 'undefined' ? window : globalThis);
