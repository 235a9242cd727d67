// airlock-offline's key commands: init (a new key from fresh recovery words, shown once on the
// terminal and typed back before anything is written), import, pubkey, backup verify (a recovery
// drill that writes nothing) and passphrase (re-encrypt the keystore). Recovery words, shares
// and passphrases live only in SecretBytes and reach only the terminal, never standard output,
// standard error, a file or a log.
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sodium.h>
#include <unistd.h>

#include <airlock/cli/options.h>
#include <airlock/common/bytes.h>
#include <airlock/common/ed25519.h>
#include <airlock/common/fd.h>
#include <airlock/formats/files.h>
#include <airlock/formats/keystone.h>
#include <airlock/offline/custody.h>
#include <airlock/offline/derivation.h>
#include <airlock/offline/keystore.h>
#include <airlock/offline/secret_input.h>
#include <airlock/offline/slip39.h>

#include "shared.h"

namespace offline_cli {
namespace {

using airlock::Error;
using airlock::ErrorCode;
using airlock::Result;
using airlock::SecretBytes;
namespace custody = airlock::offline::custody;
namespace slip39 = airlock::offline::slip39;

// What the key commands take (init, import, pubkey, backup, passphrase), each bound to its
// option; a command declares the options it accepts.
struct KeyOptions {
  std::string keystore;
  int passphrase_fd = -1;
  std::string kdf = "moderate";
  bool allow_network = false;
  std::optional<std::string> path;
  // The secret words typed in (import, backup verify).
  bool mnemonic = false;
  bool slip39 = false;
  int mnemonic_fd = -1;
  std::optional<int> mnemonic_passphrase_fd;
  int shares_fd = -1;
  std::optional<int> slip39_passphrase_fd;
  std::optional<std::string> keypair;
  // init
  int words = 24;
  std::string backup = "bip39";
  std::optional<int> shares;
  std::optional<int> threshold;
  std::vector<std::string> group;
  int group_threshold = 1;
  int strength = 128;
  // pubkey, passphrase, backup
  bool json = false;
  int new_passphrase_fd = -1;
  std::optional<std::string> action;
};

// Options every keystore command that opens or writes the key shares.
void keystore_options(po::options_description& options, KeyOptions& o, bool writing) {
  options.add_options()("help,h", "show this help")(
      "keystore", po::value<std::string>(&o.keystore)->required(), "keystore file")(
      "passphrase-fd",
      airlock::cli::descriptor(&o.passphrase_fd, "passphrase-fd")->default_value(-1),
      "read the passphrase from this file descriptor instead of asking on the terminal");
  add_network_override(options, o.allow_network);
  if (writing) {
    options.add_options()(
        "kdf", po::value<std::string>(&o.kdf)->default_value(o.kdf),
        "Argon2id strength: moderate (256 MiB, the default) or interactive (64 MiB)");
  }
}

void path_option(po::options_description& options, KeyOptions& o, const char* help) {
  options.add_options()("path", airlock::cli::optional_value(&o.path), help);
}

Result<airlock::keystone::DerivationPath> path_of(const KeyOptions& o, std::string_view fallback) {
  return airlock::keystone::DerivationPath::parse(o.path.value_or(std::string(fallback)));
}

Result<airlock::offline::KdfLimits> kdf_limits(const KeyOptions& o) {
  const std::string& kdf = o.kdf;
  if (kdf == "moderate") return airlock::offline::default_kdf_limits();
  if (kdf == "interactive") return airlock::offline::minimum_kdf_limits();
  return Error(ErrorCode::kUsage, "--kdf must be moderate or interactive");
}

Result<SecretBytes> new_passphrase(const KeyOptions& o) {
  AIRLOCK_TRY(passphrase,
              airlock::offline::obtain_secret(o.passphrase_fd, "New keystore passphrase: ", true));
  if (passphrase.size() < 8)
    return Error(ErrorCode::kUsage, "passphrase: must be at least 8 characters");
  return passphrase;
}

// Where a new keystore goes: no file there yet (a keystore is never overwritten) and a folder
// that can be written. Checked before any secret is shown or typed: words recited or written
// down for a key that is then never stored are a trap.
airlock::Status check_new_keystore(const std::string& keystore) {
  std::error_code ec;
  if (std::filesystem::exists(keystore, ec)) {
    return Error(ErrorCode::kIo,
                 "'" + keystore + "' exists; a keystore is never overwritten (give a new path)");
  }
  const auto folder = std::filesystem::absolute(keystore, ec).parent_path();
  if (ec || !std::filesystem::is_directory(folder, ec) || ::access(folder.c_str(), W_OK) != 0) {
    return Error(ErrorCode::kIo, "the keystore's folder '" + folder.string() +
                                     "' does not exist or cannot be written");
  }
  return {};
}

int store(const KeyOptions& o, const SecretBytes& seed, const airlock::offline::KeyOrigin& origin,
          std::optional<SecretBytes> chosen = std::nullopt) {
  auto limits = kdf_limits(o);
  if (!limits.ok()) return report(limits.error());
  auto passphrase = chosen ? Result<SecretBytes>(std::move(*chosen)) : new_passphrase(o);
  if (!passphrase.ok()) return report(passphrase.error());
  const std::string& path = o.keystore;
  if (auto s = airlock::offline::write_keystore(path, seed, *passphrase, origin, *limits); !s.ok())
    return report(s.error());
  auto info = airlock::offline::read_keystore_info(path);
  if (!info.ok()) return report(info.error());
  std::cout << airlock::to_base58(info->public_key) << "\n";
  std::cerr << "airlock-offline: wrote " << path << "\n";
  return airlock::cli::kExitOk;
}

// The terminal the words are on while init runs: an interrupt clears it before the process
// ends, so no word stays on the screen or in its scrollback.
volatile int g_screen_fd = -1;

extern "C" void clear_and_exit(int signal_number) {
  static const char kClear[] = "\x1b[2J\x1b[3J\x1b[H";
  if (g_screen_fd >= 0) (void)!::write(g_screen_fd, kClear, sizeof kClear - 1);
  ::_exit(128 + signal_number);
}

void clear_on_interrupt() {
  struct sigaction action {};
  action.sa_handler = clear_and_exit;
  sigemptyset(&action.sa_mask);
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP})
    ::sigaction(signal_number, &action, nullptr);
}

