// SPDX-License-Identifier: GPL-2.0
// work.js [SECONDS]: the JS workload of the node test and bench: builds words,
// counts them in a Map, rewrites them with a regex, sorts, round-trips JSON,
// for SECONDS (default 3, at least 3 rounds); prints a checksum of three
// fixed rounds, so the output is the same in every mode.
function work(n) {
  let acc = 0;
  const words = [];
  for (let i = 0; i < n; i++) words.push('w' + ((i * 2654435761) % 100003).toString(36));
  const m = new Map();
  for (const w of words) m.set(w, (m.get(w) || 0) + 1);
  const objs = [...m.entries()].map(([k, v]) => ({ k, v, s: k.replace(/[aeiou]/g, 'x') }));
  objs.sort((a, b) => a.s < b.s ? -1 : a.s > b.s ? 1 : a.v - b.v);
  const text = JSON.stringify(objs);
  const back = JSON.parse(text);
  for (const o of back) acc = (acc * 31 + o.v + o.s.length) % 1000000007;
  return acc;
}
const secs = Number(process.argv[2] || 3);
const t0 = Date.now();
let r = 0, rounds = 0;
while (Date.now() - t0 < secs * 1000 || rounds < 3) { r = work(20000 + rounds); rounds++; }
const rr = []; for (let i = 0; i < 3; i++) rr.push(work(20000 + i));
console.log('result', rr.join(' '));
