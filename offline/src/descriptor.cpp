#include <algorithm>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>

#include <airlock/common/display.h>
#include <airlock/common/hash.h>
#include <airlock/common/programs.h>
#include <airlock/formats/actions.h>
#include <airlock/formats/keystone.h>
#include <airlock/offline/checkers.h>
#include <airlock/offline/descriptor.h>
#include <airlock/offline/review.h>

namespace airlock::offline {
namespace {

using ojson = nlohmann::ordered_json;

Error invalid(const std::string& where, const std::string& rule) {
  return Error(errors::kDescriptorInvalid, "descriptor: " + where + ": " + rule);
}

// The reader of one JSON object: each key read once, the ones left over refused by name.
class Fields {
 public:
  Fields(const ojson& object, std::string where) : o_(object), where_(std::move(where)) {}

  [[nodiscard]] Status is_object() const {
    if (!o_.is_object()) return invalid(where_, "must be an object");
    return {};
  }
  [[nodiscard]] bool has(const std::string& key) const { return o_.contains(key); }
  [[nodiscard]] std::string at(const std::string& key) const { return where_ + "." + key; }
  [[nodiscard]] const std::string& where() const { return where_; }

  [[nodiscard]] Result<const ojson*> get(const std::string& key) {
    if (!o_.contains(key)) return invalid(where_, "lacks \"" + key + "\"");
    seen_.insert(key);
    return &o_[key];
  }
  [[nodiscard]] Result<std::string> text(const std::string& key) {
    auto v = get(key);
    if (!v.ok()) return v.error();
    if (!(*v)->is_string()) return invalid(at(key), "must be a string");
    return (*v)->get<std::string>();
  }
  [[nodiscard]] Result<std::string> text_or(const std::string& key, std::string fallback) {
    if (!has(key)) return fallback;
    return text(key);
  }
  [[nodiscard]] Result<std::vector<std::string>> texts(const std::string& key) {
    auto v = get(key);
    if (!v.ok()) return v.error();
    if (!(*v)->is_array()) return invalid(at(key), "must be an array of strings");
    std::vector<std::string> out;
    for (const auto& e : **v) {
      if (!e.is_string()) return invalid(at(key), "must be an array of strings");
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  // Refuses any key no rule read.
  [[nodiscard]] Status done() const {
    for (auto it = o_.begin(); it != o_.end(); ++it) {
      if (seen_.count(it.key()) == 0) return invalid(where_, "unknown key \"" + it.key() + "\"");
    }
    return {};
  }

 private:
  const ojson& o_;
  std::string where_;
  std::set<std::string> seen_;
};

// A JSON pointer into the manager's build request ("/field", "/sources/0/mint").
Status body_pointer(const std::string& p, const std::string& where) {
  if (p.empty() || p.front() != '/')
    return invalid(where, "\"" + p + "\" is not a JSON pointer (\"/field\")");
  try {
    (void)ojson::json_pointer(p);
  } catch (const nlohmann::json::exception&) {
    return invalid(where, "\"" + p + "\" is not a JSON pointer");
  }
  return {};
}

// An action's name: lower-case "program/action"; in the builder's namespaces only the 28
// builder actions, and never the Keystone request's (a descriptor may not stand in for either).
Status action_name(const std::string& name, const std::string& where) {
  static const std::regex kForm(R"([a-z0-9_-]+(/[a-z0-9_-]+)+)");
  if (!std::regex_match(name, kForm))
    return invalid(where, "an action's name is lower-case \"program/action\"");
  if (name.substr(0, name.find('/')) ==
      keystone::kSignRequestAction.substr(0, keystone::kSignRequestAction.find('/')))
    return invalid(where, "is in the Keystone request's namespace, which no descriptor may take");
  const std::string space = name.substr(0, name.find('/'));
  const bool builder_space =
      std::any_of(kBuilderActions.begin(), kBuilderActions.end(),
                  [&](std::string_view a) { return a.substr(0, a.find('/')) == space; });
  const bool builder =
      std::find(kBuilderActions.begin(), kBuilderActions.end(), name) != kBuilderActions.end();
  if (builder_space && !builder)
    return invalid(where, "is in a builder namespace but is none of the 28 builder actions");
  return {};
}

Result<PublicKey> key_of(const std::string& text, const std::string& where) {
  auto key = public_key_from_base58(text);
  if (!key.ok()) return invalid(where, "\"" + text + "\" is not a base58 public key");
  return *key;
}

Result<Hash> hash_of(const std::string& text, const std::string& where) {
  auto bytes = from_hex(text, 32);
  if (!bytes.ok() || bytes->size() != 32 || text != to_hex(*bytes))
    return invalid(where, "must be a SHA-256 in 64 lower-case hex digits");
  Hash h{};
  std::copy(bytes->begin(), bytes->end(), h.bytes.begin());
  return h;
}

std::vector<std::string> path_of(const std::string& dotted) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto dot = dotted.find('.', start);
    out.push_back(dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return out;
}

class Parser {
 public:
  Result<Descriptor> run(const ojson& j) {
    Fields top(j, "(top)");
    AIRLOCK_CHECK(top.is_object());
    auto version = top.get("airlock_descriptor");
    if (!version.ok()) return version.error();
    if (!(*version)->is_number_unsigned() || (*version)->get<std::uint64_t>() != kDescriptorVersion)
      return invalid("airlock_descriptor", "must be " + std::to_string(kDescriptorVersion) +
                                               " (the version this build reads)");
    auto name = top.text("name");
    if (!name.ok()) return name.error();
    d_.name = *name;
    auto about = top.text_or("about", "");
    if (!about.ok()) return about.error();
    d_.about = *about;
    AIRLOCK_CHECK(programs(top));
    auto program = top.text("program");
    if (!program.ok()) return program.error();
    if (d_.program_named(*program) == nullptr)
      return invalid("program", "\"" + *program + "\" is not one of programs");
    d_.program = *program;
    if (top.has("account_defaults")) {
      auto v = top.get("account_defaults");
      AIRLOCK_CHECK(accounts(**v, "account_defaults", d_.defaults));
    }
    AIRLOCK_CHECK(instructions(top));
    AIRLOCK_CHECK(actions(top));
    if (top.has("own_addresses")) AIRLOCK_CHECK(own_addresses(top));
    AIRLOCK_CHECK(top.done());
    return std::move(d_);
  }

 private:
  Status programs(Fields& top) {
    auto v = top.get("programs");
    if (!v.ok()) return v.error();
    if (!(*v)->is_object() || (*v)->empty())
      return invalid("programs", "must be a non-empty object");
    for (auto it = (*v)->begin(); it != (*v)->end(); ++it) {
      const std::string where = "programs." + it.key();
      Fields f(it.value(), where);
      AIRLOCK_CHECK(f.is_object());
      DescribedProgram p;
      p.name = it.key();
      auto id = f.text("id");
      if (!id.ok()) return id.error();
      auto key = key_of(*id, f.at("id"));
      if (!key.ok()) return key.error();
      p.id = *key;
      if (d_.program_of(p.id) != nullptr)
        return invalid(where, "its id is already another program's");
      auto label = f.text_or("label", *id);
      if (!label.ok()) return label.error();
      p.label = *label;
      if (f.has("idl")) {
        auto idls = f.get("idl");
        if (!(*idls)->is_array()) return invalid(f.at("idl"), "must be an array");
        std::size_t n = 0;
        for (const auto& e : **idls) {
          const std::string at = f.at("idl") + "[" + std::to_string(n++) + "]";
          Fields pin(e, at);
          AIRLOCK_CHECK(pin.is_object());
          auto file = pin.text("file");
          if (!file.ok()) return file.error();
          if (file->empty() || file->find('/') != std::string::npos || file->front() == '.')
            return invalid(pin.at("file"), "must be a plain file name in the IDL folder");
          auto sha = pin.text("sha256");
          if (!sha.ok()) return sha.error();
          auto h = hash_of(*sha, pin.at("sha256"));
          if (!h.ok()) return h.error();
          AIRLOCK_CHECK(pin.done());
          p.idls.push_back({*file, *h});
        }
      }
      AIRLOCK_CHECK(f.done());
      d_.programs.push_back(std::move(p));
    }
    return {};
  }

  Status accounts(const ojson& v, const std::string& where, std::vector<DescribedAccount>& out) {
    if (!v.is_object()) return invalid(where, "must be an object of account sources");
    for (auto it = v.begin(); it != v.end(); ++it) {
      auto source = account_source(it.value(), where + "." + it.key());
      if (!source.ok()) return source.error();
      out.push_back({it.key(), std::move(*source)});
    }
    return {};
  }

  // A source in one word: vault, manager, token_program, new_signer, new_vault.
  static Result<AccountSource> word_source(const std::string& word, const std::string& where) {
    using K = AccountSource::Kind;
    static const std::pair<std::string_view, K> kWords[] = {{"vault", K::kVault},
                                                            {"manager", K::kManager},
                                                            {"token_program", K::kTokenProgram},
                                                            {"new_signer", K::kNewSigner},
                                                            {"new_vault", K::kNewVault}};
    for (const auto& [name, kind] : kWords) {
      if (word == name) {
        AccountSource s;
        s.kind = kind;
        return s;
      }
    }
    return invalid(where, "\"" + word +
                              "\" is no source (vault, manager, token_program, new_signer, "
                              "new_vault, or an object)");
  }

  Status program_source(Fields& f, AccountSource& s) {
    AIRLOCK_TRY(name, f.text("program"));
    const DescribedProgram* p = d_.program_named(name);
    if (p == nullptr) return invalid(f.at("program"), "\"" + name + "\" is not one of programs");
    s.kind = AccountSource::Kind::kProgram;
    s.program = p->id;
    s.label = p->label;
    return {};
  }

  static Status body_source(Fields& f, AccountSource& s) {
    AIRLOCK_TRY(pointers, f.texts("body"));
    if (pointers.empty()) return invalid(f.at("body"), "must name at least one field");
    for (const auto& p : pointers) AIRLOCK_CHECK(body_pointer(p, f.at("body")));
    s.kind = AccountSource::Kind::kBody;
    s.pointers = std::move(pointers);
    return {};
  }

  static Status checked_source(Fields& f, AccountSource& s) {
    AIRLOCK_TRY(why, f.text("checked"));
    s.kind = AccountSource::Kind::kChecked;
    s.text = why;
    if (f.has("named_by")) {
      AIRLOCK_TRY(by, f.text("named_by"));
      if (by != "pool_hint") return invalid(f.at("named_by"), "must be \"pool_hint\"");
      s.pool_hint = true;
    }
    return {};
  }

  // A source whose one key is its kind and whose text says why (the operator reads it).
  static Status reason_source(Fields& f, const char* key, AccountSource::Kind kind,
                              AccountSource& s) {
    AIRLOCK_TRY(why, f.text(key));
    s.kind = kind;
    s.text = why;
    return {};
  }

  Result<AccountSource> account_source(const ojson& v, const std::string& where) {
    using K = AccountSource::Kind;
    if (v.is_string()) return word_source(v.get<std::string>(), where);
    Fields f(v, where);
    AIRLOCK_CHECK(f.is_object());
    int kinds = 0;
    for (const char* k :
         {"program", "body", "derived", "checked", "policy", "cosigner", "unconstrained"})
      kinds += f.has(k) ? 1 : 0;
    if (kinds != 1)
      return invalid(where,
                     "must hold exactly one of program, body, derived, checked, policy, cosigner, "
                     "unconstrained");
    AccountSource s;
    if (f.has("program")) {
      AIRLOCK_CHECK(program_source(f, s));
    } else if (f.has("body")) {
      AIRLOCK_CHECK(body_source(f, s));
    } else if (f.has("derived")) {
      AIRLOCK_TRY(d, f.get("derived"));
      AIRLOCK_CHECK(derivations(*d, f.at("derived"), s.any_of));
      AIRLOCK_CHECK(reason_source(f, "what", K::kDerived, s));
    } else if (f.has("checked")) {
      AIRLOCK_CHECK(checked_source(f, s));
    } else if (f.has("policy")) {
      AIRLOCK_TRY(what, f.text("policy"));
      if (what != "market")
        return invalid(f.at("policy"), "must be \"market\" (the policy pins perp markets)");
      s.kind = K::kPolicyMarket;
    } else if (f.has("cosigner")) {
      AIRLOCK_CHECK(reason_source(f, "cosigner", K::kCosigner, s));
    } else {
      AIRLOCK_CHECK(reason_source(f, "unconstrained", K::kUnconstrained, s));
    }
    AIRLOCK_CHECK(f.done());
    if ((s.kind == K::kChecked || s.kind == K::kCosigner || s.kind == K::kUnconstrained ||
         s.kind == K::kDerived) &&
        s.text.empty())
      return invalid(where, "must say why (the operator reads it)");
    return s;
  }

  Status derivations(const ojson& v, const std::string& where, std::vector<Derivation>& out) {
    Fields f(v, where);
    AIRLOCK_CHECK(f.is_object());
    if (f.has("any_of")) {
      auto list = f.get("any_of");
      if (!(*list)->is_array() || (*list)->size() < 2)
        return invalid(f.at("any_of"), "must be an array of at least two derivations");
      std::size_t n = 0;
      for (const auto& e : **list) {
        auto one = derivation(e, f.at("any_of") + "[" + std::to_string(n++) + "]");
        if (!one.ok()) return one.error();
        out.push_back(std::move(*one));
      }
      return f.done();
    }
    auto one = derivation(v, where);
    if (!one.ok()) return one.error();
    out.push_back(std::move(*one));
    return {};
  }

  // [{"what": TEXT, "name": NAME, "pda": {"program": NAME, "seeds": [...]}} |
  //  {"what": TEXT, "ata": {"owner": NAME}}, ...]: seeds of constants and the accounts "vault",
  // "mint" or "holding" (one of the last two at most); an ata's owner an earlier pda's name.
  Status own_addresses(Fields& top) {
    AIRLOCK_TRY(list, top.get("own_addresses"));
    if (!list->is_array() || list->empty() || list->size() > 64)
      return invalid("own_addresses", "must be an array of 1 to 64 addresses");
    std::size_t n = 0;
    for (const auto& e : *list) {
      const std::string at = "own_addresses[" + std::to_string(n++) + "]";
      Fields f(e, at);
      AIRLOCK_CHECK(f.is_object());
      OwnAddress own;
      AIRLOCK_TRY(what, reason_at(f, "what"));
      own.what = what;
      if (f.has("name")) {
        AIRLOCK_TRY(name, f.text("name"));
        if (name.empty() || own_address_named(name))
          return invalid(f.at("name"), "must be a name no earlier own address has");
        own.name = name;
      }
      if (f.has("pda") == f.has("ata")) return invalid(at, "must hold exactly one of pda, ata");
      if (f.has("ata")) {
        AIRLOCK_TRY(body, f.get("ata"));
        Fields a(*body, f.at("ata"));
        AIRLOCK_CHECK(a.is_object());
        AIRLOCK_TRY(owner, a.text("owner"));
        const auto index = own_address_named(owner);
        const OwnAddress::For of =
            index ? d_.own_addresses[*index].subject : OwnAddress::For::kMint;
        if (!index || d_.own_addresses[*index].ata_owner || of == OwnAddress::For::kHoldingMint)
          return invalid(a.at("owner"), "\"" + owner +
                                            "\" is no earlier pda entry derived for the vault "
                                            "alone, for each mint or for each holding");
        AIRLOCK_CHECK(a.done());
        own.ata_owner = *index;
        // The vault's alone: its token accounts for each mint; each mint's: its token accounts
        // for that mint; each holding's: for each holding and mint.
        own.subject = of == OwnAddress::For::kHolding ? OwnAddress::For::kHoldingMint
                                                      : OwnAddress::For::kMint;
      } else {
        AIRLOCK_TRY(body, f.get("pda"));
        AIRLOCK_CHECK(pda(*body, f.at("pda"), own.pda));
        AIRLOCK_CHECK(own_seeds(own, f.at("pda")));
      }
      AIRLOCK_CHECK(f.done());
      d_.own_addresses.push_back(std::move(own));
    }
    return {};
  }

  std::optional<std::size_t> own_address_named(const std::string& name) const {
    for (std::size_t i = 0; i < d_.own_addresses.size(); ++i) {
      if (d_.own_addresses[i].name == name) return i;
    }
    return std::nullopt;
  }

  // An own address derives from the vault and from at most one mint or holding.
  static Status own_seeds(OwnAddress& own, const std::string& where) {
    bool vault = false;
    for (std::size_t i = 0; i < own.pda.seeds.size(); ++i) {
      const SeedSource& seed = own.pda.seeds[i];
      if (seed.kind != SeedSource::Kind::kAccount) continue;
      const std::string at = where + ".seeds[" + std::to_string(i) + "]";
      if (seed.account == "vault") {
        vault = true;
        continue;
      }
      if (seed.account != "mint" && seed.account != "holding")
        return invalid(at, "\"" + seed.account +
                               "\" is not vault, mint or holding (an own address is derived "
                               "from the vault and what the request names)");
      if (own.subject != OwnAddress::For::kVault)
        return invalid(at, "an own address is for one mint or one holding, not two");
      own.subject = seed.account == "mint" ? OwnAddress::For::kMint : OwnAddress::For::kHolding;
    }
    if (!vault) return invalid(where, "an own address derives from the vault");
    return {};
  }

  Result<PublicKey> program_id(Fields& f) {
    AIRLOCK_TRY(name, f.text("program"));
    const DescribedProgram* named = d_.program_named(name);
    if (named == nullptr)
      return invalid(f.at("program"), "\"" + name + "\" is not one of programs");
    return named->id;
  }

  static Result<SeedSource> seed_source(const ojson& e, const std::string& at) {
    Fields s(e, at);
    AIRLOCK_CHECK(s.is_object());
    SeedSource seed;
    if (s.has("const") == s.has("account"))
      return invalid(at, "must hold exactly one of const, account");
    if (s.has("const")) {
      AIRLOCK_TRY(text, s.text("const"));
      if (text.empty() || text.size() > 32) return invalid(at, "a constant seed is 1 to 32 bytes");
      seed.kind = SeedSource::Kind::kConst;
      seed.bytes.assign(text.begin(), text.end());
    } else {
      AIRLOCK_TRY(account, s.text("account"));
      seed.kind = SeedSource::Kind::kAccount;
      seed.account = account;
    }
    AIRLOCK_CHECK(s.done());
    return seed;
  }

  Status pda(const ojson& v, const std::string& where, Derivation& d) {
    Fields p(v, where);
    AIRLOCK_CHECK(p.is_object());
    d.kind = Derivation::Kind::kPda;
    AIRLOCK_TRY(program, program_id(p));
    d.program = program;
    AIRLOCK_TRY(seeds, p.get("seeds"));
    if (!seeds->is_array() || seeds->empty() || seeds->size() > 16)
      return invalid(p.at("seeds"), "must be an array of 1 to 16 seeds");
    std::size_t n = 0;
    for (const auto& e : *seeds) {
      AIRLOCK_TRY(seed, seed_source(e, p.at("seeds") + "[" + std::to_string(n++) + "]"));
      d.seeds.push_back(std::move(seed));
    }
    return p.done();
  }

  static Status ata(const ojson& v, const std::string& where, Derivation& d) {
    Fields a(v, where);
    AIRLOCK_CHECK(a.is_object());
    d.kind = Derivation::Kind::kAssociatedToken;
    AIRLOCK_TRY(owner, a.text("owner"));
    AIRLOCK_TRY(mint, a.text("mint"));
    AIRLOCK_TRY(token, a.text("token_program"));
    d.owner = owner;
    d.mint = mint;
    d.token_program = token;
    return a.done();
  }

  static Result<IntegerTerm> integer_term(const ojson& e, const std::string& at) {
    Fields t(e, at);
    AIRLOCK_CHECK(t.is_object());
    IntegerTerm term;
    if (t.has("arg") == t.has("const")) return invalid(at, "must hold exactly one of arg, const");
    if (t.has("arg")) {
      AIRLOCK_TRY(arg, t.text("arg"));
      term.arg = path_of(arg);
    } else {
      AIRLOCK_TRY(c, t.get("const"));
      if (!c->is_number_integer() || c->get<std::int64_t>() < -1'000'000 ||
          c->get<std::int64_t>() > 1'000'000)
        return invalid(t.at("const"), "must be an integer within +-1000000");
      term.constant = c->get<std::int64_t>();
    }
    AIRLOCK_CHECK(t.done());
    return term;
  }

  Status bin_array(const ojson& v, const std::string& where, Derivation& d) {
    Fields b(v, where);
    AIRLOCK_CHECK(b.is_object());
    d.kind = Derivation::Kind::kBinArray;
    AIRLOCK_TRY(program, program_id(b));
    d.program = program;
    AIRLOCK_TRY(pool, b.text("pool"));
    d.pool = pool;
    AIRLOCK_TRY(bin, b.get("bin"));
    if (!bin->is_array() || bin->empty() || bin->size() > 8)
      return invalid(b.at("bin"), "must be an array of 1 to 8 terms");
    std::size_t n = 0;
    for (const auto& e : *bin) {
      AIRLOCK_TRY(term, integer_term(e, b.at("bin") + "[" + std::to_string(n++) + "]"));
      d.bin.push_back(std::move(term));
    }
    return b.done();
  }

  Result<Derivation> derivation(const ojson& v, const std::string& where) {
    Fields f(v, where);
    AIRLOCK_CHECK(f.is_object());
    Derivation d;
    if (f.has("pda")) {
      AIRLOCK_TRY(body, f.get("pda"));
      AIRLOCK_CHECK(pda(*body, f.at("pda"), d));
    } else if (f.has("ata")) {
      AIRLOCK_TRY(body, f.get("ata"));
      AIRLOCK_CHECK(ata(*body, f.at("ata"), d));
    } else if (f.has("bin_array")) {
      AIRLOCK_TRY(body, f.get("bin_array"));
      AIRLOCK_CHECK(bin_array(*body, f.at("bin_array"), d));
    } else {
      return invalid(where, "must hold one of pda, ata, bin_array, any_of");
    }
    AIRLOCK_CHECK(f.done());
    return d;
  }

  // The body pointer under `key`.
  static Result<std::string> pointer_at(Fields& f, const std::string& key) {
    AIRLOCK_TRY(pointer, f.text(key));
    AIRLOCK_CHECK(body_pointer(pointer, f.at(key)));
    return pointer;
  }

  // A reason that says something.
  static Result<std::string> reason_at(Fields& f, const std::string& key) {
    AIRLOCK_TRY(reason, f.text(key));
    if (reason.empty()) return invalid(f.at(key), "must say why");
    // It goes to the operator's screen as it is: no control or direction characters.
    if (!is_printable(reason))
      return invalid(f.at(key), "must be printable text (no control or direction characters)");
    return reason;
  }

  // A string -> string object, in the file's order.
  static Status text_map(const ojson& v, const std::string& where,
                         std::vector<std::pair<std::string, std::string>>& out) {
    if (!v.is_object() || v.empty()) return invalid(where, "must be a non-empty object of strings");
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!it.value().is_string()) return invalid(where + "." + it.key(), "must be a string");
      out.emplace_back(it.key(), it.value().get<std::string>());
    }
    return {};
  }