// The operator's own terminal, the one place recovery words are shown. Cleared, screen and
// scrollback, once they are written down.
class Screen {
 public:
  static Result<Screen> open() {
    airlock::UniqueFd fd(::open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY));
    if (!fd.valid()) {
      return Error(ErrorCode::kUsage,
                   "recovery words are shown only on a terminal, never written to a file or a "
                   "pipe: run this on the offline machine's own terminal");
    }
    return Screen(std::move(fd));
  }

  void show(std::string_view text) const {
    while (!text.empty()) {
      const ssize_t n = ::write(fd_.get(), text.data(), text.size());
      if (n <= 0) return;
      text.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  void clear() const { show("\x1b[2J\x1b[3J\x1b[H"); }
  [[nodiscard]] int fd() const noexcept { return fd_.get(); }

  // Shows the numbered words (four to a line), waits for Enter, then clears the terminal.
  airlock::Status show_words_once(std::string_view title, const SecretBytes& text) const {
    clear();
    show(title);
    show("\n\n");
    const auto words = custody::words_of(text);
    // Built in secure memory: "NN word____ " is at most 14 characters a word.
    AIRLOCK_TRY(lines, SecretBytes::allocate(words.size() * 14 + words.size() / 4 + 2));
    std::size_t n = 0;
    for (std::size_t i = 0; i < words.size(); ++i) {
      const std::string number = (i + 1 < 10 ? " " : "") + std::to_string(i + 1) + " ";
      std::memcpy(lines.bytes().data() + n, number.data(), number.size());
      n += number.size();
      const std::string_view word = words[i].view();
      std::memcpy(lines.bytes().data() + n, word.data(), word.size());
      n += word.size();
      for (std::size_t pad = word.size(); pad < 11; ++pad) lines.bytes()[n++] = ' ';
      if (i % 4 == 3 || i + 1 == words.size()) lines.bytes()[n++] = '\n';
    }
    show(airlock::SecretText(lines).substr(0, n).view());
    show(
        "\nWrite them down on paper, in order. They are shown once: the screen is cleared next,\n"
        "and they are never written to a file.\n");
    show("Press Enter once they are written down: ");
    // The answer is not a secret and may be empty: read up to the end of the line.
    char c = 0;
    for (std::size_t read = 0; read < 4096; ++read) {
      const ssize_t got = ::read(fd_.get(), &c, 1);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0 || c == '\n' || c == '\r') break;
    }
    clear();
    return {};
  }

  // Asks for the words at a few random positions; fails, naming the first one that differs.
  airlock::Status confirm(std::string_view what, const SecretBytes& text, std::size_t asked) const {
    const auto words = custody::words_of(text);
    show("Type back a few words of " + std::string(what) + " from your paper.\n");
    for (const std::size_t position : custody::positions_to_confirm(words.size(), asked)) {
      AIRLOCK_TRY(typed,
                  airlock::offline::prompt_secret("Word " + std::to_string(position) + ": "));
      if (!custody::typed_matches(words[position - 1], typed)) {
        return Error(airlock::offline::errors::kBackupInvalid,
                     "word " + std::to_string(position) + " of " + std::string(what) +
                         " does not match what was shown; nothing was written. Run init again "
                         "for new words (these are not kept)");
      }
    }
    return {};
  }

 private:
  explicit Screen(airlock::UniqueFd fd) : fd_(std::move(fd)) {}
  airlock::UniqueFd fd_;
};

