// Bad ONNX models through the CLI (issue 7): every case exits 1 with a
// message naming the file and the node, tensor or field at fault.
#include <onnx/onnx_pb.h>
#include <sys/stat.h>

#include <cstdint>
#include <initializer_list>

#include "bad_input_util.h"

namespace dlsim::badinput {
namespace {

namespace fs = std::filesystem;

std::string TestModel(const std::string& name) {
  return std::string(DLSIM_TEST_DATA_DIR) + "/models/" + name;
}

// A model of one Relu (or `op`) from input x to output y.
onnx::ModelProto OneNodeModel(std::initializer_list<int64_t> x_dims, const std::string& op = "Relu",
                              const std::string& node_name = "act") {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("bad");
  onnx::ValueInfoProto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : x_dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  onnx::NodeProto* node = g->add_node();
  node->set_name(node_name);
  node->set_op_type(op);
  node->add_input("x");
  node->add_output("y");
  g->add_output()->set_name("y");
  return model;
}

void AddInitializer(onnx::ModelProto* model, const std::string& name,
                    std::initializer_list<int64_t> dims) {
  onnx::TensorProto* t = model->mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
}

std::string WriteModel(const std::string& name, const onnx::ModelProto& model) {
  return WriteFile(name, model.SerializeAsString());
}

std::string Inspect(const std::string& path) { return "inspect " + path; }

// A copy of external_absent.onnx whose weight file is a symlink to a file
// outside the model's folder.
std::string SymlinkedExternalData() {
  const fs::path dir = WorkDir() / "symlink_model";
  fs::create_directories(dir);
  fs::create_directories(WorkDir() / "outside");
  WriteFile("outside/secret.bin", std::string(8192, 's'));
  fs::copy_file(TestModel("external_absent.onnx"), dir / "external_absent.onnx",
                fs::copy_options::overwrite_existing);
  fs::remove(dir / "external_absent.bin");
  fs::create_symlink(WorkDir() / "outside" / "secret.bin", dir / "external_absent.bin");
  return Inspect((dir / "external_absent.onnx").string());
}

const BadCase kCases[] = {
    {"Empty", [] { return Inspect(WriteFile("empty.onnx", "")); }, {"empty.onnx", "empty"}},
    {"Random", [] { return Inspect(WriteFile("random.onnx", Noise(4096, 7))); }, {"random.onnx"}},
    // Endless devices and FIFOs would hang the reader or exhaust memory.
    {"DeviceFile", [] { return Inspect("/dev/zero"); }, {"/dev/zero", "not a regular file"}},
    {"Fifo",
     [] {
       const std::string path = (WorkDir() / "model.fifo").string();
       mkfifo(path.c_str(), 0600);
       return Inspect(path);
     },
     {"model.fifo", "not a regular file"}},
    {"Folder", [] { return Inspect(WorkDir().string()); }, {"is a folder"}},
    {"Truncated",
     [] {
       const std::string good = ReadFile(TestModel("tiny_cnn_opset17.onnx"));
       return Inspect(WriteFile("truncated.onnx", good.substr(0, good.size() / 2)));
     },
     {"truncated.onnx"}},
    // Field 7 (graph), length-delimited, claiming 2^31 - 1 bytes.
    {"AbsurdLengthPrefix",
     [] { return Inspect(WriteFile("absurd_length.onnx", "\x08\x08\x3a\xff\xff\xff\xff\x07")); },
     {"absurd_length.onnx"}},
    // A huge dims count: 100,000 repeated dims on one input.
    {"AbsurdRank",
     [] {
       onnx::ModelProto m = OneNodeModel({1});
       auto* shape = m.mutable_graph()->mutable_input(0)->mutable_type()
                         ->mutable_tensor_type()->mutable_shape();
       for (int i = 0; i < 100000; ++i) shape->add_dim()->set_dim_value(1);
       return Inspect(WriteModel("absurd_rank.onnx", m));
     },
     {"absurd_rank.onnx", "input 'x'", "rank 100001"}},
    {"Cycle", [] { return Inspect(TestModel("bad_cycle.onnx")); },
     {"bad_cycle.onnx", "cycle"}},
    {"DanglingInput", [] { return Inspect(TestModel("bad_dangling.onnx")); },
     {"bad_dangling.onnx", "node 'add_ghost'", "'ghost'"}},
    {"DuplicateOutputName", [] { return Inspect(TestModel("bad_duplicate_output.onnx")); },
     {"bad_duplicate_output.onnx", "'output'"}},
    {"DuplicateInitializer",
     [] {
       onnx::ModelProto m = OneNodeModel({1, 4});
       AddInitializer(&m, "w", {4});
       AddInitializer(&m, "w", {4});
       return Inspect(WriteModel("dup_init.onnx", m));
     },
     {"dup_init.onnx", "'w'", "twice"}},
    {"ZeroDim", [] { return Inspect(WriteModel("zero_dim.onnx", OneNodeModel({1, 0, 4}))); },
     {"zero_dim.onnx", "input 'x'", "dim 1 is zero"}},
    {"NegativeDim",
     [] { return Inspect(WriteModel("negative_dim.onnx", OneNodeModel({1, -3}))); },
     {"negative_dim.onnx", "input 'x'", "dim 1 is negative"}},
    {"NegativeInitializerDim",
     [] {
       onnx::ModelProto m = OneNodeModel({1, 4});
       AddInitializer(&m, "w", {4, -2});
       return Inspect(WriteModel("negative_init.onnx", m));
     },
     {"negative_init.onnx", "'w'", "negative"}},
    {"DimProductOverflows",
     [] {
       const int64_t big = int64_t{1} << 40;
       return Inspect(WriteModel("overflow.onnx", OneNodeModel({1, big, big})));
     },
     {"overflow.onnx", "input 'x'", "overflows"}},
    {"InitializerDimProductOverflows",
     [] {
       onnx::ModelProto m = OneNodeModel({1, 4});
       AddInitializer(&m, "w", {int64_t{1} << 33, int64_t{1} << 33});
       return Inspect(WriteModel("overflow_init.onnx", m));
     },
     {"overflow_init.onnx", "'w'", "overflow"}},
    // Found by fuzz/onnx_import_fuzz: a mangled Conv crashed libonnx's own
    // shape inference (run because of an unknown op).
    {"OnnxInferenceCrash",
     [] {
       return Inspect(std::string(DLSIM_SOURCE_DIR) +
                      "/fuzz/regressions/onnx_import_fuzz/conv_weight_rank_segv.onnx");
     },
     {"conv_weight_rank_segv.onnx", "ONNX shape inference", "died with signal"}},
    {"UnknownOp",
     [] { return Inspect(WriteModel("unknown_op.onnx", OneNodeModel({1, 4}, "NoSuchOp", "n1"))); },
     {"unknown_op.onnx", "node 'n1'", "NoSuchOp"}},
    {"UnknownDomainOp", [] { return Inspect(TestModel("custom_op.onnx")); },
     {"custom_op.onnx", "node 'frob'", "Frobnicate"}},
    {"ExternalDataDotDot", [] { return Inspect(TestModel("external_evil.onnx")); },
     {"external_evil.onnx", "tensor 'w'", "'../evil.bin'"}},
    {"ExternalDataAbsolute", [] { return Inspect(TestModel("external_absolute.onnx")); },
     {"external_absolute.onnx", "tensor 'w'", "absolute"}},
    {"ExternalDataSymlinkOutside", SymlinkedExternalData,
     {"external_absent.onnx", "tensor 'w'", "outside the model folder"}},
};

class BadOnnxTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadOnnxTest, FailsCleanlyNamingFileAndPlace) { ExpectCleanFailure(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Issue7, BadOnnxTest, ::testing::ValuesIn(kCases), CaseName);

}  // namespace
}  // namespace dlsim::badinput
