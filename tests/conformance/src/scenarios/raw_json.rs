//! Raw ProtoJSON that typed clients cannot send, over the two JSON bindings: an enum name the
//! proto does not define (spec 5.5, 6.5) and fields the receiver does not know (spec 5.7).

use a2a_core::Operation;
use a2a_proto::v1::{SendMessageResponse, Task};
use serde_json::json;

use crate::context::{Ctx, Step, Stop};
use crate::kind::ErrorKind;
use crate::scenario::{Needs, Scenario};
use crate::wire::WireReply;

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

async fn unknown_enum_value(ctx: &Ctx) -> Step<()> {
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
    // spec 5.5: enums are the proto's names; ROLE_ROBOT is none (in a request body).
    let params = json!({"message": {"messageId": a2a_proto::new_id(), "role": "ROLE_ROBOT", "parts": [{"text": "hi"}]}});
    let reply = ctx.wire(&ctx.wire_call(Operation::SendMessage, params)).await?;
    if ctx.expect_wire_error("SendMessage role ROLE_ROBOT", &reply, ErrorKind::InvalidParams, "5.5, 3.3.2") {
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
fn success<T: serde::de::DeserializeOwned + serde::Serialize + prost::Name>(
    reply: WireReply,
    what: &str,
) -> Step<T> {
    match reply {
        WireReply::Ok(value) => a2a_proto::json::from_value::<T>(value.clone())
            .map_err(|e| Stop::Fail(format!("{what}: the reply is not a valid {}: {e}: {value}", T::NAME))),
        WireReply::Err(error) => Err(Stop::Fail(format!(
            "spec 5.7: {what} with unknown fields must be served as if they were absent; got {} (reason {:?}, fields {:?})",
            error.code, error.reason, error.fields
        ))),
    }
}

async fn unknown_fields_ignored(ctx: &Ctx) -> Step<()> {
    // spec 5.7: implementations SHOULD ignore unrecognized fields (forward compatibility); this
    // scenario is about exactly that, so it fails when they are not ignored.
    let params = json!({
        "message": {
            "messageId": a2a_proto::new_id(),
            "role": "ROLE_USER",
            "parts": [{"text": "unknown fields are ignored", "futurePartField": {"x": 1}}],
            "futureMessageField": "from a later protocol version"
        },
        "configuration": {"futureConfigurationField": true},
        "futureRequestField": [1, 2, 3]
    });
    let reply = ctx.wire(&ctx.wire_call(Operation::SendMessage, params)).await?;
    let sent: SendMessageResponse = success(reply, "SendMessage")?;
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
    let reply =
        ctx.wire(&ctx.wire_call(Operation::GetTask, json!({"id": task.id, "futureQueryField": "x"}))).await?;
    let got: Task = success(reply, "GetTask")?;
    ctx.check(got.id == task.id, "3.1.3", "GetTask returned another task");
    ctx.record("GetTask", &json!({"id": got.id, "state": got.state().as_str_name()}));
    Ok(())
}
