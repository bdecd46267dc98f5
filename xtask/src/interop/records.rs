//! Reading the programs' records: every stdout line of a client program, and every line a webhook
//! receiver prints after its address, is one JSON [`Record`] (`a2a_interop_records`, the type the
//! driver writes and the Python and JS programs write the same way). A line that is not one is
//! kept as garbled, with why, so the run reports it instead of skipping it.

pub(super) use a2a_interop_records::{Notification, Outcome, Record};

/// A program's stdout read as records.
#[derive(Debug, Default)]
pub(super) struct Read {
    /// The records, in the order printed.
    pub(super) records: Vec<Record>,
    /// Each line that is not a record, with the parser's complaint.
    pub(super) garbled: Vec<String>,
}

/// Reads `lines` as records.
pub(super) fn read(lines: &[String]) -> Read {
    let mut read = Read::default();
    for line in lines {
        match Record::parse(line) {
            Ok(record) => read.records.push(record),
            Err(err) => read.garbled.push(garbled(line, &err)),
        }
    }
    read
}

/// How a garbled line is reported.
pub(super) fn garbled(line: &str, err: &serde_json::Error) -> String {
    format!("not a record ({err}): {line:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_that_are_not_records_are_kept_with_why() {
        let lines = [
            r#"{"record":"interop","binding":"GRPC","op":"card","outcome":"pass","detail":""}"#.to_owned(),
            "INTEROP\tGRPC\tcard\tpass\t".to_owned(),
            r#"{"record":"interop","binding":"GRPC","op":"card","outcome":"maybe"}"#.to_owned(),
        ];
        let read = read(&lines);
        assert_eq!(read.records, [Record::interop(Some("GRPC"), "card", Outcome::Pass, "")]);
        assert_eq!(read.garbled.len(), 2, "{:?}", read.garbled);
        assert!(read.garbled[0].contains("INTEROP\\tGRPC"), "the line is shown: {}", read.garbled[0]);
        assert!(read.garbled[1].contains("maybe"), "serde names the bad value: {}", read.garbled[1]);
    }
}
