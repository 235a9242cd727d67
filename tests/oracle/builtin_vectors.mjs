// Writes decoding vectors for airlock's hand-written System Program and SPL Token decoders
// (offline/src/decode_builtin.cpp), made by independent implementations: the SystemProgram
// helpers of @solana/web3.js and the create*Instruction functions of @solana/spl-token, for
// both the Token and the Token-2022 program. Each vector holds the instruction data, the number
// of accounts the oracle produced and how many of them have a fixed role (the rest are a
// multisig's signers), and the arguments it was given, written the way airlock reports them
// (u64 as decimal strings, u8 as numbers, keys as base58, an empty COption as null, seeds as
// text, set_authority's authority type by name) and in the order of the library's own layout.
//
// Two SDK habits are kept apart: spl-token writes an empty COption<Pubkey> as the tag 0 and 32
// zero bytes, where the Rust client writes the tag alone. The programs read both (they ignore
// what follows the tag), so both forms are written; the SDK's is marked "padded_none".
//
// Instructions the libraries have no builder for are made by hand from their own tables and
// marked "by_hand": System upgrade_nonce_account (web3.js's layout 12), Token
// initialize_multisig2 and get_account_data_size (spl-token's TokenInstruction numbers).
//
// usage: node builtin_vectors.mjs OUT.json   (exit 1, naming each problem)
import fs from "node:fs";
import { createRequire } from "node:module";

// The CommonJS builds, as the other oracles load them.
const require = createRequire(import.meta.url);
const web3 = require("@solana/web3.js");
const spl = require("@solana/spl-token");

const [outPath] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: node builtin_vectors.mjs OUT.json");
  process.exit(2);
}
const problems = [];
const vectors = [];

// Fixed keys: key(i) is the public key of the Ed25519 seed of 32 bytes equal to i, and
// zeroKey is the all-zero key (the System Program's own id).
const key = (i) => web3.Keypair.fromSeed(new Uint8Array(32).fill(i)).publicKey;
const zeroKey = new web3.PublicKey(new Uint8Array(32));
const b58 = (k) => k.toBase58();
const U64_MAX = 18446744073709551615n;
const NEAR_MAX = Number.MAX_SAFE_INTEGER; // the most web3.js's ns64 fields hold exactly

const need = (obj, name, where) => {
  if (typeof obj[name] !== "function" && typeof obj[name] !== "object") {
    problems.push(`${where} has no ${name}`);
    return false;
  }
  return true;
};

// The order of the arguments airlock should report: the library's layout fields, without the
// tag and COption flags, renamed to airlock's names.
function layoutOrder(layout, rename) {
  return layout.fields
    .map((f) => f.property)
    .filter((p) => p !== "instruction" && !p.endsWith("Option"))
    .map((p) => rename[p] ?? p);
}

function add(program, instruction, ix, args, { named, order, extra = {} }) {
  const data = Buffer.from(ix.data);
  if (order && JSON.stringify(order) !== JSON.stringify(Object.keys(args)))
    problems.push(`${instruction}: arguments ${Object.keys(args)} are not in the layout's order ${order}`);
  if (!ix.programId.equals(program)) problems.push(`${instruction}: built for ${b58(ix.programId)}`);
  vectors.push({
    program: b58(program),
    instruction,
    data: data.toString("hex"),
    accounts: ix.keys.length,
    args,
    account_names_count: named ?? ix.keys.length,
    ...extra,
  });
}

// --- System Program: web3.js's SystemProgram helpers. ---
const S = web3.SystemProgram;
const L = web3.SYSTEM_INSTRUCTION_LAYOUTS;
for (const name of ["createAccount", "transfer", "assign", "createAccountWithSeed", "nonceAdvance", "nonceWithdraw", "nonceInitialize", "nonceAuthorize", "allocate"])
  need(S, name, "web3.js SystemProgram");
