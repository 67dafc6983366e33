#!/usr/bin/env python3
"""Writes the hostile ONNX models of this folder (issue 24) without the onnx
package: a few protobuf fields encoded by hand (onnx.proto field numbers).

    python3 tests/data/hostile/make_hostile_models.py
"""
import os
import struct

OUT = os.path.dirname(os.path.abspath(__file__))
FLOAT = 1


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, payload):
    """Length-delimited field (wire type 2)."""
    if isinstance(payload, str):
        payload = payload.encode()
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def int_field(num, value):
    return varint(num << 3) + varint(value)


def tensor_type(dims):
    shape = b"".join(field(1, int_field(1, d)) for d in dims)  # Dimension.dim_value
    return field(1, int_field(1, FLOAT) + field(2, shape))     # TypeProto.tensor_type


def value_info(name, dims):
    return field(1, name) + field(2, tensor_type(dims))


def initializer(name, dims):
    count = 1
    for d in dims:
        count *= d
    body = b"".join(int_field(1, d) for d in dims) + int_field(2, FLOAT) + field(8, name)
    return body + field(9, struct.pack("<f", 0.0) * count)  # raw_data


def node(name, op, inputs, outputs, domain="", ints_attrs=None):
    body = b"".join(field(1, i) for i in inputs) + b"".join(field(2, o) for o in outputs)
    body += field(3, name) + field(4, op)
    for key, values in (ints_attrs or {}).items():
        # AttributeProto: name 1, ints 8, type 20 (INTS = 7)
        attr = field(1, key) + b"".join(int_field(8, v) for v in values) + int_field(20, 7)
        body += field(5, attr)
    if domain:
        body += field(7, domain)
    return body


def model(name, nodes, inputs, outputs, inits=(), opsets=(("", 17),)):
    graph = b"".join(field(1, n) for n in nodes) + field(2, name)
    graph += b"".join(field(5, t) for t in inits)
    graph += b"".join(field(11, value_info(n, d)) for n, d in inputs)
    graph += b"".join(field(12, value_info(n, d)) for n, d in outputs)
    out = int_field(1, 8)  # ir_version
    for domain, version in opsets:
        out += field(8, (field(1, domain) if domain else b"") + int_field(2, version))
    return out + field(7, graph)


def save(filename, data):
    with open(os.path.join(OUT, filename), "wb") as f:
        f.write(data)


def main():
    # Case 3: a 7x7 kernel over a 4x4 input padded to 6x6.
    save("conv_kernel_larger_than_input.onnx", model(
        "conv_big_kernel",
        [node("big_conv", "Conv", ["x", "w"], ["y"], ints_attrs={"pads": [1, 1, 1, 1]})],
        [("x", [1, 3, 4, 4])], [("y", [1, 4, 1, 1])], inits=[initializer("w", [4, 3, 7, 7])]))
    # Case 4: an op of a private domain named like an ONNX op, with the
    # output shape declared so that only the op's identity is wrong.
    save("foreign_domain_relu.onnx", model(
        "evil_relu",
        [node("evil_relu", "Relu", ["x"], ["y"], domain="evil.domain")],
        [("x", [1, 64])], [("y", [1, 64])], opsets=(("", 17), ("evil.domain", 1))))


if __name__ == "__main__":
    main()
