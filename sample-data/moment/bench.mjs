// bench.mjs - perfatlas sample workload for moment (npm package `moment`).
//
// Parses a fixed, deterministic batch of date strings the way an application
// that ingests user- or mail-supplied dates does, then formats the results:
//   * ISO 8601 strings            moment(string)            -> configFromISO
//   * RFC 2822 mail Date headers  moment(string)            -> configFromRFC2822 (2.18+)
//   * day/month/year text         moment(string, format)    -> configFromStringAndFormat
//   * long malformed headers: a Date header followed by ~7 000 unmatched "("
//     (the input shape of CVE-2022-31129)                    moment(string)
// Every parsed moment is checked with isValid() and formatted with format().
// The harness is copied next to each installed release
// (/tmp/pa-js/install/<VERSION>/bench.mjs), so `import moment from "moment"`
// resolves to /tmp/pa-js/install/<VERSION>/node_modules/moment/moment.js.
import moment from "moment";

moment.suppressDeprecationWarnings = true; // the Date() fallback warns otherwise

const ROUNDS = 25;
const LONG = 30;          // long malformed strings per run
const LONG_OPEN = 7000;   // unmatched "(" per long string (~7 KB each)

const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad = (n, w = 2) => String(n).padStart(w, "0");

// Deterministic pseudo-random numbers (LCG), so every run parses the same input.
let seed = 12345;
const rnd = (n) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};

const iso = [], rfc = [], dmy = [], long = [];
for (let i = 0; i < 400; i++) {
  const y = 1990 + rnd(40), mo = 1 + rnd(12), d = 1 + rnd(28);
  const h = rnd(24), mi = rnd(60), s = rnd(60);
  const date = new Date(Date.UTC(y, mo - 1, d));
  iso.push(i % 3 === 0
    ? `${y}-${pad(mo)}-${pad(d)}`
    : i % 3 === 1
      ? `${y}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}Z`
      : `${y}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}.${pad(rnd(1000), 3)}+0${rnd(10)}:00`);
  rfc.push(`${days[date.getUTCDay()]}, ${d} ${months[mo - 1]} ${y} ${pad(h)}:${pad(mi)}:${pad(s)} ` +
    (i % 2 ? "+0000" : "GMT") + (i % 4 === 0 ? " (UTC)" : ""));
  dmy.push(`${pad(d)}/${pad(mo)}/${y} ${pad(h)}:${pad(mi)}`);
}
for (let i = 0; i < LONG; i++) {
  long.push(`${rfc[i]} ` + "(".repeat(LONG_OPEN + 20 * i));
}

let valid = 0, chars = 0;
const use = (m) => {
  if (m.isValid()) {
    valid++;
    chars += m.format("YYYY-MM-DD HH:mm:ss").length;
  }
};
for (let r = 0; r < ROUNDS; r++) {
  for (const s of iso) use(moment(s));
  for (const s of rfc) use(moment(s));
  for (const s of dmy) use(moment(s, "DD/MM/YYYY HH:mm"));
}
for (const s of long) use(moment(s));

console.log(`moment ${moment.version}: ${valid} valid dates, ${chars} chars formatted`);
