import { Logger } from '@nestjs/common';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

/**
 * The sample's OpenTelemetry metrics SDK, registered as the global MeterProvider when this file is first imported.
 *
 * Why at import time: the library creates its instruments when its services are constructed, from whatever
 * provider is global at that moment, so the SDK must be in place before Nest instantiates anything. app.module.ts
 * imports this file first, which covers `main.ts` and tests that create the app from AppModule alike. A global
 * MeterProvider is set once per process: every app created in the same process afterwards (several in one test
 * file) records into this same SDK, so its counters keep growing across apps.
 *
 * The reader is a PrometheusExporter with its own HTTP server left unstarted: GET /metrics (MetricsController)
 * serves the text on the app's own port, and the status page samples the same reader.
 */
export const metricsReader = new PrometheusExporter({ preventServerStart: true });

const registered = metrics.setGlobalMeterProvider(new MeterProvider({ readers: [metricsReader] }));
if (!registered) {
  // Another SDK came first (e.g. `node --require ./otel.js`): the library's instruments belong to it, so /metrics
  // and the status page's charts would stay empty. Say so rather than show flat lines without a reason.
  new Logger('Telemetry').warn(
    'A global MeterProvider was already registered: GET /metrics and the status page charts will not see the library metrics.',
  );
}
