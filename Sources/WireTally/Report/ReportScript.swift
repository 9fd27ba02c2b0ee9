/// The report's scripts: `errorCatcher` runs first and shows any script error in the page
/// (`#script-errors`, for people and for the browser tests); `render` builds every section from the
/// JSON data block with DOM calls only (text is never parsed as HTML).
enum ReportScript {
    static let errorCatcher = #"""
(function () {
  "use strict";
  var box = document.getElementById("script-errors");
  function show(message) {
    box.hidden = false;
    var item = document.createElement("li");
    item.textContent = String(message);
    box.querySelector("ul").appendChild(item);
    box.setAttribute("data-count", String(box.querySelectorAll("li").length));
  }
  window.onerror = function (message, source, line, column) { show(message + " (line " + line + ":" + column + ")"); };
  window.addEventListener("unhandledrejection", function (event) { show("unhandled rejection: " + event.reason); });
  var consoleError = console.error;
  console.error = function () { show(Array.prototype.join.call(arguments, " ")); consoleError.apply(console, arguments); };
})();
"""#

    static let render = #"""
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const SVG = "http://www.w3.org/2000/svg";
  const PHASES = ["dns", "connect", "ssl", "send", "wait", "receive"];
  const PHASE_NAMES = { dns: "DNS lookup", connect: "TCP connect", ssl: "TLS handshake", send: "Request sent", wait: "Waiting (TTFB)", receive: "Content download" };
  const PAGE = 1000;  // waterfall rows drawn at a time
  const TABLE_ROWS = 2000;  // table rows drawn (the data has them all)

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (value === null || value === undefined) continue;
      if (key === "text") node.textContent = String(value); else node.setAttribute(key, String(value));
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }
  function svg(tag, attributes, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, String(value));
    for (const child of children) node.append(child);
    return node;
  }
  function tip(text) { return svg("title", {}, text); }
  function objects(table) {
    return table.rows.map(row => { const object = {}; table.columns.forEach((name, i) => { object[name] = row[i]; }); return object; });
  }
  const integer = n => (n === null || n === undefined) ? "–" : Number(n).toLocaleString("en-US");
  function bytes(n) {
    if (n === null || n === undefined) return "–";
    const a = Math.abs(n);
    if (a < 1000) return n + " B";
    if (a < 1e6) return (n / 1e3).toFixed(a < 1e4 ? 2 : 1) + " kB";
    if (a < 1e9) return (n / 1e6).toFixed(a < 1e7 ? 2 : 1) + " MB";
    return (n / 1e9).toFixed(2) + " GB";
  }
  function ms(n) {
    if (n === null || n === undefined || n < 0) return "–";
    if (n < 10) return n.toFixed(3) + " ms";
    if (n < 1000) return n.toFixed(1) + " ms";
    if (n < 60000) return (n / 1000).toFixed(2) + " s";
    return (n / 60000).toFixed(1) + " min";
  }
  const percent = (share, digits) => (100 * share).toFixed(digits === undefined ? 1 : digits) + " %";
  function numberCell(value, text, title) {
    return el("td", { class: "num", "data-value": value, title: title || (typeof value === "number" ? integer(value) + (text.endsWith("B") ? " bytes" : "") : null), text: text });
  }
  // A table whose columns sort when their header is clicked (numbers by their data-value).
  function table(id, headers, rows) {
    const body = el("tbody", {}, ...rows);
    const head = el("tr", {}, ...headers.map(([name, numeric], column) => {
      const th = el("th", { class: numeric ? "num sortable" : "sortable", title: "sort", text: name });
      th.addEventListener("click", () => sortBy(body, column, numeric, th));
      return th;
    }));
    return el("div", { class: "table-scroll" }, el("table", { id: id }, el("thead", {}, head), body));
  }
  function sortBy(body, column, numeric, th) {
    const descending = th.getAttribute("data-sort") !== "descending";
    for (const other of th.parentNode.children) other.removeAttribute("data-sort");
    th.setAttribute("data-sort", descending ? "descending" : "ascending");
    const key = row => {
      const cell = row.children[column];
      if (!numeric) return cell.textContent;
      const value = Number(cell.getAttribute("data-value"));
      return Number.isFinite(value) && cell.hasAttribute("data-value") ? value : -Infinity;
    };
    const sorted = [...body.children].sort((a, b) => {
      const x = key(a), y = key(b);
      const order = x < y ? -1 : x > y ? 1 : 0;
      return descending ? -order : order;
    });
    body.replaceChildren(...sorted);
  }
  // "2xx"…, "encrypted" (a TLS exchange: its status is not visible), "no response".
  function statusClass(x) {
    if (x.status !== null) return String(x.status)[0] + "xx";
    return x.flags.includes("encrypted") ? "encrypted" : "no response";
  }
  function flagBadges(flags) { return flags.map(flag => el("span", { class: "badge flag", text: flag })); }

  // ---------- header
  document.getElementById("report-files").textContent = data.files.join("  ·  ") + "  ·  level " + data.level;

  // ---------- summary
  function renderSummary() {
    const s = data.summary, t = data.totals;
    const cards = document.getElementById("summary-cards");
    function card(id, label, value, text, sub, bad) {
      cards.append(el("div", { class: "card" + (bad ? " bad" : "") },
        el("div", { class: "label", text: label }),
        el("div", { class: "value", id: id, "data-value": value, title: Number.isInteger(value) ? integer(value) : String(value), text: text }),
        sub ? el("div", { class: "sub", text: sub }) : null));
    }
    const duration = s.duration_ms === null ? 0 : Number(s.duration_ms);
    const total = t.up_ip_bytes + t.down_ip_bytes;
    card("summary-duration", "Duration", s.duration_ms, ms(duration), integer(s.packets) + " packets");
    card("summary-requests", "Requests", t.requests, integer(t.requests), "HTTP exchanges");
    card("summary-connections", "Connections", s.connections + s.quic_connections, integer(s.connections + s.quic_connections),
      integer(s.quic_connections) + " QUIC, " + integer(s.flows) + " other flows");
    card("summary-up", "Up (IP bytes)", t.up_ip_bytes, bytes(t.up_ip_bytes), integer(t.up_ip_bytes) + " B · HTTP " + bytes(t.http_up_ip_bytes));
    card("summary-down", "Down (IP bytes)", t.down_ip_bytes, bytes(t.down_ip_bytes), integer(t.down_ip_bytes) + " B · HTTP " + bytes(t.http_down_ip_bytes));
    card("summary-overhead", "Overhead", Number(t.overhead_share), percent(Number(t.overhead_share)), bytes(t.overhead_bytes) + " of " + bytes(total));
    card("summary-http-errors", "HTTP errors", t.http_errors, integer(t.http_errors), "status ≥ 400 or no response", t.http_errors > 0);
    card("summary-dns", "DNS lookups", s.dns_transactions, integer(s.dns_transactions), null);
    card("summary-input-errors", "Input errors", data.errors.length, integer(data.errors.length), data.errors.length ? "see below" : "capture read completely", data.errors.length > 0);
    document.getElementById("summary-message-bytes").textContent = integer(t.message_bytes);
    if (data.errors.length) {
      const list = el("ul", { id: "input-error-list" }, ...data.errors.map(error => el("li", { text: error })));
      document.getElementById("summary").append(el("div", { class: "input-errors" }, el("strong", { text: "The input had problems: the report shows what was read before them." }), list));
    }
  }

  // ---------- waterfall
  function renderWaterfall() {
    const exchanges = objects(data.exchanges);
    let end = 0;
    for (const x of exchanges) {
      const span = Math.max(x.total, PHASES.reduce((sum, p) => sum + Math.max(0, x[p]), 0), 0);
      x.startMs = Number(x.start_ms || 0);
      x.span = span;
      end = Math.max(end, x.startMs + span);
    }
    end = end > 0 ? end : 1;
    const legend = document.getElementById("waterfall-legend");
    for (const p of PHASES) legend.append(el("span", {}, el("i", { style: "background: var(--" + p + ")" }), PHASE_NAMES[p]));

    const filters = { host: document.getElementById("filter-host"), endpoint: document.getElementById("filter-endpoint"),
                      status: document.getElementById("filter-status"), q: document.getElementById("filter-text") };
    const options = (select, values) => { for (const v of values) select.append(el("option", { value: v, text: v })); };
    options(filters.host, [...new Set(exchanges.map(x => x.host))].sort());
    options(filters.endpoint, [...new Set(exchanges.map(x => x.endpoint))].sort());
    options(filters.status, [...new Set(exchanges.map(x => statusClass(x)))].sort());

    const container = document.getElementById("waterfall-rows");
    const count = document.getElementById("waterfall-count");
    const more = document.getElementById("waterfall-more");
    container.setAttribute("data-total", exchanges.length);
    const axis = el("div", { class: "wf-axis" });
    const ticks = 5;
    for (let i = 0; i <= ticks; i++) {
      const at = end * i / ticks;
      const label = el("span", { text: ms(at) });
      label.style.left = (100 * i / ticks) + "%";
      if (i === ticks) label.style.transform = "translateX(-100%)";
      axis.append(label);
    }
    const head = el("div", { class: "wf-row wf-head" }, el("div", { text: "#" }), el("div", { text: "Status" }), el("div", { text: "Method" }),
      el("div", { text: "URL" }), el("div", { class: "num", text: "Up" }), el("div", { class: "num", text: "Down" }), el("div", {}, axis));

    const scale = v => 1000 * v / end;
    // HTTP/2: the streams of a connection run at the same time; the model keeps them together, and each
    // group gets a header row with the connection, its streams' time span and its connection-level bytes.
    const connectionsByID = new Map(objects(data.connections).map(c => [c.id, c]));
    const streamGroups = new Map();
    for (const x of exchanges) {
      if (x.stream === null || x.stream === undefined) continue;
      const g = streamGroups.get(x.conn) || { streams: 0, first: Infinity, last: 0, up: 0, down: 0, shareUp: 0, shareDown: 0, pushed: 0, version: x.version };
      g.streams += 1; g.first = Math.min(g.first, x.startMs); g.last = Math.max(g.last, x.startMs + x.span);
      g.up += x.up; g.down += x.down; g.shareUp += x.share_up || 0; g.shareDown += x.share_down || 0;
      if (x.pushed_by !== null) g.pushed += 1;
      streamGroups.set(x.conn, g);
    }
    function groupRow(id) {
      const g = streamGroups.get(id), c = connectionsByID.get(id) || {};
      const peers = (c.client || "?") + " → " + (c.server || "?");
      const title = "connection " + id + " · " + peers + (c.tls ? " · " + c.tls : "") + "\n" + g.streams + " HTTP/2 streams"
        + (g.pushed ? " (" + g.pushed + " pushed)" : "") + " from +" + g.first.toFixed(3) + " to +" + g.last.toFixed(3) + " ms\n"
        + "up " + integer(g.up) + " B, down " + integer(g.down) + " B (IP)\nconnection-level frames (preface, SETTINGS, PING, WINDOW_UPDATE, GOAWAY…) shared among the streams: up "
        + integer(g.shareUp) + " B, down " + integer(g.shareDown) + " B";
      const bar = svg("svg", { viewBox: "0 0 1000 14", preserveAspectRatio: "none" },
        svg("rect", { x: scale(g.first), y: 3, width: Math.max(scale(g.last - g.first), 0.8), height: 8, rx: 1, fill: "var(--conn)", "data-span": "connection" },
          tip("streams of connection " + id + ": +" + ms(g.first) + " to +" + ms(g.last))));
      return el("div", { class: "wf-group", "data-conn": id, "data-streams": g.streams, title: title },
        el("div", { class: "num", text: "" }), el("div", { text: "" }), el("div", { class: "proto", text: g.version === "HTTP/2" ? "h2" : (g.version || "h2") }),
        el("div", { class: "url" }, el("span", { text: "connection " + id + " · " + g.streams + " streams · " }), el("span", { class: "host", text: peers })),
        el("div", { class: "num", "data-value": g.up, text: bytes(g.up) }),
        el("div", { class: "num", "data-value": g.down, text: bytes(g.down) }),
        el("div", { class: "wf-bar" }, bar));
    }

    function row(x) {
      const bar = svg("svg", { viewBox: "0 0 1000 14", preserveAspectRatio: "none" });
      let at = x.startMs;
      for (const p of PHASES) {
        if (x[p] < 0) continue;
        const width = Math.max(scale(x[p]), 0.8);
        bar.append(svg("rect", { x: scale(at), y: 2, width: width, height: 10, fill: "var(--" + p + ")", "data-phase": p },
          tip(PHASE_NAMES[p] + ": " + ms(x[p]) + " (" + x[p] + " ms)")));
        at += x[p];
      }
      if (PHASES.every(p => x[p] < 0)) bar.append(svg("rect", { x: scale(x.startMs), y: 4, width: 2, height: 6, fill: "#98a2b3" }, tip("no timing")));
      const encrypted = x.status === null && x.flags.includes("encrypted");
      const status = x.status !== null ? String(x.status) : encrypted ? "TLS" : "–";
      const timings = PHASES.filter(p => x[p] >= 0).map(p => p + " " + x[p] + " ms").join(", ");
      const stream = x.stream !== null && x.stream !== undefined;
      const shared = x.share_up !== null && x.share_up !== undefined;
      const http2 = stream ? "\n" + x.version + " stream " + x.stream + " of connection " + x.conn + (x.pushed_by !== null && x.pushed_by !== undefined ? ", pushed by stream " + x.pushed_by : "")
        + (shared ? "\nconnection-level frames given to this stream: up " + integer(x.share_up) + " B, down " + integer(x.share_down) + " B (in up/down)" : "") : "";
      const title = (x.method || "?") + " " + x.host + (x.target || "") + "\nstatus " + status + " · start +" + x.start_ms + " ms · total " + x.total + " ms\n"
        + timings + "\nup " + integer(x.up) + " B, down " + integer(x.down) + " B (IP)" + http2 + (x.flags.length ? "\nflags: " + x.flags.join(", ") : "");
      return el("div", { class: "wf-row", "data-id": x.id, "data-status": x.status, "data-up": x.up, "data-down": x.down,
                         "data-conn": x.conn, "data-stream": stream ? x.stream : null, "data-pushed-by": stream ? x.pushed_by : null, title: title },
        el("div", { class: "num", text: x.id }),
        el("div", { class: "status-" + (x.status !== null ? String(x.status)[0] : encrypted ? "tls" : "none"), title: encrypted ? "encrypted: status not visible without keys" : null, text: status }),
        el("div", { text: x.method || "–" }),
        el("div", { class: "url" },
          stream ? el("span", { class: "stream", title: "HTTP/2 stream id", text: "#" + x.stream }) : null,
          stream && x.pushed_by !== null ? el("span", { class: "stream pushed", title: "pushed by stream " + x.pushed_by, text: "push ← #" + x.pushed_by }) : null,
          el("span", { class: "host", text: x.host }), el("span", { text: x.target || (encrypted ? " (encrypted)" : "") })),
        el("div", { class: "num", "data-value": x.up, text: bytes(x.up) }),
        el("div", { class: "num", "data-value": x.down, text: bytes(x.down) }),
        el("div", { class: "wf-bar" }, bar));
    }

    let matching = exchanges, shown = 0;
    function showMore() {
      const fragment = document.createDocumentFragment();
      const next = Math.min(matching.length, shown + PAGE);
      for (let i = shown; i < next; i++) {
        const x = matching[i], previous = i > 0 ? matching[i - 1] : null;
        if (streamGroups.has(x.conn) && (!previous || previous.conn !== x.conn)) fragment.append(groupRow(x.conn));
        fragment.append(row(x));
      }
      container.append(fragment);
      shown = next;
      container.setAttribute("data-shown", shown);
      count.textContent = "Showing " + integer(shown) + " of " + integer(matching.length) + " matching exchanges (" + integer(exchanges.length) + " in the capture)"
        + (shown < matching.length ? " — the rest are in the data; show more below or narrow the filter." : "");
      count.setAttribute("data-matching", matching.length);
      more.hidden = shown >= matching.length;
    }
    // The filters live in the URL fragment (#filter:status=4xx&host=…) so that a filtered view can be linked.
    const FRAGMENT = "#filter:";
    function readFragment() {
      if (!location.hash.startsWith(FRAGMENT)) return;
      const params = new URLSearchParams(location.hash.slice(FRAGMENT.length));
      for (const [name, input] of Object.entries(filters)) if (params.has(name)) input.value = params.get(name);
    }
    function writeFragment() {
      const params = new URLSearchParams();
      for (const [name, input] of Object.entries(filters)) if (input.value) params.set(name, input.value);
      const text = params.toString();
      if (!text && !location.hash.startsWith(FRAGMENT)) return;
      try { history.replaceState(null, "", text ? FRAGMENT + text : location.pathname + location.search); } catch (e) { /* some browsers refuse it on file: URLs */ }
    }
    function apply() {
      const host = filters.host.value, endpoint = filters.endpoint.value, status = filters.status.value, text = filters.q.value.toLowerCase();
      matching = exchanges.filter(x => (!host || x.host === host) && (!endpoint || x.endpoint === endpoint)
        && (!status || statusClass(x) === status) && (!text || (x.host + (x.target || "")).toLowerCase().includes(text)));
      container.replaceChildren(head);
      shown = 0;
      showMore();
    }
    for (const f of Object.values(filters)) f.addEventListener("input", () => { apply(); writeFragment(); });
    more.addEventListener("click", showMore);
    readFragment();
    apply();
  }

  // ---------- endpoints
  function renderEndpoints() {
    const endpoints = data.endpoints;
    const target = document.getElementById("endpoints-body");
    document.getElementById("endpoints-window").textContent = data.window_seconds;
    if (!endpoints.length) { target.append(el("p", { class: "empty", text: "No HTTP exchanges." })); return; }
    const biggest = endpoints.reduce((most, e) => Math.max(most, e.up_ip_bytes + e.down_ip_bytes), 1);
    const SPARK_WIDTH = 240;
    const axis = { first: Infinity, last: -Infinity };
    for (const e of endpoints) for (const w of e.rate_windows) { axis.first = Math.min(axis.first, w.start); axis.last = Math.max(axis.last, w.end); }
    axis.span = Math.max(axis.last - axis.first, 1e-9);
    const origin = data.summary.ts_first === null ? axis.first : Number(data.summary.ts_first);
    // the biggest endpoints, and every flagged one
    const rows = endpoints.filter((e, i) => i < TABLE_ROWS || e.flags.length).map(e => {
      const total = e.up_ip_bytes + e.down_ip_bytes;
      const traffic = svg("svg", { class: "traffic", width: 180, height: 14, viewBox: "0 0 180 14" },
        svg("rect", { x: 0, y: 1, width: 180, height: 12, fill: "#f2f4f7", rx: 2 }),
        svg("rect", { x: 0, y: 1, width: 180 * e.up_ip_bytes / biggest, height: 12, fill: "var(--up)" }, tip("up " + integer(e.up_ip_bytes) + " B")),
        svg("rect", { x: 180 * e.up_ip_bytes / biggest, y: 1, width: 180 * e.down_ip_bytes / biggest, height: 12, fill: "var(--down)" }, tip("down " + integer(e.down_ip_bytes) + " B")));
      // every endpoint's windows on the same time axis, so that the timelines line up
      const windows = e.rate_windows;
      const peak = Math.max(...windows.map(w => w.requests), 1);
      const spark = svg("svg", { class: "spark", width: SPARK_WIDTH, height: 26, "data-windows": windows.length });
      const flagged = e.flags.includes("runaway") || e.flags.includes("burst");
      for (const w of windows) {
        const h = w.requests ? Math.max(2, 24 * w.requests / peak) : 0;
        const x = SPARK_WIDTH * (w.start - axis.first) / axis.span, width = Math.min(24, Math.max(1.5, SPARK_WIDTH * (w.end - w.start) / axis.span - 1));
        spark.append(svg("rect", { x: x, y: 25 - h, width: width, height: h, fill: flagged ? "var(--bad)" : "var(--accent)", "data-requests": w.requests },
          tip("+" + (w.start - origin).toFixed(1) + " to +" + (w.end - origin).toFixed(1) + " s: " + w.requests + " requests (" + w.rate_per_min + "/min)")));
      }
      spark.append(svg("line", { x1: 0, x2: SPARK_WIDTH, y1: 25.5, y2: 25.5, stroke: "#d0d5dd" }));
      const label = el("td", { class: "endpoint", title: e.key }, ...(e.app ? [el("span", { class: "badge app", text: e.app })] : []),
        el("span", { class: "mono", text: (e.method || "*") + " " }), el("span", { class: "mono", text: e.host + (e.path || "") }));
      const flags = el("td", { class: "flags" });
      for (const flag of e.flags) {
        flags.append(el("span", { class: "badge " + flag, text: flag }));
        flags.append(el("div", { class: "evidence", text: (e.evidence_text && e.evidence_text[flag]) || JSON.stringify(e.evidence[flag]) }));
      }
      return el("tr", { class: e.flags.join(" "), "data-endpoint": e.key, "data-flags": e.flags.join(" ") },
        label, numberCell(e.requests, integer(e.requests)), numberCell(e.up_ip_bytes, bytes(e.up_ip_bytes)), numberCell(e.down_ip_bytes, bytes(e.down_ip_bytes)),
        numberCell(Number(e.share), percent(Number(e.share))), el("td", { title: integer(total) + " bytes" }, traffic), el("td", {}, spark), flags);
    });
    if (rows.length < endpoints.length) {
      target.append(el("p", { class: "note", id: "endpoints-capped", text: "Showing the " + integer(rows.length) + " biggest or flagged of " + integer(endpoints.length) + " endpoints (all of them are in the report's data)." }));
    }
    target.append(table("endpoints-table", [["Endpoint"], ["Requests", true], ["Up", true], ["Down", true], ["Share", true], ["Traffic (up / down)"], ["Requests over time"], ["Flags and evidence"]], rows));
  }

  // ---------- accuracy
  function renderAccuracy() {
    const target = document.getElementById("accuracy-body");
    const accuracy = data.accuracy;
    if (!accuracy) { target.append(el("p", { class: "empty", id: "accuracy-absent", text: "Not asked for: run with --estimators (built-in app-layer estimators) or --app-log LOG (an app's own log) to compare." })); return; }
    const sources = accuracy.estimators.map(e => ({ kind: "estimator", name: e.name, report: e }))
      .concat(accuracy.app_logs.map(l => ({ kind: "app log (" + l.format + ")", name: l.path, report: l })));
    if (!sources.length) { target.append(el("p", { class: "empty", text: "No source to compare." })); return; }
    const causeColours = ["#2f5fd0", "#f08c2e", "#16a3a3", "#a05ad6", "#8bc34a", "#d92d20", "#667085", "#3b82f6", "#dc6803", "#7a5af8", "#2e9e5b", "#98a2b3"];
    const causes = Object.keys(sources[0].report.gap_by_cause || {});
    function side(value, id) {
      if (!value) return [el("td"), el("td"), el("td")];
      const error = value.error_pct === null ? null : Number(value.error_pct);
      return [numberCell(value.estimated, bytes(value.estimated)), numberCell(value.wire, bytes(value.wire)),
        el("td", { class: "num " + (error === null ? "" : error < 0 ? "pos" : "neg"), "data-value": value.error_pct, title: integer(value.error_bytes) + " bytes", text: error === null ? "–" : error.toFixed(1) + " %" })];
    }
    const rows = sources.map(source => {
      const r = source.report;
      const gap = r.gap_by_cause || {};
      const magnitude = causes.reduce((sum, c) => sum + Math.abs(gap[c] || 0), 0) || 1;
      const bar = svg("svg", { width: 110, height: 12, viewBox: "0 0 110 12" });
      let x = 0;
      causes.forEach((c, i) => {
        const w = 110 * Math.abs(gap[c] || 0) / magnitude;
        if (w > 0) bar.append(svg("rect", { x: x, y: 0, width: w, height: 12, fill: causeColours[i % causeColours.length] }, tip(c + ": " + integer(gap[c]) + " bytes")));
        x += w;
      });
      const matched = r.matched !== undefined ? integer(r.matched) + " of " + integer(r.entries) + " entries matched" + (r.unmatched_wire ? ", " + integer(r.unmatched_wire) + " wire exchanges unmatched" : "") : null;
      const per = r.per_request || {};
      return el("tr", { "data-source": source.name },
        el("td", { title: source.name }, el("div", { class: "mono", text: source.name.split("/").pop() }), el("div", { class: "evidence", text: source.kind + (matched ? " · " + matched : "") })),
        numberCell(r.requests !== undefined ? r.requests : r.matched, integer(r.requests !== undefined ? r.requests : r.matched)),
        ...side(r.up), ...side(r.down), ...side(r.total),
        el("td", { class: "num", text: per.median_error_pct === null || per.median_error_pct === undefined ? "–" : per.median_error_pct + " %" }),
        el("td", { class: "num", text: per.p95_error_pct === null || per.p95_error_pct === undefined ? "–" : per.p95_error_pct + " %" }),
        el("td", {}, bar));
    });
    target.append(table("accuracy-table", [["Source"], ["Requests", true], ["Up est.", true], ["Up wire", true], ["Up error", true],
      ["Down est.", true], ["Down wire", true], ["Down error", true], ["Total est.", true], ["Total wire", true], ["Total error", true],
      ["Median error", true], ["p95 error", true], ["Gap by cause"]], rows));
    const key = el("div", { class: "causes" });
    causes.forEach((c, i) => key.append(el("span", {}, el("i", { style: "background:" + causeColours[i % causeColours.length] }), c)));
    target.append(key);
    document.getElementById("accuracy-level").textContent = accuracy.level;
  }

  // ---------- connections and DNS
  function capped(rows, id) {
    if (rows.length <= TABLE_ROWS) return null;
    return el("p", { class: "note", id: id, text: "Showing the first " + integer(TABLE_ROWS) + " of " + integer(rows.length) + " rows (all of them are in the report's data)." });
  }
  function renderConnections() {
    const connections = objects(data.connections);
    const rows = connections.slice(0, TABLE_ROWS).map(c => el("tr", { "data-id": c.id },
      numberCell(c.id, String(c.id)), el("td", { class: "mono", text: c.client }), el("td", { class: "mono", text: c.server }),
      el("td", { text: c.transport || "" }),
      numberCell(c.start_ms === null ? null : Number(c.start_ms), c.start_ms === null ? "–" : "+" + ms(Number(c.start_ms))),
      numberCell(Number(c.duration_ms), ms(Number(c.duration_ms))), numberCell(c.exchanges, integer(c.exchanges)),
      numberCell(c.up, bytes(c.up)), numberCell(c.down, bytes(c.down)), numberCell(c.unattributed, bytes(c.unattributed)),
      numberCell(c.handshake_rtt_ms, c.handshake_rtt_ms === null ? "–" : ms(Number(c.handshake_rtt_ms))),
      el("td", { text: c.tls || "" }), el("td", {}, ...flagBadges(c.flags))));
    const body = document.getElementById("connections-body");
    body.append(table("connections-table", [["#", true], ["Client"], ["Server"], ["Transport"], ["Start", true], ["Duration", true], ["Exchanges", true],
      ["Up (IP)", true], ["Down (IP)", true], ["Unattributed", true], ["Handshake RTT", true], ["TLS"], ["Flags"]], rows));
    const note = capped(connections, "connections-capped");
    if (note) body.append(note);
    document.getElementById("connections-count").textContent = integer(connections.length);
  }
  function renderDNS() {
    const lookups = objects(data.dns);
    const body = document.getElementById("dns-body");
    document.getElementById("dns-count").textContent = integer(lookups.length);
    if (!lookups.length) { body.append(el("p", { class: "empty", text: "No DNS lookups in the capture." })); return; }
    const rows = lookups.slice(0, TABLE_ROWS).map(d => el("tr", { "data-id": d.id, "data-dns-id": d.dns_id, "data-query": d.query, "data-qtype": d.qtype, "data-rcode": d.rcode },
      numberCell(d.id, String(d.id)), el("td", { class: "mono", text: d.query === null ? "–" : d.query }), el("td", { text: d.qtype || "–" }),
      el("td", { text: d.rcode || "no answer" }), el("td", { class: "mono", text: d.addresses.join(", ") + (d.cnames.length ? "  (via " + d.cnames.join(" → ") + ")" : "") }),
      el("td", { class: "mono", text: d.server + " " + d.transport }),
      numberCell(d.start_ms === null ? null : Number(d.start_ms), d.start_ms === null ? "–" : "+" + ms(Number(d.start_ms))),
      numberCell(d.rtt_ms === null ? null : Number(d.rtt_ms), d.rtt_ms === null ? "–" : ms(Number(d.rtt_ms))),
      numberCell(d.retries, String(d.retries)), numberCell(d.ip_bytes, bytes(d.ip_bytes)), el("td", {}, ...flagBadges(d.flags))));
    body.append(table("dns-table", [["#", true], ["Query"], ["Type"], ["Result"], ["Answers"], ["Server"], ["Start", true], ["RTT", true],
      ["Retries", true], ["IP bytes", true], ["Flags"]], rows));
    const note = capped(lookups, "dns-capped");
    if (note) body.append(note);
  }

  renderSummary();
  renderWaterfall();
  renderEndpoints();
  renderAccuracy();
  renderConnections();
  renderDNS();
  document.body.setAttribute("data-rendered", "true");
})();
"""#
}