  static Status ceiling(Fields& f, ArgumentRule& rule) {
    if (!f.has("ceiling")) return {};
    AIRLOCK_TRY(name, f.text("ceiling"));
    if (name != "max_slippage_bps" && name != "max_active_bin_slippage")
      return invalid(f.at("ceiling"), "\"" + name +
                                          "\" is no policy ceiling (max_slippage_bps, "
                                          "max_active_bin_slippage)");
    rule.ceiling = name;
    return {};
  }

  // {"within": {"lower": P, "upper": P, "from": P, "if_given": true}}
  static Status within_rule(Fields& f, ArgumentRule& rule) {
    rule.kind = ArgumentRule::Kind::kWithin;
    AIRLOCK_TRY(range, f.get("within"));
    Fields w(*range, f.at("within"));
    AIRLOCK_CHECK(w.is_object());
    AIRLOCK_TRY(lower, pointer_at(w, "lower"));
    AIRLOCK_TRY(upper, pointer_at(w, "upper"));
    rule.lower = lower;
    rule.upper = upper;
    if (w.has("from")) {
      AIRLOCK_TRY(from, pointer_at(w, "from"));
      rule.from = from;
    }
    if (w.has("if_given")) {
      AIRLOCK_TRY(given, w.get("if_given"));
      if (!given->is_boolean()) return invalid(w.at("if_given"), "must be true or false");
      rule.if_given = given->get<bool>();
    }
    return w.done();
  }

