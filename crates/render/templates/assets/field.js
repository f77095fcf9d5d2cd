/* perfatlas field-execution pages: select executions in the execution bar
 * (or by a filter) and recompute the treemap tiles, the file-level and the
 * statement-level colours for that selection, with the same figures as the
 * server (src/analysis/field.rs): Tarantula or hotspots. Without this
 * script the pages show every execution, coloured by Tarantula. */
(function () {
  'use strict';
  var holder = document.getElementById('fm-data');
  var data = holder ? JSON.parse(holder.textContent) : null;
  var NS = 'http://www.w3.org/2000/svg';
  var bands = Array.prototype.slice.call(document.querySelectorAll('.fm-band'));
  var pageMembers = [];
  bands.forEach(function (b) {
    b.getAttribute('data-members').split(',').forEach(function (m) { if (m !== '') pageMembers.push(+m); });
  });
  var picked = [];          /* bands the reader clicked */
  var filterMatch = null;   /* execution index -> bool, from the filter box */
  var colouring = 'tarantula';

  function selection() {
    var chosen = {};
    var from = picked.length ? [] : pageMembers;
    picked.forEach(function (b) {
      bands[b].getAttribute('data-members').split(',').forEach(function (m) { from.push(+m); });
    });
    from.forEach(function (m) { if (!filterMatch || filterMatch[m]) chosen[m] = true; });
    return Object.keys(chosen).map(Number).sort(function (a, b) { return a - b; });
  }

  /* Per file, per line: [executedBy, failed, count]. */
  function stats(chosen) {
    var files = data.files.map(function (f) {
      return f.lines.map(function () { return [0, 0, 0]; });
    });
    var failed = 0;
    chosen.forEach(function (e) {
      var ex = data.executions[e];
      if (ex.failed) failed++;
      data.cov[e].forEach(function (fc) {
        var lines = files[fc[0]], flat = fc[1];
        for (var i = 0; i < flat.length; i += 2) {
          var s = lines[flat[i]];
          s[0]++; if (ex.failed) s[1]++; s[2] += flat[i + 1];
        }
      });
    });
    return { files: files, executions: chosen.length, failed: failed };
  }

  function colours(st) {
    var max = 0;
    st.files.forEach(function (f) { f.forEach(function (s) { if (s[2] > max) max = s[2]; }); });
    var passedTotal = st.executions - st.failed;
    return st.files.map(function (f) {
      return f.map(function (s) {
        if (s[0] === 0) return null;
        if (colouring === 'hotspot') {
          if (s[2] === 0) return null;
          return { hue: 120 * (1 - s[2] / Math.max(max, 1)), brightness: 1 };
        }
        var p = passedTotal ? (s[0] - s[1]) / passedTotal : 0;
        var q = st.failed ? s[1] / st.failed : 0;
        return { hue: 120 * p / (p + q), brightness: data.minBrightness + (1 - data.minBrightness) * Math.min(1, Math.max(p, q)) };
      });
    });
  }

  function css(c) {
    return c ? 'hsl(calc(var(--fm-h0) + var(--fm-hk) * ' + Math.round(c.hue) + '),100%,' + Math.round(c.brightness * 50) + '%)' : 'var(--field-none)';
  }

  function bins(cols) {
    var H = data.hueBins, B = data.brightnessBins, out = [];
    for (var h = 0; h <= H; h++) { out.push([]); for (var b = 0; b < B; b++) out[h].push(0); }
    cols.forEach(function (c) {
      if (!c) { out[H][0]++; return; }
      var h = Math.min(H - 1, Math.floor(c.hue / 120 * H));
      var b = Math.min(B - 1, Math.floor((1 - c.brightness) / (1 - data.minBrightness) * B));
      out[h][b]++;
    });
    return out;
  }

  /* Section 2.2: rows are brightness bins, as tall as their share of the
   * lines; inside a row each hue block is as wide as its share of the row. */
  function tileCells(counts, r) {
    var rows = counts.length ? counts[0].length : 0, total = 0, cells = [], y = r.y0;
    counts.forEach(function (col) { col.forEach(function (n) { total += n; }); });
    if (!total) return cells;
    for (var b = 0; b < rows; b++) {
      var inRow = 0;
      counts.forEach(function (col) { inRow += col[b]; });
      if (!inRow) continue;
      var height = (r.y1 - r.y0) * inRow / total, x = r.x0;
      for (var h = 0; h < counts.length; h++) {
        if (!counts[h][b]) continue;
        var width = (r.x1 - r.x0) * counts[h][b] / inRow;
        cells.push({ x0: x, y0: y, x1: x + width, y1: y + height, hue: h, brightness: b });
        x += width;
      }
      y += height;
    }
    return cells;
  }

  function binColour(c) {
    if (c.hue >= data.hueBins) return null;
    return {
      hue: (c.hue + 0.5) * 120 / data.hueBins,
      brightness: 1 - (c.brightness + 0.5) * (1 - data.minBrightness) / data.brightnessBins
    };
  }

  function drawCells(group, counts, r) {
    while (group.firstChild) group.removeChild(group.firstChild);
    tileCells(counts, r).forEach(function (c) {
      var rect = document.createElementNS(NS, 'rect');
      rect.setAttribute('x', c.x0); rect.setAttribute('y', c.y0);
      rect.setAttribute('width', c.x1 - c.x0); rect.setAttribute('height', c.y1 - c.y0);
      rect.setAttribute('fill', css(binColour(c)));
      group.appendChild(rect);
    });
  }

  function boxOf(el) {
    var n = function (a) { return parseFloat(el.getAttribute(a)); };
    return { x0: n('data-x0'), y0: n('data-y0'), x1: n('data-x1'), y1: n('data-y1') };
  }

  function recompute() {
    if (!data) return;
    var chosen = selection(), st = stats(chosen), cols = colours(st);
    document.querySelectorAll('a.fm-tile').forEach(function (tile) {
      var f = +tile.getAttribute('data-file');
      drawCells(tile.querySelector('.fm-cells'), bins(cols[f]), boxOf(tile.querySelector('.fm-tile-box')));
    });
    document.querySelectorAll('g.fm-dir').forEach(function (g) {
      var dir = g.getAttribute('data-dir') + '/', all = [];
      data.files.forEach(function (f, i) { if (f.path.indexOf(dir) === 0) all = all.concat(cols[i]); });
      var box = g.querySelector('.fm-dir-box');
      var r = { x0: +box.getAttribute('x'), y0: +box.getAttribute('y') };
      r.x1 = r.x0 + (+box.getAttribute('width')); r.y1 = r.y0 + (+box.getAttribute('height'));
      drawCells(g.querySelector('.fm-dir-cells'), bins(all), r);
    });
    var page = document.getElementById('fm-file');
    if (page) {
      var f = +page.getAttribute('data-file'), lines = data.files[f].lines;
      lines.forEach(function (line, i) {
        var s = st.files[f][i], colour = css(cols[f][i]);
        var row = document.querySelector('.fm-line[data-line="' + line + '"]');
        if (row) {
          row.style.setProperty('--line-colour', colour);
          row.setAttribute('data-stats', 'executed by ' + s[0] + ' of ' + st.executions + ' executions; of these, ' +
            (s[0] - s[1]) + ' ended normally and ' + s[1] + ' with an exception; ' + s[2].toLocaleString('en-US') + ' times in all');
          row.querySelector('.fm-count').textContent = s[2] ? s[2].toLocaleString('en-US') : '';
        }
        var mini = document.querySelector('.fm-mini-line[data-line="' + line + '"]');
        if (mini) mini.setAttribute('fill', colour);
      });
    }
    var note = document.getElementById('fm-selection');
    if (note) {
      note.textContent = chosen.length + ' of ' + data.executions.length + ' executions selected (' + st.failed + ' failed)' +
        (picked.length ? '; click the selected bands again or “all” to go back' : '');
    }
    bands.forEach(function (b, i) {
      b.classList.toggle('fm-selected', picked.indexOf(i) >= 0);
      var inFilter = !filterMatch || b.getAttribute('data-members').split(',').some(function (m) { return filterMatch[+m]; });
      b.classList.toggle('fm-out', !inFilter);
    });
  }

  bands.forEach(function (b, i) {
    b.addEventListener('click', function () {
      var at = picked.indexOf(i);
      if (at >= 0) picked.splice(at, 1); else picked.push(i);
      recompute();
    });
  });
  var all = document.getElementById('fm-all');
  if (all) all.addEventListener('click', function () { picked = []; filterMatch = null; recompute(); });
  document.querySelectorAll('input[name=fm-colouring]').forEach(function (r) {
    r.addEventListener('change', function () { colouring = r.value; recompute(); });
  });
  var slider = document.getElementById('fm-none');
  if (slider) slider.addEventListener('input', function () {
    document.documentElement.style.setProperty('--field-none', 'hsl(0,0%,' + slider.value + '%)');
  });
  var form = document.getElementById('fm-filter-form');
  if (form && data) form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var text = document.getElementById('fm-filter').value, out = document.getElementById('fm-filter-error');
    out.textContent = '';
    if (!text.trim()) { filterMatch = null; recompute(); return; }
    var parsed = window.PerfatlasFieldFilter.parse(text);
    if (parsed.error) { out.textContent = 'column ' + parsed.error.column + ': ' + parsed.error.message; return; }
    filterMatch = data.executions.map(function (e) { return window.PerfatlasFieldFilter.matches(parsed.ast, e.props); });
    recompute();
  });
  function toggleDir(g) {
      var dir = g.getAttribute('data-dir') + '/', collapsed = g.classList.toggle('fm-collapsed');
      var button = document.querySelector('.fm-dir-toggle[data-dir="' + g.getAttribute('data-dir') + '"]');
      if (button) button.classList.toggle('fm-pressed', collapsed);
      document.querySelectorAll('a.fm-tile').forEach(function (t) {
        if (data.files[+t.getAttribute('data-file')].path.indexOf(dir) === 0) t.classList.toggle('fm-hidden', collapsed);
      });
      document.querySelectorAll('g.fm-dir').forEach(function (inner) {
        var d = inner.getAttribute('data-dir') + '/';
        if (inner !== g && d.indexOf(dir) === 0) inner.classList.toggle('fm-hidden', collapsed);
      });
  }
  document.querySelectorAll('g.fm-dir').forEach(function (g) {
    g.addEventListener('click', function () { toggleDir(g); });
  });
  document.querySelectorAll('.fm-dir-toggle').forEach(function (b) {
    b.addEventListener('click', function () {
      var g = document.querySelector('g.fm-dir[data-dir="' + b.getAttribute('data-dir') + '"]');
      if (g) toggleDir(g);
    });
  });
  /* The statistics panel and the lens over the file-level view. */
  var panel = document.getElementById('fm-stats'), lens = document.getElementById('fm-lens');
  // The panel follows the pointer on the source and on the file-level
  // view; the lens (the full-size lines under the pointer) only on the
  // latter, over the page: filled from a source line, it pushed the
  // source sideways, away from the pointer.
  function show(line, withLens) {
    var row = document.querySelector('.fm-line[data-line="' + line + '"]');
    if (!row || !panel) return;
    panel.textContent = 'line ' + line + ': ' + (row.getAttribute('data-stats') || 'not executable');
    if (lens && withLens) {
      lens.innerHTML = '';
      for (var n = line - 4; n <= line + 4; n++) {
        var r = document.querySelector('.fm-line[data-line="' + n + '"]');
        if (r) { var c = r.cloneNode(true); c.removeAttribute('id'); lens.appendChild(c); }
      }
    }
  }
  document.querySelectorAll('.fm-line').forEach(function (row) {
    row.addEventListener('mouseenter', function () { show(+row.getAttribute('data-line'), false); });
  });
  var mini = document.querySelector('svg.fm-mini');
  if (mini) mini.addEventListener('mousemove', function (ev) {
    var box = mini.getBoundingClientRect();
    show(Math.floor((ev.clientY - box.top) / 3) + 1, true);
  });
  if (mini && lens) mini.addEventListener('mouseleave', function () { lens.innerHTML = ''; });
  if (data) recompute();
})();
