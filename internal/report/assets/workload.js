"use strict";
// The page of one workload: its runs' wall time, efficiency, core-hours
// and cost as charts over the runs' start times (each with the baseline the
// run was judged against), and the table of runs. Everything is drawn from
// the document in #workload-doc, the same document /api/v1/workloads/{key} serves.
(function () {
  const CHARTS = [
    { measure: "wall_time", color: "#2563eb", fmt: v => dur(v) },
    { measure: "efficiency", color: "#16a34a", fmt: v => (100 * v).toFixed(0) + "%" },
    { measure: "core_hours", color: "#7c3aed", fmt: v => v.toFixed(2) },
    { measure: "cost", color: "#ea580c", fmt: v => v.toFixed(2) },
  ];
  const plots = {};

  function dur(s) {
    if (s == null || !isFinite(s)) return "–";
    if (s < 60) return s.toFixed(1) + "s";
    if (s < 3600) return Math.floor(s / 60) + "m" + String(Math.floor(s % 60)).padStart(2, "0") + "s";
    return Math.floor(s / 3600) + "h" + String(Math.floor(s % 3600 / 60)).padStart(2, "0") + "m";
  }
  const val = (o, m) => (o && typeof o[m] === "number") ? o[m] : null;

  function draw(w) {
    const runs = w.runs;
    const xs = runs.map(r => r.start / 1e3);
    for (const c of CHARTS) {
      const el = document.getElementById("chart-" + c.measure);
      const data = [xs, runs.map(r => val(r.values, c.measure)), runs.map(r => val(r.baseline, c.measure))];
      if (plots[c.measure]) { plots[c.measure].setData(data); continue; }
      const opts = {
        width: Math.max(300, el.clientWidth || 460), height: 200, legend: { show: false },
        cursor: { points: { size: 7 } },
        scales: { x: { time: true } },
        axes: [{}, { size: 60, values: (u, vals) => vals.map(v => v == null ? "" : c.fmt(v)) }],
        series: [{}, { stroke: c.color, width: 2, points: { show: true, size: 6 } },
          { stroke: "#9ca3af", width: 1.5, dash: [5, 4], points: { show: false } }],
      };
      plots[c.measure] = new uPlot(opts, data, el);
    }
    const body = document.querySelector("#runs tbody");
    body.textContent = "";
    for (const r of runs.slice().reverse()) {
      const tr = document.createElement("tr");
      tr.dataset.run = r.appId + (r.attemptId ? "/" + r.attemptId : "");
      if (r.status === "regressed") tr.className = "regressed";
      const cell = (text, value, cls) => {
        const td = document.createElement("td");
        td.textContent = text;
        if (value !== undefined) td.dataset.value = value;
        if (cls) td.className = cls;
        tr.appendChild(td);
        return td;
      };
      cell(new Date(r.start).toISOString().replace("T", " ").slice(0, 16) + " UTC", r.start, "text");
      const run = cell("", undefined, "text mono");
      if (r.page) { const a = document.createElement("a"); a.href = r.page; a.textContent = tr.dataset.run; run.appendChild(a); }
      else run.textContent = tr.dataset.run;
      const st = cell("", r.status, "text");
      const b = document.createElement("span"); b.className = "badge " + r.status; b.textContent = r.status.replace(/_/g, " ");
      st.appendChild(b);
      for (const m of r.regressed) { const x = document.createElement("span"); x.className = "badge regressed"; x.textContent = m.replace(/_/g, " "); st.append(" ", x); }
      for (const c of CHARTS) { const v = val(r.values, c.measure); cell(v == null ? "–" : c.fmt(v), v == null ? "" : v); }
      const ratio = r.ratios ? r.ratios.wall_time : undefined;
      cell(ratio == null ? "–" : ratio.toFixed(2) + "×", ratio == null ? "" : ratio);
      const cmp = cell("", undefined, "text");
      if (r.compare) { const a = document.createElement("a"); a.href = r.compare; a.textContent = "vs " + r.baselineRun; cmp.appendChild(a); }
      cell(r.why.join(" · "), undefined, "text why");
      body.appendChild(tr);
    }
  }

  draw(JSON.parse(document.getElementById("workload-doc").textContent));
})();
