//! Certificates made in the test: a CA, a server certificate for `localhost` and 127.0.0.1, and
//! client certificates whose subject CN is the principal (mutual TLS tests of the server, the
//! client and the CLI).

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
};

/// A certificate authority made for one test.
pub struct Ca(CertifiedIssuer<'static, KeyPair>);

impl std::fmt::Debug for Ca {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ca").finish_non_exhaustive()
    }
}

/// A certificate and its private key, PEM.
#[derive(Debug, Clone)]
pub struct Pem {
    /// The certificate.
    pub cert: String,
    /// Its private key.
    pub key: String,
}

impl Pem {
    /// Writes `{prefix}.crt` and `{prefix}.key` in `dir`; their paths.
    pub fn write(&self, dir: &Path, prefix: &str) -> (PathBuf, PathBuf) {
        let (cert, key) = (dir.join(format!("{prefix}.crt")), dir.join(format!("{prefix}.key")));
        std::fs::write(&cert, &self.cert).unwrap();
        std::fs::write(&key, &self.key).unwrap();
        (cert, key)
    }
}

impl Ca {
    /// A self-signed CA whose subject CN is `name`.
    pub fn new(name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        Ca(CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap())
    }

    /// The CA's certificate, PEM (what a client or the server trusts).
    pub fn pem(&self) -> String {
        self.0.pem()
    }

    /// A server certificate for `localhost` and 127.0.0.1 signed by this CA.
    pub fn server(&self) -> Pem {
        let params = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
        self.sign(params)
    }

    /// A client certificate (client-auth usage) whose subject CN is `name`, signed by this CA.
    pub fn client(&self, name: &str) -> Pem {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, name);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        self.sign(params)
    }

    fn sign(&self, params: CertificateParams) -> Pem {
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.0).unwrap();
        Pem { cert: cert.pem(), key: key.serialize_pem() }
    }
}
