//! The whole suite against in-process reference servers over all six columns (three bindings, in
//! A2A 1.0 and 0.3): every scenario passes and the columns agree; the suite can fail (a column
//! whose client misreports one error fails exactly the scenario that sees it, with a diff naming
//! both columns, in 1.0 and in 0.3); needs the agent does not meet are skips with their reason; an
//! agent whose card declares no 0.3 interface gets the three 1.0 columns as before; and the
//! `a2a-conformance` binary reports and exits accordingly.

use std::collections::BTreeSet;
use std::sync::Arc;

use a2a_conformance::reference::{spawn_demo_agent, ReferenceSetups, SilentAgent};
use a2a_conformance::webhook::Webhook;
use a2a_conformance::{Binding, Column, Report, Suite, Target, Verdict};
use a2a_core::{A2aService, CallContext, Error, Operation, Request, Response};
use a2a_proto::v1::AgentCapabilities;
use a2a_server::RunningServer;
use async_trait::async_trait;

/// Failures the suite finds in the reference server today, each a bug in code this crate does not
/// own; the test fails when one appears or is fixed, so that this list stays true. (The extended
/// card without `supportedInterfaces` and the REST body field naming, found by this suite, are
/// fixed.)
const KNOWN_DEVIATIONS: &[(&str, Column)] = &[];

/// Advisory cross-binding differences (notes, not failures) in the reference server today,
/// tracked like the deviations above.
const KNOWN_ADVISORY_DIFFERENCES: &[(&str, Column)] = &[];

/// The reference server, its configured variants and a webhook, as `cargo xtask conformance` uses
/// them.
struct Env {
    agent: RunningServer,
    setups: ReferenceSetups,
    webhook: Webhook,
    http: reqwest::Client,
}

impl Env {
    async fn start() -> Env {
        Env {
            agent: spawn_demo_agent().await.unwrap(),
            setups: ReferenceSetups::start().await.unwrap(),
            webhook: Webhook::start("127.0.0.1:0".parse().unwrap()).await.unwrap(),
            http: reqwest::Client::new(),
        }
    }

    async fn suite(&self, wrap: impl FnOnce(&mut Target)) -> Suite {
        let mut agent = Target::discover(&self.agent.url(), &self.http).await.unwrap();
        wrap(&mut agent);
        let mut suite = Suite::new(agent).with_webhook(self.webhook.url());
        for (setup, target) in self.setups.targets(&self.http).await.unwrap() {
            suite = suite.with_reference(setup, target);
        }
        suite
    }

    async fn stop(self) {
        self.agent.shutdown().await.unwrap();
        self.setups.shutdown().await.unwrap();
    }
}

fn failing(report: &Report) -> BTreeSet<(&'static str, Column)> {
    report.failures().map(|(scenario, column, _)| (scenario, column)).collect()
}

fn known() -> BTreeSet<(&'static str, Column)> {
    KNOWN_DEVIATIONS.iter().copied().collect()
}

