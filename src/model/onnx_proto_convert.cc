#include "onnx_proto_convert.h"

#include <cstring>
#include <limits>

#include "shape_rules.h"

namespace dlsim {
namespace {

using onnx::TensorProto;

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400) == 0);
      bits = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (mant & 0x3ff) << 13;
    }
  } else {
    bits = sign | (exp + 127 - 15) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

float BFloat16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

template <typename T>
T LoadLe(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);  // ONNX raw_data is little-endian, as is x86/arm64
  return v;
}

// Decodes element i of raw_data of the given ONNX type into `value`.
void AppendRaw(int32_t type, const char* p, TensorValue* value) {
  switch (type) {
    case TensorProto::FLOAT:
      value->floats.push_back(LoadLe<float>(p));
      break;
    case TensorProto::DOUBLE:
      value->floats.push_back(LoadLe<double>(p));
      break;
    case TensorProto::FLOAT16:
      value->floats.push_back(HalfToFloat(LoadLe<uint16_t>(p)));
      break;
    case TensorProto::BFLOAT16:
      value->floats.push_back(BFloat16ToFloat(LoadLe<uint16_t>(p)));
      break;
    case TensorProto::INT8:
      value->ints.push_back(LoadLe<int8_t>(p));
      break;
    case TensorProto::UINT8:
      value->ints.push_back(LoadLe<uint8_t>(p));
      break;
    case TensorProto::BOOL:
      value->ints.push_back(LoadLe<uint8_t>(p) != 0);
      break;
    case TensorProto::INT16:
      value->ints.push_back(LoadLe<int16_t>(p));
      break;
    case TensorProto::UINT16:
      value->ints.push_back(LoadLe<uint16_t>(p));
      break;
    case TensorProto::INT32:
      value->ints.push_back(LoadLe<int32_t>(p));
      break;
    case TensorProto::UINT32:
      value->ints.push_back(LoadLe<uint32_t>(p));
      break;
    case TensorProto::INT64:
      value->ints.push_back(LoadLe<int64_t>(p));
      break;
    case TensorProto::UINT64:
      value->ints.push_back(static_cast<int64_t>(LoadLe<uint64_t>(p)));
      break;
    default:
      break;
  }
}

int64_t OnnxElementBytes(int32_t type) {
  switch (type) {
    case TensorProto::DOUBLE:
    case TensorProto::INT64:
    case TensorProto::UINT64:
      return 8;
    case TensorProto::FLOAT:
    case TensorProto::INT32:
    case TensorProto::UINT32:
      return 4;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
    case TensorProto::INT16:
    case TensorProto::UINT16:
      return 2;
    case TensorProto::INT8:
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      return 1;
    default:
      return 0;
  }
}

// Reads the typed repeated fields (the non-raw encoding).
bool ReadTypedFields(const TensorProto& p, int64_t n, TensorValue* v) {
  const int32_t type = p.data_type();
  if (type == TensorProto::FLOAT && p.float_data_size() == n) {
    v->floats.assign(p.float_data().begin(), p.float_data().end());
  } else if (type == TensorProto::DOUBLE && p.double_data_size() == n) {
    v->floats.assign(p.double_data().begin(), p.double_data().end());
  } else if (type == TensorProto::INT64 && p.int64_data_size() == n) {
    v->ints.assign(p.int64_data().begin(), p.int64_data().end());
  } else if ((type == TensorProto::UINT64 || type == TensorProto::UINT32) &&
             p.uint64_data_size() == n) {
    for (uint64_t x : p.uint64_data()) v->ints.push_back(static_cast<int64_t>(x));
  } else if (p.int32_data_size() == n) {
    for (int32_t x : p.int32_data()) {
      if (type == TensorProto::FLOAT16) {
        v->floats.push_back(HalfToFloat(static_cast<uint16_t>(x)));
      } else if (type == TensorProto::BFLOAT16) {
        v->floats.push_back(BFloat16ToFloat(static_cast<uint16_t>(x)));
      } else {
        v->ints.push_back(type == TensorProto::BOOL ? (x != 0) : x);
      }
    }
  } else {
    return false;
  }
  return true;
}

