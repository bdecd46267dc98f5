//! `auth login` (SPEC.md §12.2, §12.3): OAuth 2.1 client credentials (with a client secret) or
//! the device authorization grant (RFC 8628, without one) against the URLs the agent's card
//! declares (an OAuth 2 scheme's flows, or an OpenID Connect scheme's discovery document),
//! the token kept per agent reference in a file only its owner can read
//! (`~/.config/a2a-cli/tokens/`, mode 0600) and attached as the bearer token of later calls to
//! the same `-a` reference until it expires. `auth logout` removes it. An explicit `--bearer`
//! always wins. These files hold credentials, never session state (task or context ids).

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_proto::v1::o_auth_flows::Flow;
use a2a_proto::v1::security_scheme::Scheme;
use a2a_proto::v1::AgentCard;
use serde_json::{json, Value};

use crate::error::{exit, CliError};

/// The directory of stored tokens.
fn tokens_dir() -> Option<PathBuf> {
    let base =
        std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| {
            std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".config"))
        })?;
    Some(base.join("a2a-cli").join("tokens"))
}

/// The token file of an agent reference: a readable prefix and a hash of the whole reference.
fn token_file(reference: &str) -> Option<PathBuf> {
    // FNV-1a: stable across runs and platforms, no dependency.
    let hash = reference
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let readable: String =
        reference.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).take(40).collect();
    Some(tokens_dir()?.join(format!("{readable}-{hash:016x}.json")))
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The stored, unexpired access token for `reference`, if any.
pub(crate) fn stored_token(reference: &str) -> Option<String> {
    let text = std::fs::read_to_string(token_file(reference)?).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    let expires = value.get("expiresAt").and_then(Value::as_u64).unwrap_or(u64::MAX);
    (expires > now() + 5).then(|| value.get("accessToken")?.as_str().map(str::to_owned))?
}

/// The OAuth flows the card declares: (scheme name, token URL) for client credentials, and
/// (scheme name, device authorization URL, token URL) for the device code grant.
#[allow(clippy::type_complexity)]
fn flows(card: &AgentCard) -> (Option<(String, String)>, Option<(String, String, String)>) {
    let mut schemes: Vec<_> = card.security_schemes.iter().collect();
    schemes.sort_by(|a, b| a.0.cmp(b.0));
    let (mut client, mut device) = (None, None);
    for (name, scheme) in schemes {
        let Some(Scheme::Oauth2SecurityScheme(oauth)) = &scheme.scheme else { continue };
        match oauth.flows.as_ref().and_then(|f| f.flow.as_ref()) {
            Some(Flow::ClientCredentials(flow)) if !flow.token_url.is_empty() && client.is_none() => {
                client = Some((name.clone(), flow.token_url.clone()));
            }
            Some(Flow::DeviceCode(flow))
                if !flow.token_url.is_empty()
                    && !flow.device_authorization_url.is_empty()
                    && device.is_none() =>
            {
                device = Some((name.clone(), flow.device_authorization_url.clone(), flow.token_url.clone()));
            }
            _ => {}
        }
    }
    (client, device)
}

/// The discovery document of the card's first OpenID Connect scheme, with the scheme's name.
async fn discover_oidc(
    card: &AgentCard,
    http: &reqwest::Client,
) -> Result<Option<(String, Value)>, CliError> {
    let mut schemes: Vec<_> = card.security_schemes.iter().collect();
    schemes.sort_by(|a, b| a.0.cmp(b.0));
    let Some((name, url)) = schemes.into_iter().find_map(|(name, s)| match &s.scheme {
        Some(Scheme::OpenIdConnectSecurityScheme(o)) if !o.open_id_connect_url.is_empty() => {
            Some((name.clone(), o.open_id_connect_url.clone()))
        }
        _ => None,
    }) else {
        return Ok(None);
    };
    let unreachable =
        |e: String| CliError::local("A2ACLI_ERR_UNREACHABLE", exit::UNREACHABLE, format!("{url}: {e}"));
    let response = http
        .get(&url)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| unreachable(e.to_string()))?;
    if !response.status().is_success() {
        return Err(unreachable(format!("HTTP {}", response.status())));
    }
    let bytes = response.bytes().await.map_err(|e| unreachable(e.to_string()))?;
    let document: Value = serde_json::from_slice(&bytes)
        .map_err(|e| unreachable(format!("not an OpenID Connect discovery document: {e}")))?;
    Ok(Some((name, document)))
}

/// POSTs a form, returning the status and the JSON body (`null` when it has none).
async fn post_form(
    http: &reqwest::Client,
    url: &str,
    pairs: &[(&str, &str)],
) -> Result<(reqwest::StatusCode, Value), CliError> {
    let mut form = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in pairs {
        form.append_pair(name, value);
    }
    let response = http
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(reqwest::header::ACCEPT, "application/json")
        .body(form.finish())
        .send()
        .await
        .map_err(|e| CliError::local("A2ACLI_ERR_UNREACHABLE", exit::UNREACHABLE, format!("{url}: {e}")))?;
    let status = response.status();
    let body = serde_json::from_slice(&response.bytes().await.unwrap_or_default()).unwrap_or(Value::Null);
    Ok((status, body))
}

fn refused(url: &str, status: reqwest::StatusCode, body: &Value) -> CliError {
    let why = body.get("error").and_then(Value::as_str).unwrap_or("no error code");
    CliError::local(
        "A2ACLI_ERR_AUTH_FAILED",
        exit::AUTH,
        format!("the token endpoint {url} refused: HTTP {status}, {why}"),
    )
}

