"""Generates the Python gRPC stubs of A2A 1.0 from proto/a2a.proto with grpcio-tools.

    python generate.py [--out DIR]     (default: tests/grpc-stubs/generated/python, gitignored)

Writes a2a_pb2.py, a2a_pb2.pyi and a2a_pb2_grpc.py into DIR (emptied first). The google/api
imports resolve against proto/ at generation time; at run time the generated module imports
google.api.* from googleapis-common-protos (see requirements.txt). The google/protobuf
well-known types come with grpcio-tools, so no system protoc is needed.
"""

import argparse
import pathlib
import shutil
import sys

import grpc_tools
from grpc_tools import protoc

HERE = pathlib.Path(__file__).resolve().parent
PROTO = HERE.parent.parent.parent / "proto"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=HERE.parent / "generated" / "python")
    out = parser.parse_args().out.resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    well_known = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    args = [
        "grpc_tools.protoc",
        f"--proto_path={PROTO}",
        f"--proto_path={well_known}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        str(PROTO / "a2a.proto"),
    ]
    code = protoc.main(args)
    if code != 0:
        print(f"generate: protoc failed ({code}): {' '.join(args)}", file=sys.stderr)
        return 1
    print(f"generate: stubs in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
