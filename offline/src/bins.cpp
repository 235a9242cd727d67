#include <algorithm>
#include <sstream>

#include <airlock/common/display.h>
#include <airlock/offline/bins.h>

namespace airlock::offline {
namespace {

using ojson = nlohmann::ordered_json;
using Kind = BinPicture::Kind;

constexpr std::int64_t kMaxColumns = 70;    // one step's bins, one column each
constexpr int kRows = 3;                    // rows of eighth blocks per token: 24 heights
constexpr std::size_t kScreenColumns = 80;  // the terminal the text picture must fit

std::optional<std::int64_t> bin_arg(const ojson& v) {
  if (!v.is_number_integer()) return std::nullopt;
  return v.get<std::int64_t>();
}

std::string variant_of(const ojson& v) {
  return v.is_object() && v.contains("variant") && v["variant"].is_string()
             ? v["variant"].get<std::string>()
             : std::string();
}

bool valid_range(std::int64_t first, std::int64_t last) {
  return first <= last && last - first < kMaxPictureBins;
}

// The bins a deposit gives one token, as Meteora's strategies spread it (checked against
// @meteora-ag/dlmm's toAmountsBothSideByStrategy by DlmmOracle.*). With the active bin in the
// range, Y fills the bins at and below it and X the bins above it, and the active bin too when
// no Y is deposited. With the active bin outside the range, every bin holds the token on that
// side of it, and the other token has nowhere to go.
struct Side {
  std::int64_t lo = 0, hi = -1;  // inclusive; empty when lo > hi
  bool near_is_lo = true;        // which end is nearer the active bin
};

Side side_of(bool x, std::int64_t first, std::int64_t last, std::int64_t active, bool with_y) {
  if (x) {
    if (active < first) return {first, last, true};
    if (active > last) return {};
    return {with_y ? active + 1 : active, last, true};
  }
  if (active > last) return {first, last, false};
  if (active < first) return {};
  return {first, active, false};
}

// A shape's weights over one side, in value: spot even; curve 1 at the far end, rising by 1
// a bin towards the active bin; bid-ask 1 at the near end, rising by 1 a bin away from it.
std::vector<std::uint64_t> shaped(const std::string& shape, std::int64_t first, std::int64_t last,
                                  const Side& s) {
  std::vector<std::uint64_t> w(static_cast<std::size_t>(last - first + 1), 0);
  for (std::int64_t b = s.lo; b <= s.hi; ++b) {
    const std::int64_t from_near = s.near_is_lo ? b - s.lo : s.hi - b;
    const std::int64_t from_far = s.hi - s.lo - from_near;
    const std::int64_t weight = shape == "Curve"    ? from_far + 1
                                : shape == "BidAsk" ? from_near + 1
                                                    : 1;
    w[static_cast<std::size_t>(b - first)] = static_cast<std::uint64_t>(weight);
  }
  return w;
}

std::string shape_words(const std::string& variant) {
  return variant == "Spot" ? "spot" : variant == "Curve" ? "curve" : "bid-ask";
}

std::string percent_of_bps(std::uint64_t bps) {
  std::string out = std::to_string(bps / 100);
  if (bps % 100 != 0)
    out += "." + std::string(bps % 100 < 10 ? "0" : "") + std::to_string(bps % 100);
  return out + "%";
}

std::optional<BinPicture> deposit(const Decoded& d) {
  const ojson& a = d.args;
  if (!a.contains("strategy") || !a.contains("active_id")) return std::nullopt;
  const auto first = bin_arg(a["strategy"].value("min_bin_id", ojson()));
  const auto last = bin_arg(a["strategy"].value("max_bin_id", ojson()));
  const auto active = bin_arg(a["active_id"]);
  const std::string shape = variant_of(a["strategy"].value("shape", ojson()));
  if (!first || !last || !active || !valid_range(*first, *last) ||
      (shape != "Spot" && shape != "Curve" && shape != "BidAsk"))
    return std::nullopt;
  BinPicture p;
  p.kind = Kind::kDeposit;
  p.first_bin = *first;
  p.last_bin = *last;
  p.active_bin = *active;
  const auto amount = [&](const char* name) {
    return a.contains(name) ? integer_arg(a[name]).value_or(0) : 0;
  };
  const auto any = [](const std::vector<std::uint64_t>& w) {
    return std::any_of(w.begin(), w.end(), [](std::uint64_t v) { return v != 0; });
  };
  const bool with_y = amount("amount_y") != 0;
  if (amount("amount_x") != 0) {
    p.x = shaped(shape, *first, *last, side_of(true, *first, *last, *active, with_y));
    p.x_stranded = !any(p.x);
  }
  if (with_y) {
    p.y = shaped(shape, *first, *last, side_of(false, *first, *last, *active, with_y));
    p.y_stranded = !any(p.y);
  }
  p.caption = shape_words(shape) +
              " shape: bar heights are each bin's share of the token's value;\n"
              "token Y goes at and below the active bin, X above it (at it too if no Y)";
  return p;
}

std::optional<BinPicture> limit_order(const Decoded& d) {
  const ojson& a = d.args;
  const std::string side = variant_of(a.value("side", ojson()));
  if ((side != "Ask" && side != "Bid") || !a.contains("bins") || !a["bins"].is_array() ||
      a["bins"].empty())
    return std::nullopt;
  std::vector<std::pair<std::int64_t, std::uint64_t>> bins;
  for (const auto& b : a["bins"]) {
    const auto id = bin_arg(b.value("bin_id", ojson()));
    const auto amount = integer_arg(b.value("amount", ojson()));
    if (!id || !amount) return std::nullopt;
    bins.emplace_back(*id, *amount);
  }
  BinPicture p;
  p.kind = Kind::kLimitOrder;
  p.first_bin = std::min_element(bins.begin(), bins.end())->first;
  p.last_bin = std::max_element(bins.begin(), bins.end())->first;
  if (!valid_range(p.first_bin, p.last_bin)) return std::nullopt;
  std::vector<std::uint64_t> w(static_cast<std::size_t>(p.last_bin - p.first_bin + 1), 0);
  for (const auto& [id, amount] : bins) {
    auto& slot = w[static_cast<std::size_t>(id - p.first_bin)];
    slot = amount > UINT64_MAX - slot ? UINT64_MAX : slot + amount;
  }
  (side == "Ask" ? p.x : p.y) = std::move(w);
  p.caption = side == "Ask" ? "limit order selling token X: bar heights are the exact amounts"
                            : "limit order buying with token Y: bar heights are the exact amounts";
  return p;
}

std::optional<BinPicture> flip(const Decoded& d) {
  const auto first = bin_arg(d.args.value("from_bin_id", ojson()));
  const auto last = bin_arg(d.args.value("to_bin_id", ojson()));
  const auto active = bin_arg(d.args.value("active_id", ojson()));
  if (!first || !last || !active || !valid_range(*first, *last)) return std::nullopt;
  BinPicture p;
  p.kind = Kind::kFlip;
  p.first_bin = *first;
  p.last_bin = *last;
  p.active_bin = *active;
  p.active_bound = true;  // activeBinId of the request (review.cpp, position_intent)
  // The shape is bid-ask over the range by distance from the active bin. Which token the bins
  // hold afterwards is the program's doing: the picture shows where and how, not which.
  p.out.reserve(static_cast<std::size_t>(*last - *first + 1));
  for (std::int64_t b = *first; b <= *last; ++b)
    p.out.push_back(static_cast<std::uint64_t>(std::abs(b - *active) + 1));
  p.caption =
      "flip: the bins' liquidity is withdrawn and re-added there with the bid-ask shape;\n"
      "bar heights are the shape's weights (which token the bins then hold, the program sets)";
  return p;
}

std::optional<BinPicture> removal(const Decoded& d) {
  const auto first = bin_arg(d.args.value("from_bin_id", ojson()));
  const auto last = bin_arg(d.args.value("to_bin_id", ojson()));
  const auto bps = integer_arg(d.args.value("bps_to_remove", ojson()));
  if (!first || !last || !bps || !valid_range(*first, *last)) return std::nullopt;
  BinPicture p;
  p.kind = Kind::kRemoval;
  p.first_bin = *first;
  p.last_bin = *last;
  p.out.assign(static_cast<std::size_t>(*last - *first + 1), *bps);
  p.caption = "removal: " + percent_of_bps(*bps) +
              " of each bin's liquidity leaves the position;\n"
              "bar height: the share that leaves, of 100%";
  return p;
}

// Bins grouped into at most kMaxColumns columns: each column's weight is its bins' mean (so a
// last column with fewer bins is not drawn lower), or their largest for a removal's share.
struct Columns {
  std::int64_t per_column = 1;
  std::vector<std::uint64_t> x, y, out;
  std::optional<std::size_t> active;
  std::size_t count = 0;
};

std::vector<std::uint64_t> grouped(const std::vector<std::uint64_t>& w, std::int64_t per_column,
                                   std::size_t count, bool keep_max) {
  if (w.empty()) return {};
  const auto per = static_cast<std::size_t>(per_column);
  std::vector<std::uint64_t> out(count, 0);
  for (std::size_t column = 0; column < count; ++column) {
    const std::size_t begin = column * per;
    const std::size_t end = std::min(w.size(), begin + per);
    unsigned __int128 sum = 0;
    for (std::size_t i = begin; i < end; ++i) {
      out[column] = std::max(out[column], w[i]);
      sum += w[i];
    }
    if (!keep_max && end > begin) {
      const auto bins = static_cast<unsigned __int128>(end - begin);
      out[column] = static_cast<std::uint64_t>((sum + bins - 1) / bins);
    }
  }
  return out;
}

Columns columns_of(const BinPicture& p) {
  Columns c;
  const std::int64_t bins = p.last_bin - p.first_bin + 1;
  c.per_column = (bins + kMaxColumns - 1) / kMaxColumns;
  c.count = static_cast<std::size_t>((bins + c.per_column - 1) / c.per_column);
  c.x = grouped(p.x, c.per_column, c.count, false);
  c.y = grouped(p.y, c.per_column, c.count, false);
  c.out = grouped(p.out, c.per_column, c.count, true);
  if (p.active_bin && *p.active_bin >= p.first_bin && *p.active_bin <= p.last_bin)
    c.active = static_cast<std::size_t>((*p.active_bin - p.first_bin) / c.per_column);
  return c;
}

// Heights from 0 to `levels`: the largest weight is full, any weight above zero shows.
std::vector<std::uint64_t> heights(const std::vector<std::uint64_t>& w, std::uint64_t top,
                                   std::uint64_t levels) {
  std::vector<std::uint64_t> h;
  h.reserve(w.size());
  for (const std::uint64_t v : w) {
    // Above `top` (a removal's share over 100%, which the program refuses) is drawn full.
    h.push_back(
        v == 0 || top == 0
            ? 0
            : std::min<std::uint64_t>(
                  levels, static_cast<std::uint64_t>(
                              (static_cast<unsigned __int128>(v) * levels + top - 1) / top)));
  }
  return h;
}

// A deposit's active bin comes from the online half's reading of the pool; no field of the
// build request names it, so the picture says where it stands is not checked.
constexpr std::string_view kUnboundActiveBin =
    "the active bin is the online half's reading of the pool: unbound";

std::string bins_label(const BinPicture& p, const Columns& c) {
  std::string s = "bins " + std::to_string(p.first_bin) + " to " + std::to_string(p.last_bin) +
                  " (" + std::to_string(p.last_bin - p.first_bin + 1) + ")";
  if (p.active_bin) {
    s += ", active bin " + std::to_string(*p.active_bin) +
         (c.active                      ? " (^)"
          : *p.active_bin < p.first_bin ? " (below the range)"
                                        : " (above the range)");
  } else {
    s += ", active bin not named by the instruction";
  }
  if (c.per_column > 1) {
    s += "; " + std::to_string(c.per_column) + " bins per column (" +
         (p.kind == Kind::kRemoval ? "their largest share" : "their mean") + ")";
  }
  return s;
}

}  // namespace

std::optional<BinPicture> bin_picture(const Decoded& d) {
  if (d.program != "airlock_vault") return std::nullopt;
  if (d.instruction == "dlmm_open" || d.instruction == "dlmm_add" ||
      d.instruction == "dlmm_add_range")
    return deposit(d);
  if (d.instruction == "dlmm_limit_order_place") return limit_order(d);
  if (d.instruction == "dlmm_flip") return flip(d);
  if (d.instruction == "dlmm_remove") return removal(d);
  return std::nullopt;
}

// `line` under `indent`, broken at spaces into lines of at most kScreenColumns columns (a
// word longer than that stays whole on its own line).
void put_wrapped(std::ostringstream& text, const std::string& indent, const std::string& line) {
  const std::size_t room =
      kScreenColumns > indent.size() + 20 ? kScreenColumns - indent.size() : 20;
  std::istringstream words(line);
  std::string row;
  for (std::string word; words >> word;) {
    if (!row.empty() && display_width(row) + 1 + display_width(word) > room) {
      text << indent << row << "\n";
      row.clear();
    }
    row += (row.empty() ? "" : " ") + word;
  }
  text << indent << row << "\n";
}

std::string draw_bins_text(const BinPicture& p, const std::string& indent,
                           const std::string& x_name, const std::string& y_name) {
  static const char* const kEighths[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  const Columns c = columns_of(p);
  const bool one_row = p.kind == Kind::kRemoval || p.kind == Kind::kFlip;
  // The rows are labelled by side ("X", "Y") or by what they show ("out", "re-add"); the
  // tokens' names, which come from outside and may be of any width, go on a line of their own,
  // so the bars line up whatever the names.
  const std::string out_name = p.kind == Kind::kFlip ? "re-add" : "out";
  const std::size_t label_width = one_row ? out_name.size() : 1;
  const auto pad = [&](const std::string& s) {
    return std::string(label_width - std::min(label_width, s.size()), ' ') + s;
  };
  // A row is "LABEL |", its columns and "|"; it starts two columns past `indent` when that
  // leaves it within 80 columns, further left otherwise (a step's 70 bins are 70 columns).
  const std::size_t row_width = label_width + 2 + c.count + 1;
  const std::string row_indent =
      (indent + "  ").substr(0, row_width >= kScreenColumns ? 0 : kScreenColumns - row_width);
  std::ostringstream text;
  put_wrapped(text, indent, bins_label(p, c));
  if (p.active_bin && !p.active_bound) put_wrapped(text, indent, std::string(kUnboundActiveBin));
  // The caption as one paragraph, wrapped to the room the indent leaves.
  std::string caption = p.caption;
  std::replace(caption.begin(), caption.end(), '\n', ' ');
  put_wrapped(text, indent, caption);
  if (!one_row && (x_name != "X" || y_name != "Y"))
    put_wrapped(text, indent, "tokens: " + x_name + ", " + y_name);
  std::vector<std::string> notes;
  const auto rows = [&](const std::string& label, const std::vector<std::uint64_t>& w,
                        std::uint64_t top, bool stranded) {
    if (w.empty() || stranded) {
      text << row_indent << pad(label) << " |" << std::string(c.count, ' ') << "|\n";
      notes.push_back(label + ": " +
                      (stranded ? "an amount is deposited, but no bin here is on its side of "
                                  "the active bin"
                                : "none"));
      return;
    }
    const auto h = heights(w, top, std::uint64_t{kRows} * 8);
    for (int row = kRows - 1; row >= 0; --row) {
      text << row_indent << (row == kRows - 1 ? pad(label) : pad("")) << " |";
      for (const std::uint64_t level : h) {
        const std::uint64_t floor = static_cast<std::uint64_t>(row) * 8;
        text << kEighths[level <= floor ? 0 : std::min<std::uint64_t>(level - floor, 8)];
      }
      text << "|\n";
    }
  };
  if (p.kind == Kind::kRemoval) {
    rows(out_name, c.out, 10'000, false);
  } else if (p.kind == Kind::kFlip) {
    rows(out_name, c.out, *std::max_element(c.out.begin(), c.out.end()), false);
  } else {
    // X and Y share one scale when both are weights of one shape; a limit order has one side.
    std::uint64_t top = 0;
    for (const auto* side : {&c.x, &c.y})
      for (const std::uint64_t v : *side) top = std::max(top, v);
    rows("X", c.x, top, p.x_stranded);
    rows("Y", c.y, top, p.y_stranded);
  }
  std::string marks(c.count, ' ');
  if (c.active) marks[*c.active] = '^';
  const std::string first = std::to_string(p.first_bin);
  const std::string last = std::to_string(p.last_bin);
  text << row_indent << pad("") << " |" << marks << "|\n";
  text << row_indent << pad("") << "  " << first
       << std::string(
              c.count > first.size() + last.size() ? c.count - first.size() - last.size() : 1, ' ')
       << last << "\n";
  for (const auto& note : notes) put_wrapped(text, indent, note);
  return text.str();
}

std::string draw_bins_svg(const BinPicture& p, const std::string& x_name,
                          const std::string& y_name) {
  const Columns c = columns_of(p);
  constexpr int kColumn = 8, kPane = 64, kLeft = 72, kTop = 8, kGap = 10;
  const bool removal = p.kind == Kind::kRemoval;
  const bool one_row = removal || p.kind == Kind::kFlip;
  const int panes = one_row ? 1 : 2;
  const int width = kLeft + static_cast<int>(c.count) * kColumn + 16;
  const int height = kTop + panes * (kPane + kGap) + 28;
  std::uint64_t top = removal ? 10'000 : 0;
  for (const auto* side : {&c.x, &c.y, &c.out}) {
    if (removal) break;
    for (const std::uint64_t v : *side) top = std::max(top, v);
  }
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" role=\"img\" aria-label=\""
      << xml_escape(bins_label(p, c) + (p.active_bin && !p.active_bound
                                            ? "; " + std::string(kUnboundActiveBin)
                                            : std::string()))
      << "\">\n";
  const auto pane = [&](int index, const std::string& name, const std::vector<std::uint64_t>& w,
                        const char* colour, bool stranded) {
    const int base = kTop + index * (kPane + kGap) + kPane;
    svg << "<text x=\"" << kLeft - 6 << "\" y=\"" << base - kPane / 2
        << "\" text-anchor=\"end\" font-family=\"monospace\" font-size=\"12\">" << xml_escape(name)
        << "</text>\n";
    svg << "<line x1=\"" << kLeft << "\" y1=\"" << base << "\" x2=\""
        << kLeft + static_cast<int>(c.count) * kColumn << "\" y2=\"" << base
        << "\" stroke=\"#888\"/>\n";
    if (w.empty() || stranded) {
      svg << "<text x=\"" << kLeft + 4 << "\" y=\"" << base - 4
          << "\" font-family=\"sans-serif\" font-size=\"11\">"
          << (stranded ? "deposited, but no bin here is on its side of the active bin" : "none")
          << "</text>\n";
      return;
    }
    const auto h = heights(w, top, kPane);
    for (std::size_t i = 0; i < h.size(); ++i) {
      if (h[i] == 0) continue;
      svg << "<rect x=\"" << kLeft + static_cast<int>(i) * kColumn + 1 << "\" y=\""
          << base - static_cast<int>(h[i]) << "\" width=\"" << kColumn - 2 << "\" height=\"" << h[i]
          << "\" fill=\"" << colour << "\"/>\n";
    }
  };
  if (one_row) {
    pane(0, removal ? "out" : "re-add", c.out, removal ? "#b03a2e" : "#6a4fb0", false);
  } else {
    pane(0, x_name, c.x, "#2e6db0", p.x_stranded);
    pane(1, y_name, c.y, "#c07a1e", p.y_stranded);
  }
  const int axis = kTop + panes * (kPane + kGap);
  if (c.active) {
    const int x = kLeft + static_cast<int>(*c.active) * kColumn + kColumn / 2;
    svg << "<line x1=\"" << x << "\" y1=\"" << kTop << "\" x2=\"" << x << "\" y2=\"" << axis
        << "\" stroke=\"#000\" stroke-dasharray=\"3 2\"/>\n";
  }
  svg << "<text x=\"" << kLeft << "\" y=\"" << axis + 16
      << "\" font-family=\"monospace\" font-size=\"11\">" << p.first_bin << "</text>\n";
  svg << "<text x=\"" << kLeft + static_cast<int>(c.count) * kColumn << "\" y=\"" << axis + 16
      << "\" text-anchor=\"end\" font-family=\"monospace\" font-size=\"11\">" << p.last_bin
      << "</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace airlock::offline
