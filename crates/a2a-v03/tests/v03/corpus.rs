//! 1.0 values covering every field and variant the translation handles: the input of the schema
//! and round-trip tests.

use a2a_proto::v1::{
    o_auth_flows, part::Content, security_scheme, AgentCapabilities, AgentCard, AgentCardSignature,
    AgentExtension, AgentInterface, AgentProvider, AgentSkill, ApiKeySecurityScheme, Artifact,
    AuthenticationInfo, AuthorizationCodeOAuthFlow, CancelTaskRequest, ClientCredentialsOAuthFlow,
    DeleteTaskPushNotificationConfigRequest, DeviceCodeOAuthFlow, GetTaskPushNotificationConfigRequest,
    GetTaskRequest, HttpAuthSecurityScheme, ImplicitOAuthFlow, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, Message, MutualTlsSecurityScheme, OAuth2SecurityScheme,
    OAuthFlows, OpenIdConnectSecurityScheme, Part, PasswordOAuthFlow, Role, SecurityRequirement,
    SecurityScheme, SendMessageConfiguration, SendMessageRequest, SendMessageResponse, StreamResponse,
    StringList, SubscribeToTaskRequest, Task, TaskArtifactUpdateEvent, TaskPushNotificationConfig, TaskState,
    TaskStatus, TaskStatusUpdateEvent,
};
use a2a_proto::Timestamp;
use serde_json::{json, Value};

pub(crate) fn structure(value: Value) -> pbjson_types::Struct {
    serde_json::from_value(value).unwrap()
}

fn pb(value: Value) -> pbjson_types::Value {
    serde_json::from_value(value).unwrap()
}

pub(crate) const STATES: [TaskState; 9] = [
    TaskState::Unspecified,
    TaskState::Submitted,
    TaskState::Working,
    TaskState::Completed,
    TaskState::Failed,
    TaskState::Canceled,
    TaskState::InputRequired,
    TaskState::Rejected,
    TaskState::AuthRequired,
];

pub(crate) fn parts() -> Vec<Part> {
    vec![
        Part::text("plain"),
        Part {
            metadata: Some(structure(json!({"lang": "en", "n": 2, "nested": {"x": [true, null]}}))),
            ..Part::text("with metadata")
        },
        Part::raw(vec![0, 1, 2, 253, 254, 255], "application/octet-stream").with_filename("blob.bin"),
        Part::raw(b"no media type".to_vec(), ""),
        Part::url("https://files.example.com/a.png", "image/png").with_filename("a.png"),
        Part::url("https://files.example.com/b", ""),
        Part::data(pb(json!({"confirmationId": "XYZ123", "seats": 2, "ok": true}))),
        Part::data(pb(json!([1, 2, 3]))),
        Part::data(pb(json!("just a string"))),
        Part::data(pb(json!(42))),
        Part { metadata: Some(structure(json!({"k": "v"}))), ..Part::data(pb(json!({"a": {"b": null}}))) },
    ]
}

pub(crate) fn messages() -> Vec<Message> {
    vec![
        Message {
            message_id: "m-min".into(),
            role: Role::User as i32,
            parts: vec![Part::text("hi")],
            ..Default::default()
        },
        Message {
            message_id: "m-full".into(),
            context_id: "ctx-1".into(),
            task_id: "task-1".into(),
            role: Role::Agent as i32,
            parts: parts(),
            metadata: Some(structure(json!({"trace": "abc"}))),
            extensions: vec!["urn:ext:a".into(), "urn:ext:b".into()],
            reference_task_ids: vec!["task-0".into()],
        },
    ]
}

fn timestamp() -> Option<Timestamp> {
    Some(Timestamp { seconds: 1_710_497_400, nanos: 123_000_000 })
}

pub(crate) fn statuses() -> Vec<TaskStatus> {
    STATES
        .iter()
        .map(|state| TaskStatus {
            state: *state as i32,
            message: (*state == TaskState::InputRequired).then(|| messages()[1].clone()),
            timestamp: timestamp(),
        })
        .collect()
}

pub(crate) fn artifacts() -> Vec<Artifact> {
    vec![
        Artifact { artifact_id: "a-min".into(), parts: vec![Part::text("x")], ..Default::default() },
        Artifact {
            artifact_id: "a-full".into(),
            name: "report".into(),
            description: "the report".into(),
            parts: parts(),
            metadata: Some(structure(json!({"pages": 3}))),
            extensions: vec!["urn:ext:a".into()],
        },
    ]
}

