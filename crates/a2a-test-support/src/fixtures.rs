//! The canned values of [`DefaultAnswers`](crate::DefaultAnswers), for tests to build requests
//! from and to compare answers with. Every task lives in context [`CONTEXT_ID`].

use a2a_proto::v1::{
    AgentCapabilities, AgentCard, Artifact, Message, SendMessageRequest, StreamResponse, Task,
    TaskArtifactUpdateEvent, TaskPushNotificationConfig, TaskState, TaskStatus, TaskStatusUpdateEvent,
};

/// The context of every canned task and event.
pub const CONTEXT_ID: &str = "ctx-1";

/// A task in `state`, in context [`CONTEXT_ID`].
pub fn task(id: &str, state: TaskState) -> Task {
    Task {
        id: id.into(),
        context_id: CONTEXT_ID.into(),
        status: Some(TaskStatus { state: state.into(), ..Default::default() }),
        ..Default::default()
    }
}

/// A status update of task `task_id` to `state`.
pub fn status_update(task_id: &str, state: TaskState) -> StreamResponse {
    TaskStatusUpdateEvent {
        task_id: task_id.into(),
        context_id: CONTEXT_ID.into(),
        status: Some(TaskStatus { state: state.into(), ..Default::default() }),
        ..Default::default()
    }
    .into()
}

/// An artifact update of task `task_id` carrying `artifact`.
pub fn artifact_update(task_id: &str, artifact: Artifact) -> StreamResponse {
    TaskArtifactUpdateEvent {
        task_id: task_id.into(),
        context_id: CONTEXT_ID.into(),
        artifact: Some(artifact),
        ..Default::default()
    }
    .into()
}

/// What every stream of [`DefaultAnswers`](crate::DefaultAnswers) carries: the task, a status
/// update, an artifact, and the final status (the task lifecycle stream of spec 3.1.2: the Task
/// first).
pub fn stream_events(task_id: &str) -> Vec<StreamResponse> {
    vec![
        task(task_id, TaskState::Working).into(),
        status_update(task_id, TaskState::Working),
        artifact_update(task_id, Artifact { artifact_id: "a-1".into(), ..Artifact::new(vec![]) }),
        status_update(task_id, TaskState::Completed),
    ]
}

/// A push config of task `task_id` with id `id`.
pub fn push_config(task_id: &str, id: &str) -> TaskPushNotificationConfig {
    TaskPushNotificationConfig {
        task_id: task_id.into(),
        id: id.into(),
        url: "https://client.example.com/webhook".into(),
        ..Default::default()
    }
}

/// The card the scripted service answers GetExtendedAgentCard with (streaming capable).
pub fn agent_card() -> AgentCard {
    AgentCard {
        name: "Scripted Agent".into(),
        description: "answers from a script".into(),
        version: "1.0.0".into(),
        capabilities: Some(AgentCapabilities { streaming: Some(true), ..Default::default() }),
        ..Default::default()
    }
}

/// A SendMessage request with one user text message.
pub fn send(text: &str) -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text(text)), ..Default::default() }
}