#[tokio::test]
async fn every_scenario_passes_over_every_binding_and_version_of_the_reference_server() {
    let env = Env::start().await;
    let suite = env.suite(|_| {}).await;
    let report = suite.run().await;
    assert_eq!(report.columns, Column::ALL, "the reference server declares 0.3 and 1.0 on every binding");
    assert_eq!(failing(&report), known(), "unexpected failures or a fixed known deviation:\n{report}");
    let advisory: BTreeSet<(&str, Column)> = report
        .rows
        .iter()
        .flat_map(|row| row.cells.iter().map(move |cell| (row, cell)))
        .filter(|(_, cell)| cell.notes.iter().any(|n| n.contains("(advisory)")))
        .map(|(row, cell)| (row.scenario, cell.column))
        .collect();
    assert_eq!(
        advisory,
        KNOWN_ADVISORY_DIFFERENCES.iter().copied().collect(),
        "unexpected advisory differences or a fixed known one:\n{report}"
    );
    // The reference server follows every recommendation the suite checks (Cache-Control and ETag
    // on the card, the invalid fields named: `message.parts`, `pageSize`, ...): a SHOULD it stops
    // following is a regression here, although the suite only notes it.
    let unmet: Vec<String> = report
        .rows
        .iter()
        .flat_map(|row| row.cells.iter().map(move |cell| (row, cell)))
        .flat_map(|(row, cell)| {
            cell.notes
                .iter()
                .filter(|n| n.contains("(SHOULD)"))
                .map(move |n| format!("{} x {}: {n}", row.scenario, cell.column))
        })
        .collect();
    assert!(unmet.is_empty(), "recommendations the reference server no longer follows: {unmet:#?}");
    // Raw JSON cannot travel over gRPC, and ListTasks has no 0.3 counterpart; nothing else may
    // be skipped against the reference server: it declares every skill and capability, and the
    // configured setups stand in.
    let skipped: BTreeSet<(&str, Column)> = report.skips().map(|(s, c, _)| (s, c)).collect();
    let mut expected = BTreeSet::new();
    for version in Column::VERSIONS {
        expected.insert(("unknown-enum-value", Column::new(Binding::Grpc, version)));
        expected.insert(("unknown-fields-ignored", Column::new(Binding::Grpc, version)));
    }
    for binding in Binding::ALL {
        expected.insert(("list-tasks-filters", Column::v03(binding)));
        expected.insert(("list-tasks-pagination", Column::v03(binding)));
    }
    assert_eq!(skipped, expected, "{report}");
    // Every scenario ran over every column it applies to, and produced a record.
    assert_eq!(report.rows.len(), a2a_conformance::scenarios::all().len());
    for row in &report.rows {
        for cell in &row.cells {
            if !matches!(cell.verdict, Verdict::Skip(_)) {
                assert!(cell.record.is_some(), "{} x {} has no record", row.scenario, cell.column);
            }
        }
    }
    assert!(env.webhook.received() > 0, "push configs were registered with the suite's webhook and used");
    env.stop().await;
}

/// Where the spec allows several answers, the suite accepts each and only compares the bindings;
/// what the reference server answers is its own decision (docs/conformance.md, "Decisions"), pinned
/// here from the records of the run: a repeated CancelTask returns the canceled task (spec 3.3.1,
/// idempotent), deleting a deleted push config succeeds again (3.1.10, the same effect), and the
/// extended card is the one configured (the demo's), listing every interface in 1.0.
#[tokio::test]
async fn the_reference_server_s_answers_where_the_spec_allows_several_are_pinned() {
    let env = Env::start().await;
    let only: Vec<String> = ["cancel", "push-config-crud", "extended-card"].map(String::from).to_vec();
    let report = env.suite(|_| {}).await.only(&only).run().await;
    assert!(report.passed(), "{report}");
    let record = |scenario: &str, column: Column, label: &str| -> serde_json::Value {
        let cell = report.row(scenario).unwrap().cell(column).unwrap();
        cell.record.as_ref().unwrap_or_else(|| panic!("{scenario} x {column}: no record"))[label].clone()
    };
    for column in Column::ALL {
        assert_eq!(
            record("cancel", column, "cancel again"),
            serde_json::json!({"state": "TASK_STATE_CANCELED"}),
            "{column}: a repeated cancel returns the canceled task"
        );
        assert_eq!(record("push-config-crud", column, "deleted again"), "ok", "{column}");
        let description = record("extended-card", column, "extended")["description"].clone();
        assert!(
            description.as_str().unwrap().ends_with("(extended card)"),
            "{column}: the configured extended card, not the public one: {description}"
        );
    }
    for binding in Binding::ALL {
        let interfaces = record("extended-card", binding.into(), "extended interfaces");
        assert_eq!(
            interfaces,
            serde_json::json!([
                "GRPC 0.3",
                "GRPC 1.0",
                "HTTP+JSON 0.3",
                "HTTP+JSON 1.0",
                "JSONRPC 0.3",
                "JSONRPC 1.0"
            ]),
            "{binding}: spec 3.1.11, a complete card: a 1.0 and a 0.3 interface per binding"
        );
    }
    env.stop().await;
}

/// Turns TaskNotFound from `cancel_task` into Internal: one binding's client misreporting one
/// error of one operation.
struct MisreportCancelNotFound(Arc<dyn A2aService>);

#[async_trait]
impl A2aService for MisreportCancelNotFound {
    async fn call(&self, ctx: &CallContext, request: Request) -> Result<Response, Error> {
        let cancel = request.operation() == Operation::CancelTask;
        match self.0.call(ctx, request).await {
            Err(Error::TaskNotFound { task_id }) if cancel => {
                Err(Error::Internal { reason: format!("lost {task_id}") })
            }
            other => other,
        }
    }
}

