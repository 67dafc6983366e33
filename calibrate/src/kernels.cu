// Kernels for the memory-bound kinds and layer norm: plain, vectorised
// (16-byte accesses), grid-stride CUDA, representative of what frameworks
// launch for these ops. fp32 arithmetic throughout.
#include "kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

namespace dlcal {
namespace {

constexpr int kThreads = 256;
constexpr size_t kMaxBlocks = 8192;

template <typename T> __device__ __forceinline__ float ToF(T v);
template <> __device__ __forceinline__ float ToF<float>(float v) { return v; }
template <> __device__ __forceinline__ float ToF<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float ToF<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <typename T> __device__ __forceinline__ T FromF(float v);
template <> __device__ __forceinline__ float FromF<float>(float v) { return v; }
template <> __device__ __forceinline__ __half FromF<__half>(float v) { return __float2half(v); }
template <> __device__ __forceinline__ __nv_bfloat16 FromF<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}

unsigned Blocks(size_t work_items) {
  size_t b = (work_items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::max<size_t>(1, std::min(b, kMaxBlocks)));
}

// ------------------------------------------------------------------ fill
__device__ __forceinline__ uint64_t SplitMix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <typename T>
__global__ void FillKernel(T* p, size_t n, uint64_t seed, float lo, float hi) {
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    float u = static_cast<float>(SplitMix(seed * 0x100000001B3ull + i) >> 40) * (1.0f / 16777216.0f);
    p[i] = FromF<T>(lo + (hi - lo) * u);
  }
}

// ------------------------------------------------------------ pointwise
struct InPtrs {
  const void* p[kMaxArity];
};

__device__ __forceinline__ float Combine(EwOp op, float a, float b) {
  switch (op) {
    case EwOp::kSub: return a - b;
    case EwOp::kMul: return a * b;
    case EwOp::kDiv: return a / b;
    case EwOp::kMax: return fmaxf(a, b);
    default: return a + b;
  }
}

__device__ __forceinline__ float Unary(EwOp op, float x) {
  switch (op) {
    case EwOp::kRelu: return fmaxf(x, 0.f);
    case EwOp::kSigmoid: return 1.f / (1.f + __expf(-x));
    case EwOp::kTanh: return tanhf(x);
    case EwOp::kGelu: return 0.5f * x * (1.f + erff(x * 0.70710678f));
    case EwOp::kSilu: return x / (1.f + __expf(-x));
    case EwOp::kExp: return __expf(x);
    default: return x;
  }
}

template <typename T>
__global__ void ElementwiseKernel(InPtrs in, int arity, EwOp op, T* out, size_t n) {
  constexpr int V = 16 / sizeof(T);
  const size_t nvec = n / V;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  for (size_t i = tid; i < nvec; i += stride) {
    float acc[V];
    for (int j = 0; j < V; ++j) acc[j] = 1.f;
    for (int a = 0; a < arity; ++a) {
      uint4 raw = reinterpret_cast<const uint4*>(in.p[a])[i];
      const T* e = reinterpret_cast<const T*>(&raw);
      for (int j = 0; j < V; ++j) acc[j] = a == 0 ? ToF(e[j]) : Combine(op, acc[j], ToF(e[j]));
    }
    uint4 o;
    T* oe = reinterpret_cast<T*>(&o);
    for (int j = 0; j < V; ++j) oe[j] = FromF<T>(Unary(op, acc[j]));
    reinterpret_cast<uint4*>(out)[i] = o;
  }
  for (size_t i = nvec * V + tid; i < n; i += stride) {
    float acc = 1.f;
    for (int a = 0; a < arity; ++a) {
      float x = ToF(reinterpret_cast<const T*>(in.p[a])[i]);
      acc = a == 0 ? x : Combine(op, acc, x);
    }
    out[i] = FromF<T>(Unary(op, acc));
  }
}

