//! Request validation (spec 5.7: required fields; 3.1.4: ranges), collecting every violation with
//! the field's camelCase path so the client can fix them all at once.

use a2a_proto::v1::{AgentCard, ListTasksRequest, Message, TaskPushNotificationConfig, TaskState};
use base64::Engine as _;

use crate::error::{Error, FieldViolation, Result};
use crate::push::DestinationPolicy;
use crate::store::Cursor;

/// Collected violations.
#[derive(Debug, Default)]
pub(crate) struct Violations(Vec<FieldViolation>);

impl Violations {
    pub(crate) fn add(&mut self, field: impl Into<String>, description: impl Into<String>) {
        self.0.push(FieldViolation { field: field.into(), description: description.into() });
    }

    /// A violation of `field` if `value` is empty; the field's path is written only then.
    pub(crate) fn require(&mut self, value: &str, field: impl std::fmt::Display) {
        if value.is_empty() {
            self.add(field.to_string(), "is required");
        }
    }

    pub(crate) fn non_negative(&mut self, value: Option<i32>, field: &str) {
        if let Some(v) = value.filter(|v| *v < 0) {
            self.add(field, format!("must be a non-negative integer, got {v}"));
        }
    }

    pub(crate) fn finish(self) -> Result<()> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(Error::InvalidParams { violations: self.0 })
        }
    }
}

/// A message sent by a client (spec 4.1.4 required fields).
pub(crate) fn message(message: Option<&Message>, field: &str, violations: &mut Violations) {
    let Some(message) = message else {
        violations.add(field, "is required");
        return;
    };
    violations.require(&message.message_id, format_args!("{field}.messageId"));
    if message.role == 0 || a2a_proto::v1::Role::try_from(message.role).is_err() {
        violations.add(format!("{field}.role"), "must be ROLE_USER or ROLE_AGENT");
    }
    if message.parts.is_empty() {
        violations.add(format!("{field}.parts"), "at least one part is required");
    }
    for (i, part) in message.parts.iter().enumerate() {
        if part.content.is_none() {
            violations.add(format!("{field}.parts[{i}]"), "must hold one of text, raw, url or data");
        }
    }
}

/// A push notification config as a client sends it, in CreateTaskPushNotificationConfig or in a
/// send's configuration (`prefix`): a URL (spec 4.3.1: required) the destination policy admits
/// (spec 13.2), a scheme with any authentication, and no control characters in what becomes part
/// of our webhook requests (URL, token, scheme, credentials): a CR/LF there would let a client
/// write headers of its own into them.
pub(crate) fn push_config(
    config: &TaskPushNotificationConfig,
    prefix: &str,
    policy: &DestinationPolicy,
    violations: &mut Violations,
) {
    let field = |name: &str| if prefix.is_empty() { name.to_owned() } else { format!("{prefix}.{name}") };
    violations.require(&config.url, field("url"));
    let mut sent = vec![("url", config.url.as_str()), ("token", config.token.as_str())];
    if let Some(auth) = &config.authentication {
        violations.require(&auth.scheme, field("authentication.scheme"));
        sent.extend([
            ("authentication.scheme", auth.scheme.as_str()),
            ("authentication.credentials", auth.credentials.as_str()),
        ]);
    }
    let mut clean_url = true;
    for (name, value) in sent {
        if let Some(c) = value.chars().find(|c| c.is_control()) {
            clean_url &= name != "url";
            violations
                .add(field(name), format!("must not contain control characters (found U+{:04X})", c as u32));
        }
    }
    if clean_url && !config.url.is_empty() {
        if let Err(reason) = policy.check_url(&config.url) {
            violations.add(field("url"), reason);
        }
    }
}