  // {"each": P, "fields": {FIELD: P or {"equals": P, "refuses": CODE}}, "all": WORD}
  static Status each_rule(Fields& f, ArgumentRule& rule) {
    rule.kind = ArgumentRule::Kind::kEach;
    AIRLOCK_TRY(pointer, pointer_at(f, "each"));
    rule.pointer = pointer;
    AIRLOCK_TRY(fields, f.get("fields"));
    if (!fields->is_object() || fields->empty())
      return invalid(f.at("fields"), "must map element fields to body pointers");
    for (auto it = fields->begin(); it != fields->end(); ++it) {
      // "field": POINTER, or "field": {"equals": POINTER, "refuses": CODE}
      const ojson element = it.value().is_string() ? ojson{{"equals", it.value()}} : it.value();
      Fields e(element, f.at("fields") + "." + it.key());
      AIRLOCK_CHECK(e.is_object());
      ArgumentRule inner;
      AIRLOCK_TRY(inner_pointer, pointer_at(e, "equals"));
      AIRLOCK_CHECK(finding(e, inner));
      AIRLOCK_CHECK(e.done());
      rule.fields.emplace_back(it.key(), inner_pointer);
      rule.field_codes.push_back(inner.code);
    }
    if (f.has("all")) {
      AIRLOCK_TRY(all, f.text("all"));
      rule.all = all;
    }
    return {};
  }