pub(crate) fn tasks() -> Vec<Task> {
    let mut tasks: Vec<Task> = statuses()
        .into_iter()
        .map(|status| Task {
            id: "task-1".into(),
            context_id: "ctx-1".into(),
            status: Some(status),
            ..Default::default()
        })
        .collect();
    tasks.push(Task {
        id: "task-2".into(),
        context_id: "ctx-1".into(),
        status: Some(TaskStatus {
            state: TaskState::Completed as i32,
            message: None,
            timestamp: timestamp(),
        }),
        artifacts: artifacts(),
        history: messages(),
        metadata: Some(structure(json!({"owner": "me"}))),
    });
    tasks
}

pub(crate) fn status_updates() -> Vec<TaskStatusUpdateEvent> {
    statuses()
        .into_iter()
        .map(|status| TaskStatusUpdateEvent {
            task_id: "task-1".into(),
            context_id: "ctx-1".into(),
            status: Some(status),
            metadata: Some(structure(json!({"seq": 1}))),
        })
        .collect()
}

pub(crate) fn artifact_updates() -> Vec<TaskArtifactUpdateEvent> {
    [(false, false), (true, false), (true, true), (false, true)]
        .into_iter()
        .map(|(append, last_chunk)| TaskArtifactUpdateEvent {
            task_id: "task-1".into(),
            context_id: "ctx-1".into(),
            artifact: Some(artifacts()[1].clone()),
            append,
            last_chunk,
            metadata: None,
        })
        .collect()
}

pub(crate) fn stream_responses() -> Vec<StreamResponse> {
    let mut events: Vec<StreamResponse> = tasks().into_iter().map(Into::into).collect();
    events.extend(messages().into_iter().map(StreamResponse::from));
    events.extend(status_updates().into_iter().map(StreamResponse::from));
    events.extend(artifact_updates().into_iter().map(StreamResponse::from));
    events
}

pub(crate) fn send_responses() -> Vec<SendMessageResponse> {
    let mut replies: Vec<SendMessageResponse> = tasks().into_iter().map(Into::into).collect();
    replies.extend(messages().into_iter().map(SendMessageResponse::from));
    replies
}

pub(crate) fn push_configs() -> Vec<TaskPushNotificationConfig> {
    let base = TaskPushNotificationConfig {
        tenant: String::new(),
        id: "cfg-1".into(),
        task_id: "task-1".into(),
        url: "https://client.example.com/hook".into(),
        token: String::new(),
        authentication: None,
    };
    vec![
        base.clone(),
        TaskPushNotificationConfig {
            token: "tok".into(),
            authentication: Some(AuthenticationInfo {
                scheme: "Bearer".into(),
                credentials: "secret".into(),
            }),
            ..base.clone()
        },
        TaskPushNotificationConfig {
            authentication: Some(AuthenticationInfo { scheme: "Basic".into(), credentials: String::new() }),
            ..base.clone()
        },
        TaskPushNotificationConfig { id: "cfg-2".into(), token: "t2".into(), ..base },
    ]
}

pub(crate) fn push_lists() -> Vec<ListTaskPushNotificationConfigsResponse> {
    vec![
        ListTaskPushNotificationConfigsResponse::default(),
        ListTaskPushNotificationConfigsResponse { configs: push_configs(), next_page_token: String::new() },
    ]
}

pub(crate) fn send_requests() -> Vec<SendMessageRequest> {
    let message = messages()[1].clone();
    vec![
        SendMessageRequest { message: Some(messages()[0].clone()), ..Default::default() },
        SendMessageRequest {
            tenant: String::new(),
            message: Some(message),
            configuration: Some(SendMessageConfiguration {
                accepted_output_modes: vec!["text/plain".into(), "application/json".into()],
                task_push_notification_config: Some(TaskPushNotificationConfig {
                    task_id: String::new(),
                    ..push_configs()[1].clone()
                }),
                history_length: Some(10),
                return_immediately: true,
            }),
            metadata: Some(structure(json!({"request": "meta"}))),
        },
        SendMessageRequest {
            message: Some(messages()[0].clone()),
            configuration: Some(SendMessageConfiguration::default()),
            ..Default::default()
        },
    ]
}

