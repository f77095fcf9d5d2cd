// perfatlas: the bottom-up and flat graphs of a profile page, derived in
// the page from the profile's tree (shape_source.rs) instead of stored;
// and a repetition's views, stored as their differences from another's.
//
// It computes what analysis/src/shapes.rs (bottom_up, flat) and
// analysis/src/flame.rs (layout) compute, step for step and in the same
// order, so the frames are the ones the page would have stored:
// tests/derive_parity.rs compares them on built sites. Loaded before
// perfatlas.js, which calls perfatlasShapes.frames(...) for a graph whose
// data says `derive`. No DOM: node runs it for that test.
(function (global) {
  'use strict';

  // Most occurrence steps of one bottom-up tree (shapes.rs BOTTOM_UP_WORK).
  var BOTTOM_UP_WORK = 4000000;

  // A call tree as model::CallTree keeps one: nodes in creation order,
  // parents first, children in creation order, a self value per metric.
  function Tree(metrics) {
    this.metrics = metrics;
    this.parent = [-1];
    this.frame = [-1];
    this.kids = [[]];
    this.index = [new Map()];
    this.self = [];
    for (var m = 0; m < metrics; m++) this.self.push([0]);
  }
  Tree.prototype.size = function () { return this.parent.length; };
  Tree.prototype.child = function (p, frame) {
    var c = this.index[p].get(frame);
    if (c !== undefined) return c;
    c = this.parent.length;
    this.parent.push(p);
    this.frame.push(frame);
    this.kids.push([]);
    this.index.push(new Map());
    for (var m = 0; m < this.metrics; m++) this.self[m].push(0);
    this.index[p].set(frame, c);
    this.kids[p].push(c);
    return c;
  };
  Tree.prototype.addSelf = function (n, m, v) {
    if (isFinite(v)) this.self[m][n] += v;
  };
  Tree.prototype.addStack = function (path, row) {
    var n = 0;
    path.forEach(function (f) { n = this.child(n, f); }, this);
    for (var m = 0; m < this.metrics; m++) this.addSelf(n, m, row[m]);
  };
  Tree.prototype.inclusive = function (m) {
    var t = this.self[m].slice();
    for (var i = t.length - 1; i >= 1; i--) t[this.parent[i]] += t[i];
    return t;
  };

  // Tree k of a page's `tree` data. Its frames are shape frames (the
  // profile's own, with their lines); `kind` keeps each node's index into
  // src.kinds (function, file, module, the frame itself).
  function sourceTree(src, k) {
    var s = src.trees[k], t = new Tree(s.values.length), n = s.parent.length;
    t.kind = [-1];
    for (var i = 1; i < n; i++) {
      var p = s.parent[i];
      t.parent.push(p);
      t.kind.push(s.kind[i]);
      t.frame.push(src.kinds[s.kind[i]][3]);
      t.kids.push([]);
      t.index.push(null);
      t.kids[p].push(i);
    }
    t.self = s.values.map(function (vs, m) {
      var scale = s.scale[m];
      return vs.map(function (v) { return v * scale; });
    });
    return t;
  }

  function rootRow(t) {
    var row = [];
    for (var m = 0; m < t.metrics; m++) row.push(t.self[m][0]);
    return row;
  }
  // Samples without frames (the root's own value) under `path`.
  function addRootless(t, out, path) {
    var row = rootRow(t);
    if (row.some(function (v) { return v !== 0; })) out.addStack(path, row);
  }

  // Nodes none of whose ancestors has the same function, in node order
  // (shapes.rs outermost_occurrences, depth-first with a count per
  // function on the current path).
  function outermost(t, fn) {
    var onPath = new Map(), path = [], depth = [0], out = [];
    var isOut = new Array(t.size()).fill(false), stack = [0];
    for (var i = 1; i < t.size(); i++) depth.push(depth[t.parent[i]] + 1);
    while (stack.length) {
      var node = stack.pop();
      while (path.length > depth[node]) {
        var g = path.pop();
        if (g >= 0) onPath.set(g, onPath.get(g) - 1);
      }
      var f = fn[node];
      if (f >= 0) {
        var count = onPath.get(f) || 0;
        isOut[node] = count === 0;
        onPath.set(f, count + 1);
      }
      path.push(f);
      var kids = t.kids[node];
      for (var k = kids.length - 1; k >= 0; k--) stack.push(kids[k]);
    }
    for (var n = 0; n < t.size(); n++) if (isOut[n]) out.push(n);
    return out;
  }

  function functions(t, src) {
    return t.kind.map(function (k) { return k < 0 ? -1 : src.kinds[k][0]; });
  }
  function contributing(t, fn, inclusive) {
    if (inclusive) return outermost(t, fn);
    var out = [];
    for (var n = 1; n < t.size(); n++) {
      for (var m = 0; m < t.metrics; m++) {
        if (t.self[m][n] !== 0) { out.push(n); break; }
      }
    }
    return out;
  }
  function valueRows(t, nodes, inclusive) {
    var per = [];
    for (var m = 0; m < t.metrics; m++) per.push(inclusive ? t.inclusive(m) : t.self[m]);
    return nodes.map(function (n) { return per.map(function (v) { return v[n]; }); });
  }

  // shapes.rs bottom_up: roots are functions, children their callers,
  // built level by level; groups narrower than min_fraction of the total
  // in every metric go to one "(narrower callers)" child.
  function bottomUp(t, src, inclusive) {
    var M = t.metrics, fn = functions(t, src);
    var nodes = contributing(t, fn, inclusive), rows = valueRows(t, nodes, inclusive);
    var out = new Tree(M);
    if (!inclusive) addRootless(t, out, [src.no_stack]);
    var live = nodes.map(function (n, k) { return { under: 0, next: n, k: k }; });
    var threshold = [];
    for (var m = 0; m < M; m++) {
      var grand = 0;
      live.forEach(function (o) { grand += rows[o.k][m]; });
      threshold.push(grand * src.min_fraction);
    }
    var work = 0;
    while (live.length) {
      if (work > BOTTOM_UP_WORK) break;
      work += live.length;
      live = bottomUpLevel(out, live, fn, src.narrow, rows, threshold, t);
    }
    live.forEach(function (o) {
      for (var m = 0; m < M; m++) out.addSelf(o.under, m, rows[o.k][m]);
    });
    return out;
  }

  function bottomUpLevel(out, live, fn, narrow, rows, threshold, t) {
    var M = threshold.length, groups = new Map(), keys = [], sums = [], groupOf = [];
    live.forEach(function (o) {
      var f = fn[o.next] < 0 ? 0 : fn[o.next];
      var key = o.under + ':' + f, g = groups.get(key);
      if (g === undefined) {
        g = keys.length;
        groups.set(key, g);
        keys.push([o.under, f]);
        for (var m = 0; m < M; m++) sums.push(0);
      }
      for (var m2 = 0; m2 < M; m2++) sums[g * M + m2] += rows[o.k][m2];
      groupOf.push(g);
    });
    var empty = [], wide = [], nodeOf = [];
    keys.forEach(function (key, g) {
      var e = true, w = false;
      for (var m = 0; m < M; m++) {
        var s = sums[g * M + m];
        if (s !== 0) e = false;
        if (s > 0 && s >= threshold[m]) w = true;
      }
      empty.push(e);
      wide.push(w);
      nodeOf.push(e ? 0 : out.child(key[0], w ? key[1] : narrow));
    });
    var next = [];
    live.forEach(function (o, i) {
      var g = groupOf[i];
      if (empty[g]) return;
      var caller = o.next === 0 ? 0 : t.parent[o.next];
      if (!wide[g] || fn[caller] < 0) {
        for (var m = 0; m < M; m++) out.addSelf(nodeOf[g], m, rows[o.k][m]);
      } else {
        next.push({ under: nodeOf[g], next: caller, k: o.k });
      }
    });
    return next;
  }

  // shapes.rs flat: module → file → function, each function's value
  // summed over its nodes (first-seen order).
  function flat(t, src, inclusive) {
    var M = t.metrics, fn = functions(t, src);
    var nodes = contributing(t, fn, inclusive);
    var inc = [];
    if (inclusive) for (var m = 0; m < M; m++) inc.push(t.inclusive(m));
    var slotOf = new Map(), firsts = [], sums = [];
    nodes.forEach(function (n) {
      if (t.kind[n] < 0 || fn[n] < 0) return;
      var slot = slotOf.get(fn[n]);
      if (slot === undefined) {
        slot = firsts.length;
        slotOf.set(fn[n], slot);
        firsts.push(t.kind[n]);
        for (var m = 0; m < M; m++) sums.push(0);
      }
      for (var m2 = 0; m2 < M; m2++) sums[slot * M + m2] += inclusive ? inc[m2][n] : t.self[m2][n];
    });
    var out = new Tree(M);
    if (!inclusive) addRootless(t, out, [src.no_stack, src.no_stack, src.no_stack]);
    firsts.forEach(function (k, slot) {
      var kind = src.kinds[k];
      out.addStack([kind[2], kind[1], kind[0]], sums.slice(slot * M, (slot + 1) * M));
    });
    return out;
  }

  // flame.rs choose_kept: the root, plus nodes at least minValue wide
  // whose parent is kept, largest first within maxNodes.
  function chooseKept(t, inc, maxNodes, minValue) {
    var threshold = -Infinity;
    if (maxNodes > 0 && maxNodes <= inc.length) {
      threshold = inc.slice().sort(function (a, b) { return b - a; })[maxNodes - 1];
    }
    var above = 0;
    inc.forEach(function (v) { if (v > threshold) above++; });
    var ties = Math.max(0, maxNodes - above), keep = new Array(inc.length).fill(false);
    keep[0] = true;
    for (var n = 1; n < inc.length; n++) {
      var v = inc[n];
      if (!keep[t.parent[n]] || v <= 0 || v < minValue) continue;
      if (v > threshold) keep[n] = true;
      else if (v === threshold && ties > 0) { ties--; keep[n] = true; }
    }
    return keep;
  }

  function subtreeSizes(t) {
    var sizes = new Array(t.size()).fill(1);
    for (var i = t.size() - 1; i >= 1; i--) sizes[t.parent[i]] += sizes[i];
    return sizes;
  }

  // flame.rs layout_with: rectangles in pre-order, kept children by name
  // (src.frames' order), the others summed into one remainder per parent.
  function layout(t, src, metric, maxFrames, minFraction) {
    var inc = t.inclusive(metric), total = inc[0], rects = [];
    var nodeBudget = Math.max(1, Math.floor(maxFrames * 4 / 5));
    var keep = chooseKept(t, inc, nodeBudget, minFraction * total);
    if (!(total > 0)) return rects;
    var kept = 0;
    keep.forEach(function (k) { if (k) kept++; });
    var remainder = Math.max(0, maxFrames - kept), sizes = null, stack = [[0, -1]];
    while (stack.length) {
      var top = stack.pop(), node = top[0], idx = rects.length;
      var depth = top[1] < 0 ? 0 : rects[top[1]].depth + 1;
      rects.push({ node: node, parent: top[1], depth: depth, total: inc[node], self: t.self[metric][node], merged: 0 });
      var dv = 0, dn = 0, children = [];
      t.kids[node].forEach(function (c) {
        if (inc[c] <= 0) return;
        if (keep[c]) { children.push(c); return; }
        dv += inc[c];
        dn += (sizes = sizes || subtreeSizes(t))[c];
      });
      // src.frames are in sibling order (by name, then frame id).
      children.sort(function (a, b) { return t.frame[a] - t.frame[b]; });
      if (dn > 0 && remainder > 0) {
        remainder--;
        rects.push({ node: -1, parent: idx, depth: depth + 1, total: dv, self: dv, merged: dn });
      }
      for (var k = children.length - 1; k >= 0; k--) stack.push([children[k], idx]);
    }
    return rects;
  }

  // flame_svg.rs colour_index: FNV-1a (64 bits) of the name's UTF-8
  // bytes, modulo the palette's 12 colours.
  var FNV_PRIME = BigInt('0x100000001b3'), FNV_MASK = (BigInt(1) << BigInt(64)) - BigInt(1);
  var colours = new Map();
  function colourIndex(name) {
    var c = colours.get(name);
    if (c !== undefined) return c;
    var h = BigInt('0xcbf29ce484222325');
    new TextEncoder().encode(name).forEach(function (b) { h = ((h ^ BigInt(b)) * FNV_PRIME) & FNV_MASK; });
    c = Number(h % BigInt(12));
    colours.set(name, c);
    return c;
  }

  // flame_view.rs significant: nine significant digits.
  function roundHalfAway(x) { return x < 0 ? -Math.round(-x) : Math.round(x); }
  function significant(v) {
    if (v % 1 === 0 || !isFinite(v) || v === 0) return v;
    var digits = 8 - Math.floor(Math.log10(Math.abs(v))), p;
    if (digits >= 0 && digits <= 300) { p = Math.pow(10, digits); return roundHalfAway(v * p) / p; }
    if (digits >= -300 && digits <= -1) { p = Math.pow(10, -digits); return roundHalfAway(v / p) * p; }
    return v;
  }

  // The frame rows of a derived graph, as flame_view.rs page_data writes
  // them: [parent, name, location, self / scale, total / scale, colour].
  // `names` are the page's; `nameOf(label)` gives the name index of a
  // merged box's label.
  function frames(src, names, derive, metric, scale, nameOf) {
    var t = sourceTree(src, 0), inclusive = derive.values === 'inclusive';
    var shaped = derive.shape === 'top-down' ? t
      : derive.shape === 'flat' ? flat(t, src, inclusive) : bottomUp(t, src, inclusive);
    var rects = layout(shaped, src, metric, derive.max_frames, src.min_fraction);
    return frameRows(rects, shaped, src, names, scale, nameOf);
  }
  function frameRows(rects, tree, src, names, scale, nameOf) {
    return rects.map(function (r, i) {
      var row = [r.parent, 0, 0, significant(r.self / scale), significant(r.total / scale), 0];
      if (i === 0) { row[1] = src.all; row[5] = -1; }
      else if (r.node < 0) { row[1] = nameOf('[' + r.merged + ' narrow frames merged]'); row[5] = -2; }
      else {
        var f = src.frames[tree.frame[r.node]];
        row[1] = f[0]; row[2] = f[1]; row[5] = colourIndex(names[f[0]]);
      }
      return row;
    });
  }

  // A differential page's graph (flame_diff_page.rs draw): the old and
  // new means of `metric` in the shape, merged by path, drawn on the
  // values of one version (flame_diff.rs Side: 'old', else the newer);
  // `diff` holds each frame's [old, new, old self, new self] (null for
  // the root and merged boxes), as decorate() writes it.
  function diffFrames(src, names, derive, metric, scale, nameOf, side) {
    var t = diffTree(src, metric, derive.shape);
    var inc = [t.inclusive(0), t.inclusive(1)];
    var rects = layout(t, src, side === 'old' ? 0 : 1, derive.max_frames, src.min_fraction);
    return {
      frames: frameRows(rects, t, src, names, scale, nameOf),
      diff: rects.map(function (r, i) {
        if (i === 0 || r.node < 0) return null;
        return [inc[0][r.node], inc[1][r.node], t.self[0][r.node], t.self[1][r.node]].map(significant);
      })
    };
  }

  // flame_diff.rs TABLE_METRIC: metric 2 of a differential tree (the
  // mean) orders and prunes the tree table's rows.
  var DIFF_TABLE = 2;

  // The old and new means of `metric` (trees 2m and 2m + 1) in `shape`,
  // merged (flame_diff.rs diff): metrics old, new and their mean, each
  // version divided by its total when the page compares shares.
  function diffTree(src, metric, shape) {
    var o = sourceTree(src, 2 * metric), n = sourceTree(src, 2 * metric + 1);
    if (shape === 'bottom-up') { o = bottomUp(o, src, false); n = bottomUp(n, src, false); }
    else if (shape === 'flat') { o = flat(o, src, false); n = flat(n, src, false); }
    var factor = [1, 1];
    if (src.diff.normalise) {
      factor = [o, n].map(function (t) {
        var total = 0;
        t.self[0].forEach(function (v) { total += v; });
        return total > 0 ? 1 / total : 0;
      });
    }
    var out = copyStructure(o, 3);
    out.self = [o.self[0].map(function (v) { return 0 + v * factor[0]; }), new Array(o.size()).fill(0),
      o.self[0].map(function (v) { return 0 + v * (factor[0] / 2); })];
    var mapped = [0];
    for (var i = 1; i < n.size(); i++) mapped.push(out.child(mapped[n.parent[i]], n.frame[i]));
    for (var j = 0; j < n.size(); j++) {
      var v = n.self[0][j] * factor[1];
      if (v !== 0) {
        out.addSelf(mapped[j], 1, v);
        out.addSelf(mapped[j], 2, v / 2);
      }
    }
    return out;
  }

  // An aggregate page's merged tree of `metric` (aggregate.rs aggregate,
  // shapes.rs merge): the profiles' values, merged by path, then their
  // mean (metric `count`).
  function aggregateTree(src, metric) {
    var parts = src.agg[metric], count = parts.length;
    var trees = parts.map(function (p) {
      var t = sourceTree(src, p[0]);
      t.self = [t.self[p[1]]];
      t.metrics = 1;
      return t;
    });
    var first = trees[0], out = copyStructure(first, count + 1), zeros = function () {
      return new Array(first.size()).fill(0);
    };
    out.self = [];
    for (var k = 0; k <= count; k++) out.self.push(zeros());
    out.self[0] = first.self[0].map(function (v) { return 0 + v * 1; });
    out.self[count] = first.self[0].map(function (v) { return 0 + v * (1 / count); });
    trees.slice(1).forEach(function (t, i) {
      var mapped = [0];
      for (var n = 1; n < t.size(); n++) mapped.push(out.child(mapped[t.parent[n]], t.frame[n]));
      for (var n2 = 0; n2 < t.size(); n2++) {
        var v = t.self[0][n2] * 1;
        if (v !== 0) {
          out.addSelf(mapped[n2], i + 1, v);
          out.addSelf(mapped[n2], count, v / count);
        }
      }
    });
    out.count = count;
    return out;
  }

  // An aggregate page's graph (aggregate_page.rs): the mean's frames, and
  // each frame's inclusive value in each profile (null for merged boxes).
  function aggregateFrames(src, names, derive, metric, scale, nameOf) {
    var t = aggregateTree(src, metric), inc = [];
    for (var k = 0; k < t.count; k++) inc.push(t.inclusive(k));
    var rects = layout(t, src, t.count, derive.max_frames, src.min_fraction);
    return {
      frames: frameRows(rects, t, src, names, scale, nameOf),
      values: rects.map(function (r) {
        return r.node < 0 ? null : inc.map(function (v) { return v[r.node]; });
      })
    };
  }

  // aggregate.rs stats: sum, min, max and mean of a frame's values.
  function stats(values) {
    if (!values.length) return { sum: 0, min: 0, max: 0, mean: 0 };
    var sum = 0, min = Infinity, max = -Infinity;
    values.forEach(function (v) { sum += v; min = Math.min(min, v); max = Math.max(max, v); });
    return { sum: sum, min: min, max: max, mean: sum / values.length };
  }

  // The rows of an aggregate page's tree table (aggregate_page.rs table):
  // mean, min, max and sum, pruned by the mean, then each row's value in
  // each profile (null for merged rows).
  function aggregateTableRows(src, entry, names, nameOf) {
    var t = aggregateTree(src, entry.derive.metric), inc = [];
    for (var k = 0; k < t.count; k++) inc.push(t.inclusive(k));
    var each = function (n) { return inc.map(function (v) { return v[n]; }); };
    var all = [];
    for (var n = 0; n < t.size(); n++) all.push(stats(each(n)));
    var columns = ['mean', 'min', 'max', 'sum'].map(function (key) {
      return all.map(function (s) { return s[key]; });
    });
    return treeTableRows(t, src, t.count, columns, 0, names, nameOf, {
      extra: function (n) { return n < 0 ? null : each(n).map(significant); }
    });
  }

  // A tree with a's nodes and no values, for `metrics` metrics.
  function copyStructure(a, metrics) {
    var out = new Tree(metrics);
    out.parent = a.parent.slice();
    out.frame = a.frame.slice();
    out.kids = a.kids.map(function (k) { return k.slice(); });
    out.index = a.kids.map(function (kids) {
      var index = new Map();
      kids.forEach(function (c) { index.set(a.frame[c], c); });
      return index;
    });
    return out;
  }

  // shapes.rs merge of two trees by path, its first 2 × M metrics: tree
  // a's values, then tree b's (the means after them are not needed here).
  function mergeTwo(a, b) {
    var M = a.metrics, out = copyStructure(a, 2 * M);
    out.self = [];
    for (var m = 0; m < M; m++) out.self.push(a.self[m].slice());
    for (var m2 = 0; m2 < M; m2++) out.self.push(new Array(a.size()).fill(0));
    var mapped = [0];
    for (var n = 1; n < b.size(); n++) mapped.push(out.child(mapped[b.parent[n]], b.frame[n]));
    for (var n2 = 0; n2 < b.size(); n2++) {
      for (var m3 = 0; m3 < M; m3++) {
        var v = b.self[m3][n2];
        if (v !== 0) out.addSelf(mapped[n2], M + m3, v);
      }
    }
    return out;
  }

  // tree_table.rs sibling_order: pre-order, siblings heaviest first by
  // `values` (ties in their order), merged ones last.
  function siblingOrder(parents, merged, values) {
    var kids = parents.map(function () { return []; }), roots = [], order = [];
    parents.forEach(function (p, i) { if (p < 0) roots.push(i); else kids[p].push(i); });
    kids.forEach(function (k) {
      k.sort(function (a, b) { return (merged[a] - merged[b]) || (values[b] - values[a]); });
    });
    var stack = roots.reverse();
    while (stack.length) {
      var i = stack.pop();
      order.push(i);
      for (var c = kids[i].length - 1; c >= 0; c--) stack.push(kids[i][c]);
    }
    return order;
  }
  // Rows in `order`, ids and parents renumbered.
  function reorder(rows, order) {
    var rowOf = [];
    order.forEach(function (old, i) { rowOf[old] = i; });
    return order.map(function (old) {
      var r = rows[old].slice();
      r[0] = r[0] < 0 ? -1 : rowOf[r[0]];
      return r;
    });
  }

  // tree_table.rs build: `tree` laid out by `metric` within the table
  // budget, a row per rectangle in pre-order with siblings heaviest first
  // and merged rows last: [parent, depth, name, location, merged,
  // cells…]. `columns` hold a value per node; a merged row carries its
  // total in column `pruned` only. `how.tag(node)` prefixes a name, and
  // `how.extra(node)` (-1 for a merged row) appends a cell.
  function treeTableRows(tree, src, metric, columns, pruned, names, nameOf, how) {
    var rects = layout(tree, src, metric, TABLE_ROWS, TABLE_MIN_FRACTION);
    var rows = rects.map(function (r, i) {
      var name = 'all', loc = 0;
      if (r.node < 0) name = '[' + r.merged + ' narrow frames merged]';
      else if (i > 0) {
        var f = src.frames[tree.frame[r.node]];
        name = (how.tag ? how.tag(r.node) : '') + names[f[0]];
        loc = f[1];
      }
      var row = [r.parent, r.depth, nameOf(name), loc, r.node < 0 ? 1 : 0];
      columns.forEach(function (c, k) {
        if (r.node >= 0) row.push(significant(c[r.node]));
        else row.push(k === pruned ? significant(r.total) : '');
      });
      if (how.extra) row.push(how.extra(r.node));
      return row;
    });
    return reorder(rows, siblingOrder(rects.map(function (r) { return r.parent; }),
      rows.map(function (r) { return r[4]; }), rects.map(function (r) { return r.total; })));
  }

  // Most rows of a tree table and the share below which contexts merge
  // (tree_table.rs MAX_ROWS and its budget).
  var TABLE_ROWS = 600, TABLE_MIN_FRACTION = 0.002;

  // The rows of a derived tree table (profile_page.rs table, written as
  // tree_table.rs script_table writes them): [parent, depth, name,
  // location, merged, cells…], an inclusive (total) and an exclusive
  // (self) column per metric, pruned by `metric`'s
  // inclusive one and sorted by entry.sorted_by.
  function tableRows(src, entry, names, nameOf) {
    if (src.diff) return diffTableRows(src, entry, names, nameOf);
    if (src.agg) return aggregateTableRows(src, entry, names, nameOf);
    var t = sourceTree(src, 0), M = t.metrics, columns = [], tree;
    if (entry.derive.shape === 'top-down') {
      // The profile's own tree: total and self per metric.
      tree = t;
      for (var k = 0; k < M; k++) columns.push(t.inclusive(k), t.self[k]);
    } else {
      var shape = entry.derive.shape === 'flat' ? flat : bottomUp;
      tree = mergeTwo(shape(t, src, true), shape(t, src, false));
      for (var m = 0; m < M; m++) {
        var inclusive = tree.inclusive(m);
        // The shares overlap: the root row shows the profile's total.
        inclusive[0] = entry.columns[2 * m].of;
        columns.push(inclusive, tree.inclusive(M + m));
      }
    }
    var metric = entry.derive.metric, pruned = 2 * metric;
    var rows = treeTableRows(tree, src, metric, columns, pruned, names, nameOf, {});
    if (entry.sorted_by !== pruned) {
      var k = 5 + entry.sorted_by;
      rows = reorder(rows, siblingOrder(rows.map(function (r) { return r[0]; }),
        rows.map(function (r) { return r[4]; }),
        rows.map(function (r) { return typeof r[k] === 'number' ? r[k] : 0; })));
    }
    return rows;
  }

  // flame_diff.rs Tag marks: added, deleted, grew, shrank, unchanged.
  function mark(o, n) {
    return o === 0 && n !== 0 ? '[A]' : n === 0 && o !== 0 ? '[D]' : n > o ? '[+]' : n < o ? '[−]' : '[=]';
  }

  // The rows of a differential page's tree table (flame_diff_page.rs
  // table): old, new, change, old self, new self, self change (in percent
  // of each total when the page compares shares), names tagged by the
  // inclusive change, pruned by the mean; merged rows carry no value.
  function diffTableRows(src, entry, names, nameOf) {
    var t = diffTree(src, entry.derive.metric, entry.derive.shape);
    var inc0 = t.inclusive(0), inc1 = t.inclusive(1), self0 = t.self[0], self1 = t.self[1];
    var shown = src.diff.normalise ? function (v) { return v * 100; } : function (v) { return v; };
    var change = function (a, b) { return a.map(function (o, i) { return b[i] - o; }); };
    var columns = [inc0, inc1, change(inc0, inc1), self0, self1, change(self0, self1)].map(function (c) {
      return c.map(shown);
    });
    return treeTableRows(t, src, DIFF_TABLE, columns, -1, names, nameOf, {
      tag: function (n) { return mark(significant(inc0[n]), significant(inc1[n])) + ' '; }
    });
  }

  // A repetition's views stored as their differences from another's
  // (json_delta.rs): in each string of `base` the name `from` is read as
  // `to`, then each change is made, a path of keys and indices followed
  // by the value found there (an empty path: the whole value). A change
  // that does not fit the base throws.
  function withDifferences(base, changes, from, to) {
    base = renamed(base, from, to);
    changes.forEach(function (change) {
      var at = base, last = change.length - 2;
      if (last < 0) { base = change[0]; return; }
      for (var i = 0; i < last; i++) at = at[change[i]];
      if (at === null || typeof at !== 'object' || !(change[last] in at)) throw new Error('a change that does not fit its base');
      at[change[last]] = change[last + 1];
    });
    return base;
  }
  function renamed(value, from, to) {
    if (typeof value === 'string') return from && value.indexOf(from) >= 0 ? value.split(from).join(to) : value;
    if (value && typeof value === 'object') for (var k in value) value[k] = renamed(value[k], from, to);
    return value;
  }

  var api = {
    frames: frames, diffFrames: diffFrames, aggregateFrames: aggregateFrames,
    tableRows: tableRows, significant: significant, colourIndex: colourIndex,
    withDifferences: withDifferences
  };
  if (typeof module === 'object' && module.exports) module.exports = api;
  else global.perfatlasShapes = api;
})(this);
