// Writes decoding vectors for the hand-written IDLs in offline/idl, made by independent
// implementations: Meteora's own IDL and Anchor's instruction coder (@meteora-ag/dlmm,
// @coral-xyz/anchor) for meteora_dlmm.json, and the Phoenix SDK's instruction builders
// (@ellipsis-labs/phoenix-sdk) for phoenix_v1.json. Each vector holds the instruction data and
// account flags the oracle produced and the arguments it was given, written the way airlock's
// decoder reports them (integers of 8 bytes or more as decimal strings, byte arrays as hex,
// enums as {"variant", "fields"}, options as null or the value). It also checks the interface itself:
// every instruction and type our DLMM file declares must equal Meteora's published IDL.
//
// usage: node idl_vectors.mjs IDL_DIR OUT.json   (exit 1, naming each difference, on mismatch)
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

// The CommonJS builds: @meteora-ag/dlmm's ES module build imports a directory, which Node
// refuses.
const require = createRequire(import.meta.url);
const anchor = require("@coral-xyz/anchor");
const dlmm = require("@meteora-ag/dlmm");
const phoenix = require("@ellipsis-labs/phoenix-sdk");
const web3 = require("@solana/web3.js");

const [idlDir, outPath] = process.argv.slice(2);
if (!idlDir || !outPath) {
  console.error("usage: node idl_vectors.mjs IDL_DIR OUT.json");
  process.exit(2);
}
const ours = (name) => JSON.parse(fs.readFileSync(path.join(idlDir, name), "utf8"));
const problems = [];
const { BN } = anchor;

// --- The DLMM interface: our subset must be Meteora's IDL, instruction by instruction. ---
const meteora = dlmm.IDL;
const ourDlmm = ours("meteora_dlmm.json");
const withoutDocs = (v) => JSON.parse(JSON.stringify(v, (k, x) => (k === "docs" ? undefined : x)));
const flags = (a) => ({ name: a.name, writable: !!a.writable, signer: !!a.signer, optional: !!a.optional });
if (ourDlmm.address !== meteora.address) problems.push("DLMM program address differs");
for (const ix of ourDlmm.instructions) {
  const ref = meteora.instructions.find((i) => i.name === ix.name);
  if (!ref) {
    problems.push(`DLMM: ${ix.name} is not in Meteora's IDL`);
    continue;
  }
  for (const [what, a, b] of [
    ["discriminator", ref.discriminator, ix.discriminator],
    ["accounts", ref.accounts.map(flags), ix.accounts.map(flags)],
    ["args", ref.args, ix.args],
  ]) {
    if (JSON.stringify(a) !== JSON.stringify(b)) problems.push(`DLMM: ${ix.name} ${what} differ`);
  }
}
for (const t of ourDlmm.types) {
  const ref = meteora.types.find((x) => x.name === t.name);
  if (!ref || JSON.stringify(withoutDocs(ref.type)) !== JSON.stringify(withoutDocs(t.type)))
    problems.push(`DLMM: type ${t.name} differs from Meteora's`);
}

// --- Values in airlock's decoded form, walked along an IDL type. ---
const camel = (s) => s.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
function expected(type, value, types, keyOf) {
  if (typeof type === "string") {
    if (["u64", "i64", "u128", "i128"].includes(type)) return BN.isBN(value) ? value.toString() : String(value);
    if (type === "pubkey") return value.toBase58();
    return value; // bool, small integers
  }
  if (type.option !== undefined) return value === null || value === undefined ? null : expected(type.option, value, types, keyOf);
  if (type.vec !== undefined) return value.map((v) => expected(type.vec, v, types, keyOf));
  if (type.array !== undefined) {
    // Byte arrays are shown as hex, like bytes.
    if (type.array[0] === "u8") return Buffer.from(value).toString("hex");
    return Array.from(value).map((v) => expected(type.array[0], v, types, keyOf));
  }
  const name = typeof type.defined === "string" ? type.defined : type.defined.name;
  const def = types.find((t) => t.name === name).type;
  if (def.kind === "struct") return fields(def.fields, value, types, keyOf);
  // Enums: Anchor writes {Variant: {...}}, the Phoenix SDK {__kind: "Variant", ...} for data
  // enums and a number for plain ones.
  let variant;
  let body;
  if (typeof value === "number") {
    variant = def.variants[value];
  } else if (value.__kind !== undefined) {
    variant = def.variants.find((v) => v.name === value.__kind);
    body = value;
  } else {
    const key = Object.keys(value)[0];
    variant = def.variants.find((v) => v.name === key);
    body = value[key];
  }
  const out = { variant: variant.name };
  if (variant.fields && variant.fields.length) out.fields = fields(variant.fields, body, types, keyOf);
  return out;
}
function fields(list, value, types, keyOf) {
  const out = {};
  list.forEach((f, i) => {
    const named = typeof f === "object" && f.name !== undefined;
    const key = named ? f.name : String(i);
    const v = named ? value[keyOf(f.name)] : value[i] ?? value[String(i)];
    if (v === undefined && !(named && f.type.option)) throw new Error(`no value for ${key}`);
    out[key] = expected(named ? f.type : f, v, types, keyOf);
  });
  return out;
}

