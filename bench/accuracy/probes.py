"""The probe set: models and shapes the zoo does not have, chosen after all
tuning as a validation set (nothing is ever fitted or tuned on them).

Shared by probe_runs.py (runs on the GPU machine, needs torch) and
compare_probes.py (runs anywhere).
"""

# What kind of generalisation a probe tests.
GROUPS = {
    "shape": "zoo model, unseen input size",
    "model": "model outside the zoo",
    "block": "block around ops the zoo lacks",
}

# name -> (input (kind, *dims), batches, group, what it probes)
PROBES = {
    "resnet50_img512": (("image", 512), (1, 16), "shape", "a zoo model at an unseen image size (512)"),
    "bert_base_seq512": (("tokens", 512, 30000), (1, 16), "shape",
                         "a zoo model at an unseen sequence length (512)"),
    "wide_resnet50_2": (("image", 224), (1, 16, 64), "model", "torchvision"),
    "vgg11_bn": (("image", 224), (1, 16, 64), "model", "torchvision"),
    "mobilenet_v3_small": (("image", 224), (1, 16, 64), "model", "torchvision"),
    "efficientnet_v2_s": (("image", 224), (1, 16, 64), "model", "torchvision"),
    "regnet_x_1_6gf": (("image", 224), (1, 16, 64), "model", "torchvision"),
    "vit_b_32": (("image", 224), (1, 16, 64), "model", "torchvision"),
    "llama_small": (("tokens", 256, 32000), (1, 16), "model",
                    "LLaMA-style decoder, 8 layers of 1024 (RMSNorm, rotary, gated MLP)"),
    "unet_groupnorm": (("image", 128), (1, 16), "block",
                       "U-Net level: GroupNorm, SiLU, nearest upsample, skip concat"),
    "einsum_attention": (("seq", 256, 512), (1, 16, 64), "block", "self-attention written with Einsum"),
    "causal_sdpa_block": (("seq", 512, 768), (1, 16), "block",
                          "4 decoder blocks on causal scaled-dot-product attention"),
    "big_linear": (("seq", 512, 8192), (1, 16), "block",
                   "one 8192x8192 Linear: 8192^3 at batch 16, larger than any calibrated GEMM"),
    # Recurrent layers at sizes no calibration measured (added in the ninth
    # session, after the fitted RNN model was written; never fitted on).
    "lstm_h256_seq128": (("seq", 128, 128), (1, 16, 64), "model",
                         "one-layer LSTM, hidden 256, 128 steps (fp16 batch 16/64: persistent kernel)"),
    "gru_h1024": (("seq", 32, 512), (1, 16, 64), "model", "one-layer GRU, hidden 1024, 32 steps"),
    "lstm_bidir_h384": (("seq", 50, 256), (1, 16), "model",
                        "two-layer bidirectional LSTM, hidden 384, 50 steps"),
    "lstm_h128_3layer": (("seq", 200, 64), (1, 16), "model",
                         "three-layer LSTM, hidden 128, 200 steps (small-hidden persistent kernel)"),
    # Three more, chosen in the tenth session before the RNN sweep
    # (calibration/jobs/rnn-sweep.txt, which leaves their keys out) was measured.
    "gru_2layer_h256": (("seq", 100, 80), (1, 16, 64), "model",
                        "two-layer GRU, hidden 256, 100 steps of 80 features (speech-like)"),
    "lstm_h768_seq64": (("seq", 64, 256), (1, 16, 64), "model",
                        "one-layer LSTM, hidden 768, 64 steps (fp16 batch 16/64: persistent kernel)"),
    "gru_bidir_h128": (("seq", 150, 40), (1, 16, 64), "model",
                       "bidirectional GRU, hidden 128, 150 steps (small-hidden persistent kernel)"),
}