// The secret lines (phrase or shares) come from a descriptor when given, else the terminal.
Result<SecretBytes> secret_line(int fd, const std::string& prompt) {
  if (fd >= 0) return airlock::offline::read_secret_line(fd);
  return airlock::offline::prompt_secret(prompt);
}

// The key a backup gives, and whether a passphrase went with it: the same words with another
// passphrase (or none) give another key, which is all the operator would see.
struct BackupKey {
  SecretBytes key;
  bool passphrase = false;
};

// The passphrase of a phrase or shares: from its descriptor when one is given; asked on the
// terminal when the words were typed there (Enter for none), so a passphrase set when the backup
// was made is never silently left out; else none.
Result<SecretBytes> optional_passphrase(std::optional<int> fd, bool words_typed,
                                        const std::string& what) {
  if (fd) return airlock::offline::read_secret_line(*fd);
  if (!words_typed) return SecretBytes::allocate(0);
  return airlock::offline::prompt_secret(
      what + " passphrase, if one was set when the backup was made (Enter for none): ", true);
}

// Says which key the backup gave and how, on the terminal's error stream.
void tell_backup_key(const BackupKey& k, const airlock::keystone::DerivationPath& path) {
  auto keypair = airlock::Keypair::from_seed(k.key.bytes());
  if (!keypair.ok()) return;
  std::cerr << "airlock-offline: the backup gives " << airlock::to_base58(keypair->public_key())
            << " at " << path.to_string()
            << (k.passphrase ? ", with the passphrase typed"
                             : ", with no passphrase (one set when the backup was made "
                               "gives another key)")
            << "\n";
}

// A BIP39 phrase and its passphrase, as `import --mnemonic` and `backup verify --mnemonic` take
// them, and the key they give at the path.
Result<BackupKey> key_from_typed_phrase(const KeyOptions& o,
                                        const airlock::keystone::DerivationPath& path) {
  AIRLOCK_TRY(phrase,
              secret_line(o.mnemonic_fd, "BIP39 recovery phrase (words separated by spaces): "));
  AIRLOCK_TRY(passphrase,
              optional_passphrase(o.mnemonic_passphrase_fd, o.mnemonic_fd < 0, "BIP39"));
  AIRLOCK_TRY(key, custody::key_from_phrase(phrase, passphrase, path));
  return BackupKey{std::move(key), passphrase.size() > 0};
}

