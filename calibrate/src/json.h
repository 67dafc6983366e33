// A tiny JSON writer (one flat object per record) and the one reader the
// resume logic needs: a top-level string field of a record line.
#ifndef DLSIM_CALIBRATE_JSON_H_
#define DLSIM_CALIBRATE_JSON_H_

#include <cstdint>
#include <string>

namespace dlcal {

std::string JsonEscape(const std::string& s);
// Shortest round-tripping-enough text (%.9g); NaN and infinities become null.
std::string JsonNumber(double v);

// Builds {"a": 1, "b": "x", ...} in insertion order.
class JsonObject {
 public:
  JsonObject& Str(const std::string& name, const std::string& value);
  JsonObject& Num(const std::string& name, double value);
  JsonObject& Int(const std::string& name, int64_t value);
  JsonObject& Bool(const std::string& name, bool value);
  // `json` must already be valid JSON text (an array or object).
  JsonObject& Raw(const std::string& name, const std::string& json);
  std::string Text() const { return body_ + "}"; }

 private:
  void Name(const std::string& name);
  std::string body_ = "{";
};

// Finds `"field": "value"` in a one-line JSON object and unescapes value.
// Matches the field name only outside strings, at any nesting depth (records
// are flat, so this is the top level). False when absent or malformed.
bool JsonGetString(const std::string& line, const std::string& field, std::string* value);
// Same for an integer field (`"field": 12`).
bool JsonGetInt(const std::string& line, const std::string& field, int64_t* value);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_JSON_H_
