// perfatlas: the call graphs and execution timelines of a component page,
// drawn in the page instead of stored as SVG.
//
// A call graph is drawn from its version's column of its block's table of
// callers and callees by version (the form a reader without JavaScript
// sees; `data-o` on the column's heading gives the rows it draws, in
// order, and `data-n` how many there are), a timeline from its
// section's shares (`data-s`) over the previous section's. They draw what
// callgraph_svg.rs (call_graph) and timeline_svg.rs (timeline) draw, the
// same elements with the same attributes in the same order:
// tests/derive_parity.rs compares them on built sites, under node
// (no DOM: drawings are trees of {tag, attrs, kids} that either become
// elements or XML text).
(function (global) {
  'use strict';

  var NS = 'http://www.w3.org/2000/svg';
  // callgraph_svg.rs
  var WIDTH = 960, BOX_W = 290, MID_W = 240, LINE = 26, BOX_H = 20, CHARS = 38;
  // component_page.rs (timeline_of): a frame's width and the height.
  var FRAME_W = 18, TL_H = 48;

  // ---- numbers and text as Rust writes them -------------------------------

  // format!("{:.N}", v) for v >= 0: the exact binary value rounded, ties
  // to even (toFixed rounds ties up, and a tie is exact: its expansion
  // ends in 5 within 60 digits).
  function fixed(v, digits) {
    var s = v.toFixed(digits);
    var long = v.toFixed(digits + 60);
    var tail = long.slice(long.length - 60);
    if (/^50*$/.test(tail)) {
      var down = long.slice(0, long.length - 60).replace(/\.$/, '');
      if ((down.charCodeAt(down.length - 1) - 48) % 2 === 0) s = down;
    }
    return s;
  }
  // svg::coord: at most two decimals, without trailing zeros.
  function coord(v) {
    var s = v < 0 ? '-' + fixed(-v, 2) : fixed(v, 2);
    if (s.indexOf('.') >= 0) s = s.replace(/0+$/, '').replace(/\.$/, '');
    return s === '-0' ? '0' : s;
  }
  // matrix_svg::truncate: in characters (code points).
  function truncate(s, max) {
    var chars = Array.from(s);
    return chars.length <= max ? s : chars.slice(0, max - 1).join('') + '…';
  }
  // What svg.rs writes for characters XML does not allow.
  function xmlSafe(s) {
    return String(s).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd');
  }

  // ---- drawings as trees --------------------------------------------------

  function node(tag, attrs, kids) { return { tag: tag, attrs: attrs, kids: kids || [] }; }
  function text(tag, attrs, s) { return node(tag, attrs, [xmlSafe(s)]); }

  // callgraph_svg::call_graph. `callers` and `callees` are the drawn
  // neighbours ({name, href, state: 'added'|'deleted'|'kept', value}),
  // `more` how many are left out on each side.
  function callGraph(center, callers, callees, more, label) {
    var linesLeft = callers.length + (more[0] > 0 ? 1 : 0);
    var linesRight = callees.length + (more[1] > 0 ? 1 : 0);
    var rows = Math.max(linesLeft, linesRight, 1);
    var height = rows * LINE + 10;
    var midX = (WIDTH - MID_W) / 2, midY = height / 2 - BOX_H / 2;
    var svg = node('svg', [['xmlns', NS], ['class', 'pa-cg'], ['width', coord(WIDTH)],
      ['height', coord(height)], ['viewBox', '0 0 ' + coord(WIDTH) + ' ' + coord(height)],
      ['role', 'img'], ['aria-label', xmlSafe(label)]]);
    var top = function (n) { return (height - n * LINE) / 2 + (LINE - BOX_H) / 2; };
    var labels = [];
    var y0 = top(linesLeft);
    callers.forEach(function (n, i) {
      var y = y0 + i * LINE;
      labels.push(edge(svg, n, [BOX_W, y + BOX_H / 2], [midX, midY + BOX_H / 2], true));
      neighbourBox(svg, n, 0, y);
    });
    if (more[0] > 0) moreText(svg, more[0], 4, y0 + callers.length * LINE + 14);
    var y1 = top(linesRight), rightX = WIDTH - BOX_W;
    callees.forEach(function (n, i) {
      var y = y1 + i * LINE;
      labels.push(edge(svg, n, [midX + MID_W, midY + BOX_H / 2], [rightX, y + BOX_H / 2], false));
      neighbourBox(svg, n, rightX, y);
    });
    if (more[1] > 0) moreText(svg, more[1], rightX + 4, y1 + callees.length * LINE + 14);
    labels.forEach(function (l) { svg.kids.push(l); });
    svg.kids.push(node('g', [['class', 'pa-cg-self']], [
      node('rect', [['x', coord(midX)], ['y', coord(midY)], ['width', coord(MID_W)], ['height', coord(BOX_H)], ['rx', '3']]),
      text('text', [['x', coord(midX + 6)], ['y', coord(midY + 14)]], truncate(center, 32))]));
    if (!callers.length && !callees.length) {
      svg.kids.push(text('text', [['x', '8'], ['y', coord(midY + 14)], ['class', 'pa-cg-none']], 'no calls recorded'));
    }
    return svg;
  }
  var STATE_WORD = { added: 'new ', deleted: 'gone ', kept: '' };
  function edge(svg, n, from, to, left) {
    var cx = (from[0] + to[0]) / 2;
    var d = 'M' + coord(from[0]) + ' ' + coord(from[1]) + ' C' + coord(cx) + ' ' + coord(from[1]) + ' ' +
      coord(cx) + ' ' + coord(to[1]) + ' ' + coord(to[0]) + ' ' + coord(to[1]);
    var cls = 'e-' + n.state;
    svg.kids.push(node('path', [['class', cls], ['d', d]]));
    var tx = left ? from[0] + 6 : to[0] - 6, ty = (left ? from[1] : to[1]) - 4;
    return text('text', [['class', 'pa-cg-label ' + cls], ['x', coord(tx)], ['y', coord(ty)],
      ['text-anchor', left ? 'start' : 'end']], STATE_WORD[n.state] + n.value);
  }
  function neighbourBox(svg, n, x, y) {
    var label = truncate(n.name, CHARS);
    var g = node('g', [['class', 'pa-cg-n e-' + n.state]]);
    if (label !== n.name) g.kids.push(text('title', [], n.name));
    g.kids.push(node('rect', [['x', coord(x)], ['y', coord(y)], ['width', coord(BOX_W)], ['height', coord(BOX_H)], ['rx', '3']]));
    g.kids.push(text('text', [['x', coord(x + 6)], ['y', coord(y + 14)]], label));
    svg.kids.push(n.href !== null ? node('a', [['href', xmlSafe(n.href)]], [g]) : g);
  }
  function moreText(svg, n, x, y) {
    svg.kids.push(text('text', [['x', coord(x)], ['y', coord(y)], ['class', 'pa-cg-more']],
      '+ ' + n + ' more (see the table)'));
  }

  // timeline_svg::timeline
  function timeline(now, before, width, height, label) {
    var n = Math.max(now.length, before ? before.length : 0, 1);
    var step = width / n;
    var svg = node('svg', [['class', 'pa-tl'], ['width', coord(width)], ['height', coord(height)],
      ['viewBox', '0 0 ' + coord(width) + ' ' + coord(height)], ['role', 'img'], ['aria-label', xmlSafe(label)]]);
    svg.kids.push(text('title', [], sharesText(now, before)));
    svg.kids.push(node('rect', [['width', coord(width)], ['height', coord(height)], ['class', 'pa-tl-bg']]));
    // Each bar a vertical line up from the bottom, its stroke as wide as
    // the bar (timeline_svg.rs).
    var bottom = coord(height);
    var bars = function (shares, bar, inset) {
      var d = '';
      shares.forEach(function (s, i) {
        var h = Math.min(Math.max(s, 0), 1) * (height - 1);
        if (h > 0) d += 'M' + coord(i * step + inset + bar / 2) + ' ' + bottom + 'V' + coord(height - h);
      });
      return d;
    };
    [[before || [], 'tl-prev', 0.5], [now, 'tl-now', step * 0.22]].forEach(function (p) {
      var bar = Math.max(step - 2 * p[2], 0.5), d = bars(p[0], bar, p[2]);
      if (d) svg.kids.push(node('path', [['d', d], ['class', p[1]], ['stroke-width', coord(bar)]]));
    });
    return svg;
  }
  function sharesText(now, before) {
    var pct = function (v) { return fixed(v * 100, 0) + '%'; };
    var runs = [];
    now.forEach(function (s, i) {
      var t = before && i < before.length ? pct(s) + ' (' + pct(before[i]) + ')' : pct(s);
      var last = runs[runs.length - 1];
      if (last && last[2] === t) last[1] = i; else runs.push([i, i, t]);
    });
    return (before ? 'share of each time frame, this version (previous version): ' : 'share of each time frame: ') + runs.map(function (r) {
      return (r[0] === r[1] ? r[0] + 1 : (r[0] + 1) + '–' + (r[1] + 1)) + ': ' + r[2];
    }).join(' · ');
  }

  // ---- output -------------------------------------------------------------

  // The drawing as svg.rs writes it.
  function escapeXml(s, attribute) {
    s = s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    return attribute ? s.replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/\n/g, '&#10;') : s;
  }
  function toXml(n) {
    if (typeof n === 'string') return escapeXml(n, false);
    var out = '<' + n.tag;
    n.attrs.forEach(function (a) { out += ' ' + a[0] + '="' + escapeXml(a[1], true) + '"'; });
    if (!n.kids.length && n.tag !== 'text' && n.tag !== 'title') return out + '/>';
    return out + '>' + n.kids.map(toXml).join('') + '</' + n.tag + '>';
  }
  // The drawing as elements: names only ever as text and attribute values.
  function toDom(n, doc) {
    if (typeof n === 'string') return doc.createTextNode(n);
    var e = doc.createElementNS(NS, n.tag);
    n.attrs.forEach(function (a) { if (a[0] !== 'xmlns') e.setAttribute(a[0], a[1]); });
    n.kids.forEach(function (k) { e.appendChild(toDom(k, doc)); });
    return e;
  }

  // ---- the page -----------------------------------------------------------

  // A neighbour from row `r` of a block's table of callers and callees,
  // in version column `k`: name (and link), state (the cell's class), the
  // value through the call (a gone call's value before).
  function cellNeighbour(tr, k) {
    var a = tr.cells[0].querySelector('a'), cell = tr.cells[k + 1];
    var state = cell.classList.contains('e-added') ? 'added' : cell.classList.contains('e-deleted') ? 'deleted' : 'kept';
    return { name: tr.cells[0].textContent, href: a ? a.getAttribute('href') : null, state: state, value: cell.textContent };
  }
  // One side of version column `k`: the rows its graph draws, in the
  // column's order (`data-o`), and how many are left out.
  function side(body, k, order, total, limit) {
    var rows = body ? Array.prototype.filter.call(body.rows, function (r) { return r.cells[0].tagName === 'TD'; }) : [];
    var drawn = order ? order.split(' ').map(function (r) { return cellNeighbour(rows[Number(r)], k); }) : [];
    return { drawn: drawn.slice(0, limit), more: Math.max(total - limit, 0) };
  }
  function versionOf(section) {
    var h = section.querySelector('h2, h3, h4');
    return h && h.firstChild ? h.firstChild.textContent : '';
  }
  // `block`: the section's component (`center`), its table of callers
  // and callees by version and the section's column `k` there.
  function drawCallGraph(section, wrap, block, limit) {
    var table = block.table, k = block.k, left = { drawn: [], more: 0 }, right = left;
    if (table) {
      var th = table.tHead.rows[0].cells[k + 1];
      var n = th.getAttribute('data-n').split(' ').map(Number), o = th.getAttribute('data-o').split('|');
      left = side(table.tBodies[0], k, o[0], n[0], limit);
      right = side(table.tBodies[1], k, o[1], n[1], limit);
    }
    wrap.appendChild(toDom(callGraph(block.center, left.drawn, right.drawn, [left.more, right.more],
      'calls of ' + block.center + ' in ' + versionOf(section)), document));
    saveButton(section, headingBefore(section, wrap, 'Calls'));
    if (table) table.closest('details').open = false;
  }

  // "Save as SVG" beside the section's "Calls" heading (perfatlas.js
  // saves the graph it names), named after the page and the section.
  function saveButton(section, heading) {
    if (!heading) return;
    var stem = decodeURIComponent(location.pathname.split('/').pop()).replace(/[.]html$/, '');
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'pa-save-svg pa-js-only';
    button.setAttribute('data-target', "[id='" + section.id + "'] .pa-cg-wrap svg");
    button.setAttribute('data-name', stem + '.' + section.id.replace(/#/g, '.') + '.svg');
    button.textContent = 'Save as SVG';
    heading.appendChild(document.createTextNode(' '));
    heading.appendChild(button);
  }
  // The heading of a graph drawn here, one level under its section's
  // (component.html writes none: without this script there is no graph).
  function headingBefore(section, wrap, text) {
    var level = Math.min(6, Number(section.querySelector('h2, h3, h4').tagName.slice(1)) + 1);
    var heading = document.createElement('h' + level);
    heading.textContent = text;
    wrap.parentNode.insertBefore(heading, wrap);
    return heading;
  }
  function shares(wrap) {
    return wrap ? wrap.getAttribute('data-s').split(' ').map(parseFloat) : null;
  }
  function drawTimeline(section, wrap, center, frames) {
    // The previous version's timeline, when the component ran in it
    // (versions it did not run in have no section).
    var prev = section.previousElementSibling;
    var k = Number(section.getAttribute('data-k'));
    var before = prev && prev.classList.contains('pa-version') && Number(prev.getAttribute('data-k')) === k - 1
      ? shares(prev.querySelector('.pa-tl-wrap')) : null;
    headingBefore(section, wrap, 'Execution timeline');
    wrap.appendChild(toDom(timeline(shares(wrap), before, frames * FRAME_W, TL_H,
      'execution timeline of ' + center), document));
  }
  // Each method's version header: a copy of the page's, its links to the
  // method's own sections (`<method id>#v-<version>`).
  function methodHeaders() {
    var top = document.querySelector('.pa-comp-row .pa-mhead:not([hidden])');
    if (!top) return;
    document.querySelectorAll('section.pa-method .pa-mhead[hidden]').forEach(function (h) {
      var id = h.closest('section.pa-method').id.replace(/#/g, '%23');
      Array.prototype.forEach.call(top.childNodes, function (n) { h.appendChild(n.cloneNode(true)); });
      h.querySelectorAll('a.pa-vh').forEach(function (a) {
        a.setAttribute('href', '#' + id + '%23' + a.getAttribute('href').slice(1));
      });
      h.hidden = false;
    });
  }
  function drawPage() {
    var key = document.getElementById('pa-comp');
    if (!key) return;
    methodHeaders();
    var limit = Number(key.getAttribute('data-edges')), frames = Number(key.getAttribute('data-frames'));
    // Each block: its matrix row, its table of callers and callees by
    // version (when it has calls), then its version sections in order.
    document.querySelectorAll('.pa-comp-row').forEach(function (row) {
      var block = { center: row.querySelector('.pa-row .pa-name').textContent, table: null, k: 0 };
      var e = row.nextElementSibling;
      if (e && e.matches('details.pa-calls')) { block.table = e.querySelector('table.pa-ct'); e = e.nextElementSibling; }
      for (; e && e.classList.contains('pa-version'); e = e.nextElementSibling) {
        block.k = Number(e.getAttribute('data-k'));
        var cg = e.querySelector('.pa-cg-wrap'), tl = e.querySelector('.pa-tl-wrap');
        if (cg) drawCallGraph(e, cg, block, limit);
        if (tl) drawTimeline(e, tl, block.center, frames);
      }
    });
    var note = document.getElementById('pa-comp-js');
    if (note) note.remove();
    showTarget();
    window.addEventListener('hashchange', showTarget);
  }
  // The section the address points at (a method's version, reached from a
  // root cause or a glyph) is opened, with the sections around it, and
  // brought back into view: the drawings above it moved it.
  function showTarget() {
    var target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!target) return;
    var own = target.querySelector(':scope > details');
    if (own) own.open = true;
    for (var d = target.closest('details'); d; d = d.parentElement && d.parentElement.closest('details')) d.open = true;
    target.scrollIntoView();
  }

  var api = { callGraph: callGraph, timeline: timeline, toXml: toXml, coord: coord, fixed: fixed };
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  else {
    global.perfatlasComponent = api;
    drawPage();
  }
})(this);
