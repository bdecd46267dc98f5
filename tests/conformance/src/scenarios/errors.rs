//! Errors: every A2A error an agent can be led to, by kind (what every binding's client recovers)
//! and by its code on the wire (spec 3.3.2, 5.4, 9.5, 10.6, 11.6); versions (spec 3.6), required
//! extensions (spec 3.3.4) and invalid parameters (spec 5.7, 3.1.4, 3.2.4, 6.5).

use a2a_core::context::VERSION_PARAM;
use a2a_core::{CallContext, Operation, ServiceParams};
use a2a_proto::v1::{GetTaskRequest, ListTasksRequest, Message, Part, TaskState};
use serde_json::json;

use super::{require_state, NO_SUCH_TASK};
use crate::context::{Ctx, Step};
use crate::kind::ErrorKind;
use crate::scenario::{Needs, Scenario, Setup};
use crate::wire::WireCall;

/// A media type no agent is expected to accept.
const ODD_MEDIA_TYPE: &str = "application/x-a2a-conformance-unsupported";

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            id: "error-codes",
            title: "Each A2A error has its kind and the spec 5.4 code, with ErrorInfo / BadRequest details",
            spec: "3.3.2, 5.4, 9.5, 10.6, 11.6, 3.1.1, 3.1.3, 3.1.5",
            needs: Needs::agent().skills(&["echo"]),
            run: |ctx| Box::pin(error_codes(ctx)),
        },
        Scenario {
            id: "version-negotiation",
            title: "A2A-Version 1.0 is served; 9.9 is VersionNotSupported",
            spec: "3.6, 3.6.1, 3.6.2, 5.4",
            needs: Needs::agent().skills(&["echo"]),
            run: |ctx| Box::pin(version_negotiation(ctx)),
        },
        Scenario {
            id: "required-extension",
            title:
                "A request without a required extension is ExtensionSupportRequired; declaring it is served",
            spec: "3.3.4, 3.2.6, 5.4",
            needs: Needs::setup(Setup::RequiredExtension).skills(&["echo"]),
            run: |ctx| Box::pin(required_extension(ctx)),
        },
        Scenario {
            id: "invalid-agent-response",
            title: "An agent reply that is neither Task nor Message is InvalidAgentResponse",
            spec: "3.3.2, 5.4",
            needs: Needs::setup(Setup::InvalidAgentResponse),
            run: |ctx| Box::pin(invalid_agent_response(ctx)),
        },
        Scenario {
            id: "invalid-params",
            title: "No parts, pageSize 0 and 101, negative historyLength are InvalidParams",
            spec: "3.3.2, 5.7, 3.1.4, 3.2.4, 6.5",
            needs: Needs::agent().skills(&["echo"]),
            run: |ctx| Box::pin(invalid_params(ctx)),
        },
    ]
}

/// Whether an input mode of `card` (its defaults or any skill's) accepts `media_type`; `*/*` and
/// `type/*` are wildcards, parameters are ignored (spec 4.4.1 defaultInputModes, 4.4.5).
fn accepts(card: &a2a_proto::v1::AgentCard, media_type: &str) -> bool {
    let essence = |s: &str| s.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let wanted = essence(media_type);
    let kind = wanted.split('/').next().unwrap_or("").to_owned();
    card.default_input_modes.iter().chain(card.skills.iter().flat_map(|s| &s.input_modes)).any(|mode| {
        let mode = essence(mode);
        mode == "*/*" || mode == wanted || mode.strip_suffix("/*") == Some(kind.as_str())
    })
}

fn user_message_json(text: &str) -> serde_json::Value {
    json!({"messageId": a2a_proto::new_id(), "role": "ROLE_USER", "parts": [{"text": text}]})
}