  static Status argument_rule(Fields& f, ArgumentRule& rule) {
    static const char* const kKinds[] = {"equals", "at_most",       "within",  "variant",
                                         "each",   "unconstrained", "checker", "shown"};
    const auto kinds = std::count_if(std::begin(kKinds), std::end(kKinds),
                                     [&](const char* k) { return f.has(k); });
    if (kinds != 1)
      return invalid(f.where(),
                     "must hold exactly one of equals, at_most, within, variant, each, shown, "
                     "unconstrained, checker");
    using K = ArgumentRule::Kind;
    if (f.has("equals")) {
      AIRLOCK_TRY(equals, f.get("equals"));
      if (equals->is_string()) {
        AIRLOCK_TRY(pointer, pointer_at(f, "equals"));
        rule.pointers.push_back(pointer);
      } else {
        AIRLOCK_TRY(pointers, f.texts("equals"));
        if (pointers.empty()) return invalid(f.at("equals"), "must name a body field");
        for (const auto& p : pointers) AIRLOCK_CHECK(body_pointer(p, f.at("equals")));
        rule.pointers = pointers;
      }
      if (f.has("absent")) {
        AIRLOCK_TRY(absent, f.text("absent"));
        if (absent != "none") return invalid(f.at("absent"), "must be \"none\"");
        rule.absent_is_none = true;
      }
      return ceiling(f, rule);
    }
    if (f.has("at_most")) {
      rule.kind = K::kAtMost;
      AIRLOCK_TRY(pointer, pointer_at(f, "at_most"));
      rule.pointer = pointer;
      return ceiling(f, rule);
    }
    if (f.has("within")) return within_rule(f, rule);
    if (f.has("variant")) {
      rule.kind = K::kVariant;
      AIRLOCK_TRY(pointer, pointer_at(f, "variant"));
      rule.pointer = pointer;
      AIRLOCK_TRY(map, f.get("map"));
      return text_map(*map, f.at("map"), rule.variants);
    }
    if (f.has("each")) return each_rule(f, rule);
    if (f.has("checker")) {
      rule.kind = K::kChecker;
      AIRLOCK_TRY(name, f.text("checker"));
      if (!is_argument_checker(name))
        return invalid(f.at("checker"),
                       "\"" + name + "\" is no named checker (" + argument_checker_names() + ")");
      rule.checker = name;
      return {};
    }
    rule.kind = f.has("shown") ? K::kShown : K::kUnconstrained;
    AIRLOCK_TRY(reason, reason_at(f, f.has("shown") ? "shown" : "unconstrained"));
    rule.reason = reason;
    return {};
  }

  // The finding a rule makes, where it names one: "refuses" an intent.* code for the rules that
  // hold an argument to the body, "warns" a warn.* code for a shown argument.
  static Status finding(Fields& f, ArgumentRule& rule) {
    using K = ArgumentRule::Kind;
    const bool holds = rule.kind == K::kEquals || rule.kind == K::kAtMost ||
                       rule.kind == K::kWithin || rule.kind == K::kVariant || rule.kind == K::kEach;
    for (const auto& [key, prefix, fits] :
         {std::tuple<const char*, std::string_view, bool>{"refuses", "intent.", holds},
          {"warns", "warn.", rule.kind == K::kShown}}) {
      if (!f.has(key)) continue;
      AIRLOCK_TRY(name, f.text(key));
      if (!fits) return invalid(f.at(key), "does not fit this rule");
      const auto it = std::find_if(kAllFindingCodes.begin(), kAllFindingCodes.end(),
                                   [&](const FindingCode* c) { return c->name() == name; });
      if (it == kAllFindingCodes.end() || !name.starts_with(prefix))
        return invalid(f.at(key), "\"" + name + "\" is no " + std::string(prefix) +
                                      "* code of docs/policy.md");
      rule.code = *it;
    }
    return {};
  }

  static Status argument_rules(const ojson& v, const std::string& where,
                               std::vector<DescribedArgument>& out) {
    if (!v.is_object()) return invalid(where, "must be an object of argument rules");
    for (auto it = v.begin(); it != v.end(); ++it) {
      Fields f(it.value(), where + "." + it.key());
      AIRLOCK_CHECK(f.is_object());
      DescribedArgument arg;
      arg.name = it.key();
      AIRLOCK_CHECK(argument_rule(f, arg.rule));
      AIRLOCK_CHECK(finding(f, arg.rule));
      AIRLOCK_CHECK(f.done());
      out.push_back(std::move(arg));
    }
    return {};
  }

  // "ACCOUNT" (its key is the mint) or "ACCOUNT.token_x" / "ACCOUNT.token_y" (a pool's token).
  static Result<AmountUnit> amount_unit(const ojson& v, const std::string& where) {
    if (!v.is_string())
      return invalid(where, "must be an account name, or ACCOUNT.token_x or ACCOUNT.token_y");
    const auto text = v.get<std::string>();
    const auto dot = text.find('.');
    AmountUnit unit{text.substr(0, dot)};
    if (dot != std::string::npos) {
      const auto side = text.substr(dot + 1);
      if (side != "token_x" && side != "token_y")
        return invalid(where, "\"" + text + "\": after the account comes token_x or token_y");
      unit.side = side == "token_x" ? AmountUnit::Side::kTokenX : AmountUnit::Side::kTokenY;
    }
    if (unit.account.empty()) return invalid(where, "names no account");
    return unit;
  }

  // "amounts": {PATH: {"mint": UNIT or {"by": ENUM_ARGUMENT, VARIANT: UNIT, ...},
  //                    "moves": "where it goes"}}
  static Status amounts(const ojson& v, const std::string& where,
                        std::vector<DescribedAmount>& out) {
    if (!v.is_object()) return invalid(where, "must be an object of amounts");
    for (auto it = v.begin(); it != v.end(); ++it) {
      Fields f(it.value(), where + "." + it.key());
      AIRLOCK_CHECK(f.is_object());
      DescribedAmount amount;
      amount.path = it.key();
      AIRLOCK_TRY(mint, f.get("mint"));
      if (mint->is_object()) {
        Fields by(*mint, f.at("mint"));
        AIRLOCK_TRY(name, by.text("by"));
        amount.by = name;
        for (auto u = mint->begin(); u != mint->end(); ++u) {
          if (u.key() == "by") continue;
          AIRLOCK_TRY(unit, amount_unit(u.value(), by.at(u.key())));
          amount.units.emplace_back(u.key(), unit);
        }
        if (amount.units.empty())
          return invalid(f.at("mint"), "names no variant's unit besides \"by\"");
      } else {
        AIRLOCK_TRY(unit, amount_unit(*mint, f.at("mint")));
        amount.units.emplace_back("", unit);
      }
      if (f.has("moves")) {
        AIRLOCK_TRY(moves, f.text("moves"));
        if (moves.empty()) return invalid(f.at("moves"), "must not be empty");
        amount.moves = moves;
      }
      AIRLOCK_CHECK(f.done());
      out.push_back(std::move(amount));
    }
    return {};
  }