// ------------------------------------------------------------ reduction
__device__ __forceinline__ float RedInit(RedOp op) {
  return op == RedOp::kMax ? -3.0e38f : (op == RedOp::kMin ? 3.0e38f : 0.f);
}
__device__ __forceinline__ float Red(RedOp op, float a, float b) {
  return op == RedOp::kMax ? fmaxf(a, b) : (op == RedOp::kMin ? fminf(a, b) : a + b);
}
__device__ __forceinline__ float WarpRed(RedOp op, float v) {
  for (int o = 16; o > 0; o >>= 1) v = Red(op, v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// One warp per row: rows with fewer than 1024 columns.
template <typename T>
__global__ void ReduceWarpKernel(RedOp op, const T* in, T* out, size_t rows, size_t cols) {
  const size_t warps = static_cast<size_t>(gridDim.x) * (blockDim.x / 32);
  const int lane = threadIdx.x % 32;
  for (size_t r = blockIdx.x * static_cast<size_t>(blockDim.x / 32) + threadIdx.x / 32;
       r < rows; r += warps) {
    const T* row = in + r * cols;
    float acc = RedInit(op);
    for (size_t c = lane; c < cols; c += 32) acc = Red(op, acc, ToF(row[c]));
    acc = WarpRed(op, acc);
    if (lane == 0) out[r] = FromF<T>(op == RedOp::kMean ? acc / cols : acc);
  }
}

// Sum of a block's values; every thread gets the result.
__device__ float BlockRed(RedOp op, float v) {
  __shared__ float part[32];
  v = WarpRed(op, v);
  __syncthreads();  // `part` may still be read from a previous call
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;
  __syncthreads();
  const int nwarps = blockDim.x / 32;
  v = threadIdx.x < nwarps ? part[threadIdx.x] : RedInit(op);
  if (threadIdx.x < 32) v = WarpRed(op, v);
  if (threadIdx.x == 0) part[0] = v;
  __syncthreads();
  return part[0];
}

// One block per row, 16-byte loads when each row is 16-byte aligned.
template <typename T>
__global__ void ReduceBlockKernel(RedOp op, const T* in, T* out, size_t rows, size_t cols) {
  constexpr int V = 16 / sizeof(T);
  for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = in + r * cols;
    float acc = RedInit(op);
    if (cols % V == 0) {
      for (size_t i = threadIdx.x; i < cols / V; i += blockDim.x) {
        uint4 raw = reinterpret_cast<const uint4*>(row)[i];
        const T* e = reinterpret_cast<const T*>(&raw);
        for (int j = 0; j < V; ++j) acc = Red(op, acc, ToF(e[j]));
      }
    } else {
      for (size_t c = threadIdx.x; c < cols; c += blockDim.x) acc = Red(op, acc, ToF(row[c]));
    }
    acc = BlockRed(op, acc);
    if (threadIdx.x == 0) out[r] = FromF<T>(op == RedOp::kMean ? acc / cols : acc);
  }
}

// ------------------------------------------------------------ copies
__global__ void CopyKernel(const uint4* in, uint4* out, size_t nvec, const char* in_tail,
                           char* out_tail, size_t tail) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  for (size_t i = tid; i < nvec; i += stride) out[i] = in[i];
  if (tid < tail) out_tail[tid] = in_tail[tid];
}

template <typename E>
__global__ void TransposeKernel(const E* in, E* out, size_t rows, size_t cols) {
  __shared__ E tile[32][33];
  const size_t c0 = blockIdx.x * 32ull, r0 = blockIdx.y * 32ull;
  for (int j = threadIdx.y; j < 32; j += 8) {
    size_t r = r0 + j, c = c0 + threadIdx.x;
    if (r < rows && c < cols) tile[j][threadIdx.x] = in[r * cols + c];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < 32; j += 8) {
    size_t c = c0 + j, r = r0 + threadIdx.x;  // output row c, column r
    if (r < rows && c < cols) out[c * rows + r] = tile[threadIdx.x][j];
  }
}

// ------------------------------------------------------------ optimizer
template <typename T>
__global__ void OptimizerKernel(OptOp op, T* w, const T* g, T* m, T* v, size_t n) {
  const float lr = 1e-3f, mu = 0.9f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, wd = 1e-2f;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    float wi = ToF(w[i]), gi = ToF(g[i]);
    if (op == OptOp::kSgd) {
      wi -= lr * gi;
    } else if (op == OptOp::kSgdMomentum) {
      float mi = mu * ToF(m[i]) + gi;
      m[i] = FromF<T>(mi);
      wi -= lr * mi;
    } else {
      if (op == OptOp::kAdam) gi += wd * wi;  // L2 penalty in the gradient
      float mi = b1 * ToF(m[i]) + (1 - b1) * gi;
      float vi = b2 * ToF(v[i]) + (1 - b2) * gi * gi;
      m[i] = FromF<T>(mi);
      v[i] = FromF<T>(vi);
      if (op == OptOp::kAdamW) wi -= lr * wd * wi;  // decoupled decay
      wi -= lr * mi / (sqrtf(vi) + eps);
    }
    w[i] = FromF<T>(wi);
  }
}

