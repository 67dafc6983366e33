#include "yaml_fields.h"

#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "dlsim/util/input_file.h"

namespace dlsim::machine_internal {

namespace {

// Numbers are written plainly: digits, sign, point, exponent. This rejects
// YAML's .nan/.inf, C's nan/inf/hex and quoted strings before strtod sees
// them, so every non-finite or odd spelling is an error naming the field.
bool LooksNumeric(const std::string& text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' ||
          c == '.' || c == 'e' || c == 'E')) {
      return false;
    }
  }
  return true;
}

// The smallest non-zero magnitude a physical quantity may have in these
// files (in its field's unit: µs, GB/s, hours ...): 1e-300 is a typo or an
// attack, and gave 300-digit figures.
constexpr double kMinMagnitude = 1e-6;

bool ParseDouble(const std::string& text, double* value) {
  if (!LooksNumeric(text)) return false;
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

}  // namespace

std::string Describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "null (empty)";
  if (node.IsSequence()) return "a sequence";
  if (node.IsMap()) return "a mapping";
  // A path to some other text file parses as one long scalar: do not echo it.
  constexpr size_t kMaxEcho = 60;
  const std::string& text = node.Scalar();
  if (text.size() > kMaxEcho) {
    return "'" + text.substr(0, kMaxEcho) + "…' (" + std::to_string(text.size()) + " characters)";
  }
  return "'" + text + "'";
}

bool ParsePositiveInteger(const YAML::Node& node, int64_t* value) {
  double v = 0;
  if (!node.IsScalar() || node.Tag() == "!" || !ParseDouble(node.Scalar(), &v)) return false;
  if (!(v >= 1 && v <= 9.0e15) || v != std::floor(v)) return false;
  *value = static_cast<int64_t>(v);
  return true;
}

std::string FormatNumber(double value) {
  std::ostringstream out;
  out.precision(12);
  out << value;
  return out.str();
}

YamlFields::YamlFields(YAML::Node node, std::string file, std::string path,
                       std::shared_ptr<ErrorSink> sink)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)),
      sink_(std::move(sink)) {
  auto index = std::make_shared<KeyIndex>();
  if (node_.IsMap()) {
    index->reserve(node_.size());
    for (const auto& kv : node_) {
      if (kv.first.IsScalar()) index->emplace(kv.first.Scalar(), kv.second);
    }
  }
  index_ = std::move(index);
}

YamlFields YamlFields::Root(const YAML::Node& doc, const std::string& file,
                            std::shared_ptr<ErrorSink> sink) {
  YamlFields root(doc, file, "", sink);
  if (!doc.IsMap()) {
    sink->Add(InvalidArgument(file + ": the document must be a mapping of keys, got " +
                              Describe(doc)));
    root.present_ = false;
  }
  return root;
}

