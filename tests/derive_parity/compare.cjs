// Compares, on built sites, the bottom-up and flat frames and tree-table
// rows a profile page's script derives (assets/shapes.js) with the ones
// perfatlas computed for the same graph or table, which a build with
// PERFATLAS_TEST_SHIP_DERIVED stores too. Run by tests/derive_parity.rs:
//
//   node tests/derive_parity/compare.cjs SITE_DIR [SITE_DIR…]
//
// Prints one line per site (pages, graphs and frames compared) and every
// difference; exits 1 on any difference or when nothing was compared.
'use strict';
const fs = require('fs');
const path = require('path');

const { htmlFiles } = require('./site_files.cjs');

function storedFrames(views, data) {
  if (data.frames) return data.frames;
  const f = views.frames[data.frames_at];
  if (Array.isArray(f)) return f;
  return views.frames[f.like].map((r, i) => [r[0], r[1], r[2], f.v[2 * i], f.v[2 * i + 1], r[5]]);
}

function onPage(v, page) {
  if (!page) return;
  if (v.base) v.names = page.names.slice(0, v.base[0]).concat(v.names);
  if (v.page_tree !== undefined && page.tree) {
    const tree = Object.assign({}, page.tree, { trees: [page.tree.trees[v.page_tree]] });
    delete tree.agg;
    delete tree.diff;
    v.tree = tree;
  }
}

let failed = false;
for (const site of process.argv.slice(2)) {
  const shapes = require(path.resolve(site, 'assets/shapes.js'));
  let pages = 0, graphs = 0, frames = 0, tables = 0, rows = 0, differences = 0, fromDifferences = 0;
  // A page's own views, and on an aggregate page each repetition's
  // (stored as the repetition's own page would store them, extending the
  // page's names and derived from the page's stored tree of it: joined
  // here as flame.js's onPage joins them).
  const viewSets = [];
  for (const file of htmlFiles(site)) {
    const html = fs.readFileSync(file, 'utf8');
    const re = /<script type="application\/json" (?:id="pa-views"|class="pa-rep-views" data-rep="([^"]*)"(?: data-like="([^"]*)")?)>([\s\S]*?)<\/script>/g;
    let page = null;
    const stored = {};
    for (let m; (m = re.exec(html));) {
      let views = JSON.parse(m[3]);
      if (m[1]) stored[m[1]] = m[3];
      // A repetition stored as its differences from another's, made
      // whole as flame.js makes it.
      if (m[2]) {
        views = shapes.withDifferences(JSON.parse(stored[m[2]]), views, m[2], m[1]);
        fromDifferences++;
      }
      if (!m[1]) page = views;
      else onPage(views, page);
      viewSets.push({ file: m[1] ? `${file}#rep=${m[1]}` : file, views });
    }
  }
  for (const { file, views } of viewSets) {
    if (!views.tree) continue;
    pages++;
    const names = views.names.slice();
    const compareFrames = (where, want, got) => {
      if (want.length !== got.length) {
        console.log(`${where}: ${got.length} frames derived, ${want.length} stored`);
        differences++;
      }
      const n = Math.min(want.length, got.length);
      for (let i = 0; i < n; i++) {
        const a = want[i], b = got[i];
        const same = a[0] === b[0] && views.names[a[1]] === names[b[1]] && a[2] === b[2] &&
          a[3] === b[3] && a[4] === b[4] && a[5] === b[5];
        frames++;
        if (!same) {
          differences++;
          if (differences <= 20) {
            console.log(`${where} frame ${i}: stored ${JSON.stringify([a[0], views.names[a[1]], a[2], a[3], a[4], a[5]])}` +
              ` derived ${JSON.stringify([b[0], names[b[1]], b[2], b[3], b[4], b[5]])}`);
          }
        }
      }
    };
    const nameOf = (label) => {
      let i = names.indexOf(label);
      if (i < 0) { names.push(label); i = names.length - 1; }
      return i;
    };
    for (const view of views.views) {
      for (const g of view.graphs) {
        if (!g.data.derive) continue;
        graphs++;
        const want = storedFrames(views, g.data);
        let got;
        if (views.tree.diff) {
          const d = shapes.diffFrames(views.tree, names, g.data.derive, view.metric, g.data.scale || 1, nameOf);
          got = d.frames;
          const same = JSON.stringify(d.diff) === JSON.stringify(g.data.diff);
          frames++;
          if (!same) {
            differences++;
            console.log(`${path.relative(site, file)} metric ${view.metric} ${g.data.derive.shape}: per-frame changes differ`);
            for (let i = 0; i < d.diff.length; i++) {
              if (JSON.stringify(d.diff[i]) !== JSON.stringify(g.data.diff[i])) {
                console.log(`  frame ${i}: stored ${JSON.stringify(g.data.diff[i])} derived ${JSON.stringify(d.diff[i])}`);
                break;
              }
            }
          }
        } else if (views.tree.agg) {
          const a = shapes.aggregateFrames(views.tree, names, g.data.derive, view.metric, g.data.scale || 1, nameOf);
          got = a.frames;
          frames++;
          if (JSON.stringify(a.values) !== JSON.stringify(g.data.agg.values)) {
            differences++;
            console.log(`${path.relative(site, file)} metric ${view.metric}: per-profile values differ`);
          }
        } else {
          got = shapes.frames(views.tree, names, g.data.derive, view.metric, g.data.scale || 1, nameOf);
        }
        const where = `${path.relative(site, file)} metric ${view.metric} ${g.data.derive.shape} ${g.data.derive.values}`;
        compareFrames(where, want, got);
        // A differential graph on the older version's widths (flame_diff.rs
        // Side::Old), which the page script draws when asked.
        if (views.tree.diff) {
          const older = g.data.older;
          graphs++;
          if (!older) {
            differences++;
            console.log(`${where}: no graph on the older widths stored`);
            continue;
          }
          const d = shapes.diffFrames(views.tree, names, g.data.derive, view.metric, older.scale || 1, nameOf, 'old');
          if (JSON.stringify(d.diff) !== JSON.stringify(older.diff)) {
            differences++;
            console.log(`${where} older widths: per-frame changes differ`);
          }
          compareFrames(`${where} older widths`, older.frames, d.frames);
        }
      }
    }
    for (const [k, t] of views.tables.entries()) {
      if (!t.derive) continue;
      tables++;
      const got = shapes.tableRows(views.tree, t, names, nameOf);
      const where = `${path.relative(site, file)} table ${k} (${t.caption}, metric ${t.derive.metric})`;
      if (got.length !== t.rows.length) {
        console.log(`${where}: ${got.length} rows derived, ${t.rows.length} stored`);
        differences++;
      }
      for (let i = 0; i < Math.min(got.length, t.rows.length); i++) {
        const a = t.rows[i].slice(), b = got[i].slice();
        a[2] = views.names[a[2]];
        b[2] = names[b[2]];
        rows++;
        if (JSON.stringify(a) !== JSON.stringify(b)) {
          differences++;
          if (differences <= 20) console.log(`${where} row ${i}: stored ${JSON.stringify(a)} derived ${JSON.stringify(b)}`);
        }
      }
    }
  }
  console.log(`${site}: ${pages} pages, ${graphs} graphs, ${frames} frames, ${tables} tables, ${rows} rows compared, ${differences} differences, ` +
    `${fromDifferences} repetitions made whole from their differences`);
  if (differences > 0 || graphs === 0 || tables === 0) failed = true;
}
process.exit(failed ? 1 : 0);
