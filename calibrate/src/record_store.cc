#include "record_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "json.h"

namespace dlcal {

RecordStore::~RecordStore() {
  if (fd_ >= 0) close(fd_);
}

void RecordStore::NoteLine(const std::string& line) {
  std::string key;
  if (JsonGetString(line, "key", &key)) {
    keys_.insert(key);
    ++existing_records_;
  }
}

namespace {

struct Line {
  size_t offset;
  std::string text;
};

// The complete lines (ending in '\n') of `content`.
std::vector<Line> CompleteLines(const std::string& content) {
  std::vector<Line> lines;
  size_t start = 0;
  for (size_t end; (end = content.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back({start, content.substr(start, end - start)});
  }
  return lines;
}

// How many trailing lines form a partly written key group: the last lines
// share a key and carry key_records, but fewer of them than it says (a run
// killed inside the write of a key's group). 0 when the tail is whole.
size_t PartialGroupLines(const std::vector<Line>& lines) {
  if (lines.empty()) return 0;
  std::string key, other;
  int64_t expected = 0;
  if (!JsonGetString(lines.back().text, "key", &key) ||
      !JsonGetInt(lines.back().text, "key_records", &expected)) {
    return 0;
  }
  size_t n = 0;
  while (n < lines.size() && JsonGetString(lines[lines.size() - 1 - n].text, "key", &other) &&
         other == key) {
    ++n;
  }
  return static_cast<int64_t>(n) < expected ? n : 0;
}

}  // namespace

bool RecordStore::Open(const std::string& path, std::string* error) {
  path_ = path;
  std::string content;
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::ostringstream ss;
      ss << in.rdbuf();
      content = ss.str();
    }
  }
  std::vector<Line> lines = CompleteLines(content);
  dropped_records_ = PartialGroupLines(lines);
  lines.resize(lines.size() - dropped_records_);
  size_t kept_bytes = 0;
  for (const Line& line : lines) {
    NoteLine(line.text);
    kept_bytes = line.offset + line.text.size() + 1;
  }
  truncated_bytes_ = content.size() - kept_bytes;
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    *error = "cannot open '" + path + "' for appending: " + std::strerror(errno);
    return false;
  }
  if (truncated_bytes_ > 0 && (ftruncate(fd_, static_cast<off_t>(kept_bytes)) != 0 ||
                               fsync(fd_) != 0)) {
    *error = "cannot cut the torn end of '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

bool RecordStore::Append(const std::string& lines, std::string* error) {
  if (fd_ < 0) {
    *error = "record store is not open";
    return false;
  }
  size_t done = 0;
  while (done < lines.size()) {
    ssize_t n = write(fd_, lines.data() + done, lines.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = "write to '" + path_ + "' failed: " + std::strerror(errno);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd_) != 0) {
    *error = "fsync of '" + path_ + "' failed: " + std::strerror(errno);
    return false;
  }
  size_t start = 0;
  while (start < lines.size()) {
    size_t end = lines.find('\n', start);
    if (end == std::string::npos) end = lines.size();
    std::string key;
    if (JsonGetString(lines.substr(start, end - start), "key", &key)) keys_.insert(key);
    start = end + 1;
  }
  return true;
}

}  // namespace dlcal
