// Zoom and pan for a standalone perfatlas flame-graph SVG. Tooltips come
// from each frame's <title>. Click a frame to zoom to it (the top "all"
// frame resets); Ctrl/⌘+wheel zooms at the pointer, Shift+wheel or a
// drag pans, + and - zoom, 0 or Escape resets (as on the site's pages).
(function () {
  'use strict';
  var W = 1200, MIN = 1e-4;
  var svg = document.documentElement;
  var groups = Array.prototype.slice.call(svg.querySelectorAll('g.f'));
  var geom = groups.map(function (g) {
    var r = g.querySelector('rect'), t = g.querySelector('title');
    return { x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y'),
             name: t ? t.textContent.split('\n')[0] : '' };
  });
  // The frame zoomed to (its ancestors span the width, frames beside it
  // hide) and the range of the original x shown.
  var z = 0, view = { a: 0, b: W }, queued = false, dragged = false;
  function place(i, x, w) {
    var g = groups[i], r = g.querySelector('rect'), t = g.querySelector('text');
    r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));
    var fits = Math.floor((w - 6) / 7), name = geom[i].name;
    var text = fits < 3 ? '' : name.length <= fits ? name : name.slice(0, fits - 2) + '..';
    if (!t && text) {
      t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
      t.setAttribute('y', (geom[i].y + 11).toFixed(2)); g.appendChild(t);
    }
    if (t) { t.setAttribute('x', (x + 3).toFixed(2)); t.textContent = text; }
  }
  function draw() {
    queued = false;
    var f = geom[z], s = W / (view.b - view.a);
    groups.forEach(function (g, j) {
      var q = geom[j], x, w;
      var above = q.y < f.y && q.x <= f.x + 1e-6 && q.x + q.w >= f.x + f.w - 1e-6;
      var inside = q.y >= f.y && q.x >= f.x - 1e-6 && q.x + q.w <= f.x + f.w + 1e-6;
      if (above) { x = 0; w = W; } else if (inside) { x = (q.x - view.a) * s; w = q.w * s; }
      var x1 = Math.max(x, 0), x2 = Math.min(x + w, W);
      if (!(above || inside) || !(x1 < x2 || (w === 0 && x >= 0 && x <= W))) { g.style.display = 'none'; return; }
      g.style.display = '';
      place(j, x1, x2 - x1);
    });
  }
  function later() { if (!queued) { queued = true; requestAnimationFrame(draw); } }
  function setView(a, b) {
    var f = geom[z];
    if (z !== 0 && b - a > f.w + 1e-9) { z = 0; f = geom[0]; }
    var lo = z === 0 ? 0 : f.x, hi = z === 0 ? W : f.x + Math.max(f.w, MIN);
    var span = Math.max(MIN, Math.min(b - a, hi - lo));
    a = Math.max(lo, Math.min(a, hi - span));
    view = { a: a, b: a + span };
    later();
  }
  function zoomTo(i) {
    z = i;
    view = i === 0 ? { a: 0, b: W } : { a: geom[i].x, b: geom[i].x + Math.max(geom[i].w, MIN) };
    draw();
  }
  function zoomBy(factor, at) { setView(at - (at - view.a) * factor, at + (view.b - at) * factor); }
  function perPixel() { return (view.b - view.a) / (svg.getBoundingClientRect().width || W); }
  svg.addEventListener('click', function (e) {
    if (dragged) { dragged = false; return; }
    var el = e.target;
    while (el && el !== svg && !(el.classList && el.classList.contains('f'))) el = el.parentNode;
    if (el && el !== svg) zoomTo(+el.getAttribute('data-i'));
  });
  svg.addEventListener('wheel', function (e) {
    var unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1, dx = e.deltaX * unit, dy = e.deltaY * unit;
    if (e.ctrlKey || e.metaKey) {
      e.preventDefault();
      var b = svg.getBoundingClientRect();
      zoomBy(Math.exp(Math.max(-300, Math.min(300, dy)) * 0.002), view.a + (e.clientX - b.left) * perPixel());
    } else if (e.shiftKey || Math.abs(dx) > Math.abs(dy)) {
      e.preventDefault();
      var d = (Math.abs(dx) > Math.abs(dy) ? dx : dy) * perPixel();
      setView(view.a + d, view.b + d);
    }
  }, { passive: false });
  svg.addEventListener('mousedown', function (e) {
    if (e.button !== 0) return;
    var start = e.clientX, from = view, scale = perPixel(), moved = false;
    function move(ev) {
      if (!moved && Math.abs(ev.clientX - start) < 4) return;
      moved = true;
      var d = (start - ev.clientX) * scale;
      setView(from.a + d, from.b + d);
    }
    function up() {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
      if (moved) { dragged = true; setTimeout(function () { dragged = false; }, 0); }
    }
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
  });
  window.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var c = (view.a + view.b) / 2, span = view.b - view.a;
    var act = {
      '+': function () { zoomBy(1 / 1.5, c); }, '=': function () { zoomBy(1 / 1.5, c); },
      '-': function () { zoomBy(1.5, c); }, '_': function () { zoomBy(1.5, c); },
      'ArrowLeft': function () { setView(view.a - span / 10, view.b - span / 10); },
      'ArrowRight': function () { setView(view.a + span / 10, view.b + span / 10); },
      '0': function () { zoomTo(0); }, 'Escape': function () { zoomTo(0); }
    }[e.key];
    if (act) { e.preventDefault(); act(); }
  });
})();
