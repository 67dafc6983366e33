// The output file of `dlsim-calibrate run`: JSON lines, appended and made
// durable record by record, resumable after a kill.
#ifndef DLSIM_CALIBRATE_RECORD_STORE_H_
#define DLSIM_CALIBRATE_RECORD_STORE_H_

#include <cstddef>
#include <string>
#include <unordered_set>

namespace dlcal {

class RecordStore {
 public:
  RecordStore() = default;
  ~RecordStore();
  RecordStore(const RecordStore&) = delete;
  RecordStore& operator=(const RecordStore&) = delete;

  // Opens (creating) `path`. Reads the complete lines already there and
  // remembers their keys. What a killed run may have left half written is
  // cut off (and the cut fsynced), so that its key is measured again and
  // appends start on a fresh line: a torn last line (no trailing newline),
  // and a trailing key group with fewer lines than its key_records field
  // says (records.h).
  bool Open(const std::string& path, std::string* error);

  bool HasKey(const std::string& key) const { return keys_.count(key) != 0; }
  size_t existing_records() const { return existing_records_; }
  size_t done_keys() const { return keys_.size(); }
  size_t truncated_bytes() const { return truncated_bytes_; }
  // Complete lines cut off with a partly written key group.
  size_t dropped_records() const { return dropped_records_; }

  // Appends `lines` (each ending in '\n') with one write(2), then fsync(2).
  // The keys found in them count as done.
  bool Append(const std::string& lines, std::string* error);

 private:
  void NoteLine(const std::string& line);

  int fd_ = -1;
  std::string path_;
  std::unordered_set<std::string> keys_;
  size_t existing_records_ = 0;
  size_t truncated_bytes_ = 0;
  size_t dropped_records_ = 0;
};

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_RECORD_STORE_H_
