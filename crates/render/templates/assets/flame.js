// perfatlas flame pages' script (profile, aggregate and differential
// pages): flame-graph tooltips, zoom and search, the views of other
// metrics and shapes from #pa-views, the state in the URL fragment, and
// the tree tables. Loaded after perfatlas.js, whose number formatter it
// uses.
(function () {
  'use strict';
  var numbers = window.perfatlasNumbers;
  var grouped = numbers.grouped, withUnit = numbers.withUnit, percent = numbers.percent;

  // ---- flame graphs ------------------------------------------------------
  // Every <svg class="pa-flame"> of the view shown, with its data in the
  // page's #pa-views. Search applies to all of them; zoom to one. Both live
  // in the URL fragment (#search=…&zoom=G.I&mode=…, after the view's
  // metric=…&shape=…) so a link can point at a zoomed, searched view and
  // Back undoes a zoom.
  var W = 1200, CHAR = 7, PAD = 3, ROW = 16;
  var NS = 'http://www.w3.org/2000/svg';
  var modeSelect = document.getElementById('pa-diff-mode');
  var diffMode = 'inclusive';
  // Differential graphs are drawn on the newer version's widths, or on
  // the older's (#side=old; flame_diff.rs Side).
  var sideSelect = document.getElementById('pa-diff-side');
  var diffSide = 'new';

  // Pages with views (profile pages: every metric and shape) keep every
  // graph's data and the tree tables in #pa-views; the default view is
  // also written as HTML, the others are drawn here.
  var views = null, shown = null;
  var viewsEl = document.getElementById('pa-views');
  if (viewsEl) {
    try { views = JSON.parse(viewsEl.textContent); } catch (e) { views = null; }
    // Views derived from the page's trees need assets/shapes.js: without
    // it the page keeps what is written as HTML, and says so.
    if (views && views.tree && !window.perfatlasShapes) {
      views = null;
      shapesMissing();
    }
    if (views && views.views) {
      shown = views.views[0];
      // A page that writes no view as HTML (the compare page): the
      // script draws the first one too.
      var box0 = document.getElementById('pa-graphs');
      if (box0 && !box0.children.length) shown = null;
      prepareViews(views);
      // The page's own tables, as stored: a repetition's views extend them
      // (drawing adds labels to views.names).
      views.stored = {
        names: views.names.slice(), full: (views.full || []).slice(),
        locations: views.locations.slice(), links: views.links.slice()
      };
    } else {
      // A page cut short (or edited): say so rather than show nothing
      // new when another view is asked for.
      views = null;
      var box = document.getElementById('pa-graphs');
      if (box) {
        var note = document.createElement('p');
        note.className = 'pa-note pa-views-missing';
        note.textContent = 'This page\'s view data could not be read (the file may be cut short): ' +
          'only the view written as HTML is shown, without hover details, and the other metrics ' +
          'and shapes cannot be drawn.';
        box.parentNode.insertBefore(note, box);
      }
    }
  }
  // Locations stored as [shared directory, rest] (views.rs).
  function prepareViews(v) {
    v.locations = v.locations.map(function (l) {
      return typeof l === 'string' ? l : (v.dirs || [])[l[0]] + l[1];
    });
    return v;
  }
  // An aggregate page that shows its version's repetitions
  // (aggregate_page.rs): each repetition's views are stored as its own
  // page would store them, in a script element read when the fragment
  // first asks for it (#rep=r2&metric=…&shape=…). The merged views are
  // the page's own; the repetition's facts and heaviest functions are
  // HTML blocks shown with its views.
  // The merged views are top-down; the other shapes are the mean
  // profile's (script.pa-mean-views, stored as a repetition's), shown
  // with no repetition named (#shape=bottom-up).
  var merged = views, rep = '', repViews = {}, meanViews;
  function readMean() {
    if (meanViews === undefined) {
      var source = merged && window.perfatlasShapes && document.querySelector('script.pa-mean-views');
      try { meanViews = source ? onPage(prepareViews(JSON.parse(source.textContent))) : null; } catch (e) { meanViews = null; }
      if (meanViews) meanViews.metricNames = merged.metricNames;
    }
    return meanViews;
  }
  function useRep(name, mean) {
    var source = name && merged && window.perfatlasShapes &&
      document.querySelector('script.pa-rep-views[data-rep="' + CSS.escape(name) + '"]');
    if (!source) name = '';
    var next = !name && mean && readMean() || merged;
    if (name === rep && next === views) return;
    if (name) {
      if (!(name in repViews)) {
        try { repViews[name] = onPage(prepareViews(readRep(source))); } catch (e) {
          repViews[name] = null;
          repMissing(name);
        }
        if (repViews[name]) repViews[name].metricNames = merged.metricNames;
      }
      next = repViews[name] || merged;
      if (!repViews[name]) name = '';
    }
    rep = name;
    views = next;
    shown = null;
    if (rep) writeHeaviest(views, document.querySelector('.pa-rep-heaviest[data-rep="' + CSS.escape(rep) + '"]'));
    Array.prototype.forEach.call(document.querySelectorAll('.pa-rep-block'), function (e) {
      e.hidden = e.getAttribute('data-rep') !== rep;
    });
    Array.prototype.forEach.call(document.querySelectorAll('.pa-merged-only'), function (e) { e.hidden = !!rep; });
    Array.prototype.forEach.call(document.querySelectorAll('.pa-rep-only'), function (e) { e.hidden = !rep; });
    var nav = document.querySelector('nav[aria-label="repetition"]');
    if (nav) {
      Array.prototype.forEach.call(nav.querySelectorAll('a, strong'), function (e) {
        if (!e.hasAttribute('data-href')) e.setAttribute('data-href', e.getAttribute('data-rep') ? '#rep=' + e.getAttribute('data-rep') : '#');
      });
      markCurrent(nav, rep || 'all merged');
    }
  }
  // A repetition's views as stored: whole, or as their differences from
  // another repetition's (data-like; shapes.js withDifferences).
  function readRep(source) {
    var v = JSON.parse(source.textContent), like = source.getAttribute('data-like');
    if (!like) return v;
    var base = document.querySelector('script.pa-rep-views[data-rep="' + CSS.escape(like) + '"]');
    if (!base || base.hasAttribute('data-like')) throw new Error('no views of ' + like);
    return window.perfatlasShapes.withDifferences(JSON.parse(base.textContent), v, like, source.getAttribute('data-rep'));
  }
  // A repetition's views extend the page's tables (views.rs `base`: they
  // store only the names and locations added after the page's) and use
  // the page's stored tree `page_tree` with the page's shape frames.
  function onPage(v) {
    var own = merged.stored;
    if (v.base) {
      var full = own.full.length || (v.full && v.full.length);
      v.full = full ? pad(own.full, own.names.length).concat(pad(v.full || [], v.names.length)) : undefined;
      v.names = own.names.concat(v.names);
      v.locations = own.locations.concat(v.locations);
      v.links = own.links.concat(v.links);
    }
    if (v.page_tree !== undefined && merged.tree && merged.tree.trees[v.page_tree]) {
      var tree = {};
      for (var key in merged.tree) if (key !== 'agg' && key !== 'diff') tree[key] = merged.tree[key];
      tree.trees = [merged.tree.trees[v.page_tree]];
      v.tree = tree;
    }
    return v;
  }
  // A repetition's heaviest functions per metric, as
  // templates/heaviest.html writes them on a profile page.
  function writeHeaviest(v, box) {
    if (!box || box.childNodes.length || !v.heaviest) return;
    v.heaviest.forEach(function (t, m) {
      if (!t.rows.length) return;
      var sec = el('section', { 'class': 'pa-heavy-section', 'data-metric': m, 'data-shape': 'top-down' });
      sec.appendChild(el('h2', {}, 'Heaviest functions by self ' + t.metric));
      var table = sec.appendChild(el('table', { 'class': 'pa-table pa-heavy' }));
      var head = table.appendChild(el('thead')).appendChild(el('tr'));
      ['function', 'file', 'self', '', 'total', ''].forEach(function (h) { head.appendChild(el('th', {}, h)); });
      var body = table.appendChild(el('tbody'));
      t.rows.forEach(function (r) {
        var tr = body.appendChild(el('tr'));
        // Names and files the tables hold are stored as their index.
        tr.appendChild(el('td', {}, typeof r[0] === 'number' ? v.names[r[0]] : r[0]));
        tr.appendChild(el('td')).appendChild(el('code', {}, typeof r[1] === 'number' ? v.locations[r[1]] : r[1]));
        [withUnit(r[2], t.unit), percent(r[2], t.of), withUnit(r[3], t.unit), percent(r[3], t.of)].forEach(function (c) {
          tr.appendChild(el('td', { 'class': 'pa-num' }, c));
        });
      });
      box.appendChild(sec);
    });
  }
  // A repetition whose views cannot be read (a page cut short or
  // edited): the page says so and stays on the merged view.
  function repMissing(name) {
    var box = document.getElementById('pa-graphs');
    if (!box) return;
    var note = document.createElement('p');
    note.className = 'pa-note pa-views-missing';
    note.textContent = 'The views of repetition ' + name + ' could not be read (the page may be ' +
      'cut short): the merged view is shown instead.';
    box.parentNode.insertBefore(note, box);
  }
  function pad(list, n) {
    var out = list.slice(0, n);
    while (out.length < n) out.push('');
    return out;
  }
  function viewGraph(view, k, side) {
    var gd = view && view.graphs[k];
    if (!gd) return null;
    if ((side || diffSide) === 'old' && gd.data.diff_unit !== undefined) return olderGraph(view, gd);
    gd.data.names = views.names;
    gd.data.full = views.full;
    gd.data.locations = views.locations;
    gd.data.links = views.links;
    // Shared frames are copied: unscale() writes into them.
    if (gd.data.frames_at !== undefined && !gd.data.frames) gd.data.frames = framesList(gd.data.frames_at);
    if (gd.data.derive && !gd.data.frames) gd.data.frames = derivedFrames(view, gd.data);
    return expandDiff(unscale(gd.data));
  }
  // A differential graph on the older version's widths: stored beside
  // the newer one's (data.older), or derived as it is. Its note is the
  // newer one's older_note; it has no merged-frames note.
  function olderGraph(view, gd) {
    if (!gd.olderData) {
      var o = gd.data.older;
      if (!o) {
        o = {};
        for (var key in gd.data) {
          if (['frames', 'frames_at', 'diff', 'diffWritten', 'older'].indexOf(key) < 0) o[key] = gd.data[key];
        }
      }
      o.note = gd.data.older_note;
      o.merged_note = null;
      gd.olderData = o;
    }
    var data = gd.olderData;
    data.names = views.names;
    data.full = views.full;
    data.locations = views.locations;
    data.links = views.links;
    if (data.derive && !data.frames) {
      data.frames = derivedFrames(view, data, 'old');
      data.total = data.frames.length ? data.frames[0][4] * (data.scale || 1) : 0;
    }
    return expandDiff(unscale(data));
  }
  // A graph the page does not store (a profile page's bottom-up or flat
  // views, a differential page's): assets/shapes.js derives it from the
  // page's trees (shape_source.rs).
  function derivedFrames(view, data, side) {
    var shapes = window.perfatlasShapes;
    if (shapes && views.tree && views.tree.diff) {
      var d = shapes.diffFrames(views.tree, views.names, data.derive, view.metric, data.scale || 1, nameIndex, side);
      data.diff = d.diff;
      return d.frames;
    }
    if (shapes && views.tree && views.tree.agg) {
      var a = shapes.aggregateFrames(views.tree, views.names, data.derive, view.metric, data.scale || 1, nameIndex);
      data.agg.values = a.values;
      return a.frames;
    }
    if (shapes && views.tree) return shapes.frames(views.tree, views.names, data.derive, view.metric, data.scale || 1, nameIndex);
    return [];
  }
  function shapesMissing() {
    if (document.querySelector('.pa-shapes-missing')) return;
    var note = document.createElement('p'), box = document.getElementById('pa-graphs');
    note.className = 'pa-note pa-shapes-missing';
    note.textContent = 'This page\'s views are drawn by assets/shapes.js, which could not be loaded ' +
      '(the site may be incomplete): only the graph and table written as HTML are shown, without ' +
      'hover details; the other views cannot be drawn.';
    if (box) box.parentNode.insertBefore(note, box);
  }
  // The rows of a bottom-up or flat tree table the page does not store.
  function derivedRows(table) {
    var shapes = window.perfatlasShapes;
    if (shapes && views.tree) return shapes.tableRows(views.tree, table, views.names, nameIndex);
    return [];
  }
  // The index of a name in the page's names, added when new (a box of
  // merged frames is labelled "[N narrow frames merged]").
  function nameIndex(label) {
    if (!views.nameIndex) {
      views.nameIndex = new Map();
      views.names.forEach(function (n, i) {
        if (!(views.full && views.full[i]) && !views.nameIndex.has(n)) views.nameIndex.set(n, i);
      });
    }
    var i = views.nameIndex.get(label);
    if (i === undefined) {
      i = views.names.length;
      views.names.push(label);
      if (views.full && views.full.length) views.full.push('');
      views.nameIndex.set(label, i);
    }
    return i;
  }
  // A shared frame list, whole, or as the values ({like, v}: self and
  // total of each frame in turn) of frames laid out like another list's
  // (views.rs's FramesEntry).
  function framesList(k) {
    var f = views.frames[k];
    if (!f) return [];
    if (Array.isArray(f)) return f.map(function (r) { return r.slice(); });
    return (views.frames[f.like] || []).map(function (r, i) {
      var c = r.slice();
      c[3] = f.v[2 * i];
      c[4] = f.v[2 * i + 1];
      return c;
    });
  }
  // Differential frames come as [old, new, old self, new self]; tags,
  // colour classes and change texts are written here as
  // flame_diff_page.rs writes them into the SVG:
  // [tag, self tag, class, self class, change, self change, old, new].
  var MARKS = { A: '[A]', D: '[D]', P: '[+]', M: '[−]', S: '[=]' };
  function tagOf(o, n) {
    return o === 0 && n !== 0 ? 'A' : n === 0 && o !== 0 ? 'D' : n > o ? 'P' : n < o ? 'M' : 'S';
  }
  function deltaStep(d) {
    var ratio = 1 + d;
    if (!isFinite(ratio) || ratio <= 0) return -5;
    var x = Math.max(-1, Math.min(1, Math.log2(ratio))) * 5;
    return (x < 0 ? -1 : 1) * Math.round(Math.abs(x));
  }
  function colourClass(o, n) {
    var t = tagOf(o, n);
    var step = t === 'A' ? 5 : t === 'D' ? -5 : t === 'S' ? 0 : o !== 0 ? deltaStep((n - o) / o) : 0;
    return step === 0 ? 'd0' : step > 0 ? 'dp' + step : 'dm' + -step;
  }
  function changeText(o, n, show) {
    var delta = n - o, sign = delta > 0 ? '+' : delta < 0 ? '−' : '±';
    var relative = o !== 0 ? ', ' + sign + Math.abs((n - o) / o * 100).toFixed(1) + '%' : '';
    return show(o) + ' → ' + show(n) + ' (' + sign + show(Math.abs(delta)) + relative + ')';
  }
  function expandDiff(data) {
    if (!data.diff || data.diffWritten) return data;
    var show = data.normalised
      ? function (v) { return (v * 100).toFixed(2) + '% of total'; }
      : function (v) { return withUnit(v, data.diff_unit); };
    data.diff = data.diff.map(function (r) {
      if (!r) return null;
      return [MARKS[tagOf(r[0], r[1])], MARKS[tagOf(r[2], r[3])], colourClass(r[0], r[1]),
        colourClass(r[2], r[3]), changeText(r[0], r[1], show), changeText(r[2], r[3], show), r[0], r[1]];
    });
    data.diffWritten = true;
    return data;
  }
  // An editor link from a location ("path:line") and the page's
  // [flame] editor template, as source_page.rs's editor_link makes it:
  // the path without leading slashes, percent-encoded (UTF-8) but for
  // letters, digits and / . _ - ~ :.
  function editorLink(location) {
    var template = views && views.editor;
    if (!template || !location) return '';
    var m = /^(.*):(\d+)$/.exec(location), path = location, line = '1';
    if (m && +m[2] > 0 && +m[2] <= 4294967295) { path = m[1]; line = String(+m[2]); }
    var encoded = '';
    // A file:// URL (V8's script URLs) names a local path.
    Array.from(path.replace(/^file:\/\//, '').replace(/^\/+/, '')).forEach(function (c) {
      if (/[A-Za-z0-9\/._~:-]/.test(c)) { encoded += c; return; }
      new TextEncoder().encode(c).forEach(function (b) {
        encoded += '%' + (b < 16 ? '0' : '') + b.toString(16).toUpperCase();
      });
    });
    return template.split('{path}').join(encoded).split('{line}').join(line);
  }
  window.perfatlasEditorLink = editorLink;
  // Frame values are stored divided by data.scale (see flame_view.rs).
  function unscale(data) {
    if (data.scale > 1) {
      data.frames.forEach(function (f) { f[3] *= data.scale; f[4] *= data.scale; });
      data.scale = 1;
    }
    return data;
  }

  // The frame under the mouse (for the `s` key), if any.
  var hovered = null;
  var graphs = Array.prototype.slice.call(document.querySelectorAll('#pa-graphs svg.pa-flame'))
    .map(function (svg, k) { return setupGraph(svg, k); })
    .filter(function (g) { return g; });
  // For tests and for readers' own scripts: the data of graph k as shown.
  window.perfatlasGraphData = function (k) { return graphs[k] ? graphs[k].data : null; };
  var tip = document.createElement('div');
  tip.id = 'pa-tip';
  tip.className = 'pa-tip';
  tip.setAttribute('role', 'tooltip');
  tip.hidden = true;
  if (graphs.length || views) document.body.appendChild(tip);

  function setupGraph(svg, k) {
    var data = viewGraph(shown, k);
    return data ? initGraph(svg, k, data, false) : null;
  }
  // A graph's state: its frames' original geometry (in the SVG's 0–W
  // units), the frame zoomed to (`zoomed`, whose ancestors span the
  // width) and the viewport (`view`: the range of the original x shown).
  // A local graph (a sandwich's) zooms without the URL fragment.
  function initGraph(svg, k, data, local) {
    var g = { svg: svg, k: k, data: data, local: local };
    g.groups = Array.prototype.slice.call(svg.querySelectorAll('g.f'));
    // Frames written in a page come in pre-order without their index.
    g.groups.forEach(function (el, i) { if (!el.hasAttribute('data-i')) el.setAttribute('data-i', i); });
    g.rects = g.groups.map(function (el) { return el.querySelector('rect'); });
    g.texts = g.groups.map(function (el) { return el.querySelector('text'); });
    g.geom = g.rects.map(function (r) {
      return { x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y') };
    });
    var wrap = svg.closest('.pa-flame-wrap'), next = wrap && wrap.nextElementSibling;
    var section = svg.closest('section');
    g.details = next && next.classList.contains('pa-details') ? next
      : section ? section.querySelector('.pa-details') : null;
    // Frames are in pre-order, so a frame's subtree is the contiguous run
    // of indices up to subtreeEnd[i], computed from the parent links.
    g.subtreeEnd = g.data.frames.map(function (_, i) { return i; });
    for (var i = g.data.frames.length - 1; i > 0; i--) {
      var p = g.data.frames[i][0];
      if (p >= 0 && g.subtreeEnd[i] > g.subtreeEnd[p]) g.subtreeEnd[p] = g.subtreeEnd[i];
    }
    g.zoomed = 0;
    g.ancestors = {};
    g.view = { a: 0, b: W };
    g.placed = g.geom.map(function (q) { return q.x.toFixed(2) + ' ' + q.w.toFixed(2); });
    g.hid = g.groups.map(function () { return false; });
    svg.addEventListener('mousemove', function (e) {
      var i = frameOf(g, e.target);
      hovered = i >= 0 ? { g: g, i: i } : null;
      if (i >= 0) show(g, i, e); else tip.hidden = true;
    });
    svg.addEventListener('mouseleave', function () { tip.hidden = true; hovered = null; });
    svg.addEventListener('focusin', function (e) {
      var i = frameOf(g, e.target);
      if (i >= 0) { var b = e.target.getBoundingClientRect(); show(g, i, { clientX: b.left, clientY: b.bottom }); }
    });
    svg.addEventListener('click', function (e) {
      // The end of a drag that panned is not a click on a frame.
      if (g.dragged) { g.dragged = false; return; }
      var i = frameOf(g, e.target);
      if (i >= 0) requestZoom(g, i);
    });
    svg.addEventListener('keydown', function (e) {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      var i = frameOf(g, e.target);
      if (i >= 0) { e.preventDefault(); requestZoom(g, i); }
    });
    svg.addEventListener('wheel', function (e) { onWheel(g, e); }, { passive: false });
    svg.addEventListener('mousedown', function (e) { startDrag(g, e); });
    g.groups.forEach(function (el, i) { if (g.geom[i].w >= 40) el.setAttribute('tabindex', '0'); });
    return g;
  }

  function frameOf(g, el) {
    while (el && el !== g.svg) {
      if (el.classList && el.classList.contains('f')) return +el.getAttribute('data-i');
      el = el.parentNode;
    }
    return -1;
  }
  function diffRow(g, i) { return g.data.diff ? g.data.diff[i] : null; }
  function prefix(g, i) {
    var d = diffRow(g, i);
    return d ? (diffMode === 'exclusive' ? d[1] : d[0]) + ' ' : '';
  }
  function describe(g, i) {
    var f = g.data.frames[i], d = g.data, lines = [prefix(g, i) + d.names[f[1]]];
    // A C++ frame's whole name under its short label.
    if (d.full && d.full[f[1]]) lines.push(d.full[f[1]]);
    if (d.locations[f[2]]) lines.push(d.locations[f[2]]);
    var row = diffRow(g, i), agg = d.agg ? d.agg.values[i] : null;
    if (row) {
      lines.push('inclusive: ' + row[4]);
      lines.push('self: ' + row[5]);
      // Each version's share of its own total (flame_diff_page.rs decorate).
      if (d.totals && !d.normalised) {
        lines.push('share: ' + percent(row[6], d.totals[0]) + ' of ' + sideLabel('old') + ' → ' +
          percent(row[7], d.totals[1]) + ' of ' + sideLabel('new'));
      }
    } else if (agg) {
      var sum = 0, min = Infinity, max = -Infinity;
      agg.forEach(function (v) { sum += v; min = Math.min(min, v); max = Math.max(max, v); });
      lines.push('mean: ' + withUnit(sum / agg.length, d.unit) + ' (' + percent(sum / agg.length, d.total) + ')');
      lines.push('min: ' + withUnit(min, d.unit) + ' · max: ' + withUnit(max, d.unit) + ' · sum: ' + withUnit(sum, d.unit));
      lines.push({ hist: agg, labels: d.agg.labels });
    } else if (d.words === 'value') {
      lines.push('value: ' + withUnit(f[4], d.unit) + ' (' + percent(f[4], d.total) + ')');
    } else {
      lines.push('total: ' + withUnit(f[4], d.unit) + ' (' + percent(f[4], d.total) + ')');
      lines.push('self: ' + withUnit(f[3], d.unit) + ' (' + percent(f[3], d.total) + ')');
    }
    return lines;
  }
  function histogram(h) {
    var box = document.createElement('div'), max = Math.max.apply(null, h.hist.concat([0]));
    box.className = 'pa-tip-hist';
    h.hist.forEach(function (v, k) {
      var bar = document.createElement('span');
      bar.style.height = (max > 0 ? Math.max(1, Math.round(v / max * 32)) : 1) + 'px';
      bar.title = h.labels[k] + ': ' + grouped(v);
      box.appendChild(bar);
    });
    return box;
  }
  function fill(el, lines) {
    el.textContent = '';
    lines.forEach(function (l, k) {
      if (typeof l === 'object') { el.appendChild(histogram(l)); return; }
      var d = document.createElement(k === 0 ? 'strong' : 'div');
      d.textContent = l;
      el.appendChild(d);
    });
  }
  function show(g, i, evt) {
    var lines = describe(g, i);
    fill(tip, lines);
    if (g.details && !(g.zoomed > 0)) g.details.textContent = lines.filter(function (l) { return typeof l === 'string'; }).join(' · ');
    tip.hidden = false;
    var x = evt && evt.clientX !== undefined ? evt.clientX : 20, y = evt && evt.clientY !== undefined ? evt.clientY : 20;
    tip.style.left = Math.min(x + 14, window.innerWidth - tip.offsetWidth - 8) + window.scrollX + 'px';
    tip.style.top = y + 14 + window.scrollY + 'px';
  }

  // Zoom: the chosen frame fills the width, its ancestors span it, its
  // descendants scale with it, everything else hides.
  // The name only: a differential frame's tag leads its tooltip.
  function label(g, i, width) {
    var name = g.data.names[g.data.frames[i][1]];
    var fits = Math.floor((width - 2 * PAD) / CHAR);
    if (fits < 3) return '';
    return name.length <= fits ? name : name.slice(0, fits - 2) + '..';
  }
  // The details line under a graph: the zoomed frame's numbers, with links
  // to its source page and editor where it has them.
  function pin(g, i) {
    if (!g.details) return;
    g.details.textContent = '';
    if (i <= 0) return;
    g.details.appendChild(document.createTextNode(
      describe(g, i).filter(function (l) { return typeof l === 'string'; }).join(' · ')));
    var loc = g.data.frames[i][2], link = (g.data.links || [])[loc] || ['', ''];
    var editor = link[1] === '-' ? '' : link[1] || editorLink(g.data.locations[loc] || '');
    [[link[2], 'method', 'pa-method'], [link[0], 'source', 'pa-src'],
      [editor, 'open in editor', 'pa-editor']].forEach(function (l) {
      if (!l[0]) return;
      var a = document.createElement('a');
      a.href = l[0]; a.textContent = l[1]; a.className = l[2];
      g.details.appendChild(document.createTextNode(' · '));
      g.details.appendChild(a);
    });
    if (!canSandwich(g)) return;
    var a = document.createElement('a');
    a.href = '#'; a.textContent = 'sandwich'; a.className = 'pa-sandwich-link';
    a.title = 'this function\'s callers and callees (key s)';
    a.addEventListener('click', function (e) { e.preventDefault(); requestSandwich(g, i); });
    g.details.appendChild(document.createTextNode(' · '));
    g.details.appendChild(a);
  }
  function zoom(g, i) {
    if (!(i >= 0 && i < g.groups.length)) i = 0;
    g.groups[g.zoomed].classList.remove('pa-zoomed');
    g.zoomed = i;
    pin(g, i);
    g.ancestors = {};
    for (var a = g.data.frames[i][0]; a >= 0; a = g.data.frames[a][0]) g.ancestors[a] = true;
    g.groups[i].classList.toggle('pa-zoomed', i !== 0);
    var z = g.geom[i];
    g.view = { a: z.x, b: z.x + Math.max(z.w, MIN_SPAN) };
    render(g);
  }

  // ---- the viewport: wheel zoom and pan, drag -------------------------------
  // The zoomed frame's descendants are drawn through the viewport (the
  // range g.view of the original x, stretched to the width), clipped at
  // its edges and hidden outside it; its ancestors span the width, every
  // other frame hides. Labels fit the width each frame shows. Only what
  // changed is written, once per animation frame.
  var MIN_SPAN = 1e-4;
  function render(g) {
    g.scheduled = false;
    var a = g.view.a, s = W / (g.view.b - a), i = g.zoomed, end = g.subtreeEnd[i];
    for (var j = 0; j < g.groups.length; j++) {
      var x, w;
      if (j >= i && j <= end) { x = (g.geom[j].x - a) * s; w = g.geom[j].w * s; }
      else if (g.ancestors[j]) { x = 0; w = W; }
      else { setHidden(g, j, true); continue; }
      var x1 = Math.max(x, 0), x2 = Math.min(x + w, W);
      if (!(x1 < x2 || (w === 0 && x >= 0 && x <= W))) { setHidden(g, j, true); continue; }
      setHidden(g, j, false);
      place(g, j, x1, x2 - x1);
    }
  }
  function setHidden(g, j, hidden) {
    if (g.hid[j] === hidden) return;
    g.hid[j] = hidden;
    g.groups[j].classList.toggle('pa-hidden', hidden);
  }
  function place(g, i, x, w) {
    var xs = x.toFixed(2), ws = w.toFixed(2), key = xs + ' ' + ws;
    if (g.placed[i] === key) return;
    g.placed[i] = key;
    var r = g.rects[i], t = g.texts[i];
    r.setAttribute('x', xs);
    r.setAttribute('width', ws);
    // Most frames of a large graph are too narrow for a label: their
    // text is left alone.
    var text = w >= 3 * CHAR + 2 * PAD ? label(g, i, w) : '';
    if (!t && text) {
      t = g.texts[i] = document.createElementNS(NS, 'text');
      t.setAttribute('y', (g.geom[i].y + 11).toFixed(2));
      g.groups[i].appendChild(t);
    }
    if (t && text) t.setAttribute('x', (x + PAD).toFixed(2));
    if (t && t.textContent !== text) t.textContent = text;
    // Frames wide enough to read can be reached with Tab.
    if (w >= 40 && !g.groups[i].hasAttribute('tabindex')) g.groups[i].setAttribute('tabindex', '0');
  }
  function schedule(g) {
    if (g.scheduled) return;
    g.scheduled = true;
    requestAnimationFrame(function () { if (g.scheduled) render(g); });
  }
  // The range the viewport may cover: the zoomed frame's.
  function range(g) {
    var z = g.geom[g.zoomed];
    return { lo: z.x, hi: z.x + Math.max(z.w, MIN_SPAN) };
  }
  // Shows [a, b] of the original x, kept within the zoomed frame, and
  // at least MIN_SPAN wide. Zooming out past the zoomed frame returns to
  // the whole graph (its ancestors' other children come back).
  function setView(g, a, b) {
    var r = range(g);
    if (g.zoomed > 0 && b - a > r.hi - r.lo + 1e-9) {
      g.groups[g.zoomed].classList.remove('pa-zoomed');
      g.zoomed = 0;
      g.ancestors = {};
      pin(g, 0);
      if (!g.local) replaceState();
      r = range(g);
    }
    var span = Math.max(MIN_SPAN, Math.min(b - a, r.hi - r.lo));
    a = Math.max(r.lo, Math.min(a, r.hi - span));
    g.view = { a: a, b: a + span };
    schedule(g);
  }
  function zoomedIn(g) {
    var r = range(g);
    return g.view.b - g.view.a < r.hi - r.lo - 1e-9;
  }
  // Zooms by `factor` (below 1: in) keeping the original x `at` where it is.
  function zoomBy(g, factor, at) {
    var v = g.view;
    setView(g, at - (at - v.a) * factor, at + (v.b - at) * factor);
  }
  function zoomAtCentre(g, factor) { zoomBy(g, factor, (g.view.a + g.view.b) / 2); }
  // Pans by `d` in the original x.
  function pan(g, d) { setView(g, g.view.a + d, g.view.b + d); }
  // Screen pixels to the original x.
  function perPixel(g) {
    var width = g.svg.getBoundingClientRect().width || W;
    return (g.view.b - g.view.a) / width;
  }
  // Ctrl/⌘+wheel (and a trackpad's pinch, sent as ctrl+wheel) zooms
  // around the pointer; shift+wheel or a horizontal wheel pans; a plain
  // wheel scrolls the page.
  function onWheel(g, e) {
    var unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    var dx = e.deltaX * unit, dy = e.deltaY * unit;
    if (e.ctrlKey || e.metaKey) {
      e.preventDefault();
      var box = g.svg.getBoundingClientRect();
      var at = g.view.a + (e.clientX - box.left) * (g.view.b - g.view.a) / (box.width || W);
      zoomBy(g, Math.exp(Math.max(-300, Math.min(300, dy)) * 0.002), at);
    } else if (e.shiftKey || Math.abs(dx) > Math.abs(dy)) {
      if (!zoomedIn(g)) return;
      e.preventDefault();
      pan(g, (Math.abs(dx) > Math.abs(dy) ? dx : dy) * perPixel(g));
    }
  }
  // Dragging pans; a drag that moved is not a click.
  function startDrag(g, e) {
    if (e.button !== 0) return;
    var start = e.clientX, from = g.view, scale = perPixel(g), moved = false;
    function move(ev) {
      if (!moved && Math.abs(ev.clientX - start) < 4) return;
      moved = true;
      g.svg.classList.add('pa-dragging');
      var d = (start - ev.clientX) * scale;
      setView(g, from.a + d, from.b + d);
    }
    function up() {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
      g.svg.classList.remove('pa-dragging');
      if (!moved) return;
      g.dragged = true;
      setTimeout(function () { g.dragged = false; }, 0);
    }
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
  }
  // Back to the whole graph: the fragment's zoom goes, and the viewport.
  function resetGraph(g) {
    if (g.local || !(g.zoomed > 0)) { zoom(g, 0); return; }
    requestZoom(null, 0);
  }

  // ---- keyboard ---------------------------------------------------------
  // On a graph or the page (not in a field): + and - zoom around the
  // centre, the arrows pan, 0 and Escape reset, / goes to the search box,
  // s opens the sandwich of the frame focused or under the mouse. Enter
  // and Space on a frame zoom to it (initGraph).
  function allGraphs() { return graphs.concat(sandwich ? sandwich.graphs : []); }
  function graphOf(el) {
    var svg = el && el.closest ? el.closest('svg.pa-flame') : null;
    return allGraphs().filter(function (g) { return g.svg === svg; })[0] || null;
  }
  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName))) return;
    if (e.key === '/' && search) { e.preventDefault(); search.focus(); search.select(); return; }
    var g = graphOf(t) || (hovered && hovered.g) || graphs[0];
    if (!g) return;
    var step = function (d) { return d * (g.view.b - g.view.a); };
    var act = {
      '+': function () { zoomAtCentre(g, 1 / 1.5); },
      '=': function () { zoomAtCentre(g, 1 / 1.5); },
      '-': function () { zoomAtCentre(g, 1.5); },
      '_': function () { zoomAtCentre(g, 1.5); },
      'ArrowLeft': function () { pan(g, step(-0.1)); },
      'ArrowRight': function () { pan(g, step(0.1)); },
      '0': function () { resetGraph(g); },
      'Escape': function () { resetGraph(g); },
      's': function () {
        var i = graphOf(t) === g ? frameOf(g, t) : -1;
        if (i < 0 && hovered && hovered.g === g) i = hovered.i;
        if (i > 0) requestSandwich(g, i);
      }
    }[e.key];
    if (!act) return;
    e.preventDefault();
    act();
  }
  // The keys, in a line near the graphs.
  function keysHelp() {
    var tools = document.querySelector('.pa-tools');
    if (!tools || tools.querySelector('.pa-keys')) return;
    var d = el('details', { 'class': 'pa-keys' });
    d.appendChild(el('summary', {}, 'Keys and mouse'));
    d.appendChild(el('span', {}, 'Ctrl/⌘ + wheel or pinch: zoom at the pointer · Shift + wheel or drag: pan · ' +
      'click or Enter: zoom to a frame · + / −: zoom in / out · ← →: pan · 0 or Esc: whole graph · ' +
      '/: search · s: sandwich (callers and callees) of the frame under the pointer or focused'));
    tools.appendChild(d);
  }

  // ---- sandwich: one function's callers and callees ------------------------
  // For the function of a frame (its name and location), from the frames
  // the graph holds: its outermost occurrences (none inside another),
  // their totals summed; the callers graph has the function at the top
  // and each path of callers beneath, widths the function's total through
  // it; the callees graph merges the occurrences' subtrees by path.
  var sandwich = null, sandwichAt = null;
  function canSandwich(g) {
    return !g.local ? !shown || shown.shape === 'top-down' : !!sandwich;
  }
  function frameKey(f) { return f[1] + ' ' + f[2]; }
  function outermost(frames, key) {
    var n = frames.length, hit = new Array(n), under = new Array(n), out = [];
    for (var j = 0; j < n; j++) {
      var f = frames[j], p = f[0];
      hit[j] = f[5] !== -2 && frameKey(f) === key;
      under[j] = p >= 0 && (hit[p] || under[p]);
      if (hit[j] && !under[j]) out.push(j);
    }
    return out;
  }
  function node(f) { return { name: f[1], loc: f[2], colour: f[5], self: 0, total: 0, kids: new Map() }; }
  function kid(parent, f) {
    var key = frameKey(f), k = parent.kids.get(key);
    if (!k) { k = node(f); parent.kids.set(key, k); }
    return k;
  }
  function children(frames) {
    var kids = frames.map(function () { return []; });
    frames.forEach(function (f, j) { if (f[0] >= 0) kids[f[0]].push(j); });
    return kids;
  }
  function calleesTree(frames, outer) {
    var root = node(frames[outer[0]]), kids = children(frames), stack = [];
    outer.forEach(function (j) {
      root.self += frames[j][3]; root.total += frames[j][4];
      stack.push([j, root]);
    });
    while (stack.length) {
      var top = stack.pop();
      kids[top[0]].forEach(function (c) {
        var k = kid(top[1], frames[c]);
        k.self += frames[c][3]; k.total += frames[c][4];
        stack.push([c, k]);
      });
    }
    return root;
  }
  function callersTree(frames, outer) {
    var root = node(frames[outer[0]]);
    outer.forEach(function (j) {
      var v = frames[j][4], at = root;
      root.total += v; root.self += v;
      // Up to the top function, not the graph's root ("all").
      for (var p = frames[j][0]; p >= 0 && !(frames[p][0] < 0 && frames[p][5] === -1); p = frames[p][0]) {
        at = kid(at, frames[p]);
        at.total += v; at.self += v;
      }
    });
    return root;
  }
  // A tree as frame rows in pre-order, heaviest child first.
  function treeFrames(root) {
    var rows = [], stack = [[root, -1]], depth = 0, depths = [];
    while (stack.length) {
      var top = stack.pop(), n = top[0], i = rows.length;
      rows.push([top[1], n.name, n.loc, n.self, n.total, n.colour < -1 ? -2 : n.colour]);
      depths.push(top[1] < 0 ? 0 : depths[top[1]] + 1);
      depth = Math.max(depth, depths[i]);
      Array.from(n.kids.values()).sort(function (x, y) { return x.total - y.total; })
        .forEach(function (k) { stack.push([k, i]); });
    }
    return { frames: rows, depth: depth };
  }
  function sandwichGraph(sec, g, id, title, note, tree, words) {
    var t = treeFrames(tree), d = g.data;
    var data = { frames: t.frames, names: d.names, full: d.full, locations: d.locations, links: d.links,
      unit: d.unit, total: d.total, words: words };
    sec.appendChild(el('h3', {}, title));
    sec.appendChild(el('p', { 'class': 'pa-muted' }, note));
    var wrap = sec.appendChild(el('div', { 'class': 'pa-flame-wrap' }));
    var svg = wrap.appendChild(drawFlame({ height: (t.depth + 1) * ROW, label: title, id: id }, data));
    sec.appendChild(el('div', { 'class': 'pa-details', 'aria-live': 'polite' }));
    return initGraph(svg, id, data, true);
  }
  function closeSandwich() {
    if (sandwich && sandwich.sec.parentNode) sandwich.sec.parentNode.removeChild(sandwich.sec);
    sandwich = null;
  }
  // Opens the sandwich of frame i of graph g (a frame of a sandwich
  // stands for its function's first frame in the graph it came from).
  function requestSandwich(g, i) {
    if (!canSandwich(g)) return;
    if (g.local && sandwich) {
      var key = frameKey(g.data.frames[i]);
      g = sandwich.of;
      i = outermost(g.data.frames, key)[0];
      if (i === undefined) return;
    }
    sandwichAt = { k: g.k, i: i };
    if (views || graphs.length) {
      var z = currentZoom(), h = stateHash(z, z ? z.zoomed : 0);
      if (h !== location.hash) { location.hash = h; return; }
    }
    showSandwich(g, i, true);
  }
  function showSandwich(g, i, scroll) {
    if (!g || !(i > 0 && i < g.data.frames.length) || !canSandwich(g)) { closeSandwich(); sandwichAt = null; return; }
    if (sandwich && sandwich.of === g && sandwich.i === i && sandwich.sec.isConnected) return;
    closeSandwich();
    var frames = g.data.frames, f = frames[i], d = g.data, outer = outermost(frames, frameKey(f));
    if (!outer.length) { sandwichAt = null; return; }
    sandwichAt = { k: g.k, i: i };
    var name = d.names[f[1]], loc = d.locations[f[2]] || '';
    var sec = el('section', { 'class': 'pa-sandwich', id: 'pa-sandwich', 'aria-label': 'sandwich of ' + name });
    var head = sec.appendChild(el('h2', {}, 'Sandwich of '));
    head.appendChild(el('code', {}, name));
    if (loc) head.appendChild(el('span', { 'class': 'pa-muted' }, ' ' + loc));
    var close = head.appendChild(el('button', { type: 'button', 'class': 'pa-sandwich-close' }, 'Close'));
    close.addEventListener('click', function () {
      sandwichAt = null;
      var z = currentZoom();
      if (views || graphs.length) location.hash = stateHash(z, z ? z.zoomed : 0);
      closeSandwich();
      tip.hidden = true;
    });
    var total = outer.reduce(function (sum, j) { return sum + frames[j][4]; }, 0);
    var diffNote = d.diff_unit !== undefined ? ' On the widths of ' + sideLabel(diffSide) + '.' : '';
    sec.appendChild(el('p', { 'class': 'pa-sandwich-total' }, 'total ' + withUnit(total, d.unit) + ' (' +
      percent(total, d.total) + ' of the total), in ' + outer.length + ' place' + (outer.length === 1 ? '' : 's') +
      ' not inside another call of it.' + diffNote));
    sec.appendChild(el('p', { 'class': 'pa-muted pa-note' }, 'From the frames drawn: frames too narrow to draw ' +
      'are in the merged boxes. Click a frame to zoom within its graph.'));
    sandwich = { of: g, i: i, sec: sec, graphs: [] };
    sandwich.graphs.push(sandwichGraph(sec, g, 'pa-sandwich-callers', 'Callers of ' + name,
      name + ' at the top, the functions that called it beneath, each as wide as ' + name + '\'s total through it.',
      callersTree(frames, outer), 'value'));
    sandwich.graphs.push(sandwichGraph(sec, g, 'pa-sandwich-callees', 'Callees of ' + name,
      name + ' at the top, what it called beneath, its calls merged by path.',
      calleesTree(frames, outer), 'total'));
    var after = g.svg.closest('section');
    if (after && after.parentNode) after.parentNode.insertBefore(sec, after.nextSibling);
    else g.svg.parentNode.appendChild(sec);
    if (scroll) sec.scrollIntoView({ block: 'start' });
  }
  window.perfatlasSandwichData = function (which) {
    return sandwich ? sandwich.graphs[which === 'callees' ? 1 : 0].data : null;
  };

  // Search: highlight matches in every graph; the share (from the first
  // graph) counts each sample once, so a match inside another adds nothing.
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
  function matches(data, test) {
    var n = data.frames.length, hit = new Array(n), covered = new Array(n), count = 0, sum = 0;
    for (var j = 0; j < n; j++) {
      var f = data.frames[j], p = f[0];
      hit[j] = !!(test && j > 0 && test(data.names[f[1]]));
      covered[j] = p >= 0 && (hit[p] || covered[p]);
      if (hit[j]) { count++; if (!covered[j]) sum += f[4]; }
    }
    return { hit: hit, count: count, sum: sum };
  }
  function searchGraph(g, test) {
    var r = matches(g.data, test);
    g.groups.forEach(function (el, j) { el.classList.toggle('pa-hl', r.hit[j]); });
    return r;
  }
  function found(r, data, of) {
    return r.count + ' matching frame' + (r.count === 1 ? '' : 's') + ': ' +
      withUnit(r.sum, data.unit) + ', ' + percent(r.sum, data.total) + ' of ' + of;
  }
  // A differential page's versions, as the width switch names them.
  function sideLabel(side) {
    var o = sideSelect && sideSelect.querySelector('option[value="' + side + '"]');
    return o ? o.getAttribute('data-version') : side === 'old' ? 'the older version' : 'the newer version';
  }
  function runSearch() {
    if (!search) return;
    var q = search.value.trim(), test = q ? matcher(q) : null, first = null;
    graphs.forEach(function (g) { var r = searchGraph(g, test); if (!first) first = r; });
    if (sandwich) sandwich.graphs.forEach(function (g) { searchGraph(g, test); });
    if (!result) return;
    if (!q || !first) { result.textContent = ''; return; }
    if (!test) { result.textContent = 'invalid regular expression'; return; }
    var data = graphs[0].data;
    if (data.diff_unit === undefined) { result.textContent = found(first, data, 'the total'); return; }
    // A differential graph: shares of the total of the version drawn, and
    // what matches in the other (deleted frames have no width in the newer).
    var other = diffSide === 'old' ? 'new' : 'old', od = viewGraph(shown, graphs[0].k, other);
    var text = found(first, data, sideLabel(diffSide) + '\'s total');
    if (od) {
      var r = matches(od, test);
      text += '; in ' + sideLabel(other) + ': ' + found(r, od, 'its total');
      if (r.count > first.count) text += ' (widths of ' + sideLabel(other) + ' draw them)';
    }
    result.textContent = text;
  }
  // Draws the differential graphs on the other version's widths.
  function setSide(side) {
    side = side === 'old' && sideSelect ? 'old' : 'new';
    if (sideSelect) sideSelect.value = side;
    if (side === diffSide) return false;
    diffSide = side;
    return true;
  }

  // Differential graphs: colour and tag by the inclusive or the self change.
  function applyMode(mode) {
    mode = mode === 'exclusive' ? 'exclusive' : 'inclusive';
    if (mode === diffMode) return;
    diffMode = mode;
    if (modeSelect) modeSelect.value = diffMode;
    graphs.forEach(function (g) {
      if (!g.data.diff) return;
      g.groups.forEach(function (el, i) {
        var d = g.data.diff[i];
        if (!d) return;
        el.classList.remove(d[2], d[3]);
        el.classList.add(diffMode === 'exclusive' ? d[3] : d[2]);
      });
      pin(g, g.zoomed);
    });
  }

  // ---- views: another metric or shape, drawn from #pa-views ---------------
  var SHAPES = ['top-down', 'bottom-up', 'flat'];
  function viewParts(v) {
    var parts = rep ? ['rep=' + rep] : [];
    if (!v || v === views.views[0]) return parts;
    if (v.metric > 0) parts.push('metric=' + views.metrics[v.metric]);
    if (v.shape !== 'top-down') parts.push('shape=' + v.shape);
    return parts;
  }
  // The view a fragment asks for; unknown metrics and shapes fall back to
  // the page's default.
  function findView(state) {
    var m = Math.max(0, views.metrics.indexOf(state.metric || ''));
    var s = SHAPES.indexOf(state.shape) >= 0 ? state.shape : 'top-down';
    var same = function (shape) {
      for (var i = 0; i < views.views.length; i++) {
        var v = views.views[i];
        if (v.metric === m && v.shape === shape) return v;
      }
      return null;
    };
    return same(s) || same('top-down') || views.views[0];
  }
  function el(name, attrs, text) {
    var e = SVG_TAGS[name] ? document.createElementNS(NS, name) : document.createElement(name);
    Object.keys(attrs || {}).forEach(function (a) { e.setAttribute(a, attrs[a]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // Differential tags as flame_diff_page.rs names their classes.
  var TAGS = { '[A]': 'A', '[D]': 'D', '[+]': 'P', '[−]': 'M', '[=]': 'S' };
  var SVG_TAGS = { svg: 1, g: 1, rect: 1, text: 1, title: 1, path: 1 };
  function coord(v) { return String(Math.round(v * 100) / 100); }
  // A flame graph from its frames, as crates/render/src/flame_svg.rs
  // writes it: children left to right under their parent, in data order.
  function drawFlame(gd, data) {
    var frames = data.frames, total = frames.length ? frames[0][4] : 0;
    if (gd.height === undefined) gd.height = graphHeight(frames);
    var svg = el('svg', {
      xmlns: NS, viewBox: '0 0 ' + W + ' ' + coord(gd.height), width: W, height: coord(gd.height),
      role: 'img', 'aria-label': gd.label, id: gd.id, 'class': 'pa-flame'
    });
    var x = new Array(frames.length), next = new Array(frames.length), depth = new Array(frames.length);
    var g0 = { data: data };
    for (var i = 0; i < frames.length; i++) {
      var f = frames[i], p = f[0];
      x[i] = p < 0 ? 0 : next[p];
      depth[i] = p < 0 ? 0 : depth[p] + 1;
      if (p >= 0) next[p] += total > 0 ? f[4] / total : 0;
      next[i] = x[i];
      var w = total > 0 ? f[4] / total * W : 0, d = data.diff ? data.diff[i] : null;
      var cls = d ? 'f ' + (diffMode === 'exclusive' ? d[3] : d[2]) + ' t' + TAGS[d[0]]
        : f[5] === -2 ? 'f m' : f[5] === -1 ? (data.diff ? 'f r d0' : 'f r') : 'f c' + f[5];
      var g = el('g', { 'class': cls, 'data-i': i });
      g.appendChild(el('rect', { x: coord(x[i] * W), y: depth[i] * ROW, width: coord(w), height: ROW - 1 }));
      var text = label(g0, i, w);
      if (text) g.appendChild(el('text', { x: coord(x[i] * W + PAD), y: depth[i] * ROW + ROW - 5 }, text));
      svg.appendChild(g);
    }
    return svg;
  }
  // The height of a graph whose page did not store it: a row per level.
  function graphHeight(frames) {
    var depth = [], most = 0;
    frames.forEach(function (f, i) {
      depth[i] = f[0] < 0 ? 0 : depth[f[0]] + 1;
      most = Math.max(most, depth[i]);
    });
    return (most + 1) * ROW;
  }
  function graphSection(gd, data) {
    var sec = el('section', { 'class': 'pa-graph', id: gd.id + '-section' });
    sec.appendChild(el('h2', {}, gd.title));
    var note = data.note || gd.note, mergedNote = 'merged_note' in data ? data.merged_note : gd.merged_note;
    if (note) {
      var p = el('p', { 'class': 'pa-muted' }, note + ' ');
      if (gd.svg_href) {
        p.appendChild(el('a', { href: gd.svg_href }, 'Standalone SVG'));
        p.appendChild(document.createTextNode('.'));
      } else {
        p.appendChild(el('button', { type: 'button', 'class': 'pa-save-svg', 'data-target': '#' + gd.id, 'data-name': gd.save_name }, 'Save as SVG'));
      }
      sec.appendChild(p);
    }
    if (gd.empty) { sec.appendChild(el('p', {}, 'Nothing recorded for this metric: nothing to draw.')); return { sec: sec }; }
    if (mergedNote) sec.appendChild(el('p', { 'class': 'pa-note pa-merged-note' }, mergedNote));
    var wrap = el('div', { 'class': 'pa-flame-wrap' }), svg = drawFlame(gd, data);
    wrap.appendChild(svg);
    sec.appendChild(wrap);
    sec.appendChild(el('div', { 'class': 'pa-details', 'aria-live': 'polite' }));
    return { sec: sec, svg: svg };
  }
  // A tree table from #pa-views, as templates/tree_table.html writes one.
  function cellText(v, c) {
    if (typeof v !== 'number') return v;
    return c.of === null ? withUnit(v, c.unit) : withUnit(v, c.unit) + ' (' + percent(v, c.of) + ')';
  }
  // A file as tree tables show it (display_names.rs shown_file, for the
  // rules that need no version list): no `file://`, and an installed
  // package's path from its package directory on; the line kept.
  function shownFile(loc) {
    var f = loc.replace(/^file:\/\//, ''), cut = -1;
    ['/site-packages/', '/dist-packages/', '/node_modules/'].forEach(function (d) {
      var i = f.lastIndexOf(d);
      if (i >= 0 && i + d.length > cut) cut = i + d.length;
    });
    return cut >= 0 ? f.slice(cut) : f;
  }
  function buildTable(t) {
    var sec = el('section', { 'class': 'pa-tree-section' });
    sec.appendChild(el('h2', {}, t.caption));
    var intro = el('p', { 'class': 'pa-muted' }, 'One row per calling context, indented under its caller. ' +
      (t.merged_rows > 0 ? grouped(t.merged_rows) + ' contexts below 0.2% or beyond ' + grouped(t.rows.length) +
        ' rows are merged into "merged" rows. ' : ''));
    intro.appendChild(el('span', { 'class': 'pa-js-only-inline' }, 'Click ▾ to fold a row, a column heading to sort siblings by it.'));
    sec.appendChild(intro);
    var table = el('table', { 'class': 'pa-table pa-tree', id: 'pa-table' });
    var head = el('tr');
    head.appendChild(el('th', { scope: 'col' }, 'name'));
    t.columns.forEach(function (c, k) {
      var th = head.appendChild(el('th', { scope: 'col', 'class': 'pa-num', 'data-col': k }, c.heading));
      if (k === t.sorted_by) th.setAttribute('aria-sort', 'descending');
    });
    var hist = t.histogram_labels;
    if (hist) head.appendChild(el('th', { scope: 'col', 'class': 'pa-num', 'data-col': t.columns.length }, 'each profile'));
    table.appendChild(el('thead')).appendChild(head);
    var body = table.appendChild(el('tbody'));
    t.rows.forEach(function (r, i) {
      var tr = el('tr', { 'data-i': i, 'data-p': r[0] });
      if (r[4]) tr.className = 'pa-merged';
      var name = el('td', { style: '--d:' + r[1] }, views.names[r[2]]);
      var loc = views.locations[r[3]], link = views.links[r[3]] || [''], href = link[0];
      if (loc) {
        name.appendChild(document.createTextNode(' '));
        var code = el('code', {}, shownFile(loc));
        if (code.textContent !== loc) code.title = loc;
        if (href) { var a = el('a', { href: href, 'class': 'pa-src' }); a.appendChild(code); name.appendChild(a); }
        else name.appendChild(code);
      }
      // The function's method section, where the page knows it (a
      // location's third link).
      if (link[2]) {
        name.appendChild(document.createTextNode(' '));
        name.appendChild(el('a', { href: link[2], 'class': 'pa-method', title: 'its section on the matrix\'s component page: by version, its callers, callees and source changes' }, 'method'));
      }
      tr.appendChild(name);
      t.columns.forEach(function (c, k) {
        var v = r[5 + k];
        tr.appendChild(el('td', { 'data-v': typeof v === 'number' ? v : 0 }, cellText(v, c)));
      });
      var h = hist ? r[5 + t.columns.length] : null;
      if (h) tr.appendChild(el('td')).appendChild(histogramSvg(h, hist));
      body.appendChild(tr);
    });
    sec.appendChild(el('div', { 'class': 'pa-tree-scroll' })).appendChild(table);
    (t.notes || []).forEach(function (n) { sec.appendChild(el('p', { 'class': 'pa-muted pa-derived-note' }, n)); });
    setupTreeTable(table);
    return sec;
  }
  // A row's bars, one per profile: for a table the script writes, and for
  // the values a page writes as text (tree_table.rs's histogram_text).
  function histogramSvg(values, labels) {
    var max = Math.max.apply(null, values.concat([0])), width = Math.max(1, values.length * 7);
    var svg = el('svg', { 'class': 'pa-hist', viewBox: '0 0 ' + coord(width) + ' 16', width: coord(width), height: 16,
      role: 'img', 'aria-label': 'value in each profile' });
    var d = '', title = [];
    values.forEach(function (v, k) {
      var h = Math.max(max > 0 ? v / max * 16 : 0, 0.5);
      d += 'M' + coord(k * 7) + ' ' + coord(16 - h) + 'h6v' + coord(h) + 'h-6z';
      title.push((labels[k] || '') + ': ' + grouped(v));
    });
    svg.appendChild(el('title', {}, title.join(' · ')));
    svg.appendChild(el('path', { d: d }));
    return svg;
  }
  var serverTable = null;
  // A table entry that names another ("like") has its rows, sorted by
  // another column, the merged rows' value moved to another column and
  // divided (views.rs's TableEntry).
  function tableData(k) {
    var t = views.tables[k];
    if (t && t.derive && !t.rows.length) t.rows = derivedRows(t);
    if (!t || t.like === undefined) return t;
    var base = views.tables[t.like], copy = {}, m = t.merged;
    if (!base) return null;
    for (var key in base) copy[key] = base[key];
    copy.sorted_by = t.sorted_by;
    if (m) {
      copy.rows = base.rows.map(function (r) {
        if (!r[4] || typeof r[5 + m[0]] !== 'number') return r;
        var moved = r.slice();
        moved[5 + m[1]] = r[5 + m[0]] / m[2];
        if (m[1] !== m[0]) moved[5 + m[0]] = '';
        return moved;
      });
    }
    return copy;
  }
  function showTable(k) {
    var box = document.getElementById('pa-tables');
    if (!box) return;
    if (!serverTable) serverTable = box.firstElementChild;
    var built = views.built || (views.built = {});
    var sec = k < 0 ? serverTable : built[k] ||
      (tableData(k) ? (built[k] = buildTable(tableData(k))) : null);
    box.textContent = '';
    if (sec) box.appendChild(sec);
  }
  function markCurrent(nav, current) {
    if (!nav) return;
    Array.prototype.forEach.call(nav.querySelectorAll('a, strong'), function (e) {
      var isCurrent = e.textContent === current;
      if (isCurrent === (e.tagName === 'STRONG')) return;
      var n = document.createElement(isCurrent ? 'strong' : 'a');
      n.textContent = e.textContent;
      if (isCurrent) n.setAttribute('aria-current', 'page');
      else n.href = e.getAttribute('data-href') || '#';
      n.setAttribute('data-href', e.getAttribute('data-href') || e.getAttribute('href') || '');
      if (e.hasAttribute('data-slug')) n.setAttribute('data-slug', e.getAttribute('data-slug'));
      e.parentNode.replaceChild(n, e);
    });
  }
  // Switch navigation, links to the same view elsewhere, per-metric parts.
  function updateLinks(v) {
    var slug = views.metrics[v.metric] || '';
    Array.prototype.forEach.call(document.querySelectorAll('nav[aria-label="shape"] a, nav[aria-label="shape"] strong'), function (e) {
      e.setAttribute('data-href', '#' + viewParts({ metric: v.metric, shape: e.textContent }).join('&'));
      if (e.tagName === 'A') e.href = e.getAttribute('data-href');
    });
    Array.prototype.forEach.call(document.querySelectorAll('nav[aria-label="metric"] a, nav[aria-label="metric"] strong'), function (e) {
      var m = views.metrics.indexOf(e.getAttribute('data-slug') || '');
      e.setAttribute('data-href', '#' + viewParts({ metric: m < 0 ? 0 : m, shape: v.shape }).join('&'));
      if (e.tagName === 'A') e.href = e.getAttribute('data-href');
    });
    markCurrent(document.querySelector('nav[aria-label="shape"]'), v.shape);
    markCurrent(document.querySelector('nav[aria-label="metric"]'), views.metricNames[v.metric]);
    Array.prototype.forEach.call(document.querySelectorAll('.pa-keep-view a'), function (a) {
      if (a.classList.contains('pa-aggregate-link') || a.hasAttribute('data-plain')) return;
      if (!a.hasAttribute('data-base')) a.setAttribute('data-base', a.getAttribute('href'));
      var base = a.getAttribute('data-base'), parts = viewParts(v);
      if (!parts.length) { a.setAttribute('href', base); return; }
      if (v.metric === 0) parts.unshift('metric=' + slug);
      a.setAttribute('href', base.split('#')[0] + '#' + parts.join('&'));
    });
    var index = views.views.indexOf(v);
    Array.prototype.forEach.call(document.querySelectorAll('[data-metric], [data-view]'), function (e) {
      var shape = e.getAttribute('data-shape'), view = e.getAttribute('data-view');
      e.hidden = view !== null ? +view !== index
        : +e.getAttribute('data-metric') !== v.metric || (shape !== null && shape !== v.shape);
      if (e.hasAttribute('data-id')) {
        // One element has the id: the one shown (a repetition's total on
        // an aggregate page, not the hidden merged one).
        if (e.hidden || e.closest('[hidden]')) e.removeAttribute('id'); else e.id = e.getAttribute('data-id');
      }
    });
  }
  // Whether the view was drawn anew.
  function showView(state) {
    var v = findView(state);
    if (v === shown) return false;
    shown = v;
    document.title = v.title;
    var heading = document.getElementById('pa-view-heading');
    if (heading) heading.textContent = v.heading;
    drawGraphs(v);
    showTable(v.table);
    updateLinks(v);
    return true;
  }
  function drawGraphs(v) {
    var box = document.getElementById('pa-graphs');
    var open = sandwich ? { k: String(sandwich.of.k), key: frameKey(sandwich.of.data.frames[sandwich.i]) } : null;
    box.textContent = '';
    graphs = v.graphs.map(function (gd, k) {
      var data = viewGraph(v, k), made = graphSection(gd, data);
      box.appendChild(made.sec);
      return made.svg ? setupGraph(made.svg, k) : null;
    }).filter(function (g) { return g; });
    // The sandwich open is drawn again for its function from the graph
    // drawn anew (the other version's widths have other frames).
    sandwich = null;
    var of = open && graphK(open.k);
    if (of) showSandwich(of, outermost(of.data.frames, open.key)[0], false);
    else if (open) sandwichAt = null;
  }
  function graphK(k) {
    return graphs.filter(function (g) { return String(g.k) === k; })[0] || null;
  }
  if (views) {
    views.metricNames = Array.prototype.map.call(
      document.querySelectorAll('nav[aria-label="metric"] a, nav[aria-label="metric"] strong'),
      function (e, k) { e.setAttribute('data-slug', views.metrics[k]); return e.textContent; });
  }

  // ---- state in the URL fragment -----------------------------------------
  function readState() {
    var state = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
      var i = kv.indexOf('=');
      if (i > 0) {
        try { state[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); } catch (e) { /* ignore */ }
      }
    });
    return state;
  }
  function stateHash(zoomG, zoomI) {
    var parts = viewParts(shown);
    var q = search ? search.value.trim() : '';
    if (q) parts.push('search=' + encodeURIComponent(q));
    if (zoomG && zoomI > 0) parts.push('zoom=' + zoomG.k + '.' + zoomI);
    if (sandwichAt) parts.push('sandwich=' + sandwichAt.k + '.' + sandwichAt.i);
    if (diffMode !== 'inclusive') parts.push('mode=' + diffMode);
    if (diffSide !== 'new') parts.push('side=' + diffSide);
    return parts.length ? '#' + parts.join('&') : '#';
  }
  function currentZoom() {
    for (var k = 0; k < graphs.length; k++) if (graphs[k].zoomed > 0) return graphs[k];
    return null;
  }
  function requestZoom(g, i) {
    if (g && g.local) { zoom(g, i); return; }
    location.hash = stateHash(g, i);
  }
  // The hash this script last wrote itself: its hashchange is not applied
  // again (it would undo typing that happened since).
  var written = null;
  function replaceState() {
    var z = currentZoom();
    var h = stateHash(z, z ? z.zoomed : 0);
    if (h !== location.hash && !(h === '#' && !location.hash)) { written = h; location.replace(h); }
  }
  function applyState() {
    if (written !== null && location.hash === written) { written = null; return; }
    written = null;
    var state = readState();
    useRep(state.rep || '', SHAPES.indexOf(state.shape) > 0);
    var sideChanged = setSide(views ? state.side : '');
    if (views && !showView(state) && sideChanged) drawGraphs(shown);
    if (search && (state.search || '') !== search.value.trim()) search.value = state.search || '';
    applyMode(state.mode);
    var z = (state.zoom || '').split('.');
    graphs.forEach(function (g) {
      var target = String(g.k) === z[0] ? +z[1] : 0;
      if (!(target >= 0 && target < g.groups.length)) target = 0;
      if (target !== g.zoomed) zoom(g, target);
    });
    var sw = (state.sandwich || '').split('.');
    showSandwich(graphK(sw[0]), sw.length === 2 ? +sw[1] : -1, !!state.sandwich && !sandwich);
    runSearch();
  }
  // A page with trees (shape_source.rs) wrote its default view's table as
  // HTML for readers without JavaScript, without sort keys: the script
  // writes it again from the trees, as it writes every other view's.
  if (views && shown && shown.table >= 0) showTable(shown.table);
  if (graphs.length || views) {
    window.addEventListener('hashchange', applyState);
    document.addEventListener('keydown', onKey);
    keysHelp();
    applyState();
    if (search) {
      var timer = null;
      var update = function () { runSearch(); replaceState(); };
      search.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(update, 120); });
      search.addEventListener('keydown', function (e) { if (e.key === 'Enter') { clearTimeout(timer); update(); } });
    }
    var reset = document.getElementById('pa-reset');
    if (reset) {
      reset.addEventListener('click', function () {
        // A viewport moved by the wheel is not in the fragment.
        graphs.forEach(function (g) { if (!(g.zoomed > 0)) zoom(g, 0); });
        location.hash = stateHash(null, 0);
      });
    }
    if (modeSelect) modeSelect.addEventListener('change', function () { applyMode(modeSelect.value); replaceState(); });
    if (sideSelect) {
      // Without the page's view data there is nothing to draw the other widths from.
      sideSelect.disabled = !views;
      sideSelect.addEventListener('change', function () {
        if (!views || !setSide(sideSelect.value)) return;
        drawGraphs(shown);
        runSearch();
        replaceState();
      });
    }
  }

  // ---- tree tables: fold rows, sort siblings by a column ---------------------
  // Rows written as HTML come in tree order with their depth (--d) only:
  // each gets its index (data-i) and its parent's (data-p), the last row
  // above it one level up.
  function numberRows(rows) {
    var above = [];
    rows.forEach(function (r, i) {
      if (r.hasAttribute('data-i')) return;
      var d = parseInt(r.cells[0].style.getPropertyValue('--d'), 10) || 0;
      above[d] = i;
      r.setAttribute('data-i', i);
      r.setAttribute('data-p', d > 0 && above[d - 1] !== undefined ? above[d - 1] : -1);
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.pa-tree'), setupTreeTable);
  // Cells of "each profile" written as text ("12 · 9 · 1,204") become bars
  // with a title naming every value, as in a table the script writes.
  function drawHistograms(table) {
    var labels = table.getAttribute('data-hist-labels');
    if (!labels) return;
    labels = JSON.parse(labels);
    Array.prototype.forEach.call(table.querySelectorAll('td.pa-hist-cell'), function (td) {
      var values = td.textContent.split(' · ').map(function (t) { return parseFloat(t.replace(/,/g, '')) || 0; });
      td.textContent = '';
      td.appendChild(histogramSvg(values, labels));
    });
  }
  function setupTreeTable(table) {
    // Once: a table the script wrote may already be set up when this runs.
    if (table.paReady) return;
    table.paReady = true;
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    var byId = {}, kids = {}, folded = {};
    numberRows(rows);
    drawHistograms(table);
    rows.forEach(function (r) {
      var id = r.getAttribute('data-i'), p = r.getAttribute('data-p');
      byId[id] = r; (kids[p] = kids[p] || []).push(id);
    });
    // The fold buttons: only with the script, which makes them work.
    rows.forEach(function (r) {
      if (!kids[r.getAttribute('data-i')]) return;
      var b = document.createElement('button');
      b.type = 'button'; b.className = 'pa-tt';
      r.cells[0].insertBefore(b, r.cells[0].firstChild);
    });
    function visit(id, visible, out) {
      var r = byId[id];
      r.hidden = !visible;
      out.push(r);
      (kids[id] || []).forEach(function (c) { visit(c, visible && !folded[id], out); });
    }
    function redraw() {
      var out = [];
      (kids['-1'] || []).forEach(function (id) { visit(id, true, out); });
      out.forEach(function (r) { body.appendChild(r); });
      rows.forEach(function (r) {
        var b = r.querySelector('.pa-tt');
        if (b) { var f = !!folded[r.getAttribute('data-i')]; b.textContent = f ? '▸' : '▾'; b.setAttribute('aria-expanded', String(!f)); b.setAttribute('aria-label', f ? 'unfold' : 'fold'); }
      });
    }
    // Open on the heaviest path: the top rows' children are shown, and
    // from the heaviest top row down each row is open while one child
    // holds at least half its value (by the column sorted on), so the
    // row where the cost spreads is in view without a click.
    rows.forEach(function (r) {
      if (r.getAttribute('data-p') !== '-1' && kids[r.getAttribute('data-i')]) folded[r.getAttribute('data-i')] = true;
    });
    var sorted = table.tHead.querySelector('th[aria-sort]'), col = sorted ? +sorted.getAttribute('data-col') : 0;
    var value = function (id) { var c = byId[id].cells[col + 1]; return c ? +c.getAttribute('data-v') || 0 : 0; };
    var heaviest = function (ids) {
      return (ids || []).filter(function (id) { return !byId[id].classList.contains('pa-merged'); })
        .reduce(function (best, id) { return best === null || value(id) > value(best) ? id : best; }, null);
    };
    for (var at = heaviest(kids['-1']); at !== null && kids[at];) {
      var next = heaviest(kids[at]);
      if (next === null || !(value(next) >= value(at) / 2) || value(at) <= 0) break;
      delete folded[at];
      at = next;
    }
    body.addEventListener('click', function (e) {
      var b = e.target.closest('.pa-tt');
      if (!b) return;
      var id = b.closest('tr').getAttribute('data-i');
      folded[id] = !folded[id];
      redraw();
    });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      var col = th.getAttribute('data-col');
      if (col === null) return;
      th.classList.add('pa-sortable');
      th.tabIndex = 0;
      var sortBy = function () {
        var desc = th.getAttribute('aria-sort') !== 'descending';
        Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', desc ? 'descending' : 'ascending');
        var key = function (id) { var c = byId[id].cells[+col + 1]; return c ? +c.getAttribute('data-v') : 0; };
        var merged = function (id) { return byId[id].classList.contains('pa-merged') ? 1 : 0; };
        Object.keys(kids).forEach(function (p) {
          // Merged rows stay last whichever way siblings are sorted.
          kids[p].sort(function (a, b) { return merged(a) - merged(b) || (desc ? key(b) - key(a) : key(a) - key(b)); });
        });
        redraw();
      };
      th.addEventListener('click', sortBy);
      th.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(); } });
    });
    redraw();
  }
})();
