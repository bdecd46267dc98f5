//! Code generation from `proto/` into `crates/a2a-proto/src/generated/`.
//!
//! Pure Rust (protox parses the protos; no `protoc` on the machine), run by hand and checked in, as
//! tonic does for its own generated crates. Outputs:
//! - `lf.a2a.v1.rs`: prost messages (the one type system), with `google.protobuf` mapped to
//!   `pbjson-types` so the same structs serve protobuf and ProtoJSON;
//! - `lf.a2a.v1.serde.rs`: pbjson's ProtoJSON `Serialize`/`Deserialize` impls, ignoring unknown
//!   fields (spec 5.7);
//! - `lf.a2a.v1.tonic.rs`: tonic client and server stubs for `A2AService`, referring to the messages
//!   above and encoding them with a2a-proto's codec (`src/codec.rs`), compiled only with the `grpc`
//!   feature of a2a-proto;
//! - `a2a_descriptor.bin`: the encoded `FileDescriptorSet`, imports included, for gRPC reflection;
//! - `v0_3/`: the same four files for A2A 0.3's package `a2a.v1` (`proto/v0.3/a2a.proto`), served
//!   beside 1.0 (compiled only with the `v0_3` feature of a2a-proto).
//!
//! Nothing here edits generated text: every output is the generators' own.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use prost::Message;

const PACKAGE: &str = ".lf.a2a.v1";

pub(crate) fn run(root: &Path, check: bool) -> Result<()> {
    let target = root.join("crates/a2a-proto/src/generated");
    let scratch = std::env::temp_dir().join(format!("a2a-codegen-{}", std::process::id()));
    if scratch.exists() {
        fs::remove_dir_all(&scratch)?;
    }
    fs::create_dir_all(&scratch)?;
    generate(root, &scratch)?;

    let result = if check {
        compare(&scratch, &target)
    } else {
        if target.exists() {
            fs::remove_dir_all(&target)?;
        }
        fs::create_dir_all(&target)?;
        for file in list(&scratch)? {
            if let Some(parent) = target.join(&file).parent() {
                fs::create_dir_all(parent)?;
            }
            fs::copy(scratch.join(&file), target.join(&file))?;
        }
        eprintln!("codegen: wrote {}", target.display());
        Ok(())
    };
    let _ = fs::remove_dir_all(&scratch);
    result
}

/// One protobuf package to generate: where its file is and where its output goes.
struct Package {
    /// Include directories, most specific first.
    includes: &'static [&'static str],
    /// The file to compile, relative to the first include directory.
    file: &'static str,
    /// The package, with a leading dot.
    name: &'static str,
    /// The Rust path its messages are reachable at, for the service stubs.
    rust_path: &'static str,
    /// The output directory, relative to the generated root.
    out: &'static str,
}

const PACKAGES: &[Package] = &[
    Package { includes: &["proto"], file: "a2a.proto", name: PACKAGE, rust_path: "crate::v1", out: "" },
    Package {
        includes: &["proto/v0.3", "proto"],
        file: "a2a.proto",
        name: ".a2a.v1",
        rust_path: "crate::v0_3",
        out: "v0_3",
    },
];

fn generate(root: &Path, out: &Path) -> Result<()> {
    for package in PACKAGES {
        let dir = out.join(package.out);
        fs::create_dir_all(&dir)?;
        generate_package(root, package, &dir).with_context(|| format!("package {}", package.name))?;
    }
    Ok(())
}

