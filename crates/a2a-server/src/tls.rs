//! TLS on the server's ports (`--tls-cert`/`--tls-key`): rustls (aws-lc-rs), ALPN `h2` and
//! `http/1.1`, so HTTP/1.1, HTTP/2 and gRPC share the one TLS port as they share the plain one.
//! The certificate can be replaced without a restart ([`TlsConfig::reload`], SIGHUP on the
//! reference server): connections opened afterwards get the new one. Responses carry
//! `Strict-Transport-Security` when TLS is on.
//!
//! With [`TlsConfig::client_certificates`] (`--tls-client-ca`), a client certificate is verified
//! against the given CA (required, or only when presented); every request on a TLS port carries
//! a [`TlsClient`] extension with the verified certificate, which
//! [`auth::ClientCertificates`](crate::auth::ClientCertificates) turns into a principal.
//!
//! Handshakes run in tasks of their own (with a timeout), so a slow or silent client never holds
//! up the others; the accepted streams go to `axum::serve` through a listener of their own.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::http::{header, HeaderValue};
use rustls::server::{ClientHello, ResolvesServerCert, WebPkiClientVerifier};
use rustls::sign::CertifiedKey;
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::server::TlsStream;

/// How long a client may take to complete its handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// `Strict-Transport-Security` on every response when TLS is on (RFC 6797): a year.
pub(crate) const HSTS: HeaderValue = HeaderValue::from_static("max-age=31536000");

/// The server's certificate and key (PEM files), reloadable, and how client certificates are
/// verified (see the module docs).
#[derive(Debug, Clone)]
pub struct TlsConfig {
    cert: PathBuf,
    key: PathBuf,
    current: Arc<Current>,
    clients: Option<ClientAuth>,
}

/// Client certificate verification: the CAs, and whether a certificate is required.
#[derive(Debug, Clone)]
struct ClientAuth {
    roots: Arc<rustls::RootCertStore>,
    required: bool,
}

/// What the TLS handshake established about the client: in the extensions of every request on
/// a TLS port.
#[derive(Debug, Clone)]
pub struct TlsClient {
    /// The client's certificate (the leaf), verified against the configured client CA; `None`
    /// when it presented none (or no client CA is configured).
    pub certificate: Option<CertificateDer<'static>>,
}

/// The certificate handed to new connections.
#[derive(Debug)]
struct Current(RwLock<Arc<CertifiedKey>>);

impl ResolvesServerCert for Current {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(&self.0.read().unwrap_or_else(|e| e.into_inner())))
    }
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// The certificate chain (leaf first) and private key of these PEM files, checked to match.
fn load(cert: &Path, key: &Path) -> std::io::Result<Arc<CertifiedKey>> {
    let invalid = |what: &str, path: &Path, e: &dyn std::fmt::Display| {
        std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{what} {}: {e}", path.display()))
    };
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| invalid("the certificate", cert, &e))?;
    if chain.is_empty() {
        return Err(invalid("the certificate", cert, &"no CERTIFICATE in it"));
    }
    let private = PrivateKeyDer::from_pem_file(key).map_err(|e| invalid("the key", key, &e))?;
    let certified = CertifiedKey::from_der(chain, private, &provider())
        .map_err(|e| invalid("the key", key, &format!("{e} (does it belong to the certificate?)")))?;
    Ok(Arc::new(certified))
}

impl TlsConfig {
    /// The certificate chain (PEM, leaf first) in `cert` and its private key (PEM: PKCS#8,
    /// PKCS#1 or SEC1) in `key`.
    ///
    /// # Errors
    /// `InvalidData` if a file is not what it should be or the key is not the certificate's.
    pub fn from_pem_files(cert: impl Into<PathBuf>, key: impl Into<PathBuf>) -> std::io::Result<Self> {
        let (cert, key) = (cert.into(), key.into());
        let current = load(&cert, &key)?;
        Ok(TlsConfig { cert, key, current: Arc::new(Current(RwLock::new(current))), clients: None })
    }

