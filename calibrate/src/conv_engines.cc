// Convolutions through cuDNN's graph (backend) API, the way PyTorch runs
// them: one operation graph per key, the engine configurations cuDNN's
// heuristics (mode A) and its fallback list offer, each built into an
// execution plan and timed. Mode A's first configuration is the heuristic
// pick; the fastest is what cudnn.benchmark would choose. As PyTorch
// does: no configuration that down-converts its inputs, no tensor-core
// configuration for fp32 data when the key's math is fp32, and at most the
// first kEngineLimit configurations (torch.backends.cudnn.benchmark_limit).
#include <cudnn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cuda_util.h"
#include "cudnn_util.h"
#include "families.h"
#include "profile.h"

namespace dlcal {
namespace {

constexpr double kMaxWorkspace = 4.0 * (1ull << 30);
// Mode A lists up to ~45 configurations (knob variants of a few engines);
// on 90 zoo keys the fastest of the first 10 was within 0.4 % of the
// fastest of all (median), at a quarter of the time.
constexpr size_t kEngineLimit = 10;

// A backend descriptor that destroys itself.
class Backend {
 public:
  explicit Backend(cudnnBackendDescriptorType_t type) {
    ok_ = cudnnBackendCreateDescriptor(type, &d_) == CUDNN_STATUS_SUCCESS;
  }
  ~Backend() {
    if (ok_) cudnnBackendDestroyDescriptor(d_);
  }
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;
  cudnnBackendDescriptor_t get() const { return d_; }
  bool ok() const { return ok_; }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
  bool ok_ = false;
};

Status Set(const Backend& d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
           int64_t count, const void* value, const char* what) {
  return CudnnStatus(cudnnBackendSetAttribute(d.get(), name, type, count, value), what);
}

Status SetDesc(const Backend& d, cudnnBackendAttributeName_t name, const Backend& value,
               const char* what) {
  cudnnBackendDescriptor_t v = value.get();
  return Set(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v, what);
}

Status Finalize(const Backend& d, const char* what) {
  if (!d.ok()) return Failed(std::string("cannot create ") + what);
  return CudnnStatus(cudnnBackendFinalize(d.get()), what);
}

enum class Dir { kFwd, kBwdData, kBwdFilter };

// The key's convolution as the graph API wants it: N,C,H,W dimensions and
// strides of the chosen layout.
struct Geometry {
  DType t;
  bool nhwc = false;
  bool tensor_cores = true;  // false: fp32 data with fp32 math
  int64_t n, c, h, w, k, r, s, groups, oh, ow;
  int64_t pad[2], stride[2], dil[2];
};

std::vector<int64_t> Strides(const Geometry& g, int64_t n, int64_t c, int64_t h, int64_t w) {
  (void)n;
  if (g.nhwc) return {h * w * c, 1, w * c, c};
  return {c * h * w, h * w, w, 1};
}

Status ParseGeometry(const Key& key, Geometry* g) {
  cudnnTensorFormat_t fmt;
  CAL_RETURN_IF_ERROR(KeyTypeAndFormat(key, &g->t, &fmt));
  g->nhwc = fmt == CUDNN_TENSOR_NHWC;
  g->n = key.Int("n"), g->c = key.Int("c"), g->h = key.Int("h"), g->w = key.Int("w");
  g->k = key.Int("k"), g->r = key.Int("r"), g->s = key.Int("s"), g->groups = key.Int("groups");
  g->pad[0] = key.Int("pad_h"), g->pad[1] = key.Int("pad_w");
  g->stride[0] = key.Int("stride_h", 1), g->stride[1] = key.Int("stride_w", 1);
  g->dil[0] = key.Int("dil_h", 1), g->dil[1] = key.Int("dil_w", 1);
  if (g->n < 1 || g->c < 1 || g->h < 1 || g->w < 1 || g->k < 1 || g->r < 1 || g->s < 1 ||
      g->stride[0] < 1 || g->stride[1] < 1 || g->dil[0] < 1 || g->dil[1] < 1) {
    return Unsupported("non-positive convolution size");
  }
  if (g->groups < 1 || g->c % g->groups != 0 || g->k % g->groups != 0) {
    return Unsupported("groups must divide c and k");
  }
  if (g->t == DType::kF32) {
    if (key.math == "fp32") g->tensor_cores = false;
    else if (key.math != "tf32") return Unsupported("math " + key.math + " on fp32 data");
  }
  g->oh = (g->h + 2 * g->pad[0] - g->dil[0] * (g->r - 1) - 1) / g->stride[0] + 1;
  g->ow = (g->w + 2 * g->pad[1] - g->dil[1] * (g->s - 1) - 1) / g->stride[1] + 1;
  if (g->oh < 1 || g->ow < 1) return Unsupported("empty convolution output");
  return Status::Ok();
}

size_t Bytes(const Geometry& g, int64_t a, int64_t b, int64_t c, int64_t d) {
  return static_cast<size_t>(a * b * c * d) * DTypeSize(g.t);
}

// Tensor ids in the variant pack; also the buffer index in the rotation.
enum TensorId : int64_t { kX = 0, kW = 1, kY = 2 };

Status MakeTensor(const Geometry& g, int64_t id, int64_t n, int64_t c, int64_t h, int64_t w,
                  Backend* d) {
  cudnnDataType_t type = CudnnType(g.t);
  int64_t dims[4] = {n, c, h, w};
  std::vector<int64_t> strides = Strides(g, n, c, h, w);
  int64_t align = 16;
  CAL_RETURN_IF_ERROR(Set(*d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type,
                          "tensor data type"));
  CAL_RETURN_IF_ERROR(
      Set(*d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims, "tensor dimensions"));
  CAL_RETURN_IF_ERROR(Set(*d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data(),
                          "tensor strides"));
  CAL_RETURN_IF_ERROR(
      Set(*d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &id, "tensor unique id"));
  CAL_RETURN_IF_ERROR(Set(*d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align,
                          "tensor alignment"));
  return Finalize(*d, "tensor descriptor");
}

Status MakeConvDesc(const Geometry& g, Backend* d) {
  cudnnDataType_t comp = CUDNN_DATA_FLOAT;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  int64_t dims = 2;
  CAL_RETURN_IF_ERROR(Set(*d, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp,
                          "convolution compute type"));
  CAL_RETURN_IF_ERROR(Set(*d, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1,
                          &mode, "convolution mode"));
  CAL_RETURN_IF_ERROR(Set(*d, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims,
                          "convolution spatial dims"));
  CAL_RETURN_IF_ERROR(Set(*d, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, g.dil,
                          "convolution dilations"));
  CAL_RETURN_IF_ERROR(Set(*d, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2,
                          g.stride, "convolution strides"));
  CAL_RETURN_IF_ERROR(Set(*d, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, g.pad,
                          "convolution pre-paddings"));
  CAL_RETURN_IF_ERROR(Set(*d, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, g.pad,
                          "convolution post-paddings"));
  return Finalize(*d, "convolution descriptor");
}

// The operation graph of one convolution: its tensors, operation and graph
// descriptors live as long as this object.
struct ConvGraph {
  Backend x{CUDNN_BACKEND_TENSOR_DESCRIPTOR}, w{CUDNN_BACKEND_TENSOR_DESCRIPTOR},
      y{CUDNN_BACKEND_TENSOR_DESCRIPTOR}, conv{CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR};
  Backend op;
  Backend graph{CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR};
  explicit ConvGraph(Dir dir)
      : op(dir == Dir::kFwd       ? CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR
           : dir == Dir::kBwdData ? CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR
                                  : CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR) {}
};

Status BuildGraph(cudnnHandle_t handle, Dir dir, const Geometry& g, ConvGraph* cg) {
  CAL_RETURN_IF_ERROR(MakeTensor(g, kX, g.n, g.c, g.h, g.w, &cg->x));
  CAL_RETURN_IF_ERROR(MakeTensor(g, kW, g.k, g.c / g.groups, g.r, g.s, &cg->w));
  CAL_RETURN_IF_ERROR(MakeTensor(g, kY, g.n, g.k, g.oh, g.ow, &cg->y));
  CAL_RETURN_IF_ERROR(MakeConvDesc(g, &cg->conv));
  const float alpha = 1.f, beta = 0.f;
  struct Names {
    cudnnBackendAttributeName_t x, w, y, conv, alpha, beta;
  };
  const Names n =
      dir == Dir::kFwd
          ? Names{CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA}
      : dir == Dir::kBwdData
          ? Names{CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA}
          : Names{CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
                  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA};
  CAL_RETURN_IF_ERROR(SetDesc(cg->op, n.x, cg->x, "operation x"));
  CAL_RETURN_IF_ERROR(SetDesc(cg->op, n.w, cg->w, "operation w"));
  CAL_RETURN_IF_ERROR(SetDesc(cg->op, n.y, cg->y, "operation y"));
  CAL_RETURN_IF_ERROR(SetDesc(cg->op, n.conv, cg->conv, "operation convolution"));
  CAL_RETURN_IF_ERROR(Set(cg->op, n.alpha, CUDNN_TYPE_FLOAT, 1, &alpha, "operation alpha"));
  CAL_RETURN_IF_ERROR(Set(cg->op, n.beta, CUDNN_TYPE_FLOAT, 1, &beta, "operation beta"));
  CAL_RETURN_IF_ERROR(Finalize(cg->op, "convolution operation"));
  CAL_RETURN_IF_ERROR(SetDesc(cg->graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, cg->op, "graph ops"));
  CAL_RETURN_IF_ERROR(Set(cg->graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1,
                          &handle, "graph handle"));
  return Finalize(cg->graph, "operation graph");
}

// An engine configuration from the heuristics, with what the filters and
// the record need to know about it.
struct Config {
  cudnnBackendDescriptor_t cfg = nullptr;  // owned by the Configs list
  std::string name;                        // "eng12" or "eng12:k3=1,k5=0"
  bool heuristic = false;
};

// The configurations to time (`list`) and every engine-configuration
// descriptor the heuristics returned (`owned`, destroyed with this object).
struct Configs {
  Configs() = default;
  Configs(const Configs&) = delete;
  Configs& operator=(const Configs&) = delete;
  ~Configs() {
    for (auto d : owned) cudnnBackendDestroyDescriptor(d);
  }
  // Appends the configurations of one heuristics mode to `owned`.
  Status Add(const ConvGraph& cg, cudnnBackendHeurMode_t mode);
  std::vector<Config> list;
  std::vector<cudnnBackendDescriptor_t> owned;
};

template <typename T>
bool HasNote(cudnnBackendDescriptor_t engine, cudnnBackendAttributeName_t name,
             cudnnBackendAttributeType_t type, T note) {
  T notes[32];
  int64_t count = 0;
  if (cudnnBackendGetAttribute(engine, name, type, 32, &count, notes) != CUDNN_STATUS_SUCCESS) {
    return false;
  }
  T* end = notes + std::min<int64_t>(count, 32);
  return std::find(notes, end, note) != end;
}

// Names the configuration and says whether PyTorch's filters would drop it.
Status Describe(cudnnBackendDescriptor_t cfg, bool tensor_cores, std::string* name,
                bool* keep) {
  Backend engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  if (!engine.ok()) return Failed("cannot create an engine descriptor");
  cudnnBackendDescriptor_t e = engine.get();
  int64_t count = 0;
  CAL_CUDNN(cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &e));
  int64_t index = -1;
  CAL_CUDNN(cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1,
                                     &count, &index));
  *name = "eng" + std::to_string(index);
  *keep = !HasNote(e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                   CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS);
  if (!tensor_cores && HasNote(e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                               CUDNN_NUMERICAL_NOTE_TENSOR_CORE)) {
    *keep = false;
  }
  // Knob choices make configurations of one engine distinct.
  constexpr int kMaxKnobs = 32;
  std::vector<std::unique_ptr<Backend>> knobs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int i = 0; i < kMaxKnobs; ++i) {
    knobs.push_back(std::make_unique<Backend>(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR));
    if (!knobs.back()->ok()) return Failed("cannot create a knob-choice descriptor");
    raw.push_back(knobs.back()->get());
  }
  int64_t n_knobs = 0;
  if (cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                               CUDNN_TYPE_BACKEND_DESCRIPTOR, kMaxKnobs, &n_knobs,
                               raw.data()) != CUDNN_STATUS_SUCCESS) {
    n_knobs = 0;
  }
  std::string suffix;
  for (int64_t i = 0; i < std::min<int64_t>(n_knobs, kMaxKnobs); ++i) {
    cudnnBackendKnobType_t type;
    int64_t value = 0, c = 0;
    if (cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
                                 CUDNN_TYPE_KNOB_TYPE, 1, &c, &type) != CUDNN_STATUS_SUCCESS ||
        cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64,
                                 1, &c, &value) != CUDNN_STATUS_SUCCESS) {
      continue;
    }
    suffix += (suffix.empty() ? ":k" : ",k") + std::to_string(static_cast<int>(type)) + "=" +
              std::to_string(value);
  }
  *name += suffix;
  return Status::Ok();
}

