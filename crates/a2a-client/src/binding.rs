//! [`Binding`] (`a2a_core::Binding`, the one home of the bindings' identity and names) and which
//! of them this build of the crate can speak.

pub use a2a_core::Binding;

/// Whether this build of the crate can speak `binding` (its feature, `jsonrpc`, `rest` or
/// `grpc`, is on). Every binding exists whatever the features; one that is off is never
/// selected.
pub(crate) fn is_available(binding: Binding) -> bool {
    match binding {
        Binding::JsonRpc => cfg!(feature = "jsonrpc"),
        Binding::Rest => cfg!(feature = "rest"),
        Binding::Grpc => cfg!(feature = "grpc"),
    }
}
