//! The route table of a2a.proto's `google.api.http` annotations (spec 11.3) and the one function
//! that matches a request path against it.
//!
//! axum's `{param}` captures cannot split a custom verb off a segment (`abc:cancel`), so the
//! router hands every path to [`resolve`], which matches segment by segment.
//!
//! Rules, in the order they apply:
//! - The path is split on `/` *before* percent-decoding, so an id may contain an encoded `/`
//!   (`%2F`). Every variable is percent-decoded afterwards (`+` stays a `+`).
//! - A variable never matches an empty segment, so `/tasks/` and trailing slashes are unknown
//!   routes.
//! - `{id}:cancel` and `{id}:subscribe` take the verb after the last `:`. A plain `{id}` or
//!   `{task_id}` never matches a segment ending in `:cancel` or `:subscribe`, so
//!   `GET /tasks/abc:cancel` is CancelTask answered with 405, not GetTask of `abc:cancel`. Any
//!   other `:` is part of the id (`GET /tasks/urn:x` is GetTask of `urn:x`); clients that want an
//!   id ending in a verb name percent-encode its `:` (our client encodes every `:`).
//! - Every template exists with and without a leading `/{tenant}` (spec 11.3 and the
//!   `additional_bindings`). Several templates can match one path: `GET /tasks/tasks` is GetTask
//!   of task `tasks` *or* ListTasks of tenant `tasks`. Candidates are ordered non-tenant first,
//!   then by the table order; the first candidate accepting the request method wins. So the
//!   non-tenant reading wins whenever it accepts the method, and a tenant named `tasks` cannot use
//!   `GET /tasks/tasks` or `GET /tasks/extendedAgentCard` (they are GetTask).
//! - If candidates match the path but none accepts the method, the answer is 405 with `Allow`
//!   listing the methods of all candidates.

use a2a_core::Operation;
use http::Method;
use percent_encoding::percent_decode_str;

/// A request path matched to an operation, with its path variables percent-decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Matched {
    /// The operation of the matched template.
    pub(crate) operation: Operation,
    /// The HTTP method the request used (SubscribeToTask accepts two).
    pub(crate) method: Method,
    /// `{tenant}` of the `/{tenant}/...` forms.
    pub(crate) tenant: Option<String>,
    /// `{id}`: the task id, or the push config id under `pushNotificationConfigs/`.
    pub(crate) id: Option<String>,
    /// `{task_id}` of the push config routes.
    pub(crate) task_id: Option<String>,
}

impl Matched {
    /// The path variables as `(JSON name, snake_case name, value)` of the request message fields
    /// they set (google.api.http: a path variable names a field of the request message).
    pub(crate) fn bindings(&self) -> Vec<(&'static str, &'static str, &str)> {
        let mut bindings = Vec::new();
        if let Some(tenant) = &self.tenant {
            bindings.push(("tenant", "tenant", tenant.as_str()));
        }
        if let Some(task_id) = &self.task_id {
            bindings.push(("taskId", "task_id", task_id.as_str()));
        }
        if let Some(id) = &self.id {
            bindings.push(("id", "id", id.as_str()));
        }
        bindings
    }
}

/// Why a path did not resolve to an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RouteError {
    /// No template matches the path.
    NotFound,
    /// Templates match the path, but none accepts the method; `allow` lists theirs.
    MethodNotAllowed {
        /// The methods the path accepts, in table order without duplicates.
        allow: Vec<Method>,
    },
    /// A path variable is not UTF-8 once percent-decoded.
    Undecodable {
        /// The field the variable sets (`id`, `taskId`, `tenant`).
        field: &'static str,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Var {
    Id,
    TaskId,
}

