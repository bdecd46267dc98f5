//! Errors: every A2A error an agent can be led to, by kind (what every binding's client recovers)
//! and by its code on the wire (spec 3.3.2, 5.4, 9.5, 10.6, 11.6; in 0.3 the 0.3 codes, 0.3 spec
//! 8); versions (spec 3.6), required extensions (spec 3.3.4) and invalid parameters (spec 5.7,
//! 3.1.4, 3.2.4, 6.5).

use a2a_core::context::{EXTENSIONS_PARAM, VERSION_PARAM};
use a2a_core::{CallContext, Operation, ServiceParams};
use a2a_proto::v1::{GetTaskRequest, ListTasksRequest, Message, Part, TaskState};
use serde_json::json;

use super::{require_state, NO_SUCH_TASK};
use crate::context::{Ctx, Step};
use crate::kind::ErrorKind;
use crate::scenario::{Needs, Scenario, Setup};
use crate::wire::WireReply;

/// Where 0.3 names no error for a message to a task in a terminal state.
const V03_TERMINAL: &str = "0.3 7.1 (a message to a terminal task \"will result in an error\", none named)";

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
            title: "A2A-Version 1.0 is served; 9.9 is VersionNotSupported; in 0.3, no A2A-Version is served as 0.3",
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
    ctx.expect_error_unnamed_in_v03(
        "SendMessage to a completed task",
        &late,
        ErrorKind::UnsupportedOperation,
        "3.1.1",
        V03_TERMINAL,
    );
    let mut message = user_message_json("more");
    message["taskId"] = json!(done.id);
    let reply = ctx.wire(&ctx.wire_call(Operation::SendMessage, json!({"message": message}))).await?;
    ctx.expect_wire_error_unnamed_in_v03(
        "SendMessage to a completed task on the wire",
        &reply,
        ErrorKind::UnsupportedOperation,
        "3.1.1",
        V03_TERMINAL,
    );

    // ContentTypeNotSupported (spec 3.1.1): a part whose media type the card's input modes exclude.
    if accepts(ctx.card(), ODD_MEDIA_TYPE) {
        ctx.note(format!(
            "ContentTypeNotSupported not checked: the card's input modes accept {ODD_MEDIA_TYPE}"
        ));
    } else {
        // 0.3 has a media type on file parts only (0.3 6.5.2, `mimeType`; a text part's is
        // dropped by the translation), so the 0.3 columns send the odd type on a file part.
        let (odd, odd_json) = if ctx.is_v03() {
            (Part::raw(b"odd".to_vec(), ODD_MEDIA_TYPE), json!({"raw": "b2Rk", "mediaType": ODD_MEDIA_TYPE}))
        } else {
            (
                Part::text("odd").with_media_type(ODD_MEDIA_TYPE),
                json!({"text": "odd", "mediaType": ODD_MEDIA_TYPE}),
            )
        };
        let result = ctx.send(ctx.request(Message::user(vec![odd]))).await;
        ctx.expect_error(
            "SendMessage with an unaccepted media type",
            &result,
            ErrorKind::ContentTypeNotSupported,
            "3.1.1, 3.3.2, 0.3 8.2",
        );
        let params =
            json!({"message": {"messageId": a2a_proto::new_id(), "role": "ROLE_USER", "parts": [odd_json]}});
        let reply = ctx.wire(&ctx.wire_call(Operation::SendMessage, params)).await?;
        ctx.expect_wire_error(
            "unaccepted media type on the wire",
            &reply,
            ErrorKind::ContentTypeNotSupported,
            "3.1.1, 3.3.2, 0.3 8.2",
        );
    }

    // InvalidParams: a message without parts (spec 5.7: required arrays hold at least one element).
    let params = json!({"message": {"messageId": a2a_proto::new_id(), "role": "ROLE_USER", "parts": []}});
    let reply = ctx.wire(&ctx.wire_call(Operation::SendMessage, params)).await?;
    if ctx.is_v03() {
        // 0.3's Message.parts is an array with no minimum (0.3 6.4, a2a.json): nothing pinned.
        ctx.observe_wire("SendMessage without parts on the wire", &reply);
    } else {
        // Recorded per version in 1.0 too, as the 0.3 columns record it so.
        ctx.per_version(true);
        ctx.expect_wire_error(
            "SendMessage without parts on the wire",
            &reply,
            ErrorKind::InvalidParams,
            "3.3.2, 5.7",
        );
        ctx.per_version(false);
    }
    Ok(())
}

