//! Agent discovery: the public card over HTTP (spec 8.2, 4.4.1) and the extended card over each
//! binding (spec 3.1.11, 3.3.4); in the 0.3 columns also the card as a 0.3 client reads it (0.3
//! spec 5.5, 5.6) and the extended card over 0.3 (`agent/getAuthenticatedExtendedCard`, 0.3 spec
//! 7.10).

use a2a_core::Operation;
use a2a_proto::v1::{AgentCard, GetExtendedAgentCardRequest};
use serde_json::{json, Value};

use crate::binding::Binding;
use crate::context::{Ctx, Step, Stop};
use crate::kind::ErrorKind;
use crate::scenario::{Capability, Needs, Scenario, Setup};
use crate::target::{fetch_card, version_of};

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            id: "agent-card",
            title: "The card is served at the well-known URI with every required field, and declares this binding",
            spec: "8.2, 4.4.1, 5.5, 5.7, 8.3.1, 8.6.1",
            needs: Needs::agent(),
            run: |ctx| Box::pin(agent_card(ctx)),
        },
        Scenario {
            id: "extended-card",
            title: "GetExtendedAgentCard returns a complete card when the card declares one",
            spec: "3.1.11, 4.4.1",
            needs: Needs::agent().capabilities(&[Capability::ExtendedAgentCard]),
            run: |ctx| Box::pin(extended_card(ctx)),
        },
        Scenario {
            id: "extended-card-not-supported",
            title: "GetExtendedAgentCard is UnsupportedOperation when the card does not declare it",
            spec: "3.3.4, 3.1.11, 5.4",
            needs: Needs::setup(Setup::Lacking(Capability::ExtendedAgentCard)),
            run: |ctx| Box::pin(extended_card_not_supported(ctx)),
        },
        Scenario {
            id: "extended-card-not-configured",
            title: "GetExtendedAgentCard is ExtendedAgentCardNotConfigured when declared but not configured",
            spec: "3.3.4, 3.1.11, 5.4",
            needs: Needs::setup(Setup::ExtendedCardNotConfigured),
            run: |ctx| Box::pin(extended_card_not_configured(ctx)),
        },
    ]
}

async fn agent_card(ctx: &Ctx) -> Step<()> {
    // spec 8.2: the well-known URI, plain HTTP GET, no A2A service parameters needed.
    let served = fetch_card(&ctx.target().base_url, ctx.http())
        .await
        .map_err(|e| Stop::Fail(format!("spec 8.2: the agent card cannot be read: {e:#}")))?;
    ctx.should(
        served.content_type.as_deref().is_some_and(|t| t.contains("json")),
        "8.2",
        format!("the card should be served as JSON, Content-Type is {:?}", served.content_type),
    );
    // spec 8.6.1: caching headers.
    ctx.should(
        served.cache_control.as_deref().is_some_and(|c| c.contains("max-age")),
        "8.6.1",
        format!("the card response should have Cache-Control with max-age, got {:?}", served.cache_control),
    );
    ctx.should(served.etag.is_some(), "8.6.1", "the card response should have an ETag");
    check_card(ctx, &served.card, "the agent card");
    check_camel_case(ctx, &served.json);
    // spec 8.3.1: the interface under test is declared with its binding, URL and version.
    let interface = ctx.interface();
    ctx.check(
        !interface.url.trim().is_empty(),
        "8.3.1",
        format!("the {} interface must declare its URL", ctx.binding()),
    );
    if ctx.is_v03() {
        check_v03_view(ctx, &served.json, &served.card);
    }
    // The binding's own name and URL differ per binding by design; the card does not.
    ctx.record("card", &summary(&served.card));
    // The interface of a 0.3 column declares 0.3, of a 1.0 column 1.0: by design.
    ctx.record_per_version(
        "interface",
        &json!({"protocolVersion": interface.protocol_version, "tenant": interface.tenant}),
    );
    Ok(())
}

