// perfatlas page script, on every page: the theme switch, the site's one
// number formatter and saving a chart as SVG. The flame pages' script is
// flame.js, the matrix's matrix.js. Plain JavaScript, no dependencies;
// every page works without it.
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

  // ---- number formatting (mirrors crates/render/src/format.rs) ---------
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
  // ---- save as SVG --------------------------------------------------------
  // A chart as the reader sees it (zoomed, searched, highlighted), as an
  // SVG file that opens on its own: the page's styles are written into
  // each element, since a file:// page may not read its style sheets.
  var SVG_STYLE = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray',
    'stroke-opacity', 'opacity', 'visibility', 'display', 'font-family', 'font-size',
    'font-weight', 'font-style', 'text-anchor', 'dominant-baseline'];
  function inlineStyle(from, to) {
    var cs = window.getComputedStyle(from);
    var s = '';
    for (var i = 0; i < SVG_STYLE.length; i++) {
      var v = cs.getPropertyValue(SVG_STYLE[i]);
      if (v) s += SVG_STYLE[i] + ':' + v + ';';
    }
    to.setAttribute('style', s);
  }
  function svgText(svg) {
    var copy = svg.cloneNode(true);
    inlineStyle(svg, copy);
    var from = svg.querySelectorAll('*'), to = copy.querySelectorAll('*');
    for (var i = 0; i < from.length && i < to.length; i++) inlineStyle(from[i], to[i]);
    copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
    var box = svg.getBoundingClientRect();
    if (!copy.getAttribute('width')) copy.setAttribute('width', Math.ceil(box.width));
    if (!copy.getAttribute('height')) copy.setAttribute('height', Math.ceil(box.height));
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(copy) + '\n';
  }
  window.perfatlasSvgText = svgText;
  function download(text, name) {
    var url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
    var a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
  }
  window.perfatlasDownload = download;
  // Delegated: graphs drawn by the script have their buttons too.
  document.addEventListener('click', function (e) {
    var button = e.target.closest ? e.target.closest('button.pa-save-svg') : null;
    if (!button) return;
    var svg = document.querySelector(button.getAttribute('data-target'));
    if (svg) download(svgText(svg), button.getAttribute('data-name') || 'chart.svg');
  });

  // The one number formatter of the site's scripts (flame.js, matrix.js and
  // allocation.js use it).
  window.perfatlasNumbers = { grouped: grouped, withUnit: withUnit, percent: percent };
})();
