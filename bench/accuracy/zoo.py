"""The accuracy zoo: models, their inputs, and which ones are held out.

Shared by reference_runs.py (runs on the GPU machine, needs torch) and the
comparison script (runs anywhere). Held-out models are never used to fit or
tune dlsim; docs/accuracy.md reports them separately.
"""

# name -> (family, input kind, held_out)
ZOO = {
    "alexnet": ("torchvision", "image224", False),
    "vgg16": ("torchvision", "image224", False),
    "resnet18": ("torchvision", "image224", False),
    "resnet50": ("torchvision", "image224", False),
    "resnext50_32x4d": ("torchvision", "image224", True),
    "densenet121": ("torchvision", "image224", True),
    "googlenet": ("torchvision", "image224", False),
    "inception_v3": ("torchvision", "image299", False),
    "mobilenet_v2": ("torchvision", "image224", False),
    "mobilenet_v3_large": ("torchvision", "image224", True),
    "shufflenet_v2_x1_0": ("torchvision", "image224", False),
    "squeezenet1_0": ("torchvision", "image224", False),
    "mnasnet1_0": ("torchvision", "image224", True),
    "efficientnet_b0": ("torchvision", "image224", False),
    "regnet_y_400mf": ("torchvision", "image224", True),
    "convnext_tiny": ("torchvision", "image224", False),
    "vit_b_16": ("torchvision", "image224", False),
    "swin_t": ("torchvision", "image224", True),
    "bert_base": ("hf", "tokens128", False),
    "gpt2_small": ("hf", "tokens256", False),
    "lstm2": ("rnn", "seq", False),
    "gru2": ("rnn", "seq", True),
    "candle_p1b2_mlp": ("candle", "features", False),
    "candle_nt3_conv1d": ("candle", "signal", False),
    "candle_p3b1_mlp": ("candle", "features_p3b1", True),
}

INFER_BATCHES = (1, 16, 64)
INFER_DTYPES = ("fp32", "fp16")
TRAIN_BATCH = 32


def held_out(name):
    return ZOO[name][2]