  Status instructions(Fields& top) {
    auto v = top.get("instructions");
    if (!v.ok()) return v.error();
    if (!(*v)->is_object() || (*v)->empty())
      return invalid("instructions", "must be a non-empty object");
    for (auto it = (*v)->begin(); it != (*v)->end(); ++it) {
      const std::string where = "instructions." + it.key();
      Fields f(it.value(), where);
      AIRLOCK_CHECK(f.is_object());
      DescribedInstruction ix;
      ix.key = it.key();
      auto program = f.text("program");
      if (!program.ok()) return program.error();
      const DescribedProgram* p = d_.program_named(*program);
      if (p == nullptr)
        return invalid(f.at("program"), "\"" + *program + "\" is not one of programs");
      ix.program = *program;
      ix.program_id = p->id;
      auto name = f.text_or("instruction", it.key());
      if (!name.ok()) return name.error();
      ix.instruction = *name;
      auto acc = f.get("accounts");
      if (!acc.ok()) return acc.error();
      AIRLOCK_CHECK(accounts(**acc, f.at("accounts"), ix.accounts));
      if (f.has("mints")) {
        auto mints = f.texts("mints");
        if (!mints.ok()) return mints.error();
        ix.mints = std::move(*mints);
      }
      if (f.has("remaining_accounts")) {
        AIRLOCK_TRY(rest, f.text("remaining_accounts"));
        if (rest != "jupiter_route" && rest != "adaptor_accounts")
          return invalid(f.at("remaining_accounts"),
                         "\"" + rest + "\" is no named checker (jupiter_route, adaptor_accounts)");
        ix.remaining = rest;
      }
      if (f.has("swaps")) {
        auto swaps = f.texts("swaps");
        if (!swaps.ok()) return swaps.error();
        if (swaps->size() != 2 || (*swaps)[0] == (*swaps)[1])
          return invalid(f.at("swaps"),
                         "must name two accounts: the mint the swap sells, then the one it buys");
        ix.sells = (*swaps)[0];
        ix.buys = (*swaps)[1];
      }
      if (ix.remaining == "jupiter_route" && ix.sells.empty())
        return invalid(where,
                       "passes a Jupiter route, so it must say which mints it swaps (\"swaps\": "
                       "[sold, bought]): a route's price is judged by its pair");
      if (ix.remaining != "jupiter_route" && !ix.sells.empty())
        return invalid(f.at("swaps"), "is only for an instruction that passes a Jupiter route");
      if (f.has("args")) {
        AIRLOCK_TRY(args, f.get("args"));
        AIRLOCK_CHECK(argument_rules(*args, f.at("args"), ix.args));
      }
      if (f.has("amounts")) {
        AIRLOCK_TRY(list, f.get("amounts"));
        AIRLOCK_CHECK(amounts(*list, f.at("amounts"), ix.amounts));
      }
      if (f.has("outflows")) {
        AIRLOCK_TRY(outflows, f.texts("outflows"));
        for (std::size_t k = 0; k < outflows.size(); ++k) {
          const std::string& path = outflows[k];
          if (std::none_of(ix.amounts.begin(), ix.amounts.end(),
                           [&](const DescribedAmount& a) { return a.path == path; }))
            return invalid(f.at("outflows"), "names \"" + path + "\", which is none of amounts");
          if (std::find(outflows.begin(), outflows.begin() + static_cast<std::ptrdiff_t>(k),
                        path) != outflows.begin() + static_cast<std::ptrdiff_t>(k))
            return invalid(f.at("outflows"), "names \"" + path + "\" twice");
        }
        ix.outflows = std::move(outflows);
      }
      AIRLOCK_CHECK(f.done());
      for (const auto& other : d_.instructions) {
        if (other.program_id == ix.program_id && other.instruction == ix.instruction)
          return invalid(where, "describes " + ix.instruction + " again (also " + other.key + ")");
      }
      d_.instructions.push_back(std::move(ix));
    }
    return {};
  }

  Status actions(Fields& top) {
    auto v = top.get("actions");
    if (!v.ok()) return v.error();
    if (!(*v)->is_object() || (*v)->empty())
      return invalid("actions", "must be a non-empty object");
    for (auto it = (*v)->begin(); it != (*v)->end(); ++it) {
      const std::string where = "actions." + it.key();
      Fields f(it.value(), where);
      AIRLOCK_CHECK(f.is_object());
      DescribedAction a;
      a.name = it.key();
      AIRLOCK_CHECK(action_name(a.name, where));
      auto reads = f.text("reads");
      if (!reads.ok()) return reads.error();
      if (reads->empty()) return invalid(f.at("reads"), "must be a sentence");
      a.reads = *reads;
      auto ixs = f.texts("instructions");
      if (!ixs.ok()) return ixs.error();
      if (ixs->empty()) return invalid(f.at("instructions"), "must name at least one");
      for (const auto& key : *ixs) {
        const DescribedInstruction* ix = d_.instruction(key);
        if (ix == nullptr)
          return invalid(f.at("instructions"), "\"" + key + "\" is not one of instructions");
        a.instruction_index.push_back(static_cast<std::size_t>(ix - d_.instructions.data()));
      }
      a.instructions = std::move(*ixs);
      if (f.has("follow_ups")) {
        auto next = f.texts("follow_ups");
        if (!next.ok()) return next.error();
        a.follow_ups = std::move(*next);
      }
      if (f.has("steps")) {
        auto steps = f.get("steps");
        AIRLOCK_CHECK(step_rule(**steps, f.at("steps"), a.steps));
      }
      if (f.has("then")) {
        AIRLOCK_TRY(then, f.get("then"));
        AIRLOCK_CHECK(text_map(*then, f.at("then"), a.then));
        for (const auto& [key, next] : a.then) {
          if (std::find(a.instructions.begin(), a.instructions.end(), key) == a.instructions.end())
            return invalid(f.at("then") + "." + key, "is not one of the action's instructions");
          if (std::find(a.follow_ups.begin(), a.follow_ups.end(), next) == a.follow_ups.end())
            return invalid(f.at("then") + "." + key,
                           "\"" + next + "\" is not one of the action's follow_ups");
        }
      }
      AIRLOCK_CHECK(f.done());
      d_.actions.push_back(std::move(a));
    }
    for (const auto& a : d_.actions) {
      for (const auto& next : a.follow_ups) {
        if (d_.action(next) == nullptr)
          return invalid("actions." + a.name + ".follow_ups",
                         "\"" + next + "\" is not one of actions");
      }
    }
    return {};
  }

  Status step_rule(const ojson& v, const std::string& where, StepRule& out) {
    Fields f(v, where);
    AIRLOCK_CHECK(f.is_object());
    auto ranged = f.get("ranged");
    if (!ranged.ok()) return ranged.error();
    Fields r(**ranged, f.at("ranged"));
    AIRLOCK_CHECK(r.is_object());
    out.ranged = true;
    auto lower = r.text("lower"), upper = r.text("upper");
    if (!lower.ok()) return lower.error();
    if (!upper.ok()) return upper.error();
    out.lower = path_of(*lower);
    out.upper = path_of(*upper);
    auto max = r.get("max_bins");
    if (!max.ok()) return max.error();
    if (!(*max)->is_number_unsigned() || (*max)->get<std::uint64_t>() == 0 ||
        (*max)->get<std::uint64_t>() > 1000)
      return invalid(r.at("max_bins"), "must be an integer from 1 to 1000");
    out.max_bins = (*max)->get<std::size_t>();
    auto body = r.get("body");
    if (!body.ok()) return body.error();
    Fields b(**body, r.at("body"));
    AIRLOCK_CHECK(b.is_object());
    AIRLOCK_TRY(body_lower, b.text("lower"));
    AIRLOCK_TRY(body_upper, b.text("upper"));
    AIRLOCK_TRY(resume, b.text_or("resume", ""));
    out.body_lower = body_lower;
    out.body_upper = body_upper;
    out.body_resume = resume;
    if (b.has("upper_exclusive")) {
      AIRLOCK_TRY(exclusive, b.get("upper_exclusive"));
      if (!exclusive->is_boolean())
        return invalid(b.at("upper_exclusive"), "must be true or false");
      out.body_upper_exclusive = exclusive->get<bool>();
    }
    AIRLOCK_CHECK(b.done());
    if (r.has("shares")) {
      auto shares = r.get("shares");
      if (!(*shares)->is_object() || (*shares)->empty())
        return invalid(r.at("shares"), "must map arguments to body fields");
      for (auto s = (*shares)->begin(); s != (*shares)->end(); ++s) {
        if (!s.value().is_string())
          return invalid(r.at("shares") + "." + s.key(), "must be a body field's name");
        out.shares.emplace_back(s.key(), s.value().get<std::string>());
      }
    }
    if (r.has("cover")) {
      auto cover = r.get("cover");
      if (!(*cover)->is_boolean()) return invalid(r.at("cover"), "must be true or false");
      out.cover = (*cover)->get<bool>();
    }
    if (r.has("sides")) {
      AIRLOCK_TRY(sides, r.get("sides"));
      Fields sd(*sides, r.at("sides"));
      AIRLOCK_CHECK(sd.is_object());
      AIRLOCK_TRY(active, sd.text("active"));
      AIRLOCK_TRY(above, sd.text("above"));
      AIRLOCK_TRY(below, sd.text("below"));
      AIRLOCK_CHECK(sd.done());
      for (const auto& [name, arg] : {std::pair{"above", &above}, std::pair{"below", &below}}) {
        // A plain copy for the lambda: clang 14 does not capture structured bindings.
        const std::string& wanted = *arg;
        const bool shared = std::any_of(out.shares.begin(), out.shares.end(),
                                        [&wanted](const auto& s) { return s.first == wanted; });
        if (!shared) return invalid(sd.at(name), "must be one of the arguments shares names");
      }
      if (above == below) return invalid(sd.at("below"), "must not be the same as above");
      out.active = path_of(active);
      out.above = above;
      out.below = below;
    }
    if (!out.cover && out.shares.empty())
      return invalid(f.at("ranged"), "must hold shares, cover: true, or both");
    AIRLOCK_CHECK(r.done());
    return f.done();
  }

