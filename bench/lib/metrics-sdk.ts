import type { INestApplicationContext } from '@nestjs/common';
import { metrics } from '@opentelemetry/api';
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { createOurContext } from './our-library';

/** An exporter that accepts every export and keeps nothing: the cost measured is recording and collecting. */
const discardingExporter: PushMetricExporter = {
  export: (_metrics, done) => done({ code: 0 }),
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
  selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
};

/**
 * Our application context with the OpenTelemetry metrics SDK registered while it is created (so its instruments
 * are the SDK's) and exporting every second; the global provider is reset afterwards, so contexts created later
 * (the other contenders) keep the API's no-op instruments. The SDK shuts down with the context.
 */
export async function createOurContextWithMetricsSdk(
  url: string,
  keyPrefix: string,
  sections: Record<string, unknown> = {},
): Promise<INestApplicationContext> {
  const provider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: discardingExporter, exportIntervalMillis: 1000 })],
  });
  metrics.setGlobalMeterProvider(provider);
  let app: INestApplicationContext;
  try {
    app = await createOurContext(url, keyPrefix, sections);
  } finally {
    metrics.disable();
  }
  const close = app.close.bind(app);
  app.close = async () => {
    await close();
    await provider.shutdown();
  };
  return app;
}
