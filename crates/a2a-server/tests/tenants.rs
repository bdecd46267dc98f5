//! Several agents on one server, told apart by the `tenant` field (spec 4.4.1): each tenant has
//! its own card (at `/{tenant}/.well-known/agent-card.json`), executor, security and extended
//! card; a client built from a tenant's card reaches that agent on every binding; nothing
//! crosses between tenants (get, list, cancel, subscribe, push configs); each agent admits
//! exactly the schemes its own card requires (a credential refused for another tenant's scheme
//! does not matter, one refused for its own does), with scopes (403 when missing); the extended
//! card is computed per caller; the reference server exposes it as `--tenant` and
//! `--tenant-api-key`.

mod common;

use a2a_client::{Binding, Client};
use a2a_core::{A2aService, AgentExecutor, CallContext, Error, RequestContext, ServiceParams, TaskUpdater};
use a2a_proto::v1::{
    send_message_response, AgentCard, AgentSkill, Artifact, CancelTaskRequest, GetExtendedAgentCardRequest,
    GetTaskRequest, ListTaskPushNotificationConfigsRequest, ListTasksRequest, Message, Part,
    SendMessageRequest, SubscribeToTaskRequest, Task,
};
use a2a_server::auth::{ApiKeys, KeyLocation};
use a2a_server::{RunningServer, Server, TenantAgent};
use axum::http::HeaderName;

/// Answers every message with one artifact, `"{name}: {text}"`, and completes.
struct Named(&'static str);

#[async_trait::async_trait]
impl AgentExecutor for Named {
    async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> a2a_core::Result<()> {
        let text = ctx.message.text();
        if text == "wait" {
            updater.start_work(None).await?;
            ctx.cancellation.cancelled().await;
            return Ok(());
        }
        updater.add_artifact(Artifact::new(vec![Part::text(format!("{}: {text}", self.0))])).await?;
        updater.complete(None).await
    }
}

fn keys(scheme: &str, pairs: &[(&str, &str)]) -> ApiKeys {
    let header = KeyLocation::Header(HeaderName::from_static("x-api-key"));
    pairs.iter().fold(ApiKeys::new(scheme, header), |keys, (key, who)| keys.key(*key, *who))
}

fn card(name: &str) -> AgentCard {
    let mut card = a2a_demo::demo_card();
    card.name = name.into();
    card
}

/// The main agent (public), `acme` (its own API keys: alice, bob) and `globex` (its own keys:
/// carol, dave; an extended card per caller: carol's lists one more skill).
async fn server() -> RunningServer {
    let acme_keys = keys("acmeKey", &[("k-alice", "alice"), ("k-bob", "bob")]);
    let globex_keys = keys("globexKey", &[("k-carol", "carol"), ("k-dave", "dave")]);
    let mut acme = TenantAgent::new(card("Acme agent"), Named("acme"));
    acme_keys.declare_in(acme.card_mut());
    let mut globex_card = card("Globex agent");
    globex_card.capabilities.get_or_insert_with(Default::default).extended_agent_card = Some(true);
    let mut globex =
        TenantAgent::new(globex_card.clone(), Named("globex")).extended_agent_card_for(move |caller| {
            let mut extended = globex_card.clone();
            extended.description = format!("Globex, as {} sees it", caller?.id);
            if caller?.id == "carol" {
                extended.skills.push(AgentSkill {
                    id: "audit".into(),
                    name: "audit".into(),
                    ..Default::default()
                });
            }
            Some(extended)
        });
    globex_keys.declare_in(globex.card_mut());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    Server::builder()
        .agent_card(card("Main agent"))
        .executor(Named("main"))
        .tenant("acme", acme)
        .tenant("globex", globex)
        .push_destination_policy(a2a_core::push::DestinationPolicy::allow_all())
        .layer(acme_keys.layer())
        .layer(globex_keys.layer())
        .spawn(listener)
        .await
        .unwrap()
}

const BINDINGS: [Binding; 3] = [Binding::JsonRpc, Binding::Rest, Binding::Grpc];

/// A client of the agent whose card is under `base` (the server's URL, or it plus
/// `/{tenant}`), over `binding`, sending `key` as its API key.
async fn client(base: &str, binding: Binding, key: Option<&str>) -> Client {
    let mut params = ServiceParams::new();
    if let Some(key) = key {
        params.insert("x-api-key", key);
    }
    Client::builder().bindings([binding]).service_params(params).connect(base).await.unwrap()
}

fn send(text: &str) -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text(text)), ..Default::default() }
}

