// perfatlas page script: theme switch, flame-graph tooltips, zoom and
// search. Plain JavaScript, no dependencies; every page works without it.
(function () {
  'use strict';
  document.documentElement.classList.add('js');

  // ---- theme ------------------------------------------------------------
  var themeLink = document.getElementById('pa-theme');
  var themeSelect = document.getElementById('pa-theme-select');
  function setTheme(name) {
    if (!themeLink) return;
    themeLink.href = themeLink.getAttribute('data-root') + 'assets/theme-' + name + '.css';
    document.documentElement.setAttribute('data-theme', name);
    if (themeSelect) themeSelect.value = name;
  }
  if (themeSelect) {
    var stored = null;
    try { stored = window.localStorage.getItem('perfatlas-theme'); } catch (e) { stored = null; }
    var known = Array.prototype.map.call(themeSelect.options, function (o) { return o.value; });
    if (stored && known.indexOf(stored) >= 0) setTheme(stored);
    themeSelect.addEventListener('change', function () {
      setTheme(themeSelect.value);
      try { window.localStorage.setItem('perfatlas-theme', themeSelect.value); } catch (e) { /* file:// may refuse */ }
    });
  }

  // ---- number formatting (mirrors src/render/format.rs) ----------------
  function grouped(v) {
    var r = Math.round(Math.abs(v) * 100) / 100;
    var s = Math.trunc(r).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    var frac = Math.round((r - Math.trunc(r)) * 100);
    if (frac > 0) s += '.' + (frac < 10 ? '0' + frac : '' + frac).replace(/0+$/, '');
    return (v < 0 && s !== '0' ? '-' : '') + s;
  }
  function sig3(v) {
    var a = Math.abs(v);
    return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
  }
  function scaled(v, steps, base) {
    for (var i = 0; i < steps.length; i++) {
      if (Math.abs(v) >= steps[i][0]) return sig3(v / steps[i][0]) + ' ' + steps[i][1];
    }
    return grouped(v) + ' ' + base;
  }
  function withUnit(v, unit) {
    switch (unit) {
      case 'nanoseconds': return scaled(v, [[1e9, 's'], [1e6, 'ms'], [1e3, 'µs']], 'ns');
      case 'bytes': return scaled(v, [[1073741824, 'GiB'], [1048576, 'MiB'], [1024, 'KiB']], 'B');
      case 'samples': return grouped(v) + ' samples';
      case 'objects': return grouped(v) + ' objects';
      case 'count': return grouped(v);
      default: return grouped(v) + ' ' + unit;
    }
  }
  function percent(part, total) {
    return total === 0 ? '0%' : (100 * part / total).toFixed(2) + '%';
  }
  window.perfatlasFormat = withUnit;

  // ---- flame graph ------------------------------------------------------
  var svg = document.getElementById('pa-flame');
  var dataEl = document.getElementById('pa-data');
  if (!svg || !dataEl) return;
  var data = JSON.parse(dataEl.textContent);
  var W = 1200, CHAR = 7, PAD = 3;
  var groups = Array.prototype.slice.call(svg.querySelectorAll('g.f'));
  var geom = groups.map(function (g) {
    var r = g.querySelector('rect');
    return { x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y') };
  });
  var details = document.getElementById('pa-details');
  var tip = document.createElement('div');
  tip.id = 'pa-tip';
  tip.className = 'pa-tip';
  tip.setAttribute('role', 'tooltip');
  tip.hidden = true;
  document.body.appendChild(tip);

  function frameOf(el) {
    while (el && el !== svg) {
      if (el.classList && el.classList.contains('f')) return +el.getAttribute('data-i');
      el = el.parentNode;
    }
    return -1;
  }
  function describe(i) {
    var f = data.frames[i];
    var lines = [data.names[f[1]]];
    if (data.locations[f[2]]) lines.push(data.locations[f[2]]);
    lines.push('total: ' + withUnit(f[4], data.unit) + ' (' + percent(f[4], data.total) + ')');
    lines.push('self: ' + withUnit(f[3], data.unit) + ' (' + percent(f[3], data.total) + ')');
    return lines;
  }
  function fill(el, lines) {
    el.textContent = '';
    lines.forEach(function (l, k) {
      var d = document.createElement(k === 0 ? 'strong' : 'div');
      d.textContent = l;
      el.appendChild(d);
      if (k === 0) el.appendChild(document.createElement('br'));
    });
  }
  function show(i, evt) {
    var lines = describe(i);
    fill(tip, lines);
    if (details) details.textContent = lines.join(' · ');
    tip.hidden = false;
    var x = evt && evt.clientX !== undefined ? evt.clientX : 20, y = evt && evt.clientY !== undefined ? evt.clientY : 20;
    tip.style.left = Math.min(x + 14, window.innerWidth - tip.offsetWidth - 8) + window.scrollX + 'px';
    tip.style.top = y + 14 + window.scrollY + 'px';
  }
  svg.addEventListener('mousemove', function (e) {
    var i = frameOf(e.target);
    if (i >= 0) show(i, e); else tip.hidden = true;
  });
  svg.addEventListener('mouseleave', function () { tip.hidden = true; });
  svg.addEventListener('focusin', function (e) {
    var i = frameOf(e.target);
    if (i >= 0) { var b = e.target.getBoundingClientRect(); show(i, { clientX: b.left, clientY: b.bottom }); }
  });

  // Zoom: the clicked frame fills the width, its ancestors span it, its
  // descendants scale with it, everything else hides.
  function label(i, width) {
    var name = data.names[data.frames[i][1]];
    var fits = Math.floor((width - 2 * PAD) / CHAR);
    if (fits < 3) return '';
    return name.length <= fits ? name : name.slice(0, fits - 2) + '..';
  }
  function place(i, x, w) {
    var g = groups[i], r = g.querySelector('rect'), t = g.querySelector('text');
    r.setAttribute('x', x.toFixed(2));
    r.setAttribute('width', w.toFixed(2));
    var text = label(i, w);
    if (!t && text) {
      t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
      t.setAttribute('y', (geom[i].y + 11).toFixed(2));
      g.appendChild(t);
    }
    if (t) { t.setAttribute('x', (x + PAD).toFixed(2)); t.textContent = text; }
  }
  // Frames are in pre-order, so a frame's subtree is the contiguous run
  // of indices up to subtreeEnd[i]; computed once from the parent links
  // (never from rounded coordinates).
  var subtreeEnd = data.frames.map(function (_, i) { return i; });
  for (var k = data.frames.length - 1; k > 0; k--) {
    var parent = data.frames[k][0];
    if (parent >= 0 && subtreeEnd[k] > subtreeEnd[parent]) subtreeEnd[parent] = subtreeEnd[k];
  }
  function zoom(i) {
    var z = geom[i], ancestors = {};
    for (var a = i; a >= 0; a = data.frames[a][0]) ancestors[a] = true;
    for (var j = 0; j < groups.length; j++) {
      var g = geom[j];
      var inside = j > i && j <= subtreeEnd[i];
      if (ancestors[j]) { place(j, 0, W); groups[j].classList.remove('pa-hidden'); }
      else if (inside) { place(j, (g.x - z.x) / z.w * W, g.w / z.w * W); groups[j].classList.remove('pa-hidden'); }
      else groups[j].classList.add('pa-hidden');
      groups[j].classList.toggle('pa-zoomed', j === i && i !== 0);
    }
  }
  svg.addEventListener('click', function (e) {
    var i = frameOf(e.target);
    if (i >= 0) zoom(i);
  });
  svg.addEventListener('keydown', function (e) {
    if (e.key !== 'Enter' && e.key !== ' ') return;
    var i = frameOf(e.target);
    if (i >= 0) { e.preventDefault(); zoom(i); }
  });
  groups.forEach(function (g, i) { if (geom[i].w >= 40) g.setAttribute('tabindex', '0'); });
  var reset = document.getElementById('pa-reset');
  if (reset) reset.addEventListener('click', function () { zoom(0); });

  // Search: highlight matches; the share counts each sample once, so a
  // match inside another match adds nothing.
  var search = document.getElementById('pa-search');
  var result = document.getElementById('pa-search-result');
  function matcher(q) {
    if (q.length > 2 && q[0] === '/' && q[q.length - 1] === '/') {
      try { var re = new RegExp(q.slice(1, -1), 'i'); return function (s) { return re.test(s); }; }
      catch (e) { return null; }
    }
    var lower = q.toLowerCase();
    return function (s) { return s.toLowerCase().indexOf(lower) >= 0; };
  }
  function runSearch() {
    var q = search.value.trim();
    var hit = new Array(groups.length), covered = new Array(groups.length);
    var test = q ? matcher(q) : null;
    var count = 0, sum = 0;
    for (var j = 0; j < groups.length; j++) {
      var f = data.frames[j], p = f[0];
      hit[j] = !!(test && j > 0 && test(data.names[f[1]]));
      covered[j] = p >= 0 && (hit[p] || covered[p]);
      groups[j].classList.toggle('pa-hl', hit[j]);
      if (hit[j]) { count++; if (!covered[j]) sum += f[4]; }
    }
    if (!q) result.textContent = '';
    else if (!test) result.textContent = 'invalid regular expression';
    else result.textContent = count + ' matching frame' + (count === 1 ? '' : 's') + ': ' +
      withUnit(sum, data.unit) + ', ' + percent(sum, data.total) + ' of the total';
  }
  if (search) {
    var timer = null;
    search.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(runSearch, 120); });
    search.addEventListener('keydown', function (e) { if (e.key === 'Enter') { clearTimeout(timer); runSearch(); } });
  }
})();

