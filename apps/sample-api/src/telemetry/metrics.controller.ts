import { Controller, Get, Header } from '@nestjs/common';
import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MetricsCollector } from './metrics-collector';

/** The Prometheus text exposition format, version 0.0.4 (what Prometheus expects of a plain-text scrape). */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

@Controller()
export class MetricsController {
  /**
   * The exporter's own serializer with the exporter's defaults (no name prefix, no timestamps). Serializing here
   * rather than handing the raw request to the exporter's handler keeps one code path for Express and Fastify.
   */
  private readonly serializer = new PrometheusSerializer();

  constructor(private readonly collector: MetricsCollector) {}

  /** The library's metrics for a Prometheus scrape (names: dots become underscores, counters end in `_total`). */
  @Get('metrics')
  @Header('Content-Type', PROMETHEUS_CONTENT_TYPE)
  async scrape(): Promise<string> {
    return this.serializer.serialize(await this.collector.collect());
  }
}
