#include "decode_builtin.h"

#include <string>

#include <airlock/common/programs.h>
#include <airlock/offline/idl.h>

namespace airlock::offline::builtin {
namespace {

using ojson = nlohmann::ordered_json;

Error undecodable(const std::string& program, const std::string& rule) {
  return Error(offline::errors::kIdlUndecodable, program + ": " + rule);
}

// Little-endian reader that insists on consuming everything.
class Reader {
 public:
  explicit Reader(ByteView d) : d_(d) {}
  bool u8(std::uint8_t& v) { return take(1) && (v = d_[pos_ - 1], true); }
  bool le(std::uint64_t& v, std::size_t n) {
    if (!take(n)) return false;
    v = 0;
    for (std::size_t i = 0; i < n; ++i)
      v |= static_cast<std::uint64_t>(d_[pos_ - n + i]) << (8 * i);
    return true;
  }
  bool key(std::string& out) {
    if (!take(32)) return false;
    out = to_base58(d_.subspan(pos_ - 32, 32));
    return true;
  }
  // Token's COption<Pubkey>: one byte 0 or 1, then (when 1) the key.
  bool coption_key(ojson& out) {
    std::uint8_t tag = 0;
    if (!u8(tag) || tag > 1) return false;
    if (tag == 0) {
      out = nullptr;
      return true;
    }
    std::string k;
    if (!key(k)) return false;
    out = k;
    return true;
  }
  // bincode string: u64 length then UTF-8 bytes.
  bool string64(std::string& out) {
    std::uint64_t n = 0;
    if (!le(n, 8) || n > remaining() || !take(static_cast<std::size_t>(n))) return false;
    out.assign(reinterpret_cast<const char*>(d_.data() + pos_ - n), static_cast<std::size_t>(n));
    return true;
  }
  bool end() const { return pos_ == d_.size(); }
  std::size_t remaining() const { return d_.size() - pos_; }

