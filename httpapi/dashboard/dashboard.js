// The overloadsql dashboard: charts of the history the server keeps (GET /history), redrawn
// every few seconds. Counters arrive as increments per frame and are shown per second.
"use strict";

const REFRESH_MS = 3000;
const params = new URLSearchParams(location.search);
const minutes = Math.max(1, Math.min(1440, parseInt(params.get("minutes") || "15", 10) || 15));

// Each chart: its title, and its series [history name, label, per second?]. A series the server
// does not have (no admission control, say) is left out; a chart with none says so.
const CHARTS = [
  { id: "overload", title: "CPU overload (wait / busy)", series: [
    ["OSCPUOverload", "OSCPUOverload"],
    ["KernelRunQueueOverload", "kernel run queue"],
    ["GoRunQueueOverload", "Go run queue"],
    ["AdmissionQueueOverload", "admission queue"],
  ]},
  { id: "cpu", title: "CPU busy (fraction of capacity)", series: [
    ["CPUBusyRatio", "CPUBusyRatio"],
    ["OSUserTimeNormalized", "host user"],
    ["OSSystemTimeNormalized", "host system"],
  ]},
  { id: "memory", title: "Memory used / limit", series: [["MemoryOverloadRatio", "MemoryOverloadRatio"]] },
  { id: "statements", title: "Statements per second", series: [["ProfileEvent_Query", "statements/s", true]] },
  { id: "shedding", title: "Rejections and drops per second", series: [
    ["ProfileEvent_OverloadRejectedQueries", "rejected (745)/s", true],
    ["ProfileEvent_OverloadDroppedConnections", "dropped (1040)/s", true],
    ["ProfileEvent_MaxConnectionsRejectedConnections", "over max_connections/s", true],
  ]},
  { id: "running", title: "Running and queued statements", series: [
    ["CurrentMetric_Query", "running"],
    ["CurrentMetric_AdmissionRunningStatements", "admitted running"],
    ["CurrentMetric_AdmissionQueuedStatements", "queued"],
  ]},
];
const COLORS = ["#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00"];
const MARK = { raised: "#c62828", cleared: "#2e7d32" };

const state = { warnings: [], plots: {} };

function historyURL() {
  // location.origin, not a relative URL: a page opened as http://user:pass@host/ must not carry
  // the credentials into fetch (browsers refuse that); the browser resends them by itself.
  const u = new URL("/history", location.origin);
  u.searchParams.set("minutes", String(minutes));
  for (const c of CHARTS) for (const s of c.series) u.searchParams.append("metric", s[0]);
  return u;
}

// marks are the warning events drawn on the time axis: raised and cleared (updates are many
// and move nothing).
function marks() {
  return state.warnings.filter((w) => w.event !== "updated");
}

// warningMarks draws a vertical line at every raised or cleared warning, labelled with its
// resource; labels are staggered over three lines so that close events stay readable.
function warningMarks(u) {
  const ctx = u.ctx, top = u.bbox.top, height = u.bbox.height, px = devicePixelRatio;
  ctx.save();
  ctx.font = `${10 * px}px sans-serif`;
  ctx.lineWidth = px;
  marks().forEach((w, i) => {
    if (w.t < u.scales.x.min || w.t > u.scales.x.max) return;
    const x = Math.round(u.valToPos(w.t, "x", true));
    ctx.strokeStyle = ctx.fillStyle = MARK[w.event] || "#999";
    ctx.beginPath();
    ctx.moveTo(x, top);
    ctx.lineTo(x, top + height);
    ctx.stroke();
    ctx.fillText(`${w.resource} ${w.event}`, x + 3 * px, top + (12 + 12 * (i % 3)) * px);
  });
  ctx.restore();
}

function seriesData(h, name, perSecond) {
  const v = h.series[name];
  if (!v || v.every((x) => x === null)) return null;
  if (!perSecond) return v;
  return v.map((x, i) => (x === null || i === 0 ? null : x / (h.t[i] - h.t[i - 1])));
}

function draw(h) {
  const root = document.getElementById("charts");
  const width = Math.max(560, Math.min(900, root.clientWidth / 2 - 40));
  let total = 0;
  for (const c of CHARTS) {
    const present = [];
    for (const [name, label, perSecond] of c.series) {
      const d = seriesData(h, name, perSecond);
      if (d) present.push({ name, label, data: d });
    }
    let box = document.getElementById(c.id);
    if (!box) {
      box = document.createElement("div");
      box.id = c.id;
      box.className = "chart";
      box.innerHTML = `<h3>${c.title}</h3><div class="plot"></div><div class="absent"></div>`;
      root.appendChild(box);
    }
    const key = present.map((p) => p.name).join(",");
    const data = [h.t, ...present.map((p) => p.data)];
    let plot = state.plots[c.id];
    if (plot && plot.key !== key) {
      plot.u.destroy();
      plot = null;
    }
    if (!plot && present.length > 0) {
      const opts = {
        width, height: 220,
        series: [{}, ...present.map((p, i) => ({ label: p.label, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: false }))],
        scales: { y: { range: (u, lo, hi) => [Math.min(0, lo), hi > 0 ? hi * 1.1 : 1] } },
        hooks: { draw: [warningMarks] },
      };
      plot = { key, u: new uPlot(opts, data, box.querySelector(".plot")) };
      state.plots[c.id] = plot;
    } else if (plot) {
      plot.u.setData(data);
    }
    const missing = c.series.filter((s) => !present.some((p) => p.name === s[0])).map((s) => s[1]);
    box.querySelector(".absent").textContent = missing.length ? `not on this server: ${missing.join(", ")}` : "";
    const points = present.reduce((n, p) => n + p.data.filter((x) => x !== null).length, 0);
    box.dataset.points = String(points);
    const first = present.length ? present[0].data.filter((x) => x !== null) : [];
    box.dataset.last = first.length ? String(first[first.length - 1]) : "";
    box.dataset.series = String(present.length);
    total += points;
  }
  document.body.dataset.points = String(total);
  document.body.dataset.warningMarks = String(marks().length);
}

function listWarnings() {
  const ul = document.getElementById("warnings");
  ul.textContent = "";
  const shown = marks().slice(-30).reverse();
  if (shown.length === 0) {
    ul.innerHTML = "<li>none</li>";
    return;
  }
  for (const w of shown) {
    const li = document.createElement("li");
    li.className = w.event;
    li.textContent = `${new Date(w.t * 1000).toLocaleTimeString()} ${w.resource} ${w.event}: ${w.message}`;
    ul.appendChild(li);
  }
}

async function refresh() {
  const status = document.getElementById("status");
  try {
    const resp = await fetch(historyURL(), { cache: "no-store" });
    if (!resp.ok) throw new Error(`${resp.status} ${await resp.text()}`);
    const h = await resp.json();
    state.warnings = h.warnings;
    draw(h);
    listWarnings();
    const rendered = Number(document.body.dataset.rendered || "0") + 1;
    document.body.dataset.rendered = String(rendered);
    status.textContent = `last ${minutes} min, ${h.t.length} samples, updated ${new Date().toLocaleTimeString()}`;
  } catch (e) {
    status.textContent = `cannot load the history: ${e.message}`;
  }
  setTimeout(refresh, REFRESH_MS);
}

refresh();
