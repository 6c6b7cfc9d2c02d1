// The dashboard's page: reads the hub through /api/... and builds the page with DOM calls.
// Every name from the hub is set as text (textContent), never parsed as markup. The page polls
// every REFRESH_MS, so a run's curves grow while it trains.
"use strict";

const REFRESH_MS = 2000;
const params = new URLSearchParams(location.search);
const project = params.get("project") || "default";
const charts = new Map();  // canvas key -> Chart, updated in place on each refresh

// el("td", {class: "x"}, "text", childNode, ...): strings become text nodes.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(c == null ? "" : String(c)));
  return node;
}

function link(path, query, text) {
  const q = new URLSearchParams(query);
  return el("a", {href: path + (q.toString() ? "?" + q : "")}, text);
}

function when(seconds) {
  return seconds > 0 ? new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19) : "";
}

function number(v) {
  return typeof v === "number" ? String(Number.isInteger(v) ? v : Number(v.toPrecision(4))) : String(v);
}

function bytes(n) {
  const units = ["B", "KiB", "MiB", "GiB"];
  let u = 0;
  while (n >= 1024 && u < units.length - 1) { n /= 1024; u++; }
  return (u ? n.toFixed(1) : n) + " " + units[u];
}

function status(text) {
  return el("span", {class: "status status-" + String(text).replace(/[^a-z]/g, "")}, text);
}

function table(headers, rows) {
  return el("table", {}, el("thead", {}, el("tr", {}, ...headers.map(h => el("th", {}, h)))),
            el("tbody", {}, ...rows.map(r => el("tr", {}, ...r.map(c => el("td", {}, c))))));
}

function section(id, title, ...content) {
  return el("section", {id}, el("h2", {}, title), ...content);
}

function truncated(list) {
  return list.truncated ? el("p", {class: "muted"}, "showing the newest rows only") : "";
}

