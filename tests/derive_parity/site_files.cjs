// The HTML pages of a built site, for the parity scripts beside this one.
'use strict';
const fs = require('fs');
const path = require('path');

function htmlFiles(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...htmlFiles(p));
    else if (e.name.endsWith('.html')) out.push(p);
  }
  return out;
}

module.exports = { htmlFiles };
