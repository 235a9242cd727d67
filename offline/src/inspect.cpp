#include <sstream>

#include <airlock/common/display.h>
#include <airlock/common/hash.h>
#include <airlock/common/programs.h>
#include <airlock/offline/inspect.h>

namespace airlock::offline {
namespace {

bool is_space(std::uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string version_text(MessageVersion v) { return v == MessageVersion::kV0 ? "0" : "legacy"; }

nlohmann::ordered_json version_json(MessageVersion v) {
  if (v == MessageVersion::kV0) return 0;
  return "legacy";
}

std::string role_flags(const AccountRole& role) {
  std::string flags;
  flags += role.signer ? 'S' : '-';
  flags += role.writable ? 'W' : '-';
  flags += role.invoked ? 'X' : '-';
  return flags;
}

std::string key_text(const std::optional<PublicKey>& key) {
  return key ? to_base58(*key) : std::string("(key in lookup table, not resolved)");
}

std::string index_list(const std::vector<std::uint8_t>& list) {
  std::string out = "[";
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (i != 0) out += ", ";
    out += std::to_string(list[i]);
  }
  return out + "]";
}

}  // namespace

Result<Bytes> decode_inspect_input(ByteView input, InputEncoding encoding) {
  if (input.size() > kMaxInspectInputBytes) {
    return Error(ErrorCode::kTooLarge, "input is " + std::to_string(input.size()) +
                                           " bytes; inspect reads at most " +
                                           std::to_string(kMaxInspectInputBytes));
  }
  if (encoding == InputEncoding::kBinary) return Bytes(input.begin(), input.end());
  std::size_t begin = 0, end = input.size();
  while (begin < end && is_space(input[begin])) ++begin;
  while (end > begin && is_space(input[end - 1])) --end;
  std::string_view text(reinterpret_cast<const char*>(input.data()) + begin, end - begin);
  if (text.empty()) return Error(ErrorCode::kTruncated, "input: empty; expected base64");
  auto bytes = from_base64(text, kMaxTransactionBytes);
  if (!bytes.ok()) return bytes.error().in_field("input");
  return bytes;
}

Result<Inspection> inspect_bytes(ByteView bytes, InputKind kind) {
  Inspection out;
  out.byte_size = bytes.size();
  if (kind != InputKind::kMessage) {
    auto tx = parse_transaction(bytes);
    if (tx.ok()) {
      out.is_transaction = true;
      out.transaction = std::move(tx).value();
    } else if (kind == InputKind::kTransaction) {
      return std::move(tx).error();
    } else {
      auto message = parse_message(bytes);
      if (!message.ok()) {
        return Error(tx.error().code(), "not a transaction (" + tx.error().to_string() +
                                            ") nor a message (" + message.error().to_string() +
                                            ")");
      }
      out.transaction = unsigned_transaction(std::move(message).value());
    }
  } else {
    auto message = parse_message(bytes);
    if (!message.ok()) return std::move(message).error();
    out.transaction = unsigned_transaction(std::move(message).value());
  }
  const Message& m = out.transaction.message;
  out.message_sha256 = sha256(serialize_message(m));
  auto roles = account_roles(m);
  if (!roles.ok()) return std::move(roles).error();
  out.accounts = std::move(roles).value();
  out.nonce = durable_nonce(m);
  if (out.is_transaction) out.signatures = check_signatures(out.transaction);
  return out;
}

void decode_instructions(Inspection& in, const DecoderRegistry& decoders) {
  const Message& m = in.transaction.message;
  in.decoded.clear();
  in.decode_errors.clear();
  for (const auto& ix : m.instructions) {
    auto d = decoders.decode(m.static_keys[ix.program_index], ix.data, ix.accounts.size());
    if (d.ok()) {
      // A route inside a vault swap is shown as the program the swap passes it to.
      std::vector<std::optional<PublicKey>> keys;
      for (const auto a : ix.accounts)
        keys.push_back(a < in.accounts.size() ? in.accounts[a].key : std::nullopt);
      (void)decoders.decode_cpi_arguments(*d, keys);
    }
    in.decode_errors.push_back(d.ok() ? std::string() : d.error().message());
    in.decoded.push_back(d.ok() ? std::optional<Decoded>(std::move(d).value()) : std::nullopt);
  }
}

namespace {

nlohmann::ordered_json decoded_json(const Decoded& d) {
  nlohmann::ordered_json j = {{"program", d.program},
                              {"instruction", d.instruction},
                              {"accounts", d.account_names},
                              {"args", d.args}};
  for (const auto& [name, nested] : d.nested) j["nested"][name] = decoded_json(nested);
  return j;
}

void decoded_text(std::ostringstream& out, const Decoded& d, const std::string& indent) {
  for (const auto& [name, value] : d.args.items()) {
    if (d.nested.count(name)) continue;
    out << indent << name << " = " << (value.is_string() ? value.get<std::string>() : value.dump())
        << "\n";
  }
  for (const auto& [name, nested] : d.nested) {
    out << indent << name << " = " << nested.program << ": " << nested.instruction << "\n";
    decoded_text(out, nested, indent + "  ");
  }
}

}  // namespace

nlohmann::ordered_json inspection_to_json(const Inspection& in) {
  using json = nlohmann::ordered_json;
  const Message& m = in.transaction.message;
  json out;
  out["kind"] = in.is_transaction ? "transaction" : "message";
  out["size"] = in.byte_size;
  out["version"] = version_json(m.version);
  out["header"] = {{"required_signatures", m.header.num_required_signatures},
                   {"readonly_signed", m.header.num_readonly_signed},
                   {"readonly_unsigned", m.header.num_readonly_unsigned}};
  out["fee_payer"] = to_base58(m.fee_payer());
  out["static_keys"] = json::array();
  for (const auto& key : m.static_keys) out["static_keys"].push_back(to_base58(key));
  out["recent_blockhash"] = to_base58(m.recent_blockhash);
  out["message_sha256"] = to_hex(in.message_sha256.view());

  out["accounts"] = json::array();
  for (const auto& role : in.accounts) {
    json a;
    a["index"] = role.index;
    a["key"] = role.key ? json(to_base58(*role.key)) : json(nullptr);
    a["origin"] = account_origin_name(role.origin);
    if (role.origin != AccountOrigin::kStatic) {
      a["lookup"] = role.lookup;
      a["table_index"] = role.table_index;
    }
    a["signer"] = role.signer;
    a["writable"] = role.writable;
    a["writable_requested"] = role.writable_requested;
    a["fee_payer"] = role.fee_payer;
    a["invoked"] = role.invoked;
    out["accounts"].push_back(std::move(a));
  }

  out["instructions"] = json::array();
  for (std::size_t i = 0; i < m.instructions.size(); ++i) {
    const auto& ix = m.instructions[i];
    json j;
    const PublicKey& program = m.static_keys[ix.program_index];
    j["program"] = to_base58(program);
    j["program_index"] = ix.program_index;
    if (auto name = programs::well_known_name(program)) j["program_name"] = *name;
    j["accounts"] = ix.accounts;
    j["data_hex"] = to_hex(ix.data);
    if (i < in.decoded.size() && in.decoded[i]) j["decoded"] = decoded_json(*in.decoded[i]);
    if (i < in.decode_errors.size() && !in.decoded[i]) j["decode_error"] = in.decode_errors[i];
    out["instructions"].push_back(std::move(j));
  }

  out["lookups"] = json::array();
  for (const auto& lookup : m.lookups) {
    out["lookups"].push_back({{"table", to_base58(lookup.table)},
                              {"writable", lookup.writable_indexes},
                              {"readonly", lookup.readonly_indexes}});
  }

  out["signatures"] = json::array();
  for (const auto& check : in.signatures) {
    out["signatures"].push_back(
        {{"key", to_base58(check.signer)}, {"status", signature_state_name(check.state)}});
  }

  if (in.nonce) {
    out["durable_nonce"] = {
        {"account", to_base58(in.nonce->nonce_account)},
        {"account_index", in.nonce->nonce_account_index},
        {"authority", in.nonce->authority ? json(to_base58(*in.nonce->authority)) : json(nullptr)}};
  } else {
    out["durable_nonce"] = nullptr;
  }
  return out;
}

namespace {

// The account list: index, flags, where the key comes from (static or a lookup table), the key,
// and what the runtime or a well-known name says of it.
void accounts_text(std::ostringstream& out, const Inspection& in) {
  out << "\nAccounts (" << in.accounts.size() << "; S signer, W writable, X program)\n";
  for (const auto& role : in.accounts) {
    out << "  " << (role.index < 10 ? " " : "") << (role.index < 100 ? " " : "") << role.index
        << " " << role_flags(role) << " ";
    if (role.origin == AccountOrigin::kStatic) {
      out << "static        ";
    } else {
      out << "lookup[" << role.lookup << "]#" << int{role.table_index}
          << (role.table_index < 10    ? "  "
              : role.table_index < 100 ? " "
                                       : "");
    }
    out << key_text(role.key);
    if (role.fee_payer) out << "  (fee payer)";
    if (role.writable_requested && !role.writable) out << "  (write demoted by the runtime)";
    if (role.key) {
      if (auto name = programs::well_known_name(*role.key)) out << "  " << *name;
    }
    out << "\n";
  }
}

// Each instruction: its program, accounts and data, then what the decoder made of it.
void instructions_text(std::ostringstream& out, const Inspection& in) {
  const Message& m = in.transaction.message;
  out << "\nInstructions (" << m.instructions.size() << ")\n";
  for (std::size_t i = 0; i < m.instructions.size(); ++i) {
    const auto& ix = m.instructions[i];
    const PublicKey& program = m.static_keys[ix.program_index];
    out << "  [" << i << "] program " << to_base58(program);
    if (auto name = programs::well_known_name(program)) out << " (" << *name << ")";
    out << "\n      accounts " << index_list(ix.accounts) << "\n      data (" << ix.data.size()
        << " bytes) " << (ix.data.empty() ? "-" : to_hex(ix.data)) << "\n";
    if (i < in.decoded.size() && in.decoded[i]) {
      const Decoded& d = *in.decoded[i];
      out << "      decoded  " << d.program << ": " << d.instruction << "\n";
      for (std::size_t a = 0; a < ix.accounts.size() && a < d.account_names.size(); ++a) {
        const std::size_t index = ix.accounts[a];
        out << "        " << d.account_names[a] << ": "
            << (index < in.accounts.size() ? key_text(in.accounts[index].key) : "?") << "\n";
      }
      decoded_text(out, d, "        ");
    } else if (i < in.decode_errors.size()) {
      out << "      undecodable: " << in.decode_errors[i] << "\n";
    }
  }
}

}  // namespace

std::string inspection_to_text(const Inspection& in) {
  const Message& m = in.transaction.message;
  std::ostringstream out;
  out << (in.is_transaction ? "Transaction" : "Message") << ", version " << version_text(m.version)
      << ", " << in.byte_size << " bytes\n";
  out << "  message sha256   " << to_hex(in.message_sha256.view()) << "\n";
  out << "  fee payer        " << to_base58(m.fee_payer()) << "\n";
  out << "  recent blockhash " << to_base58(m.recent_blockhash) << "\n";
  out << "  header           " << int{m.header.num_required_signatures} << " required signatures, "
      << int{m.header.num_readonly_signed} << " readonly signed, "
      << int{m.header.num_readonly_unsigned} << " readonly unsigned\n";
  if (in.nonce) {
    out << "\nWARNING: durable nonce: this transaction does not expire with its blockhash.\n"
        << "  nonce account    " << to_base58(in.nonce->nonce_account) << "\n";
    if (in.nonce->authority)
      out << "  nonce authority  " << to_base58(*in.nonce->authority) << "\n";
  } else {
    out << "  durable nonce    no (expires with its blockhash)\n";
  }

  if (in.is_transaction) {
    out << "\nSignatures (" << in.signatures.size() << ")\n";
    for (std::size_t i = 0; i < in.signatures.size(); ++i) {
      out << "  [" << i << "] " << to_base58(in.signatures[i].signer) << "  "
          << signature_state_name(in.signatures[i].state) << "\n";
    }
  }

  accounts_text(out, in);
  instructions_text(out, in);

  if (!m.lookups.empty()) {
    out << "\nAddress lookup tables (" << m.lookups.size() << ")\n";
    for (std::size_t i = 0; i < m.lookups.size(); ++i) {
      const auto& lookup = m.lookups[i];
      out << "  [" << i << "] " << to_base58(lookup.table) << "  writable "
          << index_list(lookup.writable_indexes) << "  readonly "
          << index_list(lookup.readonly_indexes) << "\n";
    }
  }
  return printable(out.str(), true);  // memos and string arguments come from outside
}

}  // namespace airlock::offline
