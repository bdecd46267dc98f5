//! The same metrics through OpenTelemetry (feature `otel`): [`Metrics::export_to`] registers an
//! instrument per family of [`Metrics::families`] on an OpenTelemetry `Meter`, with the same
//! names, labels (as attributes) and meanings as the Prometheus scrape (`docs/operations.md`).
//!
//! - Counters and gauges are observable instruments: the meter's reader calls back at each
//!   collection and reads the same atomics the scrape reads, so recording costs nothing more.
//! - The two duration histograms are synchronous OpenTelemetry histograms with the scrape's bucket
//!   bounds, recorded as each call or store operation ends, beside our own (OpenTelemetry has no
//!   observable histogram). Their attribute sets are built once, at registration, so a recording
//!   is a lookup and the SDK's own aggregation.

use opentelemetry::metrics::{Histogram, Meter};
use opentelemetry::KeyValue;

use super::{histogram, operation_slot, Kind, Labels, Metrics, StoreOperation, Value};
use a2a_core::{Binding, Operation};

/// The synchronous histograms and their attribute sets, by slot.
pub(crate) struct OtelHistograms {
    requests: Histogram<f64>,
    request_attributes: Vec<Vec<KeyValue>>,
    store: Histogram<f64>,
    store_attributes: Vec<Vec<KeyValue>>,
}

impl OtelHistograms {
    pub(crate) fn request(&self, slot: usize, seconds: f64) {
        self.requests.record(seconds, &self.request_attributes[slot]);
    }

    pub(crate) fn store(&self, operation: StoreOperation, seconds: f64) {
        self.store.record(seconds, &self.store_attributes[operation as usize]);
    }
}

fn attributes(labels: &Labels) -> Vec<KeyValue> {
    labels.iter().map(|(key, value)| KeyValue::new(*key, *value)).collect()
}

/// The samples of the family `name`, read now.
fn samples(metrics: &Metrics, name: &str) -> Vec<(Labels, Value)> {
    metrics.families_with(true).into_iter().find(|f| f.name == name).map(|f| f.samples).unwrap_or_default()
}

impl Metrics {
    /// Publishes these metrics through `meter` as well (an OTLP exporter's, say): every family
    /// of the scrape, same names, attributes for labels, seconds (`s`) for durations. Call it
    /// once per `Metrics`, before the server serves (a second call is ignored, with a warning).
    pub fn export_to(&self, meter: &Meter) {
        let histograms = OtelHistograms {
            requests: meter
                .f64_histogram("a2a_request_duration")
                .with_unit("s")
                .with_description(
                    "Time from a call reaching the handler to its answer (for streaming operations, to \
                     the stream's start), by operation and binding.",
                )
                .with_boundaries(histogram::bounds_seconds().collect())
                .build(),
            request_attributes: Binding::ALL
                .into_iter()
                .flat_map(|binding| {
                    Operation::ALL.into_iter().map(move |operation| {
                        debug_assert_eq!(
                            operation_slot(binding, operation),
                            binding as usize * Operation::ALL.len() + operation as usize
                        );
                        vec![
                            KeyValue::new("operation", operation.method()),
                            KeyValue::new("binding", binding.protocol_binding()),
                        ]
                    })
                })
                .collect(),
            store: meter
                .f64_histogram("a2a_store_operation_duration")
                .with_unit("s")
                .with_description("Time of each task and push config store call, by store operation.")
                .with_boundaries(histogram::bounds_seconds().collect())
                .build(),
            store_attributes: StoreOperation::ALL
                .into_iter()
                .map(|operation| vec![KeyValue::new("operation", operation.as_str())])
                .collect(),
        };
        if self.counters.otel.set(histograms).is_err() {
            tracing::warn!(
                "these metrics are already exported through OpenTelemetry; ignoring the second meter"
            );
            return;
        }
        for family in self.families_with(true) {
            let (name, help) = (family.name, family.help);
            let metrics = self.clone();
            match family.kind {
                Kind::Counter => {
                    meter
                        .u64_observable_counter(name)
                        .with_description(help)
                        .with_callback(move |observer| {
                            for (labels, value) in samples(&metrics, name) {
                                if let Value::Counter(value) = value {
                                    observer.observe(value, &attributes(&labels));
                                }
                            }
                        })
                        .build();
                }
                Kind::Gauge => {
                    meter
                        .i64_observable_gauge(name)
                        .with_description(help)
                        .with_callback(move |observer| {
                            for (labels, value) in samples(&metrics, name) {
                                if let Value::Gauge(value) = value {
                                    observer.observe(value, &attributes(&labels));
                                }
                            }
                        })
                        .build();
                }
                // Recorded synchronously (module docs).
                Kind::Histogram => {}
            }
        }
    }
}