// ------------------------------------------------------------ layer norm
template <typename T>
__global__ void LayerNormFwdKernel(const T* x, const T* gamma, const T* beta, T* y,
                                   float* mean, float* rstd, size_t cols) {
  const size_t r = blockIdx.x;
  const T* xr = x + r * cols;
  float s = 0, ss = 0;
  for (size_t c = threadIdx.x; c < cols; c += blockDim.x) {
    float v = ToF(xr[c]);
    s += v;
    ss += v * v;
  }
  s = BlockRed(RedOp::kSum, s);
  ss = BlockRed(RedOp::kSum, ss);
  const float mu = s / cols;
  const float rs = rsqrtf(fmaxf(ss / cols - mu * mu, 0.f) + 1e-5f);
  for (size_t c = threadIdx.x; c < cols; c += blockDim.x) {
    y[r * cols + c] = FromF<T>((ToF(xr[c]) - mu) * rs * ToF(gamma[c]) + ToF(beta[c]));
  }
  if (threadIdx.x == 0) {
    mean[r] = mu;
    rstd[r] = rs;
  }
}

template <typename T>
__global__ void LayerNormBwdDxKernel(const T* x, const T* dy, const T* gamma,
                                     const float* mean, const float* rstd, T* dx,
                                     size_t cols) {
  const size_t r = blockIdx.x;
  const float mu = mean[r], rs = rstd[r];
  float s1 = 0, s2 = 0;
  for (size_t c = threadIdx.x; c < cols; c += blockDim.x) {
    float g = ToF(dy[r * cols + c]) * ToF(gamma[c]);
    s1 += g;
    s2 += g * (ToF(x[r * cols + c]) - mu) * rs;
  }
  s1 = BlockRed(RedOp::kSum, s1) / cols;
  s2 = BlockRed(RedOp::kSum, s2) / cols;
  for (size_t c = threadIdx.x; c < cols; c += blockDim.x) {
    float xhat = (ToF(x[r * cols + c]) - mu) * rs;
    float g = ToF(dy[r * cols + c]) * ToF(gamma[c]);
    dx[r * cols + c] = FromF<T>(rs * (g - s1 - xhat * s2));
  }
}

// Blocks of 32 columns x 256 rows; partial sums added atomically.
template <typename T>
__global__ void LayerNormBwdGammaKernel(const T* x, const T* dy, const float* mean,
                                        const float* rstd, float* dgamma, float* dbeta,
                                        size_t rows, size_t cols) {
  __shared__ float sg[8][33], sb[8][33];
  const size_t c = blockIdx.x * 32ull + threadIdx.x;
  const size_t r0 = blockIdx.y * 256ull, r1 = min(rows, r0 + 256);
  float dg = 0, db = 0;
  if (c < cols) {
    for (size_t r = r0 + threadIdx.y; r < r1; r += 8) {
      float d = ToF(dy[r * cols + c]);
      dg += d * (ToF(x[r * cols + c]) - mean[r]) * rstd[r];
      db += d;
    }
  }
  sg[threadIdx.y][threadIdx.x] = dg;
  sb[threadIdx.y][threadIdx.x] = db;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    for (int j = 1; j < 8; ++j) {
      dg += sg[j][threadIdx.x];
      db += sb[j][threadIdx.x];
    }
    atomicAdd(dgamma + c, dg);
    atomicAdd(dbeta + c, db);
  }
}

__global__ void EmptyKernel() {}

unsigned LayerNormThreads(size_t cols) {
  unsigned t = 32;
  while (t < 512 && t * 4 < cols) t *= 2;
  return t;
}

