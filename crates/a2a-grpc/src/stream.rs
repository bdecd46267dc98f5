//! Server-streaming results on both sides: items pass through, the first error is the last item.
//!
//! gRPC ends a server stream with exactly one status, so after an error nothing may follow
//! (spec 3.5.2: an error item ends the stream abnormally). The source is dropped as soon as its
//! error has been taken, rather than polled again: a source that stays pending after failing
//! would otherwise keep the call open forever.

use futures::stream::{self, BoxStream, Stream, StreamExt};

/// `source` with its items passed through, its first error converted by `convert` and yielded as
/// the final item.
pub(crate) fn end_after_error<S, T, E, F, E2>(source: S, convert: F) -> BoxStream<'static, Result<T, E2>>
where
    S: Stream<Item = Result<T, E>> + Send + 'static,
    T: Send + 'static,
    E2: Send + 'static,
    F: Fn(E) -> E2 + Send + Sync + 'static,
{
    let state = Some((Box::pin(source), convert));
    stream::unfold(state, |state| async move {
        let (mut source, convert) = state?;
        match source.next().await? {
            Ok(item) => Some((Ok(item), Some((source, convert)))),
            Err(error) => Some((Err(convert(error)), None)),
        }
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn nothing_follows_the_first_error_and_the_source_is_not_polled_again() {
        // After the error the source would hang forever; the adapter must end without asking.
        let source = stream::iter([Ok(1), Err("boom"), Ok(2)]).chain(stream::pending());
        let items: Vec<_> = end_after_error(source, |e: &str| e.len()).collect().await;
        assert_eq!(items, [Ok(1), Err(4)]);
    }

    #[tokio::test]
    async fn a_stream_without_errors_passes_through_whole() {
        let source = stream::iter([Ok::<_, ()>(1), Ok(2), Ok(3)]);
        let items: Vec<_> = end_after_error(source, |()| ()).collect().await;
        assert_eq!(items, [Ok(1), Ok(2), Ok(3)]);
    }
}
