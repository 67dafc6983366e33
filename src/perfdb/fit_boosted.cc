// Gradient-boosted trees over a key's hardware features (fit_boosted.h),
// through XGBoost's C API.
#include "fit_boosted.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <set>

#include "dlsim/kernel/layout.h"
#include "kernel/tiles.h"
#include "kernel/work.h"

namespace dlsim::perfdb_internal {
namespace {

constexpr float kMissing = std::numeric_limits<float>::quiet_NaN();
constexpr size_t kGenericWidth = 9;  // EncodeGeneric's columns

bool IsInteger(const std::string& v) {
  if (v.empty() || v.size() > 18) return false;
  return std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
}

float Log2p1(double v) { return static_cast<float>(std::log2(1.0 + std::max(v, 0.0))); }

float MathCode(const std::string& math) {
  static const char* kCodes[] = {"fp32", "tf32", "fp16", "bf16", "fp64", "fp8"};
  for (size_t i = 0; i < std::size(kCodes); ++i) {
    if (math == kCodes[i]) return static_cast<float>(i);
  }
  return kMissing;
}

float LayoutCode(const std::string& layout) {
  const std::optional<Layout> l = LayoutFromName(layout);
  if (l == Layout::kNchw) return 0;
  if (l == Layout::kNhwc) return 1;
  return 2;
}

// FLOPs, bytes, intensity, tiles, waves, last-wave occupancy, dtype size,
// math mode, layout.
void EncodeGeneric(const ParsedKey& key, const KeyFeatures& f, int64_t sm_count,
                   std::vector<float>* row) {
  row->push_back(Log2p1(f.flops));
  row->push_back(Log2p1(f.bytes));
  row->push_back(f.bytes > 0 ? Log2p1(f.flops / f.bytes) : 0.0f);
  row->push_back(Log2p1(static_cast<double>(f.tiles)));
  row->push_back(static_cast<float>(Waves(f.tiles, sm_count)));
  row->push_back(static_cast<float>(WaveEfficiency(f.tiles, sm_count)));
  auto size = DTypeSizeOfName(key.dtype);
  row->push_back(size.ok() ? static_cast<float>(*size) : kMissing);
  row->push_back(MathCode(key.math));
  row->push_back(LayoutCode(key.layout));
}

const std::string* ParamValue(const ParsedKey& key, const std::string& name) {
  for (const auto& [n, v] : key.params) {
    if (n == name) return &v;
  }
  return nullptr;
}

std::string XgbError(const char* what) {
  return std::string("XGBoost ") + what + ": " + XGBGetLastError();
}

// A DMatrix of `rows` (row-major, `width` columns), freed on scope exit.
class Matrix {
 public:
  Matrix(const std::vector<float>& flat, size_t rows, size_t width) {
    ok_ = XGDMatrixCreateFromMat(flat.data(), rows, width, kMissing, &handle_) == 0;
  }
  ~Matrix() {
    if (ok_) XGDMatrixFree(handle_);
  }
  bool ok() const { return ok_; }
  DMatrixHandle handle() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
  bool ok_ = false;
};

Status SetParams(BoosterHandle b) {
  const std::pair<const char*, std::string> params[] = {
      {"objective", "reg:squarederror"},
      {"max_depth", std::to_string(kBoostMaxDepth)},
      {"eta", std::to_string(kBoostLearningRate)},
      {"min_child_weight", "3"},
      {"subsample", "1"},
      {"tree_method", "exact"},
      {"nthread", "1"},
      {"seed", "0"},
      {"verbosity", "0"},
  };
  for (const auto& [name, value] : params) {
    if (XGBoosterSetParam(b, name, value.c_str()) != 0) return Internal(XgbError("SetParam"));
  }
  return Status::Ok();
}

}  // namespace

KeyEncoder KeyEncoder::Build(const std::vector<const ParsedKey*>& keys) {
  std::set<std::string> names, not_numeric;
  std::map<std::string, std::set<std::string>> values;
  for (const ParsedKey* k : keys) {
    for (const auto& [name, value] : k->params) {
      names.insert(name);
      values[name].insert(value);
      if (!IsInteger(value)) not_numeric.insert(name);
    }
  }
  std::vector<std::string> numeric;
  std::map<std::string, std::vector<std::string>> categories;
  for (const std::string& n : names) {
    if (not_numeric.count(n) == 0) {
      numeric.push_back(n);
    } else {
      categories[n].assign(values[n].begin(), values[n].end());
    }
  }
  return KeyEncoder(std::move(numeric), std::move(categories));
}

size_t KeyEncoder::width() const { return kGenericWidth + 2 * numeric_.size() + categories_.size(); }

std::vector<float> KeyEncoder::Encode(const ParsedKey& key, const KeyFeatures& f,
                                      int64_t sm_count) const {
  std::vector<float> row;
  row.reserve(width());
  EncodeGeneric(key, f, sm_count, &row);
  for (const std::string& name : numeric_) {
    const std::string* v = ParamValue(key, name);
    if (v == nullptr || !IsInteger(*v)) {
      row.push_back(kMissing);
      row.push_back(kMissing);
      continue;
    }
    const int64_t n = std::strtoll(v->c_str(), nullptr, 10);
    row.push_back(Log2p1(static_cast<double>(n)));
    row.push_back(n % kAlignment == 0 ? 1.0f : 0.0f);
  }
  for (const auto& [name, seen] : categories_) {
    const std::string* v = ParamValue(key, name);
    auto it = v == nullptr ? seen.end() : std::lower_bound(seen.begin(), seen.end(), *v);
    row.push_back(it != seen.end() && *it == *v ? static_cast<float>(it - seen.begin()) : kMissing);
  }
  DLSIM_CHECK(row.size() == width());
  return row;
}

Result<std::shared_ptr<Booster>> Booster::Train(const std::vector<std::vector<float>>& rows,
                                                const std::vector<float>& targets) {
  if (rows.empty() || rows.size() != targets.size()) {
    return InvalidArgument("Booster::Train: need as many targets as rows, at least one");
  }
  const size_t width = rows.front().size();
  std::vector<float> flat;
  flat.reserve(rows.size() * width);
  for (const auto& r : rows) {
    DLSIM_CHECK(r.size() == width);
    flat.insert(flat.end(), r.begin(), r.end());
  }
  Matrix m(flat, rows.size(), width);
  if (!m.ok()) return Internal(XgbError("DMatrix"));
  if (XGDMatrixSetFloatInfo(m.handle(), "label", targets.data(), targets.size()) != 0) {
    return Internal(XgbError("labels"));
  }
  DMatrixHandle dm = m.handle();
  BoosterHandle b = nullptr;
  if (XGBoosterCreate(&dm, 1, &b) != 0) return Internal(XgbError("create"));
  std::shared_ptr<Booster> out(new Booster(b, width));
  DLSIM_RETURN_IF_ERROR(SetParams(b));
  for (int i = 0; i < kBoostRounds; ++i) {
    if (XGBoosterUpdateOneIter(b, i, dm) != 0) return Internal(XgbError("training"));
  }
  return out;
}

Result<std::shared_ptr<Booster>> Booster::Load(const std::string& saved) {
  BoosterHandle b = nullptr;
  if (XGBoosterCreate(nullptr, 0, &b) != 0) return Internal(XgbError("create"));
  std::shared_ptr<Booster> out(new Booster(b, 0));
  if (XGBoosterLoadModelFromBuffer(b, saved.data(), saved.size()) != 0) {
    return ParseError(XgbError("model"));
  }
  bst_ulong features = 0;
  if (XGBoosterGetNumFeature(b, &features) != 0) return ParseError(XgbError("model"));
  out->features_ = static_cast<size_t>(features);
  if (XGBoosterSetParam(b, "nthread", "1") != 0) return Internal(XgbError("SetParam"));
  return out;
}

Booster::~Booster() { XGBoosterFree(handle_); }

Result<std::string> Booster::Save() const {
  std::lock_guard<std::mutex> lock(mu_);
  bst_ulong len = 0;
  const char* buf = nullptr;
  if (XGBoosterSaveModelToBuffer(handle_, R"({"format": "json"})", &len, &buf) != 0) {
    return Internal(XgbError("save"));
  }
  return std::string(buf, len);
}

double Booster::Predict(const std::vector<float>& row) const {
  DLSIM_CHECK(row.size() == features_);
  // In-place prediction from the row's memory (no DMatrix per call), as an
  // __array_interface__ of one row.
  const std::string values = "{\"data\": [" +
                             std::to_string(reinterpret_cast<uintptr_t>(row.data())) +
                             ", true], \"shape\": [1, " + std::to_string(row.size()) +
                             "], \"typestr\": \"<f4\", \"version\": 3}";
  static const char* kConfig =
      R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0,)"
      R"( "strict_shape": false, "missing": NaN, "cache_id": 0})";
  std::lock_guard<std::mutex> lock(mu_);
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* out = nullptr;
  const int rc =
      XGBoosterPredictFromDense(handle_, values.c_str(), kConfig, nullptr, &shape, &dim, &out);
  DLSIM_CHECK_MSG(rc == 0, XGBGetLastError());
  return out[0];
}

double LazyBooster::LogCorrection(const ParsedKey& key, const KeyFeatures& f,
                                  int64_t sm_count) const {
  std::call_once(once_, [this] {
    // trees that do not parse, or that read rows of another width than the
    // encoder's (a hand-edited or corrupt database), correct nothing
    auto b = Booster::Load(saved_);
    if (b.ok() && (*b)->features() == encoder_.width()) booster_ = *b;
  });
  if (booster_ == nullptr) return 0;
  const std::vector<float> row = encoder_.Encode(key, f, sm_count);
  std::string bytes(reinterpret_cast<const char*>(row.data()), row.size() * sizeof(float));
  {
    std::lock_guard<std::mutex> lock(cache_mu_);
    auto it = cache_.find(bytes);
    if (it != cache_.end()) return it->second;
  }
  const double predicted = booster_->Predict(row);
  std::lock_guard<std::mutex> lock(cache_mu_);
  cache_.emplace(std::move(bytes), predicted);
  return predicted;
}

}  // namespace dlsim::perfdb_internal
