// The trace viewer's page: controls, the tile grid, SRAM, counters and the
// watched row, drawn for one step at a time. Everything a frame shows comes
// from arrays trace_model.js precomputed, so a step costs the same at step 10
// as at step 100,000; canvases draw the grid and the m/l chart, and playback
// runs on requestAnimationFrame.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const SPEEDS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];  // steps per second
  const COLORS = { now: '#e8590c', whole: '#ffd8a8', other: '#4c6ef5', done: '#b6c6e3', todo: '#ffffff',
    masked: '#eceef2', line: '#c3c9d4', ink: '#1f2430', dim: '#6b7280', m: '#e8590c', l: '#1c7ed6' };
  // The counters panel: label, id suffix, cumulative arrays summed, bar colour.
  const COUNTERS = [
    ['HBM read', 'hbm-read', ['hbmRead'], '#c2255c', 'B'],
    ['HBM written', 'hbm-write', ['hbmWrite'], '#c2255c', 'B'],
    ['L2 reads', 'l2-read', ['l2Read'], '#1c7ed6', 'B'],
    ['L2 hits', 'l2-hit', ['l2Hit'], '#1c7ed6', 'B'],
    ['L2 fabric', 'l2-fabric', ['l2Fabric'], '#1c7ed6', 'B'],
    ['DRAM read', 'dram-read', ['dramRead'], '#5f3dc4', 'B'],
    ['DRAM written', 'dram-write', ['dramWrite'], '#5f3dc4', 'B'],
    ['FLOPs', 'flops', ['flopsMatmul', 'flopsOther'], '#2b8a3e', ''],
  ];

  const state = { c: null, k: 0, playing: false, speed: 4, carry: 0, last: 0, dirty: false, rowChart: null };

  // ---- formatting ----
  const commas = (v) => Math.round(v).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const range = (first, count) => (count <= 1 ? String(first) : first + '\u2013' + (first + count - 1));
  function num(v) {
    if (v === Infinity) return '\u221e';
    if (v === -Infinity) return '\u2212\u221e';
    if (Number.isNaN(v)) return 'NaN';
    return Number(v.toPrecision(5)).toString();
  }
  function time(us) {
    return us >= 1000 ? (us / 1000).toFixed(3) + ' ms' : us.toFixed(3) + ' \u00b5s';
  }
  function pct(part, whole) { return whole > 0 ? (100 * part / whole).toFixed(1) + '%' : ''; }

  // ---- loading ----
  function showError(message) {
    const e = $('error');
    e.textContent = message;
    e.hidden = !message;
  }

  function load(text, origin) {
    let c;
    try {
      c = FasimTrace.parseTrace(text);
    } catch (e) {
      showError('Cannot read ' + origin + ': ' + e.message);
      return;
    }
    if (c.n === 0) {
      showError(origin + ' holds no steps; write a trace of a run with fasim run --trace FILE');
      return;
    }
    showError('');
    state.c = c;
    pause();
    $('welcome').hidden = true;
    $('viewer').hidden = false;
    describeRun(c);
    buildCounters(c);
    $('scrub').max = String(c.n - 1);
    $('step-input').max = String(c.n);
    $('step-count').textContent = commas(c.n);
    $('legend-masked').hidden = !c.masked.some((v) => v);
    layout();
    const start = /^#step=(\d+)$/.exec(location.hash);  // page.html#step=158 opens at step 158
    go(start ? +start[1] - 1 : 0);
  }

  function describeRun(c) {
    const m = c.meta, w = m.workload || {}, map = m.mapping || {};
    const kernels = (m.kernels || []).length;
    let shape = 'N=' + w.N + ', d=' + w.d + ', ' + w.dtype;
    if (w.N_kv && w.N_kv !== w.N) shape += ', N_kv=' + w.N_kv;
    if (w.batch * w.heads > 1) shape += ', batch ' + w.batch + ' \u00d7 heads ' + w.heads;
    if (w.window) shape += ', window ' + w.window;
    else if (w.causal) shape += ', causal';
    $('run').textContent = [map.algo + ' on ' + m.device, shape, 'Br=' + map.br + ', Bc=' + map.bc,
      kernels + (kernels === 1 ? ' kernel' : ' kernels'), commas(c.n) + ' steps'].join(' \u00b7 ');
    document.title = 'fasim trace: ' + map.algo + ' N=' + w.N + ' d=' + w.d;
  }

  function buildCounters(c) {
    const table = $('counters');
    table.textContent = '';
    state.totals = {};
    state.absent = new Set();
    for (const [label, id, keys, color] of COUNTERS) {
      const tr = table.insertRow();
      tr.id = 'row-' + id;
      tr.insertCell().textContent = label;
      tr.cells[0].className = 'name';
      const value = tr.insertCell();
      value.className = 'value';
      const out = document.createElement('output');
      out.id = 'c-' + id;
      value.appendChild(out);
      if (keys.some((k) => c.absent.has(k))) {  // say so rather than show zeros
        state.absent.add(id);
        out.textContent = 'not in this trace';
        out.title = 'an older fasim wrote this trace; write it again to see this counter';
        tr.className = 'absent';
        tr.insertCell();
        continue;
      }
      const bar = document.createElement('div');
      bar.className = 'bar';
      const fill = document.createElement('div');
      fill.style.background = color;
      bar.appendChild(fill);
      tr.insertCell().appendChild(bar);
      state.totals[id] = keys.reduce((s, k) => s + c.cum[k][c.n - 1], 0);
    }
  }

  // ---- stepping ----
  function go(k) {
    const c = state.c;
    if (!c) return;
    state.k = Math.max(0, Math.min(c.n - 1, Math.floor(k)));
    if (state.k === c.n - 1 && state.playing) pause();
    state.dirty = true;
    requestAnimationFrame(frame);
  }
  function play() {
    if (!state.c) return;
    if (state.k >= state.c.n - 1) state.k = 0;
    state.playing = true;
    state.carry = 0;
    state.last = performance.now();
    $('play').textContent = 'Pause';
    requestAnimationFrame(frame);
  }
  function pause() {
    state.playing = false;
    $('play').textContent = 'Play';
  }
  function setSpeed(i) {
    state.speed = Math.max(0, Math.min(SPEEDS.length - 1, i));
    $('speed').value = String(state.speed);
    $('speed-label').textContent = commas(SPEEDS[state.speed]) + (SPEEDS[state.speed] === 1 ? ' step/s' : ' steps/s');
  }

  // One animation frame: advance if playing, draw if anything changed.
  function frame(now) {
    if (state.playing) {
      state.carry += ((now - state.last) / 1000) * SPEEDS[state.speed];
      state.last = now;
      const steps = Math.floor(state.carry);
      if (steps > 0) {
        state.carry -= steps;
        state.k = Math.min(state.c.n - 1, state.k + steps);
        state.dirty = true;
        if (state.k === state.c.n - 1) pause();
      }
      if (state.playing) requestAnimationFrame(frame);
    }
    if (state.dirty) {
      state.dirty = false;
      render();
    }
  }

  // ---- drawing ----
  function render() {
    const c = state.c, k = state.k;
    $('scrub').value = String(k);
    if (document.activeElement !== $('step-input')) $('step-input').value = String(k + 1);
    $('step-title').textContent = 'Step ' + commas(k + 1) + ' of ' + commas(c.n);
    $('step-where').textContent = where(c, k);
    $('step-what').textContent = what(c, k);
    drawGrid(c, k);
    renderSram(c, k);
    renderCounters(c, k);
    renderRow(c, k);
  }

  function where(c, k) {
    const kernels = c.meta.kernels || [];
    const parts = ['kernel ' + (c.kernel[k] + 1) + '/' + Math.max(kernels.length, 1) +
      (kernels[c.kernel[k]] ? ' ' + kernels[c.kernel[k]] : ''),
      c.kind[k] === FasimTrace.WRITEBACK ? 'the L2, at the kernel\u2019s end' : 'block ' + c.block[k] + ' on SM ' + c.sm[k]];
    if (state.heads > 1) parts.push('head ' + c.bh[k]);
    if (c.qb[k] >= 0 || c.kb[k] >= 0) parts.push('tile (' + (c.qb[k] >= 0 ? c.qb[k] : '\u2013') + ', ' + (c.kb[k] >= 0 ? c.kb[k] : '\u2013') + ')');
    parts.push('t = ' + time(c.ts_us[k]) + ' (lasts ' + time(c.dur_us[k]) + ')');
    return parts.join(' \u00b7 ');
  }

  function what(c, k) {
    const shape = c.rows[k] + '\u00d7' + c.cols[k];
    let tile = c.tensorNames[c.tensor[k]] + ' rows ' + range(c.row0[k], c.rows[k]);
    if (c.col0[k] > 0) tile += ', cols ' + range(c.col0[k], c.cols[k]);
    switch (c.kindNames[c.kind[k]]) {
      case 'load':
        return 'load ' + tile + ' (' + shape + '): +' + commas(c.hbmRead[k]) + ' B from HBM (L2 hit ' +
          commas(c.l2Hit[k]) + ' B, DRAM ' + commas(c.dramRead[k]) + ' B)';
      case 'store':
        return 'store ' + tile + ' (' + shape + '): +' + commas(c.hbmWrite[k]) + ' B to HBM (into L2)';
      case 'writeback':
        return c.dramWrite[k] > 0
          ? 'end of kernel: +' + commas(c.dramWrite[k]) + ' B written back to DRAM, dirty L2 lines evicted during the kernel that no step counted yet'
          : 'end of kernel: no L2 write-backs left to count';
      default: {
        let s = (c.whatNames[c.what[k]] || c.kindNames[c.kind[k]]) + ' (' + shape + ')';
        const mm = c.flopsMatmul[k], other = c.flopsOther[k];
        if (mm > 0) s += ': ' + commas(mm) + ' matmul FLOP';
        if (other > 0) s += (mm > 0 ? ', ' : ': ') + commas(other) + ' other';
        return s;
      }
    }
  }

  // Canvas backing store at the device's pixel ratio; returns a 2D context in CSS pixels.
  function fit(canvas) {
    const r = window.devicePixelRatio || 1, w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== Math.round(w * r) || canvas.height !== Math.round(h * r)) {
      canvas.width = Math.round(w * r);
      canvas.height = Math.round(h * r);
    }
    const g = canvas.getContext('2d');
    g.setTransform(r, 0, 0, r, 0, 0);
    return { g, w, h };
  }

  function layout() {
    const c = state.c;
    if (!c) return;
    state.heads = 0;
    for (const key of c.firstTouch.keys()) state.heads = Math.max(state.heads, +key.split('/')[1] + 1);
    const grid = $('grid'), width = grid.clientWidth || 600;
    const ratio = c.Tr / c.Tc;
    grid.style.height = Math.round(Math.max(180, Math.min(520, (width - 40) * ratio + 40))) + 'px';
    state.rowChart = null;
    state.dirty = true;
    requestAnimationFrame(frame);
  }

  function drawGrid(c, k) {
    const { g, w, h } = fit($('grid'));
    g.clearRect(0, 0, w, h);
    const kern = c.kernel[k], bh = c.bh[k], Tr = c.Tr, Tc = c.Tc;
    const cells = c.firstTouch.get(kern + '/' + bh);
    const others = new Set(FasimTrace.tilesInFlight(c, k, 4096));
    const qb = c.qb[k], kb = c.kb[k];
    const left = 34, top = 22;
    const size = Math.min((w - left - 4) / Tc, (h - top - 4) / Tr);
    $('grid-head').textContent = (state.heads > 1 ? 'head ' + bh + ', ' : '') + c.Tr + ' \u00d7 ' + c.Tc +
      ' tiles of ' + c.meta.mapping.br + ' \u00d7 ' + c.meta.mapping.bc;
    const colour = (i, j) => {
      const cell = i * Tc + j;
      if (i === qb && j === kb) return COLORS.now;
      if ((kb < 0 && i === qb) || (qb < 0 && j === kb)) return COLORS.whole;
      if (others.has(cell)) return COLORS.other;
      if (cells && cells[cell] <= k) return COLORS.done;
      if (c.masked[cell]) return COLORS.masked;
      return COLORS.todo;
    };
    if (size >= 5) {
      const gap = size >= 14 ? 2 : 1;
      g.lineWidth = 1;
      for (let i = 0; i < Tr; ++i) {
        for (let j = 0; j < Tc; ++j) {
          const x = left + j * size, y = top + i * size, col = colour(i, j);
          g.fillStyle = col;
          g.fillRect(x + gap / 2, y + gap / 2, size - gap, size - gap);
          if (col === COLORS.todo || col === COLORS.masked) {
            g.strokeStyle = COLORS.line;
            g.strokeRect(x + gap / 2 + 0.5, y + gap / 2 + 0.5, size - gap - 1, size - gap - 1);
          }
        }
      }
    } else {  // too many tiles for boxes: one pixel of an image per tile, scaled
      const img = g.createImageData(Tc, Tr), px = img.data;
      for (let i = 0; i < Tr; ++i) {
        for (let j = 0; j < Tc; ++j) {
          const col = colour(i, j), o = 4 * (i * Tc + j);
          px[o] = parseInt(col.slice(1, 3), 16); px[o + 1] = parseInt(col.slice(3, 5), 16);
          px[o + 2] = parseInt(col.slice(5, 7), 16); px[o + 3] = 255;
        }
      }
      const tmp = state.tmpCanvas || (state.tmpCanvas = document.createElement('canvas'));
      tmp.width = Tc; tmp.height = Tr;
      tmp.getContext('2d').putImageData(img, 0, 0);
      g.imageSmoothingEnabled = false;
      g.drawImage(tmp, left, top, Tc * size, Tr * size);
      g.strokeStyle = COLORS.line;
      g.strokeRect(left - 0.5, top - 0.5, Tc * size + 1, Tr * size + 1);
    }
    // Labels: every tile when there is room, else every 2nd, 4th, ...
    g.fillStyle = COLORS.dim;
    g.font = '12px system-ui, "DejaVu Sans", sans-serif';
    const every = (n) => { let e = 1; while (e * size < 30 && e < n) e *= 2; return e; };
    g.textAlign = 'center'; g.textBaseline = 'bottom';
    for (let j = 0, e = every(Tc); j < Tc; j += e) g.fillText(String(j), left + (j + 0.5) * size, top - 4);
    g.textAlign = 'right'; g.textBaseline = 'middle';
    for (let i = 0, e = every(Tr); i < Tr; i += e) g.fillText(String(i), left - 6, top + (i + 0.5) * size);
    // The watched row's Q block, marked at the left edge.
    const row = c.meta.watched_row, br = c.meta.mapping.br;
    if (row >= 0 && br > 0 && (c.meta.watched_bh || 0) === bh) {
      const i = Math.floor(row / br);
      g.fillStyle = COLORS.l;
      g.fillRect(left - 3, top + i * size, 2, Math.max(size, 2));
    }
  }

  function renderSram(c, k) {
    const l2 = c.kind[k] === FasimTrace.WRITEBACK;
    $('sram-block').textContent = l2 ? '\u2013 (every block of the kernel has finished)' : c.block[k] + ' (after this step)';
    const list = $('sram-tiles');
    list.textContent = '';
    const T = c.tensorNames.length;
    for (let t = 0; t < T; ++t) {
      const at = c.lastLoad[k * T + t];
      if (at < 0) continue;
      const li = document.createElement('li');
      li.textContent = c.tensorNames[t] + ' rows ' + range(c.row0[at], c.rows[at]) +
        (c.col0[at] > 0 ? ', cols ' + range(c.col0[at], c.cols[at]) : '');
      if (at === k) li.className = 'fresh';
      list.appendChild(li);
    }
    if (!list.children.length) {
      const li = document.createElement('li');
      li.className = 'none';
      li.textContent = l2 ? 'nothing' : 'no tile loaded yet';
      list.appendChild(li);
    }
    const cap = c.meta.capacity || {};
    meter('sram', c.sram_bytes[k], cap.sram_bytes_per_block);
    meter('reg', c.register_bytes[k], cap.register_bytes_per_block);
  }

  function meter(id, used, capacity) {
    const out = $(id + '-bytes');
    out.dataset.value = String(used);
    out.textContent = commas(used) + ' B' + (capacity ? ' of ' + commas(capacity) + ' B (' + pct(used, capacity) + ')' : '');
    $(id + '-bar').style.width = capacity ? Math.min(100, (100 * used) / capacity) + '%' : '0';
  }

  function renderCounters(c, k) {
    for (const [, id, keys, , unit] of COUNTERS) {
      if (state.absent.has(id)) continue;
      const value = keys.reduce((s, key) => s + c.cum[key][k], 0);
      const delta = keys.reduce((s, key) => s + c[key][k], 0);
      const out = $('c-' + id), total = state.totals[id];
      out.dataset.value = String(value);
      out.textContent = commas(value) + (unit ? ' ' + unit : '');
      out.parentElement.parentElement.className = delta > 0 ? 'delta' : '';
      out.parentElement.nextElementSibling.firstChild.firstChild.style.width = total > 0 ? (100 * value) / total + '%' : '0';
    }
  }

  function renderRow(c, k) {
    const m = c.meta, row = m.watched_row;
    const br = m.mapping.br;
    $('row-name').textContent = row >= 0 ? 'row ' + row + (state.heads > 1 ? ' of head ' + (m.watched_bh || 0) : '') +
      ' (Q block ' + Math.floor(row / br) + ')' : 'the watched row';
    const values = $('row-values');
    const counted = m.numerics === false || (c.rowSteps === 0 && m.numerics === undefined);
    $('row-chart').hidden = counted;
    if (counted) {
      values.textContent = 'm and l need values: this trace only counted (it was made with --no-numerics).';
      return;
    } else if (c.lastRow[k] < 0) {
      values.innerHTML = '<b>m</b> = \u2212\u221e, <b>l</b> = 0 (not reached yet)';
    } else {
      const at = c.lastRow[k], changed = c.rowChanged[k];
      values.innerHTML = '<b>m</b> = <output id="row-m">' + num(c.rowM[at]) + '</output>, <b>l</b> = <output id="row-l">' +
        num(c.rowL[at]) + '</output> ' + (changed === k ? '<span class="changed">(changed at this step)</span>'
        : '<span class="dim">(since step ' + commas(changed + 1) + ')</span>');
    }
    drawRowChart(c, k);
  }

  // m (top) and l (bottom) after every step that carried them, as step
  // lines; drawn once per size into an offscreen canvas, then a cursor.
  function drawRowChart(c, k) {
    const canvas = $('row-chart');
    const { g, w, h } = fit(canvas);
    if (!state.rowChart || state.rowChart.w !== w || state.rowChart.h !== h) state.rowChart = rowChartImage(c, w, h);
    g.clearRect(0, 0, w, h);
    g.drawImage(state.rowChart.canvas, 0, 0, w, h);
    const x = state.rowChart.x(k);
    g.strokeStyle = COLORS.ink;
    g.lineWidth = 1;
    g.beginPath(); g.moveTo(x + 0.5, 4); g.lineTo(x + 0.5, h - 4); g.stroke();
    const at = c.lastRow[k];
    if (at >= 0) {
      for (const [key, lane] of [['rowM', 0], ['rowL', 1]]) {
        const y = state.rowChart.y(lane, c[key][at]);
        if (y === null) continue;
        g.fillStyle = lane ? COLORS.l : COLORS.m;
        g.beginPath(); g.arc(x, y, 3.5, 0, 2 * Math.PI); g.fill();
      }
    }
  }

  function rowChartImage(c, w, h) {
    const r = window.devicePixelRatio || 1;
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(w * r); canvas.height = Math.round(h * r);
    const g = canvas.getContext('2d');
    g.setTransform(r, 0, 0, r, 0, 0);
    const left = 62, right = w - 8, laneH = (h - 12) / 2;
    const x = (k) => left + (c.n > 1 ? (k / (c.n - 1)) * (right - left) : 0);
    const lanes = [['rowM', 'm', COLORS.m], ['rowL', 'l', COLORS.l]].map(([key, label, color]) => {
      let lo = Infinity, hi = -Infinity;
      for (let i = 0; i < c.n; ++i) if (c.hasRow[i] && Number.isFinite(c[key][i])) { lo = Math.min(lo, c[key][i]); hi = Math.max(hi, c[key][i]); }
      if (hi === lo) { hi += 1; lo -= 1; }
      return { key, label, color, lo, hi };
    });
    const y = (lane, v) => {
      const L = lanes[lane];
      if (!Number.isFinite(v) || L.lo === Infinity) return null;
      return 6 + lane * laneH + (laneH - 8) * (1 - (v - L.lo) / (L.hi - L.lo)) + 4;
    };
    g.font = '12px system-ui, "DejaVu Sans", sans-serif';
    lanes.forEach((L, lane) => {
      const y0 = 6 + lane * laneH;
      g.fillStyle = '#f7f8fa';
      g.fillRect(left, y0, right - left, laneH - 4);
      g.fillStyle = L.color;
      g.textAlign = 'left'; g.textBaseline = 'middle';
      g.font = 'bold 13px system-ui, "DejaVu Sans", sans-serif';
      g.fillText(L.label, 4, y0 + laneH / 2 - 2);
      g.font = '11px system-ui, "DejaVu Sans", sans-serif';
      g.fillStyle = COLORS.dim; g.textAlign = 'right';
      if (L.lo !== Infinity) {
        g.fillText(num(L.hi), left - 4, y0 + 8);
        g.fillText(num(L.lo), left - 4, y0 + laneH - 10);
      }
      g.strokeStyle = L.color; g.lineWidth = 1.8;
      g.beginPath();
      let started = false, lastY = null;
      for (let i = 0; i < c.n; ++i) {
        if (!c.hasRow[i]) continue;
        const yy = y(lane, c[L.key][i]);
        if (yy === null) continue;
        const xx = x(i);
        if (!started) { g.moveTo(xx, yy); started = true; } else { g.lineTo(xx, lastY); g.lineTo(xx, yy); }
        lastY = yy;
      }
      if (started) { g.lineTo(right, lastY); g.stroke(); }
    });
    return { canvas, w, h, x, y };
  }

  // ---- wiring ----
  function step(by) { pause(); go(state.k + by); }
  function init() {
    $('first').onclick = () => step(-Infinity);
    $('last').onclick = () => { pause(); go(state.c ? state.c.n - 1 : 0); };
    $('back').onclick = (e) => step(e.shiftKey ? -10 : -1);
    $('forward').onclick = (e) => step(e.shiftKey ? 10 : 1);
    $('play').onclick = () => (state.playing ? pause() : play());
    $('scrub').oninput = () => { pause(); go(+$('scrub').value); };
    $('step-input').onchange = () => { pause(); go(+$('step-input').value - 1); };
    $('speed').oninput = () => setSpeed(+$('speed').value);
    $('file').onchange = () => { const f = $('file').files[0]; if (f) f.text().then((t) => load(t, f.name)); };
    document.addEventListener('keydown', (e) => {
      if (!state.c || e.target.tagName === 'INPUT' && e.target.type === 'number') return;
      const keys = { ' ': () => (state.playing ? pause() : play()), ArrowRight: () => step(e.shiftKey ? 10 : 1),
        ArrowLeft: () => step(e.shiftKey ? -10 : -1), Home: () => step(-Infinity), End: () => step(Infinity),
        '+': () => setSpeed(state.speed + 1), '=': () => setSpeed(state.speed + 1), '-': () => setSpeed(state.speed - 1) };
      if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
    });
    document.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dragging'); });
    document.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
    document.addEventListener('drop', (e) => {
      e.preventDefault();
      document.body.classList.remove('dragging');
      const f = e.dataTransfer.files[0];
      if (f) f.text().then((t) => load(t, f.name));
    });
    window.addEventListener('resize', layout);
    setSpeed(state.speed);
    const embedded = $('fasim-trace').textContent;
    if (embedded.trim()) load(embedded, 'the embedded trace');
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
