// Graph inputs: declared types and dims, fixed by --batch / --input.
#include <sstream>

#include "import_steps.h"
#include "onnx_proto_convert.h"

namespace dlsim {
namespace {

std::string DimName(const onnx::TensorShapeProto::Dimension& d) {
  return d.has_dim_param() && !d.dim_param().empty() ? "'" + d.dim_param() + "'" : "unknown";
}

Status SymbolicDimError(const std::string& file, const std::string& input, size_t k,
                        const onnx::TensorShapeProto& shape) {
  std::string hint;
  for (int i = 0; i < shape.dim_size(); ++i) {
    hint += (i ? "x" : "") + (shape.dim(i).has_dim_value()
                                  ? std::to_string(shape.dim(i).dim_value())
                                  : std::string("<d") + std::to_string(i) + ">");
  }
  return InvalidArgument(file + ": input '" + input + "' dim " + std::to_string(k) + " (" +
                         DimName(shape.dim(static_cast<int>(k))) +
                         ") is symbolic; give the shape with --input " + input + ":" + hint +
                         (shape.dim(static_cast<int>(k)).dim_param().empty()
                              ? std::string()
                              : " or the dim with --dim " + shape.dim(static_cast<int>(k)).dim_param() +
                                    "=<n>"));
}

// Element counts (and byte counts downstream) must fit in int64.
Status CheckElementCount(const std::string& file, const Tensor& t) {
  int64_t elems = 1;
  for (int64_t d : t.dims) {
    if (__builtin_mul_overflow(elems, d, &elems) || elems > (int64_t{1} << 59)) {
      return OutOfRange(file + ": input '" + t.name + "' of shape " + ShapeToString(t.dims) +
                        ": element count overflows (the limit is 2^59, so bytes fit in int64)");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Tensor> ConvertGraphInput(const onnx::ValueInfoProto& info, const ImportOptions& options,
                                 const std::string& file) {
  Tensor t;
  t.name = info.name();
  t.is_graph_input = true;
  if (!info.type().has_tensor_type()) {
    return Unsupported(file + ": input '" + info.name() + "' is not a tensor");
  }
  const auto& tt = info.type().tensor_type();
  t.dtype = DTypeFromOnnx(tt.elem_type());
  if (t.dtype == DType::kUndefined) {
    return Unsupported(file + ": input '" + info.name() + "' has unsupported element type " +
                       std::to_string(tt.elem_type()));
  }
  auto given = options.input_shapes.find(info.name());
  if (given != options.input_shapes.end()) {
    if (tt.has_shape() && tt.shape().dim_size() != static_cast<int>(given->second.size())) {
      return InvalidArgument(file + ": input '" + info.name() + "' has rank " +
                             std::to_string(tt.shape().dim_size()) + " but --input gives " +
                             ShapeToString(given->second));
    }
    t.dims = given->second;
    DLSIM_RETURN_IF_ERROR(CheckElementCount(file, t));
    return t;
  }
  if (!tt.has_shape()) {
    return InvalidArgument(file + ": input '" + info.name() +
                           "' has no declared shape; give it with --input " + info.name() +
                           ":<dims>");
  }
  if (options.batch < 0) return InvalidArgument("batch must be positive");
  const auto& shape = tt.shape();
  if (shape.dim_size() > kMaxRank) {
    return InvalidArgument(file + ": input '" + info.name() + "' has rank " +
                           std::to_string(shape.dim_size()) + " (more than " +
                           std::to_string(kMaxRank) + ")");
  }
  for (int k = 0; k < shape.dim_size(); ++k) {
    const auto& d = shape.dim(k);
    const auto named = d.has_dim_param() ? options.named_dims.find(d.dim_param())
                                         : options.named_dims.end();
    if (k == 0 && options.batch > 0) {
      t.dims.push_back(options.batch);
    } else if (named != options.named_dims.end()) {
      t.dims.push_back(named->second);
    } else if (d.has_dim_value()) {
      if (d.dim_value() <= 0) {
        return InvalidArgument(file + ": input '" + info.name() + "' dim " + std::to_string(k) +
                               (d.dim_value() < 0 ? " is negative (" : " is zero (") +
                               std::to_string(d.dim_value()) + ")");
      }
      t.dims.push_back(d.dim_value());
    } else if (k == 0) {
      t.dims.push_back(1);  // symbolic batch, no --batch: 1
    } else {
      return SymbolicDimError(file, info.name(), static_cast<size_t>(k), shape);
    }
  }
  DLSIM_RETURN_IF_ERROR(CheckElementCount(file, t));
  return t;
}

Status CheckDimNames(const onnx::GraphProto& g, const ImportOptions& options,
                     const std::string& file) {
  std::set<std::string> symbolic;
  for (const auto& info : g.input()) {
    if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) continue;
    for (const auto& d : info.type().tensor_type().shape().dim()) {
      if (d.has_dim_param() && !d.dim_param().empty()) symbolic.insert(d.dim_param());
    }
  }
  for (const auto& [name, value] : options.named_dims) {
    if (symbolic.count(name)) continue;
    std::string known;
    for (const std::string& n : symbolic) known += (known.empty() ? "" : ", ") + n;
    return InvalidArgument(file + ": --dim names '" + name +
                           "', which no graph input dim is called (symbolic dims: " +
                           (known.empty() ? "none" : known) + ")");
  }
  return Status::Ok();
}

Status CheckInputShapeNames(const std::set<std::string>& input_names, const ImportOptions& options,
                            const std::string& file) {
  for (const auto& [name, dims] : options.input_shapes) {
    if (input_names.count(name)) continue;
    std::string known;
    for (const std::string& n : input_names) known += (known.empty() ? "" : ", ") + n;
    return InvalidArgument(file + ": --input names '" + name +
                           "', which is not a graph input (inputs: " + known + ")");
  }
  return Status::Ok();
}

}  // namespace dlsim
