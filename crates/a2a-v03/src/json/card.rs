//! The agent card: 1.0 → the "union" card that 0.3 and 1.0 clients both read, 1.0 → the 0.3 proto
//! card (REST `GET /v1/card`), and any card (0.3, union or 1.0) → a 1.0 `AgentCard`.
//!
//! | 1.0 | 0.3 |
//! | --- | --- |
//! | `supportedInterfaces[]` `{url, protocolBinding, tenant, protocolVersion}` | `url` + `preferredTransport` (the first 0.3 interface), `additionalInterfaces[]` `{url, transport}` (all of them), `protocolVersion` (once per card) |
//! | `capabilities.extendedAgentCard` | `supportsAuthenticatedExtendedCard` |
//! | (none) | `capabilities.stateTransitionHistory` |
//! | `securitySchemes{name: {apiKeySecurityScheme: {location, ..}}}` | `securitySchemes{name: {type: "apiKey", in, ..}}` (JSON); the 1.0 shape (ProtoJSON) |
//! | `securityRequirements[] {schemes: {name: {list}}}` | `security[] {name: [scopes]}` (JSON); `{schemes: ..}` (ProtoJSON) |
//! | `skills[].securityRequirements` | `skills[].security` |
//! | `oauth2.flows` (one of, with `deviceCode`, `pkceRequired`) | `flows` (an object that may hold several; no device code, no PKCE flag) |
//! | `iconUrl` | `iconUrl` (JSON); none (ProtoJSON) |
//!
//! **The union card** (docs/interop-notes.md): the 1.0 card as it is, plus the 0.3 members that do not
//! collide with 1.0's (`url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion:
//! "0.3.0"`, `supportsAuthenticatedExtendedCard`, `security`, `skills[].security`), plus the 0.3
//! members a 0.3 reader requires and ProtoJSON omits at their defaults (`defaultInputModes: []`,
//! `skills[].tags: []`, ...). `securitySchemes` is the one collision: each scheme object holds both
//! shapes at once (`{"type": "openIdConnect", "openIdConnectUrl": .., "openIdConnectSecurityScheme":
//! {..}}`), which validates against the 0.3 schema and parses as 1.0 ProtoJSON (unknown members are
//! ignored). The 0.3 view lists the interfaces whose `protocolVersion` is 0.3 (see
//! [`with_v03_interfaces`]); if there are none, all interfaces, on the premise that the server
//! serves both versions everywhere. Interfaces with a `tenant` are left out: 0.3 has no tenants.
//! JWS `signatures` are copied but sign the 1.0 card, not the union.
//!
//! **Reading** a card: one with `supportedInterfaces` is a 1.0 (or union) card and is parsed as
//! 1.0. Otherwise it is a 0.3 card in either form: `url`/`preferredTransport` (default `JSONRPC`)
//! becomes the first interface and each distinct `additionalInterfaces` entry another, all with the
//! card's `protocolVersion` cut to `Major.Minor` (default `0.3`); of several 0.3 OAuth flows the
//! first of authorization code, client credentials, implicit, password is kept.

use a2a_core::{Error, Result};
use a2a_proto::v1::{AgentCard, AgentInterface};
use serde_json::{json, Map, Value};

use crate::convert::{Form, V03};
use crate::read::{invalid, Obj};

/// The `protocolVersion` the union card and the 0.3 proto card declare.
pub const PROTOCOL_VERSION: &str = "0.3.0";

/// The `Major.Minor` of 0.3, as 1.0 interfaces declare it (spec 3.6: no patch in cards).
pub const INTERFACE_VERSION: &str = "0.3";

impl V03 for AgentCard {
    /// Reads a 0.3 card (either form), a union card or a 1.0 card (see the module docs).
    fn from_v03(value: &Value) -> Result<Self> {
        read(value)
    }

    /// [`Form::Json`]: the union card; [`Form::ProtoJson`]: the 0.3 proto `AgentCard`.
    fn to_v03(&self, form: Form) -> Value {
        match form {
            Form::Json => union(self),
            Form::ProtoJson => proto(self),
        }
    }
}

