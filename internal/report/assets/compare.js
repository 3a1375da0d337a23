// The comparison page of `sparkglance compare`: two runs' analysis
// documents and their comparison (embedded JSON), drawn as the glance's
// three charts for each run, one above the other on a shared relative time
// axis (seconds since each application's start), with all six charts'
// zoom and hover synced, plus the measure deltas, the matched stage table,
// the unmatched stages and the property and executor diffs.
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("compare-doc").textContent);
  const cmp = data.comparison;
  const runs = [{ key: "base", doc: data.baseDoc, sum: cmp.base }, { key: "new", doc: data.newDoc, sum: cmp.new }];

  // ---- formatting (as the glance) ----
  const esc = s => String(s ?? "").replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const num = (n, d = 0) => (n == null || !isFinite(n) ? "–" : n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: 0 }));
  function bytes(b) {
    if (!b) return "0 B";
    const neg = b < 0; b = Math.abs(b);
    const u = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let i = 0;
    while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; }
    return (neg ? "-" : "") + b.toFixed(b < 10 && i ? 1 : 0) + " " + u[i];
  }
  function dur(ms) {
    if (ms == null || !isFinite(ms)) return "–";
    const neg = ms < 0, s = Math.abs(ms) / 1000;
    let t;
    if (s < 60) t = s.toFixed(s < 10 ? 2 : 1) + "s";
    else if (s < 3600) t = Math.floor(s / 60) + "m" + String(Math.floor(s % 60)).padStart(2, "0") + "s";
    else t = Math.floor(s / 3600) + "h" + String(Math.floor(s % 3600 / 60)).padStart(2, "0") + "m";
    return (neg ? "-" : "") + t;
  }
  const clock = ms => new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC";
  const signed = (s, x) => (x > 0 ? "+" : "") + s;
  const TITLES = { wall_time: "wall time", task_cpu_time: "task CPU time", core_hours: "core-hours", efficiency: "efficiency",
    wasted_core_hours: "wasted core-hours", spill_memory: "memory spill", spill_disk: "disk spill", shuffle_read: "shuffle read",
    shuffle_write: "shuffle write", input: "input", energy: "energy", cost: "cost" };
  function measure(name, v, currency) {
    switch (name) {
      case "wall_time": case "task_cpu_time": return dur(v * 1000);
      case "efficiency": return (100 * v).toFixed(1) + "%";
      case "core_hours": case "wasted_core_hours": return num(v, 3);
      case "energy": return num(v, 3) + " Wh";
      case "cost": return num(v, 4) + " " + esc(currency || "");
      default: return bytes(v);
    }
  }

  // ---- header, measures ----
  function renderHeader() {
    const row = (label, r) => `<span class="run-label">${label}</span><span><span class="mono">${esc(r.sum.appId)}</span>` +
      `${r.sum.attemptId ? " attempt " + esc(r.sum.attemptId) : ""} · ${esc(r.sum.appName)} · Spark ${esc(r.sum.sparkVersion || "?")}` +
      ` · started ${clock(r.sum.start)} · ${dur(r.sum.end - r.sum.start)}${r.sum.finished ? "" : " (no end event)"}</span>`;
    document.getElementById("header").innerHTML = `<h1>${esc(cmp.workload || "(no workload)")} <span class="badge">compare</span></h1>` +
      `<div class="runs">${row("base", runs[0])}${row("new", runs[1])}</div>`;
  }
  function renderMeasures() {
    let h = `<h2>Measures</h2><div class="tablewrap"><table class="grid" id="measure-table"><thead><tr><th class="text">measure</th><th>base</th><th>new</th><th>delta</th><th>ratio</th></tr></thead><tbody>`;
    for (const m of cmp.measures) {
      const cls = m.delta === 0 ? "" : (m.measure === "efficiency" ? m.delta < 0 : m.delta > 0) ? "up" : "down";
      h += `<tr data-measure="${esc(m.measure)}" data-base="${m.base}" data-new="${m.new}" data-delta="${m.delta}"><td class="text">${esc(TITLES[m.measure] || m.measure)}</td>` +
        `<td>${measure(m.measure, m.base, cmp.base.currency)}</td><td>${measure(m.measure, m.new, cmp.new.currency)}</td>` +
        `<td class="${cls}">${signed(measure(m.measure, m.delta, cmp.new.currency), m.delta)}</td><td>${m.ratio ? m.ratio.toFixed(2) + "×" : "–"}</td></tr>`;
    }
    document.getElementById("measures").innerHTML = h + `</tbody></table></div>`;
  }

  // ---- charts: the glance's three, per run, on relative seconds ----
  const COLORS = { cpu: "#2f9e44", other: "#74c0fc", idle: "#e9ecef", efficiency: "#0b7285", cores: "#343a40" };
  const STATUS_COLORS = { COMPLETE: "#4c6ef5", FAILED: "#e03131", ACTIVE: "#2f9e44", PENDING: "#adb5bd", SKIPPED: "#ced4da" };
  const state = { charts: [], models: [], syncing: false, span: 0 };

  function buildModel(doc) {
    const ivs = doc.intervals || [], n = ivs.length, t0 = doc.start;
    const x = new Array(n + 1), cpu = new Array(n + 1), task = new Array(n + 1), eff = new Array(n + 1), cores = new Array(n + 1);
    for (let i = 0; i < n; i++) {
      const iv = ivs[i], a = iv.availableCoreSeconds, w = (iv.end - iv.start) / 1000, inv = a > 0 ? 1 / a : 0;
      x[i] = (iv.start - t0) / 1000;
      cpu[i] = iv.cpuSeconds * inv;
      task[i] = Math.min(1, Math.max(iv.taskSeconds, iv.cpuSeconds) * inv);
      eff[i] = iv.efficiency;
      cores[i] = w > 0 ? a / w : 0;
    }
    x[n] = n ? (ivs[n - 1].end - t0) / 1000 : 0;
    for (const a of [cpu, task, eff, cores]) a[n] = n ? a[n - 1] : null;
    const executors = [...new Set([...(doc.executors || []).filter(e => e.id !== "driver").map(e => e.id),
      ...ivs.flatMap(iv => (iv.spill || []).map(s => s.executorId))])].sort((a, b) => (+a - +b) || (a < b ? -1 : a > b ? 1 : 0));
    const row = new Map(executors.map((id, r) => [id, r]));
    const spill = executors.map(() => new Float64Array(n));
    let spillMax = 0;
    ivs.forEach((iv, i) => (iv.spill || []).forEach(s => {
      const v = s.memoryBytes + s.diskBytes;
      spill[row.get(s.executorId)][i] = v;
      if (v > spillMax) spillMax = v;
    }));
    const end = doc.end || doc.lastEventTime;
    const bars = (doc.stages || []).filter(s => s.submissionTime > 0).map(s => ({ stage: s, start: (s.submissionTime - t0) / 1000,
      end: ((s.completionTime > 0 ? s.completionTime : Math.max(end, s.submissionTime)) - t0) / 1000 }))
      .sort((a, b) => a.start - b.start || a.stage.stageId - b.stage.stageId);
    const laneEnds = [];
    for (const b of bars) {
      let lane = laneEnds.findIndex(e => e <= b.start);
      if (lane < 0) { lane = laneEnds.length; laneEnds.push(0); }
      laneEnds[lane] = b.end; b.lane = lane;
    }
    return { n, x, cpu, task, eff, cores, executors, spill, spillMax, bars, lanes: Math.max(1, laneEnds.length), doc };
  }

  function intervalAt(m, xv) {
    if (!m.n || xv < m.x[0] || xv >= m.x[m.n]) return -1;
    let lo = 0, hi = m.n - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (m.x[mid] <= xv) lo = mid; else hi = mid - 1; }
    return lo;
  }
  function syncScale(u, key) {
    if (key !== "x" || state.syncing) return;
    const { min, max } = u.scales.x;
    if (min == null || max == null) return;
    state.syncing = true;
    for (const o of state.charts) if (o !== u) o.setScale("x", { min, max });
    state.syncing = false;
  }
  function wheelZoom(u) {
    u.over.addEventListener("wheel", e => {
      e.preventDefault();
      const full = [0, state.span], { min, max } = u.scales.x, at = u.posToVal(e.offsetX, "x"), f = e.deltaY < 0 ? 0.8 : 1.25;
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
    tip.innerHTML = html; tip.dataset.ts = String(ts); tip.style.display = "block";
    const ox = u.over.offsetLeft, oy = u.over.offsetTop, w = tip.offsetWidth;
    tip.style.left = Math.max(0, left + ox + 14 + w > u.root.clientWidth ? left + ox - w - 14 : left + ox + 14) + "px";
    tip.style.top = Math.max(0, (top ?? 0) + oy - 10) + "px";
  }
  const gutter = 64;
  const axisX = { stroke: "#495057", grid: { stroke: "#f1f3f5" }, ticks: { stroke: "#dee2e6" }, values: (u, v) => v.map(t => dur(t * 1000)) };
  function opts(el, height, extra) {
    return Object.assign({ width: el.clientWidth || 900, height, legend: { show: false },
      cursor: { sync: { key: "compare", scales: ["x", null] }, drag: { x: true, y: false, setScale: true }, points: { show: false } },
      select: { show: true } }, extra, {
      scales: Object.assign({ x: { time: false, range: (u, min, max) => (min == null || max == null || min >= max ? [0, state.span] : [min, max]) } }, extra.scales),
      hooks: Object.assign({ setScale: [syncScale], ready: [wheelZoom] }, extra.hooks) });
  }
  const at = (m, sec) => "+" + dur(sec * 1000) + " · " + clock(m.doc.start + sec * 1000).slice(11);

  function coresChart(el, m) {
    const step = uPlot.paths.stepped({ align: 1 });
    const idle = m.x.map(() => 1);
    return new uPlot(opts(el, 200, {
      series: [{},
        { label: "idle", scale: "share", stroke: "#ced4da", fill: COLORS.idle, width: 0, paths: step, points: { show: false } },
        { label: "other task time", scale: "share", stroke: COLORS.other, fill: COLORS.other, width: 0, paths: step, points: { show: false } },
        { label: "task CPU", scale: "share", stroke: COLORS.cpu, fill: COLORS.cpu, width: 0, paths: step, points: { show: false } },
        { label: "efficiency", scale: "share", stroke: COLORS.efficiency, width: 1.5, paths: step, points: { show: false } },
        { label: "available cores", scale: "cores", stroke: COLORS.cores, width: 1.5, dash: [4, 3], paths: step, points: { show: false } }],
      scales: { share: { range: [0, 1] }, cores: { range: (u, min, max) => [0, Math.max(1, max * 1.1)] } },
      axes: [axisX, { scale: "share", size: gutter, values: (u, v) => v.map(t => Math.round(t * 100) + "%") },
        { scale: "cores", side: 1, size: 50, grid: { show: false }, values: (u, v) => v.map(t => num(t)) }],
      hooks: { setCursor: [u => {
        const i = intervalAt(m, u.posToVal(u.cursor.left, "x"));
        if (i < 0) return tooltip(u, null);
        tooltip(u, `<b>${esc(at(m, m.x[i]))}</b><br>task CPU ${(100 * m.cpu[i]).toFixed(0)}% · busy ${(100 * m.task[i]).toFixed(0)}%` +
          `<br>efficiency <b>${(100 * m.eff[i]).toFixed(0)}%</b> · ${num(m.cores[i], 1)} cores available`, m.x[i]);
      }] },
    }), [m.x, idle, m.task, m.cpu, m.eff, m.cores], el);
  }
  function spillChart(el, m) {
    const rows = m.executors.length;
    return new uPlot(opts(el, Math.max(90, Math.min(300, rows * 12 + 50)), {
      series: [{}, { scale: "row", stroke: "transparent", points: { show: false } }],
      scales: { row: { range: () => [0, Math.max(1, rows)] } },
      axes: [axisX, { scale: "row", size: gutter, grid: { show: false }, ticks: { show: false }, splits: () => [], values: () => [] }],
      hooks: {
        draw: [u => {
          const { left, top, width, height } = u.bbox, ctx = u.ctx;
          ctx.save(); ctx.beginPath(); ctx.rect(left, top, width, height); ctx.clip();
          if (!rows || !(m.spillMax > 0)) {
            ctx.font = `${Math.round(12 * devicePixelRatio)}px system-ui, sans-serif`; ctx.fillStyle = "#868e96"; ctx.textAlign = "center";
            ctx.fillText("no spill in this run", left + width / 2, top + height / 2);
          } else {
            const rh = height / rows;
            for (let r = 0; r < rows; r++) for (let i = 0; i < m.n; i++) {
              const v = m.spill[r][i];
              if (!(v > 0)) continue;
              const x0 = u.valToPos(m.x[i], "x", true), x1 = u.valToPos(m.x[i + 1], "x", true);
              const f = Math.log1p(v) / Math.log1p(m.spillMax);
              ctx.fillStyle = `rgb(${Math.round(255 - 90 * f)},${Math.round(220 - 200 * f)},${Math.round(150 - 130 * f)})`;
              ctx.fillRect(x0, top + r * rh, Math.max(1, x1 - x0), Math.max(1, rh - 1));
            }
          }
          ctx.restore();
        }],
        setCursor: [u => {
          const i = intervalAt(m, u.posToVal(u.cursor.left, "x"));
          if (i < 0) return tooltip(u, null);
          let tot = 0;
          for (let r = 0; r < rows; r++) tot += m.spill[r][i];
          tooltip(u, `<b>${esc(at(m, m.x[i]))}</b><br>spill, all executors: ${bytes(tot)}`, m.x[i]);
        }],
      },
    }), [m.x, m.x.map(() => null)], el);
  }
  function stagesChart(el, m) {
    return new uPlot(opts(el, Math.max(80, Math.min(300, m.lanes * 18 + 50)), {
      series: [{}, { scale: "lane", stroke: "transparent", points: { show: false } }],
      scales: { lane: { range: () => [0, m.lanes] } },
      axes: [axisX, { scale: "lane", size: gutter, grid: { show: false }, ticks: { show: false }, splits: () => [], values: () => [] }],
      hooks: {
        draw: [u => {
          const { left, top, width, height } = u.bbox, ctx = u.ctx, laneH = height / m.lanes;
          ctx.save(); ctx.beginPath(); ctx.rect(left, top, width, height); ctx.clip();
          for (const b of m.bars) {
            const x0 = u.valToPos(b.start, "x", true), x1 = Math.max(x0 + devicePixelRatio, u.valToPos(b.end, "x", true));
            ctx.fillStyle = STATUS_COLORS[b.stage.status] || STATUS_COLORS.PENDING;
            ctx.fillRect(x0, top + b.lane * laneH, x1 - x0, Math.max(1, laneH - 3 * devicePixelRatio));
          }
          ctx.restore();
        }],
        setCursor: [u => {
          const left = u.cursor.left;
          if (left == null || left < 0) return tooltip(u, null);
          const xv = u.posToVal(left, "x"), lane = Math.floor(u.cursor.top * m.lanes / u.over.clientHeight);
          const b = m.bars.find(b => b.lane === lane && xv >= b.start && xv <= b.end);
          tooltip(u, `<b>${esc(at(m, xv))}</b>` + (b ? `<br><b>stage ${b.stage.stageId}</b> ${esc(b.stage.name)}<br>duration ${dur((b.end - b.start) * 1000)}` : ""), xv);
        }],
      },
    }), [m.x, m.x.map(() => null)], el);
  }
  function renderCharts() {
    state.models = runs.map(r => buildModel(r.doc));
    state.span = Math.max(1, ...state.models.map(m => m.x[m.n] || 0), ...state.models.map(m => ((m.doc.end || m.doc.lastEventTime) - m.doc.start) / 1000));
    runs.forEach((r, k) => {
      const pane = document.getElementById("pane-" + r.key), m = state.models[k];
      pane.innerHTML = `<h3>${r.key} · <span class="mono">${esc(r.sum.appId)}</span> · ${dur(r.sum.end - r.sum.start)}</h3>` +
        ["cores", "spill", "stages"].map(c => `<div class="chart-head"><h2>${{ cores: "Core time by use", spill: "Spill per executor", stages: "Stage timeline" }[c]}</h2></div>` +
          `<div class="chart" id="chart-${r.key}-${c}"><div class="tip"></div></div>`).join("");
      state.charts.push(coresChart(document.getElementById(`chart-${r.key}-cores`), m));
      state.charts.push(spillChart(document.getElementById(`chart-${r.key}-spill`), m));
      state.charts.push(stagesChart(document.getElementById(`chart-${r.key}-stages`), m));
    });
    // One relative axis for all six: from the start to the longer run's end.
    state.syncing = true;
    for (const u of state.charts) u.setScale("x", { min: 0, max: state.span });
    state.syncing = false;
    for (const u of state.charts) u.over.addEventListener("dblclick", () => u.setScale("x", { min: 0, max: state.span }));
  }

  // ---- stages, unmatched, diffs ----
  function renderStages() {
    let h = `<h2>Stages matched by call site and name: ${cmp.stages.length}</h2><p class="hint">Biggest contributors to the wall-time difference first; share: of the difference in wall time.</p>` +
      `<div class="tablewrap"><table class="grid" id="stage-table"><thead><tr><th class="name">stage</th><th>base</th><th>new</th><th>delta</th><th>share</th>` +
      `<th>tasks</th><th>spill</th><th>shuffle read</th><th>shuffle write</th></tr></thead><tbody>`;
    for (const s of cmp.stages) {
      h += `<tr data-key="${esc(s.key)}" data-delta-ms="${s.deltaMs}" data-share="${s.share}"><td class="name" title="${esc(s.key)}">${esc(s.key)}</td>` +
        `<td>${dur(s.base.wallMs)}</td><td>${dur(s.new.wallMs)}</td><td class="${s.deltaMs > 0 ? "up" : s.deltaMs < 0 ? "down" : ""}">${signed(dur(s.deltaMs), s.deltaMs)}</td>` +
        `<td>${Math.round(100 * s.share) || 0}%</td><td>${num(s.base.tasks)} → ${num(s.new.tasks)}</td><td>${bytes(s.base.spillBytes)} → ${bytes(s.new.spillBytes)}</td>` +
        `<td>${bytes(s.base.shuffleReadBytes)} → ${bytes(s.new.shuffleReadBytes)}</td><td>${bytes(s.base.shuffleWriteBytes)} → ${bytes(s.new.shuffleWriteBytes)}</td></tr>`;
    }
    document.getElementById("stages").innerHTML = h + `</tbody></table></div>`;
    const list = (title, id, ss) => ss.length ? `<h3>${title}: ${ss.length}</h3><ul class="diff" id="${id}">` +
      ss.map(s => `<li data-key="${esc(s.key)}">${esc(s.key)} · ${dur(s.wallMs)} · ${num(s.tasks)} tasks</li>`).join("") + `</ul>` : "";
    const un = list("Only in base", "only-base", cmp.onlyBase) + list("Only in new", "only-new", cmp.onlyNew);
    document.getElementById("unmatched").innerHTML = un ? `<h2>Unmatched stages</h2>` + un : "";
  }
  function renderChanges() {
    const p = cmp.properties.map(p => `<li data-name="${esc(p.name)}">${p.added ? "added " : p.removed ? "removed " : ""}<span class="mono">${esc(p.name)}</span>` +
      (p.added ? ` = ${esc(p.new)}` : p.removed ? ` (was ${esc(p.base)})` : `: ${esc(p.base)} → ${esc(p.new)}`) + `</li>`).join("");
    const e = cmp.executorChanges.map(c => `<li>${esc(c)}</li>`).join("");
    document.getElementById("changes").innerHTML = `<h2>What changed</h2>` +
      (cmp.sparkVersionChange ? `<p>Spark ${esc(cmp.sparkVersionChange)}</p>` : "") +
      `<h3>Spark properties: ${cmp.properties.length} changed</h3>` + (p ? `<ul class="diff" id="property-diff">${p}</ul>` : "") +
      `<h3>Executors</h3>` + (e ? `<ul class="diff" id="executor-diff">${e}</ul>` : `<p class="muted">the same executor set</p>`);
  }

  renderHeader();
  renderMeasures();
  renderCharts();
  renderStages();
  renderChanges();
  window.compare = { data, state };
})();
