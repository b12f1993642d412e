// The live page served at GET /: one self-contained HTML file (no CDN, no build step) that reads
// `status?brief=1&live=5` every second and draws the health and halt reason, the session's PnL,
// rate-limit use, per market the top of each book with our quotes marked, and the last fills.

const CSS = `
:root{--bg:#0f1419;--panel:#171d24;--line:#2a323c;--fg:#d8dee6;--dim:#8792a0;--ok:#3fb950;--bad:#f85149;--warn:#d29922;--bid:#3fb950;--ask:#f0883e;--ours:#388bfd}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:13px/1.4 system-ui,sans-serif}
header{display:flex;flex-wrap:wrap;gap:16px;align-items:center;padding:10px 16px;border-bottom:1px solid var(--line)}
h1{font-size:16px;margin:0}h2{font-size:13px;margin:0 0 6px;color:var(--dim);font-weight:600;text-transform:uppercase;letter-spacing:.04em}
.badge{padding:2px 8px;border-radius:10px;font-weight:600;font-size:12px}.ok{background:#1f3b26;color:var(--ok)}.bad{background:#4a1f1f;color:var(--bad)}.warn{background:#3d3115;color:var(--warn)}
.kv{color:var(--dim)}.kv b{color:var(--fg);font-variant-numeric:tabular-nums}
#halt{display:none;background:#4a1f1f;color:#ffd7d5;padding:8px 16px;font-weight:600}#reasons{color:var(--warn);padding:0 16px}
main{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:12px;padding:12px 16px}
section{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:10px}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}td,th{padding:1px 6px;text-align:right}th{color:var(--dim);font-weight:500}
td:first-child,th:first-child{text-align:left}.bid{color:var(--bid)}.ask{color:var(--ask)}
tr.ours td{background:#13233a}tr.ours td:last-child{color:var(--ours);font-weight:600}
.ladders{display:grid;grid-template-columns:1fr 1fr;gap:8px}.sep td{border-top:1px dashed var(--line)}
.bar{height:6px;background:#222a33;border-radius:3px;overflow:hidden;min-width:80px}.bar i{display:block;height:100%;background:var(--ours)}
section.market h2{text-transform:none;color:var(--fg)}.cap{color:var(--dim);font-size:11px}
.pos{color:var(--ok)}.neg{color:var(--bad)}svg{display:block}.mono{font-family:ui-monospace,monospace;font-size:12px}
`;