/// The whole validation of a served card `document`, what `a2a-cli card get --validate` and the
/// server's console report: the schema walk of [`a2a_proto::validate::card`] and, when the
/// document reads as a card (1.0, 0.3 or a union of both), the security requirements of
/// [`a2a_proto::validate::requirements`], which the schema cannot tell.
pub fn validate_card(document: &Value) -> a2a_proto::validate::Report {
    let mut report = a2a_proto::validate::card(document);
    if let Ok(card) = AgentCard::from_v03(document) {
        report.problems.extend(a2a_proto::validate::requirements(&card));
    }
    report
}

/// `card` with a 0.3 twin appended for each interface that declares another version and no
/// tenant, unless the card already declares 0.3 at that URL and binding. For a server that serves
/// both versions on every interface: 1.0 clients keep preferring the 1.0 entries (they come
/// first), clients looking for 0.3 find it declared (spec 3.6.2: several interfaces may share a
/// URL and differ in version), and the union card takes its 0.3 view from the twins.
pub fn with_v03_interfaces(card: &AgentCard) -> AgentCard {
    let mut card = card.clone();
    let twins: Vec<AgentInterface> = card
        .supported_interfaces
        .iter()
        .filter(|i| i.tenant.is_empty() && !is_v03(&i.protocol_version))
        .filter(|i| {
            !card.supported_interfaces.iter().any(|o| {
                is_v03(&o.protocol_version) && o.url == i.url && o.protocol_binding == i.protocol_binding
            })
        })
        .map(|i| AgentInterface {
            url: i.url.clone(),
            protocol_binding: i.protocol_binding.clone(),
            tenant: String::new(),
            protocol_version: INTERFACE_VERSION.into(),
        })
        .collect();
    for twin in twins {
        let duplicate = card.supported_interfaces.iter().any(|o| {
            o.url == twin.url && o.protocol_binding == twin.protocol_binding && is_v03(&o.protocol_version)
        });
        if !duplicate {
            card.supported_interfaces.push(twin);
        }
    }
    card
}

/// Whether a version string is 0.3 (`0.3`, `0.3.0`, ...).
fn is_v03(version: &str) -> bool {
    major_minor(version) == INTERFACE_VERSION
}

/// `Major.Minor` of a version string (`0.3.0` → `0.3`).
fn major_minor(version: &str) -> String {
    version.trim().split('.').take(2).collect::<Vec<_>>().join(".")
}

/// The `(url, binding)` pairs a 0.3 client may use, primary first (see the module docs).
fn v03_interfaces(card: &AgentCard) -> Vec<(&str, &str)> {
    let tenantless = || card.supported_interfaces.iter().filter(|i| i.tenant.is_empty());
    let declared: Vec<&AgentInterface> = tenantless().filter(|i| is_v03(&i.protocol_version)).collect();
    let chosen = if declared.is_empty() { tenantless().collect() } else { declared };
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for interface in chosen {
        let pair = (interface.url.as_str(), interface.protocol_binding.as_str());
        if !pairs.contains(&pair) {
            pairs.push(pair);
        }
    }
    pairs
}