  Descriptor d_;
};

// ---- checking against the IDLs ----------------------------------------------------------------

const IdlInstruction* idl_instruction(const std::map<PublicKey, std::vector<Idl>>& idls,
                                      const PublicKey& program, std::string_view name) {
  const auto it = idls.find(program);
  if (it == idls.end()) return nullptr;
  for (const auto& idl : it->second) {
    if (const auto* ix = find_instruction(idl, name)) return ix;
  }
  return nullptr;
}

const IdlField* field_named(const std::vector<IdlField>& fields, std::string_view name) {
  for (const auto& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string join(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& p : path) out += (out.empty() ? "" : ".") + p;
  return out;
}

using IdlMap = std::map<PublicKey, std::vector<Idl>>;

const IdlTypeDef* defined_type(const IdlMap& idls, const PublicKey& program,
                               const std::string& name) {
  for (const auto& idl : idls.at(program)) {
    if (const auto t = idl.types.find(name); t != idl.types.end()) return &t->second;
  }
  return nullptr;
}

// The IDL type of a dotted argument path ("update.deposit_cap"), or nullptr when the path
// names nothing: each step but the last goes through a defined struct.
const IdlType* path_type(const IdlMap& idls, const PublicKey& program, const IdlInstruction& ix,
                         std::string_view path) {
  const std::vector<IdlField>* fields = &ix.args;
  while (true) {
    const std::size_t dot = path.find('.');
    const IdlField* f = field_named(*fields, path.substr(0, dot));
    if (f == nullptr) return nullptr;
    if (dot == std::string_view::npos) return f->type.get();
    if (f->type->kind != IdlType::Kind::kDefined) return nullptr;
    const IdlTypeDef* def = defined_type(idls, program, f->type->defined);
    if (def == nullptr || def->is_enum) return nullptr;
    fields = &def->fields;
    path.remove_prefix(dot + 1);
  }
}

bool integer_type(const IdlType& t) {
  if (t.kind != IdlType::Kind::kPrimitive) return false;
  const std::string& p = t.primitive;
  return p == "u8" || p == "u16" || p == "u32" || p == "u64" || p == "i8" || p == "i16" ||
         p == "i32" || p == "i64";
}

// Whether a dotted argument path leads to an integer of the instruction.
bool integer_path(const IdlMap& idls, const PublicKey& program, const IdlInstruction& ix,
                  const std::vector<std::string>& path) {
  const IdlType* t = path_type(idls, program, ix, join(path));
  return t != nullptr && integer_type(*t);
}

// The source the IDL states for an account: its fixed address, or its pda when every seed is a
// constant or another account of the instruction and its program is fixed. nullopt otherwise
// (an argument seed or a field of an account's data: the descriptor must give a source).
std::optional<AccountSource> idl_source(const Descriptor& descriptor,
                                        const DescribedInstruction& ix, const IdlInstruction& idl,
                                        const IdlAccount& account) {
  AccountSource s;
  if (account.address) {
    s.kind = AccountSource::Kind::kProgram;
    s.program = *account.address;
    const DescribedProgram* known = descriptor.program_of(*account.address);
    s.label = known != nullptr ? known->label
                               : "the address the IDL fixes (" + to_base58(*account.address) + ")";
    return s;
  }
  if (!account.pda) return std::nullopt;
  Derivation d;
  d.kind = Derivation::Kind::kPda;
  d.program = ix.program_id;
  const auto is_account = [&](const std::string& name) {
    return name != account.name && std::any_of(idl.accounts.begin(), idl.accounts.end(),
                                               [&](const IdlAccount& a) { return a.name == name; });
  };
  for (const auto& seed : account.pda->seeds) {
    if (seed.kind == IdlSeed::Kind::kConst) {
      d.seeds.push_back({SeedSource::Kind::kConst, seed.value, {}});
    } else if (seed.kind == IdlSeed::Kind::kAccount && is_account(seed.path)) {
      d.seeds.push_back({SeedSource::Kind::kAccount, {}, seed.path});
    } else {
      return std::nullopt;
    }
  }
  if (account.pda->program) {
    if (account.pda->program->kind != IdlSeed::Kind::kConst) return std::nullopt;
    std::copy(account.pda->program->value.begin(), account.pda->program->value.end(),
              d.program.bytes.begin());
  }
  s.kind = AccountSource::Kind::kDerived;
  s.any_of.push_back(std::move(d));
  s.text = "the address the IDL derives for " + account.name;
  return s;
}

bool same_derivation(const Derivation& a, const Derivation& b) {
  if (a.kind != Derivation::Kind::kPda || b.kind != Derivation::Kind::kPda ||
      a.program != b.program || a.seeds.size() != b.seeds.size())
    return false;
  for (std::size_t i = 0; i < a.seeds.size(); ++i) {
    if (a.seeds[i].kind != b.seeds[i].kind || a.seeds[i].bytes != b.seeds[i].bytes ||
        a.seeds[i].account != b.seeds[i].account)
      return false;
  }
  return true;
}

// A source the descriptor gives where the IDL states one must be the IDL's: the same fixed
// address, or the same derivation (an associated token account is the pda of its seeds under
// the Associated Token program, as the IDL writes it).
Status agrees(const AccountSource& given, const AccountSource& stated, const std::string& where) {
  if (stated.kind == AccountSource::Kind::kProgram) {
    if (given.kind == AccountSource::Kind::kProgram && given.program == stated.program) return {};
    return invalid(where, "the IDL fixes this account at " + to_base58(stated.program) +
                              "; the descriptor may not give it another source");
  }
  const auto as_pda = [](const Derivation& d) {
    if (d.kind != Derivation::Kind::kAssociatedToken) return d;
    Derivation pda;
    pda.program = programs::key(programs::kAssociatedToken);
    for (const auto* account : {&d.owner, &d.token_program, &d.mint})
      pda.seeds.push_back({SeedSource::Kind::kAccount, {}, *account});
    return pda;
  };
  if (given.kind == AccountSource::Kind::kDerived && given.any_of.size() == 1 &&
      same_derivation(as_pda(given.any_of.front()), stated.any_of.front()))
    return {};
  return invalid(where,
                 "the IDL derives this account; the descriptor's source must be that same "
                 "derivation (or be left out)");
}

}  // namespace

template <class Json>
Result<Json> parse_strict_json(std::string_view text, std::string_view what) {
  std::vector<std::set<std::string>> open;
  std::string duplicate;
  const auto callback = [&](int /*depth*/, typename Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        open.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        if (!open.empty()) open.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!open.empty() && !open.back().insert(parsed.template get<std::string>()).second &&
            duplicate.empty())
          duplicate = parsed.template get<std::string>();
        break;
      default:
        break;
    }
    return true;
  };
  Json j = Json::parse(text.begin(), text.end(), callback, false);
  if (j.is_discarded())
    return Error(errors::kDescriptorInvalid, std::string(what) + " is not valid JSON");
  if (!duplicate.empty())
    return Error(errors::kDescriptorInvalid,
                 std::string(what) + ": key \"" + duplicate + "\" appears twice in one object");
  return j;
}

template Result<ojson> parse_strict_json(std::string_view, std::string_view);
template Result<nlohmann::json> parse_strict_json(std::string_view, std::string_view);

const DescribedAccount* DescribedInstruction::account(std::string_view name) const {
  for (const auto& a : accounts) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

const DescribedAccount* Descriptor::default_for(std::string_view account) const {
  for (const auto& a : defaults) {
    if (a.name == account) return &a;
  }
  return nullptr;
}

const DescribedProgram* Descriptor::program_named(std::string_view wanted) const {
  for (const auto& p : programs) {
    if (p.name == wanted) return &p;
  }
  return nullptr;
}

const DescribedProgram* Descriptor::program_of(const PublicKey& id) const {
  for (const auto& p : programs) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

const DescribedInstruction* Descriptor::instruction(std::string_view key) const {
  for (const auto& ix : instructions) {
    if (ix.key == key) return &ix;
  }
  return nullptr;
}

const DescribedAction* Descriptor::action(std::string_view wanted) const {
  for (const auto& a : actions) {
    if (a.name == wanted) return &a;
  }
  return nullptr;
}

const DescribedInstruction* Descriptor::step_instruction(const DescribedAction& action,
                                                         const PublicKey& program_id,
                                                         std::string_view idl_name) const {
  for (const std::size_t i : action.instruction_index) {
    const DescribedInstruction& ix = instructions[i];
    if (ix.program_id == program_id && ix.instruction == idl_name) return &ix;
  }
  return nullptr;
}

Result<Descriptor> parse_descriptor(std::string_view text) {
  if (text.size() > kMaxDescriptorFileBytes)
    return Error(errors::kDescriptorInvalid, "descriptor: larger than 1 MiB");
  auto j = parse_strict_json<ojson>(text, "descriptor");
  if (!j.ok()) return j.error();
  auto d = Parser().run(*j);
  if (!d.ok()) return d.error();
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data());
  d->sha256 = sha256(ByteView(bytes, text.size()));
  return d;
}

Result<Descriptor> load_descriptor_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorCode::kIo, "cannot open descriptor '" + path + "'");
  std::string text;
  text.resize(kMaxDescriptorFileBytes + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  auto d = parse_descriptor(text);
  if (!d.ok()) return Error(d.error().code(), d.error().message() + " (in " + path + ")");
  return d;
}

