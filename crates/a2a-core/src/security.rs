//! Enforcing an agent card's security requirements (spec 4.5, 13.1), the same for every binding.
//!
//! Authentication happens in front of the bindings: a server layer reads the credentials and
//! puts a [`Principal`] in the call's context, naming the schemes it proved (with their granted
//! scopes) and those it refused. This module decides, for one agent card, whether that is
//! enough, exactly as the card declares it:
//!
//! - `securityRequirements` are alternatives (OR); the schemes within one requirement are all
//!   needed (AND), each with every scope the requirement lists for it (OpenAPI 3.2's Security
//!   Requirement Object, which the proto's `SecurityRequirement` follows). An empty requirement
//!   (`{}`) makes authentication optional, as in OpenAPI. No requirements at all: anyone.
//! - A credential presented for one of this card's schemes and refused refuses the request,
//!   whatever else the caller proved: a bad credential is never papered over by another. One
//!   refused for a scheme this card does not declare (another tenant's) does not concern it.
//! - Answers: no acceptable credential is `Unauthenticated` (HTTP 401, gRPC `UNAUTHENTICATED`);
//!   the right scheme without a required scope is `PermissionDenied` (HTTP 403), since the
//!   caller is known but not allowed. Neither says what exists.
//!
//! A principal that names no scheme (an authenticator of your own that does not say which one
//! it checked) satisfies every requirement: the server then trusts its layers as a whole.

use a2a_proto::v1::AgentCard;

use crate::context::Principal;
use crate::error::{Error, Result};

/// Whether `principal` may call the agent described by `card` (module docs).
///
/// # Errors
/// `Unauthenticated` when no requirement is met (or a credential for one of the card's schemes
/// was refused), `PermissionDenied` when a requirement's schemes are proved but not its scopes.
pub fn check(card: &AgentCard, principal: Option<&Principal>) -> Result<()> {
    let requirements = &card.security_requirements;
    if requirements.is_empty() || requirements.iter().any(|r| r.schemes.is_empty()) {
        return Ok(());
    }
    let unauthenticated = || Error::Unauthenticated {
        reason: "this agent requires authentication: see the securitySchemes of its agent card".into(),
    };
    let Some(principal) = principal else { return Err(unauthenticated()) };
    if principal.schemes.is_empty() && principal.refused.is_empty() {
        return Ok(());
    }
    if principal.refused.iter().any(|name| card.security_schemes.contains_key(name)) {
        return Err(unauthenticated());
    }
    let mut missing_scope = false;
    for requirement in requirements {
        let mut proved = true;
        let mut scoped = true;
        for (name, scopes) in &requirement.schemes {
            match principal.proved(name) {
                None => proved = false,
                Some(granted) => {
                    scoped &= scopes.list.iter().all(|scope| granted.scopes.contains(scope));
                }
            }
        }
        if proved && scoped {
            return Ok(());
        }
        missing_scope |= proved;
    }
    if missing_scope {
        return Err(Error::PermissionDenied {
            reason: "the credentials do not grant a scope this agent requires".into(),
        });
    }
    Err(unauthenticated())
}

/// Whether the card declares any security at all (schemes or requirements): such an agent's
/// extended card needs an authenticated caller (spec 13.3).
pub fn is_secured(card: &AgentCard) -> bool {
    !card.security_schemes.is_empty() || !card.security_requirements.is_empty()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use a2a_proto::v1::{SecurityRequirement, SecurityScheme, StringList};

    use super::*;

    fn requirement(schemes: &[(&str, &[&str])]) -> SecurityRequirement {
        SecurityRequirement {
            schemes: schemes
                .iter()
                .map(|(name, scopes)| {
                    (
                        (*name).to_owned(),
                        StringList { list: scopes.iter().map(|s| (*s).to_owned()).collect() },
                    )
                })
                .collect(),
        }
    }

    fn card(requirements: Vec<SecurityRequirement>) -> AgentCard {
        let mut schemes = HashMap::new();
        for name in ["key", "bearer", "mtls"] {
            schemes.insert(name.to_owned(), SecurityScheme::default());
        }
        AgentCard { security_schemes: schemes, security_requirements: requirements, ..Default::default() }
    }

    fn is_unauthenticated(result: Result<()>) -> bool {
        matches!(result, Err(Error::Unauthenticated { .. }))
    }

    #[test]
    fn no_requirements_or_an_empty_one_admit_anyone() {
        assert!(check(&card(vec![]), None).is_ok());
        let optional = card(vec![requirement(&[("key", &[])]), requirement(&[])]);
        assert!(check(&optional, None).is_ok());
    }

    #[test]
    fn requirements_are_alternatives_of_schemes_all_needed() {
        let card = card(vec![requirement(&[("key", &[])]), requirement(&[("bearer", &[]), ("mtls", &[])])]);
        assert!(is_unauthenticated(check(&card, None)));
        let key = Principal::new("alice").with_scheme("key", Vec::<String>::new());
        assert!(check(&card, Some(&key)).is_ok());
        let bearer = Principal::new("alice").with_scheme("bearer", Vec::<String>::new());
        assert!(is_unauthenticated(check(&card, Some(&bearer))), "bearer alone is half of a requirement");
        let both = bearer.with_scheme("mtls", Vec::<String>::new());
        assert!(check(&card, Some(&both)).is_ok());
        let other = Principal::new("alice").with_scheme("elsewhere", Vec::<String>::new());
        assert!(is_unauthenticated(check(&card, Some(&other))), "a scheme the card does not declare");
    }

    #[test]
    fn scopes_are_needed_and_their_lack_is_permission_denied() {
        let card = card(vec![requirement(&[("bearer", &["tasks:write", "tasks:read"])])]);
        let some = Principal::new("alice").with_scheme("bearer", ["tasks:read"]);
        assert!(matches!(check(&card, Some(&some)), Err(Error::PermissionDenied { .. })));
        let all = Principal::new("alice").with_scheme("bearer", ["tasks:read", "tasks:write", "x"]);
        assert!(check(&card, Some(&all)).is_ok());
    }

    #[test]
    fn a_refused_credential_counts_only_for_the_card_that_declares_its_scheme() {
        let card = card(vec![requirement(&[("key", &[])])]);
        let mut principal = Principal::new("alice").with_scheme("key", Vec::<String>::new());
        principal.refused.push("bearer".into());
        assert!(is_unauthenticated(check(&card, Some(&principal))), "this card declares bearer");
        principal.refused = vec!["another-tenants-key".into()];
        assert!(check(&card, Some(&principal)).is_ok());
    }

    #[test]
    fn a_principal_naming_no_scheme_satisfies_any_requirement() {
        let card = card(vec![requirement(&[("bearer", &["admin"])])]);
        assert!(check(&card, Some(&Principal::new("alice"))).is_ok());
    }
}