fn v1_object(card: &AgentCard) -> Map<String, Value> {
    match a2a_proto::json::to_value(card) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// Sets `key` to `default` if absent.
fn ensure(object: &mut Map<String, Value>, key: &str, default: Value) {
    object.entry(key).or_insert(default);
}

fn for_each_object(value: Option<&mut Value>, mut f: impl FnMut(&mut Map<String, Value>)) {
    if let Some(Value::Array(items)) = value {
        items.iter_mut().filter_map(Value::as_object_mut).for_each(&mut f);
    }
}

fn union(card: &AgentCard) -> Value {
    let mut object = v1_object(card);
    for key in ["name", "description", "version"] {
        ensure(&mut object, key, "".into());
    }
    // `supportedInterfaces` also marks the card as 1.0 for readers (ours included).
    for key in ["supportedInterfaces", "defaultInputModes", "defaultOutputModes", "skills"] {
        ensure(&mut object, key, json!([]));
    }
    ensure(&mut object, "capabilities", json!({}));
    if let Some(Value::Object(provider)) = object.get_mut("provider") {
        ensure(provider, "url", "".into());
        ensure(provider, "organization", "".into());
    }
    if let Some(Value::Object(capabilities)) = object.get_mut("capabilities") {
        for_each_object(capabilities.get_mut("extensions"), |ext| ensure(ext, "uri", "".into()));
    }
    for_each_object(object.get_mut("signatures"), |sig| {
        ensure(sig, "protected", "".into());
        ensure(sig, "signature", "".into());
    });
    for_each_object(object.get_mut("skills"), |skill| {
        for key in ["id", "name", "description"] {
            ensure(skill, key, "".into());
        }
        ensure(skill, "tags", json!([]));
        if let Some(requirements) = skill.get("securityRequirements") {
            let security = requirements_to_json(requirements);
            skill.insert("security".into(), security);
        }
    });
    if let Some(Value::Object(schemes)) = object.get_mut("securitySchemes") {
        for scheme in schemes.values_mut().filter_map(Value::as_object_mut) {
            let v03 = scheme_to_json(scheme);
            scheme.extend(v03);
        }
    }
    if let Some(requirements) = object.get("securityRequirements") {
        let security = requirements_to_json(requirements);
        object.insert("security".into(), security);
    }
    let interfaces = v03_interfaces(card);
    let (url, transport) = interfaces.first().copied().unwrap_or(("", "JSONRPC"));
    object.insert("url".into(), url.into());
    object.insert("preferredTransport".into(), transport.into());
    object.insert("protocolVersion".into(), PROTOCOL_VERSION.into());
    if !interfaces.is_empty() {
        let additional: Vec<Value> =
            interfaces.iter().map(|(url, transport)| json!({"url": url, "transport": transport})).collect();
        object.insert("additionalInterfaces".into(), Value::Array(additional));
    }
    if let Some(extended) = card.capabilities.as_ref().and_then(|c| c.extended_agent_card) {
        object.insert("supportsAuthenticatedExtendedCard".into(), extended.into());
    }
    Value::Object(object)
}

/// 1.0 `[{schemes: {name: {list}}}]` → 0.3 JSON `[{name: [scopes]}]`.
fn requirements_to_json(requirements: &Value) -> Value {
    let Value::Array(items) = requirements else { return json!([]) };
    items
        .iter()
        .map(|item| {
            let schemes = item.get("schemes").and_then(Value::as_object).cloned().unwrap_or_default();
            let entry: Map<String, Value> = schemes
                .into_iter()
                .map(|(name, list)| (name, list.get("list").cloned().unwrap_or_else(|| json!([]))))
                .collect();
            Value::Object(entry)
        })
        .collect()
}

/// The 0.3 JSON members of a 1.0 ProtoJSON security scheme (`{"apiKeySecurityScheme": {..}}` →
/// `{"type": "apiKey", "in", "name"}`), to be merged beside it.
fn scheme_to_json(scheme: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    let text = |inner: &Value, key: &str| inner.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    let copy_description = |inner: &Value, out: &mut Map<String, Value>| {
        if let Some(Value::String(d)) = inner.get("description") {
            out.insert("description".into(), d.clone().into());
        }
    };
    if let Some(inner) = scheme.get("apiKeySecurityScheme") {
        out.insert("type".into(), "apiKey".into());
        out.insert("in".into(), text(inner, "location").to_ascii_lowercase().into());
        out.insert("name".into(), text(inner, "name").into());
        copy_description(inner, &mut out);
    } else if let Some(inner) = scheme.get("httpAuthSecurityScheme") {
        out.insert("type".into(), "http".into());
        out.insert("scheme".into(), text(inner, "scheme").into());
        if let Some(Value::String(format)) = inner.get("bearerFormat") {
            out.insert("bearerFormat".into(), format.clone().into());
        }
        copy_description(inner, &mut out);
    } else if let Some(inner) = scheme.get("oauth2SecurityScheme") {
        out.insert("type".into(), "oauth2".into());
        out.insert("flows".into(), flows_to_json(inner.get("flows")));
        if let Some(Value::String(url)) = inner.get("oauth2MetadataUrl") {
            out.insert("oauth2MetadataUrl".into(), url.clone().into());
        }
        copy_description(inner, &mut out);
    } else if let Some(inner) = scheme.get("openIdConnectSecurityScheme") {
        out.insert("type".into(), "openIdConnect".into());
        out.insert("openIdConnectUrl".into(), text(inner, "openIdConnectUrl").into());
        copy_description(inner, &mut out);
    } else if let Some(inner) = scheme.get("mtlsSecurityScheme") {
        out.insert("type".into(), "mutualTLS".into());
        copy_description(inner, &mut out);
    }
    out
}

/// The flows of a 1.0 OAuth2 scheme as 0.3 `OAuthFlows`: the same member names; the device code
/// flow and `pkceRequired` have no 0.3 counterpart and are dropped. Required members are filled in
/// so that the result is schema-valid.
fn flows_to_json(flows: Option<&Value>) -> Value {
    let mut out = Map::new();
    let Some(Value::Object(flows)) = flows else { return Value::Object(out) };
    let required: [(&str, &[&str]); 4] = [
        ("authorizationCode", &["authorizationUrl", "tokenUrl"]),
        ("clientCredentials", &["tokenUrl"]),
        ("implicit", &["authorizationUrl"]),
        ("password", &["tokenUrl"]),
    ];
    for (flow, keys) in required {
        if let Some(Value::Object(inner)) = flows.get(flow) {
            let mut inner = inner.clone();
            inner.remove("pkceRequired");
            for key in keys {
                ensure(&mut inner, key, "".into());
            }
            ensure(&mut inner, "scopes", json!({}));
            out.insert(flow.into(), Value::Object(inner));
        }
    }
    Value::Object(out)
}

/// The 0.3 proto `AgentCard` (ProtoJSON) of a 1.0 card.
fn proto(card: &AgentCard) -> Value {
    let v1 = v1_object(card);
    let mut object = Map::new();
    let copy = |object: &mut Map<String, Value>, key: &str| {
        if let Some(value) = v1.get(key) {
            object.insert(key.into(), value.clone());
        }
    };
    object.insert("protocolVersion".into(), PROTOCOL_VERSION.into());
    for key in ["name", "description", "provider", "version", "documentationUrl", "defaultInputModes"] {
        copy(&mut object, key);
    }
    for key in ["defaultOutputModes", "signatures"] {
        copy(&mut object, key);
    }
    let interfaces = v03_interfaces(card);
    if let Some((url, transport)) = interfaces.first() {
        object.insert("url".into(), (*url).into());
        object.insert("preferredTransport".into(), (*transport).into());
        let additional: Vec<Value> =
            interfaces.iter().map(|(url, transport)| json!({"url": url, "transport": transport})).collect();
        object.insert("additionalInterfaces".into(), Value::Array(additional));
    }
    if let Some(Value::Object(capabilities)) = v1.get("capabilities") {
        let mut out = capabilities.clone();
        out.remove("extendedAgentCard");
        object.insert("capabilities".into(), Value::Object(out));
    }
    if let Some(Value::Object(schemes)) = v1.get("securitySchemes") {
        let mut out = schemes.clone();
        for scheme in out.values_mut().filter_map(Value::as_object_mut) {
            if let Some(Value::Object(oauth)) = scheme.get_mut("oauth2SecurityScheme") {
                let flows = flows_to_proto(oauth.get("flows"));
                oauth.insert("flows".into(), flows);
            }
        }
        object.insert("securitySchemes".into(), Value::Object(out));
    }
    if let Some(requirements) = v1.get("securityRequirements") {
        object.insert("security".into(), requirements.clone());
    }
    if let Some(Value::Array(skills)) = v1.get("skills") {
        let skills: Vec<Value> = skills
            .iter()
            .map(|skill| {
                let mut skill = skill.as_object().cloned().unwrap_or_default();
                if let Some(requirements) = skill.remove("securityRequirements") {
                    skill.insert("security".into(), requirements);
                }
                Value::Object(skill)
            })
            .collect();
        object.insert("skills".into(), Value::Array(skills));
    }
    if card.capabilities.as_ref().and_then(|c| c.extended_agent_card) == Some(true) {
        object.insert("supportsAuthenticatedExtendedCard".into(), true.into());
    }
    Value::Object(object)
}

/// 1.0 `OAuthFlows` → 0.3 proto `OAuthFlows` (a oneof in both): no device code, no PKCE flag.
fn flows_to_proto(flows: Option<&Value>) -> Value {
    let mut out = Map::new();
    if let Some(Value::Object(flows)) = flows {
        for flow in ["authorizationCode", "clientCredentials", "implicit", "password"] {
            if let Some(Value::Object(inner)) = flows.get(flow) {
                let mut inner = inner.clone();
                inner.remove("pkceRequired");
                out.insert(flow.into(), Value::Object(inner));
            }
        }
    }
    Value::Object(out)
}

fn read(value: &Value) -> Result<AgentCard> {
    let o = Obj::new(value, "")?;
    if o.has("supportedInterfaces") {
        return parse_v1(value.clone());
    }
    let mut v1 = Map::new();
    for key in ["name", "description", "version", "documentationUrl", "iconUrl", "provider"] {
        if let Some(value) = o.get(key) {
            v1.insert(key.into(), value.clone());
        }
    }
    for key in ["defaultInputModes", "defaultOutputModes", "signatures"] {
        if let Some(value) = o.get(key) {
            v1.insert(key.into(), value.clone());
        }
    }
    let version = o.str("protocolVersion")?.map_or_else(|| INTERFACE_VERSION.to_owned(), major_minor);
    let mut interfaces: Vec<(String, String)> = Vec::new();
    if let Some(url) = o.str("url")? {
        let transport = o.str("preferredTransport")?.filter(|t| !t.is_empty()).unwrap_or("JSONRPC");
        interfaces.push((url.to_owned(), transport.to_owned()));
    }
    for (path, item) in o.array("additionalInterfaces")? {
        let item = Obj::new(item, path)?;
        let pair = (item.string("url")?, item.string("transport")?);
        if !interfaces.contains(&pair) {
            interfaces.push(pair);
        }
    }
    let interfaces: Vec<Value> = interfaces
        .into_iter()
        .map(|(url, binding)| json!({"url": url, "protocolBinding": binding, "protocolVersion": version}))
        .collect();
    v1.insert("supportedInterfaces".into(), Value::Array(interfaces));
    let mut capabilities = match o.obj("capabilities")? {
        Some(c) => {
            let mut out = Map::new();
            for key in ["streaming", "pushNotifications", "extensions"] {
                if let Some(value) = c.get(key) {
                    out.insert(key.into(), value.clone());
                }
            }
            out
        }
        None => Map::new(),
    };
    if let Some(extended) = o.bool("supportsAuthenticatedExtendedCard")? {
        capabilities.insert("extendedAgentCard".into(), extended.into());
    }
    v1.insert("capabilities".into(), Value::Object(capabilities));
    if let Some(schemes) = o.obj("securitySchemes")? {
        let mut out = Map::new();
        for (name, scheme) in schemes.entries() {
            out.insert(name.clone(), scheme_from_v03(scheme, &schemes.at(name))?);
        }
        v1.insert("securitySchemes".into(), Value::Object(out));
    }
    if let Some(security) = o.get("security") {
        v1.insert("securityRequirements".into(), requirements_from_v03(security, "security")?);
    }
    let mut skills = Vec::new();
    for (path, skill) in o.array("skills")? {
        let skill_obj = Obj::new(skill, path.clone())?;
        let mut out = Map::new();
        for key in ["id", "name", "description", "tags", "examples", "inputModes", "outputModes"] {
            if let Some(value) = skill_obj.get(key) {
                out.insert(key.into(), value.clone());
            }
        }
        if let Some(security) = skill_obj.get("security") {
            out.insert(
                "securityRequirements".into(),
                requirements_from_v03(security, &skill_obj.at("security"))?,
            );
        }
        skills.push(Value::Object(out));
    }
    v1.insert("skills".into(), Value::Array(skills));
    parse_v1(Value::Object(v1))
}

fn parse_v1(value: Value) -> Result<AgentCard> {
    a2a_proto::json::from_value(value).map_err(|e| Error::invalid_param("card", e.message().to_owned()))
}

/// A 0.3 security requirement list (JSON `[{name: [scopes]}]` or ProtoJSON `[{schemes: ..}]`) as
/// 1.0 ProtoJSON.
fn requirements_from_v03(value: &Value, path: &str) -> Result<Value> {
    let Value::Array(items) = value else { return Err(invalid(path, "must be an array")) };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("{path}[{i}]");
            let o = Obj::new(item, at.clone())?;
            if o.get("schemes").is_some_and(Value::is_object) {
                return Ok(item.clone());
            }
            let mut schemes = Map::new();
            for (name, scopes) in o.entries() {
                if !scopes.is_array() {
                    return Err(invalid(&o.at(name), "must be an array of scopes"));
                }
                schemes.insert(name.clone(), json!({ "list": scopes }));
            }
            Ok(json!({ "schemes": schemes }))
        })
        .collect::<Result<Vec<_>>>()
        .map(Value::Array)
}