async fn error_codes(ctx: &Ctx) -> Step<()> {
    let done = ctx.send_text_task("a task that completes").await?;
    require_state(&done, TaskState::Completed, "echo")?;

    // TaskNotFound (spec 3.1.3).
    let missing = ctx.get_task(NO_SUCH_TASK, None).await;
    ctx.expect_error("GetTask unknown", &missing, ErrorKind::TaskNotFound, "3.1.3");
    let reply = ctx.wire(&ctx.wire_call(Operation::GetTask, json!({"id": NO_SUCH_TASK}))).await?;
    ctx.expect_wire_error("GetTask unknown on the wire", &reply, ErrorKind::TaskNotFound, "3.1.3");

    // TaskNotCancelable (spec 3.1.5), on the wire (the typed call is in `cancel`).
    let reply = ctx.wire(&ctx.wire_call(Operation::CancelTask, json!({"id": done.id}))).await?;
    ctx.expect_wire_error("CancelTask completed on the wire", &reply, ErrorKind::TaskNotCancelable, "3.1.5");

    // UnsupportedOperation: a message to a terminal task (spec 3.1.1).
    let late = ctx.send(ctx.request(Message::user_text("more").with_task_id(&done.id))).await;
    ctx.expect_error("SendMessage to a completed task", &late, ErrorKind::UnsupportedOperation, "3.1.1");
    let mut message = user_message_json("more");
    message["taskId"] = json!(done.id);
    let reply = ctx.wire(&ctx.wire_call(Operation::SendMessage, json!({"message": message}))).await?;
    ctx.expect_wire_error(
        "SendMessage to a completed task on the wire",
        &reply,
        ErrorKind::UnsupportedOperation,
        "3.1.1",
    );

    // ContentTypeNotSupported (spec 3.1.1): a part whose media type the card's input modes exclude.
    if accepts(ctx.card(), ODD_MEDIA_TYPE) {
        ctx.note(format!(
            "ContentTypeNotSupported not checked: the card's input modes accept {ODD_MEDIA_TYPE}"
        ));
    } else {
        let odd = Message::user(vec![Part::text("odd").with_media_type(ODD_MEDIA_TYPE)]);
        let result = ctx.send(ctx.request(odd)).await;
        ctx.expect_error(
            "SendMessage with an unaccepted media type",
            &result,
            ErrorKind::ContentTypeNotSupported,
            "3.1.1, 3.3.2",
        );
        let params = json!({"message": {"messageId": a2a_proto::new_id(), "role": "ROLE_USER",
            "parts": [{"text": "odd", "mediaType": ODD_MEDIA_TYPE}]}});
        let reply = ctx.wire(&ctx.wire_call(Operation::SendMessage, params)).await?;
        ctx.expect_wire_error(
            "unaccepted media type on the wire",
            &reply,
            ErrorKind::ContentTypeNotSupported,
            "3.1.1, 3.3.2",
        );
    }

    // InvalidParams: a message without parts (spec 5.7: required arrays hold at least one element).
    let params = json!({"message": {"messageId": a2a_proto::new_id(), "role": "ROLE_USER", "parts": []}});
    let reply = ctx.wire(&ctx.wire_call(Operation::SendMessage, params)).await?;
    ctx.expect_wire_error(
        "SendMessage without parts on the wire",
        &reply,
        ErrorKind::InvalidParams,
        "3.3.2, 5.7",
    );
    Ok(())
}

async fn version_negotiation(ctx: &Ctx) -> Step<()> {
    let client = ctx.client();
    // spec 3.6.2: requests are processed with the semantics of the requested version.
    let v1 = ctx.call_with(VERSION_PARAM, "1.0");
    let sent = ctx.require(
        ctx.timed(client.send_message(&v1, ctx.request(ctx.message("version 1.0")))).await,
        "SendMessage with A2A-Version 1.0",
    )?;
    ctx.record("1.0", &sent);
    let Some(a2a_proto::v1::send_message_response::Payload::Task(task)) = sent.payload else {
        ctx.check(false, "demo convention", "echo answers with a Task");
        return Ok(());
    };
    let got =
        ctx.timed(client.get_task(&v1, GetTaskRequest { id: task.id.clone(), ..Default::default() })).await;
    ctx.check(got.is_ok(), "3.6.2", "GetTask with A2A-Version 1.0 must be served");

    // spec 3.6.2: an unsupported version is VersionNotSupportedError, whatever the operation.
    let future = ctx.call_with(VERSION_PARAM, "9.9");
    let result = ctx
        .timed(client.get_task(&future, GetTaskRequest { id: task.id.clone(), ..Default::default() }))
        .await;
    ctx.expect_error("GetTask 9.9", &result, ErrorKind::VersionNotSupported, "3.6.2");
    let result = ctx.timed(client.send_message(&future, ctx.request(ctx.message("version 9.9")))).await;
    ctx.expect_error("SendMessage 9.9", &result, ErrorKind::VersionNotSupported, "3.6.2");
    let result = ctx.timed(client.list_tasks(&future, ListTasksRequest::default())).await;
    ctx.expect_error("ListTasks 9.9", &result, ErrorKind::VersionNotSupported, "3.6.2");
    let call = ctx.wire_call(Operation::GetTask, json!({"id": task.id})).set_header("A2A-Version", "9.9");
    let reply = ctx.wire(&call).await?;
    ctx.expect_wire_error("GetTask 9.9 on the wire", &reply, ErrorKind::VersionNotSupported, "3.6.2");
    Ok(())
}

