#include <algorithm>
#include <limits>
#include <map>
#include <sstream>

#include <airlock/common/display.h>
#include <airlock/common/programs.h>
#include <airlock/common/units.h>
#include <airlock/formats/action_fields.h>
#include <airlock/offline/arguments.h>
#include <airlock/offline/bins.h>
#include <airlock/offline/prices.h>
#include <airlock/offline/summary.h>

namespace airlock::offline {
namespace {

using ojson = nlohmann::ordered_json;

// The runtime's base fee per signature.
constexpr std::uint64_t kLamportsPerSignature = 5000;

std::string request_id_hex(const envelope::RequestId& id) {
  return to_hex(ByteView(id.data(), id.size()));
}

const TokenLabel* token_label(const Review& r, const PublicKey& mint) {
  for (const auto& t : r.tokens) {
    if (t.mint == mint) return &t;
  }
  return nullptr;
}

const char* source_of(const TokenLabel& t) {
  return t.pinned ? "pinned by the policy" : "per the online half";
}

// Whose the decimals are, saying how many when only the online half says so: a hint of 0
// decimals for a 6-decimal token reads a million times larger (an independent attacker review),
// and "0 decimals" beside a known token is what gives it away.
std::string decimals_said(const TokenLabel& t) {
  if (t.pinned) return "decimals pinned by the policy";
  return std::to_string(t.decimals) + " decimals per the online half";
}

// The tokens X and Y of the pool an instruction names as its lb_pair account, when the policy
// pins that pool or the online half's pool hint names it, and the tokens are labelled.
struct PoolTokens {
  const TokenLabel* x = nullptr;
  const TokenLabel* y = nullptr;
  bool pinned = false;  // which mints they are is the policy's word, not the online half's
};

const char* pool_source(bool pinned) {
  return pinned ? "pinned by the policy" : "per the online half";
}

PoolTokens pool_tokens(const Review& r, const StepReview& s, const Decoded& d,
                       const CompiledInstruction& ix) {
  for (std::size_t a = 0; a < d.account_names.size() && a < ix.accounts.size(); ++a) {
    if (d.account_names[a] != "lb_pair") continue;
    const std::size_t index = ix.accounts[a];
    if (index >= s.roles.size() || !s.roles[index].key) return {};
    for (const auto& p : r.pools) {
      if (p.pool == *s.roles[index].key)
        return {token_label(r, p.token_x), token_label(r, p.token_y), p.pinned};
    }
  }
  return {};
}

// The labels of a pool's two sides in a bin picture: "X SOL", or "X" when the token is unknown.
std::pair<std::string, std::string> side_names(const PoolTokens& pool) {
  return {pool.x ? "X " + pool.x->symbol : std::string("X"),
          pool.y ? "Y " + pool.y->symbol : std::string("Y")};
}

// The label of the token a unit names: a mint's, or the pool's token X or Y by the policy's
// pools or the online half's hints (`pool_pinned` says which), or nullptr when none is known.
const TokenLabel* unit_label(const Review& r, const PublicKey& mint_or_pool, AmountUnit::Side side,
                             bool* pool_pinned = nullptr) {
  if (side == AmountUnit::Side::kKey) return token_label(r, mint_or_pool);
  for (const auto& p : r.pools) {
    if (p.pool != mint_or_pool) continue;
    if (pool_pinned != nullptr) *pool_pinned = p.pinned;
    return token_label(r, side == AmountUnit::Side::kTokenX ? p.token_x : p.token_y);
  }
  return nullptr;
}

// The amount instruction `i` states at `path`, or nullptr.
const StatedAmount* stated(const StepReview& s, std::size_t i, std::string_view path) {
  for (const auto& a : s.amounts) {
    if (a.instruction == i && a.path == path) return &a;
  }
  return nullptr;
}

// An argument's value, with its amount in whole tokens where the descriptor states its unit
// and a label knows the token.
std::string arg_text(const Review& r, const StepReview& s, std::size_t i, const std::string& path,
                     const std::string& instruction, const ojson& value) {
  std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  // The token program's *_checked instructions carry the mint's decimals and fail on chain if
  // they are wrong, so their amounts can be shown in whole units without trusting a hint.
  const ojson& args = s.instructions[i]->args;
  if (path == "amount" && value.is_string() && instruction.size() > 8 &&
      instruction.compare(instruction.size() - 8, 8, "_checked") == 0 &&
      args.contains("decimals") && args["decimals"].is_number_unsigned()) {
    return text + "  (" + whole_units(text, args["decimals"].get<int>()) +
           " whole tokens; these decimals are checked on chain)";
  }
  const StatedAmount* a = value.is_string() ? stated(s, i, path) : nullptr;
  bool pool_pinned = false;
  const TokenLabel* label =
      a != nullptr ? unit_label(r, a->mint_or_pool, a->side, &pool_pinned) : nullptr;
  if (label == nullptr) return text;
  if (a->side == AmountUnit::Side::kKey)
    return text + "  (" + whole_units(text, label->decimals) + " " + label->symbol + ", " +
           decimals_said(*label) + ")";
  return text + "  (" + whole_units(text, label->decimals) + " " + label->symbol +
         ", the pool's token " + (a->side == AmountUnit::Side::kTokenX ? "X " : "Y ") +
         pool_source(pool_pinned) + ", " + decimals_said(*label) + ")";
}

// A key with what is known about it: a well-known program name, or a token symbol pinned by
// the policy or hinted by the online half (marked as such).
std::string describe_key(const PublicKey& key, const envelope::SignRequest& q, const Review& r) {
  std::string out = to_base58(key);
  if (auto name = programs::well_known_name(key)) return out + " (" + std::string(*name) + ")";
  if (const TokenLabel* label = token_label(r, key))
    return out + " (token " + label->symbol + " " + source_of(*label) + ")";
  for (const auto& p : r.pools) {
    if (p.pool != key) continue;
    const TokenLabel* x = token_label(r, p.token_x);
    const TokenLabel* y = token_label(r, p.token_y);
    return out + " (pool " + (x ? x->symbol : to_base58(p.token_x)) + "/" +
           (y ? y->symbol : to_base58(p.token_y)) + " " + pool_source(p.pinned) + ")";
  }
  if (key == q.manager) return out + " (manager)";
  if (key == q.vault) return out + " (vault)";
  return out;
}

std::string flags(const AccountRole& role) {
  std::string f;
  if (role.signer) f += "signer";
  if (role.writable) f += f.empty() ? "writable" : ", writable";
  if (role.origin != AccountOrigin::kStatic)
    f += f.empty() ? "from a lookup table" : ", from a lookup table";
  return f.empty() ? "read-only" : f;
}

// Lamports as SOL, exactly: nine decimals with trailing zeros dropped.
std::string sol(std::uint64_t lamports) {
  std::string fraction = std::to_string(lamports % 1'000'000'000);
  fraction.insert(0, 9 - fraction.size(), '0');
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  return std::to_string(lamports / 1'000'000'000) + (fraction.empty() ? "" : "." + fraction);
}

std::uint64_t signatures_needed(const StepReview& s) {
  return s.tx.message.header.num_required_signatures;
}

ojson findings_json(const std::vector<Finding>& findings) {
  ojson out = ojson::array();
  for (const auto& f : findings) {
    ojson j = {{"code", f.code}, {"message", f.message}};
    if (f.step) j["step"] = *f.step + 1;
    out.push_back(std::move(j));
  }
  return out;
}

void render_findings(std::ostringstream& out, const char* title, const char* mark,
                     const std::vector<Finding>& findings) {
  if (findings.empty()) return;
  out << "\n" << title << "\n";
  for (const auto& f : findings) {
    out << "  " << mark << " " << f.code;
    if (f.step) out << " (step " << *f.step + 1 << ")";
    out << ": " << f.message << "\n";
  }
}

// The request as a whole: who, which vault, until when, and what the manager asked for.
void render_header(std::ostringstream& out, const envelope::SignRequest& q, const Review& r,
                   std::int64_t now) {
  out << "Sign request " << request_id_hex(q.request_id) << "\n";
  out << "  action    " << q.action << "\n";
  if (!r.reads.empty()) out << "  does      " << r.reads << "\n";
  out << "  manager   " << to_base58(q.manager) << "\n";
  if (q.action == kKeystoneAction) {
    // Nothing but the bytes came: say so where the intent would be.
    out << "  vault     (none named: a Keystone request)\n";
    out << "  deadline  none (a Keystone request has none)\n";
    out << "  request   NO INTENT: the manager's build request does not come with a Keystone "
           "request; only the instructions below say what this does\n";
  } else {
    out << "  vault     " << to_base58(q.vault) << "\n";
    // In 128 bits: the deadline is any 64-bit number the request holds.
    const __int128 left = static_cast<__int128>(q.deadline) - now;
    const auto seconds = static_cast<unsigned long long>(left >= 0 ? left : -left);
    out << "  deadline  "
        << (left >= 0 ? "in " + std::to_string(seconds) + " s" : std::to_string(seconds) + " s ago")
        << " (unix " << q.deadline << ")\n";
    out << "  request   " << q.intent_json << "\n";
  }
}

// Base units of `mint` with their whole-token figure where a label knows the token.
std::string units_text(const Review& r, std::uint64_t base_units, const PublicKey& mint) {
  std::string text = std::to_string(base_units);
  const TokenLabel* label = token_label(r, mint);
  if (label == nullptr) return text;
  return text + "  (" + whole_units(text, label->decimals) + " " + label->symbol + ", " +
         decimals_said(*label) + ")";
}

// What leaves the vault and what must arrive, for each swap of the step as its descriptor marks
// it (SwapTerms: what the route spends, and the larger of the floors it and the vault
// instruction enforce).
void render_swaps(std::ostringstream& out, const envelope::SignRequest& q, const Review& r,
                  const StepReview& s) {
  for (const auto& swap : s.swaps) {
    out << "  swap      "
        << (swap.spends ? units_text(r, *swap.spends, swap.sells)
                        : std::string("an amount its route does not state"))
        << " of " << describe_key(swap.sells, q, r) << "\n            for at least "
        << (swap.guaranteed ? units_text(r, *swap.guaranteed, swap.buys)
                            : std::string("NOTHING: no floor is stated"))
        << " of " << describe_key(swap.buys, q, r) << "\n";
  }
}

// A deposit into a pool, as the descriptors say it: an amount in the pool's token X or Y that
// no `moves` sends elsewhere (a limit order's, a perp deposit's amounts are said by their own
// lines) and that leaves the vault, or may (its instruction's descriptor says nothing of what
// leaves; one that says and leaves it out, a removal's minimum, is no deposit).
bool is_deposit(const StepReview& s, const StatedAmount& a) {
  if (a.side == AmountUnit::Side::kKey || !a.moves.empty()) return false;
  return std::none_of(s.outflows.begin(), s.outflows.end(), [&](const StepOutflows& o) {
    return o.instruction == a.instruction && o.paths &&
           std::find(o.paths->begin(), o.paths->end(), a.path) == o.paths->end();
  });
}

// A pool's tokens, labelled, when the policy pins the pool or a hint names it.
PoolTokens pool_tokens_of(const Review& r, const PublicKey& pool) {
  for (const auto& p : r.pools) {
    if (p.pool == pool) return {token_label(r, p.token_x), token_label(r, p.token_y), p.pinned};
  }
  return {};
}

// An amount in whole units with its symbol, or in base units "of token X" (`side`) when no
// label gives its decimals.
std::string amount_of(unsigned __int128 v, const TokenLabel* t, const char* side) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  if (t == nullptr) return digits + " base units " + (*side ? "of token " + std::string(side) : "");
  return whole_units(digits, t->decimals) + " " + t->symbol;
}

// What goes into a liquidity pool, in whole tokens when the pool and its tokens are known: each
// instruction's deposits as its descriptor states them (is_deposit).
void render_deposits(std::ostringstream& out, const Review& r, const StepReview& s) {
  for (std::size_t i = 0; i < s.instructions.size(); ++i) {
    const StatedAmount* x = nullptr;
    const StatedAmount* y = nullptr;
    for (const auto& a : s.amounts) {
      if (a.instruction != i || !is_deposit(s, a)) continue;
      (a.side == AmountUnit::Side::kTokenX ? x : y) = &a;
    }
    if (x == nullptr || y == nullptr || x->mint_or_pool != y->mint_or_pool) continue;
    const PoolTokens pool = pool_tokens_of(r, x->mint_or_pool);
    if (!pool.x || !pool.y) continue;
    out << "  deposit   " << amount_of(x->total, pool.x, "") << " + "
        << amount_of(y->total, pool.y, "") << " (the pool's tokens " << pool_source(pool.pinned)
        << ")\n";
  }
}

// DLMM liquidity bin by bin, drawn: where it goes against the active bin, and how much.
void render_bins(std::ostringstream& out, const StepReview& s,
                 const std::vector<PoolTokens>& pools) {
  const Message& m = s.tx.message;
  for (std::size_t i = 0; i < m.instructions.size() && i < s.instructions.size(); ++i) {
    const auto& d = s.instructions[i];
    const auto picture = d ? bin_picture(*d) : std::nullopt;
    if (!picture) continue;
    const auto [x_name, y_name] = side_names(pools[i]);
    out << "  bins      instruction " << i + 1 << " (" << d->instruction << ")\n"
        << draw_bins_text(*picture, "            ", x_name, y_name);
  }
}

// Instruction i: its program and name, every account with where it comes from, every argument.
void render_instruction(std::ostringstream& out, const envelope::SignRequest& q, const Review& r,
                        const StepReview& s, std::size_t i) {
  const Message& m = s.tx.message;
  const auto& ix = m.instructions[i];
  const PublicKey& program = m.static_keys[ix.program_index];
  const auto& d = i < s.instructions.size() ? s.instructions[i] : std::nullopt;
  out << "  " << i + 1 << ". "
      << (d ? d->program + ": " + d->instruction : "UNDECODED call of " + to_base58(program))
      << "\n";
  for (std::size_t a = 0; a < ix.accounts.size(); ++a) {
    const std::size_t index = ix.accounts[a];
    const bool bound = i < s.bindings.size() && a < s.bindings[i].size();
    const std::string name = d && a < d->account_names.size() ? d->account_names[a]
                             : bound                          ? s.bindings[i][a].role
                                                              : "account " + std::to_string(a + 1);
    out << "       " << name << ": ";
    if (index < s.roles.size() && s.roles[index].key) {
      out << describe_key(*s.roles[index].key, q, r) << " [" << flags(s.roles[index]) << "]";
    } else {
      out << "unknown key (lookup table not resolved)";
    }
    // Where the template says the account comes from, and that it was checked.
    if (i < s.bindings.size() && a < s.bindings[i].size()) {
      const AccountBinding& b = s.bindings[i][a];
      out << "\n         <- " << (b.source == "unbound" ? "UNBOUND: " : "") << b.detail;
    }
    out << "\n";
  }
  if (d) {
    for (const auto& [name, value] : d->args.items()) {
      if (d->nested.count(name)) continue;
      out << "       " << name << " = " << arg_text(r, s, i, name, d->instruction, value) << "\n";
    }
    for (const auto& [name, nested] : d->nested) {
      out << "       " << name << " = " << nested.program << ": " << nested.instruction << "\n";
      for (const auto& [arg, value] : nested.args.items()) {
        out << "         " << arg << " = "
            << arg_text(r, s, i, name + "." + arg, d->instruction, value) << "\n";
      }
    }
  } else {
    out << "       data = " << to_hex(ix.data) << "\n";
  }
}

}  // namespace

std::string render_summary(const envelope::SignRequest& q, const Review& r, std::int64_t now) {
  std::ostringstream out;
  render_header(out, q, r, now);
  out << "  steps     " << q.steps.size() << "\n";
  // What needs attention comes before the detail.
  render_findings(out, "Refused", "x", r.refusals);
  render_findings(out, "Warnings", "!", r.warnings);
  for (const auto& s : r.steps) {
    out << "\nStep " << s.index + 1 << " of " << q.steps.size() << "  message sha256 "
        << to_hex(s.message_hash.view()) << "\n";
    if (s.tx.message.instructions.empty() && s.roles.empty()) {
      out << "  (not readable; see the refusals)\n";
      continue;
    }
    const std::uint64_t base = signatures_needed(s) * kLamportsPerSignature;
    out << "  fee       at most " << sol(base + s.priority_fee_lamports) << " SOL (" << base
        << " lamports base + up to " << s.priority_fee_lamports << " priority)\n";
    out << "  signers  ";
    for (const auto& role : s.roles) {
      if (role.signer && role.key)
        out << " " << describe_key(*role.key, q, r) << (role.fee_payer ? " [fee payer]" : "");
    }
    out << "\n";
    if (s.nonce)
      out << "  NEVER EXPIRES: durable nonce " << to_base58(s.nonce->nonce_account) << "\n";
    if (q.steps[s.index].next_action)
      out << "  then      a follow-up build of " << *q.steps[s.index].next_action << "\n";
    const Message& m = s.tx.message;
    render_swaps(out, q, r, s);
    // Each decoded instruction's pool tokens (from the pool hint for its lb_pair account), found
    // once for the deposit lines and the arguments below.
    std::vector<PoolTokens> pools(m.instructions.size());
    for (std::size_t i = 0; i < m.instructions.size() && i < s.instructions.size(); ++i) {
      if (s.instructions[i]) pools[i] = pool_tokens(r, s, *s.instructions[i], m.instructions[i]);
    }
    render_deposits(out, r, s);
    render_bins(out, s, pools);
    for (std::size_t i = 0; i < m.instructions.size(); ++i) render_instruction(out, q, r, s, i);
  }
  if (r.refused()) {
    out << "\nRefused (" << r.refusals.size()
        << " reason(s), listed at the top): nothing will be signed.\n";
  } else {
    out << "\nNothing refused: " << q.steps.size() << " transaction(s) to sign, "
        << r.warnings.size() << " warning(s).\n";
  }
  // Everything above may quote the request, hints and decoded strings: escaped as one.
  return printable(out.str(), true);
}

namespace {

// A line of the decision screen: escaped, and cut at `width` columns with "…" (the details
// carry it whole).
std::string fit(const std::string& text, std::size_t width) {
  std::string line = printable(text);
  if (line.size() <= width) return line;
  // Cut on a character boundary: printable() leaves letters beyond ASCII as they are.
  std::size_t cut = width - 3;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  return line.substr(0, cut) + "...";
}

// `text` in lines of at most `width` columns, broken at spaces, at most `most` lines (the last
// cut with "...").
std::vector<std::string> wrap(const std::string& text, std::size_t width, std::size_t most) {
  std::vector<std::string> lines;
  std::string rest = printable(text);
  while (!rest.empty()) {
    if (lines.size() + 1 == most || rest.size() <= width) {
      lines.push_back(fit(rest, width));
      break;
    }
    std::size_t cut = rest.rfind(' ', width);
    const bool at_space = cut != std::string::npos && cut != 0;
    if (!at_space) {
      cut = width;  // on a character boundary (a letter beyond ASCII is several bytes)
      while (cut > 1 && (static_cast<unsigned char>(rest[cut]) & 0xC0) == 0x80) --cut;
    }
    lines.push_back(rest.substr(0, cut));
    rest = rest.substr(at_space ? cut + 1 : cut);
  }
  return lines;
}

// Where a figure's token and decimals come from, in a word.
std::string label_source(const TokenLabel& t) {
  return t.pinned ? "pinned" : "online half's hint, " + std::to_string(t.decimals) + " decimals";
}

// A mint by its label's symbol, or its address.
std::string short_mint(const Review& r, const PublicKey& mint) {
  const TokenLabel* t = token_label(r, mint);
  return t != nullptr ? t->symbol : to_base58(mint);
}

// An amount of `mint` in whole tokens with its symbol and the label's source, or in base units
// when this machine has no label for the mint.
std::string figure(const Review& r, const std::string& base_units, const PublicKey& mint) {
  if (const TokenLabel* t = token_label(r, mint))
    return whole_units(base_units, t->decimals) + " " + t->symbol + " (" + label_source(*t) + ")";
  return base_units + " base units of " + to_base58(mint) + " (no label)";
}

// A swap (any instruction a descriptor marks as one: a swap, a sweep, a zap-out's swap): what it
// sells for at least what, and the price that guarantees, against the policy's floor or
// labelled as the online half's quote.
void swap_lines(const Review& r, const SwapTerms& swap, std::vector<std::string>& lines) {
  if (!swap.guaranteed) return;  // refused: no floor at all
  const std::string sells =
      swap.spends ? figure(r, std::to_string(*swap.spends), swap.sells)
                  : "an amount its route does not state of " + short_mint(r, swap.sells);
  lines.push_back("swap      " + sells + " for at least " +
                  figure(r, std::to_string(*swap.guaranteed), swap.buys));
  const TokenLabel* from = token_label(r, swap.sells);
  const TokenLabel* to = token_label(r, swap.buys);
  if (!swap.spends || from == nullptr || to == nullptr) return;
  lines.push_back("price     at least " +
                  whole_price(*swap.guaranteed, to->decimals, *swap.spends, from->decimals) + " " +
                  to->symbol + " per " + from->symbol +
                  (swap.floor.empty() ? std::string(" (the online half's quote; no floor pinned)")
                                      : " (the policy's floor: " + swap.floor + ")"));
}

// A leaf of the body: its path as the screens write it (bins[2].amount), its JSON pointer
// (/bins/2/amount) and its value as text.
struct Leaf {
  std::string path, pointer, value;
};

// Every leaf of a JSON value, in the body's order: an approval shows each one in full, however
// many there are.
void body_leaves(const nlohmann::ordered_json& v, const std::string& path,
                 const std::string& pointer, std::vector<Leaf>& out) {
  if (v.is_object()) {
    if (v.empty()) out.push_back({path, pointer, "{}"});
    for (const auto& [name, member] : v.items()) {
      std::string escaped;  // RFC 6901: ~ and / in a member name
      for (const char c : name) escaped += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
      body_leaves(member, path.empty() ? name : path + "." + name, pointer + "/" + escaped, out);
    }
  } else if (v.is_array()) {
    if (v.empty()) out.push_back({path, pointer, "[]"});
    for (std::size_t i = 0; i < v.size(); ++i)
      body_leaves(v[i], path + "[" + std::to_string(i) + "]", pointer + "/" + std::to_string(i),
                  out);
  } else {
    out.push_back({path, pointer, v.is_string() ? v.get<std::string>() : v.dump()});
  }
}

// Every leaf of the request's body (its intent), or none when it is no JSON object.
std::vector<Leaf> body_fields(const envelope::SignRequest& q) {
  const auto body = nlohmann::ordered_json::parse(q.intent_json, nullptr, false);
  std::vector<Leaf> leaves;
  if (body.is_object()) body_leaves(body, "", "", leaves);
  return leaves;
}

// The token a body field is an amount of (Review::body_amounts): its label, or nullptr; and for
// a pool's token X or Y, whose word it is that the pool holds that token (the policy's pinned
// pool, or the online half's hint).
struct BodyUnit {
  const TokenLabel* label = nullptr;
  bool pool_side = false;
  bool pool_pinned = false;
};
BodyUnit body_amount_unit(const Review& r, const Leaf& leaf) {
  if (leaf.value.empty() || !std::all_of(leaf.value.begin(), leaf.value.end(),
                                         [](unsigned char c) { return std::isdigit(c) != 0; }))
    return {};
  for (const auto& b : r.body_amounts) {
    if (b.pointer != leaf.pointer) continue;
    BodyUnit unit;
    unit.pool_side = b.side != AmountUnit::Side::kKey;
    unit.label = unit_label(r, b.mint_or_pool, b.side, &unit.pool_pinned);
    return unit;
  }
  return {};
}

// Whose word a unit is, for the screens: a pool's token by an unpinned pool is the online
// half's hint, however well the token itself is pinned.
std::string unit_source(const TokenLabel& label, bool pool_side, bool pool_pinned) {
  if (pool_side && !pool_pinned) return "pool per the online half";
  return label_source(label);
}

// What the manager asked, in the body's own words (the review binds the transactions to it):
// every field but the vault, a key a label knows followed by what it is.
// No limit on the lines of a wrapped text.
constexpr std::size_t kAll = std::numeric_limits<std::size_t>::max();

// What the manager asked, for the `asked` line, in two parts: the fields the action takes, each
// in full, which no length of anything else may push off the screen (an attacker review hid a
// 100% performance fee behind a long made-up field); then a list's elements, and last the
// fields the action does not take (warn.unknown_field), marked, which may be cut.
struct Asked {
  std::string fields, rest;
};
Asked asked(const envelope::SignRequest& q, const Review& r) {
  Asked out;
  std::string lists, unknown;
  for (const auto& leaf : body_fields(q)) {
    if (leaf.path == "vault") continue;
    std::string shown = leaf.value;
    if (const BodyUnit unit = body_amount_unit(r, leaf); unit.label != nullptr) {
      shown = whole_units(leaf.value, unit.label->decimals) + " " + unit.label->symbol + " (" +
              unit_source(*unit.label, unit.pool_side, unit.pool_pinned) + ")";
    } else if (const auto key = public_key_from_base58(leaf.value); key.ok()) {
      if (const TokenLabel* t = token_label(r, *key)) {
        shown = t->symbol + " (" + label_source(*t) + ")";
      } else if (const auto pool = std::find_if(r.pools.begin(), r.pools.end(),
                                                [&](const auto& p) { return p.pool == *key; });
                 pool != r.pools.end()) {
        shown += " (pool " + short_mint(r, pool->token_x) + "/" + short_mint(r, pool->token_y) +
                 (pool->pinned ? "" : " per the online half") + ")";
      }
    }
    const bool taken = takes_path(q.action, leaf.path);  // the field table both halves share
    // A value no field of the API holds at such length (keys, amounts and choices are short).
    constexpr std::size_t kLongest = 120;
    if (taken && shown.size() > kLongest)
      shown = fit(shown, kLongest) + " (" + std::to_string(leaf.value.size()) + " characters)";
    if (!taken) shown = "(NO FIELD of " + q.action + ": the API ignores it) " + shown;
    std::string& part = !taken                                     ? unknown
                        : leaf.path.find('[') == std::string::npos ? out.fields
                                                                   : lists;
    part += (part.empty() ? "" : ", ") + leaf.path + " " + shown;
  }
  out.rest = lists + (lists.empty() || unknown.empty() ? "" : ", ") + unknown;
  if (out.fields.empty() && out.rest.empty()) out.fields = "nothing but the vault";
  return out;
}

// The sum of a pool's deposits across the steps, and the bins they span.
struct PoolTotal {
  PoolTokens tokens;
  unsigned __int128 x = 0, y = 0;
  std::int64_t first = INT64_MAX, last = INT64_MIN;
  std::size_t steps = 0;
};

// What else moves, as the descriptors say (a perp deposit, a limit order), summed over the
// steps by token and destination.
void moved_lines(const Review& r, std::vector<std::string>& lines) {
  std::vector<StatedAmount> moved;
  for (const auto& s : r.steps) {
    for (const auto& a : s.amounts) {
      if (a.moves.empty()) continue;
      auto it = std::find_if(moved.begin(), moved.end(), [&](const StatedAmount& m) {
        return m.mint_or_pool == a.mint_or_pool && m.side == a.side && m.moves == a.moves;
      });
      if (it == moved.end())
        moved.push_back(a);
      else
        it->total += a.total;
    }
  }
  for (const auto& a : moved) {
    bool pool_pinned = false;
    const TokenLabel* label = unit_label(r, a.mint_or_pool, a.side, &pool_pinned);
    std::string what;
    if (label != nullptr) {
      what = amount_of(a.total, label, "") + " (" +
             unit_source(*label, a.side != AmountUnit::Side::kKey, pool_pinned) + ")";
    } else if (a.side == AmountUnit::Side::kKey) {
      what = amount_of(a.total, nullptr, "") + "of " + to_base58(a.mint_or_pool) + " (no label)";
    } else {
      what = amount_of(a.total, nullptr, a.side == AmountUnit::Side::kTokenX ? "X" : "Y") +
             " (pool tokens unknown)";
    }
    lines.push_back("moves     " + what + " " + a.moves);
  }
}

// What moves, in whole units where a label says the unit: each swap, and each pool's deposits
// summed over the steps.
std::vector<std::string> money_lines(const Review& r) {
  std::vector<std::string> lines;
  std::vector<std::pair<PublicKey, PoolTotal>> pools;
  for (const auto& s : r.steps) {
    for (const auto& swap : s.swaps) swap_lines(r, swap, lines);
    std::vector<PublicKey> step_pools;
    for (const auto& a : s.amounts) {
      if (!is_deposit(s, a)) continue;
      auto it = std::find_if(pools.begin(), pools.end(),
                             [&](const auto& p) { return p.first == a.mint_or_pool; });
      if (it == pools.end())
        it = pools.insert(pools.end(),
                          {a.mint_or_pool, PoolTotal{pool_tokens_of(r, a.mint_or_pool)}});
      (a.side == AmountUnit::Side::kTokenX ? it->second.x : it->second.y) += a.total;
      if (std::find(step_pools.begin(), step_pools.end(), a.mint_or_pool) != step_pools.end())
        continue;
      step_pools.push_back(a.mint_or_pool);
      ++it->second.steps;
      // The step's bins, by the arguments its descriptor names them by.
      const auto& d =
          a.instruction < s.instructions.size() ? s.instructions[a.instruction] : std::nullopt;
      if (!d || r.bins_lower.empty()) continue;
      const Arguments args(d->args);
      const auto lo = args.integer(r.bins_lower), hi = args.integer(r.bins_upper);
      if (lo) it->second.first = std::min(it->second.first, *lo);
      if (hi) it->second.last = std::max(it->second.last, *hi);
    }
  }
  moved_lines(r, lines);
  for (const auto& [pool, total] : pools) {
    std::string line = "deposit   " + amount_of(total.x, total.tokens.x, "X") + " + " +
                       amount_of(total.y, total.tokens.y, "Y");
    if (total.first <= total.last)
      line += ", bins " + std::to_string(total.first) + " to " + std::to_string(total.last);
    if (total.steps > 1) line += " in " + std::to_string(total.steps) + " steps";
    line += total.tokens.x ? std::string(" (pool ") + pool_source(total.tokens.pinned) + ")"
                           : " (pool tokens unknown)";
    lines.push_back(line);
  }
  return lines;
}

// The findings last, right above the prompt: the refusals, or the warnings, each in up to
// three lines while the room lasts; the last line left counts what does not fit.
void finding_lines(const Review& r, std::size_t width, std::size_t max_lines,
                   std::vector<std::string>& lines) {
  const auto& findings = r.refused() ? r.refusals : r.warnings;
  const char* mark = r.refused() ? "x" : "!";
  if (!findings.empty()) lines.push_back(r.refused() ? "Refused" : "Warnings");
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    const auto text = wrap(
        f.code + (f.step ? " (step " + std::to_string(*f.step + 1) + ")" : "") + ": " + f.message,
        width - 4, 3);
    const std::size_t room = max_lines > lines.size() ? max_lines - lines.size() : 0;
    const bool last = i + 1 == findings.size();
    if (text.size() + (last ? 0 : 1) > room) {
      lines.push_back("  ... and " + std::to_string(findings.size() - i) +
                      " more: d shows every one");
      break;
    }
    for (std::size_t k = 0; k < text.size(); ++k)
      lines.push_back((k == 0 ? "  " + std::string(mark) + " " : std::string(4, ' ')) + text[k]);
  }
}

}  // namespace

std::string render_decision(const envelope::SignRequest& q, const Review& r, std::int64_t now,
                            std::size_t width, std::size_t max_lines) {
  std::vector<std::string> lines;
  const bool keystone = q.action == kKeystoneAction;
  // A request past its deadline says so before anything else.
  if (!keystone && now > static_cast<std::int64_t>(std::min<std::uint64_t>(q.deadline, INT64_MAX)))
    lines.push_back("DEADLINE PASSED " +
                    std::to_string(now - static_cast<std::int64_t>(q.deadline)) +
                    " s ago: its tickets are dead and nothing will be signed");
  lines.push_back("Sign request " + request_id_hex(q.request_id) + " (" + q.action + ", " +
                  std::to_string(q.steps.size()) + " step" + (q.steps.size() == 1 ? "" : "s") +
                  ")");
  if (keystone) {
    lines.push_back(
        "  what      NO INTENT: a Keystone request; only its instructions say what "
        "it does (d: details)");
  } else {
    // The label on the first line of the sentence, wherever the headline left it (a line
    // saying the deadline passed comes first).
    const std::size_t first = lines.size();
    for (const auto& l :
         wrap(r.reads.empty() ? std::string("(no descriptor says)") : r.reads, width - 12, 3))
      lines.push_back((lines.size() == first ? "  what      " : "            ") + l);
    lines.push_back("  vault     " + to_base58(q.vault));
    // The fields the action takes in full; the rest after them, cut at four lines or at the
    // line after the fields' last (so that line is whole), whichever is later.
    const Asked a = asked(q, r);
    const std::size_t whole = wrap(a.fields, width - 12, kAll).size();
    const auto shown = wrap(a.rest.empty() ? a.fields : a.fields + ", " + a.rest, width - 12,
                            a.rest.empty() ? kAll : std::max<std::size_t>(4, whole + 1));
    for (const auto& l : shown)
      lines.push_back((lines.back().starts_with("  vault") ? "  asked     " : "            ") + l);
  }
  // A fact in wrapped lines, under its 10-column label.
  const auto add_wrapped = [&](const std::string& fact, std::size_t most) {
    const std::string label = fact.substr(0, 10);
    bool first = true;
    for (const auto& l : wrap(fact.substr(10), width - 12, most)) {
      lines.push_back("  " + (first ? label : std::string(10, ' ')) + l);
      first = false;
    }
  };
  for (const auto& m : money_lines(r)) add_wrapped(m, 2);
  std::uint64_t fees = 0;
  for (const auto& s : r.steps) {
    const std::uint64_t fee =
        signatures_needed(s) * kLamportsPerSignature + s.priority_fee_lamports;
    fees = fees > UINT64_MAX - fee ? UINT64_MAX : fees + fee;
  }
  lines.push_back("  fees      at most " + sol(fees) + " SOL in all");
  if (!keystone) {
    const __int128 left = static_cast<__int128>(q.deadline) - now;
    lines.push_back(left >= 0
                        ? "  deadline  in " + std::to_string(static_cast<long long>(left)) + " s"
                        : "  deadline  PASSED " + std::to_string(static_cast<long long>(-left)) +
                              " s ago");
  }
  if (r.refused()) {
    lines.push_back("  verdict   REFUSED (" + std::to_string(r.refusals.size()) +
                    " reason(s)): nothing will be signed");
  } else {
    lines.push_back("  verdict   nothing refused; " + std::to_string(r.warnings.size()) +
                    " warning(s)" +
                    (r.under_approval    ? ": an approval covers it, so no question"
                     : r.auto_approvable ? ": no question under --auto-approve"
                                         : ": it asks you"));
  }
  finding_lines(r, width, max_lines, lines);
  std::string out;
  for (const auto& l : lines) out += fit(l, width) + "\n";
  return out;
}

std::string render_approval(const envelope::SignRequest& q, const Review& r,
                            std::int64_t expires_at, std::int64_t now, std::size_t width) {
  // Nothing here is ever cut: the approval is decided at leisure, and what is approved is
  // signed later without a question, so every field and finding is shown whole, wrapped.
  std::vector<std::string> lines;
  const auto add = [&](const std::string& label, const std::string& text) {
    bool first = true;
    for (const auto& l : wrap(text, width - 12, kAll)) {
      lines.push_back("  " + (first ? label : std::string(10, ' ')) + l);
      first = false;
    }
  };
  lines.push_back("Approve before it is built: " + printable(q.action));
  add("request   ", request_id_hex(q.request_id) + " (an approval request)");
  add("what      ", r.reads.empty() ? std::string("(no descriptor says)") : r.reads);
  add("vault     ", to_base58(q.vault));
  // Every leaf of the body, as the build request will send it; a key a label knows says so.
  auto leaves = body_fields(q);
  add("body      ", std::to_string(leaves.size()) + " field(s), every one below");
  for (const auto& leaf : leaves) {
    std::string text = leaf.value;
    for (const auto& t : r.tokens) {
      if (to_base58(t.mint) == text)
        text += " (" + t.symbol + (t.pinned ? ", pinned" : ", the online half's hint") + ")";
    }
    if (!takes_path(q.action, leaf.path))
      text += " (NO FIELD of " + q.action + ": the API ignores it)";
    if (const BodyUnit unit = body_amount_unit(r, leaf); unit.label != nullptr)
      text += " (" + whole_units(leaf.value, unit.label->decimals) + " " + unit.label->symbol +
              (unit.pool_side && !unit.pool_pinned
                   ? ": which token the pool holds is the online half's word"
                   : "") +
              ", " + decimals_said(*unit.label) + ")";
    bool first = true;
    for (const auto& l : wrap(leaf.path + ": " + text, width - 14, kAll)) {
      lines.push_back((first ? "            " : "              ") + l);
      first = false;
    }
  }
  const std::int64_t minutes = (expires_at - now + 59) / 60;
  add("until     ", iso_utc(expires_at) + ", " + std::to_string(minutes) +
                        " min from now by this machine's clock");
  const auto findings = [&](const char* heading, const char* mark, const std::vector<Finding>& fs) {
    if (fs.empty()) return;
    lines.push_back(heading);
    for (const auto& f : fs) {
      bool first = true;
      for (const auto& l : wrap(f.code + ": " + f.message, width - 4, kAll)) {
        lines.push_back((first ? "  " + std::string(mark) + " " : std::string(4, ' ')) + l);
        first = false;
      }
    }
  };
  if (r.refused()) {
    add("verdict   ",
        "REFUSED (" + std::to_string(r.refusals.size()) + " reason(s)): nothing will be approved");
    findings("Refused", "x", r.refusals);
  } else {
    add("verdict   ", "nothing refused: it asks you");
    for (const auto& l :
         wrap("Approving records it in the audit log. The build of exactly this body, for this "
              "vault and manager, under this policy, is then signed without a second question, "
              "once, until the time above, if nothing in its transactions warns; anything else "
              "asks as always.",
              width - 4, kAll))
      lines.push_back("  " + l);
    findings("Warnings", "!", r.warnings);
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

namespace {

// A list of findings as the page shows them: code, message, step.
struct Listed {
  std::string code, message;
  std::optional<std::size_t> step;
};

void html_findings(std::ostringstream& page, const std::string& heading,
                   const std::vector<Listed>& findings) {
  if (findings.empty()) return;
  page << "<section class=\"findings\">\n<h2>" << heading << " (" << findings.size()
       << ")</h2>\n<ul>\n";
  for (const auto& f : findings) {
    page << "<li><code>" << xml_escape(printable(f.code)) << "</code> "
         << xml_escape(printable(f.message, true));
    if (f.step) page << " <span class=\"step\">(step " << *f.step + 1 << ")</span>";
    page << "</li>\n";
  }
  page << "</ul>\n</section>\n";
}

std::vector<Listed> listed(const std::vector<Finding>& findings) {
  std::vector<Listed> out;
  out.reserve(findings.size());
  for (const auto& f : findings) out.push_back({f.code, f.message, f.step});
  return out;
}

}  // namespace

std::string render_html_report(const HtmlReport& report) {
  std::ostringstream figures;
  if (report.review != nullptr) {
    const Review& r = *report.review;
    for (const auto& s : r.steps) {
      const Message& m = s.tx.message;
      for (std::size_t i = 0; i < m.instructions.size() && i < s.instructions.size(); ++i) {
        const auto& d = s.instructions[i];
        const auto picture = d ? bin_picture(*d) : std::nullopt;
        if (!picture) continue;
        const auto [x_name, y_name] = side_names(pool_tokens(r, s, *d, m.instructions[i]));
        figures << "<figure>\n"
                << draw_bins_svg(*picture, printable(x_name), printable(y_name))
                << "<figcaption>Step " << s.index + 1 << ", instruction " << i + 1 << " ("
                << xml_escape(printable(d->instruction))
                << "): " << xml_escape(printable(picture->caption, true))
                << "</figcaption>\n</figure>\n";
      }
    }
  }
  const std::string verdict = xml_escape(printable(report.verdict));
  // One class per verdict colour: only these words, whatever the caller passes.
  const std::string tone =
      report.verdict == "signable" || report.verdict == "reissued"                 ? "asks"
      : report.verdict == "auto-approvable" || report.verdict == "approved-before" ? "automatic"
                                                                                   : "refused";
  std::ostringstream page;
  page << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
       << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'\">\n"
       << "<title>airlock review: " << verdict << "</title>\n"
       << "<style>"
          "body{font-family:sans-serif;margin:0 auto;padding:1.5em;max-width:64em;"
          "line-height:1.4;color:#111}"
          "header{border-left:.5em solid #888;padding:.2em 1em;margin-bottom:1.5em}"
          "header.refused{border-color:#b00020}header.asks{border-color:#b26a00}"
          "header.automatic{border-color:#1b7f3b}"
          ".kind{margin:0;color:#555;font-size:90%;text-transform:uppercase;letter-spacing:.05em}"
          "h1{font-size:1.5em;margin:.2em 0}h1 .word{text-transform:uppercase}"
          "h2{font-size:1.15em;margin:1.2em 0 .4em}"
          "dl{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em;margin:.8em 0}"
          "dt{font-weight:bold}dd{margin:0;overflow-wrap:anywhere}"
          ".mono{font-family:monospace}"
          "ul{padding-left:1.2em}li{margin:.3em 0;overflow-wrap:anywhere}"
          "code{font-weight:bold}.step{color:#555}"
          "pre{font-family:monospace;white-space:pre;overflow-x:auto;border:1px solid #ccc;"
          "padding:1em;font-size:90%}"
          "figure{margin:1em 0}figcaption{font-size:90%}"
          "@media print{pre{white-space:pre-wrap}}"
          "</style>\n"
       << "</head>\n<body>\n<header class=\"" << tone << "\">\n"
       << "<p class=\"kind\">airlock review: nothing was signed</p>\n"
       << "<h1><span class=\"word\">" << verdict
       << "</span>: " << xml_escape(printable(report.sentence, true)) << "</h1>\n<dl>\n";
  for (const auto& [label, value] : report.facts) {
    const bool mono = label.find("SHA-256") != std::string::npos ||
                      label.find("id") != std::string::npos || label == "Signer";
    page << "<dt>" << xml_escape(printable(label)) << "</dt><dd" << (mono ? " class=\"mono\"" : "")
         << ">" << xml_escape(printable(value, true)) << "</dd>\n";
  }
  page << "</dl>\n</header>\n";
  if (report.review != nullptr) {
    html_findings(page, "Refusals", listed(report.review->refusals));
    html_findings(page, "Warnings", listed(report.review->warnings));
  }
  std::vector<Listed> problems;
  problems.reserve(report.problems.size());
  for (const auto& [code, message] : report.problems) problems.push_back({code, message, {}});
  html_findings(page, "Refusals", problems);
  page << "<section>\n<h2>The report, as the terminal showed it</h2>\n"
       // The parser drops one newline right after <pre>: this one, never the report's own.
       << "<pre id=\"report\">\n"
       << xml_escape(report.report_text) << "</pre>\n</section>\n";
  const std::string drawn = figures.str();
  if (!drawn.empty()) page << "<section>\n<h2>Liquidity by bin</h2>\n" << drawn << "</section>\n";
  page << "</body>\n</html>\n";
  return page.str();
}

namespace {

// Instruction `i` of a step: its program, every account (named by the decoder or the binding,
// with its key, flags and what bound it), the bins it moves, and the decoded arguments or the
// raw data.
ojson instruction_json(const StepReview& s, std::size_t i) {
  const Message& m = s.tx.message;
  const auto& ix = m.instructions[i];
  ojson entry = {{"program", to_base58(m.static_keys[ix.program_index])}};
  const auto& d = i < s.instructions.size() ? s.instructions[i] : std::nullopt;
  const auto* bindings = i < s.bindings.size() ? &s.bindings[i] : nullptr;
  entry["accounts"] = ojson::array();
  for (std::size_t a = 0; a < ix.accounts.size(); ++a) {
    const std::size_t index = ix.accounts[a];
    const AccountBinding* bound =
        bindings != nullptr && a < bindings->size() ? &(*bindings)[a] : nullptr;
    ojson account;
    if (d && a < d->account_names.size()) {
      account["name"] = d->account_names[a];
    } else if (bound != nullptr) {
      account["name"] = bound->role;
    }
    account["key"] = index < s.roles.size() && s.roles[index].key
                         ? ojson(to_base58(*s.roles[index].key))
                         : ojson(nullptr);
    if (index < s.roles.size()) {
      account["signer"] = s.roles[index].signer;
      account["writable"] = s.roles[index].writable;
    }
    if (bound != nullptr) account["bound"] = {{"source", bound->source}, {"detail", bound->detail}};
    entry["accounts"].push_back(std::move(account));
  }
  if (const auto picture = d ? bin_picture(*d) : std::nullopt) {
    entry["bins"] = {
        {"first_bin", picture->first_bin},
        {"last_bin", picture->last_bin},
        {"active_bin", picture->active_bin ? ojson(*picture->active_bin) : ojson(nullptr)},
        {"meaning", picture->caption},
        {"x", picture->x},
        {"y", picture->y},
        {"out", picture->out}};
  }
  if (d) {
    entry["decoded"] = {
        {"program", d->program}, {"instruction", d->instruction}, {"args", d->args}};
    for (const auto& [name, nested] : d->nested) {
      entry["decoded"]["nested"][name] = {
          {"program", nested.program}, {"instruction", nested.instruction}, {"args", nested.args}};
    }
  } else {
    entry["data_hex"] = to_hex(ix.data);
  }
  return entry;
}

}  // namespace

ojson summary_json(const envelope::SignRequest& q, const Review& r) {
  ojson j;
  j["request_id"] = request_id_hex(q.request_id);
  j["action"] = q.action;
  if (!r.reads.empty()) j["reads"] = r.reads;
  j["manager"] = to_base58(q.manager);
  j["vault"] = to_base58(q.vault);
  j["deadline"] = q.deadline;
  j["intent"] = ojson::parse(q.intent_json, nullptr, false);
  if (j["intent"].is_discarded()) j["intent"] = q.intent_json;
  j["steps"] = ojson::array();
  for (const auto& s : r.steps) {
    ojson step = {
        {"message_sha256", to_hex(s.message_hash.view())},
        {"priority_fee_lamports", s.priority_fee_lamports},
        {"durable_nonce", s.nonce ? ojson(to_base58(s.nonce->nonce_account)) : ojson(nullptr)},
        {"instructions", ojson::array()}};
    for (std::size_t i = 0; i < s.tx.message.instructions.size(); ++i)
      step["instructions"].push_back(instruction_json(s, i));
    j["steps"].push_back(std::move(step));
  }
  j["tokens"] = ojson::array();
  for (const auto& t : r.tokens) {
    j["tokens"].push_back({{"mint", to_base58(t.mint)},
                           {"symbol", t.symbol},
                           {"decimals", t.decimals},
                           {"source", t.pinned ? "policy" : "online-hint"}});
  }
  j["pools"] = ojson::array();
  for (const auto& p : r.pools) {
    j["pools"].push_back({{"pool", to_base58(p.pool)},
                          {"token_x", to_base58(p.token_x)},
                          {"token_y", to_base58(p.token_y)},
                          {"source", p.pinned ? "policy" : "online-hint"}});
  }
  j["warnings"] = findings_json(r.warnings);
  j["refusals"] = findings_json(r.refusals);
  j["auto_approvable"] = r.auto_approvable;
  return j;
}

}  // namespace airlock::offline