// The SLIP-0039 shares given so far, each checked against those before it: the same set and
// shape as the first, its group's member threshold, no member twice.
// SLIP-0039 shares, one a line, until enough groups have enough members (or an empty line or
// the end of input); then the master secret they recover and the key it gives.
Result<BackupKey> key_from_typed_shares(const KeyOptions& o,
                                        const airlock::keystone::DerivationPath& path) {
  const int fd = o.shares_fd;
  slip39::ShareSet shares;
  // From a descriptor every line is read, so a paper of another set or shape among them is
  // refused rather than skipped; on the terminal the asking stops once there are enough.
  while ((fd >= 0 || !shares.enough()) &&
         shares.size() < slip39::kMaxGroups * slip39::kMaxMembers) {
    auto read = secret_line(fd, "Share " + std::to_string(shares.size() + 1) +
                                    " (words separated by spaces; empty when done): ");
    // An empty line or the end of the input ends the shares; combining then says what is
    // missing.
    if (!read.ok() && shares.size() > 0) break;
    if (!read.ok()) return read.error();
    SecretBytes line = std::move(read).value();
    if (custody::words_of(line).empty()) break;
    auto parsed = slip39::inspect(line);
    if (!parsed.ok()) return parsed.error().in_field("share " + std::to_string(shares.size() + 1));
    const slip39::ShareInfo info = *parsed;
    if (fd < 0) {
      std::cerr << "airlock-offline: share " << shares.size() + 1 << ": group "
                << info.group_index + 1 << " of " << int{info.group_count} << ", member "
                << info.member_index + 1 << " (" << int{info.member_threshold}
                << " of the group's shares and " << int{info.group_threshold}
                << " group(s) recover the key)\n";
    }
    AIRLOCK_CHECK(shares.add(std::move(line), info));
  }
  AIRLOCK_TRY(passphrase, optional_passphrase(o.slip39_passphrase_fd, fd < 0, "SLIP-0039"));
  AIRLOCK_TRY(master, slip39::combine(shares.chosen(), passphrase));
  AIRLOCK_TRY(key, custody::key_from_master_secret(master, path));
  return BackupKey{std::move(key), passphrase.size() > 0};
}

void phrase_options(po::options_description& options, KeyOptions& o) {
  options.add_options()("mnemonic-fd",
                        airlock::cli::descriptor(&o.mnemonic_fd, "mnemonic-fd")->default_value(-1),
                        "read the BIP39 phrase from this file descriptor")(
      "mnemonic-passphrase-fd",
      airlock::cli::optional_descriptor(&o.mnemonic_passphrase_fd, "mnemonic-passphrase-fd"),
      "read the BIP39 passphrase from this file descriptor (default: none)")(
      "shares-fd", airlock::cli::descriptor(&o.shares_fd, "shares-fd")->default_value(-1),
      "read the SLIP-0039 shares from this file descriptor, one a line")(
      "slip39-passphrase-fd",
      airlock::cli::optional_descriptor(&o.slip39_passphrase_fd, "slip39-passphrase-fd"),
      "read the SLIP-0039 passphrase from this file descriptor (default: none)");
}

int init_phrase(const KeyOptions& o, const Screen& screen,
                const airlock::keystone::DerivationPath& path, SecretBytes passphrase) {
  auto phrase = custody::new_phrase(static_cast<std::size_t>(o.words));
  if (!phrase.ok()) return report(phrase.error());
  const std::size_t count = custody::words_of(*phrase).size();
  if (auto s = screen.show_words_once("Recovery phrase: " + std::to_string(count) +
                                          " words (BIP39). Anyone who reads them has the key.",
                                      *phrase);
      !s.ok())
    return report(s.error());
  if (auto s = screen.confirm("the recovery phrase", *phrase, custody::kPhraseWordsAsked); !s.ok())
    return report(s.error());
  auto key = custody::key_from_phrase(*phrase, {}, path);
  if (!key.ok()) return report(key.error());
  return store(o, *key, {"bip39", path.to_string()}, std::move(passphrase));
}

