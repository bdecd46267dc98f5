//! What the binding clients share: the protocol version is picked once, when a client is built.
//!
//! A binding's client (JSON-RPC, REST, gRPC) keeps its connection (the binding's *wire*: URL,
//! HTTP client, gRPC channel, ...) and one [`Carriage`] over that wire, chosen from the protocol
//! version it was built for: one implementation carries the 11 operations as A2A 1.0, another as
//! A2A 0.3 (in the binding's `client_v03` module, behind its `v03` feature), and [`Unavailable`]
//! stands for a version the build does not speak. The client's [`A2aService`](crate::A2aService)
//! implementation is written once: it hands each call to the carriage, so nothing asks which
//! version it speaks.
//!
//! The other thing every binding's client shares is which service parameters it sends:
//! [`ServiceParams::to_send`](crate::ServiceParams::to_send).

use async_trait::async_trait;

use crate::context::{CallContext, ProtocolVersion};
use crate::error::{Error, Result};
use crate::operation::{Request, Response};

/// The operations as one protocol version carries them over a binding's wire `W`: its methods,
/// paths, message shapes, headers and error reading.
///
/// A binding client holds one (`Arc<dyn Carriage<W>>`) from construction on and forwards every
/// call to it with its wire.
#[async_trait]
pub trait Carriage<W: Sync + ?Sized>: Send + Sync + 'static {
    /// The protocol version carried.
    fn version(&self) -> ProtocolVersion;

    /// Carries one operation over `wire`.
    async fn call(&self, wire: &W, ctx: &CallContext, request: Request) -> Result<Response>;
}

/// A binding client: its wire and the carriage chosen when it was built. Every such client is an
/// [`A2aService`](crate::A2aService) through the one implementation below, each call handed to
/// the carriage with the wire.
pub trait CarriedClient: Send + Sync + 'static {
    /// The binding's connection.
    type Wire: Send + Sync + 'static;

    /// The connection the carriage uses.
    fn wire(&self) -> &Self::Wire;

    /// The protocol version's carriage.
    fn carriage(&self) -> &dyn Carriage<Self::Wire>;
}

#[async_trait]
impl<C: CarriedClient> crate::A2aService for C {
    async fn call(&self, ctx: &CallContext, request: Request) -> Result<Response> {
        self.carriage().call(self.wire(), ctx, request).await
    }
}

/// The carriage of a protocol version in a binding crate: `carriage_of!(version, V1, V03,
/// "a2a-grpc")` is `$v1` for 1.0 and, where the calling crate's feature `v03` is on, `$v03` for
/// 0.3; without that feature 0.3 is [`Unavailable`] naming the crate `$binding` (and `$v03` is not
/// compiled). What a binding client's `with_protocol_version` sets its carriage to.
#[macro_export]
macro_rules! carriage_of {
    ($version:expr, $v1:expr, $v03:expr, $binding:literal) => {
        match $version {
            $crate::ProtocolVersion::V1_0 => ::std::sync::Arc::new($v1),
            #[cfg(feature = "v03")]
            $crate::ProtocolVersion::V0_3 => ::std::sync::Arc::new($v03),
            #[cfg(not(feature = "v03"))]
            version @ $crate::ProtocolVersion::V0_3 => {
                ::std::sync::Arc::new($crate::carriage::Unavailable::new(version, $binding))
            }
        }
    };
}

/// Implements [`CarriedClient`] (so [`A2aService`](crate::A2aService)) for the binding client
/// `$client`, whose fields `wire: $wire` and `carriage: Arc<dyn Carriage<$wire>>` hold its
/// connection and the carriage chosen when it was built, and gives it the method every binding
/// client has, `protocol_version()`: the one line each binding writes.
///
/// ```
/// use std::sync::Arc;
/// use a2a_core::carriage::{Carriage, Unavailable};
/// use a2a_core::{A2aService, CallContext, ProtocolVersion};
///
/// struct Wire;
/// struct MyClient {
///     wire: Wire,
///     carriage: Arc<dyn Carriage<Wire>>,
/// }
/// a2a_core::carried_client!(MyClient, Wire);
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let carriage = Arc::new(Unavailable::new(ProtocolVersion::V0_3, "mine"));
/// let client = MyClient { wire: Wire, carriage };
/// assert_eq!(client.protocol_version(), ProtocolVersion::V0_3);
/// let error = client.get_task(&CallContext::v1(), Default::default()).await.unwrap_err();
/// assert!(error.to_string().contains("mine does not speak A2A 0.3"));
/// # }
/// ```
#[macro_export]
macro_rules! carried_client {
    ($client:ty, $wire:ty) => {
        impl $crate::carriage::CarriedClient for $client {
            type Wire = $wire;

            fn wire(&self) -> &$wire {
                &self.wire
            }

            fn carriage(&self) -> &dyn $crate::carriage::Carriage<$wire> {
                &*self.carriage
            }
        }

        impl $client {
            /// The protocol version this client speaks.
            pub fn protocol_version(&self) -> $crate::ProtocolVersion {
                $crate::carriage::Carriage::version(&*self.carriage)
            }
        }
    };
}

/// The carriage of a protocol version this build of a binding does not speak (its feature is
/// off): every call fails with [`Error::UnsupportedOperation`] naming the version and the crate,
/// and nothing is sent.
#[derive(Debug, Clone)]
pub struct Unavailable {
    version: ProtocolVersion,
    binding: &'static str,
}

impl Unavailable {
    /// The carriage refusing `version` in the crate named `binding` (e.g. `"a2a-jsonrpc"`).
    pub fn new(version: ProtocolVersion, binding: &'static str) -> Self {
        Unavailable { version, binding }
    }

    /// The error of every call.
    pub fn error(&self) -> Error {
        Error::unsupported(format!(
            "{} does not speak A2A {} in this build (its `v03` feature is off); the request was not sent",
            self.binding, self.version
        ))
    }
}

#[async_trait]
impl<W: Sync + ?Sized> Carriage<W> for Unavailable {
    async fn call(&self, _: &W, _: &CallContext, _: Request) -> Result<Response> {
        Err(self.error())
    }

    fn version(&self) -> ProtocolVersion {
        self.version
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_unavailable_version_fails_every_call_naming_the_version_and_the_crate() {
        let carriage = Unavailable::new(ProtocolVersion::V0_3, "a2a-jsonrpc");
        let ctx = CallContext::v1();
        assert_eq!(Carriage::<()>::version(&carriage), ProtocolVersion::V0_3);
        for operation in crate::Operation::ALL {
            let request = Request::decode(operation, Empty).unwrap();
            let error = Carriage::<()>::call(&carriage, &(), &ctx, request).await.unwrap_err();
            assert!(matches!(error, Error::UnsupportedOperation { .. }), "{error:?}");
            let text = error.to_string();
            assert!(text.contains("a2a-jsonrpc") && text.contains("0.3") && text.contains("v03"), "{text}");
        }
    }

    /// Every message at its defaults.
    struct Empty;

    impl crate::operation::Decode for Empty {
        fn decode<M: a2a_proto::WireMessage>(self) -> Result<M> {
            Ok(M::default())
        }
    }
}