/// The ListTasks parameters (spec 3.1.4): page size 1..=100, defaulting to 50.
pub(crate) fn list_tasks(request: &ListTasksRequest, violations: &mut Violations) -> usize {
    let page_size = match request.page_size {
        None => 50,
        Some(size @ 1..=100) => size as usize,
        Some(size) => {
            violations.add("pageSize", format!("must be between 1 and 100 inclusive, got {size}"));
            50
        }
    };
    violations.non_negative(request.history_length, "historyLength");
    if TaskState::try_from(request.status).is_err() {
        violations.add(
            "status",
            format!(
                "unknown task state {}; use one of TASK_STATE_SUBMITTED ... TASK_STATE_AUTH_REQUIRED",
                request.status
            ),
        );
    }
    page_size
}

/// Page tokens are opaque to clients: the cursor, base64url-encoded.
pub(crate) fn encode_page_token(cursor: &Cursor) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(format!("{}:{}", cursor.updated_ms, cursor.task_id))
}

/// The cursor in a page token, or a violation.
pub(crate) fn decode_page_token(token: &str, violations: &mut Violations) -> Option<Cursor> {
    if token.is_empty() {
        return None;
    }
    let cursor = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| {
            let (ms, id) = text.split_once(':')?;
            Some(Cursor { updated_ms: ms.parse().ok()?, task_id: id.to_owned() })
        });
    if cursor.is_none() {
        violations.add("pageToken", "is not a token returned by ListTasks");
    }
    cursor
}

/// The first media type in `message` that the agent does not accept (spec 3.3.2
/// ContentTypeNotSupported), judged against its default input modes and every skill's.
pub(crate) fn unsupported_media_type<'a>(card: &AgentCard, message: &'a Message) -> Option<&'a str> {
    // Read in place: most messages carry no media type, and then nothing is looked at.
    let accepted =
        || card.default_input_modes.iter().chain(card.skills.iter().flat_map(|s| s.input_modes.iter()));
    message.parts.iter().map(|p| p.media_type.as_str()).filter(|m| !m.is_empty()).find(|media_type| {
        let mut modes = accepted().peekable();
        // A card that lists no input mode accepts everything.
        modes.peek().is_some() && !modes.any(|mode| media_type_matches(mode, media_type))
    })
}

/// `mode` (possibly `*/*` or `type/*`) accepts `media_type`; parameters and case are ignored.
/// Refuses a card whose input or output modes are not media types (`text`, say, where
/// `text/plain` is meant): every part would then fail the media type check with
/// `ContentTypeNotSupported`, silently. A mode is `type/subtype`, `type/*` or `*/*`, parameters
/// allowed; see [`media_type_matches`] for what matches what.
pub(crate) fn card_modes(card: &AgentCard) -> Result<()> {
    let lists = [
        ("defaultInputModes", &card.default_input_modes),
        ("defaultOutputModes", &card.default_output_modes),
    ]
    .into_iter()
    .map(|(name, modes)| (name.to_owned(), modes))
    .chain(card.skills.iter().enumerate().flat_map(|(i, skill)| {
        [
            (format!("skills[{i}].inputModes"), &skill.input_modes),
            (format!("skills[{i}].outputModes"), &skill.output_modes),
        ]
    }));
    for (name, modes) in lists {
        for (i, mode) in modes.iter().enumerate() {
            let essence = mode.split(';').next().unwrap_or("").trim();
            let valid = essence.split_once('/').is_some_and(|(kind, sub)| {
                !kind.is_empty() && !sub.is_empty() && !sub.contains('/') && (kind != "*" || sub == "*")
            });
            if !valid {
                return Err(Error::internal(format!(
                    "the agent card's {name}[{i}] is {mode:?}, which is not a media type: write type/subtype \
                     (e.g. text/plain), type/* or */*"
                )));
            }
        }
    }
    Ok(())
}