#[derive(Debug, Clone, Copy)]
enum Segment {
    /// Matches exactly this text (including literal verbs such as `message:send`).
    Literal(&'static str),
    /// Matches one non-empty segment that does not end in a task verb.
    Var(Var),
    /// Matches `{var}:verb` with a non-empty variable.
    VarVerb(Var, &'static str),
}

#[derive(Debug, Clone, Copy)]
enum Verb {
    Get,
    Post,
    Delete,
}

impl Verb {
    fn method(self) -> Method {
        match self {
            Verb::Get => Method::GET,
            Verb::Post => Method::POST,
            Verb::Delete => Method::DELETE,
        }
    }
}

#[derive(Debug)]
pub(crate) struct Template {
    verb: Verb,
    operation: Operation,
    segments: &'static [Segment],
}

/// The verbs that follow `{id}` in a segment; a plain variable never swallows them.
const TASK_VERBS: [&str; 2] = ["cancel", "subscribe"];

use Segment::{Literal, Var as V, VarVerb};

/// a2a.proto's `google.api.http` rules without the tenant prefix, in proto order. SubscribeToTask
/// is listed for POST (spec 11.3.2) and GET (the proto annotation), see A2A#1574.
const TEMPLATES: &[Template] = &[
    Template { verb: Verb::Post, operation: Operation::SendMessage, segments: &[Literal("message:send")] },
    Template {
        verb: Verb::Post,
        operation: Operation::SendStreamingMessage,
        segments: &[Literal("message:stream")],
    },
    Template { verb: Verb::Get, operation: Operation::GetTask, segments: &[Literal("tasks"), V(Var::Id)] },
    Template { verb: Verb::Get, operation: Operation::ListTasks, segments: &[Literal("tasks")] },
    Template {
        verb: Verb::Post,
        operation: Operation::CancelTask,
        segments: &[Literal("tasks"), VarVerb(Var::Id, "cancel")],
    },
    Template {
        verb: Verb::Post,
        operation: Operation::SubscribeToTask,
        segments: &[Literal("tasks"), VarVerb(Var::Id, "subscribe")],
    },
    Template {
        verb: Verb::Get,
        operation: Operation::SubscribeToTask,
        segments: &[Literal("tasks"), VarVerb(Var::Id, "subscribe")],
    },
    Template {
        verb: Verb::Post,
        operation: Operation::CreateTaskPushNotificationConfig,
        segments: &[Literal("tasks"), V(Var::TaskId), Literal("pushNotificationConfigs")],
    },
    Template {
        verb: Verb::Get,
        operation: Operation::GetTaskPushNotificationConfig,
        segments: &[Literal("tasks"), V(Var::TaskId), Literal("pushNotificationConfigs"), V(Var::Id)],
    },
    Template {
        verb: Verb::Get,
        operation: Operation::ListTaskPushNotificationConfigs,
        segments: &[Literal("tasks"), V(Var::TaskId), Literal("pushNotificationConfigs")],
    },
    Template {
        verb: Verb::Delete,
        operation: Operation::DeleteTaskPushNotificationConfig,
        segments: &[Literal("tasks"), V(Var::TaskId), Literal("pushNotificationConfigs"), V(Var::Id)],
    },
    Template {
        verb: Verb::Get,
        operation: Operation::GetExtendedAgentCard,
        segments: &[Literal("extendedAgentCard")],
    },
];

impl Template {
    /// The HTTP method of the template.
    pub(crate) fn method(&self) -> Method {
        self.verb.method()
    }

    /// Whether the request's fields go into the body (POST, `body: "*"`) rather than the query.
    pub(crate) fn has_body(&self) -> bool {
        matches!(self.verb, Verb::Post)
    }

    /// The JSON names of the request fields the template's variables set.
    pub(crate) fn variables(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.segments.iter().filter_map(|segment| match segment {
            Literal(_) => None,
            V(var) | VarVerb(var, _) => Some(var.field()),
        })
    }

    /// The template's path (without tenant, starting with `/`), each variable the segment
    /// `value` gives for its request field (already percent-encoded).
    pub(crate) fn path<E>(
        &self,
        mut value: impl FnMut(&'static str) -> Result<String, E>,
    ) -> Result<String, E> {
        let mut path = String::new();
        for segment in self.segments {
            path.push('/');
            match segment {
                Literal(literal) => path.push_str(literal),
                V(var) => path.push_str(&value(var.field())?),
                VarVerb(var, verb) => {
                    path.push_str(&value(var.field())?);
                    path.push(':');
                    path.push_str(verb);
                }
            }
        }
        Ok(path)
    }
}

impl Var {
    /// The JSON name of the request field the variable sets.
    fn field(self) -> &'static str {
        match self {
            Var::Id => "id",
            Var::TaskId => "taskId",
        }
    }
}

/// The route a client calls for `operation` with `method`, or with the method of the table's
/// first route of the operation when `method` is `None` (SubscribeToTask: POST, spec 11.3.2).
pub(crate) fn client_route(operation: Operation, method: Option<&Method>) -> &'static Template {
    TEMPLATES
        .iter()
        .find(|template| template.operation == operation && method.is_none_or(|m| template.method() == *m))
        .expect("every operation has a route of each method the client uses (tested)")
}

/// A template matched against raw (still percent-encoded) segments.
#[derive(Debug)]
struct Candidate<'a> {
    template: &'static Template,
    tenant: Option<&'a str>,
    id: Option<&'a str>,
    task_id: Option<&'a str>,
}