    /// Verifies client certificates against the CA certificates (PEM) in `ca`: a client must
    /// present one if `required`, and otherwise may (a certificate it presents must still
    /// verify). The verified certificate is in each request's [`TlsClient`].
    ///
    /// # Errors
    /// `InvalidData` if `ca` holds no usable CA certificate.
    pub fn client_certificates(mut self, ca: impl AsRef<Path>, required: bool) -> std::io::Result<Self> {
        let ca = ca.as_ref();
        let invalid = |e: &dyn std::fmt::Display| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("the client CA {}: {e}", ca.display()),
            )
        };
        let mut roots = rustls::RootCertStore::empty();
        for certificate in CertificateDer::pem_file_iter(ca).map_err(|e| invalid(&e))? {
            roots.add(certificate.map_err(|e| invalid(&e))?).map_err(|e| invalid(&e))?;
        }
        if roots.is_empty() {
            return Err(invalid(&"no CERTIFICATE in it"));
        }
        self.clients = Some(ClientAuth { roots: Arc::new(roots), required });
        Ok(self)
    }

    /// Reads the files again; connections opened from now on get what they hold. On an error
    /// the certificate in use stays.
    ///
    /// # Errors
    /// As [`from_pem_files`](Self::from_pem_files).
    pub fn reload(&self) -> std::io::Result<()> {
        let fresh = load(&self.cert, &self.key)?;
        *self.current.0.write().unwrap_or_else(|e| e.into_inner()) = fresh;
        Ok(())
    }

    /// The rustls configuration: TLS 1.2 and 1.3, ALPN `h2` then `http/1.1`.
    pub(crate) fn server_config(&self) -> Arc<rustls::ServerConfig> {
        let builder = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .expect("the aws-lc-rs provider supports the default protocol versions");
        let builder = match &self.clients {
            None => builder.with_no_client_auth(),
            Some(clients) => {
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::clone(&clients.roots), provider());
                let verifier = if clients.required { verifier } else { verifier.allow_unauthenticated() };
                builder.with_client_cert_verifier(
                    verifier.build().expect("a non-empty root store builds a client verifier"),
                )
            }
        };
        let mut config = builder.with_cert_resolver(Arc::clone(&self.current) as Arc<dyn ResolvesServerCert>);
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Arc::new(config)
    }
}

/// A TCP listener whose connections are TLS streams, for `axum::serve` (module docs).
#[derive(Debug)]
pub(crate) struct TlsListener {
    local: SocketAddr,
    incoming: tokio::sync::mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    acceptor: tokio::task::JoinHandle<()>,
}

impl TlsListener {
    pub(crate) fn new(mut listener: TcpListener, config: Arc<rustls::ServerConfig>) -> std::io::Result<Self> {
        let local = listener.local_addr()?;
        let (sender, incoming) = tokio::sync::mpsc::channel(64);
        let tls = tokio_rustls::TlsAcceptor::from(config);
        let acceptor = tokio::spawn(async move {
            loop {
                // axum's accept: retries (and backs off on resource exhaustion) on errors.
                let (tcp, peer) = axum::serve::Listener::accept(&mut listener).await;
                // Nagle's algorithm would hold back small SSE events and gRPC frames.
                let _ = tcp.set_nodelay(true);
                let (tls, sender) = (tls.clone(), sender.clone());
                tokio::spawn(async move {
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, tls.accept(tcp)).await {
                        Ok(Ok(stream)) => {
                            let _ = sender.send((stream, peer)).await;
                        }
                        Ok(Err(error)) => tracing::debug!(%peer, %error, "TLS handshake failed"),
                        Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                    }
                });
            }
        });
        Ok(TlsListener { local, incoming, acceptor })
    }
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        // Stops accepting and closes the port.
        self.acceptor.abort();
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.incoming.recv().await {
            Some(connection) => connection,
            // The acceptor task ended (it only does when aborted): nothing more comes.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.local)
    }
}

/// The make-service of a TLS port: `router` with each connection's [`TlsClient`] and peer
/// address (`ConnectInfo`, as a plain port has: the rate limit's key for callers without a
/// principal, and the per-connection stream count) added to its requests.
#[derive(Debug, Clone)]
pub(crate) struct WithTlsClient(pub(crate) axum::Router);

type WithPeer = axum::middleware::AddExtension<axum::Router, axum::extract::ConnectInfo<SocketAddr>>;

impl<'a> tower::Service<axum::serve::IncomingStream<'a, TlsListener>> for WithTlsClient {
    type Response = axum::middleware::AddExtension<WithPeer, TlsClient>;
    type Error = std::convert::Infallible;
    type Future = std::future::Ready<Result<Self::Response, Self::Error>>;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, stream: axum::serve::IncomingStream<'a, TlsListener>) -> Self::Future {
        let (_, session) = stream.io().get_ref();
        let certificate =
            session.peer_certificates().and_then(|chain| chain.first()).map(|c| c.clone().into_owned());
        let peer = axum::Extension(axum::extract::ConnectInfo(*stream.remote_addr()));
        let with_peer = tower::Layer::layer(&peer, self.0.clone());
        let layer = axum::Extension(TlsClient { certificate });
        std::future::ready(Ok(tower::Layer::layer(&layer, with_peer)))
    }
}

/// Adds `Strict-Transport-Security` to every response of `router`.
pub(crate) fn with_hsts(router: axum::Router) -> axum::Router {
    router.layer(axum::middleware::map_response(|mut response: axum::response::Response| async move {
        response.headers_mut().entry(header::STRICT_TRANSPORT_SECURITY).or_insert(HSTS);
        response
    }))
}
