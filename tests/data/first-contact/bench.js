'use strict';
// Usage: node bench.js <path-to-node_modules/marked> [seconds]
// Builds a deterministic ~200 KB markdown document and converts it to HTML
// in a loop for ~1.5 s of CPU time.
const path = require('path');

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node bench.js <install-dir/node_modules/marked> [seconds]');
  process.exit(2);
}
const seconds = Number(process.argv[3] || 1.5);

// Load the package's CommonJS entry (exports "default" condition).
const pkg = require(path.join(path.resolve(dir), 'package.json'));
let entry = pkg.main;
const ex = pkg.exports && pkg.exports['.'];
if (ex && typeof ex === 'object') {
  let d = ex.default;
  if (d && typeof d === 'object') d = d.default;
  if (typeof d === 'string') entry = d;
}
const lib = require(path.join(path.resolve(dir), entry));
const m = lib.marked ?? lib.parse ?? lib;
const parse = typeof m === 'function' ? m : m.parse;
if (typeof parse !== 'function') throw new Error('no parse function in ' + dir);

// Deterministic PRNG (mulberry32) so every version sees the same document.
function rng(seed) {
  return function () {
    seed |= 0; seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const r = rng(42);
const WORDS = ('lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod ' +
  'tempor incididunt ut labore et dolore magna aliqua profile sample heap flame ' +
  'version regression baseline median variance').split(' ');
const pick = (a) => a[Math.floor(r() * a.length)];
function sentence(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const w = pick(WORDS);
    const k = r();
    if (k < 0.06) out.push('**' + w + '**');
    else if (k < 0.12) out.push('_' + w + '_');
    else if (k < 0.16) out.push('`' + w + '()`');
    else if (k < 0.20) out.push('[' + w + '](https://example.com/' + w + '?q=' + i + ')');
    else out.push(w);
  }
  return out.join(' ') + '.';
}
function section(i) {
  let s = '## Section ' + i + ': ' + sentence(3) + '\n\n';
  s += sentence(40) + '\n' + sentence(30) + '\n\n';
  s += '### Details ' + i + '\n\n';
  for (let j = 0; j < 5; j++) s += '- ' + sentence(8) + '\n';
  s += '  1. nested ' + sentence(5) + '\n  2. nested ' + sentence(5) + '\n\n';
  s += '> ' + sentence(20) + '\n\n';
  s += '```js\nfunction f' + i + '(x) {\n  return x * ' + i + ' + ' + Math.floor(r() * 100) + ';\n}\n```\n\n';
  s += '| name | value | note |\n| --- | ---: | :--- |\n';
  for (let j = 0; j < 4; j++) s += '| ' + pick(WORDS) + ' | ' + Math.floor(r() * 1000) + ' | ' + sentence(4) + ' |\n';
  s += '\n' + sentence(25) + ' <https://example.org/' + i + '>\n\n---\n\n';
  return s;
}
let doc = '# Benchmark document\n\n';
for (let i = 0; doc.length < 200 * 1024; i++) doc += section(i);

// Loop for ~`seconds` of CPU time.
const start = process.cpuUsage();
let iterations = 0, bytes = 0;
while (true) {
  bytes += parse(doc).length;
  iterations++;
  const u = process.cpuUsage(start);
  if ((u.user + u.system) / 1e6 >= seconds) break;
}
console.log(JSON.stringify({ marked: pkg.version, docBytes: doc.length, iterations, htmlBytes: bytes / iterations }));
