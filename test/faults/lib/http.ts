import { Agent, request } from 'node:http';
import { now } from './measure';

/** The outcome of one HTTP request: status (0 when the connection failed), a few headers, latency. */
export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  ms: number;
  startedAt: number;
  error?: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/** One request with a client-side deadline (a hung server counts as status 0 after `timeoutMs`). */
export function httpRequest(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<HttpResult> {
  const startedAt = now();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ms: now() - startedAt, startedAt }));
      res.on('error', (error) => resolve({ status: 0, headers: {}, body, ms: now() - startedAt, startedAt, error: error.message }));
    });
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new Error('client timeout')));
    req.on('error', (error) => resolve({ status: 0, headers: {}, body: '', ms: now() - startedAt, startedAt, error: error.message }));
    req.end();
  });
}