pub(crate) fn get_task_requests() -> Vec<GetTaskRequest> {
    vec![
        GetTaskRequest { id: "task-1".into(), ..Default::default() },
        GetTaskRequest { id: "task-1".into(), history_length: Some(3), ..Default::default() },
    ]
}

pub(crate) fn cancel_requests() -> Vec<CancelTaskRequest> {
    vec![
        CancelTaskRequest { id: "task-1".into(), ..Default::default() },
        CancelTaskRequest {
            id: "task-1".into(),
            metadata: Some(structure(json!({"why": "user"}))),
            ..Default::default()
        },
    ]
}

pub(crate) fn subscribe_requests() -> Vec<SubscribeToTaskRequest> {
    vec![SubscribeToTaskRequest { id: "task-1".into(), ..Default::default() }]
}

pub(crate) fn get_push_requests() -> Vec<GetTaskPushNotificationConfigRequest> {
    vec![GetTaskPushNotificationConfigRequest {
        task_id: "task-1".into(),
        id: "cfg-1".into(),
        ..Default::default()
    }]
}

pub(crate) fn delete_push_requests() -> Vec<DeleteTaskPushNotificationConfigRequest> {
    vec![DeleteTaskPushNotificationConfigRequest {
        task_id: "task-1".into(),
        id: "cfg-1".into(),
        ..Default::default()
    }]
}

pub(crate) fn list_push_requests() -> Vec<ListTaskPushNotificationConfigsRequest> {
    vec![ListTaskPushNotificationConfigsRequest { task_id: "task-1".into(), ..Default::default() }]
}

fn requirement(name: &str, scopes: &[&str]) -> SecurityRequirement {
    SecurityRequirement {
        schemes: [(name.to_owned(), StringList { list: scopes.iter().map(|s| (*s).to_owned()).collect() })]
            .into(),
    }
}

fn scheme(scheme: security_scheme::Scheme) -> SecurityScheme {
    SecurityScheme { scheme: Some(scheme) }
}

fn oauth(flow: o_auth_flows::Flow) -> SecurityScheme {
    scheme(security_scheme::Scheme::Oauth2SecurityScheme(OAuth2SecurityScheme {
        description: "oauth".into(),
        flows: Some(OAuthFlows { flow: Some(flow) }),
        oauth2_metadata_url: "https://auth.example.com/.well-known/oauth-authorization-server".into(),
    }))
}

fn scopes() -> std::collections::HashMap<String, String> {
    [("read".to_owned(), "Read things".to_owned())].into()
}