// The shape of the SLIP-0039 backup init makes, from --shares/--threshold or --group.
Result<slip39::SplitOptions> split_options(const KeyOptions& o) {
  slip39::SplitOptions split;
  split.groups.clear();
  if (!o.group.empty()) {
    for (const auto& g : o.group) {
      AIRLOCK_TRY(shape, custody::parse_group(g));
      split.groups.push_back({shape.threshold, shape.count});
    }
    const int threshold = o.group_threshold;
    if (threshold < 1 || threshold > static_cast<int>(split.groups.size()))
      return Error(ErrorCode::kUsage, "--group-threshold: must be 1 to the number of --group");
    split.group_threshold = static_cast<std::uint8_t>(threshold);
  } else {
    if (!o.shares || !o.threshold)
      return Error(ErrorCode::kUsage,
                   "--backup slip39 needs --shares N --threshold M (or --group M-of-N...)");
    AIRLOCK_TRY(shape, custody::parse_group(std::to_string(*o.threshold) + "-of-" +
                                            std::to_string(*o.shares)));
    split.groups.push_back({shape.threshold, shape.count});
    split.group_threshold = 1;
  }
  const int strength = o.strength;
  if (strength != 128 && strength != 256)
    return Error(ErrorCode::kUsage, "--strength: must be 128 or 256 (bits)");
  return split;
}

int init_shares(const KeyOptions& o, const Screen& screen,
                const airlock::keystone::DerivationPath& path, SecretBytes passphrase) {
  auto options = split_options(o);
  if (!options.ok()) return report(options.error());
  const slip39::SplitOptions& split = *options;
  auto master = SecretBytes::allocate(static_cast<std::size_t>(o.strength / 8));
  if (!master.ok()) return report(master.error());
  randombytes_buf(master->bytes().data(), master->size());
  auto groups = slip39::split(*master, {}, split, [](std::span<std::uint8_t> out) {
    randombytes_buf(out.data(), out.size());
  });
  if (!groups.ok()) return report(groups.error());
  std::size_t total = 0;
  for (const auto& g : *groups) total += g.size();
  std::size_t shown = 0;
  for (std::size_t g = 0; g < groups->size(); ++g) {
    for (std::size_t m = 0; m < (*groups)[g].size(); ++m) {
      ++shown;
      const std::string name = "share " + std::to_string(shown) + " of " + std::to_string(total);
      const std::string title =
          "SLIP-0039 " + name + ": group " + std::to_string(g + 1) + " of " +
          std::to_string(groups->size()) + ", member " + std::to_string(m + 1) + " of " +
          std::to_string((*groups)[g].size()) + " (" + std::to_string(split.groups[g].threshold) +
          " of this group's shares and " + std::to_string(split.group_threshold) +
          " group(s) recover the key). Give each share to its own keeper.";
      if (auto s = screen.show_words_once(title, (*groups)[g][m]); !s.ok())
        return report(s.error());
      if (auto s = screen.confirm(name, (*groups)[g][m], custody::kShareWordsAsked); !s.ok())
        return report(s.error());
    }
  }
  auto key = custody::key_from_master_secret(*master, path);
  if (!key.ok()) return report(key.error());
  return store(o, *key, {"slip39", path.to_string()}, std::move(passphrase));
}

}  // namespace

