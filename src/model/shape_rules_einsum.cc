// Einsum output shapes: explicit ("bij,bjk->bik") and implicit equations,
// with "..." broadcasting.
#include <algorithm>
#include <map>

#include "shape_rules.h"

namespace dlsim {
namespace {

struct Term {
  std::string letters;                     // labels, without the ellipsis
  size_t ellipsis_at = std::string::npos;  // label position where "..." sits
};

Result<Term> ParseTerm(const ShapeContext& ctx, const std::string& text) {
  Term t;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "...") == 0) {
      if (t.ellipsis_at != std::string::npos) return ctx.Error("two ellipses in '" + text + "'");
      t.ellipsis_at = t.letters.size();
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(text[i]))) {
      t.letters += text[i];
    } else if (text[i] != ' ') {
      return ctx.Error("bad character in equation term '" + text + "'");
    }
  }
  return t;
}

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> parts(1);
  for (char c : s) {
    if (c == sep)
      parts.emplace_back();
    else
      parts.back() += c;
  }
  return parts;
}

}  // namespace

Status EinsumRule(ShapeContext& ctx) {
  const std::string eq = ctx.node().GetString("equation", "");
  const size_t arrow = eq.find("->");
  const std::vector<std::string> in_terms = SplitOn(eq.substr(0, arrow), ',');
  if (in_terms.size() != ctx.num_inputs()) {
    return ctx.Error("equation '" + eq + "' has " + std::to_string(in_terms.size()) +
                     " operands, node has " + std::to_string(ctx.num_inputs()) + " inputs");
  }
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(in_terms.size()));
  std::map<char, int64_t> size;
  std::map<char, int> count;
  Shape ellipsis;
  for (size_t i = 0; i < in_terms.size(); ++i) {
    DLSIM_ASSIGN_OR_RETURN(Term t, ParseTerm(ctx, in_terms[i]));
    const Shape& d = ctx.Dims(i);
    const bool has_ell = t.ellipsis_at != std::string::npos;
    if (d.size() < t.letters.size() || (!has_ell && d.size() != t.letters.size())) {
      return ctx.Error("operand " + std::to_string(i) + " of shape " + ShapeToString(d) +
                       " does not match term '" + in_terms[i] + "'");
    }
    const size_t n_ell = d.size() - t.letters.size();
    const size_t at = has_ell ? t.ellipsis_at : t.letters.size();
    DLSIM_ASSIGN_OR_RETURN(
        ellipsis, BroadcastShapes(ctx, ellipsis, Shape(d.begin() + at, d.begin() + at + n_ell)));
    for (size_t k = 0; k < t.letters.size(); ++k) {
      const int64_t dim = d[k < at ? k : k + n_ell];
      auto [it, inserted] = size.emplace(t.letters[k], dim);
      if (!inserted && it->second != dim) {
        if (it->second != 1 && dim != 1) {
          return ctx.Error(std::string("label '") + t.letters[k] + "' has sizes " +
                           std::to_string(it->second) + " and " + std::to_string(dim));
        }
        it->second = std::max(it->second, dim);
      }
      ++count[t.letters[k]];
    }
  }
  Term out_term;
  if (arrow != std::string::npos) {
    DLSIM_ASSIGN_OR_RETURN(out_term, ParseTerm(ctx, eq.substr(arrow + 2)));
  } else {  // implicit: ellipsis first, then labels seen once, alphabetically
    out_term.ellipsis_at = 0;
    for (const auto& [label, n] : count) {
      if (n == 1) out_term.letters += label;
    }
  }
  Shape out;
  for (size_t k = 0; k <= out_term.letters.size(); ++k) {
    if (k == out_term.ellipsis_at) out.insert(out.end(), ellipsis.begin(), ellipsis.end());
    if (k == out_term.letters.size()) break;
    auto it = size.find(out_term.letters[k]);
    if (it == size.end()) {
      return ctx.Error(std::string("output label '") + out_term.letters[k] + "' is in no operand");
    }
    out.push_back(it->second);
  }
  ctx.SetOut(0, ctx.In(0).dtype, out);
  return Status::Ok();
}

}  // namespace dlsim
