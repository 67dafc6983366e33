"""dlsim from Python: estimate a model on a GPU, sweep what-if machines.

    import dlsim
    e = dlsim.estimate("tests/data/zoo/resnet50.onnx", machine="h100", batch=16)
    e["gpu_time_ms"]          # the fields of `dlsim estimate --format json`
    rows = dlsim.sweep("workloads/resnet50-imagenet.yaml", machine="h100",
                       grid={"memory_bw": ["x1", "x2"]})   # pandas.DataFrame(rows)
    s = dlsim.scale("workloads/llm/gpt3-175b.yaml", machine="a100")
    s["step_s"]               # the fields of `dlsim scale --format json`

Bad input (a missing file, a bad field or node, a wrong option) raises
dlsim.Error, a ValueError whose message is the one `dlsim` prints (it names
the file, node or field, and options as the command line spells them);
an internal failure raises RuntimeError. docs/python.md has the details.
"""
import json
import os
import warnings

from . import _dlsim

__all__ = ["estimate", "sweep", "scale", "Error", "DlsimWarning"]
__version__ = "0.1.0"

Error = _dlsim.Error
Error.__module__ = __name__  # dlsim.Error in tracebacks


class DlsimWarning(UserWarning):
    """A warning of the estimate (an op priced roughly, memory over the device)."""


def _path(p):
    return os.fspath(p)


def _shape_text(shape):
    if isinstance(shape, str):
        return shape
    return "x".join(str(int(d)) for d in shape)


def _specs(value, sep, fmt):
    """A dict {name: value} or a list of ready-made specs as a list of specs."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [f"{k}{sep}{fmt(v)}" for k, v in value.items()]
    return [str(v) for v in value]


def _number_text(v):
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return v if isinstance(v, str) else repr(v)


def estimate(model, machine="h100", batch=None, *, inputs=None, dims=None, dtype="fp32",
             tf32=None, mode=None, optimizer=None, loss=None,
             per_tensor_optimizer=False, gpus=1, strict=False, fuse=False, amp=False,
             checkpoint_activations=False, recompute="none", zero=0, layout="nchw", host=None,
             inputs_need_grad=False, warn=True):
    """`dlsim estimate MODEL --format json` as a dict (docs/json-output.md).

    model: the ONNX file. machine: a bundled name (h100, a100, ...) or a
    machine YAML path. batch: dim 0 of every input (None: the model's own).
    inputs: {name: (d1, d2, ...)} or ["NAME:D1xD2", ...] (--input).
    dims: {name: n} or ["NAME=N", ...] (--dim). dtype: fp32, tf32, fp16,
    bf16. tf32: None, "none", "conv", "all". mode: inference (None, the
    default) or training; optimizer (None: sgd_momentum), loss (None:
    "mean"; "none", "cross_entropy"), per_tensor_optimizer, gpus, recompute ("none", "selective", "full"),
    checkpoint_activations (recompute="full"), inputs_need_grad (the
    model is a block of a larger one: its inputs carry gradients): training;
    zero: ZeRO stage (0-3) across the `gpus` data-parallel GPUs.
    strict, fuse, amp, layout: as the options of the same names.
    host: a host profile YAML (--host; what `dlsim-calibrate host` writes).
    warn: also issue the estimate's warnings as DlsimWarning.
    An option that has no effect with the others (optimizer outside
    training, tf32 with fp16, zero without gpus, ...) raises dlsim.Error
    with the message the command line gives.
    """
    given = [flag for flag, value in (("--tf32", tf32), ("--mode", mode), ("--optimizer", optimizer),
                                                  ("--loss", loss))
             if value is not None]
    if per_tensor_optimizer:
        given.append("--per-tensor-optimizer")
    if inputs_need_grad:
        given.append("--inputs-need-grad")
    text = _dlsim.estimate_json(
        model=_path(model), machine=_path(machine),
        batch=None if batch is None else str(batch),
        inputs=_specs(inputs, ":", _shape_text), dims=_specs(dims, "=", str),
        dtype=dtype, tf32=tf32 or "", mode=mode or "inference",
        optimizer=optimizer or "sgd_momentum", loss=loss or "mean",
        per_tensor_optimizer=bool(per_tensor_optimizer), gpus=int(gpus), strict=bool(strict),
        fuse=bool(fuse), amp=bool(amp), checkpoint_activations=bool(checkpoint_activations),
        layout=layout, zero=int(zero), recompute=recompute, given=given,
        host="" if host is None else _path(host), inputs_need_grad=bool(inputs_need_grad))
    result = json.loads(text)
    if warn:
        for w in result.get("warnings", []):
            warnings.warn(w, DlsimWarning, stacklevel=2)
    return result


def sweep(workloads, machine=None, grid=None, *, threads=0):
    """`dlsim sweep WORKLOADS --machine M --grid ...` as a list of row dicts.

    workloads: a workload or FOM study YAML file, or a list of them.
    machine: the base machine, a bundled name or a YAML path (None: the
    study's target). grid: {field: [values]} or ["FIELD=V1,V2", ...]; a
    value "x1.5" multiplies the base figure, a number sets it (SI units).
    One row per variant and workload, the columns of `dlsim sweep --format
    csv`: variant, one per grid field (the value as written), workload,
    model, machine, batch, dtype, mode, step_time_s, step_p10_s, step_p90_s,
    unit_time_s, unit_time_p10_s, unit_time_p90_s, units_per_day, fom,
    h_rate_low, h_rate_high, share_measured, share_fitted, share_scaled,
    share_roofline, warnings (docs/fom.md, "Provenance").
    pandas.DataFrame(rows).
    """
    if isinstance(workloads, (str, os.PathLike)):
        workloads = [workloads]
    specs = _specs(grid, "=", lambda vs: ",".join(
        _number_text(v) for v in ([vs] if isinstance(vs, (str, int, float)) else vs)))
    return _dlsim.sweep_rows(files=[_path(w) for w in workloads],
                             machine="" if machine is None else _path(machine),
                             grid=specs, threads=int(threads))


def scale(job, machine="h100", *, tensor=None, pipeline=None, data=None, virtual_stages=None,
          microbatch=None, global_batch=None, recompute=None, sequence_parallel=None,
          zero=None, zero_shard=None, overlap_grad_reduce=False, search=False, gpus=None,
          top=None):
    """`dlsim scale JOB --format json` as a dict (docs/parallel.md).

    job: a training job YAML (model and parallel sections). machine: a
    bundled name or a machine YAML path. The layout keywords replace the
    job's; with search=True they stay fixed and the rest is searched over
    `gpus` GPUs (zero_shard: hybrid sharding's group, as --zero-shard): the result is then {"evaluated", "fitting", "layouts": [...]},
    the fastest `top` (None: 10) layouts that fit, fastest first. top
    without search, or gpus without search other than the layout's, raises
    dlsim.Error.
    """
    sp = "" if sequence_parallel is None else ("true" if sequence_parallel else "false")
    text = _dlsim.scale_json(
        job=_path(job), machine=_path(machine), tensor=int(tensor or 0),
        pipeline=int(pipeline or 0), data=int(data or 0),
        virtual_stages=int(virtual_stages or 0), microbatch=int(microbatch or 0),
        global_batch=int(global_batch or 0), recompute=recompute or "",
        sequence_parallel=sp, zero=-1 if zero is None else int(zero),
        overlap_grad_reduce=bool(overlap_grad_reduce), search=bool(search),
        gpus=int(gpus or 0), top=10 if top is None else int(top),
        given=[] if top is None else ["--top"], zero_shard=int(zero_shard or 0))
    return json.loads(text)
