/* perfatlas allocation-site pages (Fernandez Blanco et al., section III):
 * popups on the contexts, highlighting the paths that create a class
 * (hover a class; click to keep it), excluding classes (untick or
 * right-click; or every class below N instances) and opening collapsed
 * chains and groups. What is visible and where it goes is the same
 * algorithm as the server's (src/analysis/allocation/view.rs and
 * layout.rs); a test runs both on the same trees and compares. Without
 * this script the page shows the tree as the server drew it, with
 * tooltips. */
(function () {
  'use strict';
  var L = {
    BOX_MAX: 40, BOX_MIN: 2, PAD: 3, GAP: 2, PER_ROW: 4, NODE_MIN: 12, CHAR_W: 6.6,
    LABEL_GAP: 4, LABEL_CHARS: 32, COLUMN_GAP: 28, ROW_GAP: 6, MARGIN: 8, BINS: 8, DECADES: 3, CHAIN_MIN: 3
  };

  /* The page data as a tree with children lists. */
  function prepare(data) {
    var nodes = data.nodes.map(function (n) {
      return {
        parent: n[0], label: n[1], calls: n[2],
        direct: n[3].map(function (d) { return { cls: d[0], count: d[1], bytes: d[2], lines: d[3] }; }),
        file: n[4], href: n[5], children: []
      };
    });
    nodes.forEach(function (n, i) { if (n.parent >= 0) nodes[n.parent].children.push(i); });
    return { nodes: nodes, classes: data.classes, byBytes: data.by_bytes, rankByBytes: data.rank_by_bytes,
      bytesKnown: data.bytes_known, noun: data.count_noun, classNoun: data.class_noun || 'class', share: data.share };
  }

  function size(tree, d) { return tree.byBytes ? d.bytes : d.count; }

  function classTotals(tree) {
    var t = tree.classes.map(function () { return [0, 0]; });
    tree.nodes.forEach(function (n) {
      n.direct.forEach(function (d) { t[d.cls][0] += d.count; t[d.cls][1] += d.bytes; });
    });
    return t;
  }

  function visibleClasses(tree, choice) {
    return classTotals(tree).map(function (t, c) {
      var s = tree.byBytes ? t[1] : t[0];
      return !choice.excluded[c] && s >= choice.below;
    });
  }

  /* view.rs `items`: the drawn items in pre-order. */
  function items(tree, choice) {
    var shown = visibleClasses(tree, choice);
    var direct = tree.nodes.map(function (n) {
      return n.direct.filter(function (d) { return shown[d.cls] && size(tree, d) > 0; })
        .map(function (d) { return [d.cls, size(tree, d)]; });
    });
    var inclusive = direct.map(function (d) { return d.reduce(function (s, x) { return s + x[1]; }, 0); });
    /* Memory colours the contexts: bytes when the input has sizes. */
    var memory = !tree.bytesKnown ? inclusive.slice() : tree.nodes.map(function (n) {
      return n.direct.reduce(function (s, d) { return shown[d.cls] && size(tree, d) > 0 ? s + d.bytes : s; }, 0);
    });
    for (var i = tree.nodes.length - 1; i >= 1; i--) {
      var p = tree.nodes[i].parent;
      if (p >= 0) { inclusive[p] += inclusive[i]; memory[p] += memory[i]; }
    }
    function keptChildren(n) { return tree.nodes[n].children.filter(function (c) { return inclusive[c] > 0; }); }
    function passes(n) { return n !== 0 && direct[n].length === 0 && keptChildren(n).length === 1; }
    var threshold = inclusive[0] * choice.share;
    var out = [];
    var stack = [{ node: 0, group: null, parent: null, depth: 0 }];
    while (stack.length) {
      var task = stack.pop();
      if (task.group) {
        out.push({ kind: 'group', nodes: task.group, parent: task.parent, depth: task.depth, direct: [],
          inclusive: task.group.reduce(function (s, m) { return s + inclusive[m]; }, 0),
          memory: task.group.reduce(function (s, m) { return s + memory[m]; }, 0) });
        continue;
      }
      var node = task.node;
      var parentNode = tree.nodes[node].parent;
      var run = [];
      if (!(parentNode >= 0 && passes(parentNode))) {
        for (var at = node; passes(at); at = keptChildren(at)[0]) run.push(at);
      }
      var collapsed = run.length >= L.CHAIN_MIN && !choice.expanded['c' + run[0]];
      var last = collapsed ? run[run.length - 1] : node;
      var id = out.length;
      out.push(collapsed
        ? { kind: 'chain', nodes: run, parent: task.parent, depth: task.depth, direct: [], inclusive: inclusive[node], memory: memory[node] }
        : { kind: 'node', node: node, parent: task.parent, depth: task.depth, direct: direct[node], inclusive: inclusive[node], memory: memory[node] });
      var children = keptChildren(last);
      var small = children.filter(function (c) { return inclusive[c] < threshold; });
      var grouped = small.length >= 2 && !choice.expanded['g' + small[0]];
      if (grouped) stack.push({ group: small, parent: id, depth: task.depth + 1 });
      for (var k = children.length - 1; k >= 0; k--) {
        var c = children[k];
        if (!(grouped && inclusive[c] < threshold)) stack.push({ node: c, group: null, parent: id, depth: task.depth + 1 });
      }
    }
    return out;
  }

  function itemKey(item) {
    if (item.kind === 'chain') return 'c' + item.nodes[0];
    if (item.kind === 'group') return 'g' + item.nodes[0];
    return null;
  }

  function chars(s) { return Array.from(s).length; }

  function label(tree, item) {
    if (item.kind === 'chain') return '\u22ef ' + item.nodes.length + ' calls deep';
    if (item.kind === 'group') return '+' + item.nodes.length + ' contexts';
    var text = tree.nodes[item.node].label, cs = Array.from(text);
    if (cs.length <= L.LABEL_CHARS) return text;
    return '\u2026' + cs.slice(cs.length - (L.LABEL_CHARS - 1)).join('');
  }

  function scaleOf(tree) {
    var largest = 0, calls = 0;
    tree.nodes.forEach(function (n) {
      n.direct.forEach(function (d) { largest = Math.max(largest, size(tree, d)); });
      if (n.calls !== null) calls = Math.max(calls, n.calls);
    });
    return { largestBox: largest, mostCalls: calls };
  }

  function boxSide(s, largest) {
    if (largest <= 0) return L.BOX_MIN;
    return Math.max(L.BOX_MAX * Math.sqrt(s / largest), L.BOX_MIN);
  }

  function boxes(item, scale) {
    var out = [], widest = 0, y = L.PAD;
    for (var r = 0; r < item.direct.length; r += L.PER_ROW) {
      var x = L.PAD, tallest = 0;
      item.direct.slice(r, r + L.PER_ROW).forEach(function (d) {
        var side = boxSide(d[1], scale.largestBox);
        out.push({ cls: d[0], x: x, y: y, side: side });
        x += side + L.GAP;
        tallest = Math.max(tallest, side);
      });
      widest = Math.max(widest, x - L.GAP + L.PAD);
      y += tallest + L.GAP;
    }
    var h = out.length ? y - L.GAP + L.PAD : 0;
    if (item.kind === 'node') return { boxes: out, w: Math.max(widest, L.NODE_MIN), h: Math.max(h, L.NODE_MIN) };
    return { boxes: out, w: L.NODE_MIN * 1.5, h: L.NODE_MIN };
  }

  /* layout.rs `layout`. */
  function layout(tree, list) {
    var scale = scaleOf(tree);
    var placed = list.map(function (item) {
      var b = boxes(item, scale);
      return { x: 0, y: 0, w: b.w, h: b.h, label: label(tree, item), bin: 0, boxes: b.boxes };
    });
    var depth = 0;
    list.forEach(function (it) { depth = Math.max(depth, it.depth); });
    var column = [], xs = [];
    for (var d = 0; d <= depth; d++) { column.push(0); xs.push(L.MARGIN); }
    list.forEach(function (it, i) {
      var p = placed[i];
      column[it.depth] = Math.max(column[it.depth], p.w + L.LABEL_GAP + L.CHAR_W * chars(p.label));
    });
    for (d = 1; d <= depth; d++) xs[d] = xs[d - 1] + column[d - 1] + L.COLUMN_GAP;
    list.forEach(function (it, i) { placed[i].x = xs[it.depth]; });
    var height = placeRows(list, placed);
    var largest = 0;
    list.forEach(function (it) { if (it.depth > 0) largest = Math.max(largest, it.memory); });
    list.forEach(function (it, i) {
      placed[i].bin = (it.depth === 0 || largest <= 0) ? L.BINS - 1
        : Math.min(Math.floor(Math.max(1 + Math.log10(it.memory / largest) / L.DECADES, 0) * L.BINS), L.BINS - 1);
    });
    var edges = [];
    list.forEach(function (it, i) {
      if (it.parent === null) return;
      var calls = it.kind === 'node' ? tree.nodes[it.node].calls
        : it.kind === 'chain' ? tree.nodes[it.nodes[0]].calls : null;
      var width = (calls !== null && scale.mostCalls > 0) ? 1 + 4 * calls / scale.mostCalls : 1;
      edges.push({ from: it.parent, to: i, width: width });
    });
    var w = 0;
    placed.forEach(function (p) { w = Math.max(w, p.x + p.w + L.LABEL_GAP + L.CHAR_W * chars(p.label)); });
    return { items: placed, edges: edges, width: w + L.MARGIN, height: height + L.MARGIN };
  }

  function placeRows(list, placed) {
    var start = [], first = [], last = [], open = [], cursor = L.MARGIN;
    list.forEach(function () { start.push(0); first.push(null); last.push(null); });
    function finish(i) {
      var h = placed[i].h, y = start[i];
      if (first[i] !== null) {
        var f = placed[first[i]], l = placed[last[i]];
        y = Math.max((f.y + l.y + l.h) / 2 - h / 2, start[i]);
      }
      placed[i].y = y;
      cursor = Math.max(cursor, y + h + L.ROW_GAP);
    }
    list.forEach(function (it, i) {
      while (open.length && list[open[open.length - 1]].depth >= it.depth) finish(open.pop());
      start[i] = cursor;
      if (it.parent !== null) {
        if (first[it.parent] === null) first[it.parent] = i;
        last[it.parent] = i;
      }
      open.push(i);
    });
    while (open.length) finish(open.pop());
    return cursor - L.ROW_GAP;
  }

  var api = { prepare: prepare, items: items, layout: layout, L: L };
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  if (typeof document === 'undefined') return;

  /* ---- the page ---- */
  var holder = document.getElementById('al-data');
  var svg = document.querySelector('#al-tree-wrap svg.al-tree');
  if (!holder || !svg) return;
  var NS = 'http://www.w3.org/2000/svg';
  var tree = prepare(JSON.parse(holder.textContent));
  var initial = function () { return { excluded: {}, below: 0, expanded: {}, share: tree.share }; };
  var choice = initial();
  var current = { list: [], geometry: null };
  var fixedClass = null;
  var popup = document.getElementById('al-popup');
  var status = document.getElementById('al-status');

  // Numbers as every page writes them: perfatlas.js's formatter, loaded
  // before this script.
  var numbers = window.perfatlasNumbers;
  function fmt(v) { return numbers.grouped(v); }
  function fmtBytes(v) { return tree.bytesKnown ? numbers.withUnit(v, 'bytes') : '\u2014'; }
  function amount(v) { return tree.byBytes ? fmtBytes(v) : fmt(v); }
  function el(tag, attrs, parent) {
    var e = document.createElementNS(NS, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (parent) parent.appendChild(e);
    return e;
  }
  function r2(v) { return String(Math.round(v * 100) / 100); }

  function draw() {
    current.list = items(tree, choice);
    var g = layout(tree, current.list);
    current.geometry = g;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute('width', r2(g.width));
    svg.setAttribute('height', r2(g.height));
    svg.setAttribute('viewBox', '0 0 ' + r2(g.width) + ' ' + r2(g.height));
    var edges = el('g', { 'class': 'al-edges' }, svg);
    g.edges.forEach(function (e) {
      var a = g.items[e.from], b = g.items[e.to];
      var x1 = a.x + a.w + L.LABEL_GAP + L.CHAR_W * chars(a.label) + 2, y1 = a.y + a.h / 2, x2 = b.x, y2 = b.y + b.h / 2, mid = (x1 + x2) / 2;
      el('path', { 'class': 'al-edge', 'data-to': e.to, 'stroke-width': r2(e.width),
        d: 'M' + r2(x1) + ' ' + r2(y1) + 'C' + r2(mid) + ' ' + r2(y1) + ' ' + r2(mid) + ' ' + r2(y2) + ' ' + r2(x2) + ' ' + r2(y2) }, edges);
    });
    var layer = el('g', { 'class': 'al-items' }, svg);
    current.list.forEach(function (it, i) {
      var p = g.items[i], parent = layer;
      var href = it.kind === 'node' ? tree.nodes[it.node].href : null;
      if (href) { parent = el('a', { href: href }, layer); }
      var item = el('g', { 'class': 'al-item ' + (it.kind === 'node' ? '' : 'al-more ') + 'al-h' + p.bin,
        'data-item': i, transform: 'translate(' + r2(p.x) + ',' + r2(p.y) + ')', tabindex: 0 }, parent);
      el('rect', { 'class': 'al-ctx', width: r2(p.w), height: r2(p.h), rx: 2 }, item);
      p.boxes.forEach(function (b) {
        el('rect', { 'class': 'al-cls', 'data-class': b.cls, x: r2(b.x), y: r2(b.y), width: r2(b.side),
          height: r2(b.side), fill: tree.classes[b.cls][1] }, item);
      });
      var t = el('text', { x: r2(p.w + L.LABEL_GAP), y: r2(p.h / 2 + 4) }, item);
      t.textContent = p.label;
    });
    var contexts = current.list.filter(function (it) { return it.kind === 'node'; }).length - 1;
    var hidden = Object.keys(choice.excluded).length + (choice.below > 0 ? 1 : 0);
    status.textContent = contexts + ' of ' + (tree.nodes.length - 1) + ' contexts drawn' + (hidden ? ', some classes excluded' : '');
    highlight(fixedClass);
  }

  /* Nodes that create class `c` directly, and their ancestors. */
  function marked(c) {
    var on = tree.nodes.map(function () { return false; });
    tree.nodes.forEach(function (n, i) {
      if (!n.direct.some(function (d) { return d.cls === c && size(tree, d) > 0; })) return;
      for (var at = i; at >= 0 && !on[at]; at = tree.nodes[at].parent) on[at] = true;
    });
    return on;
  }

  function highlight(c) {
    var on = c === null ? null : marked(c);
    var lit = current.list.map(function (it) {
      if (!on) return true;
      if (it.kind === 'node') return on[it.node];
      return it.nodes.some(function (n) { return on[n]; });
    });
    svg.querySelectorAll('.al-item').forEach(function (g) {
      g.classList.toggle('al-shaded', !lit[+g.getAttribute('data-item')]);
    });
    svg.querySelectorAll('.al-edge').forEach(function (e) {
      e.classList.toggle('al-shaded', !lit[+e.getAttribute('data-to')]);
    });
    document.querySelectorAll('.al-class').forEach(function (row) {
      row.classList.toggle('al-hover', c !== null && +row.getAttribute('data-class') === c);
      row.classList.toggle('al-fixed', fixedClass !== null && +row.getAttribute('data-class') === fixedClass);
    });
  }

  /* Scrolls the tree's box to the context that creates most of class
     `c`, when it is not in view already: a tree wider than its box left
     the highlighted context off-screen. */
  function reveal(c) {
    var wrap = document.getElementById('al-tree-wrap'), best = null, most = 0;
    if (!wrap) return;
    current.list.forEach(function (it, i) {
      if (it.kind !== 'node') return;
      tree.nodes[it.node].direct.forEach(function (d) {
        if (d.cls === c && d.count > most) { most = d.count; best = i; }
      });
    });
    var g = best === null ? null : svg.querySelector('.al-item[data-item="' + best + '"]');
    if (!g) return;
    var b = g.getBoundingClientRect(), w = wrap.getBoundingClientRect();
    if (b.left >= w.left && b.right <= w.right && b.top >= w.top && b.bottom <= w.bottom) return;
    wrap.scrollLeft += b.left - w.left - (w.width - b.width) / 2;
    wrap.scrollTop += b.top - w.top - (w.height - b.height) / 2;
  }

  /* Per visible class, [count, bytes, direct?] at and below node `n`. */
  function subtreeClasses(n) {
    var shown = visibleClasses(tree, choice), per = {}, todo = [n];
    while (todo.length) {
      var at = todo.pop();
      tree.nodes[at].direct.forEach(function (d) {
        if (!shown[d.cls]) return;
        var e = per[d.cls] || (per[d.cls] = [0, 0, false]);
        e[0] += d.count; e[1] += d.bytes;
        if (at === n) e[2] = true;
      });
      Array.prototype.push.apply(todo, tree.nodes[at].children);
    }
    return per;
  }

  function popupFor(i) {
    var it = current.list[i];
    popup.textContent = '';
    var head = document.createElement('div');
    var strong = document.createElement('strong');
    popup.appendChild(head);
    head.appendChild(strong);
    var lines = [];
    var root = it.kind === 'node' ? it.node : it.nodes[0];
    if (it.kind === 'node') {
      var n = tree.nodes[it.node];
      strong.textContent = n.label;
      if (n.file) lines.push(n.file);
      if (n.calls !== null) lines.push('calls from its context: ' + fmt(n.calls));
    } else if (it.kind === 'chain') {
      strong.textContent = it.nodes.length + ' contexts that only pass calls on';
      lines.push(it.nodes.map(function (m) { return tree.nodes[m].label; }).join(' \u2192 '));
    } else {
      strong.textContent = it.nodes.length + ' small branches (click to open)';
    }
    lines.forEach(function (l) { var d = document.createElement('div'); d.textContent = l; popup.appendChild(d); });
    var per = {};
    (it.kind === 'group' ? it.nodes : [root]).forEach(function (m) {
      var sub = subtreeClasses(m);
      Object.keys(sub).forEach(function (c) {
        var e = per[c] || (per[c] = [0, 0, false]);
        e[0] += sub[c][0]; e[1] += sub[c][1]; e[2] = e[2] || (it.kind === 'node' && sub[c][2]);
      });
    });
    var rows = Object.keys(per).map(Number).sort(function (a, b) {
      /* The class list's ranking (allocation_page.rs `class_rows`). */
      var d = (tree.rankByBytes ? per[b][1] - per[a][1] : per[b][0] - per[a][0]);
      return d || (tree.classes[a][0] < tree.classes[b][0] ? -1 : 1);
    });
    /* The source lines of the classes created here, where the input has them. */
    var lineOf = {};
    if (it.kind === 'node') {
      tree.nodes[it.node].direct.forEach(function (d) {
        if (d.lines.length) lineOf[d.cls] = (d.lines.length > 1 ? 'lines ' : 'line ') + d.lines.join(', ');
      });
    }
    var hasLines = Object.keys(lineOf).length > 0;
    var table = document.createElement('table');
    var hr = table.insertRow();
    ['', tree.classNoun + (it.kind === 'node' ? ' (\u25cf created here)' : ''), tree.byBytes ? 'bytes' : tree.noun, tree.bytesKnown ? 'memory' : '']
      .concat(hasLines ? ['allocated at'] : [])
      .forEach(function (h) { var c = document.createElement('th'); c.textContent = h; hr.appendChild(c); });
    rows.slice(0, 30).forEach(function (c) {
      var tr = table.insertRow();
      if (per[c][2]) tr.className = 'al-direct';
      var sw = document.createElement('span');
      sw.className = 'al-swatch';
      sw.style.background = tree.classes[c][1];
      tr.insertCell().appendChild(sw);
      tr.insertCell().textContent = (per[c][2] ? '\u25cf ' : '') + tree.classes[c][0];
      tr.insertCell().textContent = tree.byBytes ? fmtBytes(per[c][1]) : fmt(per[c][0]);
      tr.insertCell().textContent = tree.bytesKnown && !tree.byBytes ? fmtBytes(per[c][1]) : '';
      if (hasLines) tr.insertCell().textContent = per[c][2] ? (lineOf[c] || '') : '';
    });
    popup.appendChild(table);
    if (rows.length > 30) {
      var more = document.createElement('div');
      more.textContent = '\u2026 and ' + (rows.length - 30) + ' more classes';
      popup.appendChild(more);
    }
    var total = document.createElement('div');
    total.textContent = 'in total: ' + amount(it.inclusive) + ' ' + (tree.byBytes ? '' : tree.noun);
    popup.appendChild(total);
  }

  function near(i, on) {
    current.list.forEach(function (it, j) {
      if (j !== i && it.parent !== i) return;
      var g = svg.querySelector('.al-item[data-item="' + j + '"]');
      if (g) g.classList.toggle('al-near', on);
      if (j !== i) {
        var e = svg.querySelector('.al-edge[data-to="' + j + '"]');
        if (e) e.classList.toggle('al-near', on);
      }
    });
  }

  function itemOf(target) {
    var g = target.closest ? target.closest('.al-item') : null;
    return g ? +g.getAttribute('data-item') : null;
  }

  function show(i, x, y) {
    popupFor(i);
    popup.hidden = false;
    var r = popup.getBoundingClientRect();
    popup.style.left = Math.max(4, Math.min(x + 14, window.innerWidth - r.width - 4)) + 'px';
    popup.style.top = Math.max(4, Math.min(y + 14, window.innerHeight - r.height - 4)) + 'px';
    near(i, true);
  }
  function hide(i) { popup.hidden = true; if (i !== null) near(i, false); }

  svg.addEventListener('mouseover', function (ev) {
    var i = itemOf(ev.target);
    if (i !== null) show(i, ev.clientX, ev.clientY);
  });
  svg.addEventListener('mouseout', function (ev) {
    var i = itemOf(ev.target);
    if (i !== null && itemOf(ev.relatedTarget || svg) !== i) hide(i);
  });
  svg.addEventListener('focusin', function (ev) {
    var i = itemOf(ev.target);
    if (i === null) return;
    var r = ev.target.getBoundingClientRect();
    show(i, r.right, r.top);
  });
  svg.addEventListener('focusout', function (ev) { hide(itemOf(ev.target)); });
  function open(ev) {
    var i = itemOf(ev.target);
    if (i === null) return;
    var key = itemKey(current.list[i]);
    if (!key) return;
    ev.preventDefault();
    choice.expanded[key] = true;
    hide(null);
    draw();
  }
  svg.addEventListener('click', open);
  svg.addEventListener('keydown', function (ev) { if (ev.key === 'Enter' || ev.key === ' ') open(ev); });

  function classOf(row) { return +row.getAttribute('data-class'); }
  function setExcluded(c, off) {
    if (off) choice.excluded[c] = true; else delete choice.excluded[c];
    var row = document.querySelector('.al-class[data-class="' + c + '"]');
    if (row) {
      row.classList.toggle('al-excluded', off);
      var box = row.querySelector('.al-show');
      if (box) box.checked = !off;
    }
    draw();
  }
  document.querySelectorAll('.al-class').forEach(function (row) {
    var c = classOf(row);
    if (c < 0) return;
    row.addEventListener('mouseenter', function () { if (fixedClass === null) highlight(c); });
    row.addEventListener('mouseleave', function () { if (fixedClass === null) highlight(null); });
    row.addEventListener('click', function (ev) {
      if (ev.target.classList.contains('al-show')) return;
      fixedClass = fixedClass === c ? null : c;
      highlight(fixedClass === null ? c : fixedClass);
      if (fixedClass !== null) reveal(fixedClass);
    });
    row.addEventListener('contextmenu', function (ev) {
      ev.preventDefault();
      setExcluded(c, !choice.excluded[c]);
    });
    var box = row.querySelector('.al-show');
    if (box) box.addEventListener('change', function () { setExcluded(c, !box.checked); });
  });
  var below = document.getElementById('al-below');
  below.addEventListener('input', function () {
    var v = parseFloat(below.value);
    choice.below = isFinite(v) && v > 0 ? v : 0;
    var shown = visibleClasses(tree, { excluded: {}, below: choice.below });
    document.querySelectorAll('.al-class').forEach(function (row) {
      var c = classOf(row);
      if (c >= 0) row.classList.toggle('al-excluded', !!choice.excluded[c] || !shown[c]);
    });
    draw();
  });
  document.getElementById('al-reset').addEventListener('click', function () {
    choice = initial();
    fixedClass = null;
    below.value = 0;
    document.querySelectorAll('.al-class').forEach(function (row) {
      row.classList.remove('al-excluded');
      var box = row.querySelector('.al-show');
      if (box) box.checked = true;
    });
    draw();
  });
  draw();
  window.perfatlasAllocation = { choice: function () { return choice; }, items: function () { return current.list; },
    geometry: function () { return current.geometry; }, draw: draw };
}());
