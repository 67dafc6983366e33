#!/usr/bin/python3
"""Generates the small graph-only ONNX models under tests/data/models/.

Uses only the onnx helper API (no torch). The graphs mimic what
torch.onnx.export produces (dynamic batch, Shape->Gather->Unsqueeze->Concat->
Reshape shape arithmetic, class-token Expand, channel shuffle, LSTM) so that
tests/model/ can assert exact shapes. Weights are tiny inline tensors or
external data that does not exist. Run from anywhere:

    /usr/bin/python3 tools/make_test_models.py
"""

import os

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "models")
F = TensorProto.FLOAT
I64 = TensorProto.INT64
INT64_MAX = 2**63 - 1


def const(name, values, dtype=np.int64):
    """A Constant node whose output is `name`."""
    arr = np.array(values, dtype=dtype)
    return helper.make_node("Constant", [], [name], name=name + "_node",
                            value=numpy_helper.from_array(arr, name + "_value"))


def weight(name, shape, fill=0.01):
    return numpy_helper.from_array(np.full(shape, fill, dtype=np.float32), name)


def external(name, shape, location):
    """An initializer whose contents live in an (absent) external file."""
    t = TensorProto()
    t.name = name
    t.data_type = F
    t.dims.extend(shape)
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"),
                       ("length", str(4 * int(np.prod(shape))))):
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    return t


def save(graph, name, opset=17, check=True):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="dlsim-make_test_models")
    model.ir_version = 8
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name))


def tiny_cnn(opset):
    """Conv-ReLU-MaxPool-Conv(SAME)-BN-GAP-Flatten-Gemm, dynamic batch."""
    nodes = [
        helper.make_node("Conv", ["input", "w1", "b1"], ["c1"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),  # unnamed: the importer names it
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], name="conv2", kernel_shape=[3, 3],
                         strides=[2, 2], auto_pad="SAME_UPPER"),
        helper.make_node("BatchNormalization", ["c2", "g", "beta", "mean", "var"], ["bn"],
                         name="bn"),
        helper.make_node("GlobalAveragePool", ["bn"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], name="fc", transB=1),
    ]
    inits = [weight("w1", [8, 3, 3, 3]), weight("b1", [8]), weight("w2", [16, 8, 3, 3]),
             weight("g", [16]), weight("beta", [16]), weight("mean", [16]), weight("var", [16]),
             weight("fc_w", [10, 16]), weight("fc_b", [10])]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("input", F, ["batch_size", 3, 32, 32])],
        [helper.make_tensor_value_info("logits", F, ["batch_size", 10])], inits)
    save(graph, "tiny_cnn_opset%d.onnx" % opset, opset)


