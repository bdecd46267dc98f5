// Generates the TypeScript/JavaScript gRPC stubs of A2A 1.0 from proto/a2a.proto with buf and
// protoc-gen-es (both from npm: @bufbuild/buf ships the compiler, so no system protoc is needed).
//
//     node generate.mjs [--out DIR]     (default: tests/grpc-stubs/node/generated, gitignored)
//
// Writes a2a_pb.ts and the google/api files it imports into DIR (emptied first), TypeScript that
// client.ts is compiled with (tsc, tsconfig.json); the google/protobuf well-known types come from
// @bufbuild/protobuf/wkt. `target=js+dts` instead gives JavaScript. The output imports
// @bufbuild/protobuf, so DIR must be somewhere node resolves this package's node_modules from (the
// default is).

import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const outArg = process.argv.indexOf("--out");
const out = resolve(outArg > 0 ? process.argv[outArg + 1] : join(here, "generated"));

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const template = {
  version: "v2",
  plugins: [
    {
      local: join(here, "node_modules/.bin/protoc-gen-es"),
      out,
      opt: ["target=ts", "import_extension=js"],
    },
  ],
};
execFileSync(
  join(here, "node_modules/.bin/buf"),
  ["generate", "proto", "--path", "proto/a2a.proto", "--include-imports", "--template", JSON.stringify(template)],
  { cwd: root, stdio: "inherit" },
);
console.log(`generate: stubs in ${out}`);