/// The card as a 0.3 client reads it: the members the 0.3 schema requires (0.3 spec 5.5,
/// `a2a.json`), `preferredTransport` (0.3 spec 5.6.1: REQUIRED), and a 0.3 view consistent with
/// the interfaces the card declares for 0.3 (spec 8.3.1): the main `url` serves
/// `preferredTransport` in 0.3, and this column's interface is one a 0.3 client can find in `url`
/// / `preferredTransport` or `additionalInterfaces` (0.3 spec 5.6.2, 5.6.3).
fn check_v03_view(ctx: &Ctx, json: &Value, card: &AgentCard) {
    let has = |object: &Value, field: &str| object.get(field).is_some_and(|v| !v.is_null());
    for field in [
        "name",
        "description",
        "url",
        "version",
        "protocolVersion",
        "capabilities",
        "defaultInputModes",
        "defaultOutputModes",
        "skills",
        "preferredTransport",
    ] {
        ctx.check(has(json, field), "0.3 5.5, 5.6.1", format!("the 0.3 card: {field} is required"));
    }
    for (i, skill) in json.get("skills").and_then(Value::as_array).into_iter().flatten().enumerate() {
        for field in ["id", "name", "description", "tags"] {
            ctx.check(
                has(skill, field),
                "0.3 5.5.4",
                format!("the 0.3 card: skills[{i}].{field} is required"),
            );
        }
    }
    let version = json.get("protocolVersion").and_then(Value::as_str).unwrap_or_default();
    ctx.check(
        version_of(version) == Some(a2a_core::ProtocolVersion::V0_3),
        "0.3 5.5, 3.6.2",
        format!("the card's 0.3 view must declare protocolVersion 0.3, it declares {version:?}"),
    );
    let text = |value: Option<&Value>| value.and_then(Value::as_str).unwrap_or_default().trim().to_owned();
    let main = (text(json.get("url")), text(json.get("preferredTransport")));
    let mut offered = vec![main.clone()];
    for (i, entry) in
        json.get("additionalInterfaces").and_then(Value::as_array).into_iter().flatten().enumerate()
    {
        ctx.check(
            has(entry, "url") && has(entry, "transport"),
            "0.3 5.5.5",
            format!("the 0.3 card: additionalInterfaces[{i}] needs url and transport"),
        );
        offered.push((text(entry.get("url")), text(entry.get("transport"))));
    }
    let same = |(url, transport): &(String, String), interface: &a2a_proto::v1::AgentInterface| {
        url.trim_end_matches('/') == interface.url.trim().trim_end_matches('/')
            && Binding::from_protocol_binding(transport)
                == Binding::from_protocol_binding(&interface.protocol_binding)
    };
    let declared_v03: Vec<&a2a_proto::v1::AgentInterface> = card
        .supported_interfaces
        .iter()
        .filter(|i| version_of(&i.protocol_version) == Some(a2a_core::ProtocolVersion::V0_3))
        .collect();
    ctx.check(
        declared_v03.iter().any(|i| same(&main, i)),
        "0.3 5.6.1, 8.3.1",
        format!(
            "the 0.3 main url {:?} with preferredTransport {:?} is not an interface the card declares for 0.3",
            main.0, main.1
        ),
    );
    let interface = ctx.interface();
    ctx.check(
        offered.iter().any(|o| same(o, interface)),
        "0.3 5.6.2, 5.6.3, 8.3.1",
        format!(
            "the card declares a {} 0.3 interface at {:?}, which its 0.3 view (url, additionalInterfaces) does not offer",
            ctx.binding(),
            interface.url
        ),
    );
    let mut transports: Vec<String> = offered.iter().map(|(_, t)| t.clone()).collect();
    transports.sort();
    transports.dedup();
    ctx.record_per_version(
        "0.3 view",
        &json!({"protocolVersion": version, "preferredTransport": main.1, "transports": transports}),
    );
}

async fn extended_card(ctx: &Ctx) -> Step<()> {
    let card = ctx.card();
    if !card.security_schemes.is_empty() || !card.security_requirements.is_empty() {
        // spec 3.1.11: the request must authenticate with a declared scheme; the suite has no
        // credentials for the agent.
        return Err(Stop::Skip(
            "the card declares security, and the extended card needs an authenticated request (spec 3.1.11); \
             the suite sends no credentials"
                .into(),
        ));
    }
    let result = ctx
        .timed(ctx.client().get_extended_agent_card(&ctx.call(), GetExtendedAgentCardRequest::default()))
        .await;
    let extended =
        ctx.require(result, "spec 3.1.11: GetExtendedAgentCard of a card declaring extendedAgentCard")?;
    // spec 3.1.11: "A complete Agent Card object".
    check_card(ctx, &extended, "the extended card");
    let mut summary = summary(&extended);
    let interfaces = summary.as_object_mut().and_then(|s| s.remove("interfaces")).unwrap_or_default();
    ctx.record("extended", &summary);
    // Over 0.3 the extended card is a 0.3 card: JSON-RPC's is the union card (every interface),
    // HTTP+JSON's and gRPC's the 0.3 proto's `AgentCard`, which can only list the 0.3
    // interfaces. A 0.3 column compares what every 0.3 card holds: the 0.3 interfaces.
    let interfaces: Vec<Value> = interfaces
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| !ctx.is_v03() || i.as_str().is_some_and(|i| i.ends_with(" 0.3")))
        .cloned()
        .collect();
    ctx.record_per_version("extended interfaces", &interfaces);
    Ok(())
}

async fn extended_card_not_supported(ctx: &Ctx) -> Step<()> {
    let result = ctx
        .timed(ctx.client().get_extended_agent_card(&ctx.call(), GetExtendedAgentCardRequest::default()))
        .await;
    // spec 3.3.4: extendedAgentCard false or absent -> UnsupportedOperationError.
    ctx.expect_error("GetExtendedAgentCard", &result, ErrorKind::UnsupportedOperation, "3.3.4");
    let reply = ctx.wire(&ctx.wire_call(Operation::GetExtendedAgentCard, json!({}))).await?;
    ctx.expect_wire_error(
        "GetExtendedAgentCard on the wire",
        &reply,
        ErrorKind::UnsupportedOperation,
        "3.3.4",
    );
    Ok(())
}

