#include "einsum_equation.h"

#include <algorithm>
#include <cctype>

namespace dlsim {
namespace {

struct Term {
  std::string letters;                     // labels, without the ellipsis
  size_t ellipsis_at = std::string::npos;  // label position where "..." sits
  bool has_ellipsis() const { return ellipsis_at != std::string::npos; }
};

Result<Term> ParseTerm(const std::string& text) {
  Term t;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "...") == 0) {
      if (t.has_ellipsis()) return InvalidArgument("two ellipses in '" + text + "'");
      t.ellipsis_at = t.letters.size();
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(text[i]))) {
      t.letters += text[i];
    } else if (text[i] != ' ') {
      return InvalidArgument("bad character in equation term '" + text + "'");
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

// The labels of a term's dims, with `n_ell` ellipsis dims where "..." sits.
std::vector<EinsumLabel> TermLabels(const Term& t, size_t n_ell) {
  std::vector<EinsumLabel> labels;
  const size_t at = t.has_ellipsis() ? t.ellipsis_at : t.letters.size();
  for (size_t k = 0; k <= t.letters.size(); ++k) {
    if (k == at) {
      for (size_t e = n_ell; e-- > 0;) labels.push_back(kEinsumEllipsisLabel + static_cast<int>(e));
    }
    if (k < t.letters.size()) labels.push_back(static_cast<unsigned char>(t.letters[k]));
  }
  return labels;
}

// The ellipsis shape broadcast so far (its labels' sizes, leftmost first).
Shape EllipsisShape(const std::map<EinsumLabel, int64_t>& sizes) {
  Shape shape;
  for (auto it = sizes.rbegin(); it != sizes.rend() && it->first >= kEinsumEllipsisLabel; ++it) {
    shape.push_back(it->second);
  }
  return shape;
}

// Records the sizes of an operand's letter labels (`ellipsis` false) or of
// its ellipsis labels (true); sizes of 1 broadcast.
Status MergeSizes(const std::vector<EinsumLabel>& labels, const Shape& dims, bool ellipsis,
                  std::map<EinsumLabel, int64_t>* sizes) {
  const Shape before = ellipsis ? EllipsisShape(*sizes) : Shape{};  // for the message
  Shape part;                                                       // this operand's ellipsis dims
  for (size_t k = 0; k < labels.size(); ++k) {
    if (labels[k] >= kEinsumEllipsisLabel) part.push_back(dims[k]);
  }
  for (size_t k = 0; k < labels.size(); ++k) {
    if ((labels[k] >= kEinsumEllipsisLabel) != ellipsis) continue;
    auto [it, inserted] = sizes->emplace(labels[k], dims[k]);
    if (inserted || it->second == dims[k]) continue;
    if (it->second != 1 && dims[k] != 1) {
      if (ellipsis) {
        return InvalidArgument("shapes " + ShapeToString(before) + " and " + ShapeToString(part) +
                               " do not broadcast");
      }
      return InvalidArgument(std::string("label '") + static_cast<char>(labels[k]) +
                             "' has sizes " + std::to_string(it->second) + " and " +
                             std::to_string(dims[k]));
    }
    it->second = std::max(it->second, dims[k]);
  }
  return Status::Ok();
}

// Labels of operand `i` (term text `text`, shape `dims`), sizes recorded.
Result<std::vector<EinsumLabel>> OperandLabels(size_t i, const std::string& text, const Shape& dims,
                                               std::map<EinsumLabel, int64_t>* sizes) {
  DLSIM_ASSIGN_OR_RETURN(Term t, ParseTerm(text));
  if (dims.size() < t.letters.size() || (!t.has_ellipsis() && dims.size() != t.letters.size())) {
    return InvalidArgument("operand " + std::to_string(i) + " of shape " + ShapeToString(dims) +
                           " does not match term '" + text + "'");
  }
  std::vector<EinsumLabel> labels = TermLabels(t, dims.size() - t.letters.size());
  DLSIM_RETURN_IF_ERROR(MergeSizes(labels, dims, true, sizes));
  DLSIM_RETURN_IF_ERROR(MergeSizes(labels, dims, false, sizes));
  return labels;
}

// The output term: explicit after "->", else the ellipsis then the letters
// seen once, in ASCII order.
Result<Term> OutputTerm(const std::string& equation, const EinsumEquation& eq) {
  const size_t arrow = equation.find("->");
  if (arrow != std::string::npos) return ParseTerm(equation.substr(arrow + 2));
  std::map<EinsumLabel, int> count;
  for (const auto& labels : eq.operands) {
    for (EinsumLabel l : labels) ++count[l];
  }
  Term t;
  t.ellipsis_at = 0;
  for (const auto& [label, n] : count) {
    if (n == 1 && label < kEinsumEllipsisLabel) t.letters += static_cast<char>(label);
  }
  return t;
}

}  // namespace

Result<EinsumEquation> ParseEinsumEquation(const std::string& equation,
                                           const std::vector<Shape>& operand_shapes) {
  const std::vector<std::string> terms = SplitOn(equation.substr(0, equation.find("->")), ',');
  if (terms.size() != operand_shapes.size()) {
    return InvalidArgument("equation '" + equation + "' has " + std::to_string(terms.size()) +
                           " operands, node has " + std::to_string(operand_shapes.size()) +
                           " inputs");
  }
  EinsumEquation eq;
  for (size_t i = 0; i < terms.size(); ++i) {
    DLSIM_ASSIGN_OR_RETURN(auto labels, OperandLabels(i, terms[i], operand_shapes[i], &eq.sizes));
    eq.operands.push_back(std::move(labels));
  }
  DLSIM_ASSIGN_OR_RETURN(Term out, OutputTerm(equation, eq));
  const size_t n_ell = out.has_ellipsis() ? EllipsisShape(eq.sizes).size() : 0;
  eq.output = TermLabels(out, n_ell);
  for (EinsumLabel l : eq.output) {
    if (eq.sizes.count(l) == 0) {
      return InvalidArgument(std::string("output label '") + static_cast<char>(l) +
                             "' is in no operand");
    }
  }
  return eq;
}

Shape EinsumOutputShape(const EinsumEquation& equation) {
  Shape shape;
  for (EinsumLabel l : equation.output) shape.push_back(equation.sizes.at(l));
  return shape;
}

}  // namespace dlsim
