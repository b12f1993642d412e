// The report page's own script (plain browser JavaScript, run after the inlined uPlot): it reads
// the data block (#report-data, written by html.ts) and draws every chart with uPlot. Every time
// chart shares one x axis: a cursor in one shows in all, and a zoom or pan of one (drag to
// select, wheel, shift+drag or middle-drag, double-click to reset, #t=FROM,TO in the address) is
// applied to all. y ticks are uPlot's round steps (1, 2, 2.5, 5 x 10^k) printed with the decimals
// of the step. Fill markers are thinned as they are drawn: per side, one marker per few pixels at
// the size-weighted price of the fills it stands for, so a 12 h run stays readable.
export const CLIENT_JS = String.raw`(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('report-data').textContent);
  var A = D.axis;
  var xs = new Array(A.n);
  for (var k = 0; k < A.n; k++) xs[k] = A.t0 + k * A.stepMs;
  var LO = Math.min(A.t0, A.startMs);
  var HI = Math.max(A.endMs, A.startMs + 1);
  var MIN_SPAN = Math.max(4 * A.stepMs, 50);
  var charts = [];
  var syncing = false;
  var COLORS = ['#2563eb', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#dc2626', '#4b5563'];

  function byId(id) { return document.getElementById(id); }
  function iso(ms) { return new Date(ms).toISOString().replace('T', ' ').replace('Z', '').replace(/\.000$/, '') + 'Z'; }
  function dur(ms) {
    if (ms >= 7200000) return (ms / 3600000).toFixed(1) + ' h';
    if (ms >= 120000) return (ms / 60000).toFixed(1) + ' min';
    return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s';
  }
  function decimals(step) {
    for (var d = 0; d < 12; d++) {
      var m = step * Math.pow(10, d);
      if (Math.abs(m - Math.round(m)) < 1e-6 * Math.max(1, m)) return d;
    }
    return 12;
  }
  function fixed(v, d) {
    var s = v.toFixed(d);
    return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
  }
  // y tick labels: the tick values printed with the decimals of the step between them
  function numVals(u, splits, ai, space, incr) {
    var d = decimals(incr);
    return splits.map(function (v) { return v == null ? '' : fixed(v, d); });
  }
  // time tick labels, UTC, 24 h: the time with the step's precision, the date under the first one and under a new day
  function timeVals(u, splits, ai, space, incr) {
    var prev = null;
    return splits.map(function (v, i) {
      if (v == null) return '';
      var s = new Date(v).toISOString();
      var day = s.slice(0, 10);
      var t = incr >= 60000 ? s.slice(11, 16) : incr >= 1000 ? s.slice(11, 19) : s.slice(11, 23);
      var label = i === 0 || day !== prev ? t + '\n' + day : t;
      prev = day;
      return label;
    });
  }
  function legendNum(d) {
    return function (u, v) { return v == null ? '--' : fixed(v, d); };
  }
  function width(el) { return Math.max(320, Math.floor(el.clientWidth)); }

  function clampRange(mn, mx) {
    var span = Math.max(mx - mn, MIN_SPAN);
    if (span >= HI - LO) return [LO, HI];
    if (mn < LO) { mn = LO; mx = LO + span; }
    if (mx > HI) { mx = HI; mn = HI - span; }
    return [mn, mx];
  }
  function setX(mn, mx) {
    var r = clampRange(mn, mx);
    if (charts.length) charts[0].setScale('x', { min: r[0], max: r[1] });
  }
  function showRange(mn, mx) {
    var el = byId('zoom-range');
    var whole = mn <= A.startMs && mx >= A.endMs;
    if (el) el.textContent = whole ? 'whole run: ' + iso(A.startMs) + ' .. ' + iso(A.endMs) + ' (' + dur(A.endMs - A.startMs) + ')' : 'showing ' + iso(mn) + ' .. ' + iso(mx) + ' (' + dur(mx - mn) + ')';
    try { history.replaceState(null, '', whole ? location.pathname + location.search : '#t=' + Math.round(mn) + ',' + Math.round(mx)); } catch (e) { /* file: URLs in some browsers */ }
  }
  function resetZoom() { setX(A.startMs, A.endMs); }
  // every chart follows the x scale of the one that changed
  function onScale(u, key) {
    if (key !== 'x') return;
    var mn = u.scales.x.min;
    var mx = u.scales.x.max;
    // each chart's section says what it shows (tests read it)
    if (u.root.parentNode && u.root.parentNode.parentNode) u.root.parentNode.parentNode.setAttribute('data-x', Math.round(mn) + ',' + Math.round(mx));
    if (syncing || charts.indexOf(u) < 0) return;
    syncing = true;
    charts.forEach(function (o) { if (o !== u && (o.scales.x.min !== mn || o.scales.x.max !== mx)) o.setScale('x', { min: mn, max: mx }); });
    syncing = false;
    showRange(mn, mx);
  }
  function startPan(u, e) {
    e.preventDefault();
    var x0 = e.clientX;
    var mn0 = u.scales.x.min;
    var mx0 = u.scales.x.max;
    var w = u.over.getBoundingClientRect().width || 1;
    function move(ev) {
      var dv = -((ev.clientX - x0) / w) * (mx0 - mn0);
      setX(mn0 + dv, mx0 + dv);
    }
    function up() { document.removeEventListener('mousemove', move); document.removeEventListener('mouseup', up); }
    document.addEventListener('mousemove', move);
    document.addEventListener('mouseup', up);
  }
  function wheelZoom(u) {
    u.over.addEventListener('wheel', function (e) {
      e.preventDefault();
      var r = u.over.getBoundingClientRect();
      var at = u.posToVal(e.clientX - r.left, 'x');
      var f = e.deltaY < 0 ? 0.8 : 1.25;
      setX(at - (at - u.scales.x.min) * f, at + (u.scales.x.max - at) * f);
    }, { passive: false });
  }
  var cursor = {
    sync: { key: 'makerd-report', setSeries: false },
    drag: { x: true, y: false },
    bind: {
      mousedown: function (u, targ, handler) {
        return function (e) {
          if (e.shiftKey || e.button === 1) { startPan(u, e); return null; }
          return handler(e);
        };
      },
      dblclick: function () { return function () { resetZoom(); return null; }; },
    },
  };
  var grid = { stroke: '#eceff3', width: 1 };
  var ticks = { stroke: '#d1d5db', width: 1, size: 4 };
  function timeOpts(el, height, series, extra) {
    var o = {
      width: width(el),
      height: height,
      ms: 1,
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts), 'Etc/UTC'); },
      cursor: cursor,
      legend: { live: true },
      scales: { x: { time: true } },
      axes: [
        { space: 90, size: 46, values: timeVals, grid: grid, ticks: ticks },
        { size: 84, space: 36, values: numVals, grid: grid, ticks: ticks },
      ],
      series: [{ label: 'UTC', value: function (u, v) { return v == null ? '--' : iso(v); } }].concat(series),
      hooks: { setScale: [onScale], ready: [wheelZoom] },
    };
    if (extra) for (var key in extra) o[key] = extra[key];
    return o;
  }
  function make(id, opts, data, hidden) {
    var sec = byId(id);
    if (!sec) return null;
    var el = sec.querySelector('.plot');
    var u = new uPlot(opts, data, el);
    (hidden || []).forEach(function (i) {
      var row = u.root.querySelectorAll('.u-legend .u-series')[i];
      if (row) row.style.display = 'none';
    });
    u._el = el;
    charts.push(u);
    return u;
  }
  function line(label, color, d, more) {
    var s = { label: label, stroke: color, width: 1.5, value: legendNum(d), points: { show: false } };
    if (more) for (var key in more) s[key] = more[key];
    return s;
  }
  function hiddenSeries(label) { return { label: label, stroke: 'transparent', width: 0, points: { show: false } }; }
  var stepped = uPlot.paths.stepped ? uPlot.paths.stepped({ align: 1 }) : undefined;

  // Equity with its low-high band
  if (A.n > 0) {
    make('chart-equity', timeOpts(byId('chart-equity'), 260, [
      line('equity $', '#2563eb', 4),
      hiddenSeries('low'),
      hiddenSeries('high'),
    ], { bands: [{ series: [3, 2], fill: 'rgba(37,99,235,0.15)' }] }), [xs, D.equity.last, D.equity.min, D.equity.max], [2, 3]);

    make('chart-drawdown', timeOpts(byId('chart-drawdown'), 150, [
      line('drawdown $', '#dc2626', 4, { fill: 'rgba(220,38,38,0.18)', fillTo: function () { return 0; } }),
    ]), [xs, D.drawdown]);

    var negFees = D.fees.map(function (v) { return v == null ? null : -v; });
    make('chart-pnl', timeOpts(byId('chart-pnl'), 260, [
      line('total $', '#111827', 4, { width: 2 }),
      line('spread capture $', '#059669', 4),
      line('inventory $', '#d97706', 4),
      line('- fees $', '#dc2626', 4),
    ]), [xs, D.equity.last, D.spreadCapture, D.inventory, negFees]);

    if (D.exposure.length) {
      var ex = D.exposure.map(function (m, i) { return line(m.label, COLORS[i % COLORS.length], 2, { paths: stepped }); });
      make('chart-exposure', timeOpts(byId('chart-exposure'), 220, ex), [xs].concat(D.exposure.map(function (m) { return m.values; })));
    }

    D.prices.forEach(function (p, i) {
      var id = 'chart-price-' + i;
      var marks = {};
      p.fills.forEach(function (f) { marks[f.k] = f; });
      var buys = new Array(A.n).fill(null);
      var sells = new Array(A.n).fill(null);
      p.fills.forEach(function (f) { if (f.k < A.n) { buys[f.k] = f.buyPrice; sells[f.k] = f.sellPrice; } });
      function fillValue(side) {
        return function (u, v, si, idx) {
          var f = idx == null ? null : marks[idx];
          if (!f) return '--';
          var n = side === 'buy' ? f.buys : f.sells;
          if (!n) return '--';
          return n + ' x ' + fixed(side === 'buy' ? f.buySize : f.sellSize, 2) + ' sh @ ' + fixed(side === 'buy' ? f.buyPrice : f.sellPrice, 4);
        };
      }
      var none = function () { return null; };
      var u = make(id, timeOpts(byId(id), 300, [
        line('mid', '#6b7280', 4),
        hiddenSeries('mid low'),
        hiddenSeries('mid high'),
        line('our bid', '#16a34a', 4, { paths: stepped, width: 1.2 }),
        line('our ask', '#dc2626', 4, { paths: stepped, width: 1.2 }),
        { label: 'our buys', stroke: '#15803d', paths: none, points: { show: false }, value: fillValue('buy') },
        { label: 'our sells', stroke: '#b91c1c', paths: none, points: { show: false }, value: fillValue('sell') },
      ], {
        bands: [{ series: [3, 2], fill: 'rgba(107,114,128,0.16)' }],
        hooks: { setScale: [onScale], ready: [wheelZoom], draw: [function (u) { drawFills(u, p.fills); }] },
      }), [xs, p.mid.last, p.mid.min, p.mid.max, p.bid, p.ask, buys, sells], [2, 3]);
      return u;
    });
  }

  // Fill markers: per side, the fills of the visible buckets grouped per few pixels, one triangle
  // each at their size-weighted price, its tip on the price: buys below it pointing up, sells above
  // it pointing down, so they flank the lines instead of covering them; smaller when dense.
  function drawFills(u, fills) {
    var ctx = u.ctx;
    var dpr = window.devicePixelRatio || 1;
    var px = 8 * dpr;
    var b = u.bbox;
    var groups = {};
    var keys = [];
    fills.forEach(function (f) {
      var t = xs[f.k];
      if (t < u.scales.x.min || t > u.scales.x.max) return;
      var x = u.valToPos(t, 'x', true);
      var g = Math.floor((x - b.left) / px);
      [['b', f.buys, f.buySize, f.buyPrice], ['s', f.sells, f.sellSize, f.sellPrice]].forEach(function (s) {
        if (!s[1] || s[3] == null) return;
        var key = s[0] + g;
        var G = groups[key];
        if (!G) { G = groups[key] = { side: s[0], g: g, n: 0, size: 0, notional: 0 }; keys.push(key); }
        G.n += s[1];
        G.size += s[2];
        G.notional += s[2] * s[3];
      });
    });
    var dense = keys.length > b.width / px / 3;
    var r = (dense ? 3 : 4.5) * dpr;
    var h = r * 1.6;
    ctx.save();
    ctx.beginPath();
    ctx.rect(b.left, b.top, b.width, b.height);
    ctx.clip();
    keys.forEach(function (key) {
      var G = groups[key];
      if (!(G.size > 0)) return;
      var x = b.left + (G.g + 0.5) * px;
      var y = u.valToPos(G.notional / G.size, 'y', true);
      ctx.fillStyle = G.side === 'b' ? 'rgba(21,128,61,' + (dense ? 0.6 : 0.85) + ')' : 'rgba(185,28,28,' + (dense ? 0.6 : 0.85) + ')';
      ctx.beginPath();
      if (G.side === 'b') { ctx.moveTo(x, y); ctx.lineTo(x + r, y + h); ctx.lineTo(x - r, y + h); }
      else { ctx.moveTo(x, y); ctx.lineTo(x + r, y - h); ctx.lineTo(x - r, y - h); }
      ctx.closePath();
      ctx.fill();
    });
    ctx.restore();
  }

  // Markout distributions: not on the time axis, not synced
  var extra = [];
  D.markouts.forEach(function (m, i) {
    var sec = byId('chart-markout-' + i);
    if (!sec || !m.bins.length) return;
    var el = sec.querySelector('.plot');
    var bx = m.bins.map(function (b) { return b[0]; });
    var by = m.bins.map(function (b) { return b[1]; });
    var bars = uPlot.paths.bars ? uPlot.paths.bars({ size: [0.86, 80] }) : undefined;
    var u = new uPlot({
      width: width(el),
      height: 200,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false, range: function () { return [bx[0] - m.binWidth / 2, bx[bx.length - 1] + m.binWidth / 2]; } }, y: { range: function (u, mn, mx) { return [0, Math.max(1, mx * 1.1)]; } } },
      axes: [
        { space: 60, size: 36, values: numVals, grid: { show: false }, ticks: ticks },
        // fill counts: whole-number ticks
        { size: 44, space: 30, incrs: [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 2.5e3, 5e3, 1e4, 2e4, 5e4, 1e5, 1e6], values: numVals, grid: grid, ticks: ticks },
      ],
      series: [{}, { label: 'fills', fill: 'rgba(37,99,235,0.55)', stroke: '#2563eb', width: 1, paths: bars, points: { show: false } }],
    }, [bx, by], el);
    u._el = el;
    extra.push(u);
  });

  // a chosen window from the address (#t=FROM,TO in ms), else the whole run
  var m = /#t=(\d+),(\d+)/.exec(location.hash);
  if (m && charts.length) setX(+m[1], +m[2]);
  else if (charts.length) resetZoom();
  var reset = byId('zoom-reset');
  if (reset) reset.addEventListener('click', resetZoom);
  var pending = 0;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      charts.concat(extra).forEach(function (u) { u.setSize({ width: width(u._el), height: u.height }); });
    }, 100);
  });
  document.documentElement.setAttribute('data-charts', String(charts.length + extra.length));
})();
`;
