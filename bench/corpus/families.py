"""Torch modules of the corpus: one builder per family, from corpus.spec(name).

Runs where torch is (the GPU machine); the specs themselves need no torch.
Hugging Face models are built from configs with random weights: nothing is
downloaded.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import corpus

ACTS = {"relu": nn.ReLU, "relu6": nn.ReLU6, "silu": nn.SiLU, "gelu": nn.GELU,
        "hardswish": nn.Hardswish, "leaky_relu": lambda: nn.LeakyReLU(0.1), "tanh": nn.Tanh}


def act(name):
    return ACTS[name]()


def norm2d(kind, c):
    if kind == "bn":
        return nn.BatchNorm2d(c)
    if kind == "gn":
        return nn.GroupNorm(next(g for g in (8, 4, 2, 1) if c % g == 0), c)
    return nn.Identity()


def conv_norm_act(cin, cout, k, stride, s, groups=1, dilation=1, use_act=True):
    pad = dilation * (k - 1) // 2
    layers = [nn.Conv2d(cin, cout, k, stride, pad, dilation=dilation, groups=groups,
                        bias=s["norm"] == "none"), norm2d(s["norm"], cout)]
    if use_act:
        layers.append(act(s["act"]))
    return nn.Sequential(*layers)


# ---------------------------------------------------------------- 2-D CNNs
class SqueezeExcite(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.fc1 = nn.Conv2d(c, max(1, c // 4), 1)
        self.fc2 = nn.Conv2d(max(1, c // 4), c, 1)

    def forward(self, x):
        w = F.adaptive_avg_pool2d(x, 1)
        return x * torch.sigmoid(self.fc2(F.relu(self.fc1(w))))


class Block(nn.Module):
    """One block of a random CNN stage (type from the spec)."""

    def __init__(self, cin, cout, stride, b, s):
        super().__init__()
        t, k = b["type"], b["k"]
        self.skip = None
        self.add = False
        if t == "plain":
            self.body = conv_norm_act(cin, cout, k, stride, s)
        elif t == "dilated":
            self.body = conv_norm_act(cin, cout, max(3, k), stride, s, dilation=b["dilation"])
        elif t == "residual":
            self.body = nn.Sequential(conv_norm_act(cin, cout, k, stride, s),
                                      conv_norm_act(cout, cout, k, 1, s, use_act=False))
            self.add = True
            if stride != 1 or cin != cout:
                self.skip = conv_norm_act(cin, cout, 1, stride, s, use_act=False)
        elif t == "inverted":
            mid = cin * b["expand"]
            layers = [conv_norm_act(cin, mid, 1, 1, s), conv_norm_act(mid, mid, k, stride, s, groups=mid)]
            if b["se"]:
                layers.append(SqueezeExcite(mid))
            layers.append(conv_norm_act(mid, cout, 1, 1, s, use_act=False))
            self.body = nn.Sequential(*layers)
            self.add = stride == 1 and cin == cout
        elif t == "grouped":
            g = b["groups"]
            mid = g * math.ceil(cout / g)
            layers = [conv_norm_act(cin, mid, 1, 1, s), conv_norm_act(mid, mid, max(3, k), stride, s, groups=g)]
            if b["se"]:
                layers.append(SqueezeExcite(mid))
            layers.append(conv_norm_act(mid, cout, 1, 1, s, use_act=False))
            self.body = nn.Sequential(*layers)
            self.add = True
            if stride != 1 or cin != cout:
                self.skip = conv_norm_act(cin, cout, 1, stride, s, use_act=False)
        elif t == "branch":
            o1 = max(1, cout // 3)
            o2 = max(1, cout // 3)
            o3 = max(1, cout - o1 - o2)
            self.b1 = conv_norm_act(cin, o1, 1, stride, s)
            self.b2 = nn.Sequential(conv_norm_act(cin, o2, 1, 1, s), conv_norm_act(o2, o2, max(3, k), stride, s))
            self.b3 = nn.Sequential(nn.MaxPool2d(3, stride, 1), conv_norm_act(cin, o3, 1, 1, s))
            self.body = None
            self.post = conv_norm_act(o1 + o2 + o3, cout, 1, 1, s) if o1 + o2 + o3 != cout else nn.Identity()
        else:
            raise ValueError(t)
        self.out_act = act(s["act"]) if self.add else nn.Identity()

    def forward(self, x):
        if self.body is None:
            return self.post(torch.cat([self.b1(x), self.b2(x), self.b3(x)], dim=1))
        y = self.body(x)
        if self.add:
            y = self.out_act(y + (self.skip(x) if self.skip is not None else x))
        return y


def build_cnn2d(s):
    cin = s["input"]["shape"][0]
    st = s["stem"]
    layers = [conv_norm_act(cin, st["out"], st["k"], st["stride"], s)]
    c = st["out"]
    for stage in s["stages"]:
        for i, b in enumerate(stage["blocks"]):
            layers.append(Block(c, stage["out"], stage["stride"] if i == 0 else 1, b, s))
            c = stage["out"]
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, s["classes"])]
    return nn.Sequential(*layers)


# ---------------------------------------------------------------- 1-D and 3-D CNNs
def build_cnn1d(s):
    c, length = s["input"]["shape"]
    layers = []
    for lay in s["layers"]:
        stride = lay["stride"] if length >= 8 else 1
        k, d = lay["k"], lay["dilation"]
        layers += [nn.Conv1d(c, lay["out"], k, stride, d * (k - 1) // 2, dilation=d, bias=s["norm"] == "none"),
                   nn.BatchNorm1d(lay["out"]) if s["norm"] == "bn" else nn.Identity(), act(s["act"])]
        length = (length - 1) // stride + 1
        if lay["pool"] != "none" and length >= 4:
            layers.append(nn.MaxPool1d(2) if lay["pool"] == "max" else nn.AvgPool1d(2))
            length //= 2
        c = lay["out"]
    layers += [nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(c, s["classes"])]
    return nn.Sequential(*layers)


def build_cnn3d(s):
    c = s["input"]["shape"][0]
    layers = []
    for lay in s["layers"]:
        k = lay["k"]
        layers += [nn.Conv3d(c, lay["out"], k, lay["stride"], k // 2, bias=s["norm"] == "none"),
                   nn.BatchNorm3d(lay["out"]) if s["norm"] == "bn" else nn.Identity(), act(s["act"])]
        c = lay["out"]
    layers += [nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(c, s["classes"])]
    return nn.Sequential(*layers)


# ---------------------------------------------------------------- encoder-decoder
class UNet(nn.Module):
    def __init__(self, s):
        super().__init__()
        cin = s["input"]["shape"][0]
        widths = [s["base"] * 2 ** i for i in range(s["levels"] + 1)]

        def double(a, b):
            return nn.Sequential(conv_norm_act(a, b, 3, 1, s), conv_norm_act(b, b, 3, 1, s))

        self.enc = nn.ModuleList()
        c = cin
        for w in widths[:-1]:
            self.enc.append(double(c, w))
            c = w
        self.mid = double(c, widths[-1])
        self.ups, self.dec = nn.ModuleList(), nn.ModuleList()
        for i in range(s["levels"] - 1, -1, -1):
            hi, lo = widths[i + 1], widths[i]
            if s["up"] == "transposed":
                self.ups.append(nn.ConvTranspose2d(hi, lo, 2, stride=2))
            else:
                kw = {} if s["up"] == "nearest" else {"align_corners": False}
                self.ups.append(nn.Sequential(nn.Upsample(scale_factor=2, mode=s["up"], **kw),
                                              nn.Conv2d(hi, lo, 1)))
            self.dec.append(double(2 * lo, lo))
        self.head = nn.Conv2d(widths[0], s["out"], 1)

    def forward(self, x):
        skips = []
        for enc in self.enc:
            x = enc(x)
            skips.append(x)
            x = F.max_pool2d(x, 2)
        x = self.mid(x)
        for up, dec in zip(self.ups, self.dec):
            x = dec(torch.cat([up(x), skips.pop()], dim=1))
        return self.head(x)


# ---------------------------------------------------------------- MLP and RNN
def build_mlp(s):
    c = s["input"]["shape"][0]
    layers = []
    for w in s["widths"]:
        layers.append(nn.Linear(c, w))
        if s["layer_norm"]:
            layers.append(nn.LayerNorm(w))
        layers.append(act(s["act"]))
        if s["dropout"]:
            layers.append(nn.Dropout(0.1))
        c = w
    layers.append(nn.Linear(c, s["classes"]))
    return nn.Sequential(*layers)


class TokenRnn(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.embed = nn.Embedding(s["input"]["vocab"], s["embed"])
        rnn = nn.LSTM if s["cell"] == "lstm" else nn.GRU
        self.rnn = rnn(s["embed"], s["hidden"], num_layers=s["layers"], batch_first=True,
                       bidirectional=s["bidirectional"])
        self.head = nn.Linear(s["hidden"] * (2 if s["bidirectional"] else 1), s["classes"])

    def forward(self, x):
        y, _ = self.rnn(self.embed(x))
        return self.head(y[:, -1, :])


# ---------------------------------------------------------------- hand-written attention
class AttnBlock(nn.Module):
    def __init__(self, dim, s):
        super().__init__()
        self.heads, self.style, self.causal, self.pre = s["heads"], s["style"], s["causal"], s["pre_norm"]
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, s["mlp_ratio"] * dim), nn.GELU(), nn.Linear(s["mlp_ratio"] * dim, dim))

    def attend(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        if self.style == "sdpa":
            y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        else:
            a = (q @ k.transpose(-2, -1)) * (d // self.heads) ** -0.5
            if self.causal:
                mask = torch.ones(n, n, dtype=torch.bool, device=x.device).triu(1)
                a = a.masked_fill(mask, float("-inf"))
            y = a.softmax(-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, n, d))

    def forward(self, x):
        if self.pre:
            x = x + self.attend(self.ln1(x))
            return x + self.mlp(self.ln2(x))
        x = self.ln1(x + self.attend(x))
        return self.ln2(x + self.mlp(x))


def build_attn(s):
    dim = s["input"]["shape"][1]
    return nn.Sequential(*[AttnBlock(dim, s) for _ in range(s["layers"])])


# ---------------------------------------------------------------- Hugging Face
class HfWrapper(nn.Module):
    """model(**{kwarg: x}).last_hidden_state, so every corpus model has forward(x)."""

    def __init__(self, model, kwarg):
        super().__init__()
        self.model, self.kwarg = model, kwarg

    def forward(self, x):
        return self.model(**{self.kwarg: x}).last_hidden_state


def hf_model(s):
    import transformers as tf
    c, fam, seq = s["config"], s["family"], s["input"]["shape"][0]
    common = dict(attn_implementation=s["attn"])
    if fam == "bert":
        cfg = tf.BertConfig(vocab_size=c["vocab"], hidden_size=c["hidden"], num_hidden_layers=c["layers"],
                            num_attention_heads=c["heads"], intermediate_size=c["ffn"],
                            max_position_embeddings=512, **common)
        return tf.BertModel(cfg, add_pooling_layer=False), "input_ids"
    if fam == "roberta":
        cfg = tf.RobertaConfig(vocab_size=c["vocab"], hidden_size=c["hidden"], num_hidden_layers=c["layers"],
                               num_attention_heads=c["heads"], intermediate_size=c["ffn"],
                               max_position_embeddings=514, **common)
        return tf.RobertaModel(cfg, add_pooling_layer=False), "input_ids"
    if fam == "distilbert":
        cfg = tf.DistilBertConfig(vocab_size=c["vocab"], dim=c["hidden"], n_layers=c["layers"],
                                  n_heads=c["heads"], hidden_dim=c["ffn"], max_position_embeddings=512, **common)
        return tf.DistilBertModel(cfg), "input_ids"
    if fam == "gpt2":
        cfg = tf.GPT2Config(vocab_size=c["vocab"], n_embd=c["hidden"], n_layer=c["layers"], n_head=c["heads"],
                            n_inner=c["ffn"], n_positions=1024, use_cache=False, **common)
        return tf.GPT2Model(cfg), "input_ids"
    if fam == "gpt_neox":
        cfg = tf.GPTNeoXConfig(vocab_size=c["vocab"], hidden_size=c["hidden"], num_hidden_layers=c["layers"],
                               num_attention_heads=c["heads"], intermediate_size=c["ffn"],
                               max_position_embeddings=2048, use_cache=False, **common)
        return tf.GPTNeoXModel(cfg), "input_ids"
    if fam in ("llama", "mistral"):
        conf = tf.LlamaConfig if fam == "llama" else tf.MistralConfig
        model = tf.LlamaModel if fam == "llama" else tf.MistralModel
        cfg = conf(vocab_size=c["vocab"], hidden_size=c["hidden"], intermediate_size=c["ffn"],
                   num_hidden_layers=c["layers"], num_attention_heads=c["heads"],
                   num_key_value_heads=c["kv_heads"], max_position_embeddings=2048, use_cache=False, **common)
        return model(cfg), "input_ids"
    if fam == "t5":
        cfg = tf.T5Config(vocab_size=c["vocab"], d_model=c["hidden"], d_kv=c["d_kv"], d_ff=c["ffn"],
                          num_layers=c["layers"], num_heads=c["heads"], use_cache=False,
                          feed_forward_proj="gated-gelu" if c["gated"] else "relu", **common)
        return tf.T5EncoderModel(cfg), "input_ids"
    if fam == "whisper":
        cfg = tf.WhisperConfig(num_mel_bins=c["mels"], d_model=c["hidden"], encoder_layers=c["layers"],
                               encoder_attention_heads=c["heads"], encoder_ffn_dim=c["ffn"],
                               decoder_layers=1, decoder_attention_heads=c["heads"],
                               max_source_positions=c["positions"], use_cache=False, **common)
        return tf.WhisperModel(cfg).get_encoder(), "input_features"
    if fam in ("vit", "deit"):
        conf = tf.ViTConfig if fam == "vit" else tf.DeiTConfig
        model = tf.ViTModel if fam == "vit" else tf.DeiTModel
        cfg = conf(hidden_size=c["hidden"], num_hidden_layers=c["layers"], num_attention_heads=c["heads"],
                   intermediate_size=c["ffn"], image_size=c["image"], patch_size=c["patch"], **common)
        return model(cfg, add_pooling_layer=False), "pixel_values"
    if fam == "swin":
        cfg = tf.SwinConfig(image_size=c["image"], patch_size=4, embed_dim=c["embed"], depths=c["depths"],
                            num_heads=c["heads"], window_size=c["window"], **common)
        return tf.SwinModel(cfg, add_pooling_layer=False), "pixel_values"
    raise ValueError(fam)


BUILDERS = {"cnn2d": build_cnn2d, "cnn1d": build_cnn1d, "cnn3d": build_cnn3d, "encdec": UNet,
            "mlp": build_mlp, "rnn": TokenRnn, "attn": build_attn}


def build(name):
    """The torch module of corpus model NAME (fp32, on the CPU), forward(x)."""
    s = corpus.spec(name)
    if s["family"] in corpus.HF_FAMILIES:
        model, kwarg = hf_model(s)
        return HfWrapper(model, kwarg)
    return BUILDERS[s["family"]](s)


def make_input(name, batch=None, dtype="fp32", device="cuda", seq=None):
    """A random input of NAME at BATCH (the spec's batch by default)."""
    s = corpus.spec(name)
    shape = corpus.input_shape(s, batch)
    if seq is not None:
        shape[1] = seq
    if s["input"]["kind"] == "tokens":
        return torch.randint(0, s["input"]["vocab"], shape, device=device)
    fdt = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[dtype]
    return torch.randn(*shape, device=device, dtype=fdt)
