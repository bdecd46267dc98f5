//! The server on PostgreSQL when the database goes away and comes back: requests fail with an
//! internal error on every binding, quickly (no hang), and succeed again once the database is
//! back, without a restart. The "outage" is a TCP relay between the server and the machine's
//! PostgreSQL that this test cuts and restores.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_core::{A2aService, CallContext, Error};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{Message, SendMessageRequest};
use a2a_rest::RestClient;
use a2a_server::Server;
use a2a_store_sql::testing::{admin_url, TestDatabase};
use a2a_store_sql::PostgresStore;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// A TCP relay to PostgreSQL that can be cut (every connection closed, new ones refused) and restored.
struct Relay {
    addr: SocketAddr,
    up: Arc<AtomicBool>,
    cut: std::sync::Mutex<CancellationToken>,
}

impl Relay {
    async fn start(target: SocketAddr) -> Arc<Relay> {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let relay = Arc::new(Relay {
            addr: listener.local_addr().unwrap(),
            up: Arc::new(AtomicBool::new(true)),
            cut: std::sync::Mutex::new(CancellationToken::new()),
        });
        let me = Arc::clone(&relay);
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !me.up.load(Ordering::SeqCst) {
                    continue; // dropped: the connection is refused
                }
                let cut = me.cut.lock().unwrap().clone();
                tokio::spawn(async move {
                    let Ok(mut server) = TcpStream::connect(target).await else { return };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        () = cut.cancelled() => {}
                    }
                });
            }
        });
        relay
    }

    fn set_up(&self, up: bool) {
        self.up.store(up, Ordering::SeqCst);
        if !up {
            let mut cut = self.cut.lock().unwrap();
            cut.cancel();
            *cut = CancellationToken::new();
        }
    }
}

fn send() -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text("hello")), ..Default::default() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_outage_is_an_internal_error_on_every_binding_and_heals_by_itself() {
    let db = TestDatabase::create("outage").await;
    let admin: tokio_postgres::Config = admin_url().parse().unwrap();
    let port = admin.get_ports().first().copied().unwrap_or(5432);
    let relay = Relay::start(SocketAddr::from(([127, 0, 0, 1], port))).await;
    let url = db.url().replacen(&format!(":{port}/"), &format!(":{}/", relay.addr.port()), 1);
    assert_ne!(url, db.url(), "the store connects through the relay");
    let store = Arc::new(PostgresStore::connect(&url).await.unwrap());

    let server = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .task_store(store.clone())
        .push_config_store(store)
        .spawn(TcpListener::bind("127.0.0.1:0").await.unwrap())
        .await
        .unwrap();
    let base = server.url();
    let clients: Vec<(&str, Arc<dyn A2aService>)> = vec![
        ("JSONRPC", Arc::new(JsonRpcClient::new(format!("{base}/")))),
        ("HTTP+JSON", Arc::new(RestClient::new(&base).unwrap())),
        ("GRPC", Arc::new(GrpcClient::connect_lazy(server.addr().to_string()).unwrap())),
    ];
    let ctx = CallContext::v1();
    for (name, client) in &clients {
        client.send_message(&ctx, send()).await.unwrap_or_else(|e| panic!("{name} before the outage: {e}"));
    }

    relay.set_up(false);
    for (name, client) in &clients {
        let started = Instant::now();
        let error = client.send_message(&ctx, send()).await.expect_err(name);
        assert!(matches!(error, Error::Internal { .. }), "{name}: an internal error, got {error:?}");
        assert!(error.to_string().contains("PostgreSQL"), "{name}: the message names the database: {error}");
        // Bounded by the pool's documented timeouts (5 s to wait, 5 s to connect).
        assert!(started.elapsed() < Duration::from_secs(12), "{name}: failed after {:?}", started.elapsed());
    }

    relay.set_up(true);
    for (name, client) in &clients {
        client.send_message(&ctx, send()).await.unwrap_or_else(|e| panic!("{name} after the outage: {e}"));
    }
    server.shutdown().await.unwrap();
}