async fn task_of(client: &dyn A2aService, text: &str) -> Task {
    let mut request = send(text);
    // "wait" works until canceled: return at once.
    request.configuration = Some(a2a_proto::v1::SendMessageConfiguration {
        return_immediately: text == "wait",
        ..Default::default()
    });
    match client.send_message(&CallContext::v1(), request).await.unwrap().payload {
        Some(send_message_response::Payload::Task(task)) => task,
        other => panic!("a task, got {other:?}"),
    }
}

fn artifact_text(task: &Task) -> String {
    task.artifacts.iter().flat_map(|a| &a.parts).filter_map(Part::as_text).collect()
}

async fn card_at(url: &str) -> (reqwest::StatusCode, serde_json::Value) {
    let response = reqwest::get(url).await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_tenant_has_its_own_card_under_its_path() {
    let server = server().await;
    let url = server.url();
    let (status, main) = card_at(&format!("{url}/.well-known/agent-card.json")).await;
    assert_eq!(status, 200);
    assert_eq!(main["name"], "Main agent");
    assert!(main.get("securitySchemes").is_none(), "the main agent is public: {main}");

    let (status, acme) = card_at(&format!("{url}/acme/.well-known/agent-card.json")).await;
    assert_eq!(status, 200);
    assert_eq!(acme["name"], "Acme agent");
    let interfaces = acme["supportedInterfaces"].as_array().unwrap();
    let bindings: Vec<&str> = interfaces.iter().map(|i| i["protocolBinding"].as_str().unwrap()).collect();
    assert_eq!(bindings, ["JSONRPC", "HTTP+JSON", "GRPC"], "1.0 only: A2A 0.3 has no tenants");
    for interface in interfaces {
        assert_eq!(interface["tenant"], "acme", "{interface}");
        assert_eq!(interface["protocolVersion"], "1.0");
    }
    let schemes: Vec<&String> = acme["securitySchemes"].as_object().unwrap().keys().collect();
    assert_eq!(schemes, ["acmeKey"], "only its own scheme");
    assert!(acme.get("protocolVersion").is_none(), "a 1.0 card, not the union form: {acme}");

    let (status, _) = card_at(&format!("{url}/initech/.well-known/agent-card.json")).await;
    assert_eq!(status, 404, "no card for a tenant nobody serves");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_of_a_tenant_card_reaches_that_agent_and_nothing_crosses_on_every_binding() {
    let server = server().await;
    let url = server.url();
    for binding in BINDINGS {
        let acme = client(&format!("{url}/acme"), binding, Some("k-alice")).await;
        assert_eq!(acme.selected().tenant(), Some("acme"));
        let globex = client(&format!("{url}/globex"), binding, Some("k-carol")).await;
        let main = client(&url, binding, None).await;

        // Each agent's executor runs its own tenant's messages.
        let task = task_of(&acme, "hello").await;
        assert_eq!(artifact_text(&task), "acme: hello", "{binding:?}");
        assert_eq!(artifact_text(&task_of(&globex, "hello").await), "globex: hello", "{binding:?}");
        assert_eq!(artifact_text(&task_of(&main, "hello").await), "main: hello", "{binding:?}");
        let running = task_of(&acme, "wait").await;

        // The task is acme's: found there, TaskNotFound through the other agents.
        let get = |id: &str| GetTaskRequest { id: id.into(), ..Default::default() };
        let ctx = CallContext::v1();
        assert_eq!(acme.get_task(&ctx, get(&task.id)).await.unwrap().id, task.id);
        for (name, other) in [("globex", &globex), ("main", &main)] {
            let err = other.get_task(&ctx, get(&task.id)).await.unwrap_err();
            assert!(matches!(err, Error::TaskNotFound { .. }), "{binding:?} {name}: {err:?}");
            let err = other
                .cancel_task(&ctx, CancelTaskRequest { id: running.id.clone(), ..Default::default() })
                .await
                .unwrap_err();
            assert!(matches!(err, Error::TaskNotFound { .. }), "{binding:?} {name} cancel: {err:?}");
            let err = other
                .subscribe_to_task(
                    &ctx,
                    SubscribeToTaskRequest { id: running.id.clone(), ..Default::default() },
                )
                .await
                .err()
                .expect("subscribing to another tenant's task fails");
            assert!(matches!(err, Error::TaskNotFound { .. }), "{binding:?} {name} subscribe: {err:?}");
            let err = other
                .list_task_push_notification_configs(
                    &ctx,
                    ListTaskPushNotificationConfigsRequest { task_id: task.id.clone(), ..Default::default() },
                )
                .await
                .unwrap_err();
            assert!(matches!(err, Error::TaskNotFound { .. }), "{binding:?} {name} push configs: {err:?}");
            let listed = other.list_tasks(&ctx, ListTasksRequest::default()).await.unwrap();
            assert!(
                listed.tasks.iter().all(|t| t.id != task.id && t.id != running.id),
                "{binding:?} {name} lists acme's tasks"
            );
        }
        let listed = acme.list_tasks(&ctx, ListTasksRequest::default()).await.unwrap();
        assert!(listed.tasks.iter().any(|t| t.id == task.id), "{binding:?}");
        acme.cancel_task(&ctx, CancelTaskRequest { id: running.id.clone(), ..Default::default() })
            .await
            .unwrap();
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_tenant_admits_exactly_the_schemes_its_card_requires() {
    let server = server().await;
    let url = server.url();
    for binding in BINDINGS {
        // Carol's key is globex's: acme refuses it (acme's key layer refused it, and acme
        // declares that scheme), and no key at all is refused too.
        for key in [Some("k-carol"), None, Some("k-wrong")] {
            let acme = client(&format!("{url}/acme"), binding, key).await;
            let err = acme.send_message(&CallContext::v1(), send("hello")).await.unwrap_err();
            assert!(matches!(err, Error::Unauthenticated { .. }), "{binding:?} {key:?}: {err:?}");
        }
        // Alice's key is refused by globex's layer, which acme does not declare: acme admits it.
        let acme = client(&format!("{url}/acme"), binding, Some("k-alice")).await;
        assert_eq!(artifact_text(&task_of(&acme, "hi").await), "acme: hi");
        // The public main agent admits a caller with a key it does not know.
        let main = client(&url, binding, Some("k-alice")).await;
        assert_eq!(artifact_text(&task_of(&main, "hi").await), "main: hi");
        // A tenant nobody serves is a clear client error.
        let mut request = send("hi");
        request.tenant = "initech".into();
        let err = main.send_message(&CallContext::v1(), request).await.unwrap_err();
        assert!(matches!(err, Error::InvalidParams { .. }), "{binding:?}: {err:?}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_extended_card_is_computed_per_caller() {
    let server = server().await;
    let url = server.url();
    for binding in BINDINGS {
        let as_key = |key: &'static str| {
            let url = url.clone();
            async move { client(&format!("{url}/globex"), binding, Some(key)).await }
        };
        let carol = as_key("k-carol")
            .await
            .get_extended_agent_card(&CallContext::v1(), GetExtendedAgentCardRequest::default())
            .await
            .unwrap();
        let dave = as_key("k-dave")
            .await
            .get_extended_agent_card(&CallContext::v1(), GetExtendedAgentCardRequest::default())
            .await
            .unwrap();
        assert_eq!(carol.description, "Globex, as carol sees it", "{binding:?}");
        assert_eq!(dave.description, "Globex, as dave sees it", "{binding:?}");
        assert!(carol.skills.iter().any(|s| s.id == "audit"), "{binding:?}");
        assert!(!dave.skills.iter().any(|s| s.id == "audit"), "{binding:?}");
        assert!(
            carol.supported_interfaces.iter().all(|i| i.tenant == "globex")
                && !carol.supported_interfaces.is_empty(),
            "the public card's interfaces: {:?}",
            carol.supported_interfaces
        );
        let anonymous = client(&format!("{url}/globex"), binding, None).await;
        let err = anonymous
            .get_extended_agent_card(&CallContext::v1(), GetExtendedAgentCardRequest::default())
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Unauthenticated { .. }), "{binding:?}: {err:?}");
    }
    server.shutdown().await.unwrap();
}

#[test]
fn a_tenant_name_must_be_one_path_segment() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for name in ["", "a/b", "v1", ".well-known", "sp ace"] {
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let built = Server::builder()
            .agent_card(card("Main agent"))
            .executor(Named("main"))
            .tenant(name, TenantAgent::new(card("x"), Named("x")))
            .app(listener.local_addr().unwrap());
        assert!(built.is_err(), "{name:?} accepted");
    }
}

/// The binary: `--tenant` serves the demo agent under its own card; `--tenant-api-key` gives a
/// tenant keys of its own, and it then accepts no other credential.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_server_serves_tenants_from_flags() {
    let server = common::ServerProcess::start([
        "--store",
        "memory",
        "--api-key",
        "k-main=operator",
        "--tenant",
        "acme",
        "--tenant",
        "globex",
        "--tenant-api-key",
        "globex:k-g=gina",
    ])
    .await;
    let url = &server.url;
    let (_, acme) = card_at(&format!("{url}/acme/.well-known/agent-card.json")).await;
    assert!(acme["name"].as_str().unwrap().ends_with("(tenant acme)"), "{acme}");
    assert!(acme["securitySchemes"]["apiKey"].is_object(), "acme requires what the main agent does: {acme}");
    let (_, globex) = card_at(&format!("{url}/globex/.well-known/agent-card.json")).await;
    let schemes: Vec<&String> = globex["securitySchemes"].as_object().unwrap().keys().collect();
    assert_eq!(schemes, ["apiKey-globex"]);
    for binding in BINDINGS {
        let acme = client(&format!("{url}/acme"), binding, Some("k-main")).await;
        let task = task_of(&acme, "hello").await;
        assert_eq!(task.status.as_ref().unwrap().state(), a2a_proto::v1::TaskState::Completed);
        let globex = client(&format!("{url}/globex"), binding, Some("k-g")).await;
        task_of(&globex, "hello").await;
        let err = globex
            .get_task(&CallContext::v1(), GetTaskRequest { id: task.id.clone(), ..Default::default() })
            .await
            .unwrap_err();
        assert!(matches!(err, Error::TaskNotFound { .. }), "{binding:?}: {err:?}");
        let main_key_at_globex = client(&format!("{url}/globex"), binding, Some("k-main")).await;
        let err = main_key_at_globex.send_message(&CallContext::v1(), send("hello")).await.unwrap_err();
        assert!(matches!(err, Error::Unauthenticated { .. }), "{binding:?}: {err:?}");
        let globex_key_at_main = client(url, binding, Some("k-g")).await;
        let err = globex_key_at_main.send_message(&CallContext::v1(), send("hello")).await.unwrap_err();
        assert!(matches!(err, Error::Unauthenticated { .. }), "{binding:?}: {err:?}");
    }
}

/// ListTasks counts and pages only the caller's tasks (spec 13.1: filtered before paging and
/// counting), and a page token replayed by another principal, or at another tenant, reads only
/// that caller's own tasks: the token carries no authority.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_counts_and_pages_only_the_callers_tasks_and_replayed_tokens_reveal_nothing() {
    use std::collections::HashSet;
    let server = server().await;
    let url = server.url();
    let (mut alices, mut bobs, mut carols) = (HashSet::new(), HashSet::new(), HashSet::new());
    let ctx = CallContext::v1();
    let list = |page_token: &str| ListTasksRequest {
        page_size: Some(1),
        page_token: page_token.into(),
        ..Default::default()
    };
    for binding in BINDINGS {
        let alice = client(&format!("{url}/acme"), binding, Some("k-alice")).await;
        let bob = client(&format!("{url}/acme"), binding, Some("k-bob")).await;
        let carol = client(&format!("{url}/globex"), binding, Some("k-carol")).await;
        for _ in 0..2 {
            alices.insert(task_of(&alice, "hello").await.id);
        }
        bobs.insert(task_of(&bob, "hello").await.id);
        carols.insert(task_of(&carol, "hello").await.id);

        let first = alice.list_tasks(&ctx, list("")).await.unwrap();
        assert_eq!(first.total_size, alices.len() as i32, "{binding:?}: alice's count");
        assert!(first.tasks.iter().all(|t| alices.contains(&t.id)), "{binding:?}");
        assert!(!first.next_page_token.is_empty(), "{binding:?}: more pages");
        let second = alice.list_tasks(&ctx, list(&first.next_page_token)).await.unwrap();
        assert!(second.tasks.iter().all(|t| alices.contains(&t.id)), "{binding:?}");

        for (who, other, own) in [("bob", &bob, &bobs), ("carol", &carol, &carols)] {
            let mut token = first.next_page_token.clone();
            let mut seen = Vec::new();
            loop {
                let page = match other.list_tasks(&ctx, list(&token)).await {
                    Ok(page) => page,
                    // A token another caller cannot use may also be refused outright.
                    Err(Error::InvalidParams { .. }) => break,
                    Err(error) => panic!("{binding:?} {who}: {error:?}"),
                };
                assert_eq!(page.total_size, own.len() as i32, "{binding:?} {who}: counts only its own");
                seen.extend(page.tasks.into_iter().map(|t| t.id));
                if page.next_page_token.is_empty() {
                    break;
                }
                token = page.next_page_token;
            }
            assert!(
                seen.iter().all(|id| own.contains(id)),
                "{binding:?} {who} read another's task: {seen:?}"
            );
        }
    }
    server.shutdown().await.unwrap();
}