std::string YamlFields::FieldPath(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

void YamlFields::Fail(const std::string& key, const std::string& message) {
  sink_->Add(InvalidArgument(file_ + ": " + FieldPath(key) + ": " + message));
}

bool YamlFields::Has(const std::string& key) const {
  if (!present_) return false;
  auto it = index_->find(key);
  return it != index_->end() && it->second.IsDefined();
}

YAML::Node YamlFields::Node(const std::string& key) const {
  if (!present_) return YAML::Node();
  auto it = index_->find(key);
  return it != index_->end() ? it->second : YAML::Node(YAML::NodeType::Undefined);
}

bool YamlFields::Scalar(const std::string& key, Presence presence, const char* expected,
                        std::string* text) {
  known_.insert(key);
  if (!Has(key)) {
    if (presence == Presence::kRequired && present_) {
      Fail(key, std::string("required field is missing (") + expected + ")");
    }
    return false;
  }
  YAML::Node value = Node(key);
  if (!value.IsScalar()) {
    Fail(key, std::string("must be ") + expected + ", got " + Describe(value));
    return false;
  }
  *text = value.Scalar();
  return true;
}

bool YamlFields::Number(const std::string& key, Presence presence, const char* expected,
                        double* value) {
  std::string text;
  if (!Scalar(key, presence, expected, &text)) return false;
  // A quoted scalar ("3350") carries the non-specific tag "!": a string.
  if (Node(key).Tag() == "!" || !ParseDouble(text, value) || !std::isfinite(*value)) {
    Fail(key, std::string("must be ") + expected + ", got " + Describe(Node(key)));
    return false;
  }
  return true;
}

std::string YamlFields::String(const std::string& key, Presence presence) {
  std::string text;
  if (!Scalar(key, presence, "a non-empty string", &text)) return "";
  if (text.empty()) Fail(key, "must be a non-empty string");
  return text;
}

std::string YamlFields::Choice(const std::string& key, const std::vector<std::string>& allowed,
                               const std::string& fallback) {
  std::string text;
  if (!Scalar(key, Presence::kOptional, "a string", &text)) return fallback;
  for (const auto& a : allowed) {
    if (text == a) return text;
  }
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : "|") + a;
  Fail(key, "must be one of " + list + ", got '" + text + "'");
  return fallback;
}

double YamlFields::Positive(const std::string& key, Presence presence, double max) {
  double v = 0;
  if (!Number(key, presence, "a positive number", &v)) return 0;
  if (v <= 0) {
    Fail(key, "must be a positive number, got '" + Node(key).Scalar() + "'");
    return 0;
  }
  if (v < kMinMagnitude) {
    Fail(key, "absurdly small value " + FormatNumber(v) + " (the smallest accepted is " +
                  FormatNumber(kMinMagnitude) + ")");
    return 0;
  }
  if (v > max) {
    Fail(key, "absurd value " + FormatNumber(v) + " (the limit is " + FormatNumber(max) + ")");
    return 0;
  }
  return v;
}

double YamlFields::NonNegative(const std::string& key, double fallback, double max) {
  double v = 0;
  if (!Number(key, Presence::kOptional, "a number >= 0", &v)) return fallback;
  if (v < 0) {
    Fail(key, "must be a number >= 0, got '" + Node(key).Scalar() + "'");
    return fallback;
  }
  if (v > 0 && v < kMinMagnitude) {
    Fail(key, "absurdly small value " + FormatNumber(v) + " (the smallest accepted is " +
                  FormatNumber(kMinMagnitude) + ", or 0)");
    return fallback;
  }
  if (v > max) {
    Fail(key, "absurd value " + FormatNumber(v) + " (the limit is " + FormatNumber(max) + ")");
    return fallback;
  }
  return v;
}

double YamlFields::Fraction(const std::string& key, double fallback) {
  double v = 0;
  if (!Number(key, Presence::kOptional, "a fraction in (0, 1]", &v)) return fallback;
  if (v <= 0 || v > 1) {
    Fail(key, "must be a fraction in (0, 1], got '" + Node(key).Scalar() + "'");
    return fallback;
  }
  return v;
}

double YamlFields::FractionBelowOne(const std::string& key, double fallback) {
  double v = 0;
  if (!Number(key, Presence::kOptional, "a fraction in [0, 1)", &v)) return fallback;
  if (v < 0 || v >= 1) {
    Fail(key, "must be a fraction in [0, 1), got '" + Node(key).Scalar() + "'");
    return fallback;
  }
  return v;
}

int64_t YamlFields::PositiveInt(const std::string& key, Presence presence, int64_t max,
                                int64_t fallback) {
  double v = 0;
  if (!Number(key, presence, "a positive integer", &v)) return fallback;
  if (v <= 0 || v != std::floor(v)) {
    Fail(key, "must be a positive integer, got '" + Node(key).Scalar() + "'");
    return fallback;
  }
  if (v > static_cast<double>(max)) {
    Fail(key, "absurd value " + FormatNumber(v) + " (the limit is " +
                  FormatNumber(static_cast<double>(max)) + ")");
    return fallback;
  }
  return static_cast<int64_t>(v);
}