for (const name of ["Create", "Assign", "Transfer", "CreateWithSeed", "AdvanceNonceAccount", "WithdrawNonceAccount", "InitializeNonceAccount", "AuthorizeNonceAccount", "Allocate", "AllocateWithSeed", "AssignWithSeed", "TransferWithSeed", "UpgradeNonceAccount"])
  need(L, name, "web3.js SYSTEM_INSTRUCTION_LAYOUTS");
if (problems.length) {
  for (const p of problems) console.error("builtin_vectors: " + p);
  process.exit(1);
}
const sys = S.programId;
const owner = { programId: "owner" };
const seeds = ["", "a", "nonce", "seed with spaces", "ünïcødé ✓", "🔑", "0123456789abcdef0123456789abcdef"];

for (const [lamports, space, prog] of [[0, 0, zeroKey], [1, 165, key(40)], [NEAR_MAX, NEAR_MAX, key(41)]]) {
  const ix = S.createAccount({ fromPubkey: key(1), newAccountPubkey: key(2), lamports, space, programId: prog });
  add(sys, "create_account", ix, { lamports: String(lamports), space: String(space), owner: b58(prog) }, { order: layoutOrder(L.Create.layout, owner) });
}
for (const lamports of [0n, 1n, 2n ** 32n, U64_MAX]) {
  const ix = S.transfer({ fromPubkey: key(1), toPubkey: key(3), lamports });
  add(sys, "transfer", ix, { lamports: lamports.toString() }, { order: layoutOrder(L.Transfer.layout, {}) });
}
for (const prog of [zeroKey, key(42)]) {
  const ix = S.assign({ accountPubkey: key(4), programId: prog });
  add(sys, "assign", ix, { owner: b58(prog) }, { order: layoutOrder(L.Assign.layout, owner) });
}
seeds.forEach((seed, i) => {
  // web3.js adds the base account only when it is not the funding account.
  const base = i % 2 ? key(1) : key(5);
  const lamports = [0, 1, NEAR_MAX][i % 3];
  const ix = S.createAccountWithSeed({ fromPubkey: key(1), newAccountPubkey: key(6), basePubkey: base, seed, lamports, space: i * 1000, programId: key(43) });
  add(sys, "create_account_with_seed", ix,
    { base: b58(base), seed, lamports: String(lamports), space: String(i * 1000), owner: b58(key(43)) },
    { order: layoutOrder(L.CreateWithSeed.layout, owner) });
});
add(sys, "advance_nonce_account", S.nonceAdvance({ noncePubkey: key(7), authorizedPubkey: key(8) }), {}, { order: layoutOrder(L.AdvanceNonceAccount.layout, {}) });
for (const lamports of [0, 1, NEAR_MAX]) {
  const ix = S.nonceWithdraw({ noncePubkey: key(7), authorizedPubkey: key(8), toPubkey: key(9), lamports });
  add(sys, "withdraw_nonce_account", ix, { lamports: String(lamports) }, { order: layoutOrder(L.WithdrawNonceAccount.layout, {}) });
}
for (const auth of [key(8), zeroKey]) {
  const ix = S.nonceInitialize({ noncePubkey: key(7), authorizedPubkey: auth });
  add(sys, "initialize_nonce_account", ix, { authority: b58(auth) }, { order: layoutOrder(L.InitializeNonceAccount.layout, { authorized: "authority" }) });
}
const authorize = S.nonceAuthorize({ noncePubkey: key(7), authorizedPubkey: key(8), newAuthorizedPubkey: key(10) });
add(sys, "authorize_nonce_account", authorize, { new_authority: b58(key(10)) }, { order: layoutOrder(L.AuthorizeNonceAccount.layout, { authorized: "new_authority" }) });
for (const space of [0, 1, 10 * 1024 * 1024, NEAR_MAX]) {
  const ix = S.allocate({ accountPubkey: key(11), space });
  add(sys, "allocate", ix, { space: String(space) }, { order: layoutOrder(L.Allocate.layout, {}) });
}
seeds.forEach((seed, i) => {
  const space = [0, 1, NEAR_MAX][i % 3];
  const a = S.allocate({ accountPubkey: key(12), basePubkey: key(13), seed, space, programId: key(44) });
  add(sys, "allocate_with_seed", a, { base: b58(key(13)), seed, space: String(space), owner: b58(key(44)) },
    { order: layoutOrder(L.AllocateWithSeed.layout, owner) });
  const s = S.assign({ accountPubkey: key(12), basePubkey: key(13), seed, programId: i % 2 ? zeroKey : key(44) });
  add(sys, "assign_with_seed", s, { base: b58(key(13)), seed, owner: b58(i % 2 ? zeroKey : key(44)) },
    { order: layoutOrder(L.AssignWithSeed.layout, owner) });
  const lamports = [0n, 1n, U64_MAX][i % 3];
  const t = S.transfer({ fromPubkey: key(14), basePubkey: key(13), toPubkey: key(15), lamports, seed, programId: key(45) });
  add(sys, "transfer_with_seed", t, { lamports: lamports.toString(), from_seed: seed, from_owner: b58(key(45)) },
    { order: layoutOrder(L.TransferWithSeed.layout, { seed: "from_seed", programId: "from_owner" }) });
});
{
  // web3.js has the layout but no helper: the tag, encoded with its layout, and the nonce account.
  const type = L.UpgradeNonceAccount;
  const data = Buffer.alloc(type.layout.span);
  type.layout.encode({ instruction: type.index }, data);
  const ix = new web3.TransactionInstruction({ programId: sys, keys: [{ pubkey: key(7), isSigner: false, isWritable: true }], data });
  add(sys, "upgrade_nonce_account", ix, {}, { order: layoutOrder(type.layout, {}), extra: { by_hand: true } });
}