template <typename F>
cudaError_t Dispatch(DType t, F&& f) {
  switch (t) {
    case DType::kF32: f(float()); break;
    case DType::kF16: f(__half()); break;
    case DType::kBF16: f(__nv_bfloat16()); break;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchFillUniform(void* p, size_t n, DType t, uint64_t seed, float lo, float hi,
                              cudaStream_t s) {
  return Dispatch(t, [&](auto z) {
    using T = decltype(z);
    FillKernel<T><<<Blocks(n), kThreads, 0, s>>>(static_cast<T*>(p), n, seed, lo, hi);
  });
}

cudaError_t LaunchElementwise(EwOp op, DType t, const void* const* in, int arity, void* out,
                              size_t n, cudaStream_t s) {
  if (arity < 0 || arity > kMaxArity) return cudaErrorInvalidValue;
  InPtrs ptrs{};
  for (int i = 0; i < arity; ++i) ptrs.p[i] = in[i];
  return Dispatch(t, [&](auto z) {
    using T = decltype(z);
    size_t items = n / (16 / sizeof(T)) + 1;
    ElementwiseKernel<T><<<Blocks(items), kThreads, 0, s>>>(ptrs, arity, op,
                                                            static_cast<T*>(out), n);
  });
}

cudaError_t LaunchReduction(RedOp op, DType t, const void* in, void* out, size_t rows,
                            size_t cols, cudaStream_t s) {
  return Dispatch(t, [&](auto z) {
    using T = decltype(z);
    const T* x = static_cast<const T*>(in);
    T* y = static_cast<T*>(out);
    if (cols < 1024) {
      ReduceWarpKernel<T><<<Blocks(rows * 32), kThreads, 0, s>>>(op, x, y, rows, cols);
    } else {
      unsigned blocks = static_cast<unsigned>(std::min<size_t>(rows, 1u << 20));
      ReduceBlockKernel<T><<<blocks, kThreads, 0, s>>>(op, x, y, rows, cols);
    }
  });
}

cudaError_t LaunchCopy(const void* in, void* out, size_t bytes, cudaStream_t s) {
  size_t nvec = bytes / 16, tail = bytes % 16;
  CopyKernel<<<Blocks(std::max<size_t>(nvec, 16)), kThreads, 0, s>>>(
      static_cast<const uint4*>(in), static_cast<uint4*>(out), nvec,
      static_cast<const char*>(in) + nvec * 16, static_cast<char*>(out) + nvec * 16, tail);
  return cudaGetLastError();
}

cudaError_t LaunchTranspose(DType t, const void* in, void* out, size_t rows, size_t cols,
                            cudaStream_t s) {
  dim3 grid(static_cast<unsigned>((cols + 31) / 32), static_cast<unsigned>((rows + 31) / 32));
  if (grid.y > 65535) return cudaErrorInvalidValue;
  if (DTypeSize(t) == 4) {
    TransposeKernel<unsigned><<<grid, dim3(32, 8), 0, s>>>(
        static_cast<const unsigned*>(in), static_cast<unsigned*>(out), rows, cols);
  } else {
    TransposeKernel<unsigned short><<<grid, dim3(32, 8), 0, s>>>(
        static_cast<const unsigned short*>(in), static_cast<unsigned short*>(out), rows, cols);
  }
  return cudaGetLastError();
}

cudaError_t LaunchOptimizer(OptOp op, DType t, void* w, const void* g, void* m, void* v,
                            size_t n, cudaStream_t s) {
  return Dispatch(t, [&](auto z) {
    using T = decltype(z);
    OptimizerKernel<T><<<Blocks(n), kThreads, 0, s>>>(op, static_cast<T*>(w),
                                                      static_cast<const T*>(g),
                                                      static_cast<T*>(m), static_cast<T*>(v), n);
  });
}

cudaError_t LaunchLayerNormFwd(DType t, const void* x, const void* gamma, const void* beta,
                               void* y, float* mean, float* rstd, size_t rows, size_t cols,
                               cudaStream_t s) {
  if (rows > 0x7fffffffu) return cudaErrorInvalidValue;
  return Dispatch(t, [&](auto z) {
    using T = decltype(z);
    LayerNormFwdKernel<T><<<static_cast<unsigned>(rows), LayerNormThreads(cols), 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(gamma), static_cast<const T*>(beta),
        static_cast<T*>(y), mean, rstd, cols);
  });
}

cudaError_t LaunchLayerNormBwd(DType t, const void* x, const void* dy, const void* gamma,
                               const float* mean, const float* rstd, void* dx, float* dgamma,
                               float* dbeta, size_t rows, size_t cols, cudaStream_t s) {
  if (rows > 0x7fffffffu || (rows + 255) / 256 > 65535) return cudaErrorInvalidValue;
  cudaError_t e = cudaMemsetAsync(dgamma, 0, cols * sizeof(float), s);
  if (e == cudaSuccess) e = cudaMemsetAsync(dbeta, 0, cols * sizeof(float), s);
  if (e != cudaSuccess) return e;
  return Dispatch(t, [&](auto z) {
    using T = decltype(z);
    LayerNormBwdDxKernel<T><<<static_cast<unsigned>(rows), LayerNormThreads(cols), 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<const T*>(gamma), mean,
        rstd, static_cast<T*>(dx), cols);
    dim3 grid(static_cast<unsigned>((cols + 31) / 32), static_cast<unsigned>((rows + 255) / 256));
    LayerNormBwdGammaKernel<T><<<grid, dim3(32, 8), 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(dy), mean, rstd, dgamma, dbeta, rows,
        cols);
  });
}

cudaError_t LaunchEmpty(cudaStream_t s) {
  EmptyKernel<<<1, 1, 0, s>>>();
  return cudaGetLastError();
}

}  // namespace dlcal