Status Configs::Add(const ConvGraph& cg, cudnnBackendHeurMode_t mode) {
  Backend heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  CAL_RETURN_IF_ERROR(
      SetDesc(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, cg.graph, "heuristics graph"));
  CAL_RETURN_IF_ERROR(
      Set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode, "heuristics mode"));
  CAL_RETURN_IF_ERROR(Finalize(heur, "engine heuristics"));
  int64_t count = 0;
  CAL_CUDNN(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
  std::vector<cudnnBackendDescriptor_t> cfgs(static_cast<size_t>(count));
  for (auto& d : cfgs) {
    CAL_CUDNN(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &d));
    owned.push_back(d);
  }
  int64_t got = 0;  // configurations it did not fill fail Describe and are skipped
  if (count > 0) {
    CAL_CUDNN(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, cfgs.data()));
  }
  return Status::Ok();
}

// Every configuration of mode A then the fallback list, each name once.
Status ListConfigs(const ConvGraph& cg, bool tensor_cores, Configs* out) {
  std::set<std::string> seen;
  for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    size_t first = out->owned.size();
    Status st = out->Add(cg, mode);
    if (!st.ok() && mode == CUDNN_HEUR_MODE_A) return st;
    for (size_t i = first; i < out->owned.size(); ++i) {
      Config c;
      c.cfg = out->owned[i];
      bool keep = false;
      if (!Describe(c.cfg, tensor_cores, &c.name, &keep).ok() || !keep) continue;
      if (!seen.insert(c.name).second) continue;
      c.heuristic = out->list.empty() && mode == CUDNN_HEUR_MODE_A;
      out->list.push_back(c);
      if (out->list.size() == kEngineLimit) return Status::Ok();
    }
  }
  return Status::Ok();
}

