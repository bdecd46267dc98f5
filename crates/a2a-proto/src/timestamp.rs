//! `google.protobuf.Timestamp` for the A2A types.
//!
//! The same message as the well-known type (fields 1 and 2; identical on the protobuf wire), with
//! ProtoJSON as spec 5.6.1 requires: RFC 3339 in UTC with a `Z` suffix, and 0, 3, 6 or 9
//! fractional digits. It replaces `pbjson_types::Timestamp`, which writes `+00:00` instead of `Z`
//! (wired in by `extern_path` in `cargo xtask codegen`). Input accepts any RFC 3339 offset and
//! converts it to UTC.

use std::fmt;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A point in time: seconds and nanoseconds since the Unix epoch, UTC.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Message)]
pub struct Timestamp {
    /// Seconds since 1970-01-01T00:00:00Z.
    #[prost(int64, tag = "1")]
    pub seconds: i64,
    /// Non-negative fractions of a second, 0..=999_999_999.
    #[prost(int32, tag = "2")]
    pub nanos: i32,
}

impl prost::Name for Timestamp {
    const NAME: &'static str = "Timestamp";
    const PACKAGE: &'static str = "google.protobuf";
}

impl Timestamp {
    /// The current time, truncated to milliseconds (spec 5.6.1: millisecond precision).
    pub fn now_millis() -> Self {
        let since_epoch =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        Timestamp {
            seconds: since_epoch.as_secs() as i64,
            nanos: (since_epoch.subsec_millis() * 1_000_000) as i32,
        }
    }

    /// Milliseconds since the epoch.
    pub fn as_millis(&self) -> i64 {
        self.seconds.saturating_mul(1000).saturating_add(i64::from(self.nanos / 1_000_000))
    }

    fn to_datetime(self) -> Option<DateTime<Utc>> {
        u32::try_from(self.nanos).ok().and_then(|nanos| DateTime::from_timestamp(self.seconds, nanos))
    }
}

impl From<DateTime<Utc>> for Timestamp {
    fn from(time: DateTime<Utc>) -> Self {
        Timestamp { seconds: time.timestamp(), nanos: time.timestamp_subsec_nanos() as i32 }
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_datetime() {
            Some(time) => f.write_str(&time.to_rfc3339_opts(SecondsFormat::AutoSi, true)),
            None => write!(f, "<invalid timestamp {}s {}ns>", self.seconds, self.nanos),
        }
    }
}

impl std::str::FromStr for Timestamp {
    type Err = chrono::ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(DateTime::parse_from_rfc3339(s)?.with_timezone(&Utc).into())
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let time = self
            .to_datetime()
            .ok_or_else(|| serde::ser::Error::custom(format!("timestamp out of range: {self:?}")))?;
        serializer.serialize_str(&time.to_rfc3339_opts(SecondsFormat::AutoSi, true))
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RfcVisitor;
        impl Visitor<'_> for RfcVisitor {
            type Value = Timestamp;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an RFC 3339 timestamp such as \"2025-10-28T10:30:00.000Z\"")
            }

            fn visit_str<E: de::Error>(self, s: &str) -> Result<Timestamp, E> {
                s.parse().map_err(|e| E::custom(format!("invalid timestamp {s:?}: {e}")))
            }
        }
        deserializer.deserialize_str(RfcVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(t: Timestamp) -> String {
        serde_json::to_string(&t).unwrap()
    }

    #[test]
    fn serializes_utc_with_z_and_0_3_6_or_9_fraction_digits() {
        assert_eq!(json(Timestamp { seconds: 1_710_497_700, nanos: 0 }), "\"2024-03-15T10:15:00Z\"");
        assert_eq!(
            json(Timestamp { seconds: 1_710_497_700, nanos: 120_000_000 }),
            "\"2024-03-15T10:15:00.120Z\""
        );
        assert_eq!(
            json(Timestamp { seconds: 1_710_497_700, nanos: 680_794_000 }),
            "\"2024-03-15T10:15:00.680794Z\""
        );
        assert_eq!(json(Timestamp { seconds: 0, nanos: 1 }), "\"1970-01-01T00:00:00.000000001Z\"");
    }

    #[test]
    fn parses_offsets_into_utc_and_rejects_garbage() {
        let t: Timestamp = serde_json::from_str("\"2024-03-15T12:15:00+02:00\"").unwrap();
        assert_eq!(json(t), "\"2024-03-15T10:15:00Z\"");
        assert!(serde_json::from_str::<Timestamp>("\"yesterday\"").is_err());
        assert!(serde_json::from_str::<Timestamp>("12").is_err());
    }

    #[test]
    fn has_the_well_known_type_wire_format() {
        use prost::Message as _;
        let t = Timestamp { seconds: 1_710_497_700, nanos: 5 };
        let bytes = t.encode_to_vec();
        let decoded = prost_types::Timestamp::decode(bytes.as_slice()).unwrap();
        assert_eq!((decoded.seconds, decoded.nanos), (t.seconds, t.nanos));
        assert_eq!(<Timestamp as prost::Name>::type_url(), "/google.protobuf.Timestamp");
    }
}