async fn required_extension(ctx: &Ctx) -> Step<()> {
    let required = ctx.target().required_extensions();
    // spec 3.3.4: a required extension the request does not declare (A2A-Extensions, spec 3.2.6).
    let without = CallContext::new(ServiceParams::v1());
    let result =
        ctx.timed(ctx.client().send_message(&without, ctx.request(ctx.message("no extensions")))).await;
    ctx.expect_error(
        "SendMessage without A2A-Extensions",
        &result,
        ErrorKind::ExtensionSupportRequired,
        "3.3.4",
    );
    let call = WireCall::new(Operation::SendMessage, json!({"message": user_message_json("no extensions")}))
        .header("A2A-Version", "1.0");
    let reply = ctx.wire(&call).await?;
    ctx.expect_wire_error(
        "SendMessage without A2A-Extensions on the wire",
        &reply,
        ErrorKind::ExtensionSupportRequired,
        "3.3.4",
    );
    // Declaring every required extension is served ([`Ctx::call`] declares them).
    let task = ctx.send_text_task("with the extensions").await?;
    ctx.check(
        task.state() == TaskState::Completed,
        "3.3.4, demo convention",
        "a request declaring the required extensions is served",
    );
    ctx.record("declared", &json!({"extensions": required, "state": task.state().as_str_name()}));
    Ok(())
}

async fn invalid_agent_response(ctx: &Ctx) -> Step<()> {
    // spec 3.3.2: a reply that is neither a Task nor a Message does not conform.
    let result = ctx.send(ctx.request(ctx.message("hello"))).await;
    ctx.expect_error("SendMessage", &result, ErrorKind::InvalidAgentResponse, "3.3.2");
    let reply = ctx
        .wire(&ctx.wire_call(Operation::SendMessage, json!({"message": user_message_json("hello")})))
        .await?;
    ctx.expect_wire_error("SendMessage on the wire", &reply, ErrorKind::InvalidAgentResponse, "3.3.2");
    Ok(())
}

async fn invalid_params(ctx: &Ctx) -> Step<()> {
    let client = ctx.client();
    let call = ctx.call();
    // spec 5.7: Message.parts is REQUIRED and required arrays hold at least one element; spec
    // 3.3.2: servers MUST validate input and SHOULD name the failing fields.
    let mut empty = ctx.message("no parts");
    empty.parts.clear();
    let result = ctx.send(ctx.request(empty)).await;
    if ctx.expect_error("SendMessage without parts", &result, ErrorKind::InvalidParams, "3.3.2, 5.7") {
        let fields: Vec<String> = result
            .as_ref()
            .err()
            .map(|e| e.field_violations().iter().map(|v| v.field.clone()).collect())
            .unwrap_or_default();
        ctx.should(
            fields.iter().any(|f| f.starts_with("message.parts")),
            "3.3.2",
            format!("the violation should name message.parts, named {fields:?}"),
        );
    }
    // ListTasksRequest.page_size: between 1 and 100 (spec 6.5's validation example).
    for size in [0, 101] {
        let result = ctx
            .timed(client.list_tasks(&call, ListTasksRequest { page_size: Some(size), ..Default::default() }))
            .await;
        ctx.expect_error(
            &format!("ListTasks pageSize {size}"),
            &result,
            ErrorKind::InvalidParams,
            "3.1.4, 6.5",
        );
    }
    // The same on the wire: 400 / INVALID_ARGUMENT / -32602 (spec 3.3.2, 9.5).
    let reply = ctx.wire(&ctx.wire_call(Operation::ListTasks, json!({"pageSize": 0}))).await?;
    ctx.expect_wire_error("ListTasks pageSize 0 on the wire", &reply, ErrorKind::InvalidParams, "3.3.2, 9.5");
    // spec 3.2.4 / 6.5: historyLength is a non-negative count.
    let result = ctx
        .timed(client.list_tasks(&call, ListTasksRequest { history_length: Some(-1), ..Default::default() }))
        .await;
    ctx.expect_error("ListTasks historyLength -1", &result, ErrorKind::InvalidParams, "3.2.4, 6.5");
    let task = ctx.send_text_task("a task to read").await?;
    let request = GetTaskRequest { id: task.id.clone(), history_length: Some(-1), ..Default::default() };
    let result = ctx.timed(client.get_task(&call, request)).await;
    ctx.expect_error("GetTask historyLength -1", &result, ErrorKind::InvalidParams, "3.2.4, 6.5");
    Ok(())
}
