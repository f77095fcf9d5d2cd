// Compares, on built sites, the call graphs and execution timelines a
// component page's script draws (assets/component.js) with the SVG
// perfatlas draws for the same section (callgraph_svg.rs, timeline_svg.rs),
// which a build with PERFATLAS_TEST_SHIP_DERIVED stores after each drawing's
// place in a <template class="pa-ref">. Run by tests/derive_parity.rs:
//
//   node tests/derive_parity/components.cjs SITE_DIR [SITE_DIR…]
//
// The script's input is read from the page as a browser would (the
// block's table of callers and callees by version, `data-s`, the block's
// name, the version's heading), here with regular expressions over the HTML perfatlas writes.
// Prints one line per site and every difference; exits 1 on any
// difference or when nothing was compared.
'use strict';
const fs = require('fs');
const path = require('path');

const { htmlFiles } = require('./site_files.cjs');

// Text as the browser reads it from HTML perfatlas escaped.
function unescape(s) {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (m, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]);
}
function textOf(html) { return unescape(html.replace(/<[^>]*>/g, '')); }

// The rows of one tbody of a block's table of callers and callees by
// version: each row's name cell and its version cells ({cls, text}).
function tableRows(tbody) {
  const rows = [];
  for (const m of tbody.matchAll(/<tr><td>([\s\S]*?)<\/td>((?:<td[^>]*>[^<]*<\/td>)*)<\/tr>/g)) {
    const a = /^<a href="([^"]*)">/.exec(m[1]);
    const cells = [...m[2].matchAll(/<td(?: class="([^"]*)")?>([^<]*)<\/td>/g)].map((c) => ({ cls: c[1] || '', text: unescape(c[2]) }));
    rows.push({ name: textOf(m[1]), href: a ? unescape(a[1]) : null, cells });
  }
  return rows;
}
// The neighbours version column `k` draws: `order` names the rows.
function neighbours(rows, k, order) {
  if (!order) return [];
  return order.split(' ').map((r) => {
    const row = rows[Number(r)], cell = row.cells[k];
    const state = cell.cls === 'e-added' ? 'added' : cell.cls === 'e-deleted' ? 'deleted' : 'kept';
    return { name: row.name, href: row.href, state, value: cell.text };
  });
}

let failed = false;
for (const site of process.argv.slice(2)) {
  const draw = require(path.resolve(site, 'assets/component.js'));
  let pages = 0, graphs = 0, timelines = 0, differences = 0;
  const compare = (where, got, want) => {
    if (got === want) return;
    differences++;
    if (differences > 20) return;
    let i = 0;
    while (i < got.length && got[i] === want[i]) i++;
    console.log(`${where}: differs at ${i}\n  script:   …${got.slice(Math.max(0, i - 60), i + 80)}\n  perfatlas: …${want.slice(Math.max(0, i - 60), i + 80)}`);
  };
  // Component pages are in the matrices' c/ folders.
  const componentPages = htmlFiles(site).filter((p) => p.includes(`${path.sep}c${path.sep}`));
  for (const file of componentPages) {
    const html = fs.readFileSync(file, 'utf8');
    const key = /id="pa-comp" data-edges="(\d+)" data-frames="(\d+)"/.exec(html);
    if (!key) continue;
    pages++;
    const limit = Number(key[1]), frames = Number(key[2]);
    // Each block: its matrix row's name, then its sections.
    const blocks = html.split('<div class="pa-mscroll pa-comp-row">').slice(1);
    for (const block of blocks) {
      const center = textOf(/<div class="pa-row"><div class="pa-name"[^>]*>([\s\S]*?)<\/div>/.exec(block)[1]);
      const head = block.split('<section class="pa-version')[0];
      const table = /<table class="pa-table pa-ct">([\s\S]*?)<\/table>/.exec(head);
      const columns = table ? [...table[1].matchAll(/<th data-n="(\d+) (\d+)" data-o="([^"]*)">/g)] : [];
      const bodies = table ? table[1].split('<tbody>').slice(1).map(tableRows) : [[], []];
      // Sections are those of the versions the component ran in; each
      // says its column (`data-k`), and its timeline is drawn over the
      // previous column's when that version has a section.
      let before = null, last = -2;
      for (const section of block.split('<section class="pa-version').slice(1)) {
        const k = Number(/ data-k="(\d+)"/.exec(section)[1]);
        if (k !== last + 1) before = null;
        last = k;
        const id = unescape(/ id="([^"]*)"/.exec(section)[1]);
        const where = `${path.relative(site, file)} [${id}]`;
        const label = textOf(/<summary>\s*<h[234]>([^<]*)/.exec(section)[1]);
        const refs = [...section.matchAll(/<template class="pa-ref">([\s\S]*?)<\/template>/g)].map((m) => m[1]);
        if (section.includes('<div class="pa-cg-wrap"></div>')) {
          graphs++;
          const col = columns[k];
          const n = col ? [Number(col[1]), Number(col[2])] : [0, 0];
          const order = col ? col[3].split('|') : ['', ''];
          const left = neighbours(bodies[0], k, order[0]), right = neighbours(bodies[1], k, order[1]);
          const svg = draw.callGraph(center, left.slice(0, limit), right.slice(0, limit),
            [Math.max(n[0] - limit, 0), Math.max(n[1] - limit, 0)], `calls of ${center} in ${label}`);
          compare(`${where} call graph`, draw.toXml(svg), refs.shift() || '');
        }
        const tl = /<div class="pa-tl-wrap" data-s="([^"]*)"><\/div>/.exec(section);
        const now = tl ? tl[1].split(' ').map(parseFloat) : null;
        if (now) {
          timelines++;
          const svg = draw.timeline(now, before, frames * 18, 48, `execution timeline of ${center}`);
          compare(`${where} timeline`, draw.toXml(svg), refs.shift() || '');
        }
        before = now;
      }
    }
  }
  console.log(`${site}: ${pages} pages, ${graphs} call graphs, ${timelines} timelines compared, ${differences} differences`);
  if (differences > 0 || graphs === 0) failed = true;
}
process.exit(failed ? 1 : 0);