// A plan, its workspace, and one variant pack per working-set copy (made
// as the copies are first used).
class PlanRunner {
 public:
  PlanRunner(cudnnHandle_t h, const RotatingBuffers& buf) : h_(h), buf_(buf) {}
  ~PlanRunner() {
    for (auto d : packs_) {
      if (d) cudnnBackendDestroyDescriptor(d);
    }
  }
  Status Build(const Config& c, double* ws_bytes) {
    CAL_RETURN_IF_ERROR(
        Set(plan_, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h_, "plan handle"));
    CAL_RETURN_IF_ERROR(Set(plan_, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                            CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c.cfg, "plan engine config"));
    CAL_RETURN_IF_ERROR(Finalize(plan_, "execution plan"));
    int64_t ws = 0, count = 0;
    CAL_CUDNN(cudnnBackendGetAttribute(plan_.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                       CUDNN_TYPE_INT64, 1, &count, &ws));
    *ws_bytes = static_cast<double>(ws);
    if (*ws_bytes > kMaxWorkspace) return Unsupported("workspace over 4 GiB");
    if (ws > 0) CAL_RETURN_IF_ERROR(ws_.Allocate(static_cast<size_t>(ws)));
    packs_.assign(static_cast<size_t>(buf_.copies()), nullptr);
    return Status::Ok();
  }
  Status Run(int copy) {
    size_t i = static_cast<size_t>(copy % buf_.copies());
    if (!packs_[i]) CAL_RETURN_IF_ERROR(MakePack(copy, &packs_[i]));
    return CudnnStatus(cudnnBackendExecute(h_, plan_.get(), packs_[i]), "cudnnBackendExecute");
  }