// --- SPL Token and Token-2022: spl-token's builders. ---
const builders = ["createInitializeAccountInstruction", "createTransferInstruction", "createApproveInstruction", "createRevokeInstruction", "createMintToInstruction", "createBurnInstruction", "createCloseAccountInstruction", "createFreezeAccountInstruction", "createThawAccountInstruction", "createTransferCheckedInstruction", "createApproveCheckedInstruction", "createMintToCheckedInstruction", "createBurnCheckedInstruction", "createSyncNativeInstruction", "createInitializeImmutableOwnerInstruction", "createAmountToUiAmountInstruction", "createInitializeMintInstruction", "createInitializeMint2Instruction", "createInitializeMultisigInstruction", "createSetAuthorityInstruction", "createInitializeAccount2Instruction", "createInitializeAccount3Instruction"];
for (const b of builders) need(spl, b, "spl-token");
for (const t of ["InitializeMultisig2", "GetAccountDataSize"])
  if (typeof spl.TokenInstruction[t] !== "number") problems.push(`spl-token's TokenInstruction has no ${t}`);
if (problems.length) {
  for (const p of problems) console.error("builtin_vectors: " + p);
  process.exit(1);
}
const authorityNames = ["mint_tokens", "freeze_account", "account_owner", "close_account"];
const camelToSnake = { mintAuthority: "mint_authority", freezeAuthority: "freeze_authority", authorityType: "authority_type", newAuthority: "new_authority" };
const amounts = [0n, 1n, 2n ** 53n + 1n, U64_MAX];
const signers = [key(30), key(31), key(32)];

// A COption<Pubkey> given as None: the SDK's 32 zero bytes dropped, as the Rust client writes it.
function rustNone(ix) {
  const data = Buffer.from(ix.data);
  if (!data.subarray(data.length - 32).equals(Buffer.alloc(32)) || data[data.length - 33] !== 0)
    problems.push("an empty COption is not the tag 0 and 32 zero bytes");
  return new web3.TransactionInstruction({ programId: ix.programId, keys: ix.keys, data: data.subarray(0, data.length - 32) });
}