// Fills tensor->value from inline data; returns an error only for raw data
// whose size contradicts the dims.
Status ReadInlineValue(const TensorProto& p, Tensor* tensor) {
  const int64_t n = tensor->num_elements();
  const int64_t elem = OnnxElementBytes(p.data_type());
  if (elem == 0 || n > kMaxInlineValueElements) return Status::Ok();
  if (p.data_location() == TensorProto::EXTERNAL) return Status::Ok();
  TensorValue v;
  v.is_float = IsFloatDType(tensor->dtype);
  if (p.has_raw_data()) {
    const std::string& raw = p.raw_data();
    if (static_cast<int64_t>(raw.size()) != n * elem) {
      return ParseError("tensor '" + p.name() + "' has " + std::to_string(raw.size()) +
                        " bytes of raw data, dims " + ShapeToString(tensor->dims) + " need " +
                        std::to_string(n * elem));
    }
    for (int64_t i = 0; i < n; ++i) AppendRaw(p.data_type(), raw.data() + i * elem, &v);
  } else if (!ReadTypedFields(p, n, &v)) {
    return Status::Ok();  // no (or inconsistent) typed data: contents unknown
  }
  tensor->value = std::move(v);
  return Status::Ok();
}

}  // namespace

DType DTypeFromOnnx(int32_t onnx_type) {
  switch (onnx_type) {
    case TensorProto::FLOAT:
      return DType::kFloat32;
    case TensorProto::FLOAT16:
      return DType::kFloat16;
    case TensorProto::BFLOAT16:
      return DType::kBFloat16;
    case TensorProto::DOUBLE:
      return DType::kFloat64;
    case TensorProto::INT8:
      return DType::kInt8;
    case TensorProto::UINT8:
      return DType::kUInt8;
    case TensorProto::INT16:
    case TensorProto::UINT16:
      return DType::kInt16;
    case TensorProto::INT32:
    case TensorProto::UINT32:
      return DType::kInt32;
    case TensorProto::INT64:
    case TensorProto::UINT64:
      return DType::kInt64;
    case TensorProto::BOOL:
      return DType::kBool;
    case TensorProto::STRING:
      return DType::kString;
    default:
      return DType::kUndefined;
  }
}

DType DTypeFromOnnxCode(int64_t code) {
  if (code < 0 || code > 64) return DType::kUndefined;
  return DTypeFromOnnx(static_cast<int32_t>(code));
}

Result<Tensor> ConvertTensorProto(const TensorProto& proto) {
  Tensor t;
  t.name = proto.name();
  t.dtype = DTypeFromOnnx(proto.data_type());
  if (t.dtype == DType::kUndefined) {
    return Unsupported("tensor '" + proto.name() + "' has unsupported data type " +
                       std::to_string(proto.data_type()));
  }
  if (proto.dims_size() > kMaxRank) {
    return ParseError("tensor '" + proto.name() + "' has rank " +
                      std::to_string(proto.dims_size()) + " (more than " +
                      std::to_string(kMaxRank) + ")");
  }
  int64_t elems = 1;
  for (int64_t d : proto.dims()) {
    if (d < 0) {
      return ParseError("tensor '" + proto.name() + "' has negative dim " + std::to_string(d));
    }
    if (d != 0 && elems > std::numeric_limits<int64_t>::max() / d) {
      return OutOfRange("tensor '" + proto.name() + "' element count overflows int64");
    }
    elems *= d;
    t.dims.push_back(d);
  }
  DLSIM_RETURN_IF_ERROR(ReadInlineValue(proto, &t));
  return t;
}

Result<Attribute> ConvertAttribute(const onnx::AttributeProto& proto) {
  using onnx::AttributeProto;
  Attribute a;
  switch (proto.type()) {
    case AttributeProto::INT:
      a.kind = Attribute::Kind::kInt;
      a.i = proto.i();
      break;
    case AttributeProto::FLOAT:
      a.kind = Attribute::Kind::kFloat;
      a.f = proto.f();
      break;
    case AttributeProto::STRING:
      a.kind = Attribute::Kind::kString;
      a.s = proto.s();
      break;
    case AttributeProto::INTS:
      a.kind = Attribute::Kind::kInts;
      a.ints.assign(proto.ints().begin(), proto.ints().end());
      break;
    case AttributeProto::FLOATS:
      a.kind = Attribute::Kind::kFloats;
      a.floats.assign(proto.floats().begin(), proto.floats().end());
      break;
    case AttributeProto::STRINGS:
      a.kind = Attribute::Kind::kStrings;
      a.strings.assign(proto.strings().begin(), proto.strings().end());
      break;
    case AttributeProto::TENSOR: {
      a.kind = Attribute::Kind::kTensor;
      DLSIM_ASSIGN_OR_RETURN(Tensor t, ConvertTensorProto(proto.t()));
      a.tensor = std::move(t);
      break;
    }
    case AttributeProto::GRAPH:
    case AttributeProto::GRAPHS:
      a.kind = Attribute::Kind::kGraph;
      break;
    default:
      return Unsupported("attribute '" + proto.name() + "' has unsupported type " +
                         std::to_string(proto.type()));
  }
  return a;
}

}  // namespace dlsim