 private:
  Status MakePack(int copy, cudnnBackendDescriptor_t* out) {
    CAL_CUDNN(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, out));
    int64_t ids[3] = {kX, kW, kY};
    void* ptrs[3] = {buf_.Get(copy, kX), buf_.Get(copy, kW), buf_.Get(copy, kY)};
    void* ws = ws_.get();
    CAL_CUDNN(cudnnBackendSetAttribute(*out, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
                                       CUDNN_TYPE_INT64, 3, ids));
    CAL_CUDNN(cudnnBackendSetAttribute(*out, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                       CUDNN_TYPE_VOID_PTR, 3, ptrs));
    CAL_CUDNN(cudnnBackendSetAttribute(*out, CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
                                       CUDNN_TYPE_VOID_PTR, 1, &ws));
    CAL_CUDNN(cudnnBackendFinalize(*out));
    return Status::Ok();
  }

  cudnnHandle_t h_;
  const RotatingBuffers& buf_;
  Backend plan_{CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR};
  DeviceBuffer ws_;
  std::vector<cudnnBackendDescriptor_t> packs_;
};

AlgoResult MeasureConfig(Context& ctx, const RotatingBuffers& buf, const Config& c) {
  Stopwatch total;
  AlgoResult res;
  res.algo = c.name;
  res.heuristic = c.heuristic;
  PlanRunner runner(ctx.cudnn, buf);
  {
    Stopwatch sw;
    res.status = runner.Build(c, &res.workspace_bytes);
    res.phases.ws_query_ms = sw.Ms();
  }
  if (res.status.ok()) {
    MeasureCall(ctx, [&runner](int i) { return runner.Run(i); }, buf.copies(), false, &res);
  }
  res.phases.total_ms = total.Ms();
  return res;
}