def attention():
    """One BERT-style self-attention block with PyTorch's dynamic reshapes."""
    n = []
    n.append(helper.make_node("Shape", ["x"], ["x_shape"], name="shape"))
    n += [const("i0", 0), const("i1", 1), const("heads", [4]), const("hidden", [64]),
          const("four", 4), const("axes0", [0]), const("minus1", [-1])]
    n.append(helper.make_node("Gather", ["x_shape", "i0"], ["batch"], name="gather_b", axis=0))
    n.append(helper.make_node("Gather", ["x_shape", "i1"], ["seq"], name="gather_s", axis=0))
    n.append(helper.make_node("Unsqueeze", ["batch", "axes0"], ["batch_1d"], name="unsq_b"))
    n.append(helper.make_node("Unsqueeze", ["seq", "axes0"], ["seq_1d"], name="unsq_s"))
    # head_dim = hidden / heads, computed like a traced `x.size(-1) // self.heads`
    n += [const("i2", 2)]
    n.append(helper.make_node("Gather", ["x_shape", "i2"], ["hid"], name="gather_h", axis=0))
    n.append(helper.make_node("Div", ["hid", "four"], ["head_dim"], name="div_hd"))
    n.append(helper.make_node("Unsqueeze", ["head_dim", "axes0"], ["head_dim_1d"], name="unsq_h"))
    n.append(helper.make_node("Concat", ["batch_1d", "seq_1d", "heads", "head_dim_1d"],
                              ["split_shape"], name="concat_split", axis=0))
    for p in ("q", "k", "v"):
        n.append(helper.make_node("MatMul", ["x", "w" + p], [p + "_proj"], name="matmul_" + p))
        n.append(helper.make_node("Reshape", [p + "_proj", "split_shape"], [p + "_4d"],
                                  name="reshape_" + p))
    n.append(helper.make_node("Transpose", ["q_4d"], ["q_t"], name="tq", perm=[0, 2, 1, 3]))
    n.append(helper.make_node("Transpose", ["k_4d"], ["k_t"], name="tk", perm=[0, 2, 3, 1]))
    n.append(helper.make_node("Transpose", ["v_4d"], ["v_t"], name="tv", perm=[0, 2, 1, 3]))
    n.append(helper.make_node("MatMul", ["q_t", "k_t"], ["scores"], name="qk"))
    n += [const("scale", 4.0, np.float32)]
    n.append(helper.make_node("Div", ["scores", "scale"], ["scaled"], name="div_scale"))
    # causal mask: ones(seq, seq) -> Trilu -> Equal 0 -> Where(-inf, 0)
    n.append(helper.make_node("Concat", ["seq_1d", "seq_1d"], ["mask_shape"], name="cat_mask",
                              axis=0))
    n.append(helper.make_node("ConstantOfShape", ["mask_shape"], ["ones"], name="ones",
                              value=numpy_helper.from_array(np.array([1], np.int64), "one")))
    n.append(helper.make_node("Trilu", ["ones"], ["tril"], name="tril", upper=0))
    n += [const("zero", 0), const("neg_inf", -1e9, np.float32), const("fzero", 0.0, np.float32)]
    n.append(helper.make_node("Equal", ["tril", "zero"], ["masked"], name="eq_mask"))
    n.append(helper.make_node("Where", ["masked", "neg_inf", "fzero"], ["bias"], name="where"))
    n.append(helper.make_node("Add", ["scaled", "bias"], ["biased"], name="add_mask"))
    n.append(helper.make_node("Softmax", ["biased"], ["probs"], name="softmax", axis=-1))
    n.append(helper.make_node("MatMul", ["probs", "v_t"], ["ctx"], name="pv"))
    n.append(helper.make_node("Transpose", ["ctx"], ["ctx_t"], name="tctx", perm=[0, 2, 1, 3]))
    n.append(helper.make_node("Concat", ["batch_1d", "seq_1d", "minus1"], ["merge_shape"],
                              name="concat_merge", axis=0))
    n.append(helper.make_node("Reshape", ["ctx_t", "merge_shape"], ["merged"], name="merge"))
    n.append(helper.make_node("MatMul", ["merged", "wo"], ["attn_out"], name="matmul_o"))
    n.append(helper.make_node("Add", ["attn_out", "x"], ["res"], name="residual"))
    n.append(helper.make_node("LayerNormalization", ["res", "ln_g", "ln_b"], ["y"], name="ln",
                              axis=-1, epsilon=1e-5))
    inits = [weight(w, [64, 64]) for w in ("wq", "wk", "wv", "wo")]
    inits += [weight("ln_g", [64]), weight("ln_b", [64])]
    graph = helper.make_graph(
        n, "attention_block",
        [helper.make_tensor_value_info("x", F, ["batch", "sequence", 64])],
        [helper.make_tensor_value_info("y", F, ["batch", "sequence", 64])], inits)
    save(graph, "attention_opset17.onnx")


