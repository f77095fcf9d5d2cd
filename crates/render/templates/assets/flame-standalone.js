// Click-to-zoom for a standalone perfatlas flame-graph SVG. Tooltips come
// from each frame's <title>; clicking the top "all" frame resets.
(function () {
  'use strict';
  var svg = document.documentElement;
  var groups = Array.prototype.slice.call(svg.querySelectorAll('g.f'));
  var geom = groups.map(function (g) {
    var r = g.querySelector('rect'), t = g.querySelector('title');
    return { x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y'),
             name: t ? t.textContent.split('\n')[0] : '' };
  });
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
  svg.addEventListener('click', function (e) {
    var el = e.target;
    while (el && el !== svg && !(el.classList && el.classList.contains('f'))) el = el.parentNode;
    if (!el || el === svg) return;
    var z = geom[+el.getAttribute('data-i')];
    groups.forEach(function (g, j) {
      var q = geom[j];
      var above = q.y < z.y && q.x <= z.x + 1e-6 && q.x + q.w >= z.x + z.w - 1e-6;
      var inside = q.y >= z.y && q.x >= z.x - 1e-6 && q.x + q.w <= z.x + z.w + 1e-6;
      if (above) { place(j, 0, 1200); g.style.display = ''; }
      else if (inside) { place(j, (q.x - z.x) / z.w * 1200, q.w / z.w * 1200); g.style.display = ''; }
      else g.style.display = 'none';
    });
  });
})();