// The implicit and password flows are deprecated in 1.0 but still cards' business to declare.
#[allow(deprecated)]
pub(crate) fn full_card() -> AgentCard {
    use security_scheme::Scheme;
    AgentCard {
        name: "Full agent".into(),
        description: "Every card field".into(),
        supported_interfaces: vec![
            AgentInterface {
                url: "https://agent.example.com/".into(),
                protocol_binding: "JSONRPC".into(),
                tenant: String::new(),
                protocol_version: "1.0".into(),
            },
            AgentInterface {
                url: "https://agent.example.com".into(),
                protocol_binding: "GRPC".into(),
                tenant: String::new(),
                protocol_version: "1.0".into(),
            },
            AgentInterface {
                url: "https://agent.example.com".into(),
                protocol_binding: "HTTP+JSON".into(),
                tenant: String::new(),
                protocol_version: "1.0".into(),
            },
            AgentInterface {
                url: "https://agent.example.com/t".into(),
                protocol_binding: "HTTP+JSON".into(),
                tenant: "acme".into(),
                protocol_version: "1.0".into(),
            },
        ],
        provider: Some(AgentProvider { url: "https://example.com".into(), organization: "Example".into() }),
        version: "2.0.0".into(),
        documentation_url: Some("https://docs.example.com".into()),
        capabilities: Some(AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(true),
            extensions: vec![AgentExtension {
                uri: "urn:ext:a".into(),
                description: "an extension".into(),
                required: true,
                params: Some(structure(json!({"level": 2}))),
            }],
            extended_agent_card: Some(true),
        }),
        security_schemes: [
            (
                "key".to_owned(),
                scheme(Scheme::ApiKeySecurityScheme(ApiKeySecurityScheme {
                    description: "api key".into(),
                    location: "header".into(),
                    name: "X-API-Key".into(),
                })),
            ),
            (
                "bearer".to_owned(),
                scheme(Scheme::HttpAuthSecurityScheme(HttpAuthSecurityScheme {
                    description: String::new(),
                    scheme: "Bearer".into(),
                    bearer_format: "JWT".into(),
                })),
            ),
            (
                "oidc".to_owned(),
                scheme(Scheme::OpenIdConnectSecurityScheme(OpenIdConnectSecurityScheme {
                    description: String::new(),
                    open_id_connect_url: "https://accounts.example.com/.well-known/openid-configuration"
                        .into(),
                })),
            ),
            (
                "mtls".to_owned(),
                scheme(Scheme::MtlsSecurityScheme(MutualTlsSecurityScheme { description: "certs".into() })),
            ),
            (
                "code".to_owned(),
                oauth(o_auth_flows::Flow::AuthorizationCode(AuthorizationCodeOAuthFlow {
                    authorization_url: "https://auth.example.com/authorize".into(),
                    token_url: "https://auth.example.com/token".into(),
                    refresh_url: "https://auth.example.com/refresh".into(),
                    scopes: scopes(),
                    pkce_required: true,
                })),
            ),
            (
                "client".to_owned(),
                oauth(o_auth_flows::Flow::ClientCredentials(ClientCredentialsOAuthFlow {
                    token_url: "https://auth.example.com/token".into(),
                    refresh_url: String::new(),
                    scopes: scopes(),
                })),
            ),
            (
                "implicit".to_owned(),
                oauth(o_auth_flows::Flow::Implicit(ImplicitOAuthFlow {
                    authorization_url: "https://auth.example.com/authorize".into(),
                    refresh_url: String::new(),
                    scopes: scopes(),
                })),
            ),
            (
                "password".to_owned(),
                oauth(o_auth_flows::Flow::Password(PasswordOAuthFlow {
                    token_url: "https://auth.example.com/token".into(),
                    refresh_url: String::new(),
                    scopes: scopes(),
                })),
            ),
            (
                "device".to_owned(),
                oauth(o_auth_flows::Flow::DeviceCode(DeviceCodeOAuthFlow {
                    device_authorization_url: "https://auth.example.com/device".into(),
                    token_url: "https://auth.example.com/token".into(),
                    refresh_url: String::new(),
                    scopes: scopes(),
                })),
            ),
        ]
        .into(),
        security_requirements: vec![requirement("oidc", &["openid", "profile"]), requirement("key", &[])],
        default_input_modes: vec!["text/plain".into(), "application/json".into()],
        default_output_modes: vec!["text/plain".into()],
        skills: vec![
            AgentSkill {
                id: "echo".into(),
                name: "Echo".into(),
                description: "Echoes".into(),
                tags: vec!["demo".into()],
                examples: vec!["hello".into()],
                input_modes: vec!["text/plain".into()],
                output_modes: vec!["text/plain".into()],
                security_requirements: vec![requirement("bearer", &["echo"])],
            },
            AgentSkill {
                id: "bare".into(),
                name: "Bare".into(),
                description: "No tags".into(),
                ..Default::default()
            },
        ],
        signatures: vec![AgentCardSignature {
            protected: "eyJhbGciOiJFUzI1NiJ9".into(),
            signature: "c2lnbmF0dXJl".into(),
            header: Some(structure(json!({"kid": "key-1"}))),
        }],
        icon_url: Some("https://agent.example.com/icon.png".into()),
    }
}

pub(crate) fn cards() -> Vec<AgentCard> {
    let minimal = AgentCard { name: "Minimal".into(), ..Default::default() };
    let tenant_only = AgentCard {
        name: "Tenants only".into(),
        supported_interfaces: vec![full_card().supported_interfaces[3].clone()],
        ..Default::default()
    };
    let dual = a2a_v03::with_v03_interfaces(&full_card());
    vec![full_card(), minimal, tenant_only, dual]
}

/// Parts of the corpus whose content is not an object: written wrapped in `{"value": ..}`.
pub(crate) fn is_non_object_data(part: &Part) -> bool {
    matches!(&part.content, Some(Content::Data(v)) if !matches!(v.kind, Some(pbjson_types::value::Kind::StructValue(_))))
}