// ---- evolution matrix: fold/unfold, glyph popups with source diffs, click
// to the component page. Without this script every row down to the
// configured depth is shown and each glyph has a native tooltip.
(function () {
  'use strict';
  var rowsEl = document.getElementById('pa-matrix');
  var dataEl = document.getElementById('pa-matrix-data');
  if (!rowsEl || !dataEl) return;
  var data = JSON.parse(dataEl.textContent);
  var COLUMN = 26;
  var rows = Array.prototype.slice.call(rowsEl.querySelectorAll('.pa-row'));

  // Fold state lives on each row's button (aria-expanded). A row is shown
  // when no ancestor is folded; rows are in pre-order with their level.
  function applyFolds() {
    var closedAt = Infinity;
    rows.forEach(function (r) {
      var level = +r.getAttribute('data-l');
      if (level <= closedAt) closedAt = Infinity;
      var hidden = level > closedAt;
      r.classList.toggle('pa-closed', hidden);
      r.classList.remove('pa-deep');
      var b = r.querySelector('.pa-fold');
      if (!hidden && b && b.getAttribute('aria-expanded') !== 'true') closedAt = level;
    });
  }
  rowsEl.addEventListener('click', function (e) {
    var b = e.target.closest ? e.target.closest('.pa-fold') : null;
    if (b) {
      b.setAttribute('aria-expanded', b.getAttribute('aria-expanded') === 'true' ? 'false' : 'true');
      applyFolds();
      return;
    }
    var svg = e.target.closest ? e.target.closest('svg.pa-gl') : null;
    if (!svg) return;
    var hit = cellAt(svg, e);
    if (hit && hit.row.h) window.location.href = hit.row.h + '#v-' + data.versions[hit.v].slug;
  });
  applyFolds();

  // Popups.
  var tip = document.createElement('div');
  tip.id = 'pa-mtip';
  tip.className = 'pa-tip';
  tip.setAttribute('role', 'tooltip');
  tip.hidden = true;
  document.body.appendChild(tip);

  function cellAt(svg, e) {
    var row = svg.parentNode;
    var r = +row.getAttribute('data-r');
    var box = svg.getBoundingClientRect();
    var v = Math.floor((e.clientX - box.left) / COLUMN);
    var rd = rowData[r];
    if (!rd || v < 0 || v >= data.versions.length) return null;
    if (!rd.c[v]) return null;
    return { r: r, v: v, row: rd, cell: cellOf(rd, v), delta: deltaOf(rd, v) };
  }
  // A cell is 0 (absent), a bare mean, or [mean, min, max, reps, modified].
  function cellOf(rd, v) {
    var c = rd.c[v];
    if (!c) return null;
    return typeof c === 'number' ? [c, c, c, 1, 0] : c;
  }
  // Δ against the closest earlier version that has profiles, as the
  // matrix computes it; null when the component is absent there.
  function deltaOf(rd, v) {
    for (var u = v - 1; u >= 0; u--) {
      if (!data.versions[u].has) continue;
      var p = cellOf(rd, u);
      return p && p[0] > 0 ? cellOf(rd, v)[0] / p[0] - 1 : null;
    }
    return null;
  }
  var rowData = {};
  rows.forEach(function (row, k) { rowData[+row.getAttribute('data-r')] = data.rows[k]; });

  function fmt(v) { return window.perfatlasFormat ? window.perfatlasFormat(v, data.unit) : String(v); }
  function pct(d) { return (d >= 0 ? '+' : '−') + Math.abs(d * 100).toFixed(1) + '%'; }
  function line(text, cls) {
    var d = document.createElement('div');
    if (cls) d.className = cls;
    d.textContent = text;
    tip.appendChild(d);
  }
  function show(hit, e) {
    var c = hit.cell, ver = data.versions[hit.v];
    tip.textContent = '';
    line(hit.row.p, 'pa-tip-title');
    line('version ' + ver.label);
    var share = ver.total > 0 ? ' (' + (100 * c[0] / ver.total).toFixed(2) + '% of the version)' : '';
    line('time: ' + fmt(c[0]) + share);
    if (c[3] > 1) line('mean of ' + c[3] + ' repetitions: min ' + fmt(c[1]) + ', max ' + fmt(c[2]));
    else line('1 repetition');
    line('Δ: ' + (hit.delta === null ? 'no previous value' : pct(hit.delta)));
    line('modified methods: ' + (ver.known ? c[4] : 'no change data'));
    var key = hit.r + ':' + hit.v;
    var names = data.mods[key];
    if (names && names.length) line('modified: ' + names.join(', '));
    var diff = data.diffs[key];
    if (diff) {
      line((diff.added ? 'new in ' : 'changed in ') + diff.file + (diff.range ? ', ' + diff.range : ''));
      var pre = document.createElement('pre');
      pre.className = 'pa-diff-pop';
      diff.lines.forEach(function (l) {
        var s = document.createElement('span');
        s.className = 'pa-dl ' + (l[0] === '+' ? 'add' : l[0] === '-' ? 'del' : 'ctx');
        s.textContent = l[0] + l[3];
        pre.appendChild(s);
      });
      tip.appendChild(pre);
      if (diff.truncated) line('… cut short: click for the component page and the full diff');
    }
    tip.hidden = false;
    var x = e.clientX + 14, y = e.clientY + 14;
    tip.style.left = Math.max(4, Math.min(x, window.innerWidth - tip.offsetWidth - 8)) + window.scrollX + 'px';
    var top = y + tip.offsetHeight > window.innerHeight ? Math.max(4, e.clientY - tip.offsetHeight - 8) : y;
    tip.style.top = top + window.scrollY + 'px';
  }
  rowsEl.addEventListener('mousemove', function (e) {
    var svg = e.target.closest ? e.target.closest('svg.pa-gl') : null;
    var hit = svg ? cellAt(svg, e) : null;
    if (hit) show(hit, e); else tip.hidden = true;
  });
  rowsEl.addEventListener('mouseleave', function () { tip.hidden = true; });
})();