/// Resolves `method` + `path` (the URI path, still percent-encoded, starting with `/`) to an
/// operation, following the rules of the module docs.
pub(crate) fn resolve(method: &Method, path: &str) -> Result<Matched, RouteError> {
    // The segments on the stack: a path with more than the longest template's (tenant included)
    // matches nothing. Nothing here allocates until a variable is decoded.
    let mut segments = [""; MAX_SEGMENTS];
    let mut len = 0;
    for segment in path.strip_prefix('/').unwrap_or(path).split('/') {
        let slot = segments.get_mut(len).ok_or(RouteError::NotFound)?;
        *slot = segment;
        len += 1;
    }
    let raw = &segments[..len];
    let tenant_form = raw.split_first().filter(|(tenant, _)| !tenant.is_empty());
    // In the order of the module docs: every non-tenant reading, then every tenant one.
    let candidates = || {
        let plain = TEMPLATES.iter().filter_map(move |template| match_template(template, None, raw));
        let tenant = tenant_form.into_iter().flat_map(|(tenant, rest)| {
            TEMPLATES.iter().filter_map(move |template| match_template(template, Some(tenant), rest))
        });
        plain.chain(tenant)
    };
    let Some(chosen) = candidates().find(|c| c.template.verb.method() == *method) else {
        let mut allow: Vec<Method> = Vec::new();
        for candidate in candidates() {
            let method = candidate.template.verb.method();
            if !allow.contains(&method) {
                allow.push(method);
            }
        }
        if allow.is_empty() {
            return Err(RouteError::NotFound);
        }
        return Err(RouteError::MethodNotAllowed { allow });
    };
    Ok(Matched {
        operation: chosen.template.operation,
        method: method.clone(),
        tenant: chosen.tenant.map(|raw| decode(raw, "tenant")).transpose()?,
        id: chosen.id.map(|raw| decode(raw, "id")).transpose()?,
        task_id: chosen.task_id.map(|raw| decode(raw, "taskId")).transpose()?,
    })
}

/// The most segments a path can have and match: the longest template's, plus the tenant.
const MAX_SEGMENTS: usize = 1 + longest_template();

const fn longest_template() -> usize {
    let mut longest = 0;
    let mut i = 0;
    while i < TEMPLATES.len() {
        if TEMPLATES[i].segments.len() > longest {
            longest = TEMPLATES[i].segments.len();
        }
        i += 1;
    }
    longest
}

fn match_template<'a>(
    template: &'static Template,
    tenant: Option<&'a str>,
    raw: &[&'a str],
) -> Option<Candidate<'a>> {
    if raw.len() != template.segments.len() {
        return None;
    }
    let mut candidate = Candidate { template, tenant, id: None, task_id: None };
    for (segment, &text) in template.segments.iter().zip(raw) {
        let (var, value) = match *segment {
            Literal(literal) if literal == text => continue,
            Literal(_) => return None,
            V(var) => {
                let ends_in_verb = text.rsplit_once(':').is_some_and(|(_, verb)| TASK_VERBS.contains(&verb));
                if text.is_empty() || ends_in_verb {
                    return None;
                }
                (var, text)
            }
            VarVerb(var, verb) => {
                let (head, tail) = text.rsplit_once(':')?;
                if head.is_empty() || tail != verb {
                    return None;
                }
                (var, head)
            }
        };
        match var {
            Var::Id => candidate.id = Some(value),
            Var::TaskId => candidate.task_id = Some(value),
        }
    }
    Some(candidate)
}

