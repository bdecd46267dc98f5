//! The JCS canonicalizer behind [`a2a_card_sign::payload`] (`canonical::jcs`) against RFC 8785's test vectors
//! (`data/rfc8785/PROVENANCE.md`): every input canonicalizes to its expected output byte for byte.

use std::path::Path;

fn data(path: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rfc8785").join(path);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn canonical(input: &[u8]) -> Vec<u8> {
    let value: serde_json::Value = serde_json::from_slice(input).unwrap();
    a2a_card_sign::canonical::jcs(&value).unwrap()
}

/// Shows both sides in full when they differ (the vectors are short).
fn assert_bytes(name: &str, expected: &[u8], got: &[u8]) {
    assert!(
        expected == got,
        "{name}\nexpected: {}\n     got: {}",
        String::from_utf8_lossy(expected),
        String::from_utf8_lossy(got)
    );
}

#[test]
fn reference_implementation_vectors_canonicalize_exactly() {
    let mut checked = 0;
    for name in ["arrays", "french", "structures", "unicode", "values", "weird"] {
        let expected = data(&format!("output/{name}.json"));
        // The output files have no trailing newline; be tolerant if a checkout adds one.
        let expected = expected.strip_suffix(b"\n").unwrap_or(&expected);
        assert_bytes(name, expected, &canonical(&data(&format!("input/{name}.json"))));
        checked += 1;
    }
    assert_eq!(checked, 6);
}

/// RFC 8785 section 3.2.2 (numbers in ECMAScript form, minimal string escapes) and 3.2.3
/// (members sorted by UTF-16 code units, not by UTF-8 bytes or code points).
#[test]
fn the_rfc_text_examples_canonicalize_exactly() {
    for name in ["rfc_example", "rfc_sorting"] {
        let expected = data(&format!("{name}.expected.json"));
        let expected = expected.strip_suffix(b"\n").unwrap_or(&expected);
        assert_bytes(name, expected, &canonical(&data(&format!("{name}.input.json"))));
    }
}

/// RFC 8785 appendix B: IEEE 754 values and their canonical text.
#[test]
fn appendix_b_numbers_serialize_in_ecmascript_form() {
    let cases: &[(u64, &str)] = &[
        (0x0000000000000000, "0"),
        (0x8000000000000000, "0"),
        (0x0000000000000001, "5e-324"),
        (0x8000000000000001, "-5e-324"),
        (0x7fefffffffffffff, "1.7976931348623157e+308"),
        (0xffefffffffffffff, "-1.7976931348623157e+308"),
        (0x4340000000000000, "9007199254740992"),
        (0xc340000000000000, "-9007199254740992"),
        (0x4430000000000000, "295147905179352830000"),
        (0x44b52d02c7e14af5, "9.999999999999997e+22"),
        (0x44b52d02c7e14af6, "1e+23"),
        (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
        (0x444b1ae4d6e2ef4e, "999999999999999700000"),
        (0x444b1ae4d6e2ef4f, "999999999999999900000"),
        (0x444b1ae4d6e2ef50, "1e+21"),
        (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
        (0x3eb0c6f7a0b5ed8d, "0.000001"),
        (0x41b3de4355555553, "333333333.3333332"),
        (0x41b3de4355555554, "333333333.33333325"),
        (0x41b3de4355555555, "333333333.3333333"),
        (0x41b3de4355555556, "333333333.3333334"),
        (0x41b3de4355555557, "333333333.33333343"),
        (0xbecbf647612f3696, "-0.0000033333333333333333"),
        (0x43143ff3c1cb0959, "1424953923781206.2"),
    ];
    for (bits, expected) in cases {
        let number = serde_json::Number::from_f64(f64::from_bits(*bits)).unwrap();
        let document = serde_json::json!({ "n": number });
        let got = String::from_utf8(a2a_card_sign::payload(&document).unwrap()).unwrap();
        assert_eq!(got, format!("{{\"n\":{expected}}}"), "{bits:#018x}");
    }
}