const vectors = [];

// --- DLMM: Anchor's coder over Meteora's IDL. ---
const coder = new anchor.BorshInstructionCoder(meteora);
const strategy = (type) => ({
  min_bin_id: -443636,
  max_bin_id: 443636,
  strategy_type: { [type]: {} },
  parameteres: Array.from({ length: 64 }, (_, i) => (i * 37) % 256),
});
const hooks = { slices: [{ accounts_type: { TransferHookX: {} }, length: 2 }, { accounts_type: { TransferHookMultiReward: { 0: 1 } }, length: 3 }] };
const dlmmCases = [
  ["initialize_position", { lower_bin_id: -70, width: 70 }],
  ["add_liquidity_by_strategy", { liquidity_parameter: { amount_x: new BN("18446744073709551615"), amount_y: new BN(0), active_id: -12, max_active_bin_slippage: 3, strategy_parameters: strategy("SpotBalanced") } }],
  ["add_liquidity_by_strategy2", { liquidity_parameter: { amount_x: new BN("250000000"), amount_y: new BN("30000000"), active_id: 5000, max_active_bin_slippage: 0, strategy_parameters: strategy("BidAskImBalanced") }, remaining_accounts_info: hooks }],
  ["add_liquidity_by_strategy_one_side", { liquidity_parameter: { amount: new BN("9007199254740993"), active_id: 1, max_active_bin_slippage: 2147483647, strategy_parameters: strategy("CurveOneSide") } }],
  ["add_liquidity", { liquidity_parameter: { amount_x: new BN(1), amount_y: new BN(2), bin_liquidity_dist: [{ bin_id: -1, distribution_x: 0, distribution_y: 10000 }, { bin_id: 0, distribution_x: 5000, distribution_y: 5000 }] } }],
  ["add_liquidity_by_weight", { liquidity_parameter: { amount_x: new BN(7), amount_y: new BN(8), active_id: 9, max_active_bin_slippage: 10, bin_liquidity_dist: [{ bin_id: 11, weight: 65535 }] } }],
  ["add_liquidity_one_side", { liquidity_parameter: { amount: new BN(5), active_id: -5, max_active_bin_slippage: 1, bin_liquidity_dist: [] } }],
  ["remove_liquidity", { bin_liquidity_removal: [{ bin_id: 4930, bps_to_remove: 10000 }, { bin_id: -4931, bps_to_remove: 1 }] }],
  ["remove_liquidity_by_range", { from_bin_id: 4930, to_bin_id: 4999, bps_to_remove: 5000 }],
  ["remove_liquidity_by_range2", { from_bin_id: -10, to_bin_id: 10, bps_to_remove: 10000, remaining_accounts_info: { slices: [] } }],
  ["remove_all_liquidity", {}],
  ["claim_fee", {}],
  ["claim_fee2", { min_bin_id: 1, max_bin_id: 69, remaining_accounts_info: hooks }],
  ["claim_reward", { reward_index: new BN(1) }],
  ["claim_reward2", { reward_index: new BN(0), min_bin_id: -3, max_bin_id: 3, remaining_accounts_info: { slices: [] } }],
  ["close_position", {}],
  ["close_position2", {}],
  ["close_position_if_empty", {}],
  ["swap", { amount_in: new BN("1000000000"), min_amount_out: new BN("995000") }],
  ["swap2", { amount_in: new BN(1), min_amount_out: new BN(0), remaining_accounts_info: hooks }],
  ["swap_exact_out", { max_in_amount: new BN("18446744073709551615"), out_amount: new BN(42) }],
  ["swap_exact_out2", { max_in_amount: new BN(3), out_amount: new BN(4), remaining_accounts_info: { slices: [] } }],
  ["place_limit_order", { params: { is_ask_side: true, padding: Array(16).fill(0), relative_bin: { active_id: 5000, max_active_bin_slippage: 4 }, bins: [{ id: 5001, amount: new BN("123456789") }, { id: 5002, amount: new BN(1) }] }, remaining_accounts_info: { slices: [] } }],
  ["place_limit_order", { params: { is_ask_side: false, padding: Array(16).fill(7), relative_bin: null, bins: [] }, remaining_accounts_info: hooks }],
  ["cancel_limit_order", { bins: [5001, -2, 0], remaining_accounts_info: { slices: [] } }],
  ["close_limit_order_if_empty", {}],
];
for (const [name, args] of dlmmCases) {
  const data = coder.encode(name, args);
  // The coder fills absent fields with zeros; decoding back proves every given field was used.
  const back = coder.decode(data);
  if (!back || back.name !== name) problems.push(`DLMM: ${name} did not decode back`);
  const ix = meteora.instructions.find((i) => i.name === name);
  vectors.push({
    program: meteora.address,
    instruction: name,
    data: data.toString("hex"),
    accounts: ix.accounts.map((a) => ({ writable: !!a.writable, signer: !!a.signer })),
    args: fields(ix.args, args, meteora.types, (n) => n),
  });
}

