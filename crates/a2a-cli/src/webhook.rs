//! `webhook listen`: a local receiver for push notifications (SPEC.md §9.2, Tier 3). Each POST
//! carries one A2A 1.0 `StreamResponse` (A2A §4.3.3); it is rendered like a stream event: JSON
//! Lines with `-o json`, the text form otherwise. The URL to register is printed first (stdout in
//! text, stderr in JSON so that stdout stays protocol objects only).

use std::sync::Arc;

use a2a_proto::v1::{stream_response::Payload, StreamResponse};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};

use crate::cli::WebhookCommand;
use crate::commands::Render;
use crate::error::CliError;
use crate::output::{field, to_json, Out};

struct Receiver {
    token: Option<String>,
    events: tokio::sync::mpsc::Sender<StreamResponse>,
}

/// The token headers senders use: `X-A2A-Notification-Token` (1.0 and 0.3) and the spelling
/// without `X-`.
const TOKEN_HEADERS: [&str; 2] = ["x-a2a-notification-token", "a2a-notification-token"];

async fn receive(
    State(receiver): State<Arc<Receiver>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> StatusCode {
    if let Some(expected) = &receiver.token {
        let given = TOKEN_HEADERS.iter().find_map(|h| headers.get(*h)).and_then(|v| v.to_str().ok());
        if given != Some(expected.as_str()) {
            return StatusCode::UNAUTHORIZED;
        }
    }
    match a2a_proto::json::from_slice::<StreamResponse>(&body) {
        Ok(event) => match receiver.events.send(event).await {
            Ok(()) => StatusCode::OK,
            Err(_) => StatusCode::SERVICE_UNAVAILABLE,
        },
        Err(_) => StatusCode::BAD_REQUEST,
    }
}

/// Whether `event` leaves its task terminal or interrupted.
fn settles(event: &StreamResponse) -> bool {
    let state = match &event.payload {
        Some(Payload::Task(task)) => task.state(),
        Some(Payload::StatusUpdate(update)) => update.status.as_ref().map(|s| s.state()).unwrap_or_default(),
        _ => return false,
    };
    state.is_terminal() || state.is_interrupted()
}

/// Runs `webhook ...`.
pub(crate) async fn run(command: &WebhookCommand, out: &Out) -> Result<(), CliError> {
    let WebhookCommand::Listen { listen, path, token, until_terminal } = command;
    if !path.starts_with('/') {
        return Err(CliError::usage(format!("--path {path:?} must start with /")));
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| CliError::usage(format!("--listen {listen}: {e}")))?;
    let addr = listener.local_addr().map_err(|e| CliError::internal(e.to_string()))?;
    let url = format!("http://{addr}{path}");
    let (events, mut received) = tokio::sync::mpsc::channel(64);
    let receiver = Arc::new(Receiver { token: token.clone(), events });
    let app = axum::Router::new().route(path, axum::routing::post(receive)).with_state(receiver);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
    });
    if out.json() {
        out.note(&format!("listening on {url}"));
    } else {
        out.print(&field("Listening", &url));
    }
    let mut render = Render::default();
    while let Some(event) = received.recv().await {
        if out.json() {
            out.line(&to_json(&event)?);
        } else {
            out.print(&render.event(&event, out.verbose()));
        }
        if *until_terminal && settles(&event) {
            break;
        }
    }
    if !out.json() {
        out.print(&render.close());
    }
    let _ = stop.send(());
    let _ = server.await;
    Ok(())
}
