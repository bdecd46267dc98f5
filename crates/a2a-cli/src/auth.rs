//! `auth login` (SPEC.md §12.2): OAuth 2.1 client credentials against the token URL the agent's
//! card declares, the token kept per agent reference in a file only its owner can read
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

/// The client-credentials token URL the card declares, with the scheme's name.
fn token_url(card: &AgentCard) -> Option<(String, String)> {
    let mut schemes: Vec<_> = card.security_schemes.iter().collect();
    schemes.sort_by(|a, b| a.0.cmp(b.0));
    schemes.into_iter().find_map(|(name, scheme)| match &scheme.scheme {
        Some(Scheme::Oauth2SecurityScheme(oauth)) => match oauth.flows.as_ref()?.flow.as_ref()? {
            Flow::ClientCredentials(flow) if !flow.token_url.is_empty() => {
                Some((name.clone(), flow.token_url.clone()))
            }
            _ => None,
        },
        _ => None,
    })
}

/// `auth login`: fetches a token with the client credentials and stores it for `reference`.
/// Returns the scheme name and where the token is kept.
pub(crate) async fn login(
    reference: &str,
    card: &AgentCard,
    client_id: &str,
    client_secret: &str,
    scopes: &[String],
    timeout: Duration,
) -> Result<(String, PathBuf, Option<u64>), CliError> {
    let (scheme, url) = token_url(card).ok_or_else(|| {
        CliError::usage("the agent card declares no OAuth 2 client-credentials flow (securitySchemes.*.oauth2SecurityScheme.flows.clientCredentials)")
    })?;
    let mut form = url::form_urlencoded::Serializer::new(String::new());
    form.append_pair("grant_type", "client_credentials");
    form.append_pair("client_id", client_id);
    form.append_pair("client_secret", client_secret);
    if !scopes.is_empty() {
        form.append_pair("scope", &scopes.join(" "));
    }
    let http =
        reqwest::Client::builder().timeout(timeout).build().map_err(|e| CliError::internal(e.to_string()))?;
    let response = http
        .post(&url)
        .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(reqwest::header::ACCEPT, "application/json")
        .body(form.finish())
        .send()
        .await
        .map_err(|e| {
            CliError::local(
                "A2ACLI_ERR_UNREACHABLE",
                exit::UNREACHABLE,
                format!("the token endpoint {url}: {e}"),
            )
        })?;
    let status = response.status();
    let body: Value =
        serde_json::from_slice(&response.bytes().await.unwrap_or_default()).unwrap_or(Value::Null);
    if !status.is_success() {
        let why = body.get("error").and_then(Value::as_str).unwrap_or("no error code");
        return Err(CliError::local(
            "A2ACLI_ERR_AUTH_FAILED",
            exit::AUTH,
            format!("the token endpoint {url} refused the client credentials: HTTP {status}, {why}"),
        ));
    }
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
