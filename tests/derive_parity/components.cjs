// Compares, on built sites, the call graphs and execution timelines a
// component page's script draws (assets/component.js) with the SVG
// perfatlas draws for the same section (callgraph_svg.rs, timeline_svg.rs),
// which a build with PERFATLAS_TEST_SHIP_DERIVED stores after each drawing's
// place in a <template class="pa-ref">. Run by tests/derive_parity.rs:
//
//   node tests/derive_parity/components.cjs SITE_DIR [SITE_DIR…]
//
// The script's input is read from the page as a browser would (the table
// of callers and callees, `data-s`, the block's name, the version's
// heading), here with regular expressions over the HTML perfatlas writes.
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

function neighbours(tbody) {
  const rows = [];
  const re = /<tr><td>([\s\S]*?)<\/td><td class="e-(\w+)">\w+<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g;
  let m;
  while ((m = re.exec(tbody))) {
    const a = /^<a href="([^"]*)">/.exec(m[1]);
    rows.push({
      name: textOf(m[1]), href: a ? unescape(a[1]) : null, state: m[2],
      value: unescape(m[2] === 'deleted' ? m[4] : m[3]),
    });
  }
  return rows;
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
      let before = null;
      for (const section of block.split('<section class="pa-version').slice(1)) {
        const id = unescape(/ id="([^"]*)"/.exec(section)[1]);
        const where = `${path.relative(site, file)} [${id}]`;
        const label = textOf(/^[^>]*>\s*<h[234]>([^<]*)/.exec(section)[1]);
        const refs = [...section.matchAll(/<template class="pa-ref">([\s\S]*?)<\/template>/g)].map((m) => m[1]);
        if (section.includes('<div class="pa-cg-wrap"></div>')) {
          graphs++;
          const table = /<table class="pa-table pa-ct" data-n="(\d+) (\d+)">([\s\S]*?)<\/table>/.exec(section);
          const n = table ? [Number(table[1]), Number(table[2])] : [0, 0];
          const bodies = table ? table[3].split('<tbody>').slice(1) : ['', ''];
          const left = neighbours(bodies[0]), right = neighbours(bodies[1]);
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