/// Whether a card's `mode` admits a part's `media_type`: equal essences (type/subtype, case-insensitive,
/// parameters ignored), `type/*` for any subtype of `type`, `*/*` for anything.
pub(crate) fn media_type_matches(mode: &str, media_type: &str) -> bool {
    let essence = |s: &str| s.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let (mode, media_type) = (essence(mode), essence(media_type));
    if mode == "*/*" || mode == media_type {
        return true;
    }
    match (mode.strip_suffix("/*"), media_type.split_once('/')) {
        (Some(kind), Some((media_kind, _))) => kind == media_kind,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_whose_modes_are_not_media_types_are_refused_with_the_field() {
        let mut card = AgentCard {
            default_input_modes: vec!["text/plain".into(), "image/*".into(), "*/*".into()],
            ..Default::default()
        };
        card_modes(&card).unwrap();
        card.default_output_modes = vec!["application/json; charset=utf-8".into()];
        card_modes(&card).unwrap();
        for bad in ["text", "", "*/json", "text/", "a/b/c"] {
            card.default_input_modes = vec!["text/plain".into(), bad.into()];
            let error = card_modes(&card).unwrap_err().to_string();
            assert!(
                error.contains("defaultInputModes[1]") && error.contains("not a media type"),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn media_types_match_exactly_by_wildcard_and_ignoring_parameters() {
        assert!(media_type_matches("text/plain", "text/plain; charset=utf-8"));
        assert!(media_type_matches("image/*", "image/png"));
        assert!(media_type_matches("*/*", "application/x-anything"));
        assert!(media_type_matches("Text/Plain", "text/plain"));
        assert!(!media_type_matches("image/*", "text/plain"));
        assert!(!media_type_matches("application/json", "application/xml"));
    }

    #[test]
    fn push_configs_with_control_characters_are_refused_naming_each_field() {
        let config = TaskPushNotificationConfig {
            url: "https://hooks.example.com/a\r\nX-Injected: 1".into(),
            token: "tok\n".into(),
            authentication: Some(a2a_proto::v1::AuthenticationInfo {
                scheme: "Bearer\r".into(),
                credentials: "secret\u{7f}".into(),
            }),
            ..Default::default()
        };
        let mut violations = Violations::default();
        push_config(
            &config,
            "configuration.taskPushNotificationConfig",
            &DestinationPolicy::public_only(),
            &mut violations,
        );
        let fields: Vec<&str> = violations.0.iter().map(|v| v.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "configuration.taskPushNotificationConfig.url",
                "configuration.taskPushNotificationConfig.token",
                "configuration.taskPushNotificationConfig.authentication.scheme",
                "configuration.taskPushNotificationConfig.authentication.credentials",
            ]
        );
        assert!(violations.0[0].description.contains("U+000D"), "{:?}", violations.0[0]);

        let mut clean = Violations::default();
        let ok = TaskPushNotificationConfig {
            url: "https://hooks.example.com/a".into(),
            token: "t".into(),
            ..Default::default()
        };
        push_config(&ok, "", &DestinationPolicy::public_only(), &mut clean);
        assert!(clean.0.is_empty(), "{:?}", clean.0);
        let mut missing = Violations::default();
        push_config(
            &TaskPushNotificationConfig::default(),
            "",
            &DestinationPolicy::public_only(),
            &mut missing,
        );
        assert_eq!(missing.0.iter().map(|v| v.field.as_str()).collect::<Vec<_>>(), ["url"]);
    }

    #[test]
    fn page_tokens_round_trip_and_garbage_is_a_violation() {
        let cursor = Cursor { updated_ms: 1_700_000_000_123, task_id: "t:1".into() };
        let mut v = Violations::default();
        assert_eq!(decode_page_token(&encode_page_token(&cursor), &mut v), Some(cursor));
        assert!(decode_page_token("!!!", &mut v).is_none());
        let Err(Error::InvalidParams { violations }) = v.finish() else { panic!() };
        assert_eq!(violations[0].field, "pageToken");
    }

    #[test]
    fn a_message_without_id_role_or_parts_names_every_field() {
        let mut v = Violations::default();
        message(Some(&Message::default()), "message", &mut v);
        let Err(Error::InvalidParams { violations }) = v.finish() else { panic!() };
        let fields: Vec<_> = violations.iter().map(|v| v.field.as_str()).collect();
        assert_eq!(fields, ["message.messageId", "message.role", "message.parts"]);
    }
}