int run_init(const std::vector<std::string>& args) {
  po::options_description options(
      "usage: airlock-offline init --keystore FILE [--words 24]\n"
      "       airlock-offline init --keystore FILE --backup slip39 --shares N --threshold M\n"
      "       airlock-offline init --keystore FILE --backup slip39 --group M-of-N... "
      "--group-threshold G\n\n"
      "Makes a new manager key from fresh recovery words and stores it encrypted. The words\n"
      "are shown once on this terminal (never written anywhere), the screen is cleared, and a\n"
      "few of them must be typed back before the keystore is written. By default a BIP39\n"
      "phrase; with --backup slip39, SLIP-0039 shares of a new master secret, shown one at a\n"
      "time, each confirmed. The key is the SLIP-0010 derivation at --path. Prints the public\n"
      "key.\n\noptions");
  KeyOptions o;
  keystore_options(options, o, true);
  path_option(options, o, "SLIP-0010 derivation path (default m/44'/501'/0'/0')");
  options.add_options()("words", po::value<int>(&o.words)->default_value(o.words),
                        "BIP39 phrase length: 12, 15, 18, 21 or 24 words")(
      "backup", po::value<std::string>(&o.backup)->default_value(o.backup), "bip39 or slip39")(
      "shares", airlock::cli::optional_value(&o.shares), "SLIP-0039: how many shares (one group)")(
      "threshold", airlock::cli::optional_value(&o.threshold),
      "SLIP-0039: how many of them recover the key")(
      "group", po::value<std::vector<std::string>>(&o.group),
      "SLIP-0039: a group of shares, M-of-N (repeat for several groups)")(
      "group-threshold", po::value<int>(&o.group_threshold)->default_value(o.group_threshold),
      "SLIP-0039: how many groups recover the key")(
      "strength", po::value<int>(&o.strength)->default_value(o.strength),
      "SLIP-0039: master secret bits, 128 (20-word shares) or 256 (33 words)");
  int code = 0;
  if (!airlock::cli::parse(kProgram, args, options, {}, code)) return code;
  const std::string& backup = o.backup;
  if (backup != "bip39" && backup != "slip39")
    return report(Error(ErrorCode::kUsage, "--backup: must be bip39 or slip39"));
  if (!o.group.empty() && (o.shares || o.threshold))
    return report(Error(ErrorCode::kUsage, "give --shares/--threshold or --group, not both"));
  // Checked before the words are shown, like everything below: words written down for a key
  // that is then never stored are a trap.
  if (auto limits = kdf_limits(o); !limits.ok()) return report(limits.error());
  clear_on_interrupt();
  auto path = path_of(o, airlock::offline::kDefaultDerivationPath);
  if (!path.ok()) return report(path.error());
  if (auto s = check_new_keystore(o.keystore); !s.ok()) return report(s.error());
  if (backup == "slip39") {
    if (auto shape = split_options(o); !shape.ok()) return report(shape.error());
  } else if (const int words = o.words; words < 12 || words > 24 || words % 3 != 0) {
    return report(Error(ErrorCode::kUsage, "--words: must be 12, 15, 18, 21 or 24"));
  }
  // Everything that could fail after the words are shown is checked before: the path, the
  // keystore's folder, the passphrase. Words written down for a key never stored are a trap.
  for (const auto& [index, hardened] : path->components) {
    if (!hardened)
      return report(Error(ErrorCode::kUsage, "--path: Ed25519 allows hardened levels only ('" +
                                                 std::to_string(index) + "' needs an apostrophe)"));
  }
  if (auto s = enter_secret_mode(o.allow_network); !s.ok()) return report(s.error());
  auto screen = Screen::open();
  if (!screen.ok()) return report(screen.error());
  auto passphrase = new_passphrase(o);
  if (!passphrase.ok()) return report(passphrase.error());
  g_screen_fd = screen->fd();
  const int made = backup == "bip39"
                       ? init_phrase(o, *screen, *path, std::move(passphrase).value())
                       : init_shares(o, *screen, *path, std::move(passphrase).value());
  g_screen_fd = -1;
  return made;
}

