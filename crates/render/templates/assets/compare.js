// perfatlas compare page (compare_page.rs): any two versions or
// repetitions of a benchmark as a differential flame graph drawn in the
// page. The two chosen (?old=NAME&new=NAME, a version's name for its
// mean, NAME/rN for a repetition) are loaded from their data scripts,
// their frames merged by name and location, and the views a differential
// page of the pair stores (flame_diff_page.rs, shape_source.rs) are
// written to #pa-views before assets/flame.js is loaded to draw them.
(function () {
  'use strict';
  var flameSrc = document.currentScript.getAttribute('data-flame');
  var configEl = document.getElementById('pa-compare');
  var status = document.getElementById('pa-compare-status');
  var config;
  try { config = JSON.parse(configEl.textContent); } catch (e) { config = null; }
  var loaded = {};
  // The data scripts call this (compare_page.rs render_data).
  window.perfatlasCompare = { add: function (name, data) { loaded[name] = data; } };

  function say(text) {
    status.textContent = text;
    status.hidden = !text;
  }
  if (!config || !config.versions.length) { say('This page\'s settings could not be read.'); return; }

  // Every choice: each version's mean, then its repetitions.
  var choices = [];
  config.versions.forEach(function (v) {
    choices.push({ key: v.name, version: v, label: v.label + (v.repetitions.length > 1 ? ' (mean of ' + v.repetitions.length + ')' : '') });
    if (v.repetitions.length > 1) {
      v.repetitions.forEach(function (r) {
        choices.push({ key: v.name + '/r' + r, version: v, label: v.label + ' r' + r });
      });
    }
  });
  function choice(key) {
    for (var i = 0; i < choices.length; i++) if (choices[i].key === key) return choices[i];
    return null;
  }
  function query() {
    var q = {};
    location.search.replace(/^\?/, '').split('&').forEach(function (kv) {
      var i = kv.indexOf('=');
      if (i > 0) { try { q[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); } catch (e) { /* ignore */ } }
    });
    return q;
  }
  // The pair asked for. Without a newer one, the last two versions' means
  // (or the first two repetitions of a single version); without an older
  // one, the mean of the version before the newer's (after it, for the
  // first version; another repetition when there is one version).
  function pair() {
    var q = query(), means = choices.filter(function (c) { return c.key === c.version.name; });
    var fallback = means.length > 1 ? [means[means.length - 2], means[means.length - 1]]
      : [choices[1] || choices[0], choices[2] || choices[0]];
    var newer = choice(q.new), older = choice(q.old);
    if (!newer) return [older || fallback[0], fallback[1]];
    if (!older) {
      var at = means.indexOf(choice(newer.version.name));
      older = means[at - 1] || means[at + 1] || choices.filter(function (c) { return c !== newer; })[0] || newer;
    }
    return [older, newer];
  }
  var chosen = pair();

  var pickOld = document.getElementById('pa-compare-old'), pickNew = document.getElementById('pa-compare-new');
  [pickOld, pickNew].forEach(function (select, side) {
    choices.forEach(function (c) {
      var o = document.createElement('option');
      o.value = c.key;
      o.textContent = c.label;
      select.appendChild(o);
    });
    select.value = chosen[side].key;
    select.addEventListener('change', go);
  });
  document.getElementById('pa-compare-swap').addEventListener('click', function () {
    var o = pickOld.value;
    pickOld.value = pickNew.value;
    pickNew.value = o;
    go();
  });
  // Another pair: the page again, keeping the view in the fragment.
  function go() {
    location.search = '?old=' + encodeURIComponent(pickOld.value) + '&new=' + encodeURIComponent(pickNew.value);
  }

  function load(c) {
    return new Promise(function (resolve, reject) {
      if (loaded[c.version.name]) { resolve(); return; }
      var s = document.createElement('script');
      s.src = c.version.script;
      s.onload = function () { if (loaded[c.version.name]) resolve(); else reject(c); };
      s.onerror = function () { reject(c); };
      document.head.appendChild(s);
    });
  }

  // ---- merging two versions' data -----------------------------------------
  // Tables as flame_view.rs Tables keeps them: location 0 is "".
  function Tables() {
    this.names = []; this.full = []; this.nameAt = new Map();
    this.locations = ['']; this.links = [['', '']];
    this.locationAt = new Map([['\u0000' + JSON.stringify(['', '']), 0]]);
  }
  Tables.prototype.name = function (name, full) {
    var key = name + '\u0000' + (full || '');
    var i = this.nameAt.get(key);
    if (i === undefined) {
      i = this.names.length;
      this.names.push(name);
      this.full.push(full || '');
      this.nameAt.set(key, i);
    }
    return i;
  };
  // A location once per distinct set of links, as flame_view.rs keeps
  // them (two functions of one file link different methods and lines).
  Tables.prototype.location = function (location, link) {
    var key = location + '\u0000' + JSON.stringify(link);
    var i = this.locationAt.get(key);
    if (i === undefined) {
      i = this.locations.length;
      this.locations.push(location);
      this.links.push(link);
      this.locationAt.set(key, i);
    }
    return i;
  };

  // One source (shape_source.rs ShapeSource) from the two versions' data:
  // frames merged and ordered as a flame graph
  // orders siblings (by name, then the site's frame id); links are the
  // newer version's where both have the frame.
  function merge(oldData, newData, oldEntry, newEntry) {
    var frames = new Map(), list = [];
    // A frame is its id in the site's shape frames: every data script of
    // a site is written by the same build, and the id is what the
    // differential pages match functions by (one per function identity,
    // whatever file path each version's profiles give it).
    function frameKey(d, f) { return d.source.ids[f]; }
    [newData, oldData].forEach(function (d) {
      d.source.frames.forEach(function (n, f) {
        var key = frameKey(d, f);
        if (frames.has(key)) return;
        var item = { name: d.names[n[0]], full: (d.full || [])[n[0]] || '', location: d.locations[n[1]],
          link: d.links[n[1]] || ['', ''], id: d.source.ids[f] };
        frames.set(key, item);
        list.push(item);
      });
    });
    list.sort(function (a, b) { return a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id; });
    var tables = new Tables();
    list.forEach(function (item, rank) { item.rank = rank; });
    var mergedFrames = list.map(function (item) {
      return [tables.name(item.name, item.full), tables.location(item.location, item.link)];
    });
    var kinds = [], kindAt = new Map();
    function remap(d) {
      var at = d.source.frames.map(function (_, f) { return frames.get(frameKey(d, f)).rank; });
      var kind = d.source.kinds.map(function (k) {
        var tuple = [at[k[0]], at[k[1]], at[k[2]], at[k[3]]], key = tuple.join(',');
        var i = kindAt.get(key);
        if (i === undefined) { i = kinds.length; kinds.push(tuple); kindAt.set(key, i); }
        return i;
      });
      return { at: at, kind: kind };
    }
    var maps = [remap(oldData), remap(newData)];
    function tree(d, map, k) {
      if (k < 0) return { parent: [-1], kind: [-1], values: [[0]], scale: [1] };
      var t = d.source.trees[k];
      return {
        parent: t.parent, scale: t.scale, values: t.values,
        kind: t.kind.map(function (x) { return x < 0 ? -1 : map.kind[x]; })
      };
    }
    var trees = [];
    config.metrics.forEach(function (_, m) {
      trees.push(tree(oldData, maps[0], oldEntry.trees[m]), tree(newData, maps[1], newEntry.trees[m]));
    });
    var all = tables.name('all', '');
    return {
      tables: tables,
      source: {
        frames: mergedFrames, kinds: kinds,
        no_stack: maps[1].at[newData.source.no_stack], narrow: maps[1].at[newData.source.narrow],
        trees: trees, min_fraction: config.min_fraction, all: all,
        diff: { normalise: config.normalise }
      }
    };
  }
  function entryOf(data, key) {
    for (var i = 0; i < data.entries.length; i++) if (data.entries[i].key === key) return data.entries[i];
    return null;
  }
  function total(t) {
    var sum = 0;
    t.values[0].forEach(function (v) { sum += v; });
    return sum * (t.scale[0] || 1);
  }

  // ---- the views a differential page stores ---------------------------------
  var SHAPES = ['top-down', 'bottom-up', 'flat'];
  function views(merged, labels) {
    var source = merged.source, out = {
      names: merged.tables.names, full: merged.tables.full, locations: merged.tables.locations,
      links: merged.tables.links, editor: config.editor, frames: [], tree: source,
      metrics: config.metrics.map(function (m) { return m[2]; }), views: [], tables: []
    };
    config.metrics.forEach(function (m, k) {
      var unit = config.normalise ? '% of total' : m[1];
      var totals = [total(source.trees[2 * k]), total(source.trees[2 * k + 1])];
      SHAPES.forEach(function (shape) {
        var note = function (side) {
          return 'Functions of ' + labels[0] + ' and ' + labels[1] + ' matched by their whole call path from the root ' +
            '(names and files; line numbers ignored). Widths are ' + labels[side] + '\'s; colour and tag compare it with ' +
            labels[1 - side] + '. Each frame\'s tooltip starts with its tag and gives both versions\' values.';
        };
        out.tables.push({
          caption: 'Tree table of the difference',
          columns: ['old', 'new', 'change', 'old self', 'new self', 'self change'].map(function (h) {
            return { heading: h, unit: unit, of: null };
          }),
          merged_rows: 0, sorted_by: -1, notes: [], rows: [], derive: { shape: shape, metric: k }
        });
        out.views.push({
          metric: k, shape: shape,
          title: config.benchmark + ' · ' + labels[0] + ' → ' + labels[1] + ' · ' + m[0] + ' · ' + shape,
          heading: labels[0] + ' → ' + labels[1] + ', ' + shape,
          graphs: [{
            title: 'Differential flame graph, ' + shape + ', ' + m[0], note: note(1), id: 'pa-flame-0',
            svg: '', svg_href: '', save_name: 'compare.' + m[2] + '.' + shape + '.svg', merged_note: '',
            empty: totals[0] === 0 && totals[1] === 0, label: config.benchmark + ': ' + labels[0] + ' → ' + labels[1] + ', ' + m[0],
            data: {
              unit: unit, total: totals[1], words: 'value',
              derive: { shape: shape, values: 'exclusive', max_frames: config.max_frames },
              diff_unit: unit, normalised: config.normalise, older_note: note(0), totals: totals, note: ''
            }
          }],
          table: out.tables.length - 1
        });
      });
    });
    return out;
  }
  function facts(source, labels) {
    var dl = document.getElementById('pa-compare-facts');
    config.metrics.forEach(function (m, k) {
      var a = total(source.trees[2 * k]), b = total(source.trees[2 * k + 1]);
      var dt = document.createElement('dt'), dd = document.createElement('dd');
      dt.textContent = m[0];
      var fmt = window.perfatlasNumbers;
      dd.textContent = labels[0] + ': ' + fmt.withUnit(a, m[1]) + ' → ' + labels[1] + ': ' + fmt.withUnit(b, m[1]) +
        (a > 0 ? ' (' + (b >= a ? '+' : '−') + (Math.abs(b - a) / a * 100).toFixed(1) + '%' +
          (b > 0 && a !== b ? ', ' + (b > a ? (b / a).toFixed(1) + '× more' : (a / b).toFixed(1) + '× less') : '') + ')' : '');
      dl.appendChild(dt);
      dl.appendChild(dd);
    });
  }

  say('Loading ' + chosen[0].label + ' and ' + chosen[1].label + '…');
  Promise.all(chosen.map(load)).then(function () {
    var oldData = loaded[chosen[0].version.name], newData = loaded[chosen[1].version.name];
    var oldEntry = entryOf(oldData, chosen[0].key), newEntry = entryOf(newData, chosen[1].key);
    if (!oldEntry || !newEntry) { say('The data of ' + (oldEntry ? chosen[1] : chosen[0]).label + ' has no such profile.'); return; }
    var labels = [chosen[0].label, chosen[1].label];
    // compare_page.rs TOO_LARGE: a tree the data does not store.
    var large = [oldEntry, newEntry].filter(function (e) { return e.trees.indexOf(-2) >= 0; });
    if (large.length) {
      say('A profile of ' + labels[[oldEntry, newEntry].indexOf(large[0])] + ' has more than ' +
        '200,000 call-tree nodes: too large to compare in the page. Its differential pages with the ' +
        'versions before and after it are built (see the benchmark\'s profile pages).');
      return;
    }
    var merged = merge(oldData, newData, oldEntry, newEntry);
    var el = document.createElement('script');
    el.type = 'application/json';
    el.id = 'pa-views';
    el.textContent = JSON.stringify(views(merged, labels));
    document.getElementById('pa-compare-body').appendChild(el);
    var side = document.getElementById('pa-diff-side');
    side.options[0].setAttribute('data-version', labels[1]);
    side.options[0].textContent = labels[1] + ' (newer)';
    side.options[1].setAttribute('data-version', labels[0]);
    side.options[1].textContent = labels[0] + ' (older)';
    facts(merged.source, labels);
    document.getElementById('pa-compare-body').hidden = false;
    say('');
    var flame = document.createElement('script');
    flame.src = flameSrc;
    document.body.appendChild(flame);
  }, function (c) {
    say('The data of ' + c.label + ' could not be loaded (' + c.version.script + '): the site may be incomplete.');
  });
}());