async function api(path) {
  const res = await fetch(path, {credentials: "same-origin"});
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

function metricsText(metrics) {
  return Object.entries(metrics || {}).map(([k, v]) => k + " " + number(v)).join(", ");
}

// A line chart per key, kept across refreshes: datasets is [{label, x: [...], y: [...]}].
function lineChart(key, title, datasets, xLabel) {
  const palette = ["#1d5fa8", "#e07a1f", "#2a9d4b", "#b5302f", "#7b4bb3"];
  const data = {datasets: datasets.map((d, i) => ({
    label: d.label, data: d.x.map((x, j) => ({x, y: d.y[j]})), borderColor: palette[i % palette.length],
    backgroundColor: palette[i % palette.length], pointRadius: d.x.length > 50 ? 0 : 2, tension: 0}))};
  let entry = charts.get(key);
  if (!entry) {
    const canvas = el("canvas", {"data-chart": key, role: "img", "aria-label": title});
    const box = el("div", {class: "chart"}, canvas);
    const chart = typeof Chart === "undefined" ? null : new Chart(canvas, {
      type: "line", data,
      options: {animation: false, maintainAspectRatio: false, parsing: true,
                plugins: {title: {display: true, text: title}},
                scales: {x: {type: "linear", ticks: {precision: 0}, title: {display: true, text: xLabel}}}}});
    entry = {box, chart};
    charts.set(key, entry);
  } else if (entry.chart) {
    entry.chart.data = data;
    entry.chart.update("none");
  }
  return entry.box;
}

async function showProjects() {
  const {projects} = await api("/api/projects");
  const nav = document.getElementById("projects");
  nav.replaceChildren(...(projects.length ? projects : ["default"]).map(p => {
    const a = link("/", {project: p}, p);
    if (p === project) a.classList.add("current");
    return a;
  }));
}

async function overview() {
  const [models, runs, datasets, plans] = await Promise.all(
    ["models", "runs", "datasets", "plans"].map(k => api("/api/" + k + "?project=" + encodeURIComponent(project))));
  return [
    el("h1", {}, "Project ", el("span", {id: "project-name"}, project)),
    section("models", "Models", table(["Name", "Latest", "Versions", "Metrics (latest)", "Saved (UTC)"],
      models.rows.map(m => [link("/model", {project, name: m.name}, m.name), "v" + m.versions[0].version,
                            m.versions.length, metricsText(m.versions[0].metrics), when(m.versions[0].created_at)])),
      truncated(models)),
    section("runs", "Runs", table(["Id", "Name", "Status", "Started (UTC)", "Finished (UTC)"],
      runs.rows.map(r => [r.id, link("/run", {project, id: r.id}, r.name), status(r.status), when(r.created_at),
                          when(r.finished_at)])), truncated(runs)),
    section("datasets", "Datasets", table(["Name", "Version", "Kind", "Entries", "Size", "Saved (UTC)", "Description"],
      datasets.rows.map(d => [d.name, "v" + d.version, d.kind, d.entries, bytes(d.size_bytes), when(d.created_at),
                              d.description])), truncated(datasets)),
    section("plans", "Workflow plans", ...plans.rows.map(p => el("div", {class: "plan"},
      el("h3", {}, p.id ? "Plan " + p.id + " " : "Tasks without a plan ", el("span", {class: "plan-name"}, p.name), " ",
         el("span", {class: "muted"}, Object.entries(p.counts).map(([s, n]) => n + " " + s).join(", "))),
      table(["Task", "Name", "Kind", "Status", "Attempts", "Worker", "Model", "Error"],
        p.tasks.map(t => [t.id, t.name, t.kind, status(t.status), t.attempts, t.worker, t.model, t.error])))),
      plans.rows.length ? "" : el("p", {class: "muted"}, "no tasks"), truncated(plans)),
  ];
}

async function runPage() {
  const run = await api("/api/runs/" + encodeURIComponent(params.get("id") || ""));
  const byName = new Map();
  for (const s of run.series) {
    if (!byName.has(s.name)) byName.set(s.name, []);
    byName.get(s.name).push({label: s.split, x: s.steps, y: s.values});
  }
  return [
    el("h1", {}, "Run " + run.id + " ", el("span", {id: "run-name"}, run.name), " ", status(run.status)),
    el("p", {class: "muted"}, "started " + when(run.created_at) + (run.finished_at ? ", finished " + when(run.finished_at) : "")),
    section("curves", "Metrics", el("div", {class: "charts"},
      ...[...byName].map(([name, sets]) => lineChart("run-" + name, name, sets, name.startsWith("batch_") ? "batch" : "epoch"))),
      byName.size ? "" : el("p", {class: "muted"}, "no metrics logged yet"),
      run.series_truncated ? el("p", {class: "muted"}, "showing the first " + run.series.length + " series only") : ""),
    section("config", "Config", el("pre", {}, JSON.stringify(run.config, null, 2))),
    section("events", "Events", table(["Time (UTC)", "Kind", "Payload"],
      run.events.map(e => [when(e.time), e.kind, JSON.stringify(e.payload)])),
      run.events_truncated ? el("p", {class: "muted"}, "showing the newest events only") : ""),
  ];
}

async function modelPage() {
  const name = params.get("name") || "";
  const models = await api("/api/models?project=" + encodeURIComponent(project));
  const model = models.rows.find(m => m.name === name);
  if (!model) throw new Error("no model " + name + " in project " + project);
  const versions = [...model.versions].reverse();  // oldest first, for the curves
  const metricNames = [...new Set(versions.flatMap(v => Object.keys(v.metrics)))].sort();
  return [
    el("h1", {}, "Model ", el("span", {id: "model-name"}, model.name)),
    section("metric-curves", "Metrics by version", el("div", {class: "charts"}, ...metricNames.map(m =>
      lineChart("model-" + m, m, [{label: m, x: versions.filter(v => m in v.metrics).map(v => v.version),
                                   y: versions.filter(v => m in v.metrics).map(v => v.metrics[m])}], "version")))),
    section("versions", "Versions", table(["Version", "Saved (UTC)", "Size", "Run", "Tags", ...metricNames],
      model.versions.map(v => ["v" + v.version, when(v.created_at), bytes(v.size_bytes),
                               v.run_id ? link("/run", {project, id: v.run_id}, "run " + v.run_id) : "",
                               v.tags.join(", "), ...metricNames.map(m => m in v.metrics ? number(v.metrics[m]) : "")]))),
  ];
}

const pages = {"/": overview, "/run": runPage, "/model": modelPage};

async function refresh() {
  const page = document.getElementById("page");
  const statusLine = document.getElementById("status");
  try {
    await showProjects();
    page.replaceChildren(...(await pages[location.pathname]()));
    statusLine.textContent = "updated " + new Date().toLocaleTimeString();
    document.body.dataset.loaded = "true";
  } catch (e) {
    page.replaceChildren(el("section", {id: "error"}, el("h2", {}, "Error"), el("p", {}, e.message)));
    document.body.dataset.loaded = "error";
  }
}

refresh();
setInterval(refresh, REFRESH_MS);