 private:
  bool take(std::size_t n) {
    if (n > d_.size() - pos_) return false;
    pos_ += n;
    return true;
  }
  ByteView d_;
  std::size_t pos_ = 0;
};

struct Spec {
  const char* name;
  std::vector<std::string> accounts;
};

Result<Decoded> finish(const std::string& program, Decoded d, const Reader& r,
                       std::size_t account_count, bool ok, std::size_t min_accounts) {
  if (!ok)
    return undecodable(program, d.instruction + ": data ends early or holds an invalid value");
  if (!r.end())
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
  Reader r(data);
  std::uint8_t tag = 0;
  if (!r.u8(tag)) return undecodable(program, "empty instruction data");
  Decoded d;
  std::uint64_t a = 0, b = 0;
  bool ok = true;
  switch (tag) {
    case 0:
      d.instruction = "request_units";
      ok = r.le(a, 4) && r.le(b, 4);
      d.args = {{"units", a}, {"additional_fee", b}};
      break;
    case 1:
      d.instruction = "request_heap_frame";
      ok = r.le(a, 4);
      d.args = {{"bytes", a}};
      break;
    case 2:
      d.instruction = "set_compute_unit_limit";
      ok = r.le(a, 4);
      d.args = {{"units", a}};
      break;
    case 3:
      d.instruction = "set_compute_unit_price";
      ok = r.le(a, 8);
      d.args = {{"micro_lamports", std::to_string(a)}};
      break;
    case 4:
      d.instruction = "set_loaded_accounts_data_size_limit";
      ok = r.le(a, 4);
      d.args = {{"bytes", a}};
      break;
    default:
      return undecodable(program, "unknown instruction " + std::to_string(tag));
  }
  return finish(program, d, r, accounts, ok, 0);
}

Result<Decoded> system(ByteView data, std::size_t accounts) {
  const std::string program = "System Program";
  Reader r(data);
  std::uint64_t tag = 0;
  if (!r.le(tag, 4)) return undecodable(program, "instruction data shorter than its 4-byte tag");
  Decoded d;
  std::uint64_t lamports = 0, space = 0;
  std::string k1, k2, seed;
  bool ok = true;
  std::size_t min = 0;
  switch (tag) {
    case 0:
      d.instruction = "create_account";
      ok = r.le(lamports, 8) && r.le(space, 8) && r.key(k1);
      d.args = {
          {"lamports", std::to_string(lamports)}, {"space", std::to_string(space)}, {"owner", k1}};
      d.account_names = {"funding", "new_account"};
      min = 2;
      break;
    case 1:
      d.instruction = "assign";
      ok = r.key(k1);
      d.args = {{"owner", k1}};
      d.account_names = {"account"};
      min = 1;
      break;
    case 2:
      d.instruction = "transfer";
      ok = r.le(lamports, 8);
      d.args = {{"lamports", std::to_string(lamports)}};
      d.account_names = {"from", "to"};
      min = 2;
      break;
    case 3:
      d.instruction = "create_account_with_seed";
      ok = r.key(k1) && r.string64(seed) && r.le(lamports, 8) && r.le(space, 8) && r.key(k2);
      d.args = {{"base", k1},
                {"seed", seed},
                {"lamports", std::to_string(lamports)},
                {"space", std::to_string(space)},
                {"owner", k2}};
      d.account_names = {"funding", "new_account", "base"};
      min = 2;
      break;
    case 4:
      d.instruction = "advance_nonce_account";
      d.account_names = {"nonce_account", "recent_blockhashes_sysvar", "nonce_authority"};
      min = 3;
      break;
    case 5:
      d.instruction = "withdraw_nonce_account";
      ok = r.le(lamports, 8);
      d.args = {{"lamports", std::to_string(lamports)}};
      d.account_names = {"nonce_account", "to", "recent_blockhashes_sysvar", "rent_sysvar",
                         "nonce_authority"};
      min = 5;
      break;
    case 6:
      d.instruction = "initialize_nonce_account";
      ok = r.key(k1);
      d.args = {{"authority", k1}};
      d.account_names = {"nonce_account", "recent_blockhashes_sysvar", "rent_sysvar"};
      min = 3;
      break;
    case 7:
      d.instruction = "authorize_nonce_account";
      ok = r.key(k1);
      d.args = {{"new_authority", k1}};
      d.account_names = {"nonce_account", "nonce_authority"};
      min = 2;
      break;
    case 8:
      d.instruction = "allocate";
      ok = r.le(space, 8);
      d.args = {{"space", std::to_string(space)}};
      d.account_names = {"account"};
      min = 1;
      break;
    case 9:
      d.instruction = "allocate_with_seed";
      ok = r.key(k1) && r.string64(seed) && r.le(space, 8) && r.key(k2);
      d.args = {{"base", k1}, {"seed", seed}, {"space", std::to_string(space)}, {"owner", k2}};
      d.account_names = {"account", "base"};
      min = 2;
      break;
    case 10:
      d.instruction = "assign_with_seed";
      ok = r.key(k1) && r.string64(seed) && r.key(k2);
      d.args = {{"base", k1}, {"seed", seed}, {"owner", k2}};
      d.account_names = {"account", "base"};
      min = 2;
      break;
    case 11:
      d.instruction = "transfer_with_seed";
      ok = r.le(lamports, 8) && r.string64(seed) && r.key(k1);
      d.args = {{"lamports", std::to_string(lamports)}, {"from_seed", seed}, {"from_owner", k1}};
      d.account_names = {"from", "base", "to"};
      min = 3;
      break;
    case 12:
      d.instruction = "upgrade_nonce_account";
      d.account_names = {"nonce_account"};
      min = 1;
      break;
    default:
      return undecodable(program, "unknown instruction " + std::to_string(tag));
  }
  return finish(program, d, r, accounts, ok, min);
}

const char* authority_type_name(std::uint8_t t) {
  static const char* names[] = {"mint_tokens", "freeze_account", "account_owner", "close_account"};
  return t < 4 ? names[t] : nullptr;
}

Result<Decoded> token(const std::string& program, ByteView data, std::size_t accounts) {
  Reader r(data);
  std::uint8_t tag = 0;
  if (!r.u8(tag)) return undecodable(program, "empty instruction data");
  Decoded d;
  std::uint64_t amount = 0;
  std::uint8_t decimals = 0, m = 0, authority_type = 0;
  std::string k1;
  ojson optional_key;
  bool ok = true;
  std::size_t min = 0;
  const auto amount_only = [&](const char* name, std::vector<std::string> names) {
    d.instruction = name;
    ok = r.le(amount, 8);
    d.args = {{"amount", std::to_string(amount)}};
    d.account_names = std::move(names);
    min = d.account_names.size();
  };
  const auto checked = [&](const char* name, std::vector<std::string> names) {
    d.instruction = name;
    ok = r.le(amount, 8) && r.u8(decimals);
    d.args = {{"amount", std::to_string(amount)}, {"decimals", decimals}};
    d.account_names = std::move(names);
    min = d.account_names.size();
  };
  const auto no_args = [&](const char* name, std::vector<std::string> names) {
    d.instruction = name;
    d.account_names = std::move(names);
    min = d.account_names.size();
  };
  switch (tag) {
    case 0:
    case 20:
      d.instruction = tag == 0 ? "initialize_mint" : "initialize_mint2";
      ok = r.u8(decimals) && r.key(k1) && r.coption_key(optional_key);
      d.args = {{"decimals", decimals}, {"mint_authority", k1}, {"freeze_authority", optional_key}};
      d.account_names = tag == 0 ? std::vector<std::string>{"mint", "rent_sysvar"}
                                 : std::vector<std::string>{"mint"};
      min = 1;
      break;
    case 1:
      no_args("initialize_account", {"account", "mint", "owner", "rent_sysvar"});
      break;
    case 2:
    case 19:
      d.instruction = tag == 2 ? "initialize_multisig" : "initialize_multisig2";
      ok = r.u8(m);
      d.args = {{"m", m}};
      d.account_names = {"multisig"};
      min = 1;
      break;
    case 3:
      amount_only("transfer", {"source", "destination", "owner"});
      break;
    case 4:
      amount_only("approve", {"source", "delegate", "owner"});
      break;
    case 5:
      no_args("revoke", {"source", "owner"});
      break;
    case 6: {
      d.instruction = "set_authority";
      ok = r.u8(authority_type) && r.coption_key(optional_key);
      const char* type_name = authority_type_name(authority_type);
      if (ok && type_name == nullptr && program == "SPL Token Program") ok = false;
      d.args = {{"authority_type", type_name ? ojson(type_name) : ojson(authority_type)},
                {"new_authority", optional_key}};
      d.account_names = {"account", "current_authority"};
      min = 2;
      break;
    }
    case 7:
      amount_only("mint_to", {"mint", "destination", "mint_authority"});
      break;
    case 8:
      amount_only("burn", {"account", "mint", "owner"});
      break;
    case 9:
      no_args("close_account", {"account", "destination", "owner"});
      break;
    case 10:
      no_args("freeze_account", {"account", "mint", "freeze_authority"});
      break;
    case 11:
      no_args("thaw_account", {"account", "mint", "freeze_authority"});
      break;
    case 12:
      checked("transfer_checked", {"source", "mint", "destination", "owner"});
      break;
    case 13:
      checked("approve_checked", {"source", "mint", "delegate", "owner"});
      break;
    case 14:
      checked("mint_to_checked", {"mint", "destination", "mint_authority"});
      break;
    case 15:
      checked("burn_checked", {"account", "mint", "owner"});
      break;
    case 16:
    case 18:
      d.instruction = tag == 16 ? "initialize_account2" : "initialize_account3";
      ok = r.key(k1);
      d.args = {{"owner", k1}};
      d.account_names = {"account", "mint"};
      min = 2;
      break;
    case 17:
      no_args("sync_native", {"account"});
      break;
    case 21:
      no_args("get_account_data_size", {"mint"});
      break;
    case 22:
      no_args("initialize_immutable_owner", {"account"});
      break;
    case 23:
      amount_only("amount_to_ui_amount", {"mint"});
      break;
    default:
      return undecodable(
          program,
          "instruction " + std::to_string(tag) +
              " is not one airlock decodes (Token-2022 extensions are refused unless allowed)");
  }
  return finish(program, d, r, accounts, ok, min);
}

Result<Decoded> associated_token(ByteView data, std::size_t accounts) {
  const std::string program = "Associated Token Account Program";
  Decoded d;
  const std::uint8_t tag = data.empty() ? 0 : data[0];
  if (data.size() > 1) return undecodable(program, "instruction data longer than its one-byte tag");
  Reader r(ByteView{});
  switch (tag) {
    case 0:
    case 1:
      d.instruction = tag == 0 ? "create" : "create_idempotent";
      d.account_names = {"funding", "associated_account", "wallet",
                         "mint",    "system_program",     "token_program"};
      return finish(program, d, r, accounts, true, 6);
    case 2:
      d.instruction = "recover_nested";
      d.account_names = {"nested_account", "nested_mint", "destination_account", "owner_account",
                         "owner_mint",     "wallet",      "token_program"};
      return finish(program, d, r, accounts, true, 7);
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