def attention_op():
    """ONNX's Attention op (opset 23: what torch.onnx's dynamo exporter writes
    for F.scaled_dot_product_attention) in a decoder block: 3-D q, k, v
    projections split into 4 query heads over 2 key/value heads of 16,
    causal, with a KV cache of 8 past tokens."""
    vi = helper.make_tensor_value_info
    n = [helper.make_node("MatMul", ["x", "w" + p], [p], name="proj_" + p) for p in "qkv"]
    n.append(helper.make_node("Attention", ["q", "k", "v", "", "past_key", "past_value"],
                              ["attn", "present_key", "present_value"], name="attention",
                              q_num_heads=4, kv_num_heads=2, is_causal=1))
    n.append(helper.make_node("MatMul", ["attn", "wo"], ["y"], name="proj_o"))
    inits = [weight("wq", [64, 64]), weight("wk", [64, 32]), weight("wv", [64, 32]),
             weight("wo", [64, 64])]
    graph = helper.make_graph(
        n, "attention_op",
        [vi("x", F, ["batch", 16, 64]), vi("past_key", F, ["batch", 2, 8, 16]),
         vi("past_value", F, ["batch", 2, 8, 16])],
        [vi("y", F, ["batch", 16, 64]), vi("present_key", F, ["batch", 2, 24, 16]),
         vi("present_value", F, ["batch", 2, 24, 16])], inits)
    save(graph, "attention_opset23.onnx", 23, check=False)  # onnx 1.12 predates opset 23


