// Private to src/machine: strict, typed reads of YAML mappings with errors
// that name the file and the dotted field ("machines/x.yaml:
// device.memory_bw_gbs: must be a positive number, got 'abc'").
//
// A YamlFields wraps one mapping. Each read records the key as known; Finish()
// then rejects keys nobody asked for (typos) and duplicate keys. Reads never
// throw and never stop early: the first error is kept in a shared sink and
// later reads return defaults, so callers write straight-line code and check
// the sink once.
#ifndef DLSIM_SRC_MACHINE_YAML_FIELDS_H_
#define DLSIM_SRC_MACHINE_YAML_FIELDS_H_

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "dlsim/util/status.h"

namespace dlsim::machine_internal {

// Holds the first error of a parse; shared by the readers of nested maps.
class ErrorSink {
 public:
  void Add(Status status) {
    if (first_.ok()) first_ = std::move(status);
  }
  bool ok() const { return first_.ok(); }
  const Status& status() const { return first_; }

 private:
  Status first_;
};

enum class Presence { kRequired, kOptional };

class YamlFields {
 public:
  // `path` is the dotted path of `node` ("" for the document root).
  YamlFields(YAML::Node node, std::string file, std::string path,
             std::shared_ptr<ErrorSink> sink);

  // Root reader of a document; reports an error unless it is a mapping.
  static YamlFields Root(const YAML::Node& doc, const std::string& file,
                         std::shared_ptr<ErrorSink> sink);

  bool Has(const std::string& key) const;
  // Marks `key` as known without reading it.
  void Allow(const std::string& key) { known_.insert(key); }

  // Non-empty string scalar; "" when absent and optional.
  std::string String(const std::string& key, Presence presence);
  // One of `allowed`; `fallback` when absent and optional.
  std::string Choice(const std::string& key, const std::vector<std::string>& allowed,
                     const std::string& fallback);
  // Finite number in (0, max]; 0 when absent and optional.
  double Positive(const std::string& key, Presence presence, double max);
  // Finite number in [0, max]; `fallback` when absent.
  double NonNegative(const std::string& key, double fallback, double max);
  // Finite number in (0, 1]; `fallback` when absent.
  double Fraction(const std::string& key, double fallback);
  // Finite number in [0, 1); `fallback` when absent.
  double FractionBelowOne(const std::string& key, double fallback);
  // Integer in [1, max]; `fallback` when absent and optional.
  int64_t PositiveInt(const std::string& key, Presence presence, int64_t max,
                      int64_t fallback = 0);

  // Nested mapping reader; an absent optional map gives an empty reader
  // (Has() false everywhere, reads return defaults).
  YamlFields Map(const std::string& key, Presence presence);
  // Elements of a sequence (an absent optional key gives none).
  std::vector<YAML::Node> Sequence(const std::string& key, Presence presence);
  // Keys of a mapping whose values the caller reads itself.
  std::vector<std::string> MapKeys(const std::string& key);
  YAML::Node Node(const std::string& key) const;

  // Reports the first unknown or duplicate key of this mapping.
  void Finish();

  // Records "file: path.key: message" as an error.
  void Fail(const std::string& key, const std::string& message);
  std::string FieldPath(const std::string& key) const;
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  bool present() const { return present_; }
  const std::shared_ptr<ErrorSink>& sink() const { return sink_; }

 private:
  // The scalar text at `key`; false when absent or not a scalar (reporting
  // the error when that is one).
  bool Scalar(const std::string& key, Presence presence, const char* expected,
              std::string* text);
  bool Number(const std::string& key, Presence presence, const char* expected,
              double* value);

  using KeyIndex = std::unordered_map<std::string, YAML::Node>;

  YAML::Node node_;
  // node_'s scalar keys (the first of duplicates, as yaml-cpp's lookup);
  // yaml-cpp looks keys up by a linear scan, which made a 10k-key mapping
  // take seconds. Shared: readers are copied by value.
  std::shared_ptr<const KeyIndex> index_;
  std::string file_;
  std::string path_;
  std::shared_ptr<ErrorSink> sink_;
  std::set<std::string> known_;
  bool present_ = true;
};

// Describes a node for messages: "'abc'", "a sequence", "a mapping", "null".
std::string Describe(const YAML::Node& node);

// A plain (unquoted) scalar spelling a positive integer, e.g. a list item.
bool ParsePositiveInteger(const YAML::Node& node, int64_t* value);

// Formats a number for messages without trailing zeros ("3350", "0.25").
std::string FormatNumber(double value);

// Loads a YAML document, turning yaml-cpp exceptions into a ParseError that
// names the file, line and column. An alias of a mapping or a list (`*a`
// where `&a` marks one) is refused the same way: readers walk the tree, and
// nested aliases make it exponentially large (830 bytes grew past 4 GB).
// Aliases of single values are allowed.
Result<YAML::Node> ParseYaml(const std::string& text, const std::string& file);
// Reads a whole file; NotFound / IoError name the path.
Result<std::string> ReadTextFile(const std::string& path, const std::string& what);

// `relative` against the folder of `file`; absolute paths pass through.
std::string ResolveAgainstFileDir(const std::string& file, const std::string& relative);

}  // namespace dlsim::machine_internal

#endif  // DLSIM_SRC_MACHINE_YAML_FIELDS_H_
