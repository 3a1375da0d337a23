// The glance: draws one application's analysis document (the JSON of
// `sparkglance analyze --json`) as three charts on one time axis plus
// tables. Everything comes from the embedded document, or on live pages
// from polling data-live; nothing else is fetched.
"use strict";
(() => {
  const COLORS = {
    cpu: "#2f9e44", shuffle: "#f08c00", serde: "#7048e8", gc: "#e03131", other: "#74c0fc", idle: "#e9ecef",
    efficiency: "#0b7285", cores: "#343a40",
  };
  const SHARES = [ // bottom to top of the stack
    { key: "cpu", label: "task CPU" }, { key: "shuffle", label: "shuffle wait" }, { key: "serde", label: "(de)serialization" },
    { key: "gc", label: "GC" }, { key: "other", label: "other task time" }, { key: "idle", label: "idle" },
  ];
  const STATUS_COLORS = { COMPLETE: "#4c6ef5", FAILED: "#e03131", ACTIVE: "#2f9e44", PENDING: "#adb5bd", SKIPPED: "#ced4da" };

  // ---- formatting ----
  const esc = s => String(s ?? "").replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const pct = f => (f == null || !isFinite(f) ? "–" : (100 * f).toFixed(f < 0.1 && f > 0 ? 1 : 0) + "%");
  const num = (n, d = 0) => (n == null || !isFinite(n) ? "–" : n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: 0 }));
  function bytes(b) {
    if (!b) return "0 B";
    const u = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0;
    while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; }
    return b.toFixed(b < 10 && i ? 1 : 0) + " " + u[i];
  }
  function dur(ms) {
    if (ms == null || !isFinite(ms) || ms < 0) return "–";
    const s = ms / 1000;
    if (s < 60) return s.toFixed(s < 10 ? 2 : 1) + "s";
    if (s < 3600) return Math.floor(s / 60) + "m" + String(Math.floor(s % 60)).padStart(2, "0") + "s";
    return Math.floor(s / 3600) + "h" + String(Math.floor(s % 3600 / 60)).padStart(2, "0") + "m";
  }
  const clock = ms => new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC";
  const since = (doc, sec) => "+" + dur(sec * 1000 - doc.start) + " · " + clock(sec * 1000).slice(11);

  // ---- the model: chart data derived from the document, nothing recomputed ----
  // prev, the model of the last poll's document, lends its spill buffers:
  // settled intervals never change again (the analysis' contract), so the
  // spill cells of the leading intervals that were settled then and are
  // the same intervals now are kept, and only the rest is written again.
  function buildModel(doc, prev) {
    const ivs = doc.intervals || [];
    const n = ivs.length;
    // x holds each interval's start and, last, the end of the last one, in
    // seconds: stepped paths then draw every interval over its own width.
    const x = new Array(n + 1);
    const raw = { cpu: [], shuffle: [], serde: [], gc: [], other: [], idle: [], efficiency: [], cores: [] };
    const stack = SHARES.map(() => new Array(n + 1));
    const shareRows = SHARES.map(s => raw[s.key]);
    for (let i = 0; i < n; i++) {
      const iv = ivs[i], a = iv.availableCoreSeconds, w = (iv.end - iv.start) / 1000, inv = a > 0 ? 1 / a : 0;
      x[i] = iv.start / 1000;
      const known = iv.cpuSeconds + iv.shuffleSeconds + iv.serdeSeconds + iv.gcSeconds;
      raw.cpu.push(iv.cpuSeconds * inv);
      raw.shuffle.push(iv.shuffleSeconds * inv);
      raw.serde.push(iv.serdeSeconds * inv);
      raw.gc.push(iv.gcSeconds * inv);
      raw.other.push(Math.max(0, iv.taskSeconds - known) * inv);
      raw.idle.push(a > 0 ? Math.max(0, 1 - Math.max(iv.taskSeconds, known) * inv) : 0);
      raw.efficiency.push(iv.efficiency);
      raw.cores.push(w > 0 ? a / w : 0);
      let acc = 0;
      for (let k = 0; k < shareRows.length; k++) { acc += shareRows[k][i]; stack[k][i] = acc; }
    }
    x[n] = n ? ivs[n - 1].end / 1000 : doc.start / 1000;
    const last = a => { a[n] = n ? a[n - 1] : null; return a; };
    stack.forEach(last);
    const effLine = last(raw.efficiency.slice());
    const coreLine = last(raw.cores.slice());

    // Leading intervals the previous model holds already, settled.
    let keep = 0;
    if (prev && prev.ivs) {
      const pv = prev.ivs, lim = Math.min(n, pv.length);
      while (keep < lim && pv[keep].settled && pv[keep].start === ivs[keep].start && pv[keep].end === ivs[keep].end) keep++;
    }
    // Spill: one row per executor that exists or spilled, in Spark's id
    // order. spillFirst: the first interval each executor spilled in.
    const spillFirst = new Map();
    if (keep) for (const [id, i] of prev.spillFirst) if (i < keep) spillFirst.set(id, i);
    for (let i = keep; i < n; i++) {
      const ss = ivs[i].spill;
      if (ss) for (let j = 0; j < ss.length; j++) if (!spillFirst.has(ss[j].executorId)) spillFirst.set(ss[j].executorId, i);
    }
    const ids = new Set((doc.executors || []).filter(e => e.id !== "driver").map(e => e.id));
    for (const id of spillFirst.keys()) ids.add(id);
    const executors = [...ids].sort((a, b) => (+a - +b) || (a < b ? -1 : a > b ? 1 : 0));
    const rows = executors.length;
    // One buffer per kind, rows of cap cells (room to grow), a view per
    // executor: hundreds of executors × thousands of intervals without
    // hundreds of allocations, and without one per poll.
    let buf = prev && prev.spillBuf;
    if (!keep || !buf || buf.rows !== rows || buf.cap < n || executors.join("\u0000") !== prev.executors.join("\u0000")) {
      const cap = n + (n >> 2) + 16;
      buf = { rows, cap, mem: new Float64Array(rows * cap), disk: new Float64Array(rows * cap), memMax: new Float64Array(cap), diskMax: new Float64Array(cap) };
      keep = 0;
    } else {
      const dirtyTo = Math.max(n, prev.n);
      for (let r = 0; r < rows; r++) { buf.mem.fill(0, r * buf.cap + keep, r * buf.cap + dirtyTo); buf.disk.fill(0, r * buf.cap + keep, r * buf.cap + dirtyTo); }
      buf.memMax.fill(0, keep, dirtyTo); buf.diskMax.fill(0, keep, dirtyTo);
    }
    const row = new Map(executors.map((id, r) => [id, r]));
    const { cap, mem: memBuf, disk: diskBuf } = buf;
    const spill = {
      memoryBytes: executors.map((_, r) => memBuf.subarray(r * cap, r * cap + n)),
      diskBytes: executors.map((_, r) => diskBuf.subarray(r * cap, r * cap + n)),
    };
    for (let i = keep; i < n; i++) {
      const ss = ivs[i].spill;
      if (!ss) continue;
      let mm = 0, dm = 0;
      for (let j = 0; j < ss.length; j++) {
        const s = ss[j], at = row.get(s.executorId) * cap + i;
        memBuf[at] = s.memoryBytes; diskBuf[at] = s.diskBytes;
        if (s.memoryBytes > mm) mm = s.memoryBytes;
        if (s.diskBytes > dm) dm = s.diskBytes;
      }
      buf.memMax[i] = mm; buf.diskMax[i] = dm;
    }
    let memMax = 0, diskMax = 0;
    for (let i = 0; i < n; i++) {
      if (buf.memMax[i] > memMax) memMax = buf.memMax[i];
      if (buf.diskMax[i] > diskMax) diskMax = buf.diskMax[i];
    }
    const spillMax = { memoryBytes: memMax, diskBytes: diskMax };

    // Stage attempts packed into lanes: a lane takes the next attempt that
    // starts after its last one ended, so concurrent stages stack up.
    const appEnd = doc.end || doc.lastEventTime;
    const bars = (doc.stages || []).filter(s => s.submissionTime > 0).map(s => ({
      stage: s, start: s.submissionTime / 1000,
      end: (s.completionTime > 0 ? s.completionTime : Math.max(appEnd, s.submissionTime)) / 1000,
    })).sort((a, b) => a.start - b.start || a.stage.stageId - b.stage.stageId);
    const laneEnds = [];
    for (const b of bars) {
      let lane = laneEnds.findIndex(e => e <= b.start);
      if (lane < 0) { lane = laneEnds.length; laneEnds.push(0); }
      laneEnds[lane] = b.end;
      b.lane = lane;
    }
    // Executors alive in each interval (added before its end, not removed
    // before its start): with the cores line, how the cluster changed.
    // A difference array keeps it linear: +1 at the first interval ending
    // after the executor was added, −1 at the first starting at or after
    // its removal.
    const execCount = new Int32Array(n), delta = new Int32Array(n + 1);
    const firstEndAfter = t => { let lo = 0, hi = n; while (lo < hi) { const mid = (lo + hi) >> 1; if (ivs[mid].end > t) hi = mid; else lo = mid + 1; } return lo; };
    const firstStartFrom = t => { let lo = 0, hi = n; while (lo < hi) { const mid = (lo + hi) >> 1; if (ivs[mid].start >= t) hi = mid; else lo = mid + 1; } return lo; };
    for (const e of doc.executors || []) {
      if (e.id === "driver" || !(e.addTime > 0)) continue;
      const from = firstEndAfter(e.addTime), to = e.removeTime > 0 ? firstStartFrom(e.removeTime) : n;
      if (from < to) { delta[from]++; delta[to]--; }
    }
    for (let i = 0, c = 0; i < n; i++) { c += delta[i]; execCount[i] = c; }
    return { n, x, raw, stack, effLine, coreLine, executors, execCount, spill, spillMax, bars, lanes: Math.max(1, laneEnds.length),
      ivs, spillFirst, spillBuf: buf, reused: keep };
  }

  // ---- shared behaviour of the three charts ----
  const state = { doc: null, model: null, charts: [], spillKind: "diskBytes", selected: null, syncing: false, zoomed: false, drawMs: {} };

  function intervalAt(m, xv) { // index of the interval containing x (seconds), or -1
    if (!m.n || xv < m.x[0] || xv >= m.x[m.n]) return -1;
    let lo = 0, hi = m.n - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (m.x[mid] <= xv) lo = mid; else hi = mid - 1; }
    return lo;
  }

  function syncScale(u, key) {
    if (key !== "x" || state.syncing) return;
    const { min, max } = u.scales.x;
    if (min == null || max == null) return;
    const m = state.model;
    state.zoomed = m.n > 0 && (min > m.x[0] + 1e-6 || max < m.x[m.n] - 1e-6);
    state.syncing = true;
    for (const o of state.charts) if (o !== u) o.setScale("x", { min, max });
    state.syncing = false;
  }

  function wheelZoom(u) {
    u.over.addEventListener("wheel", e => {
      e.preventDefault();
      const m = state.model;
      if (!m.n) return;
      const full = [m.x[0], m.x[m.n]];
      const { min, max } = u.scales.x;
      const at = u.posToVal(e.offsetX, "x");
      const f = e.deltaY < 0 ? 0.8 : 1.25;
      let lo = at - (at - min) * f, hi = at + (max - at) * f;
      if (hi - lo >= full[1] - full[0]) [lo, hi] = full;
      else if (lo < full[0]) [lo, hi] = [full[0], full[0] + hi - lo];
      else if (hi > full[1]) [lo, hi] = [full[1] - (hi - lo), full[1]];
      u.setScale("x", { min: lo, max: hi });
    }, { passive: false });
  }

  function tooltip(u, html, ts) {
    const tip = u.root.parentNode.querySelector(".tip");
    const { left, top } = u.cursor;
    if (left == null || left < 0 || html == null) { tip.style.display = "none"; tip.dataset.ts = ""; return; }
    tip.innerHTML = html;
    tip.dataset.ts = String(ts);
    tip.style.display = "block";
    const ox = u.over.offsetLeft, oy = u.over.offsetTop, w = tip.offsetWidth;
    const x = left + ox + 14 + w > u.root.clientWidth ? left + ox - w - 14 : left + ox + 14;
    tip.style.left = Math.max(0, x) + "px";
    tip.style.top = Math.max(0, (top ?? 0) + oy - 10) + "px";
  }

  function baseOpts(el, height, extra) {
    return Object.assign({
      width: el.clientWidth || 900, height,
      legend: { show: false },
      cursor: { sync: { key: "glance", scales: ["x", null] }, drag: { x: true, y: false, setScale: true }, points: { show: false } },
      select: { show: true },
      hooks: {},
    }, extra, {
      hooks: Object.assign({ setScale: [syncScale], ready: [wheelZoom] }, extra.hooks, {
        // How long each chart's last draw took (ms): state.drawMs.
        drawClear: [u => { u._drawStart = performance.now(); }],
        draw: [...(extra.hooks.draw || []), u => { state.drawMs[el.id] = performance.now() - u._drawStart; if (state.onDrawn) state.onDrawn(el.id); }],
      }),
    });
  }
  // Every chart gets the same x values, so their full ranges are the same.
  const axisX = { stroke: "#495057", grid: { stroke: "#f1f3f5" }, ticks: { stroke: "#dee2e6" } };
  const timeScale = { time: true, range: (u, min, max) => (min === max ? [min - 1, max + 1] : [min, max]) };
  const gutter = 64; // the left axis width, the same in all three so that times line up

  // (1) Core time by use: stacked shares, efficiency, available cores.
  function coresChart(el) {
    const step = uPlot.paths.stepped({ align: 1 });
    const series = [{}];
    for (let k = SHARES.length - 1; k >= 0; k--) { // top first: each fill is painted over by the ones below
      const s = SHARES[k];
      series.push({ label: s.label, scale: "share", stroke: k === SHARES.length - 1 ? "#ced4da" : COLORS[s.key],
        fill: COLORS[s.key], width: 0, paths: step, points: { show: false } });
    }
    series.push({ label: "efficiency", scale: "share", stroke: COLORS.efficiency, width: 1.5, paths: step, points: { show: false } });
    series.push({ label: "available cores", scale: "cores", stroke: COLORS.cores, width: 1.5, dash: [4, 3], paths: step, points: { show: false } });
    return new uPlot(baseOpts(el, 260, {
      series,
      scales: { x: timeScale, share: { range: [0, 1] }, cores: { range: (u, min, max) => [0, Math.max(1, max * 1.1)] } },
      axes: [axisX,
        { scale: "share", size: gutter, values: (u, v) => v.map(t => Math.round(t * 100) + "%"), grid: { stroke: "#f1f3f5" } },
        { scale: "cores", side: 1, size: 50, grid: { show: false }, label: "cores", labelSize: 16, values: (u, v) => v.map(t => num(t)) }],
      hooks: { setCursor: [u => coresTip(u)] },
    }), coresData(), el);
  }
  function coresData() {
    const m = state.model;
    return [m.x, ...SHARES.map((s, k) => m.stack[k]).reverse(), m.effLine, m.coreLine];
  }
  function coresTip(u) {
    const m = state.model, i = intervalAt(m, u.posToVal(u.cursor.left, "x"));
    if (i < 0) return tooltip(u, null);
    const iv = state.doc.intervals[i];
    let h = `<b>${esc(since(state.doc, m.x[i]))}</b> – ${dur(iv.end - iv.start)}<br>`;
    for (let k = 0; k < SHARES.length; k++) {
      const s = SHARES[k];
      h += `<i style="background:${COLORS[s.key]}"></i>${s.label} ${pct(m.raw[s.key][i])}<br>`;
    }
    h += `efficiency <b>${pct(iv.efficiency)}</b> · ${num(m.raw.cores[i], 1)} cores available · ${num(m.execCount[i])} executor(s)`;
    if (iv.stages && iv.stages.length) h += `<br>stages ${esc(iv.stages.slice(0, 12).join(", "))}${iv.stages.length > 12 ? "…" : ""}`;
    if (!iv.settled) h += `<br><span style="color:#ffd43b">not settled yet (tasks still running)</span>`;
    tooltip(u, h, m.x[i]);
  }

  // (2) Spill per executor: a heatmap, one row per executor, drawn as
  // pixels so that 200 executors × thousands of intervals stay fast.
  const RAMP = (() => { // white → amber → dark red, 256 steps, as RGBA words
    const stops = [[255, 243, 191], [253, 126, 20], [201, 42, 42], [90, 10, 20]];
    const out = new Uint32Array(256);
    for (let i = 0; i < 256; i++) {
      const t = i / 255 * (stops.length - 1), k = Math.min(stops.length - 2, Math.floor(t)), f = t - k;
      const c = stops[k].map((v, j) => Math.round(v + (stops[k + 1][j] - v) * f));
      out[i] = (255 << 24) | (c[2] << 16) | (c[1] << 8) | c[0]; // little-endian RGBA
    }
    return out;
  })();
  const rampIndex = (v, max) => (v <= 0 || max <= 0 ? -1 : Math.min(255, Math.round(255 * Math.log1p(v) / Math.log1p(max))));
  function spillHeight(m) { return Math.max(120, Math.min(440, m.executors.length * 16 + 60)); }
  function spillChart(el) {
    return new uPlot(baseOpts(el, spillHeight(state.model), {
      series: [{}, { scale: "row", show: true, stroke: "transparent", points: { show: false } }],
      scales: { x: timeScale, row: { range: () => [0, Math.max(1, state.model.executors.length)] } },
      axes: [axisX, { scale: "row", size: gutter, grid: { show: false }, ticks: { show: false },
        splits: u => { // one label per row when they fit, else every k-th
          const m = state.model, n = m.executors.length, k = Math.max(1, Math.ceil(n * 13 / Math.max(1, u.bbox.height / devicePixelRatio)));
          const out = [];
          for (let r = 0; r < n; r += k) out.push(n - r - 0.5);
          return out;
        },
        values: (u, v) => v.map(t => "exec " + (state.model.executors[state.model.executors.length - 1 - Math.floor(t)] ?? "")) }],
      hooks: { draw: [drawSpill], setCursor: [u => spillTip(u)] },
    }), spillData(), el);
  }
  function spillData() { const m = state.model; return [m.x, m.x.map(() => null)]; }
  function drawSpill(u) {
    const m = state.model, rows = m.executors.length, kind = state.spillKind, max = m.spillMax[kind];
    const { left, top, width, height } = u.bbox;
    if (width < 1 || height < 1) return;
    if (!rows || !m.n || !(max > 0)) { // an empty grid reads as "broken": say why it is empty
      const ctx = u.ctx;
      ctx.save();
      ctx.font = `${Math.round(13 * devicePixelRatio)}px system-ui, sans-serif`;
      ctx.fillStyle = "#868e96"; ctx.textAlign = "center"; ctx.textBaseline = "middle";
      ctx.fillText(!rows ? "no executor yet" : `no ${kind === "diskBytes" ? "disk" : "memory"} spill in this application` +
        (m.spillMax[kind === "diskBytes" ? "memoryBytes" : "diskBytes"] > 0 ? ` (there is ${kind === "diskBytes" ? "memory" : "disk"} spill: switch above)` : ""),
      left + width / 2, top + height / 2);
      ctx.restore();
      return;
    }
    const W = Math.round(width), H = Math.round(height);
    const img = u.ctx.createImageData(W, H), px = new Uint32Array(img.data.buffer);
    const col = new Int16Array(W);
    // Pixel columns of each interval, once for all rows.
    const x0 = new Int32Array(m.n), x1 = new Int32Array(m.n);
    for (let i = 0; i < m.n; i++) {
      const a = Math.round(u.valToPos(m.x[i], "x", true) - left), b = Math.round(u.valToPos(m.x[i + 1], "x", true) - left);
      x0[i] = Math.max(0, a); x1[i] = Math.min(W, Math.max(b, a + 1));
    }
    for (let r = 0; r < rows; r++) {
      const vals = m.spill[kind][r];
      col.fill(-1);
      for (let i = 0; i < m.n; i++) {
        if (!(vals[i] > 0) || x1[i] <= 0 || x0[i] >= W) continue;
        const c = rampIndex(vals[i], max);
        for (let p = x0[i]; p < x1[i]; p++) if (c > col[p]) col[p] = c;
      }
      const y0 = Math.round(r * H / rows), y1 = Math.max(y0 + 1, Math.round((r + 1) * H / rows) - (H / rows > 6 ? 1 : 0));
      for (let p = 0; p < W; p++) {
        const c = col[p];
        const v = c < 0 ? (r & 1 ? 0xfff8f6f4 : 0xfffdfcfb) : RAMP[c];
        for (let y = y0; y < y1 && y < H; y++) px[y * W + p] = v;
      }
    }
    u.ctx.putImageData(img, Math.round(left), Math.round(top));
  }
  function spillTip(u) {
    const m = state.model, i = intervalAt(m, u.posToVal(u.cursor.left, "x"));
    const rows = m.executors.length, h = u.over.clientHeight;
    if (i < 0) return tooltip(u, null);
    let html = `<b>${esc(since(state.doc, m.x[i]))}</b>`;
    const top = u.cursor.top;
    if (rows && top != null && top >= 0 && top < h) {
      const r = Math.min(rows - 1, Math.floor(top * rows / h)), id = m.executors[r];
      html += `<br>executor <b>${esc(id)}</b>: memory spill ${bytes(m.spill.memoryBytes[r][i])}, disk spill ${bytes(m.spill.diskBytes[r][i])}`;
    }
    let tot = 0;
    for (let r = 0; r < rows; r++) tot += m.spill[state.spillKind][r][i];
    html += `<br>all executors: ${bytes(tot)} ${state.spillKind === "diskBytes" ? "to disk" : "from memory"}`;
    tooltip(u, html, m.x[i]);
  }

  // (3) Stage timeline: one bar per stage attempt, packed in lanes.
  function stagesHeight(m) { return Math.max(100, Math.min(400, m.lanes * 20 + 60)); }
  function stagesChart(el) {
    return new uPlot(baseOpts(el, stagesHeight(state.model), {
      series: [{}, { scale: "lane", stroke: "transparent", points: { show: false } }],
      scales: { x: timeScale, lane: { range: () => [0, state.model.lanes] } },
      axes: [axisX, { scale: "lane", size: gutter, grid: { show: false }, ticks: { show: false }, splits: () => [], values: () => [] }],
      hooks: { draw: [drawStages], setCursor: [u => stagesTip(u)] },
    }), spillData(), el);
  }
  function stageColor(s) { return STATUS_COLORS[s.status] || STATUS_COLORS.PENDING; }
  function drawStages(u) {
    const m = state.model, ctx = u.ctx, { left, top, width, height } = u.bbox;
    const laneH = height / m.lanes, barH = Math.max(1, laneH - Math.min(4 * devicePixelRatio, laneH * 0.25));
    ctx.save();
    ctx.beginPath(); ctx.rect(left, top, width, height); ctx.clip();
    ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
    ctx.textBaseline = "middle";
    ctx.textAlign = "left"; // uPlot leaves the last axis' alignment ("right") on the context
    const labels = [];
    for (const b of m.bars) {
      const x0 = u.valToPos(b.start, "x", true), x1 = Math.max(x0 + devicePixelRatio, u.valToPos(b.end, "x", true));
      if (x1 < left || x0 > left + width) continue;
      const y = top + b.lane * laneH, s = b.stage;
      ctx.fillStyle = stageColor(s);
      ctx.globalAlpha = s.attemptId > 0 ? 0.75 : 1;
      ctx.fillRect(x0, y, x1 - x0, barH);
      ctx.globalAlpha = 1;
      if (s.attemptId > 0) { // a retry: dashed amber outline
        ctx.setLineDash([3 * devicePixelRatio, 2 * devicePixelRatio]);
        ctx.strokeStyle = "#f08c00"; ctx.lineWidth = 1.5 * devicePixelRatio;
        ctx.strokeRect(x0, y, x1 - x0, barH);
        ctx.setLineDash([]);
      }
      if (state.selected && state.selected.stageId === s.stageId && (state.selected.attemptId == null || state.selected.attemptId === s.attemptId)) {
        ctx.strokeStyle = "#000"; ctx.lineWidth = 2 * devicePixelRatio;
        ctx.strokeRect(x0, y, x1 - x0, barH);
      }
      const vis0 = Math.max(x0, left), avail = Math.min(x1, left + width) - vis0 - 6 * devicePixelRatio;
      if (barH >= 10 * devicePixelRatio && avail > 14 * devicePixelRatio) labels.push([s, vis0, y, avail, Math.min(x1, left + width) - vis0]);
    }
    // Labels after every bar, so that the next bar in a lane never paints
    // over the end of one; a label that cannot show its whole stage id is
    // left out rather than cut to a misleading number.
    for (const [s, x, y, avail, w] of labels) {
      const text = fitText(ctx, stageLabel(s), avail);
      if (!text.startsWith(stageId(s) + " ") && text !== stageId(s)) continue;
      ctx.save(); // a label never leaves its own bar
      ctx.beginPath(); ctx.rect(x, y, w, barH); ctx.clip();
      ctx.fillStyle = s.status === "PENDING" || s.status === "SKIPPED" ? "#212529" : "#fff";
      ctx.fillText(text, x + 3 * devicePixelRatio, y + barH / 2);
      ctx.restore();
    }
    ctx.restore();
  }
  const stageId = s => `${s.stageId}${s.attemptId ? "." + s.attemptId : ""}`;
  function stageLabel(s) {
    const short = String(s.name || "").split(" at ")[0];
    return `${stageId(s)} ${short}`;
  }
  function fitText(ctx, t, w) {
    if (ctx.measureText(t).width <= w) return t;
    let lo = 0, hi = t.length;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (ctx.measureText(t.slice(0, mid) + "…").width <= w) lo = mid; else hi = mid - 1; }
    return lo ? t.slice(0, lo) + "…" : "";
  }
  function barAt(u) {
    const m = state.model, { left, top } = u.cursor;
    if (left == null || left < 0) return null;
    const xv = u.posToVal(left, "x"), lane = Math.floor(top * m.lanes / u.over.clientHeight);
    const slack = (u.scales.x.max - u.scales.x.min) * 3 / u.over.clientWidth; // thin bars stay hoverable
    return m.bars.find(b => b.lane === lane && xv >= b.start - slack && xv <= b.end + slack) || null;
  }
  function stagesTip(u) {
    const left = u.cursor.left;
    if (left == null || left < 0) return tooltip(u, null);
    const xv = u.posToVal(left, "x"), b = barAt(u);
    let h = `<b>${esc(since(state.doc, xv))}</b>`;
    if (b) {
      const s = b.stage;
      h += `<br><b>stage ${s.stageId}${s.attemptId ? " (attempt " + s.attemptId + ")" : ""}</b> · ${esc(s.status)}` +
        `<br>${esc(s.name)}` +
        `<br>tasks ${num(s.numCompleteTasks)}/${num(s.numTasks)} done` + (s.numFailedTasks ? `, ${num(s.numFailedTasks)} failed` : "") +
        (s.numKilledTasks ? `, ${num(s.numKilledTasks)} killed` : "") +
        `<br>duration ${dur((b.end - b.start) * 1000)} · median task ${dur(s.taskDurations && s.taskDurations.median)}` +
        `<br>spill ${bytes(s.memoryBytesSpilled)} memory, ${bytes(s.diskBytesSpilled)} disk` +
        `<br>shuffle read ${bytes(s.shuffleReadBytes)}, write ${bytes(s.shuffleWriteBytes)}`;
    }
    tooltip(u, h, xv);
  }

  // ---- header, findings, tables ----
  function renderHeader(doc, m) {
    const execs = (doc.executors || []).filter(e => e.id !== "driver");
    const live = execs.filter(e => e.isActive).length;
    const t = doc.totals || {};
    const eff = t.availableCoreSeconds > 0 ? t.cpuSeconds / t.availableCoreSeconds : null;
    // Wasted core time is the available core time not spent on task CPU,
    // as the fleet dashboard and analyze's totals count it.
    const wasted = doc.cpuTimeAvailable && t.availableCoreSeconds > 0 ? Math.max(0, t.availableCoreSeconds - t.cpuSeconds) / 3600 : null;
    // Cores now are the live executors' (the last interval is usually
    // partial, its average understates them); the maximum is over time.
    const coresNow = execs.filter(e => e.isActive).reduce((a, e) => a + (e.totalCores || 0), 0);
    const coresMax = Math.max(0, ...m.raw.cores, doc.live ? coresNow : 0);
    const body = document.body, index = body.dataset.index;
    const kpi = (v, l, title, id) => `<div class="kpi"${id ? ` id="kpi-${id}"` : ""}${title ? ` title="${esc(title)}"` : ""}><b>${v}</b><span>${l}</span></div>`;
    document.title = `${doc.appName || doc.appId} · sparkglance`;
    document.getElementById("header").innerHTML =
      `<h1>${esc(doc.appName || "(no name)")} ` +
      (!doc.live ? `<span class="badge done">finished</span>` : body.dataset.live ? `<span class="badge running">running</span>`
        : `<span class="badge" title="the log has no ApplicationEnd: still running when copied, or the driver died">no end event</span>`) +
      (body.dataset.live ? `<span class="live-state muted" id="live-state"></span>` : "") + `</h1>` +
      `<div class="sub"><span class="mono">${esc(doc.appId)}</span>${doc.attemptId ? " attempt " + esc(doc.attemptId) : ""}` +
      ` · Spark ${esc(doc.sparkVersion || "?")}${doc.master ? " · " + esc(doc.master) : ""} · started ${clock(doc.start)}` +
      (doc.workload ? ` · workload <span class="mono" id="workload">${esc(doc.workload)}</span>` : "") +
      (index ? ` · <a href="${esc(index)}">all applications</a>` : "") + `</div>` +
      `<div class="kpis">` +
      kpi(dur(doc.end - doc.start), doc.live ? "running for" : "duration") +
      kpi(`${num(execs.length)} <small class="muted">(${num(live)} ${doc.live ? "live" : "at the end"})</small>`, "executors",
        "executors over time: hover the first chart", "executors") +
      (doc.live ? kpi(`${num(coresNow)} <small class="muted">/ max ${num(coresMax)}</small>`, "cores now / max", "the dashed line in the first chart: cores over time", "cores")
        : kpi(num(coresMax), "cores (max)", "the dashed line in the first chart: cores over time", "cores")) +
      kpi(doc.cpuTimeAvailable ? pct(eff) : "n/a", "efficiency (task CPU / core time)", doc.cpuTimeAvailable ? "" : "this log has no Executor CPU Time", "efficiency") +
      kpi(wasted == null ? "n/a" : wasted.toFixed(1), "wasted core-hours", "available core time minus task CPU time", "wasted") +
      kpi(num(t.tasks), "tasks") +
      kpi(bytes(t.diskBytesSpilled), "disk spill") +
      (doc.energy && doc.cpuTimeAvailable ? kpi(wattHours(doc.energy.wattHours), "energy (" + esc(doc.energy.source) + ")",
        `task CPU × ${doc.energy.model.coreWatts} W per core, idle cores × ${pct(doc.energy.model.idleRatio)} of it`, "energy") +
        kpi(grams(doc.energy.carbonGrams), "CO2e", `at ${doc.energy.model.carbonIntensityGPerKWh} gCO2e/kWh`, "carbon") : "") +
      (doc.cost ? kpi(money(doc.cost.total, doc.cost.model.currency), "cost",
        `${num(doc.cost.coreHours, 2)} core-hours × ${doc.cost.model.coreHour} + ${num(doc.cost.memoryGibHours, 2)} memory GiB-hours × ${doc.cost.model.memoryGibHour}`, "cost") +
        (doc.cpuTimeAvailable ? kpi(money(doc.cost.wasted, doc.cost.model.currency), "wasted cost", "the cost's share of the idle allocated core time", "wasted-cost") : "") : "") +
      `</div>`;
  }

  // findingSpan is the time span a finding points at: its own, else its
  // stage attempt's, else its SQL query's; in seconds, padded a little.
  function findingSpan(f) {
    const doc = state.doc;
    let lo = f.start, hi = f.end;
    if (!(lo > 0) && f.stageId != null) {
      const s = (doc.stages || []).find(s => s.stageId === f.stageId && (f.stageAttemptId == null || s.attemptId === f.stageAttemptId));
      if (s && s.submissionTime > 0) { lo = s.submissionTime; hi = s.completionTime > 0 ? s.completionTime : doc.end; }
    }
    if (!(lo > 0) && f.executionId != null) {
      const q = (doc.sql || []).find(q => q.executionId === f.executionId);
      if (q && q.start > 0) { lo = q.start; hi = q.end > 0 ? q.end : doc.end; }
    }
    if (!(lo > 0)) return null;
    hi = Math.max(hi || lo, lo + 1000);
    const pad = (hi - lo) * 0.08;
    return [(lo - pad) / 1000, (hi + pad) / 1000];
  }
  function findingPlace(doc, f) {
    return [f.stageId != null ? "stage " + f.stageId + (f.stageAttemptId ? "." + f.stageAttemptId : "") : "",
      f.executorId ? "executor " + f.executorId : "",
      f.executionId != null ? "query " + f.executionId : "", f.operator ? f.operator : "",
      f.queryId ? "streaming query " + (f.queryName || f.queryId) : "",
      f.start > 0 ? since(doc, f.start / 1000).split(" · ")[0] + (f.end > 0 ? " for " + dur(f.end - f.start) : "") : ""]
      .filter(Boolean).join(" · ") || "whole application";
  }
  // places merges findings that point at the same place: [text, first index, count].
  function places(doc, is) {
    const byText = new Map();
    for (const i of is) {
      const t = findingPlace(doc, doc.findings[i]);
      if (byText.has(t)) byText.get(t)[2]++; else byText.set(t, [t, i, 1]);
    }
    return [...byText.values()];
  }
  // Findings of one kind share their advice: one line per kind, then one
  // link per place, each zooming the three charts there.
  function renderFindings(doc) {
    const fs = doc.findings || [];
    const el = document.getElementById("findings");
    if (!fs.length) { el.innerHTML = `<h2>Findings</h2><p class="muted">Nothing stands out.</p>`; return; }
    const kinds = new Map();
    fs.forEach((f, i) => {
      const k = f.kind + "\u0000" + f.advice;
      if (!kinds.has(k)) kinds.set(k, []);
      kinds.get(k).push(i);
    });
    el.innerHTML = `<h2>Findings (${fs.length})</h2><ul class="findings">` + [...kinds.values()].map(is => {
      const f0 = fs[is[0]];
      return `<li><span class="kind">${esc(f0.kind.replace(/_/g, " "))}${is.length > 1 ? " ×" + is.length : ""}</span>${esc(f0.advice)}<div class="places">` +
        places(doc, is).map(([text, i, n]) => findingSpan(fs[i])
          ? `<a href="#charts" class="place" data-i="${i}" title="zoom the charts here">${esc(text)}${n > 1 ? " ×" + n : ""}</a>`
          : `<span class="place">${esc(text)}${n > 1 ? " ×" + n : ""}</span>`).join("") + `</div></li>`;
    }).join("") + `</ul>`;
    el.querySelectorAll("a.place").forEach(a => a.addEventListener("click", ev => {
      ev.preventDefault();
      const f = state.doc.findings[+a.dataset.i], span = findingSpan(f);
      if (!span) return;
      state.selected = f.stageId != null ? { stageId: f.stageId, attemptId: f.stageAttemptId } : null;
      zoomTo(span[0], span[1]);
      markStageRow();
      document.getElementById("charts").scrollIntoView({ block: "start" });
    }));
  }
  function zoomTo(lo, hi) {
    state.charts[0].setScale("x", { min: lo, max: hi });
    state.charts.forEach(c => c.redraw(false));
  }

  // A sortable table: cols are [header, value(row), render(row)?, class?].
  // A live page redraws it on every poll, so it touches only what changed:
  // the heading and column headers only when their text changes, a row's
  // cells only when its data (sig(row), its JSON by default) changed, and
  // the body only where its rows' HTML differs from what it shows.
  function table(el, title, rows, cols, note, sig = r => JSON.stringify(r)) {
    const id = el.id;
    const head = `<h2>${title}</h2>${note ? `<p class="muted">${note}</p>` : ""}<div class="tablewrap"><table class="grid"><thead><tr>` +
      cols.map((c, k) => `<th data-k="${k}" class="${c[3] || ""}">${esc(c[0])}</th>`).join("") + `</tr></thead><tbody></tbody></table></div>`;
    let t = el._table;
    if (!t || t.head !== head || !el.contains(t.tbody)) {
      el.innerHTML = head;
      t = el._table = { head, tbody: el.querySelector("tbody"), shown: [], cache: new Map() };
      el.querySelectorAll("th").forEach(th => th.addEventListener("click", () => {
        const k = +th.dataset.k, cur = state.sort[id], rs = t.rows;
        t.draw(k, cur && cur.k === k ? -cur.dir : (typeof t.cols[k][1](rs[0] || {}) === "number" ? -1 : 1));
        if (id === "stages") markStageRow();
      }));
    }
    // The latest rows and columns, for the header clicks bound once above.
    t.rows = rows;
    t.cols = cols;
    // Each row's HTML, kept while its signature stays the same.
    const cache = new Map();
    const html = r => {
      const key = r.__key ?? "", s = sig(r), hit = t.cache.get(key);
      if (hit && hit.sig === s) { cache.set(key, hit); return hit.html; }
      const h = `<tr data-key="${esc(key)}">` + cols.map(c => `<td class="${c[3] || ""}">${c[2] ? c[2](r) : esc(c[1](r))}</td>`).join("") + `</tr>`;
      cache.set(key, { sig: s, html: h });
      return h;
    };
    const rowHTML = rows.map(html);
    t.cache = cache;
    t.draw = (k, dir) => {
      let order = rowHTML.map((_, i) => i);
      if (k != null) {
        const vals = rows.map(r => cols[k][1](r));
        order = order.sort((a, b) => (vals[a] < vals[b] ? -1 : vals[a] > vals[b] ? 1 : 0) * dir || a - b);
      }
      patchBody(t, order.map(i => rowHTML[i]));
      el.querySelectorAll("th[data-dir]").forEach(th => { delete th.dataset.dir; });
      if (k != null) el.querySelector(`th[data-k="${k}"]`).dataset.dir = dir > 0 ? "asc" : "desc";
      state.sort[id] = k == null ? null : { k, dir };
    };
    const prev = state.sort[id];
    t.draw(prev ? prev.k : null, prev ? prev.dir : 1);
  }
  // patchBody makes t.tbody show rows (HTML strings): nothing when they are
  // the rows it shows, only the rows that differ when there are as many,
  // else the whole body in one parse.
  function patchBody(t, rows) {
    const shown = t.shown;
    t.shown = rows;
    if (rows.length !== shown.length || t.tbody.rows.length !== shown.length) {
      t.tbody.innerHTML = rows.join("");
      return;
    }
    const changed = [];
    for (let i = 0; i < rows.length; i++) if (rows[i] !== shown[i]) changed.push(i);
    if (!changed.length) return;
    if (changed.length > rows.length / 2) { t.tbody.innerHTML = rows.join(""); return; }
    // Parse the changed rows together, then swap each in: one parse, and
    // DOM writes only, no reads in between.
    const tpl = document.createElement("template");
    tpl.innerHTML = `<table><tbody>${changed.map(i => rows[i]).join("")}</tbody></table>`;
    const fresh = [...tpl.content.querySelector("tbody").rows], old = [...t.tbody.rows];
    for (let j = changed.length - 1; j >= 0; j--) old[changed[j]].replaceWith(fresh[j]);
  }

  // Energy in Wh (kWh, MWh) and CO2e in g (kg, t), three digits.
  function wattHours(wh) { return wh >= 1e6 ? (wh / 1e6).toPrecision(3) + " MWh" : wh >= 1e3 ? (wh / 1e3).toPrecision(3) + " kWh" : (wh || 0).toPrecision(3) + " Wh"; }
  // An amount of money: two decimals from 1 on, three digits below.
  function money(x, cur) { return (Math.abs(x) >= 1 || x === 0 ? x.toFixed(2) : x.toPrecision(3)) + " " + esc(cur || ""); }
  function grams(g) { return g >= 1e6 ? (g / 1e6).toPrecision(3) + " t" : g >= 1e3 ? (g / 1e3).toPrecision(3) + " kg" : (g || 0).toPrecision(3) + " g"; }

  function renderTables(doc) {
    const stageJoules = new Map(((doc.energy && doc.energy.stages) || []).map(e => [e.stageId + "." + e.attemptId, e.joules]));
    const stageCost = new Map(((doc.cost && doc.cost.stages) || []).map(c => [c.stageId + "." + c.attemptId, c.cost]));
    const stages = (doc.stages || []).map(s => Object.assign({ __key: s.stageId + "." + s.attemptId, __joules: stageJoules.get(s.stageId + "." + s.attemptId) || 0,
      __cost: stageCost.get(s.stageId + "." + s.attemptId) || 0 }, s));
    const sdur = s => (s.submissionTime > 0 ? (s.completionTime > 0 ? s.completionTime : doc.end) - s.submissionTime : -1);
    const statusBadge = s => `<span class="badge ${s.status === "FAILED" ? "failed" : s.status === "ACTIVE" ? "running" : ""}">${esc(s.status)}</span>`;
    table(document.getElementById("stages"), `Stages (${stages.length} attempts)`, stages, [
      ["Stage", s => s.stageId], ["Attempt", s => s.attemptId], ["Status", s => s.status, statusBadge, "text"],
      ["Description", s => s.name, s => `<span title="${esc(s.name)}">${esc(s.name)}</span>`, "name"],
      ["Submitted", s => s.submissionTime || 0, s => (s.submissionTime ? esc(since(doc, s.submissionTime / 1000).split(" · ")[0]) : "–")],
      ["Duration", sdur, s => dur(sdur(s))],
      ["Tasks", s => s.numTasks, s => `${num(s.numCompleteTasks)}/${num(s.numTasks)}` + (s.numFailedTasks ? ` <span class="badge failed">${s.numFailedTasks} failed</span>` : "")],
      ["Run time", s => s.executorRunTime, s => dur(s.executorRunTime)],
      ["CPU time", s => s.executorCpuTime, s => dur(s.executorCpuTime / 1e6)],
      ["GC", s => s.jvmGcTime, s => dur(s.jvmGcTime)],
      ["Median task", s => (s.taskDurations ? s.taskDurations.median : 0), s => dur(s.taskDurations && s.taskDurations.median)],
      ["Max task", s => (s.taskDurations ? s.taskDurations.max : 0), s => dur(s.taskDurations && s.taskDurations.max)],
      ["Input", s => s.inputBytes, s => bytes(s.inputBytes)], ["Output", s => s.outputBytes, s => bytes(s.outputBytes)],
      ["Shuffle read", s => s.shuffleReadBytes, s => bytes(s.shuffleReadBytes)],
      ["Shuffle write", s => s.shuffleWriteBytes, s => bytes(s.shuffleWriteBytes)],
      ["Spill (memory)", s => s.memoryBytesSpilled, s => bytes(s.memoryBytesSpilled)],
      ["Spill (disk)", s => s.diskBytesSpilled, s => bytes(s.diskBytesSpilled)],
      ["Energy", s => s.__joules, s => (doc.cpuTimeAvailable ? wattHours(s.__joules / 3600) : "n/a")],
      ...(doc.cost ? [["Cost", s => s.__cost, s => money(s.__cost, doc.cost.model.currency)]] : []),
    ], "Times as the History Server shows them; energy is CPU time × watts per core; cost is the application's by share of run time; click a column to sort.",
    // A running stage's duration is counted to the document's end.
    s => JSON.stringify(s) + (s.completionTime > 0 ? "" : doc.end) + "@" + doc.start);
    const execs = (doc.executors || []).map(e => Object.assign({ __key: e.id }, e));
    table(document.getElementById("executors"), `Executors (${execs.filter(e => e.id !== "driver").length} + driver)`, execs, [
      ["Executor", e => (isNaN(+e.id) ? -1 : +e.id), e => esc(e.id), "text"], ["Address", e => e.hostPort || "", null, "text"],
      ["Status", e => (e.isActive ? "active" : "dead"), e => (e.isActive ? `<span class="badge running">active</span>` : `<span class="badge">dead</span>`), "text"],
      ["Cores", e => e.totalCores], ["Active tasks", e => e.activeTasks], ["Failed", e => e.failedTasks],
      ["Complete", e => e.completedTasks], ["Total", e => e.totalTasks],
      ["Task time", e => e.totalDuration, e => dur(e.totalDuration)], ["GC time", e => e.totalGCTime, e => dur(e.totalGCTime)],
      ["Input", e => e.totalInputBytes, e => bytes(e.totalInputBytes)],
      ["Shuffle read", e => e.totalShuffleRead, e => bytes(e.totalShuffleRead)],
      ["Shuffle write", e => e.totalShuffleWrite, e => bytes(e.totalShuffleWrite)],
      ["Storage memory", e => e.maxMemory, e => bytes(e.maxMemory)],
      ["Added", e => e.addTime || 0, e => (e.addTime ? esc(since(doc, e.addTime / 1000).split(" · ")[0]) : "–")],
    ], "", e => JSON.stringify(e) + "@" + doc.start);
    renderWhatIf(doc);
    renderSQL(doc);
    renderStreaming(doc);
    renderProblems(doc);
    markStageRow();
  }
  // The what-if: the analysis' replay of the tasks on other executor
  // counts, its critical path and the driver's share of the wall time.
  function renderWhatIf(doc) {
    const el = document.getElementById("whatif"), w = doc.whatIf;
    if (!w) { el.innerHTML = ""; return; }
    const today = (w.predictions || []).find(p => p.executors === w.executors);
    const cp = w.criticalPath || {};
    const note = `Wall time ${dur(w.wallMs)}: the driver alone ${dur(w.driverMs)} (no stage running), stages ${dur(w.executorMs)}. ` +
      `Critical path ${dur(cp.wallMs)} (${num(cp.stageCount)} stage attempts): the wall time even with unlimited executors. ` +
      `Today ${num(w.executors)} executors × ${num(w.coresPerExecutor)} cores at most${w.local ? " (local mode: the driver)" : ""}; ` +
      `ideal ${num(w.idealExecutors)}, the fewest predicted within ${pct(w.tolerance)} of today, saving ${num(Math.max(w.coreHoursSaved, 0), 2)} core-hours.`;
    const rows = (w.predictions || []).map(p => Object.assign({ __key: String(p.executors) }, p));
    const mark = p => (p.executors === w.executors ? " (today)" : p.executors === w.idealExecutors ? " (ideal)" : "");
    table(el, "What if: executor count", rows, [
      ["Executors", p => p.executors, p => esc(num(p.executors) + mark(p))],
      ["× today", p => p.factor, p => num(p.factor, 2)],
      ["Predicted wall time", p => p.wallMs, p => dur(p.wallMs)],
      ["vs today", p => (today ? p.wallMs / today.wallMs - 1 : 0), p => (today && today.wallMs > 0 ? (p.wallMs >= today.wallMs ? "+" : "") + pct(p.wallMs / today.wallMs - 1) : "–")],
      ["Core-hours", p => p.coreHours, p => num(p.coreHours, 2)],
    ], esc(note), p => JSON.stringify(p) + "@" + w.executors + "/" + w.idealExecutors);
  }
  function markStageRow() {
    document.querySelectorAll("#stages tr.selected").forEach(r => r.classList.remove("selected"));
    const s = state.selected;
    if (!s) return;
    document.querySelectorAll("#stages tbody tr").forEach(r => {
      const [id, att] = r.dataset.key.split(".").map(Number);
      if (id === s.stageId && (s.attemptId == null || s.attemptId === att)) r.classList.add("selected");
    });
  }
  function renderSQL(doc) {
    const el = document.getElementById("sql"), ops = [];
    for (const ex of doc.sql || []) for (const op of ex.operators || []) {
      if (op.exclusiveSeconds > 0) ops.push(Object.assign({ __key: ex.executionId + "/" + op.id, exec: ex }, op));
    }
    if (!(doc.sql || []).length) { el.innerHTML = ""; return; }
    ops.sort((a, b) => b.exclusiveSeconds - a.exclusiveSeconds);
    const top = ops.slice(0, 25);
    table(el, `Top SQL operators by own time (${(doc.sql || []).length} queries)`, top, [
      ["Query", o => o.exec.executionId], ["Description", o => o.exec.description, o => `<span title="${esc(o.exec.description)}">${esc(o.exec.description)}</span>`, "name"],
      ["Operator", o => o.name, null, "text"], ["Engine", o => o.engine, null, "text"],
      ["Own time", o => o.exclusiveSeconds, o => dur(o.exclusiveSeconds * 1000)],
      ["Rows out", o => (o.metrics || {})["number of output rows"] || 0, o => num((o.metrics || {})["number of output rows"])],
      ["Spill", o => (o.metrics || {})["spill size"] || 0, o => bytes((o.metrics || {})["spill size"])],
    ], ops.length ? "" : "No operator reported a time.",
    // The operator's own fields and its query's description, not the whole plan.
    o => JSON.stringify(Object.assign({}, o, { exec: o.exec.description })));
  }
  // ---- Structured Streaming: a table of queries, and per query a chart of
  // its latest batches: duration against the trigger interval (left) and
  // input against processed rows per second (right). Rebuilt only when the
  // queries' data changed, so a live poll without new batches costs nothing.
  function renderStreaming(doc) {
    const el = document.getElementById("streaming"), qs = doc.streaming || [];
    const sig = JSON.stringify(qs);
    if (el._sig === sig) return;
    el._sig = sig;
    (el._charts || []).forEach(c => c.destroy());
    el._charts = [];
    if (!qs.length) { el.innerHTML = ""; return; }
    const rate = v => (v == null ? "–" : num(v, v < 10 ? 2 : 0));
    const name = q => q.name || q.id;
    el.innerHTML = `<h2>Structured Streaming (${qs.length} ${qs.length === 1 ? "query" : "queries"})</h2>` +
      `<div class="tablewrap"><table class="grid"><thead><tr>` +
      ["Query", "Status", "Batches", "Input rows", "Last batch", "Trigger", "Input rows/s", "Processed rows/s", "Behind", "State rows", "State memory", "Watermark lag", "Offset lag"]
        .map((h, k) => `<th class="${k < 2 ? "text" : ""}">${h}</th>`).join("") + `</tr></thead><tbody>` +
      qs.map(q => {
        const b = q.last || {};
        return `<tr><td class="text" title="${esc(q.id)}">${esc(name(q))}</td>` +
          `<td class="text"><span class="badge ${q.status === "failed" ? "failed" : q.status === "running" ? "running" : ""}" title="${esc(q.exception || "")}">${esc(q.status)}</span></td>` +
          `<td>${num(q.batches)}</td><td>${num(q.inputRows)}</td><td>${q.last ? dur(b.durationSeconds * 1000) : "–"}</td>` +
          `<td>${q.triggerIntervalSeconds ? dur(q.triggerIntervalSeconds * 1000) : "–"}</td>` +
          `<td>${rate(b.inputRowsPerSecond)}</td><td>${rate(b.processedRowsPerSecond)}</td>` +
          `<td>${q.behindStreak ? `<span class="badge failed">${num(q.behindStreak)} in a row</span>` : num(q.behindBatches) + " of " + num(q.batches)}</td>` +
          `<td>${num(b.stateRows)}</td><td>${bytes(b.stateMemoryBytes)}</td>` +
          `<td>${b.watermarkLagSeconds != null ? dur(b.watermarkLagSeconds * 1000) : "–"}</td><td>${b.offsetLag != null ? num(b.offsetLag) : "–"}</td></tr>`;
      }).join("") + `</tbody></table></div>` +
      qs.map((q, i) => `<div class="chart-head"><h2>${esc(name(q))}: latest ${num((q.recent || []).length)} batches</h2>` +
        `<span class="legend"><span><i style="background:#4c6ef5"></i>batch duration</span>` +
        (q.triggerIntervalSeconds ? `<span><i class="line" style="background:#e03131"></i>trigger interval</span>` : "") +
        `<span><i class="line" style="background:#f08c00"></i>input rows/s (right)</span><span><i class="line" style="background:#2f9e44"></i>processed rows/s (right)</span></span></div>` +
        `<div class="chart streaming-chart" id="streaming-chart-${i}"></div>`).join("");
    qs.forEach((q, i) => {
      const bs = q.recent || [];
      if (!bs.length) return;
      const x = bs.map(b => b.timestamp / 1000);
      const data = [x, bs.map(b => b.durationSeconds), bs.map(() => q.triggerIntervalSeconds || null),
        bs.map(b => b.inputRowsPerSecond ?? null), bs.map(b => b.processedRowsPerSecond ?? null)];
      const chartEl = document.getElementById("streaming-chart-" + i);
      el._charts.push(new uPlot({
        width: chartEl.clientWidth || 900, height: 180, legend: { show: false },
        cursor: { points: { show: true } },
        series: [{},
          { label: "batch duration", scale: "s", stroke: "#4c6ef5", fill: "rgba(76,110,245,.25)", paths: uPlot.paths.bars({ size: [0.8, 40] }), points: { show: false } },
          { label: "trigger interval", scale: "s", stroke: "#e03131", width: 1.5, dash: [5, 3], points: { show: false } },
          { label: "input rows/s", scale: "rows", stroke: "#f08c00", width: 1.5 },
          { label: "processed rows/s", scale: "rows", stroke: "#2f9e44", width: 1.5 }],
        scales: { x: timeScale, s: { range: (u, min, max) => [0, Math.max(max, q.triggerIntervalSeconds || 0) * 1.1 || 1] }, rows: { range: (u, min, max) => [0, (max || 1) * 1.1] } },
        axes: [axisX, { scale: "s", size: gutter, values: (u, v) => v.map(t => dur(t * 1000)) },
          { scale: "rows", side: 1, size: 60, grid: { show: false }, values: (u, v) => v.map(t => num(t)) }],
      }, data, chartEl));
    });
  }
  function renderProblems(doc) {
    const ps = doc.problems || [], more = doc.problemsOmitted || 0;
    const el = document.getElementById("problems");
    el.innerHTML = `<h2>Reading the log</h2><p class="muted">${esc(doc.log || "")}: ${num(doc.lines)} lines, ` +
      `${num(ps.length + more)} problem(s)${doc.unplacedTasks ? `, ${num(doc.unplacedTasks)} task(s) outside the timeline` : ""}.</p>` +
      (ps.length ? `<ul class="problems">` + ps.map(p => `<li class="mono">${esc(p.file)}${p.line ? ":" + p.line : ""}: ${esc(p.kind)}: ${esc(p.reason)}</li>`).join("") +
        (more ? `<li>… and ${num(more)} more</li>` : "") + `</ul>` : "");
  }

  function renderLegends() {
    document.getElementById("legend-cores").innerHTML = SHARES.map(s => `<span><i style="background:${COLORS[s.key]}"></i>${s.label}</span>`).join("") +
      `<span><i class="line" style="background:${COLORS.efficiency}"></i>efficiency</span><span><i class="line" style="background:${COLORS.cores}"></i>available cores (right axis)</span>`;
    document.getElementById("legend-stages").innerHTML = Object.entries(STATUS_COLORS).map(([k, c]) => `<span><i style="background:${c}"></i>${k.toLowerCase()}</span>`).join("") +
      `<span><i style="border:1.5px dashed #f08c00"></i>retry attempt</span>`;
    const max = state.model.spillMax[state.spillKind];
    document.getElementById("spill-scale").innerHTML = max > 0
      ? `0 <span class="ramp" style="background:linear-gradient(90deg,#fff3bf,#fd7e14,#c92a2a,#5a0a14)"></span> ${bytes(max)} per interval (log scale)`
      : `no ${state.spillKind === "diskBytes" ? "disk" : "memory"} spill in this application`;
  }

  // ---- rendering and live updates ----
  function mountCharts() {
    const mk = (id, f) => { const el = document.getElementById(id); el.innerHTML = `<div class="tip"></div>`; return f(el); };
    state.charts = [mk("chart-cores", coresChart), mk("chart-spill", spillChart), mk("chart-stages", stagesChart)];
    window.addEventListener("resize", () => {
      const w = document.getElementById("chart-cores").clientWidth;
      state.charts.forEach(c => c.setSize({ width: w, height: c.height }));
    });
    document.querySelectorAll('input[name="spill"]').forEach(r => r.addEventListener("change", () => {
      state.spillKind = r.value;
      renderLegends();
      state.charts[1].redraw(false);
    }));
  }

  // render draws doc: the first time it builds the charts, later it swaps
  // their data and keeps the user's zoom, so intervals that settled since
  // the last poll are redrawn in place.
  function render(doc) {
    // steps: where a redraw's time goes (ms), for glance.lastRenderSteps.
    const steps = {};
    let t = performance.now();
    const lap = k => { const now = performance.now(); steps[k] = now - t; t = now; };
    state.doc = doc;
    state.model = buildModel(doc, state.model);
    lap("model");
    renderHeader(doc, state.model);
    renderFindings(doc);
    renderLegends();
    lap("header+findings");
    if (!state.charts.length) {
      mountCharts();
    } else {
      const [cores, spill, stages] = state.charts, keep = state.zoomed ? { min: cores.scales.x.min, max: cores.scales.x.max } : null;
      for (const [u, h] of [[spill, spillHeight(state.model)], [stages, stagesHeight(state.model)]]) if (u.height !== h) u.setSize({ width: u.width, height: h });
      state.syncing = true; // the x ranges are set below, all alike
      cores.setData(coresData(), !keep);
      spill.setData(spillData(), !keep);
      stages.setData(spillData(), !keep);
      state.syncing = false;
      if (keep) zoomTo(keep.min, keep.max);
    }
    lap("charts");
    renderTables(doc);
    lap("tables");
    void document.body.offsetHeight;
    lap("tables layout");
    return steps;
  }

  state.sort = {};
  const glance = { state, render, buildModel };
  window.glance = glance;
  render(JSON.parse(document.getElementById("glance-doc").textContent));

  const liveURL = document.body.dataset.live;
  // update fetches the live document and redraws the page with it. It
  // times the redraw itself (lastRenderMs: model, charts, tables, up to the
  // charts' deferred commit and the layout) apart from the fetch and
  // parse (lastFetchMs).
  glance.update = async () => {
    const t0 = performance.now();
    const res = await fetch(liveURL, { cache: "no-store", headers: { Accept: "application/json" } });
    if (!res.ok) throw new Error(res.status + " " + res.statusText);
    const doc = await res.json();
    // uPlot commits setData/setScale in microtasks queued during render:
    // the redraw ends when all three charts have drawn. (A message task
    // bounds the wait should one not draw; it runs after every microtask.)
    const drawn = new Promise(r => {
      const left = new Set(state.charts.map(c => c.root.parentNode.id));
      state.onDrawn = id => { left.delete(id); if (!left.size) r(); };
      const ch = new MessageChannel();
      ch.port1.onmessage = () => r();
      ch.port2.postMessage(0);
    });
    const t1 = performance.now();
    const steps = render(doc);
    const t2 = performance.now();
    await drawn;
    state.onDrawn = null;
    const t3 = performance.now();
    void document.body.offsetHeight; // and the tables' layout
    steps["chart commit"] = t3 - t2;
    steps.layout = performance.now() - t3;
    glance.lastRenderSteps = steps;
    glance.lastRenderMs = performance.now() - t1;
    glance.lastFetchMs = t1 - t0;
    glance.updates = (glance.updates || 0) + 1;
  };
  if (liveURL) {
    const poll = async () => {
      const note = document.getElementById("live-state");
      try {
        await glance.update();
        const n = document.getElementById("live-state");
        if (n) n.textContent = "updated " + new Date().toLocaleTimeString();
      } catch (e) {
        if (note) note.textContent = "update failed (" + e.message + "), retrying";
      }
      if (state.doc.live) setTimeout(poll, glance.pollMs);
    };
    glance.pollMs = 3000;
    if (state.doc.live) setTimeout(poll, glance.pollMs);
  }
})();
