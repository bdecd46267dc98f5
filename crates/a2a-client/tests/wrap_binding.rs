//! `ClientBuilder::wrap_binding`: the wrapper sits under the client's own behaviour, so it sees
//! each call the binding makes with its final context (default service parameters, the
//! negotiated version) and each call of a retry or a resubscription, on the binding selected.

use std::sync::{Arc, Mutex};

use a2a_client::{Binding, Client};
use a2a_core::{A2aService, CallContext, Request, Response, Result, ServiceParams};
use a2a_proto::v1::{GetTaskRequest, Message, SendMessageRequest};
use async_trait::async_trait;

/// Records `method version x-trace` of each call, then calls the binding.
struct Recorder {
    inner: Arc<dyn A2aService>,
    calls: Arc<Mutex<Vec<String>>>,
}

impl Recorder {
    fn record(&self, method: &str, ctx: &CallContext) {
        let param = |name: &str| ctx.params.get(name).unwrap_or("-").to_owned();
        self.calls.lock().unwrap().push(format!("{method} {} {}", param("a2a-version"), param("x-trace")));
    }
}

#[async_trait]
impl A2aService for Recorder {
    async fn call(&self, ctx: &CallContext, request: Request) -> Result<Response> {
        self.record(request.operation().method(), ctx);
        self.inner.call(ctx, request).await
    }
}

#[tokio::test]
async fn the_wrapper_sees_each_binding_call_with_its_final_context() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = a2a_server::Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .spawn(listener)
        .await
        .unwrap();
    for binding in [Binding::JsonRpc, Binding::Rest, Binding::Grpc] {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (record, selected) = (Arc::clone(&calls), Arc::clone(&seen));
        let client = Client::builder()
            .bindings([binding])
            .service_params(ServiceParams::new().with("x-trace", "t1"))
            .wrap_binding(move |inner, chosen| {
                selected.lock().unwrap().push(chosen.binding());
                Arc::new(Recorder { inner, calls: Arc::clone(&record) })
            })
            .connect(server.url())
            .await
            .unwrap();
        assert_eq!(*seen.lock().unwrap(), [binding], "wrapped once, on the binding selected");
        let request = SendMessageRequest { message: Some(Message::user_text("hello")), ..Default::default() };
        client.send_message(&CallContext::v1(), request).await.unwrap();
        let missing = GetTaskRequest { id: "no-such-task".into(), ..Default::default() };
        assert!(client.get_task(&CallContext::v1(), missing).await.is_err());
        assert_eq!(
            *calls.lock().unwrap(),
            ["SendMessage 1.0 t1", "GetTask 1.0 t1"],
            "{binding}: the client's default parameter and version in each call's context"
        );
    }
    server.shutdown().await.unwrap();
}