// --- Phoenix: the SDK's instruction builders. ---
const ourPhoenix = ours("phoenix_v1.json");
const key = (i) => new web3.PublicKey(Buffer.alloc(32, i + 1));
const accountsFor = (n) => Object.fromEntries(
  ["phoenixProgram", "logAuthority", "market", "trader", "seat", "baseAccount", "quoteAccount", "baseVault", "quoteVault", "tokenProgram", "payer", "systemProgram"].map((k, i) => [k, key(i)]),
);
const { Side, SelfTradeBehavior, FailedMultipleLimitOrderBehavior } = phoenix;
const postOnly = { __kind: "PostOnly", side: Side.Ask, priceInTicks: new BN("18446744073709551615"), numBaseLots: new BN(12), clientOrderId: new BN("340282366920938463463374607431768211455"), rejectPostOnly: true, useOnlyDepositedFunds: false, lastValidSlot: new BN(300000000), lastValidUnixTimestampInSeconds: null, failSilentlyOnInsufficientFunds: true };
const limit = { __kind: "Limit", side: Side.Bid, priceInTicks: new BN(1550), numBaseLots: new BN(1000), selfTradeBehavior: SelfTradeBehavior.DecrementTake, matchLimit: new BN(5), clientOrderId: new BN(77), useOnlyDepositedFunds: true, lastValidSlot: null, lastValidUnixTimestampInSeconds: new BN(1795000000), failSilentlyOnInsufficientFunds: false };
const ioc = { __kind: "ImmediateOrCancel", side: Side.Bid, priceInTicks: null, numBaseLots: new BN(0), numQuoteLots: new BN(5000000), minBaseLotsToFill: new BN(49), minQuoteLotsToFill: new BN(0), selfTradeBehavior: SelfTradeBehavior.CancelProvide, matchLimit: null, clientOrderId: new BN(0), useOnlyDepositedFunds: false, lastValidSlot: null, lastValidUnixTimestampInSeconds: null };
const condensed = (p, s, slot) => ({ priceInTicks: new BN(p), sizeInBaseLots: new BN(s), lastValidSlot: slot === null ? null : new BN(slot), lastValidUnixTimestampInSeconds: null });
const cancel = (side, p, n) => ({ side, priceInTicks: new BN(p), orderSequenceNumber: new BN(n) });
const phoenixCases = [
  ["swap", phoenix.createSwapInstruction, { orderPacket: ioc }],
  ["swap_with_free_funds", phoenix.createSwapWithFreeFundsInstruction, { orderPacket: { ...ioc, priceInTicks: new BN(99), side: Side.Ask } }],
  ["place_limit_order", phoenix.createPlaceLimitOrderInstruction, { orderPacket: postOnly }],
  ["place_limit_order", phoenix.createPlaceLimitOrderInstruction, { orderPacket: limit }],
  ["place_limit_order_with_free_funds", phoenix.createPlaceLimitOrderWithFreeFundsInstruction, { orderPacket: limit }],
  ["reduce_order", phoenix.createReduceOrderInstruction, { params: { baseParams: cancel(Side.Ask, 1600, "9223372036854775808"), size: new BN(3) } }],
  ["reduce_order_with_free_funds", phoenix.createReduceOrderWithFreeFundsInstruction, { params: { baseParams: cancel(Side.Bid, 1, 2), size: new BN(4) } }],
  ["cancel_all_orders", phoenix.createCancelAllOrdersInstruction, null],
  ["cancel_all_orders_with_free_funds", phoenix.createCancelAllOrdersWithFreeFundsInstruction, null],
  ["cancel_up_to", phoenix.createCancelUpToInstruction, { params: { side: Side.Bid, tickLimit: new BN(1500), numOrdersToSearch: null, numOrdersToCancel: 4294967295 } }],
  ["cancel_up_to_with_free_funds", phoenix.createCancelUpToWithFreeFundsInstruction, { params: { side: Side.Ask, tickLimit: null, numOrdersToSearch: 10, numOrdersToCancel: null } }],
  ["cancel_multiple_orders_by_id", phoenix.createCancelMultipleOrdersByIdInstruction, { params: { orders: [cancel(Side.Bid, 1550, 17), cancel(Side.Ask, 1600, 18)] } }],
  ["cancel_multiple_orders_by_id_with_free_funds", phoenix.createCancelMultipleOrdersByIdWithFreeFundsInstruction, { params: { orders: [] } }],
  ["withdraw_funds", phoenix.createWithdrawFundsInstruction, { withdrawFundsParams: { quoteLotsToWithdraw: null, baseLotsToWithdraw: new BN(250) } }],
  ["deposit_funds", phoenix.createDepositFundsInstruction, { depositFundsParams: { quoteLotsToDeposit: new BN("5000000000"), baseLotsToDeposit: new BN(0) } }],
  ["request_seat", phoenix.createRequestSeatInstruction, null],
  ["place_multiple_post_only_orders", phoenix.createPlaceMultiplePostOnlyOrdersInstruction, { multipleOrderPacket: { bids: [condensed(1549, 10, null), condensed(1548, 20, 300000001)], asks: [condensed(1601, 5, null)], clientOrderId: new BN(9), failedMultipleLimitOrderBehavior: FailedMultipleLimitOrderBehavior.SkipOnInsufficientFundsAndFailOnCross } }],
  ["place_multiple_post_only_orders_with_free_funds", phoenix.createPlaceMultiplePostOnlyOrdersWithFreeFundsInstruction, { multipleOrderPacket: { bids: [], asks: [], clientOrderId: null, failedMultipleLimitOrderBehavior: FailedMultipleLimitOrderBehavior.FailOnInsufficientFundsAndAmendOnCross } }],
];
for (const [name, build, args] of phoenixCases) {
  const instruction = args === null ? build(accountsFor()) : build(accountsFor(), args);
  const ix = ourPhoenix.instructions.find((i) => i.name === name);
  if (!ix) {
    problems.push(`Phoenix: ${name} is not in phoenix_v1.json`);
    continue;
  }
  const flagsOf = (keys) => keys.map((k) => ({ writable: !!k.isWritable, signer: !!k.isSigner }));
  const theirs = flagsOf(instruction.keys);
  const mine = ix.accounts.map((a) => ({ writable: !!a.writable, signer: !!a.signer }));
  if (JSON.stringify(theirs) !== JSON.stringify(mine)) problems.push(`Phoenix: ${name} account flags differ from the SDK's`);
  vectors.push({
    program: instruction.programId.toBase58(),
    instruction: name,
    data: Buffer.from(instruction.data).toString("hex"),
    accounts: theirs,
    args: fields(ix.args, args ?? {}, ourPhoenix.types, camel),
  });
}

fs.writeFileSync(outPath, JSON.stringify({ vectors }, null, 1));
for (const p of problems) console.error("idl_vectors: " + p);
console.log(`idl_vectors: ${vectors.length} vectors, ${problems.length} problems`);
process.exit(problems.length ? 1 : 0);
