// memcli ui: the page.  Everything from memory reaches the DOM as text (createTextNode,
// textContent), never as HTML: there is no innerHTML in this file.
"use strict";

const TOKEN = document.querySelector('meta[name="memcli-token"]').content;
const SECTIONS = ["project", "pinned", "handoff", "decisions", "lessons", "tasks", "snapshot"];
const state = { overview: null, agent: "", category: "", tag: "", offset: 0, selected: null };

// -- small helpers -----------------------------------------------------------------------------

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "on") for (const [ev, fn] of Object.entries(value)) node.addEventListener(ev, fn);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "style") for (const [k, v] of Object.entries(value)) node.style.setProperty(k, v); // CSSOM: CSP allows it
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const $ = (id) => document.getElementById(id);

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

function say(text, ok) {
  const box = $("message");
  box.textContent = text;
  box.className = ok ? "ok" : "";
  box.hidden = !text;
  if (ok) setTimeout(() => { if (box.textContent === text) box.hidden = true; }, 4000);
}

async function get(path, params) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== "" && v !== undefined && v !== null) query.set(k, v);
  const response = await fetch(`${path}?${query}`, { headers: { "X-Memcli-Token": TOKEN } });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

async function post(action, body) {
  const response = await fetch(`/api/${action}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Memcli-Token": TOKEN },
    body: JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function guarded(fn) {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (err) {
      say(err.message || String(err));
    }
  };
}

// -- Markdown, rendered as DOM nodes ---------------------------------------------------------

const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*)|(!?\[[^\]]*\]\([^)\s]*\))/g;

function inline(text) {
  const out = [];
  let at = 0;
  INLINE.lastIndex = 0;
  for (let m = INLINE.exec(text); m; m = INLINE.exec(text)) { // one pass over the text
    if (m.index > at) out.push(text.slice(at, m.index));
    const token = m[0];
    if (m[1]) out.push(el("code", {}, token.slice(1, -1)));
    else if (m[2]) out.push(el("strong", {}, token.slice(2, -2)));
    else if (m[3]) out.push(el("em", {}, token.slice(1, -1)));
    else {
      const image = token.startsWith("!");
      const [, label, url] = /!?\[([^\]]*)\]\(([^)\s]*)\)/.exec(token);
      if (!image && /^https?:\/\//i.test(url)) {
        const a = el("a", { rel: "noopener noreferrer", target: "_blank" }, label || url);
        a.href = url;
        out.push(a);
      } else {
        out.push(token); // an image or a link of another scheme (javascript:, data:) stays text
      }
    }
    at = m.index + token.length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

function markdown(text) {
  const root = el("div", { class: "md" });
  const lines = text.split("\n");
  let para = [];
  let list = null;
  const flush = () => {
    if (para.length) root.append(el("p", {}, inline(para.join(" "))));
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*```/.test(line)) {
      flush(); list = null;
      const code = [];
      for (i++; i < lines.length && !/^\s*```/.test(lines[i]); i++) code.push(lines[i]);
      root.append(el("pre", {}, el("code", {}, code.join("\n"))));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (heading) {
      flush(); list = null;
      root.append(el("h4", {}, inline(heading[2])));
    } else if (item) {
      flush();
      if (!list) { list = el("ul"); root.append(list); }
      const task = /^\[( |x|X)\]\s*(.*)$/.exec(item[1]);
      if (task) {
        list.append(el("li", {}, el("input", { type: "checkbox", checked: task[1] !== " ", disabled: true }), " ", inline(task[2])));
      } else {
        list.append(el("li", {}, inline(item[1])));
      }
    } else if (!line.trim()) {
      flush(); list = null;
    } else {
      list = null;
      para.push(line);
    }
  }
  flush();
  return root;
}

// -- the agents column (what `memcli status` says) -----------------------------------------------

function age(hours) {
  return hours < 48 ? `${hours.toFixed(1)} h` : `${(hours / 24).toFixed(1)} days`;
}

function renderAgents() {
  const box = clear($("agents"));
  const ov = state.overview;
  box.append(el("div", { class: "agent" },
    el("button", { type: "button", class: state.agent ? "link" : "link active", on: { click: () => choose("", "") } }, "every agent")));
  const names = Object.keys(ov.agents);
  if (!names.length) box.append(el("p", { class: "dim" }, "No memory yet."));
  for (const name of names) {
    const info = ov.agents[name];
    const cats = el("div", { class: "cats" });
    for (const [cat, row] of Object.entries(info.categories)) {
      if (!row.entries) continue;
      const active = state.agent === name && state.category === cat;
      cats.append(el("button", { type: "button", class: active ? "active" : "", dataset: { agent: name, category: cat },
        on: { click: () => choose(name, cat) } }, `${cat} `, el("span", { class: "dim" }, String(row.shown ?? row.entries))));
    }
    const cp = info.checkpoint;
    const facts = el("div", { class: "facts" },
      el("div", {}, `${info.entries} entries, ${info.open_tasks} open tasks`),
      el("div", {}, `last handoff: ${info.last_handoff ? info.last_handoff.date : "none"}`),
      el("div", {}, `checkpoint: ${cp ? age(cp.age_hours) + (cp.valid ? "" : " (expired)") : "none"}`));
    box.append(el("div", { class: "agent", dataset: { agent: name } },
      el("button", { type: "button", class: "link" + (state.agent === name && !state.category ? " active" : ""),
        on: { click: () => choose(name, "") } }, name), facts, cats));
  }
  const idx = ov.index;
  const status = !idx.exists ? "index not built yet" : idx.fresh ? "index up to date" : "index behind (the next search updates it)";
  const git = ov.git ? `branch ${ov.git.branch}, ${ov.git.uncommitted} uncommitted memory changes` : "not in git";
  box.append(el("div", { class: "facts" }, el("div", {}, status), el("div", {}, git)));
  for (const problem of ov.problems) box.append(el("div", { class: "facts" }, `⚠ ${problem}`));
}

function fillSelects() {
  const ov = state.overview;
  const agents = Object.keys(ov.agents);
  for (const [id, first] of [["search-agent", "every agent"], ["preview-agent", null]]) {
    const select = clear($(id));
    if (first) select.append(el("option", { value: "" }, first));
    for (const name of agents) select.append(el("option", { value: name }, name));
  }
  for (const [id, first] of [["search-category", "every category"], ["add-category", null]]) {
    const select = clear($(id));
    if (first) select.append(el("option", { value: "" }, first));
    for (const cat of ov.categories) select.append(el("option", { value: cat }, cat));
  }
}

// -- entries ---------------------------------------------------------------------------------

function chips(tags) {
  return tags.map((t) => el("button", { type: "button", class: "chip" + (["archived", "pinned"].includes(t) ? " state" : ""),
    dataset: { tag: t }, on: { click: (ev) => { ev.stopPropagation(); filterTag(t); } } }, `#${t}`));
}

function entryCard(row, pieces) {
  const head = el("div", { class: "head" },
    el("span", {}, String(row.id)), el("span", {}, `${row.agent}/${row.category}`), el("span", {}, row.date || ""),
    chips(row.tags),
    row.stale && row.stale.length ? el("span", { class: "chip stale" }, `cites ${row.stale.join(", ")}, gone`) : null,
    row.superseded_by ? el("span", { class: "chip state" }, `superseded by ${row.superseded_by}`) : null,
    row.held ? el("span", { class: "chip stale held", title: row.held }, "held back") : null);
  const more = row.body.trim().split("\n").length > 1; // a one-line body is its title
  const body = pieces
    ? el("div", { class: "snippet" }, pieces.map(([text, marked]) => (marked ? el("mark", {}, text) : text)))
    : more ? markdown(row.body) : null;
  return el("article", { class: "card entry", dataset: { id: String(row.id), agent: row.agent },
    on: { click: () => openEntry(row.agent, row.id) } }, head, el("div", { class: "title" }, inline(row.title || "")), body);
}

const loadEntries = guarded(async (append) => {
  if (!append) state.offset = 0;
  const data = await get("/api/entries", { agent: state.agent, category: state.category, tag: state.tag,
    offset: state.offset, hidden: $("show-hidden").checked ? "1" : "" });
  const box = $("entries");
  if (!append) clear(box);
  for (const row of data.entries) box.append(entryCard(row));
  if (!append && !data.entries.length) box.append(el("p", { class: "dim" }, "No entries here."));
  state.offset += data.entries.length;
  $("more").hidden = !data.more;
});

function choose(agent, category) {
  state.agent = agent;
  state.category = category;
  $("where").textContent = agent ? `${agent}${category ? " / " + category : ""}` : "All entries";
  showTab("memory");
  renderAgents();
  loadEntries(false);
}

function filterTag(tag) {
  state.tag = tag;
  $("tag-filter").hidden = !tag;
  $("tag-filter-name").textContent = `#${tag}`;
  showTab("memory");
  loadEntries(false);
}

// -- one entry: its text, versions, history and what can be done with it ------------------------

const openEntry = guarded(async (agent, id) => {
  const row = await get("/api/entry", { agent, id });
  state.selected = row;
  const box = clear($("detail"));
  box.hidden = false;
  box.append(el("div", { class: "row" }, el("strong", {}, `${row.agent}/${row.category} ${row.id}`),
    el("button", { type: "button", class: "link", on: { click: () => { box.hidden = true; } } }, "close")));
  box.append(el("div", { class: "head" }, el("span", {}, row.date || ""), chips(row.tags)));
  if (row.superseded_by) box.append(el("p", {}, "Superseded by ",
    el("button", { type: "button", class: "link", on: { click: () => openEntry(row.agent, row.superseded_by) } }, String(row.superseded_by))));
  for (const old of row.replaces) box.append(el("p", { class: "dim" }, "Replaces ",
    el("button", { type: "button", class: "link", on: { click: () => openEntry(row.agent, old) } }, String(old))));
  if (row.stale.length) box.append(el("p", { class: "chip stale" }, `cites ${row.stale.join(", ")}, gone from the work tree`));
  if (row.held) box.append(el("p", { class: "chip stale held", id: "detail-held" }, `held back from agents: ${row.held}`));
  box.append(el("div", { id: "detail-body" }, markdown(row.body)));

  const actions = el("div", { class: "row write" });
  const flag = (on, off, tag) => row.tags.includes(tag)
    ? el("button", { type: "button", id: `act-${off}`, on: { click: () => act(off) } }, off)
    : el("button", { type: "button", id: `act-${on}`, on: { click: () => act(on) } }, on);
  actions.append(
    el("button", { type: "button", id: "act-edit", on: { click: () => editor("edit", row.body, row.tags.join(" ")) } }, "Edit"),
    el("button", { type: "button", id: "act-supersede", on: { click: () => editor("supersede", row.body, "") } }, "Supersede"),
    /- \[ \]/.test(row.body) ? el("button", { type: "button", id: "act-done", on: { click: () => act("done") } }, "Tasks done") : null,
    flag("pin", "unpin", "pinned"), flag("archive", "unarchive", "archived"),
    row.held ? el("button", { type: "button", id: "act-trust", on: { click: () => act("trust") } }, "Trust") : null,
    el("button", { type: "button", id: "act-rm", class: "danger", on: { click: () => {
      if (confirm(`Remove entry ${row.id}?`)) act("rm");
    } } }, "Remove"));
  box.append(actions, el("div", { id: "editor" }));

  box.append(el("h4", {}, "History"));
  if (!row.history.length) box.append(el("p", { class: "dim" }, row.file ? "Not committed yet." : "No file found."));
  else box.append(el("ul", {}, row.history.map((c) => el("li", {}, el("code", {}, c.commit), ` ${c.date.slice(0, 10)} ${c.author}: ${c.subject}`))));
  if (row.file) box.append(el("p", { class: "dim" }, row.file));
});

function editor(action, text, tags) {
  const box = clear($("editor"));
  const area = el("textarea", { id: "editor-text", rows: 8 });
  area.value = text;
  const tagInput = el("input", { id: "editor-tags", placeholder: "tags", autocomplete: "off" });
  tagInput.value = tags;
  box.append(el("form", { class: "card", on: { submit: (ev) => { ev.preventDefault(); act(action, { text: area.value, tags: tagInput.value }); } } },
    el("strong", {}, action === "edit" ? "Edit" : "Supersede with a new version"), area,
    el("div", { class: "row" }, el("label", {}, "Tags ", tagInput),
      el("button", { type: "submit", id: "editor-save" }, action === "edit" ? "Save" : "Supersede"),
      el("button", { type: "button", class: "link", on: { click: () => clear(box) } }, "Cancel"))));
  area.focus();
}

const act = guarded(async (action, extra) => {
  const row = state.selected;
  const body = { agent: row.agent, id: row.id, ...(extra || {}) };
  if (extra && "tags" in extra) body.tags = extra.tags.split(/[\s,]+/).filter(Boolean);
  const result = await post(action, body);
  say(result.message, true);
  await refresh();
  if (action === "rm") $("detail").hidden = true;
  else await openEntry(row.agent, result.id);
});

async function refresh() {
  state.overview = await get("/api/overview");
  renderAgents();
  await loadEntries(false);
}

const addEntry = guarded(async (ev) => {
  ev.preventDefault();
  const result = await post("add", { agent: $("add-agent").value.trim(), category: $("add-category").value,
    text: $("add-text").value, tags: $("add-tags").value.split(/[\s,]+/).filter(Boolean) });
  say(result.message, true);
  $("add-text").value = "";
  $("add-form").hidden = true;
  state.overview = await get("/api/overview");
  fillSelects();
  renderAgents();
  await loadEntries(false);
  await openEntry($("add-agent").value.trim(), result.id);
});

// -- search as you type ------------------------------------------------------------------------

let searchTimer = null;
let searchSeq = 0;
const runSearch = guarded(async () => {
  const seq = ++searchSeq;
  const data = await get("/api/search", { q: $("search-input").value, agent: $("search-agent").value,
    category: $("search-category").value, tag: $("search-tag").value.replace(/^#/, "") });
  if (seq !== searchSeq) return; // an older answer that came late
  const box = clear($("results"));
  $("search-notice").textContent = data.notice || "";
  for (const hit of data.hits) box.append(entryCard(hit, hit.pieces));
  if ($("search-input").value.trim() && !data.hits.length) box.append(el("p", { class: "dim" }, "Nothing found."));
});

function searchSoon() {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(runSearch, 120);
}

// -- preview inject ----------------------------------------------------------------------------

const runPreview = guarded(async (ev) => {
  if (ev) ev.preventDefault();
  const data = await get("/api/preview", { agent: $("preview-agent").value, task: $("preview-task").value,
    budget: $("preview-budget").value });
  $("preview-block").textContent = data.block || "(an empty block: nothing to tell this agent)";
  $("preview-explain").textContent = [...data.warnings, ...data.explain].join("\n");
  const bar = clear($("budget-bar"));
  const legend = clear($("budget-legend"));
  const scale = Math.max(data.budget, data.tokens);
  let counted = 0;
  for (const name of SECTIONS) {
    const n = data.costs[name] || 0;
    counted += n;
    if (!n) continue;
    bar.append(el("div", { class: `s-${name}`, dataset: { section: name, tokens: String(n) }, title: `${name}: ${n} tokens`,
      style: { width: `${(100 * n) / scale}%` } }));
    legend.append(el("span", { class: `s-${name}` }, `${name} ${n}`));
  }
  const frame = Math.max(0, data.tokens - counted); // headings and the block's frame
  if (frame) bar.append(el("div", { class: "s-other", title: `headings and frame: ${frame} tokens`, style: { width: `${(100 * frame) / scale}%` } }));
  legend.append(el("span", { class: "s-other" }, `headings ${frame}`),
    el("span", { class: "s-free", id: "budget-total" }, `${data.tokens} of ${data.budget} tokens`));
});

// -- pictures ----------------------------------------------------------------------------------

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = ["#2f5bd3", "#9c5bd3", "#d35b7a", "#5aa469", "#e0a23b", "#6bb7c7", "#8da2d6", "#c7ccd6"];

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

function stacked(box, months, counts) {
  clear(box);
  const keys = [...new Set(months.flatMap((m) => Object.keys(counts[m] || {})))].sort();
  if (!months.length) { box.append(el("p", { class: "dim" }, "No entries yet.")); return; }
  const width = 640, height = 180, pad = 24;
  const max = Math.max(1, ...months.map((m) => Object.values(counts[m] || {}).reduce((a, b) => a + b, 0)));
  const step = Math.min(48, (width - pad) / months.length); // one month alone is a bar, not the whole width
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height + 30}`, width: "100%", role: "img" });
  months.forEach((m, i) => {
    let y = height;
    keys.forEach((k, j) => {
      const n = (counts[m] || {})[k] || 0;
      if (!n) return;
      const h = ((height - 10) * n) / max;
      y -= h;
      chart.append(svg("rect", { x: pad + i * step + 1, y, width: Math.max(1, step - 2), height: h, fill: COLOURS[j % COLOURS.length] },
        svg("title", {}, `${m} ${k}: ${n}`)));
    });
    if (months.length <= 24 || i % Math.ceil(months.length / 12) === 0)
      chart.append(svg("text", { x: pad + i * step + 2, y: height + 14 }, m));
  });
  chart.append(svg("text", { x: 0, y: 10 }, String(max)));
  box.append(chart, el("div", { class: "legend" }, keys.map((k, j) => el("span", { style: { "--swatch": COLOURS[j % COLOURS.length] } }, k))));
}

const loadTimeline = guarded(async () => {
  const data = await get("/api/timeline");
  stacked($("chart-category"), data.months, data.by_category);
  stacked($("chart-agent"), data.months, data.by_agent);
  const last = data.last_compaction;
  $("compaction").textContent = last ? JSON.stringify(last, null, 2) : "Never compacted.";
});

// -- tabs and start ------------------------------------------------------------------------------

// -- held back: what `memcli review` lists, each with trust and remove ----------------------------

const loadReview = guarded(async () => {
  const data = await get("/api/review");
  const box = clear($("review"));
  const held = data.items.filter((i) => i.kind !== "allowed");
  $("review-tab").textContent = held.length ? `Held back (${held.length})` : "Held back";
  if (!data.items.length) box.append(el("p", { class: "dim" }, "Nothing is held back."));
  for (const item of data.items) {
    const name = item.id === null ? "_project" : `${item.agent}/${item.category} ${item.id}`;
    const c = item.commit;
    const buttons = item.kind === "allowed" ? null : el("div", { class: "row write" },
      el("button", { type: "button", class: "review-trust", on: { click: () => settle("trust", item) } }, "Trust"),
      item.id === null ? null : el("button", { type: "button", class: "danger review-rm", on: { click: () => {
        if (confirm(`Remove entry ${item.id}?`)) settle("rm", item);
      } } }, "Remove"));
    box.append(el("article", { class: "card review-item", dataset: { id: String(item.id), kind: item.kind } },
      el("div", { class: "head" }, el("strong", {}, name), el("span", { class: "chip stale" }, item.kind)),
      el("p", {}, item.reason),
      c ? el("p", { class: "dim" }, `commit ${c.id.slice(0, 12)} by ${c.author}, ${c.date}${c.ref ? ", on " + c.ref : ""}: ${c.subject}`) : null,
      el("pre", { class: "review-text" }, item.text), // as text: invisible characters already shown as marks
      buttons));
  }
});

const settle = guarded(async (action, item) => {
  const result = await post(action, item.id === null ? { project: true } : { agent: item.agent, id: item.id });
  say(result.message, true);
  await loadReview();
  await refresh();
});

function showTab(name) {
  for (const b of document.querySelectorAll("button.tab")) b.classList.toggle("active", b.dataset.tab === name);
  for (const s of document.querySelectorAll(".tab-body")) s.hidden = s.id !== `tab-${name}`;
  if (name === "timeline") loadTimeline();
  if (name === "review") loadReview();
  if (name === "search") $("search-input").focus();
}

const start = guarded(async () => {
  for (const b of document.querySelectorAll("button.tab")) b.addEventListener("click", () => showTab(b.dataset.tab));
  $("more").addEventListener("click", () => loadEntries(true));
  $("show-hidden").addEventListener("change", () => loadEntries(false));
  $("tag-clear").addEventListener("click", () => filterTag(""));
  $("new-entry").addEventListener("click", () => {
    $("add-form").hidden = false;
    $("add-agent").value = state.agent || $("add-agent").value;
    if (state.category) $("add-category").value = state.category;
    $("add-text").focus();
  });
  $("add-cancel").addEventListener("click", () => { $("add-form").hidden = true; });
  $("add-form").addEventListener("submit", addEntry);
  $("search-input").addEventListener("input", searchSoon);
  for (const id of ["search-agent", "search-category", "search-tag"]) $(id).addEventListener("change", searchSoon);
  $("search-tag").addEventListener("input", searchSoon);
  $("preview-form").addEventListener("submit", runPreview);
  const [overview] = await Promise.all([get("/api/overview"), loadEntries(false)]);
  state.overview = overview;
  document.body.classList.toggle("read-only", overview.read_only);
  $("mode").textContent = overview.read_only ? "read-only" : "";
  $("root").textContent = overview.root;
  const unreviewed = (overview.trust && overview.trust.unreviewed.length) || 0;
  if (unreviewed) $("review-tab").textContent = `Held back (${unreviewed})`;
  fillSelects();
  renderAgents();
  document.body.dataset.readyMs = String(Math.round(performance.now())); // since the navigation started
  document.body.dataset.ready = "1";
});

start();