namespace {

// Each IDL account's source, in the IDL's order: the instruction's own, else the descriptor's
// default, else the address or derivation the IDL itself states (which a given source must
// agree with).
// The accounts of the instruction a derivation reads: its account seeds, an associated token
// account's owner, mint and token program, a bin array's pool.
std::vector<std::string> accounts_read(const Derivation& d) {
  std::vector<std::string> names;
  for (const auto& seed : d.seeds) {
    if (seed.kind == SeedSource::Kind::kAccount) names.push_back(seed.account);
  }
  if (d.kind == Derivation::Kind::kAssociatedToken)
    names.insert(names.end(), {d.owner, d.mint, d.token_program});
  if (d.kind == Derivation::Kind::kBinArray) names.push_back(d.pool);
  return names;
}

// Whether account `name`'s source pins one key the request determines (so that what the program
// reads from that account's data is determined too): the vault, the manager, a program, a body
// field, or a derivation every input of which is pinned so in turn. An account bound only by a
// relation pins nothing, nor does one that derives from such an account (a cycle included).
bool pins_one_key(const std::string& name, const std::vector<DescribedAccount>& ordered,
                  const std::set<std::string>& by_relation, int depth, bool as_input) {
  if (by_relation.count(name) != 0 || depth > 8) return false;
  const auto it = std::find_if(ordered.begin(), ordered.end(),
                               [&](const DescribedAccount& a) { return a.name == name; });
  if (it == ordered.end()) return false;
  using K = AccountSource::Kind;
  switch (it->source.kind) {
    case K::kVault:
    case K::kManager:
    case K::kProgram:
    case K::kBody:
      return true;
    case K::kTokenProgram:
      return as_input;  // one of two fixed programs: an input to an ata, not a relation's holder
    case K::kDerived:
      for (const auto& d : it->source.any_of) {
        for (const auto& input : accounts_read(d)) {
          if (!pins_one_key(input, ordered, by_relation, depth + 1, true)) return false;
        }
      }
      return true;
    default:
      return false;
  }
}

// An account the IDL relates (Anchor's `has_one`: each related account's data names this one)
// is bound by the chain once every related account is bound here: the program refuses any
// other key. A signer is not: the relation says whose key it must be, not who signs for it.
Result<AccountSource> relation_source(const Descriptor& descriptor, const DescribedInstruction& ix,
                                      const IdlAccount& account,
                                      const std::vector<DescribedAccount>& ordered,
                                      const std::set<std::string>& by_relation,
                                      const std::string& where) {
  const std::string at = where + ".accounts." + account.name;
  if (account.signer)
    return invalid(at, "signs; its IDL relation to " + account.relations.front() +
                           " says whose key it must be, not who signs: give it a source "
                           "(manager, new_signer or cosigner)");
  std::string related;
  for (const auto& name : account.relations) {
    const auto it = std::find_if(ordered.begin(), ordered.end(),
                                 [&](const DescribedAccount& a) { return a.name == name; });
    if (it == ordered.end())
      return invalid(at, "the IDL relates it to " + name + ", which " + ix.instruction + " lacks");
    if (!pins_one_key(name, ordered, by_relation, 0, false))
      return invalid(at, "the IDL relates it to " + name +
                             ", whose own source binds no one key (or derives from one that "
                             "does not): give it a source");
    related += (related.empty() ? "" : " and ") + name + "'s";
  }
  AccountSource s;
  s.kind = AccountSource::Kind::kChecked;
  const DescribedProgram* program = descriptor.program_of(ix.program_id);
  s.text = (program != nullptr ? program->label : "the program") + " refuses any account but the " +
           account.name + " that " + related + " data names (the IDL's relation)";
  return s;
}

Status order_accounts(const Descriptor& descriptor, DescribedInstruction& ix,
                      const IdlInstruction& idl, const std::string& where) {
  std::vector<DescribedAccount> ordered;
  std::vector<const IdlAccount*> by_relation;
  for (const auto& account : idl.accounts) {
    const DescribedAccount* own = ix.account(account.name);
    const DescribedAccount* def = descriptor.default_for(account.name);
    const std::optional<AccountSource> stated = idl_source(descriptor, ix, idl, account);
    if (const DescribedAccount* given = own != nullptr ? own : def; given && stated)
      AIRLOCK_CHECK(agrees(given->source, *stated, where + ".accounts." + account.name));
    if (own == nullptr && def == nullptr && !stated) {
      if (account.relations.empty())
        return invalid(where, "account " + account.name +
                                  " of the IDL has no source (every account needs one; the IDL "
                                  "states no address, derivation from the instruction's own "
                                  "accounts or relation for it)");
      by_relation.push_back(&account);
      ordered.push_back({account.name, AccountSource{}});  // filled below
      continue;
    }
    ordered.push_back({account.name, own != nullptr   ? own->source
                                     : def != nullptr ? def->source
                                                      : *stated});
  }
  // Relations are read once every other source is known; a related account bound only by a
  // relation of its own does not count.
  std::set<std::string> pending;
  for (const IdlAccount* account : by_relation) pending.insert(account->name);
  for (const IdlAccount* account : by_relation) {
    AIRLOCK_TRY(source, relation_source(descriptor, ix, *account, ordered, pending, where));
    const auto slot = std::find_if(ordered.begin(), ordered.end(), [&](const DescribedAccount& a) {
      return a.name == account->name;
    });
    slot->source = std::move(source);
  }
  for (const auto& a : ix.accounts) {
    if (std::none_of(idl.accounts.begin(), idl.accounts.end(),
                     [&](const IdlAccount& i) { return i.name == a.name; }))
      return invalid(where + ".accounts." + a.name,
                     "the IDL's " + ix.instruction + " has no such account");
  }
  ix.accounts = std::move(ordered);
  return {};
}

// Every account a derivation reads is another of the instruction's, every bin term an integer
// argument of it.
Status check_derivations(const IdlMap& idls, const DescribedInstruction& ix,
                         const IdlInstruction& idl, const std::string& where) {
  for (const auto& a : ix.accounts) {
    const std::string at = where + ".accounts." + a.name;
    for (const auto& d : a.source.any_of) {
      for (const auto& n : accounts_read(d)) {
        if (ix.account(n) == nullptr)
          return invalid(at, "derives from account " + n + ", which " + ix.instruction + " lacks");
        if (n == a.name) return invalid(at, "derives from itself");
      }
      for (const auto& t : d.bin) {
        if (!t.arg.empty() && !integer_path(idls, ix.program_id, idl, t.arg))
          return invalid(at, "reads argument " + join(t.arg) +
                                 ", which is no integer argument of " + ix.instruction);
      }
    }
  }
  return {};
}

// One argument rule against the IDL type of what it rules.
Status check_rule(const IdlMap& idls, const DescribedInstruction& ix, const IdlInstruction& idl,
                  const DescribedArgument& arg, const IdlType& type, const std::string& at) {
  using K = ArgumentRule::Kind;
  const ArgumentRule& r = arg.rule;
  if (!r.ceiling.empty() && !integer_type(type))
    return invalid(at, "a ceiling holds an integer; " + arg.name + " is not one");
  switch (r.kind) {
    case K::kEquals:
      if (r.absent_is_none && type.kind != IdlType::Kind::kOption)
        return invalid(at, "\"absent\": \"none\" fits an option; " + arg.name + " is not one");
      return {};
    case K::kAtMost:
    case K::kWithin:
      if (!integer_type(type)) return invalid(at, arg.name + " is not an integer");
      return {};
    case K::kVariant: {
      const IdlTypeDef* def = type.kind == IdlType::Kind::kDefined
                                  ? defined_type(idls, ix.program_id, type.defined)
                                  : nullptr;
      if (def == nullptr || !def->is_enum) return invalid(at, arg.name + " is not an enum");
      // A variant carrying data would be held by its name alone, its fields by nothing.
      for (const auto& v : def->variants) {
        if (!v.fields.empty())
          return invalid(at, def->name + "::" + v.name +
                                 " carries data, which a variant rule does not hold: rule its "
                                 "fields, or use a named checker");
      }
      for (const auto& mapped : r.variants) {
        const std::string& variant = mapped.second;
        if (std::none_of(def->variants.begin(), def->variants.end(),
                         [&](const IdlVariant& v) { return v.name == variant; }))
          return invalid(at + ".map." + mapped.first,
                         "\"" + variant + "\" is no variant of " + def->name);
      }
      return {};
    }
    case K::kEach: {
      const IdlTypeDef* def =
          type.kind == IdlType::Kind::kVec && type.inner->kind == IdlType::Kind::kDefined
              ? defined_type(idls, ix.program_id, type.inner->defined)
              : nullptr;
      if (def == nullptr || def->is_enum)
        return invalid(at, arg.name + " is not a list of structs");
      for (const auto& [field, pointer] : r.fields) {
        if (field_named(def->fields, field) == nullptr)
          return invalid(at + ".fields." + field, "is no field of " + def->name);
      }
      // Every field of an entry is held: one left out would be signed as anything.
      for (const auto& f : def->fields) {
        if (std::none_of(r.fields.begin(), r.fields.end(),
                         [&](const auto& named) { return named.first == f.name; }))
          return invalid(at + ".fields", def->name + "'s field " + f.name + " has no rule");
      }
      return {};
    }
    case K::kChecker: {
      const NamedChecker* c = argument_checker(r.checker);
      const auto reads = [&](std::string_view name) {
        return std::find(c->reads.begin(), c->reads.end(), name) != c->reads.end() ||
               std::find(c->optional.begin(), c->optional.end(), name) != c->optional.end();
      };
      if (c->check != nullptr && !reads(arg.name))
        return invalid(at, r.checker + " does not read " + arg.name + ", so it cannot hold it");
      for (const auto& needed : c->reads) {
        if (path_type(idls, ix.program_id, idl, needed) == nullptr)
          return invalid(at, r.checker + " reads argument " + std::string(needed) + ", which " +
                                 ix.instruction + " lacks");
      }
      if (c->check == nullptr && !integer_type(type))
        return invalid(at, arg.name + " is not an integer a step rule can share");
      return {};
    }
    case K::kShown:
    case K::kUnconstrained:
      return {};
  }
  return {};
}

// Every argument of the instruction has a rule: on it, or on every field of it (a struct).
Status covered(const IdlMap& idls, const DescribedInstruction& ix, const std::string& path,
               const IdlType& type, const std::string& where) {
  if (std::any_of(ix.args.begin(), ix.args.end(),
                  [&](const DescribedArgument& a) { return a.name == path; }))
    return {};
  const IdlTypeDef* def = type.kind == IdlType::Kind::kDefined
                              ? defined_type(idls, ix.program_id, type.defined)
                              : nullptr;
  if (def == nullptr || def->is_enum || def->fields.empty())
    return invalid(where, "argument " + path + " of " + ix.instruction +
                              " has no rule (docs/descriptors.md, \"Argument rules\")");
  for (const auto& f : def->fields)
    AIRLOCK_CHECK(covered(idls, ix, path + "." + f.name, *f.type, where));
  return {};
}

Status check_arguments(const IdlMap& idls, const DescribedInstruction& ix,
                       const IdlInstruction& idl, const std::string& where) {
  for (const auto& arg : ix.args) {
    const std::string at = where + ".args." + arg.name;
    const IdlType* type = path_type(idls, ix.program_id, idl, arg.name);
    if (type == nullptr)
      return invalid(at, "the IDL's " + ix.instruction + " has no such argument");
    for (const auto& other : ix.args) {
      if (other.name.starts_with(arg.name + "."))
        return invalid(at, "rules " + arg.name + " whole, and " + other.name + " again");
    }
    AIRLOCK_CHECK(check_rule(idls, ix, idl, arg, *type, at));
  }
  for (const auto& a : idl.args) AIRLOCK_CHECK(covered(idls, ix, a.name, *a.type, where));
  return {};
}

// An amount is a u64 argument, or a u64 field of a list of structs ("bins.amount"); its unit
// names one of the instruction's accounts, and `by` an enum argument whose every variant has
// a unit.
Status check_amounts(const IdlMap& idls, const DescribedInstruction& ix, const IdlInstruction& idl,
                     const std::string& where) {
  for (const auto& a : ix.amounts) {
    const std::string at = where + ".amounts." + a.path;
    const IdlType* type = path_type(idls, ix.program_id, idl, a.path);
    if (const auto dot = a.path.find('.'); type == nullptr && dot != std::string::npos) {
      const IdlType* list = path_type(idls, ix.program_id, idl, a.path.substr(0, dot));
      const IdlTypeDef* element = list != nullptr && list->kind == IdlType::Kind::kVec &&
                                          list->inner &&
                                          list->inner->kind == IdlType::Kind::kDefined
                                      ? defined_type(idls, ix.program_id, list->inner->defined)
                                      : nullptr;
      const IdlField* f = element != nullptr && !element->is_enum
                              ? field_named(element->fields, a.path.substr(dot + 1))
                              : nullptr;
      if (f != nullptr) type = f->type.get();
    }
    if (type == nullptr || type->kind != IdlType::Kind::kPrimitive || type->primitive != "u64")
      return invalid(
          at, "is no u64 argument of " + ix.instruction + ", nor a u64 field of a list it takes");
    for (const auto& [variant, unit] : a.units) {
      if (ix.account(unit.account) == nullptr)
        return invalid(at + ".mint",
                       "names account " + unit.account + ", which " + ix.instruction + " lacks");
    }
    if (a.by.empty()) continue;
    const IdlType* by = path_type(idls, ix.program_id, idl, a.by);
    const IdlTypeDef* e = by != nullptr && by->kind == IdlType::Kind::kDefined
                              ? defined_type(idls, ix.program_id, by->defined)
                              : nullptr;
    if (e == nullptr || !e->is_enum)
      return invalid(at + ".mint.by", a.by + " is no enum argument of " + ix.instruction);
    for (const auto& v : e->variants) {
      if (std::none_of(a.units.begin(), a.units.end(),
                       [&](const auto& u) { return u.first == v.name; }))
        return invalid(at + ".mint", "gives no unit for " + a.by + " " + v.name);
    }
    for (const auto& unit : a.units) {
      if (std::none_of(e->variants.begin(), e->variants.end(),
                       [&](const IdlVariant& v) { return v.name == unit.first; }))
        return invalid(at + ".mint", a.by + " has no variant " + unit.first);
    }
  }
  return {};
}

Status check_instruction(const Descriptor& descriptor, DescribedInstruction& ix,
                         const IdlMap& idls) {
  const std::string where = "instructions." + ix.key;
  const IdlInstruction* idl = idl_instruction(idls, ix.program_id, ix.instruction);
  if (idl == nullptr)
    return invalid(where,
                   "no IDL of program " + ix.program + " has an instruction " + ix.instruction);
  AIRLOCK_CHECK(order_accounts(descriptor, ix, *idl, where));
  AIRLOCK_CHECK(check_derivations(idls, ix, *idl, where));
  AIRLOCK_CHECK(check_arguments(idls, ix, *idl, where));
  AIRLOCK_CHECK(check_amounts(idls, ix, *idl, where));
  for (const auto& m : ix.mints) {
    if (ix.account(m) == nullptr)
      return invalid(where + ".mints",
                     "names account " + m + ", which " + ix.instruction + " lacks");
  }
  for (const std::string* m : {&ix.sells, &ix.buys}) {
    if (!m->empty() && ix.account(*m) == nullptr)
      return invalid(where + ".swaps",
                     "names account " + *m + ", which " + ix.instruction + " lacks");
  }
  return {};
}

// An action's instructions against its step rule: the arguments a step rule shares are the
// ones it reads, a follow-up an instruction needs is one the action may announce, and a ranged
// rule reads integer arguments its instructions have.
Status check_action(const Descriptor& descriptor, const DescribedAction& a, const IdlMap& idls) {
  const std::string where = "actions." + a.name;
  for (const auto& key : a.instructions) {
    const DescribedInstruction* ix = descriptor.instruction(key);
    const IdlInstruction* idl = idl_instruction(idls, ix->program_id, ix->instruction);
    for (const auto& arg : ix->args) {
      if (arg.rule.kind != ArgumentRule::Kind::kChecker || arg.rule.checker != "step_shares")
        continue;
      const bool shared = std::any_of(a.steps.shares.begin(), a.steps.shares.end(),
                                      [&](const auto& s) { return s.first == arg.name; });
      if (!shared)
        return invalid(where, key + "'s " + arg.name +
                                  " is held by step_shares, but the action's step rule shares "
                                  "no such argument");
    }
    if (!a.steps.ranged) continue;
    for (const auto* path : {&a.steps.lower, &a.steps.upper, &a.steps.active}) {
      if (path->empty()) continue;  // no sides
      if (!integer_path(idls, ix->program_id, *idl, *path))
        return invalid(where + ".steps", join(*path) + " is no integer argument of " + key);
    }
    for (const auto& [arg, field] : a.steps.shares) {
      if (field_named(idl->args, arg) == nullptr)
        return invalid(where + ".steps.shares", arg + " is no argument of " + key);
    }
  }
  return {};
}

}  // namespace

Status check_descriptor(Descriptor& descriptor, const std::map<PublicKey, std::vector<Idl>>& idls) {
  for (auto& ix : descriptor.instructions) AIRLOCK_CHECK(check_instruction(descriptor, ix, idls));
  for (const auto& a : descriptor.actions) AIRLOCK_CHECK(check_action(descriptor, a, idls));
  return {};
}

}  // namespace airlock::offline
