#include "decode_builtin.h"

#include <algorithm>
#include <string>

#include <airlock/common/programs.h>
#include <airlock/common/reader.h>
#include <airlock/offline/idl.h>

namespace airlock::offline::builtin {
namespace {

using ojson = nlohmann::ordered_json;

Error undecodable(const std::string& program, const std::string& rule) {
  return Error(offline::errors::kIdlUndecodable, program + ": " + rule);
}

// The fields the built-in programs share, read with the common ByteReader: a 32-byte key,
// Token's COption<Pubkey> (one byte 0 or 1, then the key when 1) and bincode's string (a u64
// length, then the bytes).
std::string key(ByteReader& r, std::string_view field) {
  const ByteView bytes = r.take(32, field);
  return bytes.size() == 32 ? to_base58(bytes) : std::string();
}

// An optional key that ends the instruction's data (SPL Token's COption<Pubkey>): tag 1 and the
// key, or tag 0 alone. The JavaScript SPL Token library writes none as tag 0 and 32 zero bytes
// (found by the oracle test, tests/oracle/builtin_vectors.mjs), which the programs also read as
// none: taken as none when all 32 are zero, refused otherwise.
ojson last_optional_key(ByteReader& r, std::string_view field) {
  const std::uint8_t tag = r.u8(field);
  if (tag > 1) {
    r.fail(
        Error(offline::errors::kIdlUndecodable,
              std::string(field) + ": option tag " + std::to_string(tag) + " is neither 0 nor 1"));
  }
  if (tag == 1) return key(r, field);
  if (r.remaining() == PublicKey::kSize) {
    const ByteView padding = r.take(PublicKey::kSize, field);
    if (std::any_of(padding.begin(), padding.end(), [](std::uint8_t b) { return b != 0; }))
      r.fail(Error(offline::errors::kIdlUndecodable,
                   std::string(field) + ": none, followed by 32 bytes that are not all zero"));
  }
  return nullptr;
}

std::string string64(ByteReader& r, std::string_view field) {
  const std::uint64_t n = r.le(8, field);
  const ByteView bytes = r.take(static_cast<std::size_t>(n), field);
  return std::string(bytes.begin(), bytes.end());
}

std::string u64_text(ByteReader& r, std::string_view field) {
  return std::to_string(r.le(8, field));
}

struct Spec {
  const char* name;
  std::vector<std::string> accounts;
};

Result<Decoded> finish(const std::string& program, Decoded d, const ByteReader& r,
                       std::size_t account_count, std::size_t min_accounts) {
  if (!r.ok()) return undecodable(program, d.instruction + ": " + r.error().message());
  if (r.remaining() != 0)
    return undecodable(program, d.instruction + ": " + std::to_string(r.remaining()) +
                                    " unexpected bytes after the arguments");
  if (account_count < min_accounts) {
    return undecodable(program, d.instruction + ": needs at least " + std::to_string(min_accounts) +
                                    " accounts, has " + std::to_string(account_count));
  }
  d.program = program;
  return d;
}

Result<Decoded> compute_budget(ByteView data, std::size_t accounts) {
  const std::string program = "Compute Budget Program";
  if (data.empty()) return undecodable(program, "empty instruction data");
  ByteReader r(data);
  const std::uint8_t tag = r.u8("tag");
  Decoded d;
  // The fields of a braced list are read in the order written.
  switch (tag) {
    case 0:
      d.instruction = "request_units";
      d.args = {{"units", r.le(4, "units")}, {"additional_fee", r.le(4, "additional_fee")}};
      break;
    case 1:
      d.instruction = "request_heap_frame";
      d.args = {{"bytes", r.le(4, "bytes")}};
      break;
    case 2:
      d.instruction = "set_compute_unit_limit";
      d.args = {{"units", r.le(4, "units")}};
      break;
    case 3:
      d.instruction = "set_compute_unit_price";
      d.args = {{"micro_lamports", u64_text(r, "micro_lamports")}};
      break;
    case 4:
      d.instruction = "set_loaded_accounts_data_size_limit";
      d.args = {{"bytes", r.le(4, "bytes")}};
      break;
    default:
      return undecodable(program, "unknown instruction " + std::to_string(tag));
  }
  return finish(program, d, r, accounts, 0);
}

// The System Program's instructions: each reads its fields in order (a little-endian u64, a
// public key, or a seed as a u64 length and its bytes), and names its accounts, of which it
// needs at least `min_accounts` (the rest are optional).
enum class SystemField { kU64, kKey, kSeed };
struct SystemRow {
  std::uint32_t tag;
  const char* name;
  std::vector<std::pair<const char*, SystemField>> fields;
  std::vector<std::string> accounts;
  std::size_t min_accounts;
};
const std::vector<SystemRow>& system_instructions() {
  using enum SystemField;
  static const std::vector<SystemRow> rows = {
      {0,
       "create_account",
       {{"lamports", kU64}, {"space", kU64}, {"owner", kKey}},
       {"funding", "new_account"},
       2},
      {1, "assign", {{"owner", kKey}}, {"account"}, 1},
      {2, "transfer", {{"lamports", kU64}}, {"from", "to"}, 2},
      {3,
       "create_account_with_seed",
       {{"base", kKey}, {"seed", kSeed}, {"lamports", kU64}, {"space", kU64}, {"owner", kKey}},
       {"funding", "new_account", "base"},
       2},
      {4,
       "advance_nonce_account",
       {},
       {"nonce_account", "recent_blockhashes_sysvar", "nonce_authority"},
       3},
      {5,
       "withdraw_nonce_account",
       {{"lamports", kU64}},
       {"nonce_account", "to", "recent_blockhashes_sysvar", "rent_sysvar", "nonce_authority"},
       5},
      {6,
       "initialize_nonce_account",
       {{"authority", kKey}},
       {"nonce_account", "recent_blockhashes_sysvar", "rent_sysvar"},
       3},
      {7,
       "authorize_nonce_account",
       {{"new_authority", kKey}},
       {"nonce_account", "nonce_authority"},
       2},
      {8, "allocate", {{"space", kU64}}, {"account"}, 1},
      {9,
       "allocate_with_seed",
       {{"base", kKey}, {"seed", kSeed}, {"space", kU64}, {"owner", kKey}},
       {"account", "base"},
       2},
      {10,
       "assign_with_seed",
       {{"base", kKey}, {"seed", kSeed}, {"owner", kKey}},
       {"account", "base"},
       2},
      {11,
       "transfer_with_seed",
       {{"lamports", kU64}, {"from_seed", kSeed}, {"from_owner", kKey}},
       {"from", "base", "to"},
       3},
      {12, "upgrade_nonce_account", {}, {"nonce_account"}, 1},
  };
  return rows;
}

Result<Decoded> system(ByteView data, std::size_t accounts) {
  const std::string program = "System Program";
  if (data.size() < 4) return undecodable(program, "instruction data shorter than its 4-byte tag");
  ByteReader r(data);
  const std::uint64_t tag = r.le(4, "tag");
  const auto& rows = system_instructions();
  const auto row =
      std::find_if(rows.begin(), rows.end(), [&](const SystemRow& s) { return s.tag == tag; });
  if (row == rows.end()) return undecodable(program, "unknown instruction " + std::to_string(tag));
  Decoded d;
  d.instruction = row->name;
  for (const auto& [name, kind] : row->fields) {
    switch (kind) {
      case SystemField::kU64:
        d.args[name] = u64_text(r, name);
        break;
      case SystemField::kKey:
        d.args[name] = key(r, name);
        break;
      case SystemField::kSeed:
        d.args[name] = string64(r, name);
        break;
    }
  }
  d.account_names = row->accounts;
  return finish(program, d, r, accounts, row->min_accounts);
}

const char* authority_type_name(std::uint8_t t) {
  static const char* names[] = {"mint_tokens", "freeze_account", "account_owner", "close_account"};
  return t < 4 ? names[t] : nullptr;
}

// Token instructions whose data after the tag is nothing, an amount, or an amount and the
// mint's decimals: one row each (the others have layouts of their own, in `token`).
enum class TokenArgs { kNone, kAmount, kAmountAndDecimals };
struct TokenRow {
  std::uint8_t tag;
  const char* name;
  TokenArgs args;
  std::vector<std::string> accounts;
};
const std::vector<TokenRow>& plain_token_instructions() {
  using enum TokenArgs;
  static const std::vector<TokenRow> rows = {
      {1, "initialize_account", kNone, {"account", "mint", "owner", "rent_sysvar"}},
      {3, "transfer", kAmount, {"source", "destination", "owner"}},
      {4, "approve", kAmount, {"source", "delegate", "owner"}},
      {5, "revoke", kNone, {"source", "owner"}},
      {7, "mint_to", kAmount, {"mint", "destination", "mint_authority"}},
      {8, "burn", kAmount, {"account", "mint", "owner"}},
      {9, "close_account", kNone, {"account", "destination", "owner"}},
      {10, "freeze_account", kNone, {"account", "mint", "freeze_authority"}},
      {11, "thaw_account", kNone, {"account", "mint", "freeze_authority"}},
      {12, "transfer_checked", kAmountAndDecimals, {"source", "mint", "destination", "owner"}},
      {13, "approve_checked", kAmountAndDecimals, {"source", "mint", "delegate", "owner"}},
      {14, "mint_to_checked", kAmountAndDecimals, {"mint", "destination", "mint_authority"}},
      {15, "burn_checked", kAmountAndDecimals, {"account", "mint", "owner"}},
      {17, "sync_native", kNone, {"account"}},
      {21, "get_account_data_size", kNone, {"mint"}},
      {22, "initialize_immutable_owner", kNone, {"account"}},
      {23, "amount_to_ui_amount", kAmount, {"mint"}},
  };
  return rows;
}

Result<Decoded> token(const std::string& program, ByteView data, std::size_t accounts) {
  if (data.empty()) return undecodable(program, "empty instruction data");
  ByteReader r(data);
  const std::uint8_t tag = r.u8("tag");
  Decoded d;
  std::size_t min = 0;
  const auto& rows = plain_token_instructions();
  if (const auto row =
          std::find_if(rows.begin(), rows.end(), [&](const TokenRow& t) { return t.tag == tag; });
      row != rows.end()) {
    d.instruction = row->name;
    // The fields of a braced list are read in the order written.
    if (row->args == TokenArgs::kAmount) d.args = {{"amount", u64_text(r, "amount")}};
    if (row->args == TokenArgs::kAmountAndDecimals)
      d.args = {{"amount", u64_text(r, "amount")}, {"decimals", r.u8("decimals")}};
    d.account_names = row->accounts;
    return finish(program, d, r, accounts, d.account_names.size());
  }
  switch (tag) {
    case 0:
    case 20:
      d.instruction = tag == 0 ? "initialize_mint" : "initialize_mint2";
      d.args = {{"decimals", r.u8("decimals")},
                {"mint_authority", key(r, "mint_authority")},
                {"freeze_authority", last_optional_key(r, "freeze_authority")}};
      d.account_names = tag == 0 ? std::vector<std::string>{"mint", "rent_sysvar"}
                                 : std::vector<std::string>{"mint"};
      min = d.account_names.size();
      break;
    case 2:
    case 19:
      // The signers follow the named accounts.
      d.instruction = tag == 2 ? "initialize_multisig" : "initialize_multisig2";
      d.args = {{"m", r.u8("m")}};
      d.account_names = tag == 2 ? std::vector<std::string>{"multisig", "rent_sysvar"}
                                 : std::vector<std::string>{"multisig"};
      min = d.account_names.size();
      break;
    case 6: {
      d.instruction = "set_authority";
      const std::uint8_t authority_type = r.u8("authority_type");
      const char* type_name = authority_type_name(authority_type);
      if (type_name == nullptr && program == "SPL Token Program") {
        r.fail(
            Error(offline::errors::kIdlUndecodable,
                  "authority_type: " + std::to_string(authority_type) + " is not one of 0 to 3"));
      }
      d.args = {{"authority_type", type_name ? ojson(type_name) : ojson(authority_type)},
                {"new_authority", last_optional_key(r, "new_authority")}};
      d.account_names = {"account", "current_authority"};
      min = 2;
      break;
    }
    case 16:
    case 18:
      d.instruction = tag == 16 ? "initialize_account2" : "initialize_account3";
      d.args = {{"owner", key(r, "owner")}};
      d.account_names = tag == 16 ? std::vector<std::string>{"account", "mint", "rent_sysvar"}
                                  : std::vector<std::string>{"account", "mint"};
      min = d.account_names.size();
      break;
    default:
      return undecodable(
          program,
          "instruction " + std::to_string(tag) +
              " is not one airlock decodes (Token-2022 extensions are refused unless allowed)");
  }
  return finish(program, d, r, accounts, min);
}

Result<Decoded> associated_token(ByteView data, std::size_t accounts) {
  const std::string program = "Associated Token Account Program";
  Decoded d;
  const std::uint8_t tag = data.empty() ? 0 : data[0];
  if (data.size() > 1) return undecodable(program, "instruction data longer than its one-byte tag");
  const ByteReader r(ByteView{});
  switch (tag) {
    case 0:
    case 1:
      d.instruction = tag == 0 ? "create" : "create_idempotent";
      d.account_names = {"funding", "associated_account", "wallet",
                         "mint",    "system_program",     "token_program"};
      return finish(program, d, r, accounts, 6);
    case 2:
      d.instruction = "recover_nested";
      d.account_names = {"nested_account", "nested_mint", "destination_account", "owner_account",
                         "owner_mint",     "wallet",      "token_program"};
      return finish(program, d, r, accounts, 7);
    default:
      return undecodable(program, "unknown instruction " + std::to_string(tag));
  }
}

Result<Decoded> memo(ByteView data, std::size_t accounts) {
  // The memo program itself rejects invalid UTF-8; so does the decoder.
  if (!is_valid_utf8(data)) return undecodable("Memo Program", "memo text is not valid UTF-8");
  Decoded d;
  d.program = "Memo Program";
  d.instruction = "memo";
  d.args = {{"text", std::string(data.begin(), data.end())}};
  d.account_names.assign(accounts, "signer");
  return d;
}

}  // namespace

std::optional<Result<Decoded>> decode(const PublicKey& program, ByteView data,
                                      std::size_t account_count) {
  if (program == programs::key(programs::kComputeBudget))
    return compute_budget(data, account_count);
  if (program == programs::key(programs::kSystem)) return system(data, account_count);
  if (program == programs::key(programs::kToken))
    return token("SPL Token Program", data, account_count);
  if (program == programs::key(programs::kToken2022))
    return token("SPL Token-2022 Program", data, account_count);
  if (program == programs::key(programs::kAssociatedToken))
    return associated_token(data, account_count);
  if (program == programs::key(programs::kMemo) || program == programs::key(programs::kMemoV1)) {
    return memo(data, account_count);
  }
  return std::nullopt;
}

}  // namespace airlock::offline::builtin
