//! `ClientBuilder::binding_client`: the raw client for exactly one interface and version, on every
//! binding, against the reference server hosting a tenant agent (docs/tenants.md). The
//! interface's tenant reaches the tenant's agent on JSON-RPC, HTTP+JSON and gRPC alike (spec
//! 8.3.2), a request's own tenant is kept, the caller's `A2A-Version` is sent as it is (spec 3.6:
//! a version the server does not speak is its `VersionNotSupported`), and interfaces it cannot
//! address are clear errors.

use a2a_client::{Binding, ClientBuilder};
use a2a_core::context::VERSION_PARAM;
use a2a_core::{
    A2aService, AgentExecutor, CallContext, Error, ProtocolVersion, RequestContext, ServiceParams,
    TaskUpdater,
};
use a2a_proto::v1::{send_message_response, AgentInterface, Artifact, Message, Part, SendMessageRequest};
use a2a_server::{RunningServer, Server, TenantAgent};

/// Answers every message with one artifact, `"{name}: {text}"`, and completes.
struct Named(&'static str);

#[async_trait::async_trait]
impl AgentExecutor for Named {
    async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> a2a_core::Result<()> {
        let text = ctx.message.text();
        updater.add_artifact(Artifact::new(vec![Part::text(format!("{}: {text}", self.0))])).await?;
        updater.complete(None).await
    }
}

/// The main agent (`main`) and the tenant `acme` (`acme`).
async fn server() -> RunningServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut card = a2a_demo::demo_card();
    card.name = "Acme agent".into();
    Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(Named("main"))
        .tenant("acme", TenantAgent::new(card, Named("acme")))
        .spawn(listener)
        .await
        .unwrap()
}

/// The 1.0 interface of `binding` on the card `base` serves (`{server}/acme` for the tenant's).
async fn interface_of(base: &str, binding: Binding) -> AgentInterface {
    let card = ClientBuilder::default().fetch_card(base).await.unwrap();
    card.supported_interfaces
        .into_iter()
        .find(|i| i.protocol_binding == binding.protocol_binding() && i.protocol_version.starts_with("1."))
        .unwrap_or_else(|| panic!("the card at {base} has a 1.0 {binding} interface"))
}

fn send(text: &str) -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text(text)), ..Default::default() }
}

/// The text of the artifacts of the task `client` answers `request` with.
async fn answer(client: &dyn A2aService, ctx: &CallContext, request: SendMessageRequest) -> String {
    match client.send_message(ctx, request).await.unwrap().payload {
        Some(send_message_response::Payload::Task(task)) => {
            task.artifacts.iter().flat_map(|a| &a.parts).filter_map(Part::as_text).collect()
        }
        other => panic!("a task, got {other:?}"),
    }
}

#[tokio::test]
async fn the_interface_s_tenant_reaches_its_agent_on_every_binding() {
    let server = server().await;
    let tenant_base = format!("{}/acme", server.url());
    for binding in Binding::ALL {
        let interface = interface_of(&tenant_base, binding).await;
        assert_eq!(interface.tenant, "acme", "{binding}: the tenant card's interface names its tenant");
        let client = ClientBuilder::default().binding_client(&interface, ProtocolVersion::V1_0).unwrap();
        assert_eq!(
            answer(&*client, &CallContext::v1(), send("hi")).await,
            "acme: hi",
            "{binding}: the interface's tenant is sent"
        );
        // A request's own tenant is kept: "" is filled, any other value is the caller's choice.
        let mut own = send("mine");
        own.tenant = "nobody".into();
        let error = client.send_message(&CallContext::v1(), own).await.unwrap_err();
        assert!(
            matches!(&error, Error::InvalidParams { violations } if violations.iter().any(|v| v.field == "tenant")),
            "{binding}: the request's own (unknown) tenant reached the server: {error:?}"
        );

        // The main agent's interface has no tenant: the main agent answers.
        let main = interface_of(&server.url(), binding).await;
        assert!(main.tenant.is_empty());
        let client = ClientBuilder::default().binding_client(&main, ProtocolVersion::V1_0).unwrap();
        assert_eq!(answer(&*client, &CallContext::v1(), send("hi")).await, "main: hi", "{binding}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_caller_s_a2a_version_is_sent_as_it_is_on_every_binding() {
    let server = server().await;
    for binding in Binding::ALL {
        let interface = interface_of(&format!("{}/acme", server.url()), binding).await;
        let client = ClientBuilder::default().binding_client(&interface, ProtocolVersion::V1_0).unwrap();
        let ctx = CallContext::new(ServiceParams::new().with(VERSION_PARAM, "9.9"));
        let error = client.send_message(&ctx, send("hi")).await.unwrap_err();
        assert!(
            matches!(&error, Error::VersionNotSupported { .. }),
            "{binding}: A2A-Version 9.9 reached the server unchanged: {error:?}"
        );
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn interfaces_it_cannot_address_are_clear_errors() {
    let interface = |binding: &str, tenant: &str| AgentInterface {
        url: "http://127.0.0.1:1/".into(),
        protocol_binding: binding.into(),
        protocol_version: "0.3".into(),
        tenant: tenant.into(),
    };
    let builder = ClientBuilder::default();
    for binding in Binding::ALL {
        let error = builder
            .binding_client(&interface(binding.protocol_binding(), "acme"), ProtocolVersion::V0_3)
            .err()
            .unwrap();
        assert!(
            matches!(&error, Error::UnsupportedOperation { reason } if reason.contains("0.3") && reason.contains("acme")),
            "{binding}: {error:?}"
        );
        assert!(builder
            .binding_client(&interface(binding.protocol_binding(), ""), ProtocolVersion::V0_3)
            .is_ok());
    }
    let error = builder.binding_client(&interface("WEBSOCKET", ""), ProtocolVersion::V1_0).err().unwrap();
    assert!(
        matches!(&error, Error::UnsupportedOperation { reason } if reason.contains("WEBSOCKET")),
        "{error:?}"
    );
    let mut not_a_url = interface("JSONRPC", "");
    not_a_url.url = "ftp://127.0.0.1/".into();
    let error = builder.binding_client(&not_a_url, ProtocolVersion::V1_0).err().unwrap();
    assert!(matches!(&error, Error::InvalidAgentResponse { .. }), "{error:?}");
}
