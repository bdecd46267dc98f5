//! A readable difference between two JSON values: one line per differing path, with both sides,
//! so a cross-binding failure says *where* two bindings disagree rather than dumping both records.

use serde_json::Value;

/// At most this many differing paths are listed; the rest are counted.
const MAX_LINES: usize = 12;
/// Values longer than this are cut in the listing.
const MAX_VALUE_CHARS: usize = 160;

/// The paths where `left` and `right` differ, as lines `path: <left_name> <value> | <right_name>
/// <value>`. Empty when they are equal.
pub fn diff(left_name: &str, left: &Value, right_name: &str, right: &Value) -> Vec<String> {
    let mut found = Vec::new();
    walk("$", left, right, &mut found);
    let total = found.len();
    let mut lines: Vec<String> = found
        .into_iter()
        .take(MAX_LINES)
        .map(|(path, l, r)| format!("{path}: {left_name} {} | {right_name} {}", show(l), show(r)))
        .collect();
    if total > MAX_LINES {
        lines.push(format!("... and {} more differences", total - MAX_LINES));
    }
    lines
}

fn walk<'a>(
    path: &str,
    left: &'a Value,
    right: &'a Value,
    found: &mut Vec<(String, Option<&'a Value>, Option<&'a Value>)>,
) {
    match (left, right) {
        (Value::Object(l), Value::Object(r)) => {
            for (key, lv) in l {
                let child = format!("{path}.{key}");
                match r.get(key) {
                    Some(rv) => walk(&child, lv, rv, found),
                    None => found.push((child, Some(lv), None)),
                }
            }
            for (key, rv) in r {
                if !l.contains_key(key) {
                    found.push((format!("{path}.{key}"), None, Some(rv)));
                }
            }
        }
        (Value::Array(l), Value::Array(r)) => {
            for i in 0..l.len().max(r.len()) {
                let child = format!("{path}[{i}]");
                match (l.get(i), r.get(i)) {
                    (Some(lv), Some(rv)) => walk(&child, lv, rv, found),
                    (lv, rv) => found.push((child, lv, rv)),
                }
            }
        }
        _ if left != right => found.push((path.to_owned(), Some(left), Some(right))),
        _ => {}
    }
}

fn show(value: Option<&Value>) -> String {
    let Some(value) = value else { return "(absent)".into() };
    let text = value.to_string();
    if text.chars().count() > MAX_VALUE_CHARS {
        let cut: String = text.chars().take(MAX_VALUE_CHARS).collect();
        format!("{cut}...")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_each_differing_path_with_both_sides() {
        let left = json!({"cancel": {"error": "TaskNotFound"}, "same": [1, 2], "only_left": true});
        let right = json!({"cancel": {"error": "Internal"}, "same": [1, 2, 3]});
        let mut lines = diff("JSONRPC", &left, "GRPC", &right);
        lines.sort();
        assert_eq!(
            lines,
            [
                r#"$.cancel.error: JSONRPC "TaskNotFound" | GRPC "Internal""#,
                "$.only_left: JSONRPC true | GRPC (absent)",
                "$.same[2]: JSONRPC (absent) | GRPC 3",
            ]
        );
        assert!(diff("a", &left, "b", &left).is_empty());
    }

    #[test]
    fn long_listings_are_cut() {
        let left = Value::Array((0..30).map(|i| json!(i)).collect());
        let right = Value::Array((0..30).map(|i| json!(i + 1)).collect());
        let lines = diff("a", &left, "b", &right);
        assert_eq!(lines.len(), MAX_LINES + 1);
        assert_eq!(lines.last().unwrap(), "... and 18 more differences");
    }
}
