//! [`WithTenant`]: puts an interface's `tenant` into every request that has none (spec 8.3.2:
//! a client that selects an interface with a tenant sends it in every request), on every binding,
//! so callers never think about tenants. [`ClientBuilder::binding_client`](crate::ClientBuilder::binding_client)
//! wraps its binding clients in it.

use std::sync::Arc;

use a2a_core::{A2aService, CallContext, Request, Response, Result};
use async_trait::async_trait;

/// An [`A2aService`] that sets `tenant` on each request whose `tenant` is empty, then calls
/// `inner`; a request's own tenant is kept. The [`CallContext`] is passed on unchanged.
#[derive(Clone)]
pub struct WithTenant {
    inner: Arc<dyn A2aService>,
    tenant: String,
}

impl std::fmt::Debug for WithTenant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WithTenant").field("tenant", &self.tenant).finish_non_exhaustive()
    }
}

impl WithTenant {
    /// Calls `inner` with `tenant` filled in.
    pub fn new(inner: Arc<dyn A2aService>, tenant: impl Into<String>) -> Self {
        WithTenant { inner, tenant: tenant.into() }
    }
}

#[async_trait]
impl A2aService for WithTenant {
    async fn call(&self, ctx: &CallContext, mut request: Request) -> Result<Response> {
        let tenant = request.tenant_mut();
        if tenant.is_empty() {
            tenant.clone_from(&self.tenant);
        }
        self.inner.call(ctx, request).await
    }
}
