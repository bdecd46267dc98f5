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

    /// The ProtoJSON text (spec 5.6.1), written on the stack; `None` out of chrono's range.
    ///
    /// Years 1 to 9999 with `nanos` in `0..1e9` (every timestamp this server makes) are written
    /// here, in the bytes chrono's `to_rfc3339_opts(AutoSi, true)` writes; the rest (leap
    /// seconds, five-digit years) go through chrono.
    fn rfc3339(self) -> Option<Rfc3339> {
        const MIN: i64 = -62_135_596_800; // 0001-01-01T00:00:00Z
        const MAX: i64 = 253_402_300_799; // 9999-12-31T23:59:59Z
        if !(MIN..=MAX).contains(&self.seconds) || !(0..1_000_000_000).contains(&self.nanos) {
            let text = self.to_datetime()?.to_rfc3339_opts(SecondsFormat::AutoSi, true);
            return Some(Rfc3339::Long(text));
        }
        // Days to civil date: H. Hinnant, "chrono-Compatible Low-Level Date Algorithms".
        let days = self.seconds.div_euclid(86_400);
        let second_of_day = self.seconds.rem_euclid(86_400) as u32;
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let day_of_era = (z - era * 146_097) as u32;
        let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let mp = (5 * day_of_year + 2) / 153;
        let day = day_of_year - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = (year_of_era as i64 + era * 400 + i64::from(month <= 2)) as u32;

        let mut buf = *b"0000-00-00T00:00:00.000000000Z";
        let mut put = |at: usize, value: u32, digits: usize| {
            let mut value = value;
            for i in (at..at + digits).rev() {
                buf[i] = b'0' + (value % 10) as u8;
                value /= 10;
            }
        };
        put(0, year, 4);
        put(5, month, 2);
        put(8, day, 2);
        put(11, second_of_day / 3600, 2);
        put(14, second_of_day / 60 % 60, 2);
        put(17, second_of_day % 60, 2);
        let nanos = self.nanos as u32;
        // chrono's AutoSi: no fraction, or 3, 6 or 9 digits, the fewest that hold it exactly.
        let len = if nanos == 0 {
            19
        } else if nanos % 1_000_000 == 0 {
            put(20, nanos / 1_000_000, 3);
            23
        } else if nanos % 1000 == 0 {
            put(20, nanos / 1000, 6);
            26
        } else {
            put(20, nanos, 9);
            29
        };
        buf[len] = b'Z';
        Some(Rfc3339::Short { buf, len: len as u8 + 1 })
    }
}

/// A timestamp's RFC 3339 text: on the stack when it has the usual length.
enum Rfc3339 {
    Short { buf: [u8; 30], len: u8 },
    Long(String),
}

impl Rfc3339 {
    fn as_str(&self) -> &str {
        match self {
            // Only ASCII digits and punctuation were written.
            Rfc3339::Short { buf, len } => std::str::from_utf8(&buf[..usize::from(*len)]).unwrap_or_default(),
            Rfc3339::Long(text) => text,
        }
    }
}

impl From<DateTime<Utc>> for Timestamp {
    fn from(time: DateTime<Utc>) -> Self {
        Timestamp { seconds: time.timestamp(), nanos: time.timestamp_subsec_nanos() as i32 }
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.rfc3339() {
            Some(text) => f.write_str(text.as_str()),
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
        let text = self
            .rfc3339()
            .ok_or_else(|| serde::ser::Error::custom(format!("timestamp out of range: {self:?}")))?;
        serializer.serialize_str(text.as_str())
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
    fn writes_the_bytes_chrono_writes_across_its_range() {
        let chrono =
            |t: Timestamp| t.to_datetime().map(|time| time.to_rfc3339_opts(SecondsFormat::AutoSi, true));
        let ours = |t: Timestamp| t.rfc3339().map(|text| text.as_str().to_owned());
        let mut seconds = vec![
            0,
            -1,
            86_399,
            86_400,
            951_782_400,     // 2000-02-29
            4_107_542_400,   // 2100-03-01
            -62_135_596_800, // 0001-01-01
            -62_135_596_801,
            253_402_300_799, // 9999-12-31T23:59:59
            253_402_300_800,
            i64::MIN,
            i64::MAX,
        ];
        // A fixed-seed walk over the years 1 to 9999 (splitmix64).
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..20_000 {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            seconds.push(-62_135_596_800 + (z % 315_537_897_600) as i64);
        }
        let nanos = [0, 1, 999_999_999, 1_000_000, 120_000_000, 680_794_000, 5_000, 1_000_000_000, -1];
        for (i, &s) in seconds.iter().enumerate() {
            for &n in &nanos[..if i < 12 { nanos.len() } else { 3 + i % 4 }] {
                let t = Timestamp { seconds: s, nanos: n };
                assert_eq!(ours(t), chrono(t), "{s}s {n}ns");
            }
        }
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
