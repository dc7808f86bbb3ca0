import { Injectable, Logger } from '@nestjs/common';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { metricsReader } from './meter-provider';

/**
 * Collects the SDK's current (cumulative) metrics from the one reader: GET /metrics serializes them, the status
 * page's sampler turns them into rates. Cumulative temporality means any number of callers can collect without
 * taking anything away from each other.
 */
@Injectable()
export class MetricsCollector {
  private readonly logger = new Logger(MetricsCollector.name);
  private lastError = '';

  async collect(): Promise<ResourceMetrics> {
    const { resourceMetrics, errors } = await metricsReader.collect();
    // A failing callback is reported on every collection (each second while the status page samples): log a
    // failure once, not once a second.
    const error = errors.length > 0 ? String(errors[0]) : '';
    if (error && error !== this.lastError) this.logger.warn(`Metrics collection: ${errors.length} error(s), first: ${error}`);
    this.lastError = error;
    return resourceMetrics;
  }
}
