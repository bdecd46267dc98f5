//! Mutual TLS (`--tls-client-ca`): the client certificate the TLS port verified against the
//! configured CA ([`TlsConfig::client_certificates`](crate::tls::TlsConfig::client_certificates))
//! identifies the caller; the principal is its subject's common name (CN). The verification is
//! rustls's, during the handshake; this authenticator only reads the verified certificate from
//! the request's [`TlsClient`](crate::tls::TlsClient) extension.

use std::collections::HashMap;

use a2a_core::Principal;
use a2a_proto::v1::{
    security_scheme, MutualTlsSecurityScheme, SecurityRequirement, SecurityScheme, StringList,
};
use axum::http::{request::Parts, HeaderValue};
use simple_asn1::ASN1Block;

use super::{AuthLayer, Authenticator, Verdict};
use crate::tls::TlsClient;

/// Client certificates as credentials (see the module docs).
#[derive(Debug, Clone)]
pub struct ClientCertificates {
    scheme: String,
}

impl Default for ClientCertificates {
    fn default() -> Self {
        Self::new()
    }
}

impl ClientCertificates {
    /// Declared in the card as the scheme `mtls`.
    pub fn new() -> Self {
        ClientCertificates { scheme: "mtls".into() }
    }

    /// The scheme's name in the card.
    pub fn scheme_name(&self) -> &str {
        &self.scheme
    }

    /// The card's `securitySchemes` entry: `mtlsSecurityScheme`.
    pub fn security_scheme(&self) -> SecurityScheme {
        SecurityScheme {
            scheme: Some(security_scheme::Scheme::MtlsSecurityScheme(MutualTlsSecurityScheme {
                description:
                    "A TLS client certificate issued by the operator's CA; the principal is its subject CN."
                        .into(),
            })),
        }
    }

    /// Declares the scheme in `card` and requires it on every operation (an alternative to the
    /// requirements already there).
    pub fn declare_in(&self, card: &mut a2a_proto::v1::AgentCard) {
        card.security_schemes.insert(self.scheme.clone(), self.security_scheme());
        let mut schemes = HashMap::new();
        schemes.insert(self.scheme.clone(), StringList { list: Vec::new() });
        card.security_requirements.push(SecurityRequirement { schemes });
    }

    /// The layer for [`ServerBuilder::layer`](crate::ServerBuilder::layer).
    pub fn layer(self) -> AuthLayer<ClientCertificates> {
        AuthLayer::new(self)
    }
}

#[async_trait::async_trait]
impl Authenticator for ClientCertificates {
    async fn authenticate(&self, request: &Parts) -> Verdict {
        let Some(TlsClient { certificate: Some(certificate) }) = request.extensions.get::<TlsClient>() else {
            return Verdict::Absent;
        };
        match common_name(certificate) {
            Some(name) => Verdict::Valid(Principal::new(name)),
            None => {
                tracing::debug!(scheme = %self.scheme, reason = "no subject CN", "client certificate refused");
                Verdict::Invalid
            }
        }
    }

    fn challenge(&self, _: &Verdict) -> Option<HeaderValue> {
        // HTTP has no challenge for TLS client certificates; the card says what is needed.
        None
    }
}

/// The subject common name (OID 2.5.4.3) of a DER X.509 certificate, if it has a non-empty one.
pub(crate) fn common_name(der: &[u8]) -> Option<String> {
    let blocks = simple_asn1::from_der(der).ok()?;
    let Some(ASN1Block::Sequence(_, certificate)) = blocks.first() else { return None };
    let Some(ASN1Block::Sequence(_, tbs)) = certificate.first() else { return None };
    // TBSCertificate (RFC 5280 4.1): [0] version?, serialNumber, signature, issuer, validity,
    // subject, ...
    let serial = tbs.iter().position(|b| matches!(b, ASN1Block::Integer(..)))?;
    let Some(ASN1Block::Sequence(_, subject)) = tbs.get(serial + 4) else { return None };
    let cn = simple_asn1::oid!(2, 5, 4, 3);
    subject
        .iter()
        .filter_map(|rdn| match rdn {
            ASN1Block::Set(_, attributes) => Some(attributes),
            _ => None,
        })
        .flatten()
        .find_map(|attribute| match attribute {
            ASN1Block::Sequence(_, pair) => match pair.as_slice() {
                [ASN1Block::ObjectIdentifier(_, oid), ASN1Block::UTF8String(_, s)]
                | [ASN1Block::ObjectIdentifier(_, oid), ASN1Block::PrintableString(_, s)]
                | [ASN1Block::ObjectIdentifier(_, oid), ASN1Block::IA5String(_, s)]
                    if *oid == cn =>
                {
                    Some(s.clone())
                }
                _ => None,
            },
            _ => None,
        })
        .filter(|name| !name.trim().is_empty() && !name.chars().any(char::is_control))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn certificate(common_name: Option<&str>) -> Vec<u8> {
        let mut params = rcgen::CertificateParams::new(vec!["client.example.com".to_owned()]).unwrap();
        params.distinguished_name = rcgen::DistinguishedName::new();
        params.distinguished_name.push(rcgen::DnType::OrganizationName, "Example");
        if let Some(name) = common_name {
            params.distinguished_name.push(rcgen::DnType::CommonName, name);
        }
        params.self_signed(&rcgen::KeyPair::generate().unwrap()).unwrap().der().to_vec()
    }

    #[test]
    fn the_principal_is_the_subject_common_name() {
        assert_eq!(common_name(&certificate(Some("alice"))).as_deref(), Some("alice"));
        assert_eq!(common_name(&certificate(None)), None);
        assert_eq!(common_name(&certificate(Some(" "))), None);
        assert_eq!(common_name(b"not DER"), None);
    }
}
