#include "record_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

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
  size_t complete = content.rfind('\n');
  complete = complete == std::string::npos ? 0 : complete + 1;
  truncated_bytes_ = content.size() - complete;
  size_t start = 0;
  while (start < complete) {
    size_t end = content.find('\n', start);
    NoteLine(content.substr(start, end - start));
    start = end + 1;
  }
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    *error = "cannot open '" + path + "' for appending: " + std::strerror(errno);
    return false;
  }
  if (truncated_bytes_ > 0 && ftruncate(fd_, static_cast<off_t>(complete)) != 0) {
    *error = "cannot truncate the torn last line of '" + path + "': " + std::strerror(errno);
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