async fn version_negotiation(ctx: &Ctx) -> Step<()> {
    if ctx.is_v03() {
        return version_negotiation_v03(ctx).await;
    }
    // Negotiating 1.0 and refusing 9.9 has no 0.3 counterpart: everything is per version.
    ctx.per_version(true);
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

/// The 0.3 side of spec 3.6.2: "agents MUST interpret [an empty A2A-Version] as version 0.3".
/// A 0.3 request carries no version (0.3 has no negotiation, and a 0.3 agent ignores the header,
/// so 9.9 pins nothing here): it is served, in the 0.3 shape, over every binding.
async fn version_negotiation_v03(ctx: &Ctx) -> Step<()> {
    // The 0.3 client (it sends A2A-Version: 0.3, as a dual agent may read it).
    let task = ctx.send_text_task("version 0.3").await?;
    let got = ctx.get_task(&task.id, None).await;
    ctx.check(got.is_ok(), "3.6.2", "GetTask in 0.3 must be served");
    ctx.record_per_version("0.3", &task);
    // No A2A-Version at all ([`Ctx::wire_call`] sends none in 0.3).
    let reply = ctx.wire(&ctx.wire_call(Operation::GetTask, json!({"id": task.id}))).await?;
    let WireReply::Ok(raw) = &reply else {
        ctx.check(false, "3.6.2", "GetTask without A2A-Version must be served as 0.3, it was an error");
        ctx.observe_wire("GetTask without A2A-Version", &reply);
        return Ok(());
    };
    // The reply is in the 0.3 shape: 0.3 JSON names the object's kind (0.3 6.1); 0.3 ProtoJSON
    // holds a message's parts in `content` (0.3 a2a.proto Message); gRPC replied on the 0.3
    // service with its message, or the call would have failed.
    let history = raw.get("history").and_then(serde_json::Value::as_array).cloned().unwrap_or_default();
    let shaped = match ctx.binding() {
        crate::Binding::JsonRpc => raw.get("kind") == Some(&json!("task")),
        crate::Binding::Rest => {
            history.iter().all(|m| m.get("content").is_some() && m.get("parts").is_none())
        }
        crate::Binding::Grpc => true,
    };
    ctx.check(
        shaped,
        "3.6.2, 0.3 6.1",
        format!("GetTask without A2A-Version must be answered in the 0.3 shape: {raw}"),
    );
    let read = ctx.wire_value::<a2a_proto::v1::Task>(&reply);
    ctx.check(
        read.as_ref().is_ok_and(|t| t.id == task.id),
        "3.6.2",
        format!("GetTask without A2A-Version must return the task: {read:?}"),
    );
    ctx.record_per_version("GetTask without A2A-Version", &json!({"served": true}));
    Ok(())
}

/// Where 0.3 names no error for a request without a required extension.
const V03_EXTENSION: &str =
    "0.3 5.5.2.1 (a required extension is the client's duty; 0.3 names no error for a request without it)";

async fn required_extension(ctx: &Ctx) -> Step<()> {
    let required = ctx.target().required_extensions();
    // spec 3.3.4: a required extension the request does not declare (A2A-Extensions, spec 3.2.6).
    let without = CallContext::new(if ctx.is_v03() { ServiceParams::new() } else { ServiceParams::v1() });
    let result =
        ctx.timed(ctx.client().send_message(&without, ctx.request(ctx.message("no extensions")))).await;
    ctx.expect_error_unnamed_in_v03(
        "SendMessage without A2A-Extensions",
        &result,
        ErrorKind::ExtensionSupportRequired,
        "3.3.4",
        V03_EXTENSION,
    );
    let call = ctx
        .wire_call(Operation::SendMessage, json!({"message": user_message_json("no extensions")}))
        .without_header(EXTENSIONS_PARAM)
        .without_header(a2a_v03::LEGACY_EXTENSIONS_PARAM);
    let reply = ctx.wire(&call).await?;
    ctx.expect_wire_error_unnamed_in_v03(
        "SendMessage without A2A-Extensions on the wire",
        &reply,
        ErrorKind::ExtensionSupportRequired,
        "3.3.4",
        V03_EXTENSION,
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

/// The fields an error names as invalid (spec 3.3.2), none for a success.
fn violated_fields<T>(result: &Result<T, a2a_core::Error>) -> Vec<String> {
    result
        .as_ref()
        .err()
        .map(|e| e.field_violations().iter().map(|v| v.field.clone()).collect())
        .unwrap_or_default()
}

async fn invalid_params(ctx: &Ctx) -> Step<()> {
    let client = ctx.client();
    let call = ctx.call();
    // spec 5.7: Message.parts is REQUIRED and required arrays hold at least one element; spec
    // 3.3.2: servers MUST validate input and SHOULD name the failing fields.
    let mut empty = ctx.message("no parts");
    empty.parts.clear();
    let result = ctx.send(ctx.request(empty)).await;
    if ctx.is_v03() {
        // 0.3's Message.parts is an array with no minimum (0.3 6.4, a2a.json), and 0.3 bounds no
        // historyLength (0.3 7.3.1): 0.3 pins neither request's outcome. The outcomes are
        // compared among the 0.3 columns.
        ctx.record_per_version("SendMessage without parts", &result);
        let task = ctx.send_text_task("a task to read").await?;
        let request = GetTaskRequest { id: task.id.clone(), history_length: Some(-1), ..Default::default() };
        let result = ctx.timed(client.get_task(&call, request)).await;
        ctx.record_per_version("GetTask historyLength -1", &result);
        return Ok(());
    }
    // Per version in 1.0 too: the 0.3 columns record these so, and the ListTasks checks are 1.0's
    // alone.
    ctx.per_version(true);
    if ctx.expect_error("SendMessage without parts", &result, ErrorKind::InvalidParams, "3.3.2, 5.7") {
        let fields = violated_fields(&result);
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
        if ctx.expect_error(
            &format!("ListTasks pageSize {size}"),
            &result,
            ErrorKind::InvalidParams,
            "3.1.4, 6.5",
        ) {
            let fields = violated_fields(&result);
            ctx.should(
                fields.iter().any(|f| f == "pageSize"),
                "3.3.2",
                format!("pageSize {size}: the violation should name pageSize, named {fields:?}"),
            );
        }
    }
    // The same on the wire: 400 / INVALID_ARGUMENT / -32602 (spec 3.3.2, 9.5).
    let reply = ctx.wire(&ctx.wire_call(Operation::ListTasks, json!({"pageSize": 0}))).await?;
    if ctx.expect_wire_error(
        "ListTasks pageSize 0 on the wire",
        &reply,
        ErrorKind::InvalidParams,
        "3.3.2, 9.5",
    ) {
        let fields = match &reply {
            WireReply::Err(error) => error.fields.clone().unwrap_or_default(),
            WireReply::Ok(_) => Vec::new(),
        };
        ctx.should(
            fields.iter().any(|f| f == "pageSize"),
            "3.3.2",
            format!("pageSize 0 on the wire: the BadRequest should name pageSize, named {fields:?}"),
        );
    }
    // spec 3.2.4 / 6.5: historyLength is a non-negative count.
    let result = ctx
        .timed(client.list_tasks(&call, ListTasksRequest { history_length: Some(-1), ..Default::default() }))
        .await;
    ctx.expect_error("ListTasks historyLength -1", &result, ErrorKind::InvalidParams, "3.2.4, 6.5");
    let task = ctx.send_text_task("a task to read").await?;
    let request = GetTaskRequest { id: task.id.clone(), history_length: Some(-1), ..Default::default() };
    let result = ctx.timed(client.get_task(&call, request)).await;
    ctx.expect_error("GetTask historyLength -1", &result, ErrorKind::InvalidParams, "3.2.4, 6.5");
    ctx.per_version(false);
    Ok(())
}