int run_import(const std::vector<std::string>& args) {
  po::options_description options(
      "usage: airlock-offline import --keystore FILE (--mnemonic | --slip39 | --keypair FILE) "
      "[options]\n\n"
      "Stores an existing key encrypted: from a BIP39 phrase or SLIP-0039 shares (asked on the\n"
      "terminal without echo, or read from --mnemonic-fd / --shares-fd) at a SLIP-0010 path, or\n"
      "from a Solana CLI keypair file. Prints the public key.\n\noptions");
  KeyOptions o;
  keystore_options(options, o, true);
  path_option(options, o, "SLIP-0010 derivation path (default m/44'/501'/0'/0')");
  options.add_options()("keypair", airlock::cli::optional_value(&o.keypair),
                        "a Solana CLI keypair file (JSON array of 64 numbers)")(
      "mnemonic", po::bool_switch(&o.mnemonic), "import from a BIP39 phrase")(
      "slip39", po::bool_switch(&o.slip39), "import from SLIP-0039 shares");
  phrase_options(options, o);
  int code = 0;
  if (!airlock::cli::parse(kProgram, args, options, {}, code)) return code;
  if ((o.keypair ? 1 : 0) + (o.mnemonic ? 1 : 0) + (o.slip39 ? 1 : 0) != 1) {
    return report(
        Error(ErrorCode::kUsage, "give exactly one of --mnemonic, --slip39 and --keypair FILE"));
  }
  // Before the secret is typed: a mistake in the options must not cost the operator a recital.
  if (auto limits = kdf_limits(o); !limits.ok()) return report(limits.error());
  if (auto s = check_new_keystore(o.keystore); !s.ok()) return report(s.error());
  if (auto s = enter_secret_mode(o.allow_network); !s.ok()) return report(s.error());
  if (o.keypair) {
    // Straight into secure memory: the file holds the whole secret key.
    auto text = airlock::read_secret_file(*o.keypair, 4096);
    if (!text.ok()) {
      return report(
          Error(text.error().code(), "the keypair file (--keypair): " + text.error().message()));
    }
    auto seed = airlock::offline::seed_from_solana_keypair_json(*text);
    if (!seed.ok()) return report(seed.error());
    return store(o, *seed, {"solana-keypair-file", std::nullopt});
  }
  auto path = path_of(o, airlock::offline::kDefaultDerivationPath);
  if (!path.ok()) return report(path.error());
  auto key = o.mnemonic ? key_from_typed_phrase(o, *path) : key_from_typed_shares(o, *path);
  if (!key.ok()) return report(key.error());
  tell_backup_key(*key, *path);
  return store(o, key->key, {o.mnemonic ? "bip39" : "slip39", path->to_string()});
}

int run_pubkey(const std::vector<std::string>& args) {
  po::options_description options(
      "usage: airlock-offline pubkey --keystore FILE [--json]\n\n"
      "Prints the manager public key without asking for the passphrase.\n\noptions");
  KeyOptions o;
  options.add_options()("help,h", "show this help")(
      "keystore", po::value<std::string>(&o.keystore)->required(), "keystore file")(
      "json", po::bool_switch(&o.json), "print one JSON object");
  int code = 0;
  if (!airlock::cli::parse(kProgram, args, options, {}, code)) return code;
  auto info = airlock::offline::read_keystore_info(o.keystore);
  if (!info.ok()) return report(info.error());
  if (o.json) {
    nlohmann::json j = {{"public_key", airlock::to_base58(info->public_key)},
                        {"source", info->origin.source},
                        {"created", info->created}};
    if (info->origin.path) j["path"] = *info->origin.path;
    std::cout << j.dump(2, ' ', true) << "\n";
  } else {
    std::cout << airlock::to_base58(info->public_key) << "\n";
  }
  return airlock::cli::kExitOk;
}