def vit_token():
    """Patch embedding, class token Expand (torch's expand(n, -1, -1)), Concat."""
    n = [helper.make_node("Conv", ["input", "patch_w"], ["patches"], name="patch",
                          kernel_shape=[8, 8], strides=[8, 8])]
    n.append(helper.make_node("Shape", ["input"], ["in_shape"], name="shape"))
    n += [const("i0", 0), const("axes0", [0]), const("dims_rest", [32, -1]),
          const("minus_ones", [-1, -1]), const("neg1", -1)]
    n.append(helper.make_node("Gather", ["in_shape", "i0"], ["n"], name="gather_n", axis=0))
    n.append(helper.make_node("Unsqueeze", ["n", "axes0"], ["n_1d"], name="unsq_n"))
    n.append(helper.make_node("Concat", ["n_1d", "dims_rest"], ["flat_shape"], name="cat_flat",
                              axis=0))
    n.append(helper.make_node("Reshape", ["patches", "flat_shape"], ["flat"], name="flatten"))
    n.append(helper.make_node("Transpose", ["flat"], ["tokens"], name="to_tokens", perm=[0, 2, 1]))
    n.append(helper.make_node("Concat", ["n_1d", "minus_ones"], ["exp_req"], name="cat_exp",
                              axis=0))
    n.append(helper.make_node("Equal", ["exp_req", "neg1"], ["is_neg"], name="eq"))
    n.append(helper.make_node("Shape", ["exp_req"], ["req_shape"], name="shape_req"))
    n.append(helper.make_node("ConstantOfShape", ["req_shape"], ["req_ones"], name="ones",
                              value=numpy_helper.from_array(np.array([1], np.int64), "one")))
    n.append(helper.make_node("Where", ["is_neg", "req_ones", "exp_req"], ["exp_shape"],
                              name="where"))
    n.append(helper.make_node("Expand", ["class_token", "exp_shape"], ["cls"], name="expand"))
    n.append(helper.make_node("Concat", ["cls", "tokens"], ["seq"], name="cat_cls", axis=1))
    n.append(helper.make_node("Add", ["seq", "pos"], ["emb"], name="add_pos"))
    n.append(helper.make_node("LayerNormalization", ["emb", "ln_g", "ln_b"], ["normed"],
                              name="ln", axis=-1))
    n.append(helper.make_node("Gather", ["normed", "i0"], ["cls_out"], name="take_cls", axis=1))
    n.append(helper.make_node("Gemm", ["cls_out", "head_w", "head_b"], ["logits"], name="head",
                              transB=1))
    inits = [weight("patch_w", [32, 3, 8, 8]), weight("class_token", [1, 1, 32]),
             weight("pos", [1, 17, 32]), weight("ln_g", [32]), weight("ln_b", [32]),
             weight("head_w", [10, 32]), weight("head_b", [10])]
    graph = helper.make_graph(
        n, "vit_token",
        [helper.make_tensor_value_info("input", F, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("logits", F, ["batch", 10])], inits)
    save(graph, "vit_token_opset17.onnx")


def channel_shuffle():
    """ShuffleNet v2 unit: Split, branch conv, Concat, Reshape-Transpose-Reshape."""
    n = [const("split", [8, 8])]
    n.append(helper.make_node("Split", ["input", "split"], ["left", "right"], name="split",
                              axis=1))
    n.append(helper.make_node("Conv", ["right", "w"], ["right_c"], name="conv", kernel_shape=[1, 1]))
    n.append(helper.make_node("Concat", ["left", "right_c"], ["cat"], name="cat", axis=1))
    n.append(helper.make_node("Shape", ["cat"], ["s"], name="shape"))
    n += [const("i0", 0), const("i2", 2), const("i3", 3), const("axes0", [0]),
          const("groups", [2, 8])]
    for name, idx in (("b", "i0"), ("h", "i2"), ("w_", "i3")):
        n.append(helper.make_node("Gather", ["s", idx], [name + "_dim"], name="gather_" + name))
        n.append(helper.make_node("Unsqueeze", [name + "_dim", "axes0"], [name + "_1d"],
                                  name="unsq_" + name))
    n.append(helper.make_node("Concat", ["b_1d", "groups", "h_1d", "w__1d"], ["shape5"],
                              name="cat5", axis=0))
    n.append(helper.make_node("Reshape", ["cat", "shape5"], ["grouped"], name="group"))
    n.append(helper.make_node("Transpose", ["grouped"], ["shuffled"], name="shuffle",
                              perm=[0, 2, 1, 3, 4]))
    n += [const("flat4", [0, -1, 8, 8])]
    n.append(helper.make_node("Reshape", ["shuffled", "flat4"], ["output"], name="ungroup"))
    graph = helper.make_graph(
        n, "channel_shuffle",
        [helper.make_tensor_value_info("input", F, ["batch", 16, 8, 8])],
        [helper.make_tensor_value_info("output", F, ["batch", 16, 8, 8])],
        [weight("w", [8, 8, 1, 1])])
    save(graph, "channel_shuffle_opset13.onnx", 13)


def lstm():
    """batch_first nn.LSTM(8, 16, bidirectional=True) as torch exports it."""
    n = [helper.make_node("Transpose", ["input"], ["x_t"], name="to_seq_first", perm=[1, 0, 2])]
    n.append(helper.make_node("LSTM", ["x_t", "W", "R", "B"], ["Y", "Y_h", "Y_c"], name="lstm",
                              hidden_size=16, direction="bidirectional"))
    n.append(helper.make_node("Transpose", ["Y"], ["y_t"], name="to_batch_first",
                              perm=[2, 0, 1, 3]))
    n += [const("shape3", [0, 0, -1])]
    n.append(helper.make_node("Reshape", ["y_t", "shape3"], ["output"], name="merge_dirs"))
    graph = helper.make_graph(
        n, "lstm",
        [helper.make_tensor_value_info("input", F, ["batch", 10, 8])],
        [helper.make_tensor_value_info("output", F, ["batch", 10, 32]),
         helper.make_tensor_value_info("Y_h", F, [2, "batch", 16])],
        [weight("W", [2, 64, 8]), weight("R", [2, 64, 16]), weight("B", [2, 128])])
    save(graph, "lstm_opset17.onnx")


def external_mlp(file_name, location):
    """MatMul-Add-Relu whose weights are external data at `location` (absent)."""
    n = [helper.make_node("MatMul", ["input", "w"], ["mm"], name="matmul"),
         helper.make_node("Add", ["mm", "b"], ["pre"], name="add"),
         helper.make_node("Relu", ["pre"], ["output"], name="relu")]
    graph = helper.make_graph(
        n, "external_mlp",
        [helper.make_tensor_value_info("input", F, ["batch", 32])],
        [helper.make_tensor_value_info("output", F, ["batch", 64])],
        [external("w", [32, 64], location), external("b", [64], location)])
    save(graph, file_name, check=False)


def two_branch():
    """Two parallel branches joined by Add; nodes stored out of order."""
    n = [helper.make_node("Add", ["left", "right"], ["output"], name="join"),
         helper.make_node("Sigmoid", ["hidden"], ["right"], name="branch_b"),
         helper.make_node("Relu", ["hidden"], ["left"], name="branch_a"),
         helper.make_node("MatMul", ["input", "w"], ["hidden"], name="stem")]
    graph = helper.make_graph(
        n, "two_branch",
        [helper.make_tensor_value_info("input", F, ["batch", 8])],
        [helper.make_tensor_value_info("output", F, ["batch", 16])], [weight("w", [8, 16])])
    save(graph, "two_branch.onnx", check=False)


def shape_ops(opset):
    """Reduce/Unsqueeze/Squeeze/Split/Pad/Slice in their opset-11 (attribute)
    or opset-17 (input) forms."""
    n = []
    if opset < 13:
        n.append(helper.make_node("ReduceSum", ["input"], ["red"], name="reduce", axes=[2],
                                  keepdims=0))
        n.append(helper.make_node("Unsqueeze", ["red"], ["unsq"], name="unsq", axes=[1]))
        n.append(helper.make_node("Squeeze", ["unsq"], ["sq"], name="sq", axes=[1]))
        n.append(helper.make_node("Split", ["sq"], ["s1", "s3"], name="split", axis=1,
                                  split=[1, 3]))
    else:
        n += [const("axes2", [2]), const("axes1", [1]), const("split_sizes", [1, 3])]
        n.append(helper.make_node("ReduceSum", ["input", "axes2"], ["red"], name="reduce",
                                  keepdims=0))
        n.append(helper.make_node("Unsqueeze", ["red", "axes1"], ["unsq"], name="unsq"))
        n.append(helper.make_node("Squeeze", ["unsq", "axes1"], ["sq"], name="sq"))
        n.append(helper.make_node("Split", ["sq", "split_sizes"], ["s1", "s3"], name="split",
                                  axis=1))
    n += [const("pads", [0, 1, 0, 1])]
    n.append(helper.make_node("Pad", ["s3", "pads"], ["padded"], name="pad"))  # [B, 5]
    n += [const("starts", [-1]), const("ends", [-INT64_MAX]), const("axes_s", [1]),
          const("steps", [-2])]
    n.append(helper.make_node("Slice", ["padded", "starts", "ends", "axes_s", "steps"],
                              ["reversed"], name="slice"))  # every other, reversed: [B, 3]
    n.append(helper.make_node("Concat", ["s1", "reversed"], ["output"], name="cat", axis=1))
    graph = helper.make_graph(
        n, "shape_ops",
        [helper.make_tensor_value_info("input", F, ["batch", 4, 6])],
        [helper.make_tensor_value_info("output", F, ["batch", 4])])
    save(graph, "shape_ops_opset%d.onnx" % opset, opset)


def fallback_op():
    """EyeLike has no dlsim rule: ONNX's own inference shapes it."""
    n = [helper.make_node("EyeLike", ["input"], ["eye"], name="eye"),
         helper.make_node("Relu", ["eye"], ["output"], name="relu")]
    graph = helper.make_graph(
        n, "fallback",
        [helper.make_tensor_value_info("input", F, ["batch", 5])],
        [helper.make_tensor_value_info("output", F, ["batch", 5])])
    save(graph, "fallback_eyelike.onnx")


def custom_op():
    """An op in a private domain that nothing can shape."""
    n = [helper.make_node("Frobnicate", ["input"], ["output"], name="frob", domain="com.example")]
    graph = helper.make_graph(
        n, "custom",
        [helper.make_tensor_value_info("input", F, ["batch", 5])],
        [helper.make_tensor_value_info("output", F, ["batch", 5])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.example", 1)])
    model.ir_version = 8
    onnx.save(model, os.path.join(OUT, "custom_op.onnx"))


def bad_graphs():
    vi = helper.make_tensor_value_info
    cycle = helper.make_graph(
        [helper.make_node("Relu", ["input"], ["a"], name="entry"),
         helper.make_node("Add", ["a", "c"], ["b"], name="loop_add"),
         helper.make_node("Relu", ["b"], ["c"], name="loop_relu"),
         helper.make_node("Sigmoid", ["c"], ["output"], name="exit")],
        "cycle", [vi("input", F, [2, 3])], [vi("output", F, [2, 3])])
    save(cycle, "bad_cycle.onnx", check=False)
    dangling = helper.make_graph(
        [helper.make_node("Add", ["input", "ghost"], ["output"], name="add_ghost")],
        "dangling", [vi("input", F, [2, 3])], [vi("output", F, [2, 3])])
    save(dangling, "bad_dangling.onnx", check=False)
    duplicate = helper.make_graph(
        [helper.make_node("Relu", ["input"], ["output"], name="first"),
         helper.make_node("Sigmoid", ["input"], ["output"], name="second")],
        "duplicate", [vi("input", F, [2, 3])], [vi("output", F, [2, 3])])
    save(duplicate, "bad_duplicate_output.onnx", check=False)
    mismatch = helper.make_graph(
        [helper.make_node("MatMul", ["input", "w"], ["output"], name="bad_matmul")],
        "mismatch", [vi("input", F, ["batch", 3])], [vi("output", F, ["batch", 4])],
        [weight("w", [5, 4])])
    save(mismatch, "bad_matmul_dims.onnx", check=False)


def local_functions():
    """Dynamo-style model-local functions: a Block called twice (its inner
    value names clash between calls), which calls Act with an attribute
    reference; and a function that calls itself."""
    vi = helper.make_tensor_value_info
    pkg = [helper.make_opsetid("", 17), helper.make_opsetid("pkg.dlsim", 1)]
    slope = AttributeProto(name="alpha", ref_attr_name="slope", type=AttributeProto.FLOAT)
    leaky = helper.make_node("LeakyRelu", ["x"], ["y"], name="leaky")
    leaky.attribute.extend([slope])
    act = helper.make_function("pkg.dlsim", "Act", ["x"], ["y"], [leaky], pkg[:1], ["slope"])
    block = helper.make_function(
        "pkg.dlsim", "Block", ["x", "w"], ["y"],
        [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
         helper.make_node("Act", ["h"], ["y"], name="act", domain="pkg.dlsim", slope=0.2)],
        pkg, [])
    graph = helper.make_graph(
        [helper.make_node("Block", ["input", "w1"], ["mid"], name="block1", domain="pkg.dlsim"),
         helper.make_node("Block", ["mid", "w2"], ["output"], name="block2", domain="pkg.dlsim")],
        "local_functions", [vi("input", F, ["batch", 8])], [vi("output", F, ["batch", 4])],
        [weight("w1", [8, 16]), weight("w2", [16, 4])])
    model = helper.make_model(graph, opset_imports=pkg, functions=[act, block])
    model.ir_version = 8
    onnx.save(model, os.path.join(OUT, "local_functions.onnx"))
    loop = helper.make_function(
        "pkg.dlsim", "Loop", ["x"], ["y"],
        [helper.make_node("Loop", ["x"], ["y"], name="again", domain="pkg.dlsim")], pkg, [])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["input"], ["output"], name="entry", domain="pkg.dlsim")],
        "recursive", [vi("input", F, [2, 3])], [vi("output", F, [2, 3])])
    model = helper.make_model(graph, opset_imports=pkg, functions=[loop])
    model.ir_version = 8
    onnx.save(model, os.path.join(OUT, "bad_recursive_function.onnx"))


def main():
    os.makedirs(OUT, exist_ok=True)
    tiny_cnn(11)
    tiny_cnn(17)
    attention()
    attention_op()
    vit_token()
    channel_shuffle()
    lstm()
    external_mlp("external_absent.onnx", "external_absent.bin")
    external_mlp("external_evil.onnx", "../evil.bin")
    external_mlp("external_absolute.onnx", "/etc/passwd")
    external_mlp("external_subdir.onnx", "weights/external_subdir.bin")
    two_branch()
    shape_ops(11)
    shape_ops(17)
    fallback_op()
    custom_op()
    bad_graphs()
    local_functions()


if __name__ == "__main__":
    main()
