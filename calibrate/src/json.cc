#include "json.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace dlcal {

std::string JsonEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

void JsonObject::Name(const std::string& name) {
  if (body_.size() > 1) body_ += ", ";
  body_ += "\"" + JsonEscape(name) + "\": ";
}

JsonObject& JsonObject::Str(const std::string& name, const std::string& value) {
  Name(name);
  body_ += "\"" + JsonEscape(value) + "\"";
  return *this;
}

JsonObject& JsonObject::Num(const std::string& name, double value) {
  Name(name);
  body_ += JsonNumber(value);
  return *this;
}

JsonObject& JsonObject::Int(const std::string& name, int64_t value) {
  Name(name);
  body_ += std::to_string(value);
  return *this;
}

JsonObject& JsonObject::Bool(const std::string& name, bool value) {
  Name(name);
  body_ += value ? "true" : "false";
  return *this;
}

JsonObject& JsonObject::Raw(const std::string& name, const std::string& json) {
  Name(name);
  body_ += json;
  return *this;
}

namespace {

// Reads a JSON string starting at line[*pos] == '"'; leaves *pos after the
// closing quote. \uXXXX escapes below 0x80 are decoded, others kept as UTF-8.
bool ReadString(const std::string& line, size_t* pos, std::string* out) {
  out->clear();
  size_t i = *pos + 1;
  while (i < line.size()) {
    char c = line[i];
    if (c == '"') {
      *pos = i + 1;
      return true;
    }
    if (c != '\\') {
      *out += c;
      ++i;
      continue;
    }
    if (i + 1 >= line.size()) return false;
    char e = line[i + 1];
    switch (e) {
      case 'n': *out += '\n'; break;
      case 'r': *out += '\r'; break;
      case 't': *out += '\t'; break;
      case 'b': *out += '\b'; break;
      case 'f': *out += '\f'; break;
      case 'u': {
        if (i + 5 >= line.size()) return false;
        unsigned code = std::stoul(line.substr(i + 2, 4), nullptr, 16);
        if (code < 0x80) {
          *out += static_cast<char>(code);
        } else if (code < 0x800) {
          *out += static_cast<char>(0xC0 | (code >> 6));
          *out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
          *out += static_cast<char>(0xE0 | (code >> 12));
          *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
          *out += static_cast<char>(0x80 | (code & 0x3F));
        }
        i += 4;
        break;
      }
      default: *out += e;  // \" \\ \/
    }
    i += 2;
  }
  return false;
}

}  // namespace

namespace {

// The position of the value of top-level `field` in a one-line object, or
// npos when absent or malformed.
size_t FindValue(const std::string& line, const std::string& field) {
  size_t i = 0;
  std::string s;
  try {
    while (i < line.size()) {
      if (line[i] != '"') {
        ++i;
        continue;
      }
      if (!ReadString(line, &i, &s)) return std::string::npos;
      // A name is a string followed by ':'; a value string is followed by , } ]
      size_t j = line.find_first_not_of(" \t", i);
      if (j == std::string::npos) return std::string::npos;
      if (line[j] != ':') continue;
      if (s != field) {
        i = j + 1;
        continue;
      }
      return line.find_first_not_of(" \t", j + 1);
    }
  } catch (const std::exception&) {  // a bad \u escape
  }
  return std::string::npos;
}

}  // namespace

bool JsonGetString(const std::string& line, const std::string& field, std::string* value) {
  size_t v = FindValue(line, field);
  if (v == std::string::npos || line[v] != '"') return false;
  try {
    return ReadString(line, &v, value);
  } catch (const std::exception&) {  // a bad \u escape
    return false;
  }
}

bool JsonGetInt(const std::string& line, const std::string& field, int64_t* value) {
  const size_t v = FindValue(line, field);
  if (v == std::string::npos) return false;
  const char* begin = line.c_str() + v;
  char* end = nullptr;
  errno = 0;
  const long long parsed = std::strtoll(begin, &end, 10);
  if (end == begin || errno != 0 || (*end != ',' && *end != '}' && *end != ' ')) return false;
  *value = parsed;
  return true;
}

}  // namespace dlcal