const SCRIPT = `
const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const short = (id) => (id.length > 14 ? id.slice(0, 8) + '…' + id.slice(-4) : id);
const money = (v) => (v < 0 ? '-$' : '$') + Math.abs(v).toFixed(2);
const sign = (v) => (v > 0 ? 'pos' : v < 0 ? 'neg' : '');
const px = (p) => (p == null ? '–' : p.toFixed(p * 1000 % 10 ? 4 : 3));
function spark(points, w, h) {
  if (!points || points.length < 2) return '<svg width="' + w + '" height="' + h + '"></svg>';
  const t0 = points[0][0], t1 = points[points.length - 1][0] || t0 + 1;
  let lo = 0, hi = 0;
  for (const [, v] of points) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (hi === lo) hi = lo + 1;
  const x = (t) => ((t - t0) / (t1 - t0 || 1)) * (w - 2) + 1, y = (v) => h - 1 - ((v - lo) / (hi - lo)) * (h - 2);
  const d = points.map(([t, v]) => x(t).toFixed(1) + ',' + y(v).toFixed(1)).join(' ');
  const last = points[points.length - 1][1];
  return '<svg width="' + w + '" height="' + h + '"><line x1="0" x2="' + w + '" y1="' + y(0) + '" y2="' + y(0) + '" stroke="#2a323c"/>' +
    '<polyline fill="none" stroke-width="1.5" stroke="' + (last < 0 ? '#f85149' : '#3fb950') + '" points="' + d + '"/></svg>';
}
function caption(points) {
  if (!points || !points.length) return '<div class="cap">no samples yet</div>';
  const vs = points.map((p) => p[1]);
  return '<div class="cap">since ' + new Date(points[0][0]).toLocaleTimeString() + ' · min ' + money(Math.min(...vs)) + ' · max ' + money(Math.max(...vs)) + '</div>';
}
function ladder(t) {
  const row = (cls, l) => '<tr class="' + (l[2] > 0 ? 'ours' : '') + '"><td class="' + cls + '">' + px(l[0]) + '</td><td>' + l[1].toFixed(2) + '</td><td>' + (l[2] > 0 ? l[2].toFixed(2) + ' ◀' : '') + '</td></tr>';
  const asks = t.asks.slice().reverse().map((l) => row('ask', l)).join('');
  const bids = t.bids.map((l) => row('bid', l)).join('');
  return '<div><div class="kv mono">' + esc(short(t.tokenId)) + ' · pos <b>' + t.position.toFixed(2) + '</b></div>' +
    '<table><tr><th>price</th><th>size</th><th>ours</th></tr>' + (asks || '<tr><td colspan=3 class="kv">no asks</td></tr>') +
    '<tr class="sep"><td colspan=3></td></tr>' + (bids || '<tr><td colspan=3 class="kv">no bids</td></tr>') + '</table></div>';
}
function market(m) {
  const q = m.quotes;
  const state = m.quoting ? '<span class="badge ok">quoting</span>' : '<span class="badge warn" title="' + esc(m.notQuoting || '') + '">' + esc(m.notQuoting || 'not quoting') + '</span>';
  return '<section class="market"><h2 class="mono">' + esc(short(m.conditionId)) + ' ' + state + '</h2>' +
    '<div class="kv">PnL <b class="' + sign(m.pnl) + '">' + money(m.pnl) + '</b> (before fees) · net exposure <b>' + m.netExposure.toFixed(2) + '</b></div>' +
    '<div class="kv">our bid <b class="bid">' + px(q.ourBid) + '</b> (top ' + px(q.bestBid) + ') · our ask <b class="ask">' + px(q.ourAsk) + '</b> (top ' + px(q.bestAsk) + ')</div>' +
    spark(m.pnlHistory, 300, 36) + caption(m.pnlHistory) + '<div class="ladders">' + m.tokens.map(ladder).join('') + '</div></section>';
}
function render(s) {
  const h = s.health, live = s.live;
  $('health').className = 'badge ' + (h.ok ? 'ok' : 'bad');
  $('health').textContent = h.ok ? 'healthy' : 'unhealthy';
  $('quoting').className = 'badge ' + (s.quoting && s.counts.marketsQuoting > 0 ? 'ok' : 'warn');
  $('quoting').textContent = s.quoting && s.counts.marketsQuoting > 0 ? 'quoting ' + s.counts.marketsQuoting + '/' + s.counts.markets : 'not quoting';
  $('reasons').innerHTML = h.reasons.map((r) => '• ' + esc(r)).join('<br>');
  $('halt').style.display = s.haltReason ? 'block' : 'none';
  $('halt').textContent = s.haltReason ? 'HALTED: ' + s.haltReason : '';
  $('mode').textContent = s.mode;
  $('uptime').textContent = s.uptimeSec + ' s';
  $('pnl').textContent = money(s.pnl.pnl);
  $('pnl').className = sign(s.pnl.pnl);
  $('fees').textContent = money(s.pnl.fees);
  $('volume').textContent = money(s.pnl.volume);
  $('fills').textContent = s.fills;
  $('orders').textContent = s.counts.openOrders;
  $('pnlchart').innerHTML = spark(live.pnlHistory, 320, 60) + caption(live.pnlHistory);
  $('limits').innerHTML = '<tr><th>scope</th><th>used</th><th></th></tr>' + s.rateLimits.map((u) =>
    '<tr><td class="mono">' + esc(u.scope) + '</td><td>' + u.used + '/' + u.limit + '</td><td><div class="bar"><i style="width:' + Math.min(100, (100 * u.used) / u.limit).toFixed(1) + '%"></i></div></td></tr>').join('');
  $('lastfills').innerHTML = '<tr><th>time</th><th>token</th><th>side</th><th>price</th><th>size</th></tr>' + (live.lastFills.length ? live.lastFills.map((f) =>
    '<tr><td>' + esc(f.time.slice(11, 19)) + '</td><td class="mono">' + esc(short(f.tokenId)) + '</td><td class="' + (f.side === 'BUY' ? 'bid' : 'ask') + '">' + esc(f.side) + '</td><td>' + esc(f.price) + '</td><td>' + esc(f.size) + '</td></tr>').join('') : '<tr><td colspan=5 class="kv">none yet</td></tr>');
  $('markets').innerHTML = live.markets.map(market).join('');
  $('shown').textContent = live.marketsShown < live.marketsTotal ? '(first ' + live.marketsShown + ' of ' + live.marketsTotal + ')' : '';
}
async function tick() {
  try {
    const r = await fetch('status?brief=1&live=5', { cache: 'no-store' });
    if (!r.ok) throw new Error('HTTP ' + r.status);
    render(await r.json());
    $('conn').className = 'badge ok';
    $('conn').textContent = 'updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    $('conn').className = 'badge bad';
    $('conn').textContent = 'no answer: ' + e.message;
  }
  setTimeout(tick, 1000);
}
tick();
`;

export const LIVE_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>makerd</title><style>${CSS}</style></head>
<body>
<header><h1>makerd</h1><span id="health" class="badge">…</span><span id="quoting" class="badge">…</span>
<span class="kv">mode <b id="mode">…</b></span><span class="kv">up <b id="uptime">…</b></span>
<span class="kv">PnL <b id="pnl">…</b></span><span class="kv">fees <b id="fees">…</b></span><span class="kv">volume <b id="volume">…</b></span>
<span class="kv">fills <b id="fills">…</b></span><span class="kv">open orders <b id="orders">…</b></span><span id="conn" class="badge">connecting</span></header>
<div id="halt"></div><p id="reasons"></p>
<main>
<section><h2>PnL (every stored fill), since this run began</h2><div id="pnlchart"></div></section>
<section><h2>Rate limits</h2><table id="limits"></table></section>
<section><h2>Last fills</h2><table id="lastfills"></table></section>
</main>
<h2 style="padding:0 16px">Markets <span id="shown"></span></h2>
<main id="markets"></main>
<script>${SCRIPT}</script>
</body></html>
`;