fn generate_package(root: &Path, package: &Package, out: &Path) -> Result<()> {
    let includes: Vec<PathBuf> = package.includes.iter().map(|i| root.join(i)).collect();
    let stem = package.name.trim_start_matches('.');
    let fds = protox::Compiler::new(&includes)?
        .include_imports(true)
        .include_source_info(true)
        .open_file(package.file)
        .with_context(|| format!("compiling {}", package.file))?
        .file_descriptor_set();

    // The exported descriptor (for reflection) keeps imports but drops source info, which only
    // carries comments and positions and would double its size.
    let mut exported = fds.clone();
    for file in &mut exported.file {
        file.source_code_info = None;
    }
    fs::write(out.join("a2a_descriptor.bin"), exported.encode_to_vec())?;

    // Messages. prost-build wants the whole set (it inspects imported types), and writes a file
    // per package; only the A2A package is kept: the google/api imports define annotation options,
    // not types any A2A message uses.
    prost_build::Config::new()
        .out_dir(out)
        // Map the well-known types to pbjson-types (what pbjson's docs prescribe) instead of
        // prost-types, so Struct/Value serialize as ProtoJSON.
        .compile_well_known_types()
        .extern_path(".google.protobuf", "::pbjson_types")
        // pbjson-types writes timestamps with a `+00:00` offset; ProtoJSON and spec 5.6.1 require
        // `Z`. a2a-proto's own Timestamp (same wire format) serializes correctly.
        .extern_path(".google.protobuf.Timestamp", "crate::Timestamp")
        .enable_type_names()
        .type_name_domain(["."], "type.googleapis.com")
        .compile_fds(fds.clone())
        .context("prost-build")?;
    let messages = format!("{stem}.rs");
    for entry in fs::read_dir(out)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "rs") && !path.ends_with(&messages) {
            fs::remove_file(path)?;
        }
    }

    pbjson_build::Builder::new()
        .register_descriptors(&fds.encode_to_vec())?
        .ignore_unknown_fields()
        .out_dir(out)
        .build(&[package.name])
        .context("pbjson-build")?;

    // Service stubs only: every message of the package is provided by the module above.
    let tonic_dir = out.join("tonic");
    fs::create_dir_all(&tonic_dir)?;
    tonic_prost_build::configure()
        .out_dir(&tonic_dir)
        .build_client(true)
        .build_server(true)
        .build_transport(false)
        // a2a-proto's codec (src/codec.rs): prost's bytes, written with fewer instructions than
        // tonic-prost's `ProstCodec`. The stubs are included below `crate::v1` and `crate::v0_3`.
        .codec_path("crate::codec::ProtoCodec")
        // google.protobuf.Empty (the delete operations' reply) becomes `()`.
        .extern_path(package.name, package.rust_path)
        .compile_fds(fds)
        .context("tonic-prost-build")?;
    let stub = tonic_dir.join(&messages);
    if !stub.exists() {
        bail!("tonic-prost-build did not write {}", stub.display());
    }
    fs::rename(&stub, out.join(format!("{stem}.tonic.rs")))?;
    // The stub run also wrote google.api messages; they are not wanted (see above).
    fs::remove_dir_all(&tonic_dir)?;
    Ok(())
}

/// Every file below `dir`, as paths relative to it, sorted.
fn list(dir: &Path) -> Result<Vec<PathBuf>> {
    fn walk(base: &Path, dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                walk(base, &entry.path(), files)?;
            } else {
                files.push(entry.path().strip_prefix(base)?.to_path_buf());
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files)?;
    files.sort();
    Ok(files)
}

fn compare(fresh: &Path, checked_in: &Path) -> Result<()> {
    let want = list(fresh)?;
    let have = if checked_in.exists() { list(checked_in)? } else { Vec::new() };
    let mut drift = Vec::new();
    if want != have {
        drift.push(format!("file set differs: expected {want:?}, found {have:?}"));
    }
    for file in &want {
        let a = fs::read(fresh.join(file))?;
        let b = fs::read(checked_in.join(file)).unwrap_or_default();
        if a != b {
            drift.push(format!("{} differs", file.display()));
        }
    }
    if drift.is_empty() {
        eprintln!("codegen: generated code is up to date");
        Ok(())
    } else {
        bail!(
            "generated code is stale ({}); run `cargo xtask codegen` and commit the result",
            drift.join("; ")
        )
    }
}
