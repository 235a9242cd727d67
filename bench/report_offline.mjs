// Prints airlock's offline time per request next to the peer's for each case, and the ratio.
import { readFileSync } from 'node:fs';

const [ours, peer] = process.argv.slice(2).map((p) => JSON.parse(readFileSync(p, 'utf8')));
const fmt = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(3)} ms` : `${(ns / 1e3).toFixed(1)} µs`);
const runs = ours.benchmarks.filter((b) => b.run_type === 'iteration');
const nsOf = (run) => run.real_time * { ns: 1, us: 1e3, ms: 1e6, s: 1e9 }[run.time_unit];
for (const run of runs) {
  if (run.error_occurred) {
    console.error(`${run.name}: ${run.error_message}`);
    process.exit(1);
  }
  if (run.name.endsWith('_SignOnly')) continue;
  const oursNs = nsOf(run);
  const p = peer.cases[run.name];
  const signOnly = runs.find((r) => r.name === `${run.name}_SignOnly`);
  console.log(`${run.name} (${p.steps} step${p.steps > 1 ? 's' : ''})`);
  console.log(`  airlock, full review + sign       ${fmt(oursNs)} per request`);
  console.log(`  ${peer.peer.padEnd(33)}${fmt(p.ns_per_op)} per request (parse + sign only)`);
  console.log(`  ratio: airlock is ${(p.ns_per_op / oursNs).toFixed(1)}x the peer's speed while doing more`);
  if (signOnly) {
    const signNs = nsOf(signOnly);
    console.log(`  the signatures alone (same run)   ${fmt(signNs)}: the review takes ` +
                `${((oursNs - signNs) / signNs).toFixed(2)}x the signing time (goal: at most 2x)`);
  }
}