for (const program of [spl.TOKEN_PROGRAM_ID, spl.TOKEN_2022_PROGRAM_ID]) {
  const [acct, mint, own, dest, deleg] = [key(20), key(21), key(22), key(23), key(24)];
  const plain = (name, ix, args, layout, named) => add(program, name, ix, args, { order: layoutOrder(layout, camelToSnake), named });
  // Each instruction with an owner or authority is built for a single signer and for a
  // multisig of three (named accounts first, then the signers).
  for (const multi of [[], signers]) {
    amounts.forEach((amount, i) => {
      const a = { amount: amount.toString() };
      plain("transfer", spl.createTransferInstruction(acct, dest, own, amount, multi, program), a, spl.transferInstructionData, 3);
      plain("approve", spl.createApproveInstruction(acct, deleg, own, amount, multi, program), a, spl.approveInstructionData, 3);
      plain("mint_to", spl.createMintToInstruction(mint, dest, own, amount, multi, program), a, spl.mintToInstructionData, 3);
      plain("burn", spl.createBurnInstruction(acct, mint, own, amount, multi, program), a, spl.burnInstructionData, 3);
      const decimals = [0, 1, 9, 255][i];
      const c = { amount: amount.toString(), decimals };
      plain("transfer_checked", spl.createTransferCheckedInstruction(acct, mint, dest, own, amount, decimals, multi, program), c, spl.transferCheckedInstructionData, 4);
      plain("approve_checked", spl.createApproveCheckedInstruction(acct, mint, deleg, own, amount, decimals, multi, program), c, spl.approveCheckedInstructionData, 4);
      plain("mint_to_checked", spl.createMintToCheckedInstruction(mint, dest, own, amount, decimals, multi, program), c, spl.mintToCheckedInstructionData, 3);
      plain("burn_checked", spl.createBurnCheckedInstruction(acct, mint, own, amount, decimals, multi, program), c, spl.burnCheckedInstructionData, 3);
    });
    plain("revoke", spl.createRevokeInstruction(acct, own, multi, program), {}, spl.revokeInstructionData, 2);
    plain("close_account", spl.createCloseAccountInstruction(acct, dest, own, multi, program), {}, spl.closeAccountInstructionData, 3);
    plain("freeze_account", spl.createFreezeAccountInstruction(acct, mint, own, multi, program), {}, spl.freezeAccountInstructionData, 3);
    plain("thaw_account", spl.createThawAccountInstruction(acct, mint, own, multi, program), {}, spl.thawAccountInstructionData, 3);
    for (let t = 0; t < 4; t++) {
      const withKey = spl.createSetAuthorityInstruction(acct, own, t, key(25 + t), multi, program);
      plain("set_authority", withKey, { authority_type: authorityNames[t], new_authority: b58(key(25 + t)) }, spl.setAuthorityInstructionData, 2);
      const none = spl.createSetAuthorityInstruction(acct, own, t, null, multi, program);
      const args = { authority_type: authorityNames[t], new_authority: null };
      add(program, "set_authority", none, args, { order: layoutOrder(spl.setAuthorityInstructionData, camelToSnake), named: 2, extra: { padded_none: true } });
      add(program, "set_authority", rustNone(none), args, { named: 2 });
    }
  }
  amounts.forEach((amount) =>
    plain("amount_to_ui_amount", spl.createAmountToUiAmountInstruction(mint, amount, program), { amount: amount.toString() }, spl.amountToUiAmountInstructionData, 1));
  plain("initialize_account", spl.createInitializeAccountInstruction(acct, mint, own, program), {}, spl.initializeAccountInstructionData, 4);
  plain("initialize_account2", spl.createInitializeAccount2Instruction(acct, mint, own, program), { owner: b58(own) }, spl.initializeAccount2InstructionData, 3);
  plain("initialize_account3", spl.createInitializeAccount3Instruction(acct, mint, own, program), { owner: b58(own) }, spl.initializeAccount3InstructionData, 2);
  plain("initialize_account3", spl.createInitializeAccount3Instruction(acct, mint, zeroKey, program), { owner: b58(zeroKey) }, spl.initializeAccount3InstructionData, 2);
  plain("sync_native", spl.createSyncNativeInstruction(acct, program), {}, spl.syncNativeInstructionData, 1);
  plain("initialize_immutable_owner", spl.createInitializeImmutableOwnerInstruction(acct, program), {}, spl.initializeImmutableOwnerInstructionData, 1);
  for (const [name, build, layout, fixed] of [
    ["initialize_mint", spl.createInitializeMintInstruction, spl.initializeMintInstructionData, 2],
    ["initialize_mint2", spl.createInitializeMint2Instruction, spl.initializeMint2InstructionData, 1],
  ]) {
    for (const decimals of [0, 6, 9, 255]) {
      const freeze = decimals === 9 ? key(26) : decimals === 255 ? zeroKey : null;
      const ix = build(mint, decimals, own, freeze, program);
      const args = { decimals, mint_authority: b58(own), freeze_authority: freeze ? b58(freeze) : null };
      if (freeze) {
        plain(name, ix, args, layout, fixed);
      } else {
        add(program, name, ix, args, { order: layoutOrder(layout, camelToSnake), named: fixed, extra: { padded_none: true } });
        add(program, name, rustNone(ix), args, { named: fixed });
      }
    }
  }
  // The multisig account and (InitializeMultisig only) the rent sysvar, then the signers, which
  // are accounts too.
  for (const m of [1, 2, 3]) {
    const ix = spl.createInitializeMultisigInstruction(acct, signers, m, program);
    plain("initialize_multisig", ix, { m }, spl.initializeMultisigInstructionData, 2);
    // InitializeMultisig2 has no builder: the same data with tag 19, and no rent sysvar.
    const data = Buffer.from(ix.data);
    data[0] = spl.TokenInstruction.InitializeMultisig2;
    const keys = ix.keys.filter((k) => !k.pubkey.equals(web3.SYSVAR_RENT_PUBKEY));
    add(program, "initialize_multisig2", new web3.TransactionInstruction({ programId: program, keys, data }), { m }, { named: 1, extra: { by_hand: true } });
  }
  // GetAccountDataSize has no builder: the tag alone (no Token-2022 extension types) and the mint.
  add(program, "get_account_data_size",
    new web3.TransactionInstruction({ programId: program, keys: [{ pubkey: mint, isSigner: false, isWritable: false }], data: Buffer.from([spl.TokenInstruction.GetAccountDataSize]) }),
    {}, { named: 1, extra: { by_hand: true } });
}

