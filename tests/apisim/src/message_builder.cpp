#include <algorithm>
#include <string>

#include <airlock/apisim/message_builder.h>

namespace airlock {
namespace {

struct KeyMeta {
  PublicKey key;
  bool signer = false;
  bool writable = false;
  bool invoked = false;
};

// Insertion-ordered account metadata, merged across every appearance of a key.
class KeyMetas {
 public:
  KeyMeta& at(const PublicKey& key) {
    auto it =
        std::find_if(metas_.begin(), metas_.end(), [&](const KeyMeta& m) { return m.key == key; });
    if (it != metas_.end()) return *it;
    metas_.push_back(KeyMeta{key});
    return metas_.back();
  }
  std::vector<KeyMeta>& all() { return metas_; }

 private:
  std::vector<KeyMeta> metas_;
};

}  // namespace

Result<Message> compile_v0_message(const PublicKey& payer,
                                   const std::vector<Instruction>& instructions,
                                   const Hash& recent_blockhash,
                                   std::span<const LoadedTable> tables) {
  KeyMetas metas;
  KeyMeta& payer_meta = metas.at(payer);
  payer_meta.signer = payer_meta.writable = true;
  for (const auto& ix : instructions) {
    metas.at(ix.program).invoked = true;
    for (const auto& account : ix.accounts) {
      KeyMeta& m = metas.at(account.key);
      m.signer = m.signer || account.signer;
      m.writable = m.writable || account.writable;
    }
  }

  Message message;
  message.version = MessageVersion::kV0;
  message.recent_blockhash = recent_blockhash;
  // Drain table-loadable accounts, table by table.
  std::vector<KeyMeta>& all = metas.all();
  std::vector<PublicKey> loaded_writable, loaded_readonly;
  for (const auto& table : tables) {
    AddressTableLookup lookup{table.table, {}, {}};
    for (auto it = all.begin(); it != all.end();) {
      const auto pos = std::find(table.addresses.begin(), table.addresses.end(), it->key);
      if (it->signer || it->invoked || pos == table.addresses.end() ||
          pos - table.addresses.begin() > 255) {
        ++it;
        continue;
      }
      const auto index = static_cast<std::uint8_t>(pos - table.addresses.begin());
      (it->writable ? lookup.writable_indexes : lookup.readonly_indexes).push_back(index);
      (it->writable ? loaded_writable : loaded_readonly).push_back(it->key);
      it = all.erase(it);
    }
    if (!lookup.writable_indexes.empty() || !lookup.readonly_indexes.empty())
      message.lookups.push_back(lookup);
  }

  const auto group = [&](bool signer, bool writable) {
    for (const auto& m : all) {
      if (m.signer == signer && m.writable == writable) message.static_keys.push_back(m.key);
    }
  };
  group(true, true);
  group(true, false);
  group(false, true);
  group(false, false);
  std::size_t signers = 0, readonly_signers = 0, readonly_unsigned = 0;
  for (const auto& m : all) {
    if (m.signer) {
      ++signers;
      if (!m.writable) ++readonly_signers;
    } else if (!m.writable) {
      ++readonly_unsigned;
    }
  }
  if (signers > 255 ||
      message.static_keys.size() + loaded_writable.size() + loaded_readonly.size() > kMaxAccounts) {
    return Error(ErrorCode::kMessageTooManyAccounts, "instructions name more than 256 accounts");
  }
  message.header = {static_cast<std::uint8_t>(signers), static_cast<std::uint8_t>(readonly_signers),
                    static_cast<std::uint8_t>(readonly_unsigned)};

  // Account index: static keys, then every table's writable loads, then every readonly load.
  std::vector<PublicKey> order = message.static_keys;
  order.insert(order.end(), loaded_writable.begin(), loaded_writable.end());
  order.insert(order.end(), loaded_readonly.begin(), loaded_readonly.end());
  const auto index_of = [&](const PublicKey& key) {
    return static_cast<std::uint8_t>(std::find(order.begin(), order.end(), key) - order.begin());
  };
  for (const auto& ix : instructions) {
    CompiledInstruction compiled;
    compiled.program_index = index_of(ix.program);
    for (const auto& account : ix.accounts) compiled.accounts.push_back(index_of(account.key));
    compiled.data = ix.data;
    message.instructions.push_back(std::move(compiled));
  }
  if (auto status = sanitize_message(message); !status.ok()) return status.error();
  return message;
}

}  // namespace airlock