fn decode(raw: &str, field: &'static str) -> Result<String, RouteError> {
    percent_decode_str(raw)
        .decode_utf8()
        .map(|decoded| decoded.into_owned())
        .map_err(|_| RouteError::Undecodable { field })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(method: Method, path: &str) -> Matched {
        resolve(&method, path).unwrap_or_else(|e| panic!("{method} {path}: {e:?}"))
    }

    #[test]
    fn every_annotated_route_resolves_with_and_without_tenant() {
        let cases = [
            (Method::POST, "/message:send", Operation::SendMessage, None, None),
            (Method::POST, "/message:stream", Operation::SendStreamingMessage, None, None),
            (Method::GET, "/tasks/t1", Operation::GetTask, Some("t1"), None),
            (Method::GET, "/tasks", Operation::ListTasks, None, None),
            (Method::POST, "/tasks/t1:cancel", Operation::CancelTask, Some("t1"), None),
            (Method::POST, "/tasks/t1:subscribe", Operation::SubscribeToTask, Some("t1"), None),
            (Method::GET, "/tasks/t1:subscribe", Operation::SubscribeToTask, Some("t1"), None),
            (
                Method::POST,
                "/tasks/t1/pushNotificationConfigs",
                Operation::CreateTaskPushNotificationConfig,
                None,
                Some("t1"),
            ),
            (
                Method::GET,
                "/tasks/t1/pushNotificationConfigs/c1",
                Operation::GetTaskPushNotificationConfig,
                Some("c1"),
                Some("t1"),
            ),
            (
                Method::GET,
                "/tasks/t1/pushNotificationConfigs",
                Operation::ListTaskPushNotificationConfigs,
                None,
                Some("t1"),
            ),
            (
                Method::DELETE,
                "/tasks/t1/pushNotificationConfigs/c1",
                Operation::DeleteTaskPushNotificationConfig,
                Some("c1"),
                Some("t1"),
            ),
            (Method::GET, "/extendedAgentCard", Operation::GetExtendedAgentCard, None, None),
        ];
        for (method, path, operation, id, task_id) in cases {
            let plain = ok(method.clone(), path);
            assert_eq!(
                (plain.operation, plain.tenant.as_deref(), plain.id.as_deref(), plain.task_id.as_deref()),
                (operation, None, id, task_id),
                "{method} {path}"
            );
            let tenanted = ok(method.clone(), &format!("/acme{path}"));
            assert_eq!(
                (
                    tenanted.operation,
                    tenanted.tenant.as_deref(),
                    tenanted.id.as_deref(),
                    tenanted.task_id.as_deref()
                ),
                (operation, Some("acme"), id, task_id),
                "{method} /acme{path}"
            );
        }
    }

    #[test]
    fn the_longest_paths_resolve_and_longer_ones_are_unknown() {
        let longest = "/acme/tasks/t1/pushNotificationConfigs/c1";
        assert_eq!(longest.split('/').count() - 1, MAX_SEGMENTS);
        assert_eq!(ok(Method::GET, longest).operation, Operation::GetTaskPushNotificationConfig);
        assert_eq!(resolve(&Method::GET, &format!("{longest}/x")), Err(RouteError::NotFound));
        assert_eq!(resolve(&Method::GET, &"/x".repeat(1000)), Err(RouteError::NotFound));
        assert_eq!(resolve(&Method::GET, "/"), Err(RouteError::NotFound));
    }

    #[test]
    fn variables_are_percent_decoded_after_splitting() {
        let m = ok(Method::GET, "/tasks/a%2Fb%20c%3Ad+e");
        assert_eq!(m.id.as_deref(), Some("a/b c:d+e"));
        let m = ok(Method::POST, "/ten%20ant/tasks/x%3Acancel:cancel");
        assert_eq!((m.tenant.as_deref(), m.id.as_deref()), (Some("ten ant"), Some("x:cancel")));
        let m = ok(Method::GET, "/tasks/t%2F1/pushNotificationConfigs/c%2F2");
        assert_eq!((m.task_id.as_deref(), m.id.as_deref()), (Some("t/1"), Some("c/2")));
    }

    #[test]
    fn undecodable_variable_is_reported_with_its_field() {
        assert_eq!(resolve(&Method::GET, "/tasks/%FF"), Err(RouteError::Undecodable { field: "id" }));
        assert_eq!(resolve(&Method::GET, "/%C3/tasks"), Err(RouteError::Undecodable { field: "tenant" }));
    }

    #[test]
    fn colons_that_are_not_task_verbs_belong_to_the_id() {
        assert_eq!(ok(Method::GET, "/tasks/urn:task:1").id.as_deref(), Some("urn:task:1"));
        assert_eq!(ok(Method::POST, "/tasks/urn:x:cancel").id.as_deref(), Some("urn:x"));
        // An unknown verb is part of the id, so POST finds only GetTask.
        assert_eq!(
            resolve(&Method::POST, "/tasks/abc:frobnicate"),
            Err(RouteError::MethodNotAllowed { allow: vec![Method::GET] })
        );
    }

    #[test]
    fn a_task_verb_is_never_read_as_part_of_a_plain_id() {
        assert_eq!(
            resolve(&Method::GET, "/tasks/abc:cancel"),
            Err(RouteError::MethodNotAllowed { allow: vec![Method::POST] })
        );
        assert_eq!(
            resolve(&Method::GET, "/tasks/t/pushNotificationConfigs/c:cancel"),
            Err(RouteError::NotFound)
        );
    }

    #[test]
    fn non_tenant_reading_wins_when_it_accepts_the_method() {
        // GetTask of task "tasks", not ListTasks of tenant "tasks".
        let m = ok(Method::GET, "/tasks/tasks");
        assert_eq!((m.operation, m.id.as_deref(), m.tenant), (Operation::GetTask, Some("tasks"), None));
        let m = ok(Method::GET, "/tasks/extendedAgentCard");
        assert_eq!(m.operation, Operation::GetTask);
        // ListTaskPushNotificationConfigs of task "tasks", not GetTask of tenant "tasks".
        let m = ok(Method::GET, "/tasks/tasks/pushNotificationConfigs");
        assert_eq!(
            (m.operation, m.task_id.as_deref()),
            (Operation::ListTaskPushNotificationConfigs, Some("tasks"))
        );
        // The non-tenant reading (GetTask) does not accept POST; the tenant reading does.
        let m = ok(Method::POST, "/tasks/message:send");
        assert_eq!((m.operation, m.tenant.as_deref()), (Operation::SendMessage, Some("tasks")));
    }

    #[test]
    fn a_tenant_is_any_first_segment_before_a_known_route() {
        let m = ok(Method::GET, "/message:send/tasks");
        assert_eq!((m.operation, m.tenant.as_deref()), (Operation::ListTasks, Some("message:send")));
        let m = ok(Method::GET, "/t/tasks/tasks/pushNotificationConfigs/c");
        assert_eq!(
            (m.operation, m.tenant.as_deref(), m.task_id.as_deref(), m.id.as_deref()),
            (Operation::GetTaskPushNotificationConfig, Some("t"), Some("tasks"), Some("c"))
        );
    }

    #[test]
    fn wrong_method_lists_every_method_the_path_accepts() {
        assert_eq!(
            resolve(&Method::PUT, "/tasks/t1:subscribe"),
            Err(RouteError::MethodNotAllowed { allow: vec![Method::POST, Method::GET] })
        );
        assert_eq!(
            resolve(&Method::PATCH, "/tasks/t/pushNotificationConfigs/c"),
            Err(RouteError::MethodNotAllowed { allow: vec![Method::GET, Method::DELETE] })
        );
        assert_eq!(
            resolve(&Method::GET, "/message:send"),
            Err(RouteError::MethodNotAllowed { allow: vec![Method::POST] })
        );
        // ListTasks of tenant `acme` is GET only.
        assert_eq!(
            resolve(&Method::DELETE, "/acme/tasks"),
            Err(RouteError::MethodNotAllowed { allow: vec![Method::GET] })
        );
    }

    #[test]
    fn unknown_and_malformed_paths_are_not_found() {
        for path in [
            "/",
            "",
            "/tasks/",
            "/tasks//pushNotificationConfigs",
            "/tasks/:cancel",
            "/message:sendx",
            "/v1/message:send/extra",
            "//tasks",
            "/tasks/t/pushNotificationConfigs/",
            "/a/b/tasks",
            "/tasks/t/other",
        ] {
            assert_eq!(resolve(&Method::GET, path), Err(RouteError::NotFound), "{path}");
        }
    }

    #[test]
    fn a_client_route_is_resolved_back_to_its_operation() {
        for operation in Operation::ALL {
            let template = client_route(operation, None);
            let path = template.path(|field| Ok::<_, ()>(format!("{field}-1"))).unwrap();
            let m = ok(template.method(), &path);
            assert_eq!(m.operation, operation, "{path}");
            let variables: Vec<_> = template.variables().collect();
            let bound: Vec<_> =
                m.bindings().into_iter().map(|(json, _, value)| (json, value.to_owned())).collect();
            let expected: Vec<_> = variables.iter().map(|field| (*field, format!("{field}-1"))).collect();
            let mut bound = bound;
            bound.sort();
            let mut expected = expected;
            expected.sort();
            assert_eq!(bound, expected, "{path}");
        }
        assert_eq!(client_route(Operation::SubscribeToTask, None).method(), Method::POST);
        assert_eq!(client_route(Operation::SubscribeToTask, Some(&Method::GET)).method(), Method::GET);
    }

    #[test]
    fn bindings_name_the_request_fields() {
        let m = ok(Method::DELETE, "/acme/tasks/t1/pushNotificationConfigs/c1");
        assert_eq!(
            m.bindings(),
            [("tenant", "tenant", "acme"), ("taskId", "task_id", "t1"), ("id", "id", "c1")]
        );
    }
}
