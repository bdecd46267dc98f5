//! The 0.3 objects, read from either [`Form`](crate::Form) and written in either: the [`V03`]
//! implementations for the 1.0 types, one module per concept, each with its mapping table.
//!
//! - [`part`], [`message`], [`task`] (with `TaskStatus` and `Artifact`): the data objects.
//! - [`event`]: stream events and send results (`kind`, `final`).
//! - [`push`]: push notification configs.
//! - [`request`]: the params of every 0.3 method.
//! - [`card`]: the agent card (union card, 0.3 proto card, reading any card).
//! - [`enums`]: task states and roles.
//!
//! [`V03`]: crate::V03

pub mod card;
pub mod enums;
pub mod event;
pub mod message;
pub mod part;
pub mod push;
pub mod request;
pub mod task;
