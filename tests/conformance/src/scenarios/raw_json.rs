//! Raw JSON that typed clients cannot send, over the two JSON bindings: an enum name the proto
//! does not define (spec 5.5, 6.5) and fields the receiver does not know (spec 5.7). In 0.3 the
//! same [`Edit`](crate::wire::Edit)s change the 0.3 body (0.3 JSON over JSON-RPC, 0.3 ProtoJSON
//! over HTTP+JSON).

use a2a_core::Operation;
use a2a_proto::v1::{SendMessageResponse, Task};
use serde_json::{json, Value};

use crate::context::{Ctx, Step, Stop};
use crate::kind::ErrorKind;
use crate::scenario::{Needs, Scenario};
use crate::wire::{Shape, WireReply};

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            id: "unknown-enum-value",
            title: "An enum name the proto does not define is InvalidParams (raw JSON)",
            spec: "5.5, 6.5, 3.3.2, 9.5, 11.6",
            needs: Needs::agent().json_only(),
            run: |ctx| Box::pin(unknown_enum_value(ctx)),
        },
        Scenario {
            id: "unknown-fields-ignored",
            title: "Fields the agent does not know are ignored (raw JSON)",
            spec: "5.7",
            needs: Needs::agent().skills(&["echo"]).json_only(),
            run: |ctx| Box::pin(unknown_fields_ignored(ctx)),
        },
    ]
}

/// The field names of the BadRequest of a raw error reply.
fn fields(reply: &WireReply) -> Vec<String> {
    match reply {
        WireReply::Err(error) => error.fields.clone().unwrap_or_default(),
        WireReply::Ok(_) => Vec::new(),
    }
}

/// Sets the message's role to one the protocol does not define: `ROLE_ROBOT` in ProtoJSON (1.0,
/// and 0.3 over HTTP+JSON), `robot` in 0.3's JSON (whose roles are `user` and `agent`).
fn robot_role(body: &mut Value, shape: Shape) {
    if let Some(message) = body.get_mut("message").and_then(Value::as_object_mut) {
        let role = if shape == Shape::V03Json { "robot" } else { "ROLE_ROBOT" };
        message.insert("role".into(), json!(role));
    }
}

/// Adds fields no version defines at every level of a SendMessage request: the request, its
/// configuration, its message and each part (0.3 ProtoJSON holds a message's parts in `content`).
fn future_send_fields(body: &mut Value, shape: Shape) {
    let Some(request) = body.as_object_mut() else { return };
    if let Some(message) = request.get_mut("message").and_then(Value::as_object_mut) {
        let parts = if shape == Shape::V03ProtoJson { "content" } else { "parts" };
        for part in message.get_mut(parts).and_then(Value::as_array_mut).into_iter().flatten() {
            if let Some(part) = part.as_object_mut() {
                part.insert("futurePartField".into(), json!({"x": 1}));
            }
        }
        message.insert("futureMessageField".into(), json!("from a later protocol version"));
    }
    let configuration = request.entry("configuration").or_insert_with(|| json!({}));
    if let Some(configuration) = configuration.as_object_mut() {
        configuration.insert("futureConfigurationField".into(), json!(true));
    }
    request.insert("futureRequestField".into(), json!([1, 2, 3]));
}

/// Adds a parameter no version defines to a GetTask request (JSON-RPC params, REST query).
fn future_query_field(body: &mut Value, _shape: Shape) {
    if let Some(request) = body.as_object_mut() {
        request.insert("futureQueryField".into(), json!("x"));
    }
}

async fn unknown_enum_value(ctx: &Ctx) -> Step<()> {
    if !ctx.is_v03() {
        // ListTasks is 1.0's alone (no 0.3 counterpart): recorded per version.
        ctx.per_version(true);
        // spec 6.5's validation example: status=TASK_STATE_RUNNING is rejected naming `status`
        // (JSON-RPC params / REST query parameter, spec 11.5).
        let call = ctx.wire_call(Operation::ListTasks, json!({"status": "TASK_STATE_RUNNING"}));
        let reply = ctx.wire(&call).await?;
        if ctx.expect_wire_error(
            "ListTasks status TASK_STATE_RUNNING",
            &reply,
            ErrorKind::InvalidParams,
            "6.5, 3.3.2",
        ) {
            ctx.should(
                fields(&reply).iter().any(|f| f == "status"),
                "3.3.2",
                format!("the violation should name `status`, named {:?}", fields(&reply)),
            );
        }
        ctx.per_version(false);
    }
    // spec 5.5: enums are the proto's names; ROLE_ROBOT is none (in a request body). 0.3: the
    // schema's roles are `user` and `agent` (0.3 6.4), so `robot` is invalid params (0.3 8.1).
    let params = json!({"message": {"messageId": a2a_proto::new_id(), "role": "ROLE_USER", "parts": [{"text": "hi"}]}});
    let reply = ctx.wire(&ctx.wire_call(Operation::SendMessage, params).edit(robot_role)).await?;
    if ctx.expect_wire_error(
        "SendMessage role ROLE_ROBOT",
        &reply,
        ErrorKind::InvalidParams,
        "5.5, 3.3.2, 0.3 8.1",
    ) {
        ctx.should(
            fields(&reply).iter().any(|f| f.starts_with("message.role")),
            "3.3.2",
            format!("the violation should name `message.role`, named {:?}", fields(&reply)),
        );
    }
    Ok(())
}

/// The successful reply of a raw call, re-read through the proto types so that only its content
/// is recorded (not how the binding happened to format it).
fn success<T>(ctx: &Ctx, reply: &WireReply, what: &str) -> Step<T>
where
    T: serde::de::DeserializeOwned + prost::Name + a2a_v03::V03,
{
    ctx.wire_value::<T>(reply).map_err(|e| {
        Stop::Fail(format!(
            "spec 5.7: {what} with unknown fields must be served as if they were absent; got {e}"
        ))
    })
}

async fn unknown_fields_ignored(ctx: &Ctx) -> Step<()> {
    // spec 5.7: implementations SHOULD ignore unrecognized fields (forward compatibility); this
    // scenario is about exactly that, so it fails when they are not ignored. (0.3 says the same
    // of its JSON: a2a.json objects allow additional properties.)
    let params = json!({
        "message": {
            "messageId": a2a_proto::new_id(),
            "role": "ROLE_USER",
            "parts": [{"text": "unknown fields are ignored"}]
        }
    });
    let reply = ctx.wire(&ctx.wire_call(Operation::SendMessage, params).edit(future_send_fields)).await?;
    let sent: SendMessageResponse = success(ctx, &reply, "SendMessage")?;
    ctx.record("SendMessage", &sent);
    let Some(a2a_proto::v1::send_message_response::Payload::Task(task)) = sent.payload else {
        ctx.check(false, "demo convention", "echo answers with a Task");
        return Ok(());
    };
    ctx.check(
        super::artifact_text(&task).contains("unknown fields are ignored"),
        "5.7, demo convention",
        "the message must be read as if the unknown fields were absent",
    );
    let call = ctx.wire_call(Operation::GetTask, json!({"id": task.id})).edit(future_query_field);
    let reply = ctx.wire(&call).await?;
    let got: Task = success(ctx, &reply, "GetTask")?;
    ctx.check(got.id == task.id, "3.1.3", "GetTask returned another task");
    ctx.record("GetTask", &json!({"id": got.id, "state": got.state().as_str_name()}));
    Ok(())
}
