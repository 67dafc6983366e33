// Measurement records as JSON lines (docs/kernel-keys.md): host-only.
#ifndef DLSIM_CALIBRATE_RECORDS_H_
#define DLSIM_CALIBRATE_RECORDS_H_

#include <string>
#include <vector>

#include "json.h"
#include "result.h"

namespace dlcal {

constexpr int kRecordSchema = 1;

// "13000" style versions as "13.0"; cuDNN/cuBLAS "91400" as "9.14.0".
std::string CudaVersionText(int v);
std::string LibVersionText(int v);

// The current time, ISO-8601 UTC ("2026-11-02T10:20:30Z").
std::string UtcNow();

// Adds the header fields every record starts with.
void AddHeader(const DeviceInfo& info, JsonObject* obj);

// One record line (with '\n'). Times appear only for ok/noisy results;
// extra fields: launches_per_rep, copies, timing, error, and key_records
// (when > 0: how many records the key's group has, so that resuming can
// tell a partly written group from a whole one).
std::string RecordLine(const DeviceInfo& info, const std::string& key, const AlgoResult& r,
                       const std::string& time_utc, int key_records = 0);

// All records of a key: one per result, or, when `results` is empty, one
// record with algo "-" and the status of `key_status`; each carries
// key_records, the size of the group.
std::string KeyRecords(const DeviceInfo& info, const std::string& key,
                       const std::vector<AlgoResult>& results, const Status& key_status,
                       const std::string& time_utc);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_RECORDS_H_