int run_backup(const std::vector<std::string>& args) {
  po::options_description options(
      "usage: airlock-offline backup verify --keystore FILE (--mnemonic | --slip39) [options]\n\n"
      "A recovery drill: derives the public key from the typed phrase or shares and compares\n"
      "it with the keystore's, without the keystore passphrase and without writing anything.\n"
      "Exit 0 when they match, 1 when they do not.\n\noptions");
  KeyOptions o;
  options.add_options()("help,h", "show this help")(
      "keystore", po::value<std::string>(&o.keystore)->required(), "keystore file")(
      "mnemonic", po::bool_switch(&o.mnemonic), "check a BIP39 phrase")(
      "slip39", po::bool_switch(&o.slip39), "check SLIP-0039 shares");
  path_option(options, o, "SLIP-0010 derivation path (default: the keystore's own)");
  phrase_options(options, o);
  add_network_override(options, o.allow_network);
  int code = 0;
  if (!airlock::cli::parse(kProgram, args, options, {{"action", &o.action}}, code)) return code;
  if (o.action != "verify")
    return report(Error(ErrorCode::kUsage, "backup needs the action: verify"));
  if (o.mnemonic == o.slip39)
    return report(Error(ErrorCode::kUsage, "give exactly one of --mnemonic and --slip39"));
  auto info = airlock::offline::read_keystore_info(o.keystore);
  if (!info.ok()) return report(info.error());
  auto path =
      path_of(o, info->origin.path.value_or(std::string(airlock::offline::kDefaultDerivationPath)));
  if (!path.ok()) return report(path.error());
  if (auto s = enter_secret_mode(o.allow_network); !s.ok()) return report(s.error());
  auto key = o.mnemonic ? key_from_typed_phrase(o, *path) : key_from_typed_shares(o, *path);
  if (!key.ok()) return report(key.error());
  auto keypair = airlock::Keypair::from_seed(key->key.bytes());
  if (!keypair.ok()) return report(keypair.error());
  if (keypair->public_key() != info->public_key) {
    std::cout << "does NOT match: the backup gives " << airlock::to_base58(keypair->public_key())
              << " at " << path->to_string()
              << (key->passphrase ? " with the passphrase typed" : " with no passphrase")
              << ", the keystore holds " << airlock::to_base58(info->public_key)
              << " (a wrong word, a wrong or missing passphrase, or another path each give "
                 "another key)\n";
    return airlock::cli::kExitRejected;
  }
  std::cout << "matches: the backup gives the keystore's key "
            << airlock::to_base58(info->public_key) << " at " << path->to_string() << "\n";
  return airlock::cli::kExitOk;
}

int run_passphrase(const std::vector<std::string>& args) {
  po::options_description options(
      "usage: airlock-offline passphrase --keystore FILE [options]\n\n"
      "Changes the keystore's passphrase: the key is decrypted with the current one and\n"
      "encrypted under the new one (fresh salt and nonce) in a new file renamed over the old;\n"
      "the old file's bytes are then overwritten.\n\noptions");
  KeyOptions o;
  keystore_options(options, o, true);
  options.add_options()(
      "new-passphrase-fd",
      airlock::cli::descriptor(&o.new_passphrase_fd, "new-passphrase-fd")->default_value(-1),
      "read the new passphrase from this file descriptor");
  int code = 0;
  if (!airlock::cli::parse(kProgram, args, options, {}, code)) return code;
  auto limits = kdf_limits(o);
  if (!limits.ok()) return report(limits.error());
  const auto locked = enter_secret_mode(o.allow_network);
  if (!locked.ok()) return report(locked.error());
  auto current =
      airlock::offline::obtain_secret(o.passphrase_fd, "Current keystore passphrase: ", false);
  if (!current.ok()) return report(current.error());
  auto fresh =
      airlock::offline::obtain_secret(o.new_passphrase_fd, "New keystore passphrase: ", true);
  if (!fresh.ok()) return report(fresh.error());
  const std::string& path = o.keystore;
  if (auto s =
          airlock::offline::change_keystore_passphrase(path, *current, *fresh, *limits, *locked);
      !s.ok())
    return report(s.error());
  std::cerr << "airlock-offline: " << path
            << " is now encrypted under the new passphrase; the old file's bytes were "
               "overwritten\n";
  return airlock::cli::kExitOk;
}

}  // namespace offline_cli