// Every instruction airlock decodes for these programs must have at least one vector.
const wanted = {
  [b58(sys)]: ["create_account", "assign", "transfer", "create_account_with_seed", "advance_nonce_account", "withdraw_nonce_account", "initialize_nonce_account", "authorize_nonce_account", "allocate", "allocate_with_seed", "assign_with_seed", "transfer_with_seed", "upgrade_nonce_account"],
};
const tokenNames = ["initialize_mint", "initialize_account", "initialize_multisig", "transfer", "approve", "revoke", "set_authority", "mint_to", "burn", "close_account", "freeze_account", "thaw_account", "transfer_checked", "approve_checked", "mint_to_checked", "burn_checked", "initialize_account2", "sync_native", "initialize_account3", "initialize_multisig2", "initialize_mint2", "get_account_data_size", "initialize_immutable_owner", "amount_to_ui_amount"];
wanted[b58(spl.TOKEN_PROGRAM_ID)] = tokenNames;
wanted[b58(spl.TOKEN_2022_PROGRAM_ID)] = tokenNames;
for (const [program, names] of Object.entries(wanted))
  for (const name of names)
    if (!vectors.some((v) => v.program === program && v.instruction === name)) problems.push(`no vector for ${program} ${name}`);

fs.writeFileSync(outPath, JSON.stringify({ vectors }, null, 1));
for (const p of problems) console.error("builtin_vectors: " + p);
console.log(`builtin_vectors: ${vectors.length} vectors, ${problems.length} problems`);
process.exit(problems.length ? 1 : 0);
