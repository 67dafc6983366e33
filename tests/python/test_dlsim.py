#!/usr/bin/env python3
"""The Python module `dlsim` (python/, docs/python.md) against the CLI.

Run by ctest as `python_module` (label `python`), from the repository root
with PYTHONPATH set to the build's module folder (build/python) and
DLSIM_BINARY to build/dlsim. By hand:
  PYTHONPATH=build/python DLSIM_BINARY=build/dlsim python3 tests/python/test_dlsim.py
"""
import csv
import io
import json
import os
import subprocess
import unittest
import warnings

import dlsim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DLSIM = os.environ.get("DLSIM_BINARY", os.path.join(ROOT, "build", "dlsim"))
RESNET50 = "tests/data/zoo/resnet50.onnx"
TINY_CNN = "tests/data/models/tiny_cnn_opset17.onnx"
WORKLOAD = "workloads/resnet50-imagenet.yaml"


def cli(*args):
    out = subprocess.run([DLSIM, *args], cwd=ROOT, check=True, capture_output=True, text=True)
    return out.stdout


class EstimateTest(unittest.TestCase):
    def test_same_numbers_as_the_cli_json(self):
        got = dlsim.estimate(RESNET50, machine="h100", batch=16)
        want = json.loads(cli("estimate", RESNET50, "--machine", "h100", "--batch", "16",
                              "--format", "json"))
        self.assertEqual(got, want)  # every field, every layer and call, same numbers
        self.assertGreater(got["gpu_time_ms"], 0)
        self.assertEqual(got["batch"], 16)

    def test_training_options_as_the_cli(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dlsim.DlsimWarning)
            got = dlsim.estimate(TINY_CNN, machine="machines/a100.yaml", batch=8, dtype="bf16",
                                 mode="training", optimizer="adamw", amp=True)
        want = json.loads(cli("estimate", TINY_CNN, "--machine", "machines/a100.yaml",
                              "--batch", "8", "--dtype", "bf16", "--mode", "training",
                              "--optimizer", "adamw", "--amp", "--format", "json"))
        self.assertEqual(got, want)
        self.assertEqual(got["mode"], "training")

    def test_inputs_need_grad_as_the_cli(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dlsim.DlsimWarning)
            got = dlsim.estimate(TINY_CNN, batch=8, mode="training", inputs_need_grad=True)
            whole = dlsim.estimate(TINY_CNN, batch=8, mode="training")
        want = json.loads(cli("estimate", TINY_CNN, "--batch", "8", "--mode", "training",
                              "--inputs-need-grad", "--format", "json"))
        self.assertEqual(got, want)
        # the first convolution's data gradient runs only for a block's input
        self.assertGreater(got["gpu_time_ms"], whole["gpu_time_ms"])

    def test_recompute_as_the_cli(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dlsim.DlsimWarning)
            got = dlsim.estimate(TINY_CNN, batch=8, mode="training", recompute="full")
        want = json.loads(cli("estimate", TINY_CNN, "--batch", "8", "--mode", "training",
                              "--recompute", "full", "--format", "json"))
        self.assertEqual(got, want)
        self.assertEqual(got["memory"]["recompute"], "full")

    def test_host_profile_as_the_cli(self):
        host = "tests/data/hosts/flat.yaml"
        got = dlsim.estimate(TINY_CNN, batch=8, host=host)
        want = json.loads(cli("estimate", TINY_CNN, "--batch", "8", "--host", host, "--format", "json"))
        self.assertEqual(got, want)
        self.assertAlmostEqual(got["host_dispatch_ms"], 0.010 * len(got["layers"]), places=12)

    def test_dims_and_inputs_as_the_cli(self):
        model = "tests/data/models/attention_opset17.onnx"
        got = dlsim.estimate(model, dims={"batch": 2, "sequence": 16})
        want = json.loads(cli("estimate", model, "--dim", "batch=2", "--dim", "sequence=16",
                              "--format", "json"))
        self.assertEqual(got, want)
        got = dlsim.estimate(model, inputs=["x:2x16x64"], dtype="fp16")
        want = json.loads(cli("estimate", model, "--input", "x:2x16x64", "--dtype", "fp16",
                              "--format", "json"))
        self.assertEqual(got, want)

    def test_warnings_as_python_warnings(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            e = dlsim.estimate("tests/data/zoo/vgg16.onnx", batch=2048)
        self.assertTrue(e["warnings"])
        self.assertEqual([str(w.message) for w in caught], e["warnings"])
        self.assertTrue(all(w.category is dlsim.DlsimWarning for w in caught))

    def test_model_batch_by_default(self):
        self.assertEqual(dlsim.estimate(TINY_CNN)["batch"],
                         json.loads(cli("estimate", TINY_CNN, "--format", "json"))["batch"])


class SweepTest(unittest.TestCase):
    def test_rows_as_the_cli_csv(self):
        rows = dlsim.sweep(WORKLOAD, machine="h100",
                           grid={"memory_bw": ["x1", "x2"], "matrix_peak": ["x1", 2]})
        want = list(csv.DictReader(io.StringIO(cli(
            "sweep", WORKLOAD, "--machine", "h100", "--grid", "memory_bw=x1,x2",
            "--grid", "matrix_peak=x1,2", "--format", "csv"))))
        self.assertEqual(len(rows), 4)  # 2 x 2 variants x 1 workload
        self.assertEqual(len(rows), len(want))
        for got, w in zip(rows, want):
            self.assertEqual(list(got), list(w))  # same columns, same order
            for k, v in w.items():
                if isinstance(got[k], int):
                    self.assertEqual(got[k], int(v), msg=k)
                elif isinstance(got[k], float):
                    # the CSV prints 9 significant digits (%.9g); the rows carry the doubles
                    self.assertAlmostEqual(got[k], float(v), delta=abs(float(v)) * 1e-8, msg=k)
                else:
                    self.assertEqual(got[k], v, msg=k)
        base = [r for r in rows if r["memory_bw"] == "x1" and r["matrix_peak"] == "x1"]
        self.assertAlmostEqual(base[0]["fom"], 1.0, places=9)

    def test_grid_as_specs(self):
        rows = dlsim.sweep([WORKLOAD], machine="h100", grid=["memory_bw=x1,x1.5"], threads=1)
        self.assertEqual([r["memory_bw"] for r in rows], ["x1", "x1.5"])


class ScaleTest(unittest.TestCase):
    JOB = os.path.join(ROOT, "workloads", "llm", "gpt3-175b.yaml")

    def test_same_numbers_as_the_cli_json(self):
        got = dlsim.scale(self.JOB, machine="a100", recompute="selective",
                          sequence_parallel=True)
        want = json.loads(cli("scale", self.JOB, "--machine", "a100", "--recompute", "selective",
                              "--sequence-parallel", "true", "--format", "json"))
        self.assertEqual(got, want)

    def test_search_keeps_given_options(self):
        got = dlsim.scale(self.JOB, machine="a100", search=True, gpus=512, tensor=8, top=3)
        want = json.loads(cli("scale", self.JOB, "--machine", "a100", "--search", "--gpus", "512",
                              "--tensor", "8", "--top", "3", "--format", "json"))
        self.assertEqual(got, want)
        self.assertTrue(all(l["plan"]["tensor"] == 8 for l in got["layouts"]))

    def test_hybrid_sharding_as_the_cli(self):
        got = dlsim.scale(self.JOB, machine="a100", zero=1, zero_shard=4)
        want = json.loads(cli("scale", self.JOB, "--machine", "a100", "--zero", "1",
                              "--zero-shard", "4", "--format", "json"))
        self.assertEqual(got, want)
        self.assertEqual(got["plan"]["zero_shard"], 4)

    def test_bad_layout_names_the_field(self):
        with self.assertRaises(dlsim.Error) as e:
            dlsim.scale(self.JOB, tensor=5)
        self.assertIn("parallel.tensor", str(e.exception))


class ErrorTest(unittest.TestCase):
    def test_missing_model_names_the_file(self):
        with self.assertRaises(dlsim.Error) as cm:
            dlsim.estimate("tests/data/no_such_model.onnx", machine="h100", batch=16)
        self.assertIn("no_such_model.onnx", str(cm.exception))
        self.assertIsInstance(cm.exception, ValueError)

    def test_missing_machine_names_the_file(self):
        with self.assertRaisesRegex(ValueError, "no_such_machine.yaml"):
            dlsim.estimate(TINY_CNN, machine="machines/no_such_machine.yaml")

    def test_bad_options_carry_the_message(self):
        with self.assertRaisesRegex(dlsim.Error, "--dtype must be fp32, tf32, fp16 or bf16"):
            dlsim.estimate(TINY_CNN, dtype="fp64")
        with self.assertRaisesRegex(dlsim.Error, "--batch must be a positive integer, got '0'"):
            dlsim.estimate(TINY_CNN, batch=0)
        with self.assertRaisesRegex(dlsim.Error, "--mode must be inference or training"):
            dlsim.estimate(TINY_CNN, mode="serving")

    def test_bad_model_file(self):
        with self.assertRaisesRegex(dlsim.Error, "bad_cycle.onnx"):
            dlsim.estimate("tests/data/models/bad_cycle.onnx")

    def test_sweep_errors(self):
        with self.assertRaisesRegex(dlsim.Error, "no_such_workload.yaml"):
            dlsim.sweep("workloads/no_such_workload.yaml", machine="h100",
                        grid={"memory_bw": ["x1"]})
        with self.assertRaisesRegex(dlsim.Error, "warp_speed"):
            dlsim.sweep(WORKLOAD, machine="h100", grid={"warp_speed": ["x2"]})


def cli_error(*args):
    """The stderr of a dlsim command that must fail."""
    out = subprocess.run([DLSIM, *args], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode != 0, args
    return out.stderr


class RefusalTest(unittest.TestCase):
    """Every option the command line refuses raises dlsim.Error, the same message."""

    # (dlsim.estimate keywords, the same as `dlsim estimate` options)
    ESTIMATE = [
        (dict(dtype="fp16", tf32="all"), ["--dtype", "fp16", "--tf32", "all"]),
        (dict(dtype="bf16", tf32="none"), ["--dtype", "bf16", "--tf32", "none"]),
        (dict(optimizer="adamw"), ["--optimizer", "adamw"]),
        (dict(mode="inference", optimizer="sgd_momentum"),
         ["--mode", "inference", "--optimizer", "sgd_momentum"]),
        (dict(per_tensor_optimizer=True), ["--per-tensor-optimizer"]),
        (dict(inputs_need_grad=True), ["--inputs-need-grad"]),
        (dict(mode="training", zero=2), ["--mode", "training", "--zero", "2"]),
        (dict(gpus=4), ["--gpus", "4"]),
        (dict(recompute="full"), ["--recompute", "full"]),
        (dict(checkpoint_activations=True), ["--checkpoint-activations"]),
        (dict(mode="training", recompute="selective", checkpoint_activations=True),
         ["--mode", "training", "--recompute", "selective", "--checkpoint-activations"]),
        (dict(amp=True), ["--amp"]),
    ]

    def test_each_estimate_refusal_as_the_cli(self):
        for kwargs, args in self.ESTIMATE:
            with self.subTest(args=" ".join(args)):
                with self.assertRaises(dlsim.Error) as cm:
                    dlsim.estimate(TINY_CNN, batch=8, **kwargs)
                self.assertIsInstance(cm.exception, ValueError)
                self.assertIn(str(cm.exception), cli_error("estimate", TINY_CNN, "--batch", "8", *args))

    def test_the_messages(self):
        with self.assertRaises(dlsim.Error) as cm:
            dlsim.estimate(TINY_CNN, dtype="fp16", tf32="all")
        self.assertEqual(str(cm.exception),
                         "--tf32 does not apply with --dtype fp16 (TF32 is a math mode of fp32 "
                         "convolutions and GEMMs, which run in fp16 here, --amp or not)")
        with self.assertRaises(dlsim.Error) as cm:
            dlsim.estimate(TINY_CNN, optimizer="adamw")
        self.assertEqual(str(cm.exception),
                         "--optimizer does not apply with inference (the default --mode) (an "
                         "optimizer, a loss and gradients run in training only: add --mode "
                         "training)")
        with self.assertRaises(dlsim.Error) as cm:
            dlsim.estimate(TINY_CNN, loss="cross_entropy")
        self.assertIn("--loss does not apply with inference", str(cm.exception))

    def test_the_defaults_are_not_refused(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dlsim.DlsimWarning)
            self.assertEqual(dlsim.estimate(TINY_CNN, batch=8, dtype="fp16")["dtype"], "fp16")
            self.assertEqual(dlsim.estimate(TINY_CNN, batch=8, mode="training",
                                            optimizer="adamw")["mode"], "training")

    def test_scale_top_without_search(self):
        with self.assertRaises(dlsim.Error) as cm:
            dlsim.scale(ScaleTest.JOB, machine="a100", top=3)
        self.assertEqual(str(cm.exception), "--top does not apply with no --search (it is the "
                         "number of searched layouts to list)")
        self.assertIn(str(cm.exception), cli_error("scale", ScaleTest.JOB, "--machine", "a100",
                                                   "--top", "3"))

    def test_scale_gpus_without_search(self):
        with self.assertRaises(dlsim.Error) as cm:
            dlsim.scale(ScaleTest.JOB, machine="a100", gpus=7)
        self.assertIn("--gpus 7 differs from tensor x pipeline x data", str(cm.exception))
        self.assertIn(str(cm.exception), cli_error("scale", ScaleTest.JOB, "--machine", "a100",
                                                   "--gpus", "7"))


if __name__ == "__main__":
    os.chdir(ROOT)
    unittest.main(verbosity=2)