/// `auth login`: fetches a token and stores it for `reference`: with `client_secret`, the
/// client-credentials grant; without, the device authorization grant (the user is told on stderr
/// where to go and which code to enter, through `instruct`). Returns the scheme name, where the
/// token is kept and its lifetime.
pub(crate) async fn login(
    reference: &str,
    card: &AgentCard,
    client_id: &str,
    client_secret: Option<&str>,
    scopes: &[String],
    timeout: Duration,
    instruct: impl Fn(&str),
) -> Result<(String, PathBuf, Option<u64>), CliError> {
    let http = reqwest::Client::builder()
        .timeout(timeout.min(Duration::from_secs(60)))
        .build()
        .map_err(|e| CliError::internal(e.to_string()))?;
    let scope = scopes.join(" ");
    let (mut client_flow, mut device_flow) = flows(card);
    if client_flow.is_none() && device_flow.is_none() {
        // OpenID Connect (SPEC.md §12.3): the same grants, at the endpoints its discovery document
        // names.
        if let Some((scheme, discovered)) = discover_oidc(card, &http).await? {
            let text = |name: &str| discovered.get(name).and_then(Value::as_str).map(str::to_owned);
            if let Some(token) = text("token_endpoint") {
                device_flow =
                    text("device_authorization_endpoint").map(|d| (scheme.clone(), d, token.clone()));
                client_flow = Some((scheme, token));
            }
        }
    }
    let (scheme, url, body) = match client_secret {
        Some(secret) => {
            let (scheme, url) = client_flow.ok_or_else(|| {
                CliError::usage("the agent card declares no OAuth 2 client-credentials flow (securitySchemes.*.oauth2SecurityScheme.flows.clientCredentials)")
            })?;
            let mut pairs = vec![
                ("grant_type", "client_credentials"),
                ("client_id", client_id),
                ("client_secret", secret),
            ];
            if !scope.is_empty() {
                pairs.push(("scope", &scope));
            }
            let (status, body) = post_form(&http, &url, &pairs).await?;
            if !status.is_success() {
                return Err(refused(&url, status, &body));
            }
            (scheme, url, body)
        }
        None => {
            let (scheme, device_url, url) = device_flow.ok_or_else(|| {
                CliError::usage("the agent card declares no OAuth 2 device-code flow: give --client-secret for the client-credentials flow")
            })?;
            let mut pairs = vec![("client_id", client_id)];
            if !scope.is_empty() {
                pairs.push(("scope", &scope));
            }
            let (status, grant) = post_form(&http, &device_url, &pairs).await?;
            if !status.is_success() {
                return Err(refused(&device_url, status, &grant));
            }
            let text = |name: &str| grant.get(name).and_then(Value::as_str).map(str::to_owned);
            let (Some(device_code), Some(user_code)) = (text("device_code"), text("user_code")) else {
                return Err(CliError::local(
                    "A2ACLI_ERR_AUTH_FAILED",
                    exit::AUTH,
                    format!("{device_url} answered without a device_code and user_code"),
                ));
            };
            let verification =
                text("verification_uri_complete").or_else(|| text("verification_uri")).unwrap_or_default();
            instruct(&format!("to log in, open {verification} and enter the code {user_code}"));
            let mut interval =
                Duration::from_secs(grant.get("interval").and_then(Value::as_u64).unwrap_or(5).max(1));
            let deadline = std::time::Instant::now()
                + timeout
                    .min(Duration::from_secs(grant.get("expires_in").and_then(Value::as_u64).unwrap_or(900)));
            loop {
                if std::time::Instant::now() + interval > deadline {
                    return Err(CliError::local(
                        "A2ACLI_ERR_TIMEOUT",
                        exit::TIMEOUT,
                        "the device code expired before the login was completed",
                    ));
                }
                tokio::time::sleep(interval).await;
                let pairs = [
                    ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                    ("device_code", device_code.as_str()),
                    ("client_id", client_id),
                ];
                let (status, body) = post_form(&http, &url, &pairs).await?;
                if status.is_success() {
                    break (scheme, url, body);
                }
                match body.get("error").and_then(Value::as_str) {
                    Some("authorization_pending") => {}
                    Some("slow_down") => interval += Duration::from_secs(5),
                    _ => return Err(refused(&url, status, &body)),
                }
            }
        }
    };
    let token = body.get("access_token").and_then(Value::as_str).ok_or_else(|| {
        CliError::local(
            "A2ACLI_ERR_AUTH_FAILED",
            exit::AUTH,
            format!("the token endpoint {url} answered without an access_token"),
        )
    })?;
    let expires_in = body.get("expires_in").and_then(Value::as_u64);
    let path =
        token_file(reference).ok_or_else(|| CliError::internal("no home directory to keep the token in"))?;
    let stored = json!({
        "agentCard": reference,
        "scheme": scheme,
        "accessToken": token,
        "expiresAt": expires_in.map(|s| now() + s),
    });
    write_private(&path, &serde_json::to_vec_pretty(&stored).unwrap_or_default())?;
    Ok((scheme, path, expires_in))
}

/// `auth logout`: forgets the token of `reference`. Returns whether there was one.
pub(crate) fn logout(reference: &str) -> Result<bool, CliError> {
    let Some(path) = token_file(reference) else { return Ok(false) };
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(CliError::internal(format!("cannot remove {}: {e}", path.display()))),
    }
}

/// Writes `bytes` to `path`, readable by its owner only (created so: never world-readable, not
/// even for a moment).
fn write_private(path: &std::path::Path, bytes: &[u8]) -> Result<(), CliError> {
    use std::io::Write;
    let error = |e: std::io::Error| CliError::internal(format!("cannot write {}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(error)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).map_err(error)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600)).map_err(error)?;
    }
    file.write_all(bytes).map_err(error)
}
