// Writes vectors for the DLMM deposit pictures (offline/src/bins.cpp), made by an independent
// implementation: @meteora-ag/dlmm's toAmountsBothSideByStrategy, the SDK's own account of how a
// strategy deposit (spot, curve, bid-ask) spreads amount X and amount Y over a range of bins
// around the pool's active bin.
//
// Each vector is one deposit (range, active bin, shape, amounts, bin step) and, for each bin of
// the range, the SDK's amount of X and of Y there and the bin's price (Y per X). A picture's
// bars are each bin's share of a token's value, so the test compares its bars with the SDK's
// Y amounts and with its X amounts times the bin's price.
//
// The amounts are large and the bins near 0, so that no bin the SDK gives a share rounds to
// nothing. The mints have no transfer fee.
//
// usage: node dlmm_vectors.mjs OUT.json   (exit 1, naming each problem)
import fs from "node:fs";
import { createRequire } from "node:module";

// The CommonJS build, as idl_vectors.mjs loads it.
const require = createRequire(import.meta.url);
const dlmm = require("@meteora-ag/dlmm");
const BN = require("bn.js");

const [outPath] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: node dlmm_vectors.mjs OUT.json");
  process.exit(2);
}

const shapes = [
  ["Spot", dlmm.StrategyType.Spot],
  ["Curve", dlmm.StrategyType.Curve],
  ["BidAsk", dlmm.StrategyType.BidAsk],
];
// Which tokens are deposited: both, X alone, Y alone.
const amounts = [
  ["1000000000000000", "1000000000000000"],
  ["1000000000000000", "0"],
  ["0", "1000000000000000"],
];
const noFeeMint = { tlvData: Buffer.alloc(0) };
const clock = { epoch: new BN(0) };

const problems = [];
const vectors = [];
for (const width of [1, 2, 5, 21, 70, 140]) {
  const min = -Math.floor(width / 2);
  const max = min + width - 1;
  const middle = min + Math.floor(width / 2);
  // The active bin in the range (middle and each end) and outside it (next to it and apart).
  const actives = [...new Set([middle, min, max, min - 1, min - 10, max + 1, max + 10])];
  for (const active of actives) {
    for (const [shape, type] of shapes) {
      for (const [x, y] of amounts) {
        for (const binStep of [10, 100]) {
          let bins;
          try {
            bins = dlmm.toAmountsBothSideByStrategy(
              active, binStep, min, max, new BN(x), new BN(y), new BN(0), new BN(0), type,
              noFeeMint, noFeeMint, clock);
          } catch (e) {
            // The SDK has no account of this deposit; the picture is not compared.
            continue;
          }
          const byBin = new Map(bins.map((b) => [b.binId, b]));
          const out = [];
          for (let bin = min; bin <= max; ++bin) {
            const b = byBin.get(bin);
            out.push({
              bin,
              x: b ? b.amountX.toString() : "0",
              y: b ? b.amountY.toString() : "0",
              price: Number(dlmm.getPriceOfBinByBinId(bin, binStep).toString()),
            });
          }
          for (const b of bins) {
            if (b.binId < min || b.binId > max)
              problems.push(`${shape} ${min}..${max} active ${active}: bin ${b.binId} outside`);
          }
          vectors.push({ shape, min, max, active, amount_x: x, amount_y: y, bin_step: binStep,
                         bins: out });
        }
      }
    }
  }
}
if (vectors.length < 300) problems.push(`only ${vectors.length} vectors`);
if (problems.length) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
fs.writeFileSync(outPath, JSON.stringify({ vectors }));
console.log(`${vectors.length} vectors`);