#[tokio::test]
async fn a_binding_that_misreports_an_error_fails_exactly_that_scenario_with_a_diff_naming_both_bindings() {
    let env = Env::start().await;
    let suite = env
        .suite(|agent| agent.wrap_client(Binding::Grpc, |client| Arc::new(MisreportCancelNotFound(client))))
        .await;
    let report = suite.run().await;
    let mut expected = known();
    expected.insert(("cancel", Binding::Grpc.into()));
    assert_eq!(failing(&report), expected, "{report}");
    let reasons = report
        .failures()
        .find(|(s, b, _)| (*s, *b) == ("cancel", Binding::Grpc.into()))
        .unwrap()
        .2
        .join("\n");
    assert!(
        reasons.contains("spec 3.1.5: cancel unknown: expected TaskNotFound, got Internal"),
        "the check against the spec names the expected kind: {reasons}"
    );
    assert!(
        reasons.contains("GRPC 1.0 observed something different from JSONRPC 1.0")
            && reasons
                .contains(r#"$.cancel unknown.error: JSONRPC 1.0 "TaskNotFound" | GRPC 1.0 "Internal""#),
        "the cross-binding diff names the scenario's observation and both bindings: {reasons}"
    );
    env.stop().await;
}

#[tokio::test]
async fn a_0_3_column_that_misreports_an_error_fails_exactly_that_cell_with_a_diff_naming_both_columns() {
    let env = Env::start().await;
    let grpc_v03 = Column::v03(Binding::Grpc);
    let suite = env
        .suite(|agent| agent.wrap_client(grpc_v03, |client| Arc::new(MisreportCancelNotFound(client))))
        .await;
    let report = suite.run().await;
    let mut expected = known();
    expected.insert(("cancel", grpc_v03));
    assert_eq!(failing(&report), expected, "{report}");
    let reasons = report.failures().find(|(s, c, _)| (*s, *c) == ("cancel", grpc_v03)).unwrap().2.join("\n");
    assert!(reasons.contains("spec 3.1.5: cancel unknown: expected TaskNotFound, got Internal"), "{reasons}");
    assert!(
        reasons.contains("GRPC 0.3 observed something different from JSONRPC 0.3")
            && reasons
                .contains(r#"$.cancel unknown.error: JSONRPC 0.3 "TaskNotFound" | GRPC 0.3 "Internal""#),
        "the 0.3 columns are compared with each other: {reasons}"
    );
    env.stop().await;
}

#[tokio::test]
async fn an_agent_whose_card_declares_only_1_0_gets_the_three_1_0_columns_as_before() {
    let env = Env::start().await;
    let mut card = Target::discover(&env.agent.url(), &env.http).await.unwrap().card;
    card.supported_interfaces.retain(|i| i.protocol_version == "1.0");
    let mut suite = Suite::new(Target::from_card(env.agent.url(), card)).with_webhook(env.webhook.url());
    for (setup, target) in env.setups.targets(&env.http).await.unwrap() {
        suite = suite.with_reference(setup, target);
    }
    let report = suite.run().await;
    assert_eq!(report.columns, &Column::ALL[..3]);
    assert!(report.rows.iter().all(|row| row.cells.len() == 3), "{report}");
    assert_eq!(failing(&report), known(), "{report}");
    let skipped: BTreeSet<(&str, Column)> = report.skips().map(|(s, c, _)| (s, c)).collect();
    let expected: BTreeSet<(&str, Column)> =
        [("unknown-enum-value", Binding::Grpc.into()), ("unknown-fields-ignored", Binding::Grpc.into())]
            .into_iter()
            .collect();
    assert_eq!(skipped, expected, "{report}");
    assert!(!report.to_string().contains(" 0.3"), "no 0.3 column: {report}");
    env.stop().await;
}

/// A JSON-RPC endpoint in front of `upstream` that answers TaskNotFound with the code -32000
/// instead of spec 5.4's (and 0.3 spec 8.2's) -32001 (its ErrorInfo still says TASK_NOT_FOUND, so
/// a client still recovers the kind), and a card whose JSON-RPC interfaces (1.0 and 0.3, with the
/// card's 0.3 view) point at it.
async fn jsonrpc_with_a_wrong_code(upstream: String) -> (String, tokio::task::JoinHandle<()>) {
    use axum::body::{Body, Bytes};
    use axum::http::{HeaderMap, Response};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let http = reqwest::Client::new();
    let mut card: serde_json::Value = http
        .get(format!("{upstream}/.well-known/agent-card.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    for interface in card["supportedInterfaces"].as_array_mut().unwrap() {
        if interface["protocolBinding"] == "JSONRPC" {
            interface["url"] = format!("{url}/").into();
        }
    }
    // The 0.3 view: the main url is the JSON-RPC one, and so is an additional interface.
    assert_eq!(card["preferredTransport"], "JSONRPC");
    card["url"] = format!("{url}/").into();
    for interface in card["additionalInterfaces"].as_array_mut().unwrap() {
        if interface["transport"] == "JSONRPC" {
            interface["url"] = format!("{url}/").into();
        }
    }
    let forward = move |headers: HeaderMap, body: Bytes| {
        let (http, upstream) = (http.clone(), upstream.clone());
        async move {
            let mut request = http.post(format!("{upstream}/")).body(body);
            for (name, value) in &headers {
                if name != "host" && name != "content-length" {
                    request = request.header(name, value);
                }
            }
            let reply = request.send().await.unwrap();
            let content_type = reply.headers().get("content-type").cloned().unwrap();
            let body = if content_type.to_str().unwrap().starts_with("text/event-stream") {
                Body::from_stream(reply.bytes_stream())
            } else {
                Body::from(reply.text().await.unwrap().replace("\"code\":-32001", "\"code\":-32000"))
            };
            Response::builder().header("content-type", content_type).body(body).unwrap()
        }
    };
    let app = axum::Router::new()
        .route(
            "/.well-known/agent-card.json",
            axum::routing::get(move || {
                let card = card.to_string();
                async move { ([("content-type", "application/json")], card) }
            }),
        )
        .route("/", axum::routing::post(forward));
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (url, task)
}

#[tokio::test]
async fn a_wrong_code_on_the_wire_fails_the_wire_check_although_the_kind_survives() {
    let env = Env::start().await;
    let (proxy, task) = jsonrpc_with_a_wrong_code(env.agent.url()).await;
    let agent = Target::discover(&proxy, &env.http).await.unwrap();
    let mut suite = Suite::new(agent).with_webhook(env.webhook.url());
    for (setup, target) in env.setups.targets(&env.http).await.unwrap() {
        suite = suite.with_reference(setup, target);
    }
    let report = suite.run().await;
    let mut expected = known();
    expected.insert(("error-codes", Binding::JsonRpc.into()));
    expected.insert(("error-codes", Column::v03(Binding::JsonRpc)));
    assert_eq!(failing(&report), expected, "typed clients still see TaskNotFound everywhere else:\n{report}");
    let reasons = |column: Column| {
        report.failures().find(|(s, c, _)| (*s, *c) == ("error-codes", column)).unwrap().2.join("\n")
    };
    let v1 = reasons(Binding::JsonRpc.into());
    assert!(
        v1.contains("spec 5.4, 9.5: GetTask unknown on the wire: TaskNotFound must be JSON-RPC code -32001, got JSON-RPC code -32000"),
        "{v1}"
    );
    // 0.3 has no ErrorInfo: the code is all a 0.3 client has, and -32000 reads as no A2A error.
    let v03 = reasons(Column::v03(Binding::JsonRpc));
    assert!(
        v03.contains("spec 0.3 8.1, 8.2: GetTask unknown on the wire: TaskNotFound must be JSON-RPC code -32001 in 0.3, got -32000")
            && v03.contains("spec 3.1.3: GetTask unknown on the wire: expected TaskNotFound, a 0.3 client reads Internal"),
        "{v03}"
    );
    task.abort();
    env.stop().await;
}

#[tokio::test]
async fn what_the_agent_does_not_claim_is_skipped_with_the_reason() {
    // A card with the echo skill only, no optional capability, and only the JSON-RPC interface.
    let mut card = a2a_demo::demo_card();
    card.skills.retain(|s| s.id == "echo");
    card.capabilities = Some(AgentCapabilities::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    card.supported_interfaces = a2a_server::interfaces(&url, "unused:1").into_iter().take(1).collect();
    let server = a2a_server::Server::builder()
        .agent_card(card)
        .executor(a2a_demo::DemoAgent)
        .spawn(listener)
        .await
        .unwrap();
    let agent = Target::discover(&server.url(), &reqwest::Client::new()).await.unwrap();
    let only: Vec<String> =
        ["send-task-reply", "multi-turn", "streaming", "push-not-supported", "extended-card-not-configured"]
            .map(String::from)
            .to_vec();
    let report = Suite::new(agent).only(&only).run().await;
    let cell =
        |scenario: &str, column: Column| report.row(scenario).unwrap().cell(column).unwrap().verdict.clone();
    assert_eq!(cell("send-task-reply", Binding::JsonRpc.into()), Verdict::Pass, "{report}");
    assert_eq!(
        cell("send-task-reply", Binding::Grpc.into()),
        Verdict::Skip("the agent card declares no GRPC interface".into())
    );
    // The server declares a 0.3 twin of its JSON-RPC interface: a 0.3 column of its own.
    assert_eq!(cell("send-task-reply", Column::v03(Binding::JsonRpc)), Verdict::Pass, "{report}");
    assert_eq!(
        cell("send-task-reply", Column::v03(Binding::Grpc)),
        Verdict::Skip("the agent card declares no GRPC interface".into())
    );
    let Verdict::Skip(reason) = cell("multi-turn", Binding::JsonRpc.into()) else { panic!("{report}") };
    assert!(reason.contains("skills ask"), "{reason}");
    let Verdict::Skip(reason) = cell("streaming", Binding::JsonRpc.into()) else { panic!("{report}") };
    assert!(reason.contains("capabilities streaming"), "{reason}");
    // The card lacks pushNotifications, so the agent itself shows the error.
    assert_eq!(cell("push-not-supported", Binding::JsonRpc.into()), Verdict::Pass, "{report}");
    // A configuration no card can show is for the reference setups only.
    let Verdict::Skip(reason) = cell("extended-card-not-configured", Binding::JsonRpc.into()) else {
        panic!("{report}")
    };
    assert!(reason.contains("declares extendedAgentCard without having one configured"), "{reason}");
    assert!(report.passed(), "{report}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_binary_prints_the_table_and_exits_by_the_verdicts() {
    let agent = spawn_demo_agent().await.unwrap();
    let url = agent.url();
    let run = |args: Vec<String>| async move {
        tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-conformance")).args(args).output().await.unwrap()
    };
    let passing = run(vec!["--url".into(), url.clone(), "--only".into(), "send-task-reply".into()]).await;
    let stdout = String::from_utf8_lossy(&passing.stdout);
    assert_eq!(passing.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("scenario         JSONRPC 1.0    HTTP+JSON 1.0  GRPC 1.0       JSONRPC 0.3    HTTP+JSON 0.3  GRPC 0.3"),
        "{stdout}"
    );
    assert!(
        stdout.contains("send-task-reply  pass           pass           pass           pass           pass           pass"),
        "{stdout}"
    );
    // An agent that answers nothing fails: exit status 1, with the reason per binding.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent = a2a_server::Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(SilentAgent)
        .spawn(listener)
        .await
        .unwrap();
    let failing = run(vec!["--url".into(), silent.url(), "--only".into(), "send-task-reply".into()]).await;
    let stdout = String::from_utf8_lossy(&failing.stdout);
    assert_eq!(failing.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("send-task-reply  FAIL           FAIL           FAIL           FAIL           FAIL           FAIL"),
        "{stdout}"
    );
    assert!(stdout.contains("send-task-reply x GRPC 1.0:\n    - stopped: SendMessage"), "{stdout}");
    assert!(stdout.contains("send-task-reply x GRPC 0.3:\n    - stopped: SendMessage"), "{stdout}");
    silent.shutdown().await.unwrap();
    // No agent there: the suite cannot run.
    let nowhere = run(vec!["--url".into(), "http://127.0.0.1:9".into()]).await;
    assert_eq!(nowhere.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&nowhere.stderr).contains("reading the agent card"));
    agent.shutdown().await.unwrap();
}