/// A 0.3 security scheme (JSON with `type`, or the ProtoJSON wrapper form) as 1.0 ProtoJSON.
fn scheme_from_v03(value: &Value, path: &str) -> Result<Value> {
    let o = Obj::new(value, path)?;
    let Some(kind) = o.str("type")? else {
        // ProtoJSON (same shape as 1.0's) or a union card's merged scheme.
        return Ok(value.clone());
    };
    let mut inner = Map::new();
    let mut copy = |from: &str, to: &str| -> Result<()> {
        if let Some(text) = o.str(from)? {
            inner.insert(to.into(), text.into());
        }
        Ok(())
    };
    copy("description", "description")?;
    let wrapper = match kind {
        "apiKey" => {
            copy("in", "location")?;
            copy("name", "name")?;
            "apiKeySecurityScheme"
        }
        "http" => {
            copy("scheme", "scheme")?;
            copy("bearerFormat", "bearerFormat")?;
            "httpAuthSecurityScheme"
        }
        "openIdConnect" => {
            copy("openIdConnectUrl", "openIdConnectUrl")?;
            "openIdConnectSecurityScheme"
        }
        "mutualTLS" => "mtlsSecurityScheme",
        "oauth2" => {
            copy("oauth2MetadataUrl", "oauth2MetadataUrl")?;
            let mut flows = Map::new();
            if let Some(all) = o.obj("flows")? {
                // 1.0 holds one flow; the first in 0.3's declaration order wins.
                if let Some((key, flow)) =
                    all.first(&["authorizationCode", "clientCredentials", "implicit", "password"])
                {
                    flows.insert(key.into(), flow.clone());
                }
            }
            inner.insert("flows".into(), Value::Object(flows));
            "oauth2SecurityScheme"
        }
        other => {
            return Err(invalid(
                &o.at("type"),
                format!("must be apiKey, http, oauth2, openIdConnect or mutualTLS, got {other:?}"),
            ))
        }
    };
    Ok(json!({ wrapper: inner }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::{
        security_scheme, AgentCapabilities, AgentSkill, OpenIdConnectSecurityScheme, SecurityScheme,
    };

    fn card() -> AgentCard {
        AgentCard {
            name: "Agent".into(),
            description: "Does things".into(),
            version: "1.2.0".into(),
            supported_interfaces: vec![
                AgentInterface {
                    url: "http://h/".into(),
                    protocol_binding: "JSONRPC".into(),
                    tenant: String::new(),
                    protocol_version: "1.0".into(),
                },
                AgentInterface {
                    url: "http://h".into(),
                    protocol_binding: "HTTP+JSON".into(),
                    tenant: String::new(),
                    protocol_version: "1.0".into(),
                },
            ],
            capabilities: Some(AgentCapabilities {
                streaming: Some(true),
                push_notifications: Some(false),
                extensions: vec![],
                extended_agent_card: Some(true),
            }),
            security_schemes: [(
                "oidc".to_owned(),
                SecurityScheme {
                    scheme: Some(security_scheme::Scheme::OpenIdConnectSecurityScheme(
                        OpenIdConnectSecurityScheme {
                            description: String::new(),
                            open_id_connect_url: "https://id/.well-known/openid-configuration".into(),
                        },
                    )),
                },
            )]
            .into(),
            default_input_modes: vec!["text/plain".into()],
            default_output_modes: vec!["text/plain".into()],
            skills: vec![AgentSkill {
                id: "echo".into(),
                name: "Echo".into(),
                description: "Echoes".into(),
                tags: vec!["demo".into()],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn a_card_is_validated_by_its_schema_and_by_its_requirements() {
        let card = json!({
            "name": "A", "description": "D", "version": "1",
            "supportedInterfaces": [{"url": "https://a/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}],
            "securityRequirements": [{"schemes": {"nope": {"list": []}}}]
        });
        let report = validate_card(&card);
        assert_eq!(report.problems, ["security requirement names undeclared scheme `nope`"], "{report:?}");
        // A document that is no card gets the schema's problem only.
        let report = validate_card(&json!([]));
        assert_eq!(report.problems.len(), 1, "{report:?}");
        assert!(report.problems[0].contains("not a JSON object"), "{report:?}");
    }

    #[test]
    fn the_union_card_carries_the_0_3_members_beside_the_1_0_ones() {
        let union = card().to_v03(Form::Json);
        assert_eq!(union["protocolVersion"], "0.3.0");
        assert_eq!(union["url"], "http://h/");
        assert_eq!(union["preferredTransport"], "JSONRPC");
        assert_eq!(
            union["additionalInterfaces"],
            json!([{"url": "http://h/", "transport": "JSONRPC"}, {"url": "http://h", "transport": "HTTP+JSON"}])
        );
        assert_eq!(union["supportsAuthenticatedExtendedCard"], true);
        assert_eq!(union["capabilities"]["extendedAgentCard"], true);
        assert_eq!(union["supportedInterfaces"][0]["protocolVersion"], "1.0");
        let oidc = &union["securitySchemes"]["oidc"];
        assert_eq!(oidc["type"], "openIdConnect");
        assert_eq!(oidc["openIdConnectUrl"], oidc["openIdConnectSecurityScheme"]["openIdConnectUrl"]);
        // A 1.0 reader sees the same card.
        assert_eq!(a2a_proto::json::from_value::<AgentCard>(union.clone()).unwrap(), card());
        assert_eq!(AgentCard::from_v03(&union).unwrap(), card());
    }

    #[test]
    fn declared_0_3_interfaces_define_the_0_3_view() {
        let dual = with_v03_interfaces(&card());
        assert_eq!(dual.supported_interfaces.len(), 4);
        assert_eq!(dual.supported_interfaces[2].protocol_version, "0.3");
        assert_eq!(with_v03_interfaces(&dual), dual, "idempotent");
        let mut only_rest = card();
        only_rest.supported_interfaces[1].protocol_version = "0.3".into();
        let union = only_rest.to_v03(Form::Json);
        assert_eq!(union["url"], "http://h");
        assert_eq!(union["preferredTransport"], "HTTP+JSON");
        assert_eq!(union["additionalInterfaces"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn a_0_3_card_becomes_a_1_0_card_with_one_interface_per_transport() {
        let v03 = json!({
            "protocolVersion": "0.3.0", "name": "A", "description": "D", "version": "1",
            "url": "https://a/rpc", "preferredTransport": "JSONRPC",
            "additionalInterfaces": [{"url": "https://a/rpc", "transport": "JSONRPC"},
                                     {"url": "https://a/grpc", "transport": "GRPC"}],
            "capabilities": {"streaming": true, "stateTransitionHistory": true},
            "supportsAuthenticatedExtendedCard": true,
            "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
            "security": [{"key": []}],
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "S", "description": "d", "tags": [], "security": [{"key": ["r"]}]}]
        });
        let card = AgentCard::from_v03(&v03).unwrap();
        let bindings: Vec<_> = card
            .supported_interfaces
            .iter()
            .map(|i| (i.url.as_str(), i.protocol_binding.as_str(), i.protocol_version.as_str()))
            .collect();
        assert_eq!(bindings, [("https://a/rpc", "JSONRPC", "0.3"), ("https://a/grpc", "GRPC", "0.3")]);
        assert_eq!(card.capabilities.as_ref().unwrap().extended_agent_card, Some(true));
        let Some(security_scheme::Scheme::ApiKeySecurityScheme(key)) = &card.security_schemes["key"].scheme
        else {
            panic!("{:?}", card.security_schemes)
        };
        assert_eq!((key.location.as_str(), key.name.as_str()), ("header", "X-Key"));
        assert_eq!(card.security_requirements[0].schemes["key"].list, Vec::<String>::new());
        assert_eq!(card.skills[0].security_requirements[0].schemes["key"].list, ["r"]);
    }

    #[test]
    fn the_proto_card_uses_the_proto_shapes() {
        let proto = card().to_v03(Form::ProtoJson);
        assert_eq!(proto["protocolVersion"], "0.3.0");
        assert!(proto["securitySchemes"]["oidc"]["openIdConnectSecurityScheme"].is_object());
        assert!(proto["securitySchemes"]["oidc"].get("type").is_none());
        assert!(proto["capabilities"].get("extendedAgentCard").is_none());
        assert_eq!(proto["supportsAuthenticatedExtendedCard"], true);
        let back = AgentCard::from_v03(&proto).unwrap();
        assert_eq!(back.name, "Agent");
        assert_eq!(back.security_schemes, card().security_schemes);
    }

    #[test]
    fn unknown_scheme_types_name_the_field() {
        let err = AgentCard::from_v03(&json!({"url": "u", "securitySchemes": {"x": {"type": "magic"}}}))
            .unwrap_err();
        assert_eq!(err.field_violations()[0].field, "securitySchemes.x.type");
    }
}