Dir KeyDir(const Key& key) {
  return key.kind == "conv_bwd_data"     ? Dir::kBwdData
         : key.kind == "conv_bwd_filter" ? Dir::kBwdFilter
                                         : Dir::kFwd;
}

}  // namespace

Status MeasureConvEngines(const Key& key, Context& ctx, std::vector<AlgoResult>* out) {
  Stopwatch total, sw;
  KeyPhases phases;
  const Dir dir = KeyDir(key);
  Geometry g;
  CAL_RETURN_IF_ERROR(ParseGeometry(key, &g));
  ConvGraph cg(dir);
  CAL_RETURN_IF_ERROR(BuildGraph(ctx.cudnn, dir, g, &cg));
  phases.setup_ms = sw.Lap();
  Configs configs;
  CAL_RETURN_IF_ERROR(ListConfigs(cg, g.tensor_cores, &configs));
  phases.enumerate_ms = sw.Lap();
  phases.candidates = static_cast<int>(configs.list.size());
  if (configs.list.empty()) return Unsupported("cuDNN's heuristics offer no engine");
  RotatingBuffers buf;
  CAL_RETURN_IF_ERROR(buf.Init({{Bytes(g, g.n, g.c, g.h, g.w), g.t},
                                {Bytes(g, g.k, g.c / g.groups, g.r, g.s), g.t},
                                {Bytes(g, g.n, g.k, g.oh, g.ow), g.t}},
                               ctx.l2_bytes, ctx.stream));
  phases.buffers_ms = sw.Ms();
  phases.copies = buf.copies();
  for (const Config& c : configs.list) {
    out->push_back(MeasureConfig(ctx, buf, c));
    if (ctx.profile) std::fprintf(stderr, "%s\n", AlgoProfileLine(out->back()).c_str());
    if (out->back().status.code() == Code::kFatal) return out->back().status;
  }
  MarkFastest(out);
  phases.total_ms = total.Ms();
  if (ctx.profile) {
    double algos_ms = 0;
    for (const auto& r : *out) algos_ms += r.phases.total_ms;
    std::fprintf(stderr, "%s\n", KeyProfileLine(key.text, phases, algos_ms).c_str());
  }
  return Status::Ok();
}

}  // namespace dlcal
