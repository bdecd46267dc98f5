//! Mutual TLS (`--tls-client-ca`): the client certificate the TLS port verified against the
//! configured CA ([`TlsConfig::client_certificates`](crate::tls::TlsConfig::client_certificates))
//! identifies the caller; the principal is its subject's common name (CN) by default, or the
//! first subject alternative name of a kind you choose ([`CertificateIdentity`]: a SPIFFE-style
//! URI, a DNS name or an e-mail address, RFC 5280 4.2.1.6). The verification is
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

/// Which name of a client certificate is the principal (`--tls-client-identity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CertificateIdentity {
    /// The subject's common name (CN). The default.
    #[default]
    CommonName,
    /// The first `uniformResourceIdentifier` subject alternative name (e.g. a SPIFFE ID,
    /// `spiffe://example.org/agent/billing`).
    SanUri,
    /// The first `dNSName` subject alternative name.
    SanDns,
    /// The first `rfc822Name` (e-mail address) subject alternative name.
    SanEmail,
}

impl std::str::FromStr for CertificateIdentity {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, String> {
        match value {
            "cn" => Ok(CertificateIdentity::CommonName),
            "san-uri" => Ok(CertificateIdentity::SanUri),
            "san-dns" => Ok(CertificateIdentity::SanDns),
            "san-email" => Ok(CertificateIdentity::SanEmail),
            _ => Err(format!("{value:?}: use cn, san-uri, san-dns or san-email")),
        }
    }
}

impl CertificateIdentity {
    /// The principal's name in the DER certificate `der`, if it has one of this kind.
    pub fn of(self, der: &[u8]) -> Option<String> {
        let name = match self {
            CertificateIdentity::CommonName => common_name(der),
            CertificateIdentity::SanUri => subject_alt_name(der, 6),
            CertificateIdentity::SanDns => subject_alt_name(der, 2),
            CertificateIdentity::SanEmail => subject_alt_name(der, 1),
        }?;
        // The principal goes into stores and logs.
        (!name.trim().is_empty() && !name.chars().any(char::is_control)).then_some(name)
    }
}

/// Client certificates as credentials (see the module docs).
#[derive(Debug, Clone)]
pub struct ClientCertificates {
    scheme: String,
    identity: CertificateIdentity,
}

impl Default for ClientCertificates {
    fn default() -> Self {
        Self::new()
    }
}

impl ClientCertificates {
    /// Declared in the card as the scheme `mtls`.
    pub fn new() -> Self {
        ClientCertificates { scheme: "mtls".into(), identity: CertificateIdentity::CommonName }
    }

    /// Which of the certificate's names is the principal (default: the subject CN).
    #[must_use]
    pub fn identity(self, identity: CertificateIdentity) -> Self {
        Self { identity, ..self }
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
        match self.identity.of(certificate) {
            Some(name) => Verdict::Valid(Principal::new(name)),
            None => {
                tracing::debug!(scheme = %self.scheme, identity = ?self.identity, reason = "no such name", "client certificate refused");
                Verdict::Invalid
            }
        }
    }

    fn scheme(&self) -> Option<&str> {
        Some(&self.scheme)
    }

    fn challenge(&self, _: &Verdict) -> Option<HeaderValue> {
        // HTTP has no challenge for TLS client certificates; the card says what is needed.
        None
    }
}

/// The first subject alternative name with the GeneralName tag `tag` (1 rfc822Name, 2 dNSName,
/// 6 uniformResourceIdentifier; RFC 5280 4.2.1.6) of a DER X.509 certificate.
fn subject_alt_name(der: &[u8], tag: u8) -> Option<String> {
    let blocks = simple_asn1::from_der(der).ok()?;
    let Some(ASN1Block::Sequence(_, certificate)) = blocks.first() else { return None };
    let Some(ASN1Block::Sequence(_, tbs)) = certificate.first() else { return None };
    // TBSCertificate (RFC 5280 4.1): ..., subjectPublicKeyInfo, [1]?, [2]?, [3] extensions.
    let extensions = tbs.iter().find_map(|block| match block {
        ASN1Block::Explicit(simple_asn1::ASN1Class::ContextSpecific, _, number, inner)
            if *number == simple_asn1::BigUint::from(3u8) =>
        {
            match inner.as_ref() {
                ASN1Block::Sequence(_, extensions) => Some(extensions),
                _ => None,
            }
        }
        _ => None,
    })?;
    let san = simple_asn1::oid!(2, 5, 29, 17);
    let value = extensions.iter().find_map(|extension| match extension {
        ASN1Block::Sequence(_, fields) => match (fields.first(), fields.last()) {
            (Some(ASN1Block::ObjectIdentifier(_, oid)), Some(ASN1Block::OctetString(_, value)))
                if *oid == san =>
            {
                Some(value)
            }
            _ => None,
        },
        _ => None,
    })?;
    let names = simple_asn1::from_der(value).ok()?;
    let Some(ASN1Block::Sequence(_, names)) = names.first() else { return None };
    names.iter().find_map(|name| match name {
        ASN1Block::Unknown(simple_asn1::ASN1Class::ContextSpecific, false, _, number, bytes)
            if *number == simple_asn1::BigUint::from(tag) =>
        {
            String::from_utf8(bytes.clone()).ok()
        }
        _ => None,
    })
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
    fn a_subject_alternative_name_of_the_chosen_kind_can_be_the_principal() {
        let mut params = rcgen::CertificateParams::new(vec!["agent.example.com".to_owned()]).unwrap();
        params
            .subject_alt_names
            .push(rcgen::SanType::URI("spiffe://example.org/agent/billing".try_into().unwrap()));
        params.subject_alt_names.push(rcgen::SanType::Rfc822Name("ops@example.org".try_into().unwrap()));
        params.distinguished_name.push(rcgen::DnType::CommonName, "billing");
        let der = params.self_signed(&rcgen::KeyPair::generate().unwrap()).unwrap().der().to_vec();
        assert_eq!(CertificateIdentity::CommonName.of(&der).as_deref(), Some("billing"));
        assert_eq!(
            CertificateIdentity::SanUri.of(&der).as_deref(),
            Some("spiffe://example.org/agent/billing")
        );
        assert_eq!(CertificateIdentity::SanDns.of(&der).as_deref(), Some("agent.example.com"));
        assert_eq!(CertificateIdentity::SanEmail.of(&der).as_deref(), Some("ops@example.org"));
        let plain = certificate(Some("alice"));
        assert_eq!(CertificateIdentity::SanUri.of(&plain), None, "no URI name");
        assert_eq!(CertificateIdentity::SanEmail.of(b"not DER"), None);
    }

    #[test]
    fn the_principal_is_the_subject_common_name() {
        assert_eq!(common_name(&certificate(Some("alice"))).as_deref(), Some("alice"));
        assert_eq!(common_name(&certificate(None)), None);
        assert_eq!(common_name(&certificate(Some(" "))), None);
        assert_eq!(common_name(b"not DER"), None);
    }
}
