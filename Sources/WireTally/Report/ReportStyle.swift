/// The report's style sheet (system fonts only: the page fetches nothing).
enum ReportStyle {
    static let css = #"""
:root {
  --ink: #1d2330; --muted: #667085; --line: #e4e7ec; --panel: #ffffff; --page: #f5f6f8; --accent: #2f5fd0;
  --dns: #16a3a3; --connect: #f29d38; --ssl: #a05ad6; --send: #8bc34a; --wait: #2e9e5b; --receive: #3b82f6;
  --up: #f08c2e; --down: #3b82f6; --bad: #d92d20; --warn: #dc6803; --note: #7a5af8; --conn: #c7d0e0;
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--page); color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header { background: #1d2330; color: #fff; padding: 18px 32px 14px; }
header h1 { margin: 0; font-size: 20px; font-weight: 600; letter-spacing: .2px; }
header h1 span { color: #9db4ff; font-weight: 400; }
header p { margin: 4px 0 0; color: #c4cad6; font-size: 13px; word-break: break-all; }
nav { position: sticky; top: 0; z-index: 5; background: #fff; border-bottom: 1px solid var(--line); padding: 0 32px; }
nav a { display: inline-block; padding: 10px 12px; color: var(--muted); text-decoration: none; font-weight: 500; }
nav a:hover { color: var(--accent); }
main { padding: 8px 32px 48px; max-width: 1600px; }
section { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; margin: 18px 0; padding: 18px 22px; }
h2 { margin: 0 0 12px; font-size: 17px; font-weight: 600; }
h2 small { color: var(--muted); font-weight: 400; font-size: 13px; margin-left: 8px; }
.note { color: var(--muted); font-size: 12.5px; margin: 8px 0 0; }
.num, td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
#script-errors { margin: 12px 32px 0; background: #fef3f2; border: 1px solid #fda29b; color: #912018; border-radius: 8px; padding: 10px 16px; }
#script-errors ul { margin: 4px 0 0; padding-left: 18px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; background: #fbfbfc; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .5px; }
.card .value { font-size: 22px; font-weight: 600; margin-top: 2px; font-variant-numeric: tabular-nums; }
.card .sub { color: var(--muted); font-size: 12px; margin-top: 2px; }
.card.bad .value { color: var(--bad); }
.input-errors { background: #fffaeb; border: 1px solid #fedf89; border-radius: 8px; padding: 8px 14px; margin-top: 12px; color: #93370d; }
.input-errors ul { margin: 4px 0 0; padding-left: 18px; }
.filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin-bottom: 10px; }
.filters label { color: var(--muted); font-size: 12.5px; }
.filters select, .filters input { font: inherit; font-size: 13px; padding: 4px 8px; border: 1px solid #d0d5dd; border-radius: 6px; background: #fff; max-width: 340px; }
.legend { display: flex; flex-wrap: wrap; gap: 14px; font-size: 12.5px; color: var(--muted); margin: 4px 0 10px; }
.legend i { display: inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: -1px; margin-right: 5px; }
.wf-scroll { max-height: 640px; overflow: auto; border: 1px solid var(--line); border-radius: 8px; }
.wf-row, .wf-group { display: grid; grid-template-columns: 52px 60px 70px minmax(220px, 1fr) 86px 86px 42%; align-items: center; }
.wf-row { min-height: 24px; border-bottom: 1px solid #f0f1f4; font-size: 12.5px; }
.wf-row > div, .wf-group > div { padding: 2px 6px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.wf-row:nth-child(even) { background: #fafbfc; }
.wf-row:hover { background: #eef3ff; }
.wf-group { min-height: 22px; border-top: 1px solid #d0d5dd; background: #f4f6fa; font-size: 12px; color: #475467; font-weight: 600; }
.wf-group .proto { color: var(--accent); }
.wf-row[data-stream] > .url { padding-left: 14px; box-shadow: inset 8px 0 0 -6px var(--conn); }
.wf-row .stream { display: inline-block; font-size: 11px; color: #344054; background: #eaecf0; border-radius: 8px; padding: 0 6px; margin-right: 5px; }
.wf-row .stream.pushed { background: #f4ebff; color: #6941c6; }
.wf-head { position: sticky; top: 0; z-index: 2; background: #f2f4f7 !important; font-weight: 600; color: #475467; font-size: 12px; }
.wf-row .url .host { color: var(--muted); }
.wf-bar { background: repeating-linear-gradient(to right, #e9ecf1 0 1px, transparent 1px 20%); }
.wf-bar svg { display: block; width: 100%; height: 14px; }
.wf-axis { position: relative; height: 16px; }
.wf-axis span { position: absolute; top: 0; transform: translateX(-50%); font-weight: 400; color: var(--muted); font-size: 11px; }
.wf-axis span:first-child { transform: none; }
.status-2 { color: #067647; } .status-tls { color: var(--ssl); } .status-3 { color: #175cd3; } .status-4, .status-5, .status-none { color: var(--bad); font-weight: 600; }
.more { margin: 10px 0 0; }
button { font: inherit; font-size: 13px; padding: 5px 12px; border-radius: 6px; border: 1px solid #d0d5dd; background: #fff; cursor: pointer; }
button:hover { border-color: var(--accent); color: var(--accent); }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th { text-align: left; font-weight: 600; color: #475467; background: #f2f4f7; padding: 6px 8px; border-bottom: 1px solid var(--line); position: sticky; top: 0; }
td { padding: 5px 8px; border-bottom: 1px solid #f0f1f4; vertical-align: top; }
tbody tr:nth-child(even) { background: #fafbfc; }
tbody tr:hover { background: #eef3ff; }
th.sortable { cursor: pointer; user-select: none; }
th[data-sort="descending"]::after { content: " ▾"; } th[data-sort="ascending"]::after { content: " ▴"; }
.table-scroll { max-height: 520px; overflow: auto; border: 1px solid var(--line); border-radius: 8px; }
.badge { display: inline-block; padding: 1px 7px; border-radius: 10px; font-size: 11.5px; font-weight: 600; margin: 0 4px 2px 0; color: #fff; }
.badge.runaway { background: var(--bad); } .badge.duplicate { background: var(--warn); } .badge.burst { background: var(--note); }
.badge.flag { background: #eaecf0; color: #344054; font-weight: 500; }
tr.runaway td:first-child { box-shadow: inset 3px 0 0 var(--bad); }
.evidence { color: var(--muted); font-size: 12px; margin-top: 2px; white-space: normal; }
svg.spark, svg.traffic { display: block; }
#accuracy-table th, #accuracy-table td { padding: 5px 5px; font-size: 12.5px; }
td.endpoint { white-space: nowrap; max-width: 420px; overflow: hidden; text-overflow: ellipsis; }
.pos { color: var(--bad); } .neg { color: #067647; }
.empty { color: var(--muted); font-style: italic; }
.causes { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 12px; color: var(--muted); margin-top: 4px; }
.causes i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
"""#
}