async fn extended_card_not_configured(ctx: &Ctx) -> Step<()> {
    let result = ctx
        .timed(ctx.client().get_extended_agent_card(&ctx.call(), GetExtendedAgentCardRequest::default()))
        .await;
    // spec 3.3.4: declared but not configured -> ExtendedAgentCardNotConfiguredError.
    ctx.expect_error("GetExtendedAgentCard", &result, ErrorKind::ExtendedAgentCardNotConfigured, "3.3.4");
    let reply = ctx.wire(&ctx.wire_call(Operation::GetExtendedAgentCard, json!({}))).await?;
    ctx.expect_wire_error(
        "GetExtendedAgentCard on the wire",
        &reply,
        ErrorKind::ExtendedAgentCardNotConfigured,
        "3.3.4",
    );
    Ok(())
}

/// The fields the proto marks REQUIRED (spec 4.4.1; 5.7: required arrays hold at least one element).
fn check_card(ctx: &Ctx, card: &AgentCard, what: &str) {
    let required = |ok: bool, field: &str| {
        ctx.check(ok, "4.4.1, 5.7", format!("{what}: {field} is required"));
    };
    required(!card.name.is_empty(), "name");
    required(!card.description.is_empty(), "description");
    required(!card.version.is_empty(), "version");
    required(card.capabilities.is_some(), "capabilities");
    required(!card.supported_interfaces.is_empty(), "supportedInterfaces (at least one)");
    required(!card.default_input_modes.is_empty(), "defaultInputModes (at least one)");
    required(!card.default_output_modes.is_empty(), "defaultOutputModes (at least one)");
    required(!card.skills.is_empty(), "skills (at least one)");
    for (i, interface) in card.supported_interfaces.iter().enumerate() {
        // spec 4.4.6
        required(!interface.url.is_empty(), &format!("supportedInterfaces[{i}].url"));
        required(
            !interface.protocol_binding.is_empty(),
            &format!("supportedInterfaces[{i}].protocolBinding"),
        );
        required(
            !interface.protocol_version.is_empty(),
            &format!("supportedInterfaces[{i}].protocolVersion"),
        );
    }
    for (i, skill) in card.skills.iter().enumerate() {
        // spec 4.4.5
        required(!skill.id.is_empty(), &format!("skills[{i}].id"));
        required(!skill.name.is_empty(), &format!("skills[{i}].name"));
        required(!skill.description.is_empty(), &format!("skills[{i}].description"));
        required(!skill.tags.is_empty(), &format!("skills[{i}].tags (at least one)"));
    }
    if let Some(provider) = &card.provider {
        // spec 4.4.2
        required(!provider.url.is_empty(), "provider.url");
        required(!provider.organization.is_empty(), "provider.organization");
    }
}

/// spec 5.5: JSON field names are camelCase. Checked on the card's own objects (not inside maps
/// such as `securitySchemes` or `metadata`, whose keys are data).
fn check_camel_case(ctx: &Ctx, card: &Value) {
    let mut objects: Vec<(&str, &Value)> = vec![("card", card)];
    if let Some(capabilities) = card.get("capabilities") {
        objects.push(("capabilities", capabilities));
    }
    if let Some(provider) = card.get("provider") {
        objects.push(("provider", provider));
    }
    for key in ["supportedInterfaces", "skills"] {
        for item in card.get(key).and_then(Value::as_array).into_iter().flatten() {
            objects.push((key, item));
        }
    }
    for (where_, object) in objects {
        for name in object.as_object().into_iter().flat_map(|o| o.keys()) {
            ctx.check(
                !name.contains('_'),
                "5.5",
                format!("the card's {where_} has the snake_case field {name:?}"),
            );
        }
    }
}

/// What the card says, without run-specific parts (interface URLs differ per server).
fn summary(card: &AgentCard) -> Value {
    let mut interfaces: Vec<String> = card
        .supported_interfaces
        .iter()
        .map(|i| {
            let version = version_of(&i.protocol_version).map_or(i.protocol_version.as_str(), |v| v.as_str());
            format!("{} {version}", i.protocol_binding)
        })
        .collect();
    interfaces.sort();
    let capabilities = card.capabilities.as_ref().map(|c| {
        json!({
            "streaming": c.streaming,
            "pushNotifications": c.push_notifications,
            "extendedAgentCard": c.extended_agent_card,
            "extensions": c.extensions.iter().map(|e| json!({"uri": e.uri, "required": e.required})).collect::<Vec<_>>(),
        })
    });
    json!({
        "name": card.name,
        "description": card.description,
        "version": card.version,
        "interfaces": interfaces,
        "capabilities": capabilities,
        "defaultInputModes": card.default_input_modes,
        "defaultOutputModes": card.default_output_modes,
        "skills": card.skills.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
    })
}
