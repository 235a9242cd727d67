// DLMM liquidity as a picture: which bins an instruction fills or empties, how much of each
// (relatively), which token goes where, and where the pool's active bin sits. Drawn in the
// terminal with Unicode blocks and in the HTML report as SVG, from the same numbers.
//
// What the picture can know comes from the instruction alone:
// - a deposit (dlmm_open, dlmm_add, dlmm_add_range) names its bins, the active bin and a shape;
//   the amount per bin is set on chain, so the bars are each bin's share of a token's value as
//   Meteora's strategy spreads it (spot even, curve highest next to the active bin, bid-ask
//   highest at the edges): Y at and below the active bin, X above it (and at it when no Y is
//   added), or every bin one token when the active bin is outside the range;
// - a limit order names every bin and its amount: the bars are exact;
// - a flip withdraws its bins' liquidity and re-adds it with the bid-ask shape: the bars are
//   that shape's weights (which token the bins then hold is the program's doing);
// - a removal names its bins and the share of each that leaves: the bars are that share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <airlock/offline/decode.h>

namespace airlock::offline {

struct BinPicture {
  enum class Kind { kDeposit, kLimitOrder, kFlip, kRemoval };
  Kind kind = Kind::kDeposit;
  std::string caption;  // what the bars mean, in words (lines of at most 80 characters)
  std::int64_t first_bin = 0, last_bin = 0;
  std::optional<std::int64_t> active_bin;  // when the instruction names it
  // Whether the build request binds the active bin (dlmm/flip's activeBinId, which the review
  // holds the instruction to). A deposit's active bin is the online half's reading of the
  // pool, which nothing here can check: the label says so.
  bool active_bound = false;
  // One weight per bin from first_bin to last_bin, for each token: X (sold above the price),
  // Y (below). A removal has only `out`: the basis points of each bin that leave; a flip only
  // `out`: the bid-ask weights it re-adds with.
  std::vector<std::uint64_t> x, y, out;
  // A deposit of X (or Y) none of whose bins is on that token's side of the active bin: the
  // amount has nowhere to go by the shape, which the picture says rather than draw nothing.
  bool x_stranded = false, y_stranded = false;
};

// The picture of a decoded DLMM instruction of the vault program, or nullopt for one that
// moves no liquidity (or a range too wide to draw: more than kMaxPictureBins bins).
inline constexpr std::int64_t kMaxPictureBins = 1400;
[[nodiscard]] std::optional<BinPicture> bin_picture(const Decoded& instruction);

// The picture in text, for the summary: one column per bin (bins grouped when there are more
// than 70), three rows of eighth blocks per token labelled X and Y, the active bin marked with ^
// beneath. Every line fits 80 columns: the words start at `indent` and wrap, the rows start
// past it unless they need its room. `x_name`/`y_name` ("X SOL", or "X") name the tokens on a
// line of their own.
[[nodiscard]] std::string draw_bins_text(const BinPicture& picture, const std::string& indent,
                                         const std::string& x_name, const std::string& y_name);

// The same bars as one self-contained SVG element (no scripts, no external references).
[[nodiscard]] std::string draw_bins_svg(const BinPicture& picture, const std::string& x_name,
                                        const std::string& y_name);

}  // namespace airlock::offline
