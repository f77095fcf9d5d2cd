// The evolution matrix: fold/unfold, glyph popups with source diffs, click
// to the component page. Without this script every row down to the
// configured depth is shown and each glyph has a native tooltip.
(function () {
  'use strict';
  var rowsEl = document.getElementById('pa-matrix');
  var dataEl = document.getElementById('pa-matrix-data');
  if (!rowsEl || !dataEl) return;
  var data = JSON.parse(dataEl.textContent);
  // The glyph sizes matrix_svg.rs draws with, from the page's data.
  var geo = data.glyphs.geometry;
  var BASE = geo.column, COLUMN = BASE;
  var ROW = geo.row, GLYPH = geo.glyph, TOP = geo.top, BOTTOM_MAX = geo.bottom_max;
  var MIN_HEIGHT = geo.min_height, TOP_WIDTHS = geo.top_widths;
  var SVG_NS = 'http://www.w3.org/2000/svg';
  rowPaths();
  addMinorRows();
  var rows = Array.prototype.slice.call(rowsEl.querySelectorAll('.pa-row'));

  // Each row's path and component page as matrix_page.rs stores them:
  // a path is left out where it is the path of the last row one level up
  // (`l`, or `x`'s level), then the row's name; a page is stored after
  // the directory `hb` they share.
  function rowPaths() {
    var above = [];
    data.rows.forEach(function (rd) {
      var level = rd.x ? rd.x[1] : (rd.l || 0);
      above.length = level;
      var parent = level >= 3 ? above[level - 1] : undefined;
      if (rd.p === undefined) rd.p = parent !== undefined ? parent + ' \u203a ' + rd.n : rd.n;
      above[level] = rd.p;
      if (rd.h) rd.h = (data.hb || '') + rd.h;
    });
  }

  // Rows below the share threshold are not in the page's HTML: each is
  // drawn here from its data (`x`: row index, level, peak share, whether
  // it has children) where it belongs in the tree, hidden until the
  // reader shows them. Its glyphs are drawn as matrix_svg.rs draws a row
  // without native tooltips (the popups give every number).
  function addMinorRows() {
    var present = Array.prototype.slice.call(rowsEl.querySelectorAll('.pa-row'));
    var pending = document.createDocumentFragment(), j = 0;
    data.rows.forEach(function (rd) {
      if (!rd.x) {
        if (pending.firstChild) rowsEl.insertBefore(pending, present[j]);
        j++;
        return;
      }
      pending.appendChild(minorRow(rd));
    });
    if (pending.firstChild) rowsEl.appendChild(pending);
  }
  function element(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // The row as matrix.html writes one: its name (a fold button for a
  // container, a link to its component page where it has one), its peak
  // share, its glyphs.
  function minorRow(rd) {
    var level = rd.x[1], depth = data.glyphs.depth;
    var row = element('div', 'pa-row pa-minor' + (level > depth ? ' pa-deep' : ''));
    row.setAttribute('data-r', rd.x[0]);
    row.setAttribute('data-l', level);
    var name = element('div', 'pa-name');
    name.style.paddingLeft = (level - 1) * 16 + 'px';
    var head;
    if (rd.x[3]) {
      head = element('button', 'pa-fold', rd.n);
      head.type = 'button';
      head.setAttribute('aria-expanded', level < depth ? 'true' : 'false');
    } else {
      head = element(rd.h ? 'a' : 'span', 'pa-leaf', rd.n);
      if (rd.h) head.setAttribute('href', rd.h);
    }
    head.title = rd.p;
    name.appendChild(head);
    if (rd.x[3] && rd.h) {
      var go = element('a', 'pa-go', '↗');
      go.setAttribute('href', rd.h);
      go.title = 'component page of ' + rd.n;
      name.appendChild(document.createTextNode(' '));
      name.appendChild(go);
    }
    name.appendChild(document.createTextNode(' '));
    name.appendChild(element('span', 'pa-share', rd.x[2]));
    row.appendChild(name);
    row.appendChild(glyphRow(rd));
    return row;
  }
  // Δ's colour step as analysis::matrix::delta_step.
  function roundAway(x) { return x < 0 ? -Math.round(-x) : Math.round(x); }
  function deltaClass(d) {
    if (d === null) return 'dn';
    var ratio = 1 + d;
    var step = !isFinite(ratio) || ratio <= 0 ? -5 : roundAway(Math.max(-1, Math.min(1, Math.log2(ratio))) * 5);
    return step === 0 ? 'd0' : step < 0 ? 'dm' + -step : 'dp' + step;
  }
  function modifiedStep(n) {
    var s = data.glyphs.steps;
    return n === 0 ? 0 : n < s[0] ? 1 : n < s[1] ? 2 : 3;
  }
  function num(v) { return String(Math.round(v * 100) / 100); }
  function glyphRow(rd) {
    var paths = {}, width = rd.c.length * BASE, max = data.glyphs.max;
    rd.c.forEach(function (_, v) {
      var c = cellOf(rd, v);
      if (!c) return;
      var x = v * BASE + (BASE - GLYPH) / 2;
      var h = max > 0 ? Math.max(MIN_HEIGHT, Math.min(BOTTOM_MAX, c[0] / max * BOTTOM_MAX)) : MIN_HEIGHT;
      var y = ROW - 2 - h, cls = deltaClass(deltaOf(rd, v));
      paths[cls] = (paths[cls] || '') + 'M' + num(x) + ' ' + num(y) + 'h' + GLYPH + 'v' + num(h) + 'h-' + GLYPH + 'z';
      var top = TOP_WIDTHS[modifiedStep(c[4])];
      if (top > 0) paths.mod = (paths.mod || '') + 'M' + num(x + (GLYPH - top) / 2) + ' ' + num(y - TOP - 1) + 'h' + top + 'v' + TOP + 'h-' + top + 'z';
    });
    var svg = document.createElementNS(SVG_NS, 'svg');
    [['class', 'pa-gl'], ['width', width], ['height', ROW], ['viewBox', '0 0 ' + width + ' ' + ROW],
      ['role', 'img'], ['aria-label', rd.p]].forEach(function (a) { svg.setAttribute(a[0], a[1]); });
    Object.keys(paths).sort().forEach(function (k) {
      var p = document.createElementNS(SVG_NS, 'path');
      p.setAttribute('class', k);
      p.setAttribute('d', paths[k]);
      svg.appendChild(p);
    });
    return svg;
  }


  // Glyphs use the width the matrix has: each version's column widens
  // (up to three times) to fill the box beside the names. Glyph drawings
  // stretch sideways only; the rows keep their height and the header's
  // labels move with their columns.
  function fitColumns() {
    var box = rowsEl.closest('.pa-mscroll'), head = document.querySelector('.pa-mhead svg.pa-gh');
    var name = box && box.querySelector('.pa-name');
    var n = data.versions.length;
    if (!box || !head || !name || !n) return;
    var k = Math.max(1, Math.min(3, (box.clientWidth - name.offsetWidth - 70) / (n * BASE)));
    COLUMN = BASE * k;
    rowsEl.querySelectorAll('svg.pa-gl').forEach(function (svg) {
      if (!svg.paWidth) { svg.paWidth = +svg.getAttribute('width'); svg.setAttribute('preserveAspectRatio', 'none'); }
      svg.setAttribute('width', (svg.paWidth * k).toFixed(1));
    });
    if (!head.paWidth) {
      head.paWidth = +head.getAttribute('width');
      head.querySelectorAll('text').forEach(function (t) { t.paX = +t.getAttribute('x'); t.paY = +t.getAttribute('y'); });
    }
    var width = head.paWidth - n * BASE + n * COLUMN;
    head.setAttribute('width', width.toFixed(1));
    head.setAttribute('viewBox', '0 0 ' + width.toFixed(1) + ' ' + head.getAttribute('height'));
    head.querySelectorAll('text').forEach(function (t) {
      var v = Math.floor(t.paX / BASE), x = t.paX + v * (COLUMN - BASE) + (COLUMN - BASE) / 2;
      t.setAttribute('x', x.toFixed(1));
      t.setAttribute('transform', 'rotate(-40 ' + x.toFixed(1) + ' ' + t.paY + ')');
    });
  }
  fitColumns();
  window.addEventListener('resize', fitColumns);

  // The matrix's box and what follows it on the page (the footer) fit in
  // the window together: however far the page scrolls, the box's top,
  // and with it the sticky version header, stays in view.
  function fitHeight() {
    var box = rowsEl.closest('.pa-mscroll');
    if (!box) return;
    var doc = document.documentElement;
    var below = doc.scrollHeight - (box.getBoundingClientRect().bottom + window.scrollY);
    box.style.maxHeight = Math.max(240, Math.floor(window.innerHeight - below - 2)) + 'px';
  }
  fitHeight();
  window.addEventListener('resize', fitHeight);

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

  // "Save as SVG": the matrix as the reader sees it (the rows shown, at
  // the columns' width), one drawing with the names left of the glyphs
  // and the version header above, as matrix_svg.rs's standalone file.
  var NAMES = 360, HEADER = 64;
  function matrixSvg() {
    var head = document.querySelector('.pa-mhead svg.pa-gh');
    var shown = rows.filter(function (r) { return getComputedStyle(r).display !== 'none'; });
    var width = NAMES + +head.getAttribute('width'), height = HEADER + shown.length * ROW + 8;
    var svg = document.createElementNS(SVG_NS, 'svg');
    [['class', 'pa-matrix-svg'], ['width', width], ['height', height], ['viewBox', '0 0 ' + width + ' ' + height],
      ['role', 'img'], ['aria-label', document.title]].forEach(function (a) { svg.setAttribute(a[0], a[1]); });
    var bg = document.createElementNS(SVG_NS, 'rect');
    bg.setAttribute('width', '100%');
    bg.setAttribute('height', '100%');
    bg.setAttribute('fill', getComputedStyle(document.body).backgroundColor);
    svg.appendChild(bg);
    var top = document.createElementNS(SVG_NS, 'g');
    top.setAttribute('transform', 'translate(' + NAMES + ' 0)');
    Array.prototype.forEach.call(head.childNodes, function (n) { top.appendChild(n.cloneNode(true)); });
    svg.appendChild(top);
    shown.forEach(function (r, i) {
      var y = HEADER + i * ROW, level = +r.getAttribute('data-l');
      var name = document.createElementNS(SVG_NS, 'text');
      name.setAttribute('x', 4 + (level - 1) * 14);
      name.setAttribute('y', y + ROW / 2 + 4);
      name.textContent = r.querySelector('.pa-name > :first-child').textContent;
      svg.appendChild(name);
      var g = document.createElementNS(SVG_NS, 'g'), gl = r.querySelector('svg.pa-gl');
      g.setAttribute('transform', 'translate(' + NAMES + ' ' + y + ') scale(' + (COLUMN / BASE) + ' 1)');
      Array.prototype.forEach.call(gl.childNodes, function (n) { g.appendChild(n.cloneNode(true)); });
      svg.appendChild(g);
    });
    // Placed in the page for a moment, so that the page's styles apply.
    svg.style.position = 'absolute';
    svg.style.left = '-99999px';
    document.body.appendChild(svg);
    var text = window.perfatlasSvgText(svg);
    svg.remove();
    return text;
  }
  window.perfatlasMatrixSvg = matrixSvg;
  var save = document.querySelector('button.pa-save-matrix');
  if (save) save.addEventListener('click', function () { window.perfatlasDownload(matrixSvg(), save.getAttribute('data-name')); });
})();