YamlFields YamlFields::Map(const std::string& key, Presence presence) {
  known_.insert(key);
  YamlFields child(Node(key), file_, FieldPath(key), sink_);
  if (!Has(key)) {
    if (presence == Presence::kRequired && present_) {
      Fail(key, "required section is missing");
    }
    child.present_ = false;
  } else if (!child.node_.IsMap()) {
    Fail(key, "must be a mapping of keys, got " + Describe(child.node_));
    child.present_ = false;
  }
  return child;
}

std::vector<YAML::Node> YamlFields::Sequence(const std::string& key, Presence presence) {
  known_.insert(key);
  std::vector<YAML::Node> items;
  if (!Has(key)) {
    if (presence == Presence::kRequired && present_) Fail(key, "required list is missing");
    return items;
  }
  YAML::Node seq = Node(key);
  if (!seq.IsSequence()) {
    Fail(key, "must be a list, got " + Describe(seq));
    return items;
  }
  for (const auto& item : seq) items.push_back(item);
  return items;
}

std::vector<std::string> YamlFields::MapKeys(const std::string& key) {
  YamlFields child = Map(key, Presence::kOptional);
  std::vector<std::string> keys;
  if (!child.present_) return keys;
  for (const auto& kv : child.node_) keys.push_back(kv.first.Scalar());
  return keys;
}

void YamlFields::Finish() {
  if (!present_) return;
  std::set<std::string> seen;
  for (const auto& kv : node_) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
    // Only the first error is kept: stop there (listing the known keys for
    // every bad key of a large mapping would be quadratic).
    if (!seen.insert(key).second) {
      Fail(key, "duplicate key");
      return;
    }
    if (!known_.count(key)) {
      std::string list;
      for (const auto& k : known_) list += (list.empty() ? "" : ", ") + k;
      Fail(key, "unknown key (a typo? known keys here: " + list + ")");
      return;
    }
  }
}

namespace {

// First pass over the events: finds an alias of a mapping or a sequence.
class CollectionAliasFinder : public YAML::EventHandler {
 public:
  bool found() const { return found_; }
  const YAML::Mark& mark() const { return mark_; }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (!found_ && collections_.count(anchor) != 0) {
      found_ = true;
      mark_ = mark;
    }
  }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    if (anchor != YAML::NullAnchor) collections_.insert(anchor);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    if (anchor != YAML::NullAnchor) collections_.insert(anchor);
  }
  void OnMapEnd() override {}

 private:
  std::set<YAML::anchor_t> collections_;
  bool found_ = false;
  YAML::Mark mark_;
};

}  // namespace

Result<YAML::Node> ParseYaml(const std::string& text, const std::string& file) {
  try {
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    CollectionAliasFinder finder;
    parser.HandleNextDocument(finder);  // YAML::Load reads the first document only
    if (finder.found()) {
      return ParseError(file + ":" + std::to_string(finder.mark().line + 1) + ":" +
                        std::to_string(finder.mark().column + 1) +
                        ": an alias of a mapping or list; dlsim allows aliases of single "
                        "values only (write the section out)");
    }
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return ParseError(file + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": YAML syntax error: " + e.msg);
  }
}

Result<std::string> ReadTextFile(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound(path + ": " + what + " not found");
  // Machine and workload files are a few KB; /dev/zero, a FIFO or a huge
  // file is a mistake or an attack on yaml-cpp's memory.
  return ReadInputFile(path, "a " + what, int64_t{16} << 20);
}

std::string ResolveAgainstFileDir(const std::string& file, const std::string& relative) {
  std::filesystem::path p(relative);
  if (p.is_absolute()) return p.lexically_normal().string();
  std::filesystem::path dir = std::filesystem::path(file).parent_path();
  return (dir / p).lexically_normal().string();
}

}  // namespace dlsim::machine_internal
